//! Behaviour of the derived render tree: the root fallback, missing parents, incremental
//! updates, deep chains, and agreement with a naive reference on random forests.

use std::borrow::Cow;

use glam::{Affine3A, Quat, Vec3};
use proptest::prelude::*;
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::{Fallback, SceneView, TransformSource, TransformTable};

fn e(n: u32) -> Entity {
    Entity(n)
}

fn at(x: f32, parent: u32) -> Transform {
    Transform {
        position: Vec3::new(x, 0.0, 0.0),
        parent: Entity(parent),
        ..Transform::IDENTITY
    }
}

/// The seed's chain ROOT > A > B > C > D > E > F, each 1 m along X from its parent.
fn seed_chain() -> TransformTable {
    let mut t = TransformTable::new();
    let mut parent = 0;
    for n in 512..518 {
        t.set(e(n), at(1.0, parent));
        parent = n;
    }
    t
}

fn world_x(view: &SceneView, n: u32) -> f32 {
    view.world_affine(e(n)).unwrap().translation.x
}

#[test]
fn a_chain_accumulates_translations() {
    let view = SceneView::from_source(&seed_chain());
    assert_eq!(world_x(&view, 517), 6.0);
    assert_eq!(view.effective_parent_of(e(517)), Some(e(516)));
    assert_eq!(
        view.children_of(Entity::ROOT).collect::<Vec<_>>(),
        vec![e(512)]
    );
}

/// A Table-less source: the seed example removes D's Transform but D stays (it has other
/// components). We model that with a source where D is live without a Transform.
struct WithoutTransform<'a> {
    inner: &'a TransformTable,
    stripped: Entity,
}

impl TransformSource for WithoutTransform<'_> {
    fn changed_since(&self, cursor: u64) -> (Option<Cow<'_, [Entity]>>, u64) {
        let (c, next) = self.inner.changed_since(cursor);
        (
            c.map(|v| {
                let mut v = v.into_owned();
                v.push(self.stripped);
                Cow::Owned(v)
            }),
            next + 1,
        )
    }
    fn transform(&self, entity: Entity) -> Option<Transform> {
        (entity != self.stripped)
            .then(|| self.inner.transform(entity))
            .flatten()
    }
    fn is_live(&self, entity: Entity) -> bool {
        self.inner.is_live(entity)
    }
    fn for_each_live(&self, f: &mut dyn FnMut(Entity, Option<Transform>)) {
        self.inner
            .for_each_live(&mut |e, t| f(e, if e == self.stripped { None } else { t }))
    }
}

#[test]
fn seed_example_removing_d_transform_splits_the_chain_at_d() {
    // ROOT > A > B > C > D > E > F; D = 515. Removing D's Transform gives
    // ROOT > {A > B > C, D > E > F}: D at the root as identity, E and F follow it.
    let chain = seed_chain();
    let source = WithoutTransform {
        inner: &chain,
        stripped: e(515),
    };
    for view in [SceneView::from_source(&source), {
        let mut v = SceneView::from_source(&chain);
        v.update(&source);
        v
    }] {
        assert_eq!(view.effective_parent_of(e(515)), Some(Entity::ROOT));
        assert_eq!(view.sorted_children_of(Entity::ROOT), vec![e(512), e(515)]);
        assert_eq!(
            view.effective_parent_of(e(516)),
            Some(e(515)),
            "E keeps D as its parent"
        );
        assert_eq!(world_x(&view, 515), 0.0, "D is the identity at the root");
        assert_eq!(world_x(&view, 517), 2.0, "F = D + 1 + 1");
        assert_eq!(world_x(&view, 514), 3.0, "C untouched");
        assert_eq!(view.fallback_reason(e(516)), Fallback::MissingParent);
    }
}

#[test]
fn a_two_cycle_reroots_both_members_and_keeps_descendants_attached() {
    let mut t = TransformTable::new();
    t.set(e(512), at(1.0, 513));
    t.set(e(513), at(2.0, 512));
    t.set(e(514), at(5.0, 513)); // hangs below the cycle
    let view = SceneView::from_source(&t);
    assert_eq!(
        view.fallback_reason(e(512)),
        Fallback::Cycle(&[e(512), e(513)])
    );
    assert_eq!(
        view.fallback_reason(e(513)),
        Fallback::Cycle(&[e(512), e(513)])
    );
    assert_eq!(view.effective_parent_of(e(512)), Some(Entity::ROOT));
    assert_eq!(view.effective_parent_of(e(513)), Some(Entity::ROOT));
    assert_eq!(view.effective_parent_of(e(514)), Some(e(513)));
    assert_eq!(view.fallback_reason(e(514)), Fallback::None);
    assert_eq!(
        world_x(&view, 513),
        2.0,
        "a cycle member is drawn with its local values at the root"
    );
    assert_eq!(world_x(&view, 514), 7.0);
    assert_eq!(view.declared_parent_of(e(512)), Some(e(513)));
}

#[test]
fn breaking_a_cycle_returns_members_to_their_declared_parents() {
    let mut t = TransformTable::new();
    t.set(e(512), at(1.0, 513));
    t.set(e(513), at(2.0, 512));
    let mut view = SceneView::from_source(&t);
    t.set(e(513), at(2.0, 0));
    view.update(&t);
    assert!(view.cycles().is_empty());
    assert_eq!(view.effective_parent_of(e(512)), Some(e(513)));
    assert_eq!(world_x(&view, 512), 3.0);
    assert!(!view.last_update_stats().rebuilt);
}

#[test]
fn a_three_cycle_and_a_self_parent_are_both_reported() {
    let mut t = TransformTable::new();
    t.set(e(600), at(1.0, 601));
    t.set(e(601), at(1.0, 602));
    t.set(e(602), at(1.0, 600));
    t.set(e(700), at(1.0, 700));
    let view = SceneView::from_source(&t);
    assert_eq!(
        view.cycles(),
        vec![&[e(600), e(601), e(602)][..], &[e(700)][..]]
    );
    assert_eq!(
        view.fallback_reason(e(601)),
        Fallback::Cycle(&[e(600), e(601), e(602)])
    );
    assert_eq!(view.effective_parent_of(e(700)), Some(Entity::ROOT));
}

#[test]
fn a_cycle_formed_incrementally_is_found_and_only_nearby_nodes_are_walked() {
    let mut t = TransformTable::new();
    for n in 0..1000 {
        t.set(e(1000 + n), at(1.0, 0)); // 1000 unrelated roots
    }
    t.set(e(512), at(1.0, 0));
    t.set(e(513), at(1.0, 512));
    let mut view = SceneView::from_source(&t);
    t.set(e(512), at(1.0, 513));
    view.update(&t);
    assert_eq!(view.cycles(), vec![&[e(512), e(513)][..]]);
    let stats = view.last_update_stats();
    assert!(!stats.rebuilt);
    assert!(stats.cycle_walk_steps <= 4, "{stats:?}");
    assert!(stats.worlds_recomputed <= 4, "{stats:?}");
}

#[test]
fn new_leaves_deep_in_a_chain_need_no_cycle_walk() {
    // A chain 200 deep; then 50 new leaves under its bottom. A leaf has no children, so no
    // cycle can run through it: nothing is walked up the chain.
    let mut t = TransformTable::new();
    t.set(e(512), at(1.0, 0));
    for n in 1..200 {
        t.set(e(512 + n), at(1.0, 512 + n - 1));
    }
    let mut view = SceneView::from_source(&t);
    for n in 0..50 {
        t.set(e(2000 + n), at(1.0, 711));
    }
    view.update(&t);
    let stats = view.last_update_stats();
    assert_eq!(stats.cycle_walk_steps, 0, "{stats:?}");
    assert!(view.cycles().is_empty());
    // A new node that does have a child (a leaf arrived with it) is walked, and a cycle
    // through it is found.
    t.set(e(3000), at(1.0, 3001));
    t.set(e(3001), at(1.0, 3000));
    view.update(&t);
    assert_eq!(view.cycles(), vec![&[e(3000), e(3001)][..]]);
}

#[test]
fn a_parent_that_appears_later_adopts_its_waiting_child() {
    let mut t = TransformTable::new();
    t.set(e(513), at(1.0, 512)); // 512 not seen yet
    let mut view = SceneView::from_source(&t);
    assert!(view.is_implicit(e(512)));
    assert_eq!(view.fallback_reason(e(513)), Fallback::MissingParent);
    assert_eq!(view.effective_parent_of(e(513)), Some(e(512)));
    assert_eq!(world_x(&view, 513), 1.0);
    t.set(e(512), at(10.0, 0));
    view.update(&t);
    assert!(!view.is_implicit(e(512)));
    assert_eq!(view.fallback_reason(e(513)), Fallback::None);
    assert_eq!(world_x(&view, 513), 11.0);
}

#[test]
fn an_implicit_parent_disappears_when_its_last_child_leaves() {
    let mut t = TransformTable::new();
    t.set(e(513), at(1.0, 900));
    let mut view = SceneView::from_source(&t);
    assert!(view.contains(e(900)));
    t.set(e(513), at(1.0, 0));
    view.update(&t);
    assert!(!view.contains(e(900)));
    assert_eq!(view.len(), 2);
}

#[test]
fn a_removed_entity_leaves_the_tree_and_its_children_wait_under_an_implicit_node() {
    let mut t = seed_chain();
    let mut view = SceneView::from_source(&t);
    t.remove(e(514)); // C
    view.update(&t);
    assert!(view.is_implicit(e(514)));
    assert_eq!(view.effective_parent_of(e(514)), Some(Entity::ROOT));
    assert_eq!(world_x(&view, 517), 3.0);
}

#[test]
fn a_hundred_thousand_deep_chain_builds_updates_and_breaks_without_overflow() {
    let mut t = TransformTable::new();
    let depth = 100_000u32;
    for n in 0..depth {
        t.set(e(1 + n), at(0.001, n));
    }
    let mut view = SceneView::from_source(&t);
    assert!((world_x(&view, depth) - 100.0).abs() < 0.05);
    // Close the chain into one huge cycle, then open it again.
    t.set(e(1), at(0.001, depth));
    view.update(&t);
    assert_eq!(view.cycles()[0].len(), depth as usize);
    t.set(e(1), at(0.001, 0));
    view.update(&t);
    assert!(view.cycles().is_empty());
    assert!((world_x(&view, depth) - 100.0).abs() < 0.05);
    assert_eq!(view.preorder().len(), depth as usize + 1);
}

#[test]
fn nan_and_dangling_values_never_panic() {
    let mut t = TransformTable::new();
    t.set(
        e(512),
        Transform {
            position: Vec3::NAN,
            parent: e(999_999),
            ..Transform::IDENTITY
        },
    );
    t.set(
        e(513),
        Transform {
            rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            parent: e(512),
            ..Transform::IDENTITY
        },
    );
    let view = SceneView::from_source(&t);
    assert!(view.world_affine(e(513)).unwrap().translation.x.is_nan());
    assert_eq!(view.fallback_reason(e(512)), Fallback::MissingParent);
}

#[test]
fn an_unchanged_source_costs_nothing() {
    let t = seed_chain();
    let mut view = SceneView::from_source(&t);
    let generation = view.generation();
    view.update(&t);
    assert_eq!(view.last_update_stats().entities_read, 0);
    assert_eq!(view.generation(), generation);
}

// ----- naive reference ------------------------------------------------------------------------

/// Recomputes everything the slow, obvious way: effective parents by walking up at most n
/// steps, worlds by walking the effective ancestor chain for every node.
fn naive(table: &TransformTable) -> Vec<(Entity, Entity, bool, Affine3A)> {
    let get = |e: Entity| table.get(e);
    let n = table.len() + 1;
    let on_cycle = |start: Entity| {
        let mut cur = start;
        for _ in 0..n {
            let Some(t) = get(cur) else { return false };
            cur = t.parent;
            if cur == start {
                return true;
            }
        }
        false
    };
    let effective = |e: Entity| {
        if on_cycle(e) {
            Entity::ROOT
        } else {
            get(e).map_or(Entity::ROOT, |t| t.parent)
        }
    };
    let mut out = Vec::new();
    for (e, t) in table.iter() {
        let mut world = t.local_affine();
        let mut cur = effective(e);
        while !cur.is_root() {
            let local = get(cur).map_or(Affine3A::IDENTITY, Transform::local_affine);
            world = local * world;
            cur = if get(cur).is_some() {
                effective(cur)
            } else {
                Entity::ROOT
            };
        }
        out.push((e, effective(e), on_cycle(e), world));
    }
    out.sort_by_key(|x| x.0);
    out
}

fn check_against_naive(table: &TransformTable, view: &SceneView) {
    for (e, eff, cyc, world) in naive(table) {
        assert_eq!(
            view.effective_parent_of(e),
            Some(eff),
            "effective parent of {e}"
        );
        assert_eq!(
            matches!(view.fallback_reason(e), Fallback::Cycle(_)),
            cyc,
            "cycle flag of {e}"
        );
        let got = view.world_affine(e).unwrap();
        assert!(
            got.abs_diff_eq(world, 1e-3 * (1.0 + world.translation.abs().max_element())),
            "world of {e}: {got:?} vs {world:?}"
        );
    }
    // The render tree itself never contains a cycle: every node reaches the root.
    for (node, _) in view.preorder() {
        let mut cur = node;
        let mut steps = 0;
        while !cur.is_root() {
            cur = view.effective_parent_of(cur).unwrap();
            steps += 1;
            assert!(steps <= view.len(), "render tree cycle at {node}");
        }
    }
    assert_eq!(view.preorder().len(), view.len());
}

fn arb_transform(max_entity: u32) -> impl Strategy<Value = Transform> {
    (
        -3.0f32..3.0,
        -3.0f32..3.0,
        0.0f32..6.3,
        0.5f32..2.0,
        0..=max_entity,
    )
        .prop_map(move |(x, z, angle, s, p)| {
            Transform {
                position: Vec3::new(x, 0.5, z),
                rotation: Quat::from_rotation_y(angle),
                scale: Vec3::splat(s),
                // Parents 0..=max: 0 is the root, the largest ones may not exist (missing parents).
                parent: Entity(if p < 3 { 0 } else { 500 + p }),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn incremental_updates_match_the_naive_reference(
        initial in prop::collection::vec(arb_transform(30), 1..25),
        edits in prop::collection::vec((3u32..28, prop::option::of(arb_transform(30))), 0..30),
    ) {
        let mut table = TransformTable::new();
        for (i, t) in initial.iter().enumerate() {
            table.set(Entity(503 + i as u32), *t);
        }
        let mut view = SceneView::from_source(&table);
        check_against_naive(&table, &view);
        for (target, edit) in edits {
            let entity = Entity(500 + target);
            match edit {
                Some(t) => table.set(entity, t),
                None => table.remove(entity),
            }
            view.update(&table);
            check_against_naive(&table, &view);
        }
        // And a rebuild from scratch agrees with the incrementally maintained view.
        let fresh = SceneView::from_source(&table);
        check_against_naive(&table, &fresh);
    }
}

#[test]
fn a_transform_that_is_not_finite_is_found_from_itself_and_from_below_until_it_is_fixed() {
    // ROOT > 512 > 513 (position x infinite) > 514 > 515 > 516 > 517.
    let mut table = seed_chain();
    table.set(e(513), at(f32::INFINITY, 512));
    let mut view = SceneView::from_source(&table);
    assert_eq!(view.non_finite_locals(), vec![e(513)]);
    assert!(view.has_non_finite_local(e(513)));
    assert!(
        !view.has_non_finite_local(e(514)),
        "finite itself, only its world is not"
    );
    assert!(!view.world_affine(e(515)).unwrap().is_finite());
    assert_eq!(view.non_finite_source_of(e(513)), Some(e(513)));
    assert_eq!(view.non_finite_source_of(e(515)), Some(e(513)));
    assert_eq!(view.non_finite_source_of(e(512)), None);
    assert_eq!(view.non_finite_source_of(e(999)), None, "not in the view");

    // A NaN below it: the nearest one is named.
    let mut nan = at(1.0, 514);
    nan.rotation = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
    table.set(e(515), nan);
    view.update(&table);
    assert_eq!(view.non_finite_locals(), vec![e(513), e(515)]);
    assert_eq!(view.non_finite_source_of(e(516)), Some(e(515)));

    // Fixed, incrementally: nothing is found any more and the worlds are finite again.
    table.set(e(513), at(1.0, 512));
    table.set(e(515), at(1.0, 514));
    view.update(&table);
    assert!(view.non_finite_locals().is_empty());
    assert_eq!(view.non_finite_source_of(e(517)), None);
    assert_eq!(world_x(&view, 517), 6.0);
}
