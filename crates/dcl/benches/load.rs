//! Opening the 65,024-entity example (`scenetree example large`) from bytes to a drawable
//! view: the replica read and the render tree built (`SceneView::from_source`: every world
//! matrix computed).
//!
//! - `load/native_json_to_view`: the native JSON text (about 30 MB) through
//!   `io::native::parse_native` (the typed reader, following its JSON path for errors).
//! - `load/main_crdt_to_view`: the same scene as `main.crdt` bytes (about 7 MB), decoded and
//!   applied (`Replica::apply_all`).
//! - `load/main_composite_to_view`: the same scene as the `main.composite` scenetree writes for
//!   it (about 43 MB), parsed and loaded, every value's JSON kept for a faithful save.
//! - `load/write_native_json`, `load/write_main_crdt`, `load/write_main_composite`: the other
//!   way, the replica written as each file's text or bytes (what a save and the editor's
//!   autosave do before writing); the composite as a scene not read from one is written (the
//!   Inspector's layout, every component with its schema).
//!
//! Throughput is the file's bytes. Run: `cargo bench --bench load`.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use scenetree_core::crdt::Replica;
use scenetree_core::scene::SceneView;
use scenetree_dcl::io::{CompositeDoc, dcl_composite, dcl_crdt, native};

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

fn load(c: &mut Criterion) {
    let scene = scenetree_core::examples::large(usize::MAX);
    let json = native::to_native_json(&scene);
    let crdt = dcl_crdt::to_crdt_bytes(&scene);
    eprintln!(
        "load: {} entities, native JSON {} bytes, main.crdt {} bytes",
        scene.live_entity_count(),
        json.len(),
        crdt.len()
    );
    let path = Path::new("large.json");
    let mut group = c.benchmark_group("load");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Bytes(json.len() as u64));
    group.bench_function("native_json_to_view", |b| {
        b.iter(|| {
            let replica = native::parse_native(path, black_box(&json)).expect("reads");
            SceneView::from_source(&replica)
        })
    });
    group.throughput(Throughput::Bytes(crdt.len() as u64));
    group.bench_function("main_crdt_to_view", |b| {
        b.iter(|| {
            let file =
                dcl_crdt::parse_crdt(Path::new("main.crdt"), black_box(&crdt)).expect("decodes");
            let replica = Replica::from_messages(&file.messages);
            SceneView::from_source(&replica)
        })
    });
    group.bench_function("write_main_crdt", |b| {
        b.iter(|| dcl_crdt::to_crdt_bytes(black_box(&scene)))
    });
    group.throughput(Throughput::Bytes(json.len() as u64));
    group.bench_function("write_native_json", |b| {
        b.iter(|| native::to_native_json(black_box(&scene)))
    });
    let new_composite = CompositeDoc::new();
    let composite = dcl_composite::composite_json(&scene, &new_composite).text;
    eprintln!("load: main.composite {} bytes", composite.len());
    group.throughput(Throughput::Bytes(composite.len() as u64));
    group.bench_function("write_main_composite", |b| {
        b.iter(|| dcl_composite::composite_json(black_box(&scene), &new_composite))
    });
    group.bench_function("main_composite_to_view", |b| {
        b.iter(|| {
            let (replica, doc, _) =
                dcl_composite::parse_composite(Path::new("main.composite"), black_box(&composite))
                    .expect("reads");
            (SceneView::from_source(&replica), doc)
        })
    });
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
