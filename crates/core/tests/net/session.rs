//! Players stepping through the facts checked on the real SDK (the oracle in `oracle-net/`,
//! summed up in `docs/multiplayer.md`): the wire form of a spawn, the receive map, the
//! renderer-edge parent, and the hazards.

use scenetree_core::crdt::stream::Dialect;
use scenetree_core::crdt::{CrdtMessage, decode_stream};
use scenetree_core::model::{Entity, Transform, ids};
use scenetree_core::net::comms::{CommsKind, decode_outbound};
use scenetree_core::net::{EntityRef, HazardKind, SceneOp, Session, TickOutput};

pub const ALICE: &str = "0xa11ce00000000000000000000000000000000001";
pub const BOB: &str = "0xb0b0000000000000000000000000000000000002";

/// The CRDT messages of a tick's CRDT items.
pub fn network_messages(out: &TickOutput) -> Vec<CrdtMessage> {
    out.sent
        .iter()
        .filter_map(|item| {
            let item = decode_outbound(&item.data, Dialect::Mainline).ok()?;
            (item.kind == Some(CommsKind::Crdt))
                .then(|| decode_stream(item.payload).unwrap().messages)
        })
        .flatten()
        .collect()
}

/// The renderer's messages of a tick.
pub fn renderer_messages(out: &TickOutput) -> Vec<CrdtMessage> {
    decode_stream(&out.renderer).unwrap().messages
}

/// A spawn as scenes write it: a parent synced with its Transform, a child parented to it.
pub fn spawn_parent_and_child(parent: u32, child: u32) -> Vec<SceneOp> {
    let (p, c) = (EntityRef::Scene(parent), EntityRef::Scene(child));
    vec![
        SceneOp::transform(p, &Transform::IDENTITY),
        SceneOp::SyncEntity {
            entity: p,
            components: vec![ids::TRANSFORM],
            fixed_id: None,
        },
        SceneOp::transform(c, &Transform::IDENTITY),
        SceneOp::SyncEntity {
            entity: c,
            components: vec![ids::TRANSFORM],
            fixed_id: None,
        },
        SceneOp::ParentEntity {
            entity: c,
            parent: p,
        },
    ]
}

/// Alice and Bob past their first ticks, Bob's state request answered (with nothing: an empty
/// state sends no response).
fn two_players() -> Session {
    let mut session = Session::new([ALICE, BOB], Dialect::Mainline);
    session.step(0, &[]).unwrap();
    session.step(1, &[]).unwrap();
    let out = session.step(0, &[]).unwrap();
    assert!(out.sent.is_empty());
    session
}

fn transform_of(message: &CrdtMessage) -> Option<(Entity, Entity)> {
    match message {
        CrdtMessage::PutComponent {
            entity,
            component: ids::TRANSFORM,
            data,
            ..
        } => Some((*entity, Transform::from_bytes(data).ok()?.parent)),
        _ => None,
    }
}

#[test]
fn a_first_tick_sends_only_the_state_request() {
    let mut session = Session::new([ALICE, BOB], Dialect::Mainline);
    let out = session.step(0, &spawn_parent_and_child(0, 1)).unwrap();
    assert_eq!(out.sent.len(), 1);
    assert_eq!(out.sent[0].data, [2]);
    assert!(out.sent[0].to.is_empty());
    // The renderer is told all the same.
    assert_eq!(renderer_messages(&out).len(), 2);
}

#[test]
fn a_spawn_travels_as_network_messages_in_component_order() {
    let mut session = two_players();
    let out = session.step(0, &spawn_parent_and_child(0, 1)).unwrap();
    let alice = session.players()[0].network_id();
    let kinds: Vec<(u32, u32, u32)> = network_messages(&out)
        .iter()
        .map(|m| match m {
            CrdtMessage::PutComponentNetwork {
                entity,
                component,
                timestamp,
                network_id,
                ..
            } => {
                assert_eq!(*network_id, alice);
                assert_eq!(*timestamp, 1);
                (*component, entity.0, 0)
            }
            other => panic!("not a PUT_COMPONENT_NETWORK: {other:?}"),
        })
        .collect();
    let net_parent = ids::NETWORK_PARENT;
    let sync = scenetree_core::net::SYNC_COMPONENTS;
    assert_eq!(
        kinds,
        [
            (ids::TRANSFORM, 512, 0),
            (ids::TRANSFORM, 513, 0),
            (ids::NETWORK_ENTITY, 512, 0),
            (ids::NETWORK_ENTITY, 513, 0),
            (net_parent, 513, 0),
            (sync, 512, 0),
            (sync, 513, 0),
        ]
    );
    // Alice's own renderer: the child's parent is her parent.
    let parents: Vec<_> = renderer_messages(&out)
        .iter()
        .filter_map(transform_of)
        .collect();
    assert_eq!(
        parents,
        [(Entity(512), Entity::ROOT), (Entity(513), Entity(512))]
    );
}

#[test]
fn a_receiver_maps_in_arrival_order_and_rewrites_the_parent_for_its_renderer() {
    let mut session = two_players();
    // Bob holds two entities of his own first, so his numbers differ from Alice's.
    session
        .step(
            1,
            &[
                SceneOp::transform(EntityRef::Scene(0), &Transform::IDENTITY),
                SceneOp::transform(EntityRef::Scene(1), &Transform::IDENTITY),
            ],
        )
        .unwrap();
    session.step(0, &spawn_parent_and_child(0, 1)).unwrap();
    session.step(1, &[]).unwrap(); // receives Alice's items
    let out = session.step(1, &[]).unwrap(); // applies them
    let parents: Vec<_> = renderer_messages(&out)
        .iter()
        .filter_map(transform_of)
        .collect();
    assert_eq!(
        parents,
        [(Entity(514), Entity::ROOT), (Entity(515), Entity(514))]
    );
    assert!(out.hazards.is_empty(), "{:?}", out.hazards);
    let bob = &session.players()[1];
    let map = bob.engine().network_map();
    assert_eq!(map.len(), 2);
    assert_eq!(map[0].0, Entity(514));
    assert_eq!(map[0].1.entity_id, 512);
}

#[test]
fn a_child_applied_a_tick_before_its_parent_is_its_own_parent() {
    let mut session = two_players();
    // Alice spawns the parent in one tick and the child in the next.
    let parent_ops = spawn_parent_and_child(0, 1)[..2].to_vec();
    session.step(0, &parent_ops).unwrap();
    let child_ops = spawn_parent_and_child(0, 1)[2..].to_vec();
    session.step(0, &child_ops).unwrap();
    // Bob gets the child's frame first: hold the parent's back one step.
    let parent_frame = session.frames().waiting_for(1)[0].id;
    session.frames_mut().delay(parent_frame, 2).unwrap();
    session.step(1, &[]).unwrap();
    let out = session.step(1, &[]).unwrap();
    let parents: Vec<_> = renderer_messages(&out)
        .iter()
        .filter_map(transform_of)
        .collect();
    assert_eq!(parents, [(Entity(512), Entity(512))]);
    assert_eq!(out.hazards.len(), 1, "{:?}", out.hazards);
    assert_eq!(out.hazards[0].kind, HazardKind::SelfParent);
    assert_eq!(out.hazards[0].entity, Entity(512));
    // The parent arrives later; nothing sends the child's Transform again.
    let later: Vec<_> = (0..3)
        .flat_map(|_| renderer_messages(&session.step(1, &[]).unwrap()))
        .filter_map(|m| transform_of(&m))
        .collect();
    assert_eq!(later, [(Entity(513), Entity::ROOT)]);
    let renderer = session.players()[1].renderer();
    assert_eq!(renderer.parent(Entity(512)), Some(Entity(512)));
}
