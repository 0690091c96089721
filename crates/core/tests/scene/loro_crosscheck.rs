//! The MoveOpSkip policy against Loro's `LoroTree` on random runs of the simulated network:
//! after every event, every peer's tree equals what that peer's Loro document holds.

use proptest::prelude::*;

use crate::loro_reference::LoroReference;
use scenetree_core::crdt::{DeliveryOrder, LocalWrite, MessageFilter, Network, PeerId, Replica};
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::policy::PolicyBoard;

/// One step of a random run; indices are reduced modulo what exists.
#[derive(Clone, Debug)]
enum Step {
    Move {
        peer: u8,
        entity: u8,
        parent: u8,
    },
    RemoveTransform {
        peer: u8,
        entity: u8,
    },
    DeleteEntity {
        peer: u8,
        entity: u8,
    },
    Deliver(prop::sample::Index),
    DeliverAll,
    Duplicate(prop::sample::Index),
    Drop(prop::sample::Index),
    Reorder(prop::sample::Index, prop::sample::Index),
    /// The clock moves on: writes before it and after it are separate messages.
    Tick,
}

fn arb_step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0u8..4, 0u8..5, 0u8..6).prop_map(|(peer, entity, parent)| Step::Move { peer, entity, parent }),
        1 => (0u8..4, 0u8..5).prop_map(|(peer, entity)| Step::RemoveTransform { peer, entity }),
        1 => (0u8..4, 0u8..5).prop_map(|(peer, entity)| Step::DeleteEntity { peer, entity }),
        8 => any::<prop::sample::Index>().prop_map(Step::Deliver),
        1 => Just(Step::DeliverAll),
        2 => any::<prop::sample::Index>().prop_map(Step::Duplicate),
        1 => any::<prop::sample::Index>().prop_map(Step::Drop),
        2 => (any::<prop::sample::Index>(), any::<prop::sample::Index>()).prop_map(|(a, b)| Step::Reorder(a, b)),
        3 => Just(Step::Tick),
    ]
}

/// Entities 512..=516; 512 to 514 start at the root, 515 under 512.
fn start(peers: usize, seed: u64) -> Network {
    let mut replica = Replica::new();
    for (number, parent) in [(512, 0), (513, 0), (514, 0), (515, 512)] {
        let t = Transform::identity_under(Entity(parent));
        replica.put_transform(Entity(number), &t).unwrap();
    }
    Network::new(peers, seed, &replica).unwrap()
}

/// Plays a step; refused operations (a write to a deleted entity) change nothing.
fn play(net: &mut Network, step: &Step) {
    let peer = |p: u8| PeerId(p % net.peer_count() as u8 + 1);
    let entity = |e: u8| Entity(512 + u32::from(e));
    let pick = |net: &Network, i: &prop::sample::Index| {
        (!net.in_flight().is_empty()).then(|| net.in_flight()[i.index(net.in_flight().len())].id)
    };
    let _ = match step {
        Step::Move {
            peer: p,
            entity: e,
            parent,
        } => {
            let parent = if *parent == 5 {
                Entity::ROOT
            } else {
                entity(*parent)
            };
            let t = Transform::identity_under(parent);
            net.write(peer(*p), LocalWrite::transform(entity(*e), &t))
                .map(drop)
        }
        Step::RemoveTransform { peer: p, entity: e } => net
            .write(
                peer(*p),
                LocalWrite::DeleteComponent {
                    entity: entity(*e),
                    component: Transform::COMPONENT_ID,
                },
            )
            .map(drop),
        Step::DeleteEntity { peer: p, entity: e } => net
            .write(peer(*p), LocalWrite::DeleteEntity { entity: entity(*e) })
            .map(drop),
        Step::Deliver(i) => pick(net, i).map_or(Ok(()), |id| net.deliver(id).map(drop)),
        Step::DeliverAll => {
            net.deliver_all(DeliveryOrder::Random, MessageFilter::ALL);
            Ok(())
        }
        Step::Duplicate(i) => pick(net, i).map_or(Ok(()), |id| net.duplicate(id).map(drop)),
        Step::Drop(i) => pick(net, i).map_or(Ok(()), |id| net.drop_message(id)),
        Step::Reorder(i, j) => match pick(net, i) {
            Some(id) => net.reorder(id, j.index(net.in_flight().len())),
            None => Ok(()),
        },
        Step::Tick => {
            net.tick(1);
            Ok(())
        }
    };
}

/// Where MoveOpSkip and Loro disagree on `net`'s current position, as (peer, entity, ours,
/// Loro's).
fn differences(
    board: &PolicyBoard,
    reference: &LoroReference,
    net: &Network,
) -> Vec<(PeerId, Entity, Entity, Option<Entity>)> {
    let mut out = Vec::new();
    for peer in net.peers() {
        for entity in reference.entities() {
            let ours = board
                .move_tree_parent(peer, entity)
                .expect("a peer of the board");
            let theirs = reference.parent(peer, entity);
            if Some(ours) != theirs {
                out.push((peer, entity, ours, theirs));
            }
        }
    }
    out.sort_unstable();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Random writes (several in one tick become one message, as the runtime sends them),
    /// deliveries in any order, duplicates, drops, reorders, removed Transforms and deleted
    /// entities: after every event MoveOpSkip draws, on every peer, the tree Loro holds for
    /// that peer.
    #[test]
    fn move_op_skip_equals_loro_after_every_event(
        peers in 2usize..=4,
        seed in any::<u64>(),
        steps in prop::collection::vec(arb_step(), 1..50),
    ) {
        let mut net = start(peers, seed);
        for step in &steps {
            play(&mut net, step);
        }
        let mut reference = LoroReference::new(&net).unwrap();
        let mut replay = net.clone();
        replay.seek(0).unwrap();
        let mut board = PolicyBoard::new();
        for k in 0..=net.cursor() {
            replay.seek(k).unwrap();
            board.sync(&replay);
            reference.sync(&replay).unwrap();
            let differ = differences(&board, &reference, &replay);
            prop_assert!(differ.is_empty(), "after event {}: (peer, entity, ours, Loro's) {:?}", k, differ);
        }
    }
}
