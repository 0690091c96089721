//! Edits of thousands of entities in a scene that carries the Decentraland Inspector's tree
//! (`inspector::Nodes`), which every edit keeps as the Inspector would: 16,000 entities at the
//! root, their Nodes built as the Inspector builds them, then
//!
//! - `duplicate_16000`: all 16,000 duplicated (each copy placed right after its original);
//! - `reparent_8000`: every other one moved under one entity, keeping world positions;
//! - `delete_16000`: the 16,000 originals deleted (their nodes and every mention go);
//! - `reorder_8000`: every other one dragged, among its siblings, after the last entity.
//!
//! Each edit used to search the whole tree once per entity (quadratic); one pass per edit now
//! (`Nodes::apply_edits`, `Nodes::remove_nodes`). Run: `cargo bench --bench inspector_edits`.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, Transform};
use scenetree_dcl::nodes::nodes_id;
use scenetree_editor::{Command, Document};

const N: u32 = 16_000;

/// `N` entities at the root, with the Inspector's tree of them.
fn scene() -> Document {
    let mut replica = Replica::new();
    for i in 0..N {
        (replica.put_transform(Entity(512 + i), &Transform::IDENTITY)).expect("a scene number");
    }
    let mut doc = Document::new(replica, None);
    let nodes = doc.inspector_tree_rebuilt().encode();
    doc.apply(Command::SetComponent {
        entity: Entity::ROOT,
        component: nodes_id(),
        value: Some(nodes),
    })
    .expect("sets the tree");
    doc
}

fn all() -> Vec<Entity> {
    (512..512 + N).map(Entity).collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("inspector_edits");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    type Edit = (&'static str, fn() -> Command);
    let edits: [Edit; 4] = [
        ("duplicate_16000", || Command::Duplicate { entities: all() }),
        ("reparent_8000", || Command::Reparent {
            entities: all().into_iter().filter(|e| e.0 % 2 == 1).collect(),
            parent: Entity(512),
            keep_world: true,
        }),
        ("delete_16000", || Command::Delete { entities: all() }),
        ("reorder_8000", || Command::Reorder {
            entities: all().into_iter().filter(|e| e.0 % 2 == 1).collect(),
            parent: Entity::ROOT,
            after: Some(Entity(512 + N - 2)),
            keep_world: true,
        }),
    ];
    for (name, command) in edits {
        group.bench_function(name, |b| {
            b.iter_batched(
                scene,
                |mut doc| {
                    doc.apply(black_box(command())).expect("the edit applies");
                    doc
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
