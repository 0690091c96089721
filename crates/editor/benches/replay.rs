//! `scenetree scenario run` without the process: reading a scenario file, playing it, and
//! replaying it event by event with every peer's digest, re-rooted entities and Inspector-tree
//! check written after each event (`replay::report`, text, to a sink). Targets (issue 48):
//! a 100,000-message recording in ≤ 2 s, 10⁶ moves in ≤ 20 s, and a step's cost independent
//! of the scene's size.
//!
//! - `replay/recording_100k_real`: a live session's recording of 100,000 messages, recorded
//!   (untimed) from Decentraland's real data layer: two live documents on the art gallery; one
//!   moves its entities, the other records what the host relays, as `scenetree live URL
//!   record` does. Skipped, with a note, without `oracle-live/node_modules`.
//! - `replay/recording_100k_generated`: a recording of the same kind generated without a host
//!   (the host's elements of 1 to 8 messages written by peer 2 and delivered to peer 1 at once,
//!   this editor's moves delivered to the host a few milliseconds later).
//! - `replay/moves_1m`: 1,000,000 moves on two peers over 1,000 entities (a random position;
//!   one in fifty also a new parent of a lower number), each peer's oldest message delivered
//!   once 32 are in flight: 1,000,000 steps, about 2,000,000 events.
//! - `replay/moves_100k_undelivered`: 100,000 moves by one peer that stay in flight.
//! - `replay/deliver_10k_in_flight`: 10,000 moves, then 10,000 steps each delivering the
//!   oldest message in flight.
//! - `replay/large_scene/{0,10000}_moves`: the 65,024-entity example as the initial state, with
//!   no moves and with 10,000 moves (delivered as in `moves_1m`): the difference is what
//!   10,000 steps cost in a large scene, to compare with the same steps in `moves_1m`.
//!
//! `cargo bench -p scenetree-editor --bench replay`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use scenetree_core::crdt::network::{LocalWrite, Network};
use scenetree_core::crdt::{CrdtMessage, Replica, encode_stream};
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_dcl::io;
use scenetree_editor::replay::{Replay, report};
use scenetree_editor::{
    Document, HOST, LiveSettings, RecordTo, Recorded, THIS_EDITOR, recording_of,
};
use scenetree_test_support::dcl_host::DclHost;
use scenetree_test_support::live_docs::move_x;

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

/// What `scenetree scenario run FILE` does, to a sink. The replay is returned for criterion to
/// drop outside the timing (`iter_with_large_drop`): the command never frees it, the process
/// ends there, but a benchmark that forgot it would keep every sample's run (gigabytes each).
fn scenario_run(file: &Path) -> Replay {
    let player = io::scenario::read_played(file).expect("the scenario reads and plays");
    let mut replay = Replay::new(player).expect("the run rewinds");
    report::write_report(&mut replay, &[], report::Format::Text, &mut std::io::sink())
        .expect("a sink takes everything");
    replay
}

/// A scenario file: `initial` as a base64 stream, then one step per action list.
fn scenario_file(dir: &Path, name: &str, initial: &Replica, steps: &[String]) -> PathBuf {
    use base64::Engine as _;
    let stream =
        base64::engine::general_purpose::STANDARD.encode(encode_stream(&initial.state_messages()));
    let mut text = format!(
        "{{\"format\": \"scenetree-scenario/1\", \"title\": \"{name}\", \"peers\": 2, \
         \"seed\": 1, \"one_message_per_tick\": false, \"initial\": {{\"stream\": \"{stream}\"}}, \
         \"steps\": [\n"
    );
    for (i, actions) in steps.iter().enumerate() {
        let comma = if i + 1 < steps.len() { "," } else { "" };
        let _ = writeln!(text, "{{\"actions\": [{actions}]}}{comma}");
    }
    text.push_str("]}\n");
    let path = dir.join(format!("{name}.scenario.json"));
    std::fs::write(&path, text).expect("the scenario is written");
    path
}

/// `n` named entities at the root, from 512.
fn flat_scene(n: u32) -> Replica {
    let mut messages = Vec::new();
    for i in 0..n {
        let entity = Entity(512 + i);
        let t = Transform {
            position: glam::Vec3::new(i as f32, 0.0, 0.0),
            ..Transform::IDENTITY
        };
        messages.push(CrdtMessage::PutComponent {
            entity,
            component: ids::TRANSFORM,
            timestamp: 1,
            data: t.to_bytes().to_vec(),
        });
        messages.push(CrdtMessage::PutComponent {
            entity,
            component: ids::NAME,
            timestamp: 1,
            data: encode_name(&format!("E{i}")),
        });
    }
    Replica::from_messages(&messages)
}

/// `count` moves of entities `512..512 + entities` by peers 1 and 2 in turn, each step's
/// oldest message from the mover delivered once `keep` of its messages are in flight
/// (`None`: never).
fn move_steps(count: usize, entities: u32, keep: Option<usize>, seed: u64) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut in_flight = [0usize; 2];
    (0..count)
        .map(|i| {
            let peer = i % 2 + 1;
            let entity = 512 + rng.random_range(0..entities);
            let x: f32 = rng.random_range(-50.0..50.0);
            let mut action = format!(
                "{{\"do\": \"move\", \"peer\": {peer}, \"entity\": {entity}, \"position\": [{x}, 0, 1]"
            );
            if entity > 512 && rng.random_bool(0.02) {
                // Under a lower number: a forest that changes shape, without cycles (cycles
                // are `large_cycles`'s; one kept for the rest of a run is listed after every
                // event).
                let parent = rng.random_range(512..entity);
                let _ = write!(action, ", \"parent\": {parent}");
            }
            action.push('}');
            in_flight[peer - 1] += 1;
            if let Some(keep) = keep
                && in_flight[peer - 1] > keep
            {
                in_flight[peer - 1] -= 1;
                let to = 3 - peer;
                let _ = write!(action, ", {{\"do\": \"deliver\", \"from\": {peer}, \"to\": {to}}}");
            }
            action
        })
        .collect()
}

/// A recording of the shape a live session writes (see the module docs) of at least `messages`
/// messages, starting from `scene`.
fn generated_recording(dir: &Path, scene: &Replica, messages: usize) -> PathBuf {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut network = Network::new(2, 0, scene)
        .expect("two peers")
        .with_one_message_per_tick(true);
    let live: Vec<Entity> = scene.live_entities().filter(|e| !e.is_root()).collect();
    let mut sent = 0;
    while sent < messages {
        network.tick(rng.random_range(1..20));
        if rng.random_bool(0.7) {
            // An element from the host: another client's moves and renames.
            let batch: Vec<CrdtMessage> = (0..rng.random_range(1..=8))
                .map(|_| {
                    let entity = live[rng.random_range(0..live.len())];
                    let timestamp = network
                        .replica(HOST)
                        .expect("the host")
                        .timestamp(entity, ids::TRANSFORM)
                        + 1;
                    let mut t = network
                        .replica(HOST)
                        .expect("the host")
                        .transform(entity)
                        .unwrap_or(Transform::IDENTITY);
                    t.position.x = rng.random_range(-50.0..50.0);
                    CrdtMessage::PutComponent {
                        entity,
                        component: ids::TRANSFORM,
                        timestamp,
                        data: t.to_bytes().to_vec(),
                    }
                })
                .collect();
            sent += batch.len();
            let receipt = network
                .write(HOST, LocalWrite::Authored { messages: batch })
                .expect("the host writes");
            for id in receipt.sent {
                network.deliver(id).expect("delivered at once");
            }
        } else {
            let entity = live[rng.random_range(0..live.len())];
            let mut t = network
                .replica(THIS_EDITOR)
                .expect("this editor")
                .transform(entity)
                .unwrap_or(Transform::IDENTITY);
            t.position.z = rng.random_range(-50.0..50.0);
            let receipt = network
                .write(THIS_EDITOR, LocalWrite::transform(entity, &t))
                .expect("this editor writes");
            sent += receipt.messages.len();
            network.tick(rng.random_range(1..5));
            for id in receipt.sent {
                network.deliver(id).expect("acknowledged");
            }
        }
    }
    let recording = recording_of(&network, "generated", "", Recorded::Live);
    let path = dir.join("recording.scenario.json");
    io::scenario::save_scenario(&recording, &path).expect("the recording is written");
    path
}

/// A recording of at least `messages` messages made on Decentraland's real data layer (the art
/// gallery): one live document moves the gallery's entities, one at a time round the scene,
/// polling as a window's frames would, while another records what the host relays to it as
/// `scenetree live URL record` does. `None` without `oracle-live/node_modules`.
fn real_recording(dir: &Path, messages: u64) -> Option<PathBuf> {
    let installed = scenetree_test_support::repo_root()
        .join("oracle-live/node_modules/@dcl/sdk-commands/dist/index.js")
        .exists();
    if !installed {
        return None;
    }
    let host = DclHost::start();
    let path = dir.join("real.scenario.json");
    let settings = |record| LiveSettings {
        connect_timeout: Some(Duration::from_secs(15)),
        record,
        ..LiveSettings::default()
    };
    let mut recorder = Document::connect_live(&host.url(), settings(RecordTo::File(path.clone())))
        .expect("the recorder connects");
    let mut editor =
        Document::connect_live(&host.url(), settings(RecordTo::Off)).expect("the editor connects");
    let entities: Vec<Entity> = (editor.replica().live_entities())
        .filter(|&e| editor.replica().transform(e).is_some())
        .collect();
    let arrived = |d: &Document| {
        d.live()
            .and_then(|l| l.recording_summary())
            .map_or(0, |s| s.arrived)
    };
    let mut edit = 0usize;
    while arrived(&recorder) < messages {
        for _ in 0..50 {
            move_x(&mut editor, entities[edit % entities.len()], edit as f32);
            edit += 1;
            editor.poll_live(None);
        }
        recorder.poll_live(Some(Duration::from_millis(1)));
    }
    let summary = recorder
        .finish_live_recording()
        .expect("the recording is written");
    eprintln!(
        "replay/recording_100k_real: {} edits of {} entities made {} messages from the host in \
         {} steps ({:.1} MB)",
        edit,
        entities.len(),
        summary.arrived,
        summary.steps,
        summary.bytes as f64 / 1e6
    );
    Some(path)
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let dir = dir.path();
    let mut group = c.benchmark_group("replay");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    // Each input is made once, the first time its benchmark runs: criterion calls a
    // benchmark's closure once per sample, and only for the benchmarks the filter selects.
    let mut real = None;
    group.bench_function("recording_100k_real", |b| {
        let Some(file) = real.get_or_insert_with(|| real_recording(dir, 100_000)) else {
            eprintln!(
                "replay/recording_100k_real: skipped, Decentraland's data layer is not installed \
                 (npm ci --prefix oracle-live)"
            );
            return;
        };
        b.iter_with_large_drop(|| scenario_run(file))
    });
    let mut generated = None;
    group.bench_function("recording_100k_generated", |b| {
        let file =
            generated.get_or_insert_with(|| generated_recording(dir, &flat_scene(120), 100_000));
        b.iter_with_large_drop(|| scenario_run(file))
    });
    let mut moves = None;
    group.bench_function("moves_1m", |b| {
        let file = moves.get_or_insert_with(|| {
            let steps = move_steps(1_000_000, 1_000, Some(32), 1);
            scenario_file(dir, "moves_1m", &flat_scene(1_000), &steps)
        });
        b.iter_with_large_drop(|| scenario_run(file))
    });
    let mut undelivered = None;
    group.bench_function("moves_100k_undelivered", |b| {
        let file = undelivered.get_or_insert_with(|| {
            let steps = one_peer(move_steps(100_000, 1_000, None, 2));
            scenario_file(dir, "moves_100k_undelivered", &flat_scene(1_000), &steps)
        });
        b.iter_with_large_drop(|| scenario_run(file))
    });
    let mut deliveries = None;
    group.bench_function("deliver_10k_in_flight", |b| {
        let file = deliveries.get_or_insert_with(|| {
            let mut steps = one_peer(move_steps(10_000, 1_000, None, 3));
            let deliver = "{\"do\": \"deliver\", \"from\": 1, \"to\": 2}";
            steps.extend((0..10_000).map(|_| deliver.to_owned()));
            scenario_file(dir, "deliver_10k_in_flight", &flat_scene(1_000), &steps)
        });
        b.iter_with_large_drop(|| scenario_run(file))
    });
    for moves in [0, 10_000] {
        let mut large = None;
        group.bench_function(format!("large_scene/{moves}_moves"), |b| {
            let file = large.get_or_insert_with(|| {
                let scene = scenetree_core::examples::large(usize::MAX);
                let steps = move_steps(moves, 65_000, Some(32), 4);
                scenario_file(dir, &format!("large_{moves}"), &scene, &steps)
            });
            b.iter_with_large_drop(|| scenario_run(file))
        });
    }
    group.finish();
}

/// The moves all made by peer 1.
fn one_peer(steps: Vec<String>) -> Vec<String> {
    (steps.into_iter())
        .map(|a| a.replace("\"peer\": 2", "\"peer\": 1"))
        .collect()
}

criterion_group!(replay, benches);
criterion_main!(replay);
