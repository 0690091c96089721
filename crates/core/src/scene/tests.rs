//! Internal invariants of [`SceneView`] under random incremental updates (the behaviour is
//! checked from outside in `tests/scene_*.rs`); the layout's own in `layout.rs`.

use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::records::Node;
use super::{NO_HINT, SceneView, TransformSource, TransformTable};
use crate::model::{Entity, Transform};

mod layout;

fn at(rng: &mut ChaCha8Rng, parent: Entity) -> Transform {
    Transform {
        position: Vec3::new(rng.random_range(-1.0..1.0), 0.0, 0.0),
        parent,
        ..Transform::IDENTITY
    }
}

/// Everything the view computes for `e`, to compare two views.
fn snapshot(view: &SceneView, e: Entity) -> (Option<Entity>, Option<Entity>, bool, Vec<Entity>) {
    (
        view.declared_parent_of(e),
        view.effective_parent_of(e),
        view.is_live(e),
        view.sorted_children_of(e),
    )
}

/// The parent of the `i`-th entity of a random forest (ids from 512): the root for the first
/// and about one in twenty, else a random earlier entity.
fn random_parent(rng: &mut ChaCha8Rng, i: u32) -> Entity {
    if i == 0 || rng.random_bool(0.05) {
        Entity::ROOT
    } else {
        Entity(512 + rng.random_range(0..i))
    }
}

/// Puts entity `512 + e` under entity `512 + p`, for `e` and `p` drawn at random from
/// `entities` and `parents` (cycles and parents without a Transform included).
fn move_at_random(
    rng: &mut ChaCha8Rng,
    table: &mut TransformTable,
    entities: std::ops::Range<u32>,
    parents: std::ops::Range<u32>,
) {
    let e = Entity(512 + rng.random_range(entities));
    let parent = Entity(512 + rng.random_range(parents));
    let t = at(rng, parent);
    table.set(e, t);
}

/// A random forest of `n` entities (ids from 512) in a table.
fn random_table(rng: &mut ChaCha8Rng, n: u32) -> TransformTable {
    let mut table = TransformTable::new();
    for i in 0..n {
        let parent = random_parent(rng, i);
        let t = at(rng, parent);
        table.set(Entity(512 + i), t);
    }
    table
}

/// Writes a chain of `n` entities from `first` under the root, each the parent of the next
/// and placed `step` from it.
fn add_chain(table: &mut TransformTable, first: u32, n: u32, step: Vec3) {
    add_chain_with(table, first, n, |parent| Transform {
        position: step,
        ..Transform::identity_under(parent)
    });
}

/// Writes a chain of `n` entities from `first` under the root, each the parent of the next,
/// with the Transform `local(parent)` gives.
fn add_chain_with(
    table: &mut TransformTable,
    first: u32,
    n: u32,
    mut local: impl FnMut(Entity) -> Transform,
) {
    for i in 0..n {
        let parent = if i == 0 {
            Entity::ROOT
        } else {
            Entity(first + i - 1)
        };
        table.set(Entity(first + i), local(parent));
    }
}

fn assert_same_as_fresh(view: &SceneView, source: &impl TransformSource) {
    let fresh = SceneView::from_source(source);
    assert_eq!(view.len(), fresh.len());
    for e in fresh.entities() {
        assert_eq!(snapshot(view, e), snapshot(&fresh, e), "entity {e}");
        let (a, b) = (
            view.world_affine(e).unwrap(),
            fresh.world_affine(e).unwrap(),
        );
        assert!(a.abs_diff_eq(b, 1e-4), "world of {e}: {a:?} vs {b:?}");
    }
}

#[test]
fn changed_subtrees_recomputed_on_every_thread_match_a_fresh_build() {
    // Parallel passes normally need tens of thousands of slots; force them here.
    for seed in 10..14 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = 2000u32;
        let mut table = random_table(&mut rng, n);
        let mut view = SceneView::from_source(&table);
        view.set_parallel_grain(0, 8);
        for round in 0..12 {
            // 10..200 changes of 2,000: above len/256, below len/8.
            for _ in 0..[10, 60, 200][round % 3] {
                let e = Entity(512 + rng.random_range(1..n));
                let parent = if rng.random_bool(0.2) {
                    // Reparent (any node, cycles included): subtrees move behind parents.
                    Entity(512 + rng.random_range(0..n))
                } else {
                    table.get(e).map_or(Entity::ROOT, |t| t.parent)
                };
                let t = at(&mut rng, parent);
                table.set(e, t);
            }
            view.update(&table);
            let stats = view.last_update_stats();
            assert!(stats.worlds_recomputed > 0 && !stats.rebuilt);
            view.assert_consistent();
            assert_same_as_fresh(&view, &table);
        }
    }
}

#[test]
fn layout_links_and_counts_stay_consistent_under_random_batches() {
    for seed in 0..6 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = 600u32;
        let mut table = TransformTable::new();
        for i in 0..n {
            let parent = if i == 0 || rng.random_bool(0.1) {
                Entity::ROOT
            } else {
                Entity(512 + rng.random_range(0..i))
            };
            let t = at(&mut rng, parent);
            table.set(Entity(512 + i), t);
        }
        let mut view = SceneView::from_source(&table);
        view.assert_consistent();
        for round in 0..40 {
            let size = [1, 5, 20, 80, 700][round % 5];
            for _ in 0..size {
                let e = Entity(512 + rng.random_range(0..n + 60));
                match rng.random_range(0..10) {
                    0 => table.remove(e),
                    1..=4 => {
                        // Any parent: cycles, missing parents, out-of-order slots.
                        let parent = Entity(512 + rng.random_range(0..n + 60));
                        let t = at(&mut rng, parent);
                        table.set(e, t);
                    }
                    _ => {
                        let parent = table.get(e).map_or(Entity::ROOT, |t| t.parent);
                        let t = at(&mut rng, parent);
                        table.set(e, t);
                    }
                }
            }
            view.update(&table);
            view.assert_consistent();
        }
    }
}

#[test]
fn bulk_rereads_follow_rows_that_moved_since_their_positions_were_kept() {
    // Above the bulk threshold (4,096 changes and a quarter of the view), so every update
    // below re-reads every node through its kept storage position.
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let n = 6000u32;
    let mut table = random_table(&mut rng, n);
    let mut view = SceneView::from_source(&table);
    let move_all = |table: &mut TransformTable, rng: &mut ChaCha8Rng| {
        let all: Vec<(Entity, Transform)> = table.iter().map(|(e, t)| (e, *t)).collect();
        for (e, t) in all {
            table.set(e, at(rng, t.parent));
        }
    };
    move_all(&mut table, &mut rng);
    view.update(&table); // keeps every node's position
    assert_same_as_fresh(&view, &table);
    // Removing leaves swaps the last rows into their places: kept positions now name other
    // entities, and the entities that moved must be found again.
    let leaves: Vec<Entity> = (0..n)
        .map(|i| Entity(512 + i))
        .filter(|&e| view.sorted_children_of(e).is_empty())
        .take(300)
        .collect();
    for e in leaves {
        table.remove(e);
    }
    move_all(&mut table, &mut rng);
    view.update(&table);
    assert!(view.last_update_stats().entities_read >= table.len());
    view.assert_consistent();
    assert_same_as_fresh(&view, &table);
}

#[test]
fn bulk_rereads_of_a_replica_match_a_fresh_build() {
    use crate::crdt::{CrdtMessage, Replica};
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let n = 6000u32;
    let mut replica = Replica::new();
    let mut parents = Vec::new();
    let put = |replica: &mut Replica, e: u32, t: Transform, timestamp: u32| {
        replica.apply(&CrdtMessage::PutComponent {
            entity: Entity(512 + e),
            component: Transform::COMPONENT_ID,
            timestamp,
            data: t.to_bytes().to_vec(),
        });
    };
    for i in 0..n {
        let parent = random_parent(&mut rng, i);
        parents.push(parent);
        put(&mut replica, i, at(&mut rng, parent), 1);
    }
    let mut view = SceneView::from_source(&replica);
    for timestamp in 2..5 {
        for (i, &parent) in parents.iter().enumerate() {
            put(&mut replica, i as u32, at(&mut rng, parent), timestamp);
        }
        // One entity loses its Transform but stays live (a Name): read from its position, it
        // must come back as live without a Transform.
        if timestamp == 4 {
            replica.apply(&CrdtMessage::PutComponent {
                entity: Entity(512 + 7),
                component: crate::model::ids::NAME,
                timestamp: 1,
                data: crate::model::encode_name("kept"),
            });
            replica.apply(&CrdtMessage::DeleteComponent {
                entity: Entity(512 + 7),
                component: Transform::COMPONENT_ID,
                timestamp: 5,
            });
        }
        view.update(&replica);
        view.assert_consistent();
        assert_same_as_fresh(&view, &replica);
    }
    assert!(view.is_live(Entity(512 + 7)));
}

/// Every entity's children in [`SceneView::children_of`]'s order.
fn child_lists(view: &SceneView) -> std::collections::HashMap<Entity, Vec<Entity>> {
    view.entities()
        .map(|e| (e, view.children_of(e).collect()))
        .collect()
}

#[test]
fn the_child_order_generation_changes_whenever_children_are_listed_in_another_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    // Above the size at which scattered views are laid out again.
    let n = 6000u32;
    let mut table = random_table(&mut rng, n);
    let mut view = SceneView::from_source(&table);
    let mut lists = child_lists(&view);
    let mut relaid_by_moves = 0;
    for round in 0..400 {
        // Reparents first (subtrees appended, children out of id order), until enough nodes
        // sit apart for a layout; then moves of nodes near the roots (many worlds
        // recomputed), until those lay the view out again, as a long session does.
        let reparenting = view.appended_since_layout * 8 < view.len() && relaid_by_moves == 0;
        for _ in 0..if reparenting { 20 } else { 5 } {
            let e = Entity(512 + rng.random_range(1..n / if reparenting { 1 } else { 20 }));
            let parent = if reparenting {
                Entity(512 + rng.random_range(0..n))
            } else {
                table.get(e).map_or(Entity::ROOT, |t| t.parent)
            };
            let t = at(&mut rng, parent);
            table.set(e, t);
        }
        let (structure, order) = (view.structure_generation(), view.child_order_generation());
        view.update(&table);
        let now = child_lists(&view);
        if now != lists {
            assert_ne!(view.child_order_generation(), order, "round {round}");
            relaid_by_moves += usize::from(view.structure_generation() == structure);
        }
        lists = now;
    }
    assert!(
        relaid_by_moves > 0,
        "a layout by an update of moves alone reordered children"
    );
}

/// The fourth (padding) lane of each SIMD column of every stored local and world matrix.
#[cfg(target_arch = "x86_64")]
fn padding_lanes(view: &SceneView) -> impl Iterator<Item = f32> + '_ {
    view.local.iter().chain(&view.world).flat_map(|m| {
        let a = m.0;
        [
            a.matrix3.x_axis,
            a.matrix3.y_axis,
            a.matrix3.z_axis,
            a.translation,
        ]
        // SAFETY: on x86-64 a `Vec3A` is one 16-byte `__m128`, four f32 lanes.
        .map(|column| unsafe { std::mem::transmute::<glam::Vec3A, [f32; 4]>(column) }[3])
    })
}

#[test]
#[cfg(target_arch = "x86_64")]
fn padding_lanes_of_every_matrix_stay_zero_down_a_deep_chain_of_rotations() {
    // glam's padding values, carried by every product, shrank into subnormal floats down the
    // 100,000-deep bench chain (an Intel core's microcode assist on each use).
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let rotated = |parent: Entity, rng: &mut ChaCha8Rng| Transform {
        position: Vec3::new(
            rng.random_range(-4.0..4.0),
            rng.random_range(-4.0..4.0),
            1.0,
        ),
        rotation: glam::Quat::from_axis_angle(
            Vec3::new(rng.random(), rng.random(), rng.random())
                .try_normalize()
                .unwrap_or(Vec3::X),
            rng.random_range(-0.5..0.5),
        ),
        parent,
        ..Transform::IDENTITY
    };
    let n = 5000u32;
    let mut table = TransformTable::new();
    add_chain_with(&mut table, 512, n, |parent| rotated(parent, &mut rng));
    let check = |view: &SceneView, step: &str| {
        let nonzero = padding_lanes(view).filter(|&lane| lane != 0.0).count();
        assert_eq!(nonzero, 0, "{step}: padding lanes not zero");
    };
    for grain in [None, Some((0, 8))] {
        let mut view = SceneView::from_source(&table);
        if let Some((min_slots, chunk)) = grain {
            view.set_parallel_grain(min_slots, chunk);
        }
        check(&view, "built from the source");
        for e in (0..n).step_by(97) {
            let parent = table.get(Entity(512 + e)).unwrap().parent;
            table.set(Entity(512 + e), rotated(parent, &mut rng));
        }
        view.update(&table);
        check(&view, "after 1% of the locals changed");
        for e in 0..n {
            let parent = table.get(Entity(512 + e)).unwrap().parent;
            table.set(Entity(512 + e), rotated(parent, &mut rng));
        }
        view.update(&table);
        assert!(view.last_update_stats().entities_read >= n as usize);
        check(&view, "after every local changed");
        table.forget_history();
    }
}

#[test]
fn a_fresh_view_of_a_source_with_history_reads_it_whole() {
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    let mut table = TransformTable::new();
    table.set(Entity(512), at(&mut rng, Entity::ROOT));
    let mut replayed = SceneView::from_source(&table);
    // Children before their parents, then moves (cycles included) and removals: the history
    // a replay has to redo.
    for i in (1..3000u32).rev() {
        let parent = Entity(512 + rng.random_range(0..i));
        table.set(Entity(512 + i), at(&mut rng, parent));
    }
    for _ in 0..500 {
        if rng.random_bool(0.2) {
            table.remove(Entity(512 + rng.random_range(1..3000)));
        } else {
            move_at_random(&mut rng, &mut table, 1..3000, 0..3000);
        }
    }
    replayed.update(&table);
    assert!(!replayed.last_update_stats().rebuilt);
    replayed.assert_consistent();
    let fresh = SceneView::from_source(&table);
    assert!(
        fresh.last_update_stats().rebuilt,
        "an empty view reads the source whole"
    );
    fresh.assert_consistent();
    assert_same_as_fresh(&replayed, &table);
}

#[test]
fn the_rerooted_list_follows_parents_that_lose_or_gain_a_transform_while_staying_live() {
    use crate::crdt::{CrdtMessage, Replica};
    use crate::model::{encode_name, ids};
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    let n = 40u32;
    let mut replica = Replica::new();
    // Every entity holds a Name, so it stays live whether or not it holds a Transform.
    for i in 0..n {
        replica.apply(&CrdtMessage::PutComponent {
            entity: Entity(512 + i),
            component: ids::NAME,
            timestamp: 1,
            data: encode_name("kept"),
        });
    }
    let mut view = SceneView::from_source(&replica);
    for timestamp in 2..400 {
        for _ in 0..rng.random_range(1..6) {
            let e = Entity(512 + rng.random_range(0..n));
            let message = if rng.random_bool(0.3) {
                CrdtMessage::DeleteComponent {
                    entity: e,
                    component: Transform::COMPONENT_ID,
                    timestamp,
                }
            } else {
                // Parents beyond `n` are never written: implicit nodes.
                let parent = Entity(512 + rng.random_range(0..n + 4));
                CrdtMessage::PutComponent {
                    entity: e,
                    component: Transform::COMPONENT_ID,
                    timestamp,
                    data: at(&mut rng, parent).to_bytes().to_vec(),
                }
            };
            replica.apply(&message);
        }
        view.update(&replica);
        view.assert_consistent();
    }
}
