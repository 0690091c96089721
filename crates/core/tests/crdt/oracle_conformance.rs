//! Conformance with the reference runtime: random multi-peer traces run both on scenetree's
//! replicas and on `@dcl/ecs` (oracle/run-traces.cjs); every message each peer sends, every
//! reply to an outdated sender, every final state and deleted-entity set must be identical.
//!
//! Needs `npm ci --prefix oracle` (the README's test command runs it).

use std::io::Write;
use std::process::{Command, Stdio};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use scenetree_core::crdt::{CrdtMessage, Replica};
use scenetree_core::model::{Entity, Transform, component_id_from_name};
use serde_json::{Value, json};

const TRACES: usize = 1200;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One random trace, and the results of running it on scenetree's replicas.
struct Trace {
    json: Value,
    outboxes: Vec<Vec<String>>,
    states: Vec<String>,
    deleted: Vec<Vec<(u16, u16)>>,
    replies: Vec<String>,
}

fn random_transform(rng: &mut ChaCha8Rng, entities: &[u16]) -> Vec<u8> {
    let mut f = || -> f32 {
        match rng.random_range(0..20) {
            0 => 0.0,
            1 => -0.0,
            2 => f32::from_bits(0x7F80_0001), // a signalling NaN: the runtime quiets it
            3 => 1.0,
            _ => (rng.random_range(-400..400) as f32) * 0.25,
        }
    };
    let floats: Vec<f32> = (0..10).map(|_| f()).collect();
    let mut out = Vec::with_capacity(44);
    for v in floats {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let parent = if rng.random_bool(0.3) {
        0
    } else {
        entities[rng.random_range(0..entities.len())] as u32
    };
    out.extend_from_slice(&parent.to_le_bytes());
    out
}

fn generate(seed: u64) -> Trace {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let peers = rng.random_range(2..=4usize);
    let opaque = [
        component_id_from_name("scenetree::OpaqueA"),
        component_id_from_name("scenetree::OpaqueB"),
    ];
    let components = [Transform::COMPONENT_ID, opaque[0], opaque[1]];
    // Few entities, so that peers collide on the same registers; one reserved number.
    let numbers: Vec<u16> = vec![512, 513, 514, 515, 7];
    let mut replicas: Vec<Replica> = (0..peers).map(|_| Replica::new()).collect();
    let mut outboxes: Vec<Vec<CrdtMessage>> = vec![Vec::new(); peers];
    let mut ops = Vec::new();
    let mut replies = Vec::new();
    let steps = rng.random_range(10..70);
    let deliver = |rng: &mut ChaCha8Rng,
                   replicas: &mut Vec<Replica>,
                   outboxes: &mut Vec<Vec<CrdtMessage>>,
                   ops: &mut Vec<Value>,
                   replies: &mut Vec<String>| {
        let from = rng.random_range(0..peers);
        if outboxes[from].is_empty() {
            return;
        }
        let to = (from + rng.random_range(1..peers)) % peers;
        // Favour recent messages but reach back to old ones (out of order, duplicates).
        let len = outboxes[from].len();
        let index = if rng.random_bool(0.5) {
            len - 1 - rng.random_range(0..len.min(3))
        } else {
            rng.random_range(0..len)
        };
        let msg = outboxes[from][index].clone();
        let outcome = replicas[to].apply(&msg);
        replies.push(
            outcome
                .reply()
                .map_or(String::new(), |r| hex(&r.to_bytes())),
        );
        if let scenetree_core::crdt::ApplyOutcome::EntityDeleted { announcements } = outcome {
            outboxes[to].extend(announcements);
        }
        ops.push(json!({"op": "deliver", "from": from, "index": index, "to": to}));
    };
    for _ in 0..steps {
        let peer = rng.random_range(0..peers);
        let roll = rng.random_range(0..100);
        let number = numbers[rng.random_range(0..numbers.len())];
        // Address the current version of the number as this peer knows it.
        let version = (0..8u16)
            .find(|&v| !replicas[peer].is_deleted(Entity::from_parts(number, v)))
            .unwrap_or(8);
        let entity = Entity::from_parts(number, version);
        if roll < 45 {
            let component = components[rng.random_range(0..components.len())];
            let data = if component == Transform::COMPONENT_ID {
                random_transform(&mut rng, &numbers)
            } else {
                (0..rng.random_range(0..5))
                    .map(|_| rng.random_range(0..4u8))
                    .collect()
            };
            let msg = replicas[peer]
                .put(entity, component, data.clone())
                .expect("generator writes live entities");
            outboxes[peer].push(msg);
            ops.push(json!({"op": "put", "peer": peer, "entity": entity.0, "component": component, "data": hex(&data)}));
        } else if roll < 53 {
            let held = replicas[peer].components_of(entity);
            if let Some(&component) = held.get(rng.random_range(0..held.len().max(1))) {
                let msg = replicas[peer]
                    .delete_component(entity, component)
                    .expect("held");
                outboxes[peer].push(msg);
                ops.push(json!({"op": "delete_component", "peer": peer, "entity": entity.0, "component": component}));
            }
        } else if roll < 57 {
            if !entity.is_reserved() && replicas[peer].is_live(entity) {
                let msgs = replicas[peer].delete_entity(entity).expect("scene entity");
                outboxes[peer].extend(msgs);
                ops.push(json!({"op": "delete_entity", "peer": peer, "entity": entity.0}));
            }
        } else {
            deliver(
                &mut rng,
                &mut replicas,
                &mut outboxes,
                &mut ops,
                &mut replies,
            );
        }
    }
    // Finally flood: everything to everyone, in a random order, some twice.
    for _ in 0..rng.random_range(0..40) {
        deliver(
            &mut rng,
            &mut replicas,
            &mut outboxes,
            &mut ops,
            &mut replies,
        );
    }
    let json = json!({"peers": peers, "components": opaque, "ops": ops});
    Trace {
        json,
        outboxes: outboxes
            .iter()
            .map(|o| o.iter().map(|m| hex(&m.to_bytes())).collect())
            .collect(),
        states: replicas
            .iter()
            .map(|r| hex(&scenetree_core::crdt::encode_stream(&r.state_messages())))
            .collect(),
        deleted: replicas
            .iter()
            .map(|r| {
                let mut d: Vec<(u16, u16)> = r
                    .deleted_entities()
                    .iter()
                    .map(|e| (e.number(), e.version()))
                    .collect();
                d.sort_unstable();
                d
            })
            .collect(),
        replies,
    }
}

fn run_oracle(traces: &[Trace]) -> Vec<Value> {
    run_trace_json(traces.iter().map(|t| t.json.clone()).collect())
}

/// Runs traces (in `oracle/run-traces.cjs`'s input format) on the reference runtime.
pub(crate) fn run_trace_json(traces: Vec<Value>) -> Vec<Value> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../oracle");
    assert!(
        std::path::Path::new(dir)
            .join("node_modules/@dcl/ecs")
            .exists(),
        "the @dcl/ecs oracle is not installed: run `npm ci --prefix oracle` first"
    );
    let input = Value::Array(traces).to_string();
    let mut child = Command::new("node")
        .arg("run-traces.cjs")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node must be installed to run the oracle");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::Builder::new()
        .name("oracle-input".into())
        .spawn(move || stdin.write_all(input.as_bytes()))
        .unwrap();
    let output = child.wait_with_output().expect("oracle ran");
    writer.join().unwrap().unwrap();
    assert!(
        output.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice::<Vec<Value>>(&output.stdout).expect("oracle output is JSON")
}

#[test]
fn random_multi_peer_traces_match_the_reference_runtime_byte_for_byte() {
    let traces: Vec<Trace> = (0..TRACES as u64).map(generate).collect();
    let results = run_oracle(&traces);
    assert_eq!(results.len(), traces.len());
    let mut deliveries = 0;
    let mut replies = 0;
    for (seed, (trace, oracle)) in traces.iter().zip(&results).enumerate() {
        let context = || format!("trace seed {seed}: {}", trace.json);
        let peers = oracle["peers"].as_array().unwrap();
        for (p, peer) in peers.iter().enumerate() {
            let outbox: Vec<String> = peer["outbox"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect();
            assert_eq!(
                outbox,
                trace.outboxes[p],
                "peer {p} sent different messages\n{}",
                context()
            );
            assert_eq!(
                peer["state"].as_str().unwrap(),
                trace.states[p],
                "peer {p} state differs\n{}",
                context()
            );
            let deleted: Vec<(u16, u16)> = peer["deleted"]
                .as_array()
                .unwrap()
                .iter()
                .map(|pair| {
                    (
                        pair[0].as_u64().unwrap() as u16,
                        pair[1].as_u64().unwrap() as u16,
                    )
                })
                .filter(|(n, _)| [512, 513, 514, 515, 7].contains(n))
                .collect();
            assert_eq!(
                deleted,
                trace.deleted[p],
                "peer {p} deleted set differs\n{}",
                context()
            );
        }
        let oracle_replies: Vec<String> = oracle["replies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            oracle_replies,
            trace.replies,
            "replies differ\n{}",
            context()
        );
        deliveries += trace.replies.len();
        replies += trace.replies.iter().filter(|r| !r.is_empty()).count();
    }
    // The traces must actually exercise the interesting paths.
    assert!(deliveries > TRACES * 10, "{deliveries} deliveries");
    assert!(
        replies > TRACES / 4,
        "only {replies} replies to outdated senders"
    );
}

/// Prints one generated trace as the oracle's input, to reproduce a failure by hand:
/// `SEED=12 cargo test --test crdt dump_seed -- --ignored --nocapture > t.json`
/// then `node oracle/run-traces.cjs < t.json`.
#[test]
#[ignore]
fn dump_seed() {
    let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
    let t = generate(seed);
    println!("{}", Value::Array(vec![t.json.clone()]));
}
