//! The protocol's classic situations (concurrent reparenting and its transient cycle, a cycle
//! of three, a self-parent, a parent that appears later, a late PUT for a deleted version, a
//! parent losing its Transform), played on replicas with the render tree derived from them.

use glam::Vec3;
use scenetree_core::crdt::{ApplyOutcome, Replica};
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::{Fallback, SceneView};

const A: Entity = Entity(512);
const B: Entity = Entity(513);
const C: Entity = Entity(514);

fn at(x: f32, parent: Entity) -> Transform {
    Transform {
        position: Vec3::new(x, 0.0, 0.0),
        parent,
        ..Transform::IDENTITY
    }
}

#[test]
fn two_peers_reparenting_concurrently_make_a_transient_two_cycle_that_resolves() {
    // Both peers start from the same scene: A and B at the root.
    let mut p1 = Replica::new();
    let mut p2 = Replica::new();
    for msg in [
        p1.put_transform(A, &at(1.0, Entity::ROOT)).unwrap(),
        p1.put_transform(B, &at(2.0, Entity::ROOT)).unwrap(),
    ] {
        p2.apply(&msg);
    }
    // Concurrently: peer 1 puts A under B, peer 2 puts B under A. Both writes carry t=2.
    let a_under_b = p1.put_transform(A, &at(1.0, B)).unwrap();
    let b_under_a = p2.put_transform(B, &at(2.0, A)).unwrap();
    assert_eq!(a_under_b.timestamp(), Some(2));
    assert_eq!(b_under_a.timestamp(), Some(2));

    // First delivery: peer 1 receives B→A and now holds A→B and B→A.
    assert_eq!(p1.apply(&b_under_a), ApplyOutcome::AcceptedNewer);
    let mut view1 = SceneView::from_source(&p1);
    assert_eq!(view1.fallback_reason(A), Fallback::Cycle(&[A, B]));
    assert_eq!(view1.effective_parent_of(A), Some(Entity::ROOT));
    assert_eq!(view1.effective_parent_of(B), Some(Entity::ROOT));
    assert_eq!(
        view1.world_affine(A).unwrap().translation.x,
        1.0,
        "drawn at the root with its local values"
    );

    // Peer 2 receives A→B as well: the same cycle there. Both are stable: LWW keeps both writes.
    p2.apply(&a_under_b);
    assert_eq!(p1.digest(), p2.digest());
    assert_eq!(SceneView::from_source(&p2).cycles(), vec![&[A, B][..]]);

    // A later write overwrites one of them (peer 2 moves A back to the root) and resolves it.
    let fix = p2.put_transform(A, &at(1.0, Entity::ROOT)).unwrap();
    assert_eq!(fix.timestamp(), Some(3));
    p1.apply(&fix);
    view1.update(&p1);
    assert!(view1.cycles().is_empty());
    assert_eq!(
        view1.effective_parent_of(B),
        Some(A),
        "B returns to its declared parent"
    );
    assert_eq!(view1.world_affine(B).unwrap().translation.x, 3.0);
    assert_eq!(p1.digest(), p2.digest());
}

#[test]
fn a_three_cycle_across_three_peers() {
    let mut peers = [Replica::new(), Replica::new(), Replica::new()];
    let writes = [
        peers[0].put_transform(A, &at(1.0, B)).unwrap(),
        peers[1].put_transform(B, &at(1.0, C)).unwrap(),
        peers[2].put_transform(C, &at(1.0, A)).unwrap(),
    ];
    for (i, peer) in peers.iter_mut().enumerate() {
        for (j, w) in writes.iter().enumerate() {
            if i != j {
                peer.apply(w);
            }
        }
    }
    for peer in &peers {
        let view = SceneView::from_source(peer);
        for e in [A, B, C] {
            assert_eq!(view.fallback_reason(e), Fallback::Cycle(&[A, B, C]));
        }
    }
    assert!(peers.iter().all(|p| p.digest() == peers[0].digest()));
}

#[test]
fn a_self_parent_is_a_cycle_of_one() {
    let mut r = Replica::new();
    r.put_transform(A, &at(4.0, A)).unwrap();
    let view = SceneView::from_source(&r);
    assert_eq!(view.fallback_reason(A), Fallback::Cycle(&[A]));
    assert_eq!(view.effective_parent_of(A), Some(Entity::ROOT));
    assert_eq!(view.world_affine(A).unwrap().translation.x, 4.0);
}

#[test]
fn a_parent_that_appears_later() {
    let mut author = Replica::new();
    let parent_msg = author.put_transform(A, &at(10.0, Entity::ROOT)).unwrap();
    let child_msg = author.put_transform(B, &at(1.0, A)).unwrap();
    let mut late = Replica::new();
    late.apply(&child_msg); // the child arrives first
    let mut view = SceneView::from_source(&late);
    assert_eq!(view.fallback_reason(B), Fallback::MissingParent);
    assert_eq!(
        view.effective_parent_of(B),
        Some(A),
        "kept under the implicit parent"
    );
    assert!(view.is_implicit(A));
    assert_eq!(view.world_affine(B).unwrap().translation.x, 1.0);
    late.apply(&parent_msg);
    view.update(&late);
    assert_eq!(view.fallback_reason(B), Fallback::None);
    assert_eq!(view.world_affine(B).unwrap().translation.x, 11.0);
}

#[test]
fn delete_entity_then_a_late_put_for_the_old_version() {
    let mut p1 = Replica::new();
    let mut p2 = Replica::new();
    let create = p1.put_transform(A, &at(1.0, Entity::ROOT)).unwrap();
    p2.apply(&create);
    // Peer 2 moves A while peer 1 deletes it.
    let late_move = p2.put_transform(A, &at(5.0, Entity::ROOT)).unwrap();
    let deletion = p1.delete_entity(A).unwrap();
    assert_eq!(p1.apply(&late_move), ApplyOutcome::IgnoredDeletedEntity);
    for msg in &deletion {
        p2.apply(msg);
    }
    assert!(!p1.is_live(A) && !p2.is_live(A));
    assert!(SceneView::from_source(&p2).entities().all(|e| e != A));
    assert_eq!(p1.digest(), p2.digest());
}

#[test]
fn removing_a_parents_transform_leaves_the_children_under_it() {
    let mut r = Replica::new();
    r.put_transform(A, &at(3.0, Entity::ROOT)).unwrap();
    r.put_transform(B, &at(1.0, A)).unwrap();
    r.put(A, 9000, vec![1]).unwrap(); // A keeps another component
    let mut view = SceneView::from_source(&r);
    assert_eq!(view.world_affine(B).unwrap().translation.x, 4.0);
    r.delete_component(A, Transform::COMPONENT_ID).unwrap();
    view.update(&r);
    assert_eq!(view.effective_parent_of(B), Some(A));
    assert_eq!(view.fallback_reason(B), Fallback::MissingParent);
    assert_eq!(view.world_affine(B).unwrap().translation.x, 1.0);
    assert!(
        !view.is_implicit(A),
        "A still exists, only its Transform is gone"
    );
}

#[test]
fn a_view_that_follows_a_replaced_replica_rebuilds_instead_of_missing_changes() {
    let mut a = Replica::new();
    a.put_transform(A, &at(1.0, Entity::ROOT)).unwrap();
    a.put_transform(B, &at(2.0, Entity::ROOT)).unwrap();
    let mut view = SceneView::from_source(&a);
    // Another replica with a journal of the same length but different content.
    let mut b = Replica::new();
    b.put_transform(C, &at(3.0, Entity::ROOT)).unwrap();
    b.put_transform(C, &at(4.0, Entity::ROOT)).unwrap();
    view.update(&b);
    assert!(view.last_update_stats().rebuilt);
    assert!(!view.contains(A) && view.contains(C));
    assert_eq!(view.world_affine(C).unwrap().translation.x, 4.0);
    // A view cannot follow the original after following another instance.
    view.update(&a);
    assert!(view.last_update_stats().rebuilt);
    assert!(view.contains(A) && !view.contains(C));
}

#[test]
fn a_view_follows_a_clone_of_its_replica_incrementally() {
    // Many entities, so a rebuild would read them all.
    let mut original = Replica::new();
    for number in 512..2512 {
        original
            .put_transform(Entity(number), &at(1.0, Entity::ROOT))
            .unwrap();
    }
    let mut view = SceneView::from_source(&original);
    // A clone (as the order explorer makes for every delivery) continues the original's
    // history: the view reads only what changed after the clone.
    let mut clone = original.clone();
    clone.put_transform(A, &at(5.0, B)).unwrap();
    let mut followed = view.clone();
    followed.update(&clone);
    let stats = followed.last_update_stats();
    assert!(!stats.rebuilt);
    assert_eq!(stats.entities_read, 1);
    assert_eq!(followed.effective_parent_of(A), Some(B));
    assert_eq!(
        followed.world_affine(A),
        SceneView::from_source(&clone).world_affine(A)
    );
    // The original moves on separately: its own view follows it, the clone's view cannot
    // (their histories differ since the clone).
    let mut stale = view.clone();
    original.put_transform(B, &at(7.0, Entity::ROOT)).unwrap();
    view.update(&original);
    assert!(!view.last_update_stats().rebuilt);
    followed.update(&original);
    assert!(followed.last_update_stats().rebuilt);
    assert_eq!(followed.effective_parent_of(A), Some(Entity::ROOT));
    // A view from before the clone point cannot use the clone's journal: it rebuilds.
    stale.update(&original.clone());
    assert!(stale.last_update_stats().rebuilt);
    assert_eq!(stale.world_affine(B), view.world_affine(B));
}
