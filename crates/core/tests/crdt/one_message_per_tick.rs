//! "One message per tick": a peer's writes to one register within one tick of the network clock
//! travel as one message with one timestamp step, as `@dcl/ecs` sends them; off, every write
//! is a message of its own. Checked by hand-made cases and against the reference runtime.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use scenetree_core::crdt::scenario::parse as parse_scenario;
use scenetree_core::crdt::{
    CrdtMessage, DeliveryOrder, EventKind, LocalWrite, MessageFilter, MessageId, Network, Replica,
};
use scenetree_core::model::{Entity, Transform};
use serde_json::{Value, json};

use crate::furnished::*;
use crate::oracle_conformance::run_trace_json;

/// The x position every in-flight message carries, with its timestamp, in list order.
fn flying(net: &Network) -> Vec<(u8, u8, f32, u32)> {
    net.in_flight()
        .iter()
        .map(|m| {
            let x = match &m.message {
                CrdtMessage::PutComponent { data, .. } => {
                    Transform::from_bytes(data).unwrap().position.x
                }
                _ => f32::NAN,
            };
            (m.from.0, m.to.0, x, m.message.timestamp().unwrap_or(0))
        })
        .collect()
}

#[test]
fn a_new_network_sends_one_message_per_tick() {
    assert!(furnished(2, 0).one_message_per_tick());
}

#[test]
fn writes_of_one_register_in_one_tick_travel_as_one_message() {
    let mut net = furnished(3, 0);
    let first = net.write(P1, move_to(LAMP, 1.5, Entity::ROOT)).unwrap();
    assert_eq!(first.sent, [MessageId(1), MessageId(2)]);
    assert!(first.replaced.is_empty());
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    let last = net.write(P1, move_to(LAMP, 3.0, Entity::ROOT)).unwrap();
    // The last write replaced the messages of the one before, in their places.
    assert_eq!(last.replaced, [MessageId(3), MessageId(4)]);
    assert_eq!(last.sent, [MessageId(5), MessageId(6)]);
    // One message per receiver, with the last value and one timestamp step (1 → 2).
    assert_eq!(flying(&net), [(1, 2, 3.0, 2), (1, 3, 3.0, 2)]);
    let writer = net.replica(P1).unwrap();
    assert_eq!(writer.timestamp(LAMP, Transform::COMPONENT_ID), 2);
    assert_eq!(writer.transform(LAMP).unwrap().position.x, 3.0);
    // Every write is still on the timeline, and the merge reads as one.
    assert_eq!(net.events().len(), 3);
    let text = net.describe_event(&net.events()[2]);
    assert!(text.contains("replacing unsent #3, #4"), "{text}");
    net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    assert!(net.convergence().converged);
    for peer in [P2, P3] {
        let replica = net.replica(peer).unwrap();
        assert_eq!(replica.transform(LAMP).unwrap().position.x, 3.0);
        assert_eq!(replica.timestamp(LAMP, Transform::COMPONENT_ID), 2);
    }
}

#[test]
fn off_every_write_is_a_message_of_its_own() {
    let mut net = furnished(2, 0);
    net.set_one_message_per_tick(false);
    assert!(!net.one_message_per_tick());
    for x in [1.5, 2.0, 3.0] {
        let receipt = net.write(P1, move_to(LAMP, x, Entity::ROOT)).unwrap();
        assert!(receipt.replaced.is_empty());
    }
    assert_eq!(
        flying(&net),
        [(1, 2, 1.5, 2), (1, 2, 2.0, 3), (1, 2, 3.0, 4)]
    );
}

#[test]
fn a_clock_tick_ends_the_merging() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(LAMP, 1.5, Entity::ROOT)).unwrap();
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    net.tick(1);
    net.write(P1, move_to(LAMP, 3.0, Entity::ROOT)).unwrap();
    net.write(P1, move_to(LAMP, 4.0, Entity::ROOT)).unwrap();
    assert_eq!(flying(&net), [(1, 2, 2.0, 2), (1, 2, 4.0, 3)]);
}

#[test]
fn a_message_delivered_dropped_or_copied_counts_as_sent() {
    for leave in ["deliver", "drop", "duplicate"] {
        let mut net = furnished(3, 0);
        net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
        match leave {
            "deliver" => drop(net.deliver(MessageId(1)).unwrap()),
            "drop" => net.drop_message(MessageId(1)).unwrap(),
            _ => drop(net.duplicate(MessageId(1)).unwrap()),
        }
        let receipt = net.write(P1, move_to(LAMP, 3.0, Entity::ROOT)).unwrap();
        assert!(receipt.replaced.is_empty(), "{leave}");
        let last: Vec<_> = flying(&net).into_iter().rev().take(2).collect();
        assert_eq!(last, [(1, 3, 3.0, 3), (1, 2, 3.0, 3)], "{leave}");
    }
}

#[test]
fn reordering_keeps_a_write_unsent() {
    let mut net = furnished(3, 0);
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    net.write(P1, move_to(TABLE, 2.0, Entity::ROOT)).unwrap();
    net.reorder(MessageId(1), 3).unwrap();
    let receipt = net.write(P1, move_to(LAMP, 3.0, Entity::ROOT)).unwrap();
    assert_eq!(receipt.replaced, [MessageId(1), MessageId(2)]);
    // The new messages take the places the old ones had.
    let ids: Vec<u64> = net.in_flight().iter().map(|m| m.id.0).collect();
    assert_eq!(ids, [6, 3, 4, 5]);
}

#[test]
fn other_registers_and_other_peers_are_not_merged() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    let other_entity = net.write(P1, move_to(TABLE, 2.0, Entity::ROOT)).unwrap();
    let other_component = net.write(P1, LocalWrite::name(LAMP, "Lamp 2")).unwrap();
    let other_peer = net.write(P2, move_to(LAMP, 5.0, Entity::ROOT)).unwrap();
    for receipt in [other_entity, other_component, other_peer] {
        assert!(receipt.replaced.is_empty());
    }
    assert_eq!(net.in_flight().len(), 4);
}

#[test]
fn receiving_the_entity_ends_the_merging() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    // Peer 2 writes Lamp too (timestamp 2, greater value) and it reaches peer 1 first.
    net.write(P2, move_to(LAMP, 9.0, Entity::ROOT)).unwrap();
    net.deliver(MessageId(2)).unwrap();
    assert_eq!(
        net.replica(P1).unwrap().transform(LAMP).unwrap().position.x,
        9.0
    );
    let receipt = net.write(P1, move_to(LAMP, 3.0, Entity::ROOT)).unwrap();
    assert!(
        receipt.replaced.is_empty(),
        "peer 1 holds peer 2's value now"
    );
    assert_eq!(receipt.messages[0].timestamp(), Some(3));
    net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    assert!(net.convergence().converged);
}

#[test]
fn a_removal_and_a_new_value_in_one_tick_merge_too() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    let removal = LocalWrite::DeleteComponent {
        entity: LAMP,
        component: Transform::COMPONENT_ID,
    };
    let removed = net.write(P1, removal.clone()).unwrap();
    assert_eq!(removed.replaced, [MessageId(1)]);
    assert!(matches!(
        removed.messages[..],
        [CrdtMessage::DeleteComponent { timestamp: 2, .. }]
    ));
    // Removing what is already removed changes nothing and records nothing.
    let events = net.events().len();
    assert!(net.write(P1, removal).unwrap().messages.is_empty());
    assert_eq!(net.events().len(), events);
    let back = net.write(P1, move_to(LAMP, 3.0, Entity::ROOT)).unwrap();
    assert_eq!(back.replaced, [MessageId(2)]);
    assert_eq!(flying(&net), [(1, 2, 3.0, 2)]);
}

#[test]
fn entity_deletions_are_never_merged() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    let deleted = net
        .write(P1, LocalWrite::DeleteEntity { entity: LAMP })
        .unwrap();
    assert!(deleted.replaced.is_empty());
    // The Transform message stays; the deletion adds DELETE_COMPONENTs and DELETE_ENTITY.
    assert_eq!(net.in_flight()[0].id, MessageId(1));
    assert!(net.in_flight().len() > 2);
}

#[test]
fn the_setting_is_on_the_timeline_and_in_a_saved_run() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    net.set_one_message_per_tick(false);
    net.write(P1, move_to(LAMP, 3.0, Entity::ROOT)).unwrap();
    net.write(P1, move_to(LAMP, 4.0, Entity::ROOT)).unwrap();
    net.set_one_message_per_tick(true);
    net.write(P1, move_to(TABLE, 1.0, Entity::ROOT)).unwrap();
    net.write(P1, move_to(TABLE, 2.0, Entity::ROOT)).unwrap();
    assert!(matches!(
        net.events()[1].kind,
        EventKind::SetOneMessagePerTick { on: false }
    ));
    assert_eq!(net.in_flight().len(), 4);
    // Back before the switch, the setting is on again; forward, off and on as recorded.
    net.seek(1).unwrap();
    assert!(net.one_message_per_tick());
    net.seek(net.events().len()).unwrap();
    assert_eq!(net.in_flight().len(), 4);
    // Saved and loaded, the run does the same thing event by event.
    let saved = net.to_scenario("drag", "");
    let json = saved.to_json();
    assert!(json.contains("\"one_message_per_tick\""), "{json}");
    let loaded = parse_scenario(&json).unwrap();
    assert_eq!(loaded, saved);
    let again = loaded.run().unwrap();
    assert_eq!(again.network().events(), net.events());
    // A run that starts with the setting off keeps it off when saved.
    let off = furnished(2, 0).with_one_message_per_tick(false);
    assert!(!off.to_scenario("off", "").one_message_per_tick);
}

#[test]
fn a_scenario_file_that_does_not_say_starts_with_the_setting_off() {
    let text = r#"{"format": "scenetree-scenario/1", "peers": 2,
        "initial": {"entities": [{"entity": 512, "name": "Lamp"}]},
        "steps": [{"actions": [
            {"do": "move", "peer": 1, "entity": "Lamp", "position": [1, 0, 0]},
            {"do": "move", "peer": 1, "entity": "Lamp", "position": [2, 0, 0]},
            {"do": "one_message_per_tick", "on": true},
            {"do": "move", "peer": 1, "entity": "Lamp", "position": [3, 0, 0]},
            {"do": "move", "peer": 1, "entity": "Lamp", "position": [4, 0, 0]}]}]}"#;
    let scenario = parse_scenario(text).unwrap();
    assert!(!scenario.one_message_per_tick);
    let run = scenario.run().unwrap();
    assert_eq!(run.network().in_flight().len(), 3);
    let on = parse_scenario(&text.replace(
        "\"peers\": 2,",
        "\"peers\": 2, \"one_message_per_tick\": true,",
    ))
    .unwrap();
    assert_eq!(on.run().unwrap().network().in_flight().len(), 1);
    let bad = parse_scenario(&text.replace("\"on\": true", "\"on\": 1")).unwrap_err();
    assert!(bad.to_string().contains("steps[0].actions[2].on"), "{bad}");
}

/// A random Transform of an entity among `entities`, as 44 bytes.
fn random_transform(rng: &mut ChaCha8Rng, entities: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(44);
    for _ in 0..10 {
        let v = (rng.random_range(-40..40) as f32) * 0.25;
        out.extend_from_slice(&v.to_le_bytes());
    }
    let parent = if rng.random_bool(0.3) {
        0
    } else {
        entities[rng.random_range(0..entities.len())]
    };
    out.extend_from_slice(&parent.to_le_bytes());
    out
}

/// Random writes of a few Transforms by a few peers, several per engine tick: every message
/// each peer sends, and every final state, equal what `@dcl/ecs` sends and holds when the same
/// writes are made within the same engine ticks.
#[test]
fn merged_writes_match_what_the_reference_runtime_sends_per_tick() {
    const RUNS: u64 = 150;
    let entities = [512u32, 513, 514];
    let mut traces = Vec::new();
    let mut ours = Vec::new();
    for seed in 0..RUNS {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let peers = rng.random_range(2..=3usize);
        let mut net = Network::new(peers, seed, &Replica::new()).unwrap();
        let mut ops = Vec::new();
        for _ in 0..rng.random_range(5..40) {
            let peer = rng.random_range(0..peers);
            let entity = Entity(entities[rng.random_range(0..entities.len())]);
            let write = match rng.random_range(0..10) {
                0..=6 => {
                    let data = random_transform(&mut rng, &entities);
                    ops.push(json!({"op": "put", "peer": peer, "entity": entity.0,
                        "component": 1, "data": hex(&data), "tick": false}));
                    LocalWrite::Put {
                        entity,
                        component: Transform::COMPONENT_ID,
                        data,
                    }
                }
                7 => {
                    ops.push(json!({"op": "delete_component", "peer": peer,
                        "entity": entity.0, "component": 1, "tick": false}));
                    LocalWrite::DeleteComponent {
                        entity,
                        component: Transform::COMPONENT_ID,
                    }
                }
                _ => {
                    ops.push(json!({"op": "tick"}));
                    net.tick(1);
                    continue;
                }
            };
            net.write(scenetree_core::crdt::PeerId::from_index(peer), write)
                .unwrap();
        }
        ops.push(json!({"op": "tick"}));
        traces.push(json!({"peers": peers, "components": [], "ops": ops}));
        ours.push(net);
    }
    let results = run_trace_json(traces.clone());
    let mut merged = 0;
    for (seed, (net, oracle)) in ours.iter().zip(&results).enumerate() {
        merged += net
            .events()
            .iter()
            .filter(
                |e| matches!(&e.kind, EventKind::Write { replaced, .. } if !replaced.is_empty()),
            )
            .count();
        for (p, peer) in oracle["peers"].as_array().unwrap().iter().enumerate() {
            let from = scenetree_core::crdt::PeerId::from_index(p);
            let receiver = if p == 0 { 1 } else { 0 };
            // Every message goes to every other peer: the copies to one receiver are the
            // peer's outbox, in the order sent.
            let sent: Vec<Value> = net
                .in_flight()
                .iter()
                .filter(|m| m.from == from && m.to.index() == receiver)
                .map(|m| json!(hex(&m.message.to_bytes())))
                .collect();
            assert_eq!(
                &Value::Array(sent),
                &peer["outbox"],
                "seed {seed}, peer {p}: {}",
                traces[seed]
            );
            let state = hex(&scenetree_core::crdt::encode_stream(
                &net.replica(from).unwrap().state_messages(),
            ));
            assert_eq!(
                peer["state"].as_str().unwrap(),
                state,
                "seed {seed}, peer {p}"
            );
        }
    }
    assert!(merged > RUNS as usize * 3, "only {merged} merged writes");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
