//! The order explorer on a large scene: every delivery order of six messages (two of them make
//! a parenting cycle together) to a replica of 65,024 entities. Each state it tries is a clone
//! of the replica with one more message applied, and the render tree of that clone.
//!
//! `cargo bench --bench order_explorer`

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use scenetree_core::crdt::CrdtMessage;
use scenetree_core::examples;
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::order_explorer::explore_orders;

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

fn explorer(c: &mut Criterion) {
    let start = examples::large(usize::MAX);
    let mut author = start.clone();
    let mut moved = |e: u32, parent: u32| -> CrdtMessage {
        let mut t = author.transform(Entity(e)).unwrap_or(Transform::IDENTITY);
        t.parent = Entity(parent);
        t.position.x += 1.0;
        author.put_transform(Entity(e), &t).unwrap()
    };
    let messages = vec![
        moved(512, 513), // district 512 under 513 …
        moved(513, 512), // … and 513 under 512: a cycle once both arrive
        moved(600, 0),
        moved(20_000, 700),
        moved(40_000, 0),
        moved(65_000, 512),
    ];
    let mut group = c.benchmark_group("order_explorer_65024_entities");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("every_order_of_6_messages", |b| {
        b.iter(|| black_box(explore_orders(&start, &messages).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, explorer);
criterion_main!(benches);
