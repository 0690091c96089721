//! Opening and saving the official Cozy House template: main.crdt (read, replica, layout;
//! save in the file's order) and main.composite (parse and load; write back).

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use scenetree::crdt::Replica;
use scenetree::io::{dcl_composite, dcl_crdt};

fn dcl_files(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dcl/Cozy-House-Template");
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
}

criterion_group!(benches, dcl_files);
criterion_main!(benches);
