//! The incremental paths of `SceneView::update` against a fresh build, on scenes large enough
//! to reach each of them: batched reads with per-subtree propagation (small batches and a few
//! percent), the bulk re-read with a full recompute (most entities changed), and updates after
//! reparenting has moved subtrees behind their new parents. Batches mix moves, reparents
//! (cycles included), removals, new entities and missing parents. (The slot sweep used by
//! views of half a million nodes is forced on small views in `src/scene/tests.rs`.)

use glam::{Quat, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::{Fallback, SceneView, TransformTable};

const FIRST: u32 = 512;

fn random_transform(rng: &mut ChaCha8Rng, parent: Entity) -> Transform {
    Transform {
        position: Vec3::new(
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
            rng.random_range(-2.0..2.0),
        ),
        rotation: Quat::from_rotation_y(rng.random_range(-3.0..3.0)),
        scale: Vec3::splat(rng.random_range(0.8..1.25)),
        parent,
    }
}

/// A random forest of `n` entities in tree order (ids shuffled by construction: parent ids are
/// random earlier ids, so ids are not sorted by depth).
fn forest(rng: &mut ChaCha8Rng, n: u32) -> TransformTable {
    let mut table = TransformTable::new();
    for i in 0..n {
        let parent = if i == 0 || rng.random_bool(0.05) {
            Entity::ROOT
        } else {
            Entity(FIRST + rng.random_range(0..i))
        };
        table.set(Entity(FIRST + i), random_transform(rng, parent));
    }
    table
}

/// One batch of `size` edits over ids `FIRST .. FIRST + span` (some ids are absent: new
/// entities and missing parents). `acyclic` keeps parents below their children's ids.
fn edit_batch(
    rng: &mut ChaCha8Rng,
    table: &mut TransformTable,
    span: u32,
    size: usize,
    acyclic: bool,
) {
    for _ in 0..size {
        let id = rng.random_range(1..span);
        let entity = Entity(FIRST + id);
        match rng.random_range(0..100) {
            0..=59 => {
                // Move, same parent (or a root child if it is new).
                let parent = table.get(entity).map_or(Entity::ROOT, |t| t.parent);
                let t = random_transform(rng, parent);
                table.set(entity, t);
            }
            60..=89 => {
                let parent = match rng.random_range(0..10) {
                    0 => Entity::ROOT,
                    _ if acyclic => Entity(FIRST + rng.random_range(0..id)),
                    _ => Entity(FIRST + rng.random_range(0..span)),
                };
                let t = random_transform(rng, parent);
                table.set(entity, t);
            }
            _ => table.remove(entity),
        }
    }
}

/// Everything observable about one entity.
fn describe(
    view: &SceneView,
    e: Entity,
) -> (
    Option<Entity>,
    Option<Entity>,
    String,
    bool,
    bool,
    Vec<Entity>,
) {
    let reason = match view.fallback_reason(e) {
        Fallback::Cycle(members) => format!("cycle {members:?}"),
        other => other.as_str().to_string(),
    };
    (
        view.declared_parent_of(e),
        view.effective_parent_of(e),
        reason,
        view.is_live(e),
        view.has_transform(e),
        view.sorted_children_of(e),
    )
}

fn assert_matches_fresh(view: &SceneView, table: &TransformTable, context: &str) {
    let fresh = SceneView::from_source(table);
    assert_eq!(view.len(), fresh.len(), "{context}: node count");
    let mut entities: Vec<Entity> = fresh.entities().collect();
    entities.sort_unstable();
    let mut ours: Vec<Entity> = view.entities().collect();
    ours.sort_unstable();
    assert_eq!(ours, entities, "{context}: node sets");
    for &e in &entities {
        assert_eq!(
            describe(view, e),
            describe(&fresh, e),
            "{context}: entity {e}"
        );
        let (a, b) = (
            view.world_affine(e).unwrap(),
            fresh.world_affine(e).unwrap(),
        );
        let tolerance = 1e-4 * (1.0 + b.translation.abs().max_element());
        assert!(
            a.abs_diff_eq(b, tolerance) || (a.is_nan() && b.is_nan()),
            "{context}: world of {e}: {a:?} vs {b:?}"
        );
    }
    assert_eq!(view.cycles(), fresh.cycles(), "{context}: cycles");
}

fn run(seed: u64, n: u32, batches: &[(usize, bool)]) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut table = forest(&mut rng, n);
    let mut view = SceneView::from_source(&table);
    assert_matches_fresh(&view, &table, "initial");
    let span = n + n / 10; // ids past the end: new entities and missing parents
    for (round, &(size, acyclic)) in batches.iter().enumerate() {
        edit_batch(&mut rng, &mut table, span, size, acyclic);
        view.update(&table);
        assert!(
            !view.last_update_stats().rebuilt,
            "round {round} must be incremental"
        );
        assert_matches_fresh(
            &view,
            &table,
            &format!("seed {seed}, round {round} ({size} edits)"),
        );
    }
}

#[test]
fn small_batches_walk_dirty_subtrees() {
    run(
        1,
        3000,
        &[(1, true), (3, false), (8, true), (1, false), (5, false)],
    );
}

#[test]
fn batches_of_a_few_percent_match_a_fresh_build() {
    // 3,000 entities: 30..300 edits are above len/256 and below len/8.
    run(2, 3000, &[(40, true), (100, true), (250, true), (60, true)]);
}

#[test]
fn walks_after_cycles_and_removals() {
    run(
        3,
        3000,
        &[(40, true), (120, false), (30, false), (200, false)],
    );
}

#[test]
fn most_entities_changed_reads_the_source_in_bulk() {
    // More than BULK_MIN (4096) changed and at least a quarter of the view.
    run(
        4,
        6000,
        &[(9000, true), (5000, false), (12_000, false), (10, true)],
    );
}

#[test]
fn a_new_entity_among_a_bulk_read_is_found_although_a_missing_parent_is_a_node() {
    // The bulk read skips the journal when every live entity was a node it read; a node for a
    // missing parent is read but not live, so it must not make a new entity look read.
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let n = 6000;
    let mut table = forest(&mut rng, n);
    let orphan = Entity(FIRST + 10);
    let missing = Entity(FIRST + 50_000);
    table.set(orphan, random_transform(&mut rng, missing));
    let mut view = SceneView::from_source(&table);
    assert!(
        !view.is_live(missing),
        "the missing parent is a node, not live"
    );
    for i in 0..n {
        let e = Entity(FIRST + i);
        let parent = table.get(e).unwrap().parent;
        let t = random_transform(&mut rng, parent);
        table.set(e, t);
    }
    let newcomer = Entity(FIRST + 40_000);
    table.set(newcomer, random_transform(&mut rng, Entity(FIRST + 3)));
    view.update(&table);
    assert!(!view.last_update_stats().rebuilt);
    assert!(view.is_live(newcomer), "the new entity was read");
    assert_matches_fresh(&view, &table, "all moved, one new");
}

#[test]
fn bulk_reads_see_removed_entities_leave() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut table = forest(&mut rng, 6000);
    let mut view = SceneView::from_source(&table);
    // Remove every other entity, move the rest: the scan must notice the removals.
    for i in 0..6000 {
        let e = Entity(FIRST + i);
        if i % 2 == 1 {
            table.remove(e);
        } else {
            let parent = table.get(e).unwrap().parent;
            let t = random_transform(&mut rng, parent);
            table.set(e, t);
        }
    }
    view.update(&table);
    assert!(!view.last_update_stats().rebuilt);
    assert_matches_fresh(&view, &table, "half removed");
    assert!(!view.is_live(Entity(FIRST + 1)));
}

#[test]
fn a_long_chain_changed_everywhere_stays_iterative() {
    let mut table = TransformTable::new();
    let n = 50_000u32;
    for i in 0..n {
        let parent = if i == 0 {
            Entity::ROOT
        } else {
            Entity(FIRST + i - 1)
        };
        table.set(
            Entity(FIRST + i),
            Transform {
                position: Vec3::new(0.001, 0.0, 0.0),
                parent,
                ..Transform::IDENTITY
            },
        );
    }
    let mut view = SceneView::from_source(&table);
    for i in (0..n).step_by(2) {
        let mut t = *table.get(Entity(FIRST + i)).unwrap();
        t.position.x = 0.002;
        table.set(Entity(FIRST + i), t);
    }
    view.update(&table);
    let last = view.world_affine(Entity(FIRST + n - 1)).unwrap();
    assert!(
        (last.translation.x - 0.0015 * n as f32).abs() < 0.5,
        "{last:?}"
    );
    assert_eq!(view.last_update_stats().worlds_recomputed, n as usize);
}
