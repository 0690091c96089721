//! Properties of the network over random runs: convergence once everything is delivered, and
//! deterministic replay to identical states at every step.

use proptest::prelude::*;
use scenetree_core::crdt::{
    AutoDelivery, DeliveryOrder, LocalWrite, MessageFilter, Network, PeerId, Replica,
};
use scenetree_core::model::Entity;

use crate::furnished;
use furnished::*;

/// One user action in a random run (peer and message choices are reduced modulo what exists).
#[derive(Clone, Debug)]
pub(crate) enum Act {
    Move {
        peer: u8,
        entity: u8,
        parent: u8,
        x: i8,
    },
    Rename {
        peer: u8,
        entity: u8,
        name: u8,
    },
    DeleteTransform {
        peer: u8,
        entity: u8,
    },
    DeleteEntity {
        peer: u8,
        entity: u8,
    },
    Reuse {
        peer: u8,
        entity: u8,
    },
    Deliver(prop::sample::Index),
    DeliverAll(u8),
    Duplicate(prop::sample::Index),
    Reorder(prop::sample::Index, prop::sample::Index),
    Offline(u8),
    Online(u8),
    Advance(u8),
    Auto(Option<(u8, u8)>),
    OneMessagePerTick(bool),
}

pub(crate) fn arb_act() -> impl Strategy<Value = Act> {
    prop_oneof![
        8 => (0u8..8, 0u8..4, 0u8..5, -3i8..4).prop_map(|(peer, entity, parent, x)| Act::Move { peer, entity, parent, x }),
        2 => (0u8..8, 0u8..4, 0u8..3).prop_map(|(peer, entity, name)| Act::Rename { peer, entity, name }),
        2 => (0u8..8, 0u8..4).prop_map(|(peer, entity)| Act::DeleteTransform { peer, entity }),
        1 => (0u8..8, 0u8..4).prop_map(|(peer, entity)| Act::DeleteEntity { peer, entity }),
        1 => (0u8..8, 0u8..4).prop_map(|(peer, entity)| Act::Reuse { peer, entity }),
        6 => any::<prop::sample::Index>().prop_map(Act::Deliver),
        1 => (0u8..3).prop_map(Act::DeliverAll),
        2 => any::<prop::sample::Index>().prop_map(Act::Duplicate),
        2 => (any::<prop::sample::Index>(), any::<prop::sample::Index>()).prop_map(|(a, b)| Act::Reorder(a, b)),
        1 => (0u8..8).prop_map(Act::Offline),
        2 => (0u8..8).prop_map(Act::Online),
        1 => (0u8..6).prop_map(Act::Advance),
        1 => prop::option::of((0u8..4, 0u8..3)).prop_map(Act::Auto),
        1 => any::<bool>().prop_map(Act::OneMessagePerTick),
    ]
}

/// Plays a random action; refusals (writes to deleted entities, offline deliveries) are part
/// of the game and change nothing.
pub(crate) fn play(net: &mut Network, act: &Act) {
    let peer = |p: u8| PeerId(p % net.peer_count() as u8 + 1);
    let entity = |e: u8| Entity(512 + u32::from(e));
    let pick = |net: &Network, i: &prop::sample::Index| {
        (!net.in_flight().is_empty()).then(|| net.in_flight()[i.index(net.in_flight().len())].id)
    };
    let _ = match act {
        Act::Move {
            peer: p,
            entity: e,
            parent,
            x,
        } => {
            let parent = if *parent == 4 {
                Entity::ROOT
            } else {
                entity(*parent)
            };
            net.write(peer(*p), move_to(entity(*e), f32::from(*x), parent))
                .map(drop)
        }
        Act::Rename {
            peer: p,
            entity: e,
            name,
        } => net
            .write(
                peer(*p),
                LocalWrite::name(entity(*e), ["Lamp", "Table", "Chair"][*name as usize]),
            )
            .map(drop),
        Act::DeleteTransform { peer: p, entity: e } => net
            .write(
                peer(*p),
                LocalWrite::DeleteComponent {
                    entity: entity(*e),
                    component: 1,
                },
            )
            .map(drop),
        Act::DeleteEntity { peer: p, entity: e } => net
            .write(peer(*p), LocalWrite::DeleteEntity { entity: entity(*e) })
            .map(drop),
        Act::Reuse { peer: p, entity: e } => {
            // A new version of a number the peer deleted, as `allocate_entity` would hand out.
            let p = peer(*p);
            let old = entity(*e);
            if net.replica(p).unwrap().is_deleted(old) {
                let new = Entity::from_parts(old.number(), old.version() + 1);
                net.write(p, move_to(new, 1.0, Entity::ROOT)).map(drop)
            } else {
                Ok(())
            }
        }
        Act::Deliver(i) => match pick(net, i) {
            Some(id) => net.deliver(id).map(drop),
            None => Ok(()),
        },
        Act::DeliverAll(o) => {
            let order = [
                DeliveryOrder::Send,
                DeliveryOrder::Reverse,
                DeliveryOrder::Random,
            ][*o as usize];
            net.deliver_all(order, MessageFilter::ALL);
            Ok(())
        }
        Act::Duplicate(i) => match pick(net, i) {
            Some(id) => net.duplicate(id).map(drop),
            None => Ok(()),
        },
        Act::Reorder(i, j) => match pick(net, i) {
            Some(id) => net.reorder(id, j.index(net.in_flight().len())),
            None => Ok(()),
        },
        Act::Offline(p) => net.set_online(peer(*p), false),
        Act::Online(p) => net.set_online(peer(*p), true),
        Act::Advance(t) => {
            net.advance(u64::from(*t));
            Ok(())
        }
        Act::Auto(a) => {
            net.set_auto_delivery(a.map(|(latency, jitter)| AutoDelivery {
                latency: u64::from(latency),
                jitter: u64::from(jitter),
            }));
            Ok(())
        }
        Act::OneMessagePerTick(on) => {
            net.set_one_message_per_tick(*on);
            Ok(())
        }
    };
}

/// What a replay must rebuild at a timeline position.
fn snapshot(net: &Network) -> (Vec<u128>, Vec<(u64, u8, u8)>) {
    (
        net.replicas().iter().map(Replica::digest).collect(),
        net.in_flight()
            .iter()
            .map(|m| (m.id.0, m.from.0, m.to.0))
            .collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any run without drops ends, once every peer is online and everything is delivered, with
    /// one digest on every peer.
    #[test]
    fn every_run_converges_once_everything_is_delivered(
        peers in 2usize..=4,
        seed in any::<u64>(),
        acts in prop::collection::vec(arb_act(), 0..60),
    ) {
        let mut net = furnished(peers, seed);
        for act in &acts {
            play(&mut net, act);
        }
        for p in 1..=peers {
            net.set_online(PeerId(p as u8), true).unwrap();
        }
        let report = net.deliver_all(DeliveryOrder::Random, MessageFilter::ALL);
        prop_assert!(!report.capped);
        let c = net.convergence();
        prop_assert!(c.converged, "differing entities {:?}, digests {:?}", c.differing, c.digests);
        prop_assert!(c.differing.is_empty());
    }

    /// Seeking to any recorded position rebuilds exactly the state the run had there, in any
    /// seek order; and a fresh network replaying the same events ends in the same state.
    #[test]
    fn a_run_replays_to_identical_states_at_every_step(
        seed in any::<u64>(),
        acts in prop::collection::vec(arb_act(), 1..40),
        seeks in prop::collection::vec(any::<prop::sample::Index>(), 1..20),
    ) {
        let mut net = furnished(3, seed);
        let mut seen = std::collections::BTreeMap::new();
        seen.insert(0, snapshot(&net));
        for act in &acts {
            play(&mut net, act);
            seen.insert(net.cursor(), snapshot(&net));
        }
        let replayed = net.replayed();
        prop_assert_eq!(snapshot(&replayed), snapshot(&net));
        prop_assert_eq!(replayed.events(), net.events());
        // Saved as a scenario and loaded back, the run ends in the same state.
        let saved = scenetree_core::crdt::scenario::parse(&net.to_scenario("run", "").to_json()).unwrap();
        let again = saved.run().unwrap();
        prop_assert_eq!(snapshot(again.network()), snapshot(&net));
        let positions: Vec<usize> = seen.keys().copied().collect();
        for s in &seeks {
            let k = positions[s.index(positions.len())];
            net.seek(k).unwrap();
            prop_assert_eq!(&snapshot(&net), &seen[&k], "at event {}", k);
        }
    }
}

/// Long runs (past the span a backward seek keeps the state at): stepping back through every
/// event, jumping around, and recording new events after a step back (which replaces the
/// timeline's tail, or merges a tick into its last event) all rebuild exactly the state the
/// run had, as a fresh replay from the start does.
#[test]
fn long_runs_step_back_to_identical_states() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut act = || arb_act().new_tree(&mut runner).expect("an act").current();
    let mut net = furnished(3, 5);
    // The state at each position an act ended at (a bulk act records many events at once).
    let mut seen = std::collections::BTreeMap::from([(0, snapshot(&net))]);
    while net.cursor() < 2_600 {
        play(&mut net, &act());
        seen.insert(net.cursor(), snapshot(&net));
    }
    let end = net.cursor();
    let known: Vec<usize> = seen.range(end - 1_300..).map(|(&k, _)| k).collect();
    assert!(known.len() > 500, "mostly single events");
    for &k in known.iter().rev() {
        net.seek(k).unwrap();
        assert_eq!(snapshot(&net), seen[&k], "stepping back, at event {k}");
    }
    let positions: Vec<usize> = seen.keys().copied().collect();
    for i in [1_900, 10, 2_590, 1_500, 1_499, 0, 700] {
        let k = positions[i * positions.len() / 2_600];
        net.seek(k).unwrap();
        assert_eq!(snapshot(&net), seen[&k], "jumping, at event {k}");
    }
    net.seek(end).unwrap();
    for round in 0..60 {
        let back = net.cursor().saturating_sub(1 + round * 13 % 40);
        net.seek(back).unwrap();
        for _ in 0..(round % 4) {
            play(&mut net, &act());
        }
        net.tick(1);
        assert_eq!(snapshot(&net), snapshot(&net.replayed()), "round {round}");
    }
    // Kept near the end, then a new timeline from early on grows past that point: what was
    // kept belongs to the old timeline.
    while net.cursor() < 2_600 {
        play(&mut net, &act());
    }
    let end = net.cursor();
    net.seek(end - 1).unwrap();
    net.seek(300).unwrap();
    while net.cursor() < end {
        play(&mut net, &act());
    }
    net.seek(end - 900).unwrap();
    let (here, fresh) = (snapshot(&net), net.replayed());
    assert_eq!(here, snapshot(&fresh), "on the new timeline");
}
