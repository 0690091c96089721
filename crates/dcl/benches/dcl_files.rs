//! Opening and saving the official Cozy House template: main.crdt (read, replica, layout;
//! save in the file's order) and main.composite (parse and load; write back; convert to the
//! main.crdt the SDK writes); and the component codec on every protobuf value of both
//! templates (decode to the SDK's JSON, encode back).

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use scenetree_core::crdt::Replica;
use scenetree_dcl::codec::ProtoMessage;
use scenetree_dcl::io::{dcl_composite, dcl_crdt};

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

fn dcl_files(c: &mut Criterion) {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/dcl/Cozy-House-Template");
    let crdt = std::fs::read(dir.join("main.crdt")).expect("fixture");
    let composite = std::fs::read_to_string(dir.join("main.composite")).expect("fixture");

    c.bench_function("cozy main.crdt: parse, replica, layout (26 KB)", |b| {
        b.iter(|| {
            let file = dcl_crdt::parse_crdt(Path::new("main.crdt"), black_box(&crdt)).unwrap();
            let replica = Replica::from_messages(&file.messages);
            (replica, dcl_crdt::CrdtLayout::from_messages(&file.messages))
        })
    });
    let file = dcl_crdt::parse_crdt(Path::new("main.crdt"), &crdt).unwrap();
    let replica = Replica::from_messages(&file.messages);
    let layout = dcl_crdt::CrdtLayout::from_messages(&file.messages);
    c.bench_function("cozy main.crdt: save in the file's order", |b| {
        b.iter(|| dcl_crdt::to_crdt_bytes_in_layout(black_box(&replica), &layout))
    });

    c.bench_function("cozy main.composite: parse and load (135 KB)", |b| {
        b.iter(|| {
            dcl_composite::parse_composite(Path::new("main.composite"), black_box(&composite))
                .unwrap()
        })
    });
    let (replica, doc, _) =
        dcl_composite::parse_composite(Path::new("main.composite"), &composite).unwrap();
    c.bench_function("cozy main.composite: write back", |b| {
        b.iter(|| dcl_composite::composite_json(black_box(&replica), &doc))
    });
    c.bench_function("cozy main.composite: to the SDK's main.crdt", |b| {
        b.iter(|| dcl_crdt::to_crdt_bytes_in_layout(black_box(&replica), &doc.sdk_crdt_layout()))
    });

    // Every protobuf component value of both templates, with its decoded JSON.
    let mut values = Vec::new();
    for template in ["Cozy-House-Template", "art-gallery-template"] {
        let path = dir
            .parent()
            .expect("fixtures")
            .join(template)
            .join("main.composite");
        let text = std::fs::read_to_string(path).expect("fixture");
        let (replica, _, _) = dcl_composite::parse_composite(Path::new("x"), &text).unwrap();
        for e in replica.live_entities() {
            for component in replica.components_of(e) {
                let (Some(m), Some(bytes)) = (
                    ProtoMessage::of_component(component),
                    replica.component_data(e, component),
                ) else {
                    continue;
                };
                let json = m.decode(bytes).unwrap();
                values.push((m, bytes.to_vec(), json));
            }
        }
    }
    let total: usize = values.iter().map(|(_, b, _)| b.len()).sum();
    let mut group = c.benchmark_group(format!(
        "codec: {} protobuf values of both templates ({total} bytes)",
        values.len()
    ));
    group.throughput(criterion::Throughput::Elements(values.len() as u64));
    group.bench_function("decode to JSON", |b| {
        b.iter(|| {
            for (m, bytes, _) in &values {
                black_box(m.decode(black_box(bytes)).unwrap());
            }
        })
    });
    group.bench_function("encode from JSON", |b| {
        b.iter(|| {
            for (m, _, json) in &values {
                black_box(m.encode(black_box(json)).unwrap());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, dcl_files);
criterion_main!(benches);
