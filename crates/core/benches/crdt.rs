//! CRDT throughput: applying PUT_COMPONENT Transform messages to a [`Replica`] with a
//! [`SceneView`] kept up to date, and the `main.crdt` codec.
//!
//! - `crdt/apply/1m_puts_view_every_1000`: 1,000,000 PUT_COMPONENT Transform messages over
//!   60,000 entities (numbers 512..60,512, within Decentraland's 65,535) applied to a fresh
//!   replica (`Replica::apply_all` per frame), with `SceneView::update` after every 1,000
//!   messages (one frame), so the journal read, the root-fallback (cycle) checks and the
//!   propagation all run. The first 60,000
//!   messages create the entities (a random forest, 10% of them directly under the root); the
//!   rest move a random entity: 1% of those give it a random new parent, and 0.1% put its
//!   parent under it (a 2-cycle, drawn at the root until either moves again), so cycles form
//!   and break along the way. Throughput = messages.
//! - `crdt/apply/1m_puts_shallow_view_every_1000`: the same with a shallow scene: entities are
//!   created under one of the first 1,000 (groups of about 60 under the root), so a move drags
//!   fewer descendants along.
//! - `crdt/apply/1m_puts_no_view`: the deep messages without the view (the replica alone).
//!   Then the same messages go to the reference runtime in the same run: they are written as a
//!   stream to `target/crdt-bench/1m_puts.crdt` and `oracle/bench-apply.cjs` times @dcl/ecs's
//!   `Transform.updateFromCrdt` on them under node (decoded first, untimed); the bench prints
//!   both throughputs (medians of 3 runs each) and the ratio. It runs when no filter is given
//!   or the filter contains `dcl_ecs` (`cargo bench --bench crdt -- dcl_ecs`), and is skipped,
//!   with a note, when node or `oracle/node_modules` is missing (`npm ci --prefix oracle`).
//! - `crdt/codec/decode/<fixture>`, `crdt/codec/encode/<fixture>`: `decode_stream` and
//!   `encode_stream` on the bundled `main.crdt` fixtures. Throughput = bytes.
//! - `crdt/network/deliver_all_16000`: the peers simulation delivering, in send order, the
//!   16,000 messages one peer's writes of 16,000 Transforms in one tick put in flight to the
//!   other (what "Deliver all" does after moving a large selection). Throughput = messages.
//! - `crdt/network/deliver_all_random_16000`: the same messages delivered in random order
//!   ("Deliver all ▸ Random order"): each pick is uniform among the deliverable messages.
//! - `crdt/network/step_back_after_16000`: after those 16,000 deliveries (32,000 events), one
//!   step back on the timeline and one forward again (the first step back, untimed, keeps
//!   the state a little before; the timed ones replay from there).
//! - `crdt/network/advance_auto_16000`: the same messages delivered by auto-delivery (latency 2,
//!   jitter 8, so due times interleave), in one `advance` past the last due time.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use scenetree_core::crdt::{CrdtMessage, Replica, decode_stream, encode_stream};
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::SceneView;

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

const MESSAGES: usize = 1_000_000;
const ENTITIES: u32 = 60_000;
const FRAME: usize = 1_000;

/// The deterministic message list described in the module docs. New entities hang under a
/// random earlier one among the first `parent_pool` created (all of them: a deep random
/// forest; 1,000: a shallow scene of groups).
fn transform_puts(seed: u64, parent_pool: usize) -> Vec<CrdtMessage> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut order: Vec<u32> = (0..ENTITIES).collect();
    rand::seq::SliceRandom::shuffle(order.as_mut_slice(), &mut rng);
    let entity = |i: u32| Entity(512 + i);
    let mut current: Vec<Transform> = vec![Transform::IDENTITY; ENTITIES as usize];
    let mut timestamps = vec![0u32; ENTITIES as usize];
    let mut out = Vec::with_capacity(MESSAGES);
    let random_transform = |rng: &mut ChaCha8Rng, parent: Entity| Transform {
        position: Vec3::new(
            rng.random_range(-4.0..4.0),
            rng.random_range(-4.0..4.0),
            rng.random_range(-4.0..4.0),
        ),
        rotation: Quat::from_rotation_y(rng.random_range(-3.0..3.0)),
        scale: Vec3::ONE,
        parent,
    };
    for (created, &i) in order.iter().enumerate() {
        let parent = if created == 0 || rng.random_bool(0.1) {
            Entity::ROOT
        } else {
            entity(order[rng.random_range(0..created.min(parent_pool))])
        };
        current[i as usize] = random_transform(&mut rng, parent);
    }
    let mut put = |i: u32, t: Transform, out: &mut Vec<CrdtMessage>| {
        timestamps[i as usize] += 1;
        out.push(CrdtMessage::PutComponent {
            entity: entity(i),
            component: Transform::COMPONENT_ID,
            timestamp: timestamps[i as usize],
            data: t.to_bytes().to_vec(),
        });
    };
    for &i in &order {
        put(i, current[i as usize], &mut out);
    }
    while out.len() < MESSAGES {
        let mut i = rng.random_range(0..ENTITIES);
        let parent = if rng.random_bool(0.001) {
            // Close a 2-cycle: put i's parent under i (until one of them moves again).
            let p = current[i as usize].parent;
            if p.is_root() {
                current[i as usize].parent
            } else {
                let child = i;
                i = p.0 - 512;
                entity(child)
            }
        } else if rng.random_bool(0.01) {
            entity(rng.random_range(0..ENTITIES))
        } else {
            current[i as usize].parent
        };
        let t = random_transform(&mut rng, parent);
        current[i as usize] = t;
        put(i, t, &mut out);
    }
    out
}

fn apply(c: &mut Criterion) {
    let deep = transform_puts(11, usize::MAX);
    let shallow = transform_puts(12, 1_000);
    let mut group = c.benchmark_group("crdt/apply");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(MESSAGES as u64));
    for (name, messages) in [
        ("1m_puts_view_every_1000", &deep),
        ("1m_puts_shallow_view_every_1000", &shallow),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || (Replica::new(), SceneView::new()),
                |(mut replica, mut view)| {
                    for frame in messages.chunks(FRAME) {
                        replica.apply_all(black_box(frame));
                        view.update(&replica);
                    }
                    (replica, view)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.bench_function("1m_puts_no_view", |b| {
        b.iter_batched(
            Replica::new,
            |mut replica| {
                replica.apply_all(black_box(&deep));
                replica
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
    describe("deep", &deep);
    describe("shallow", &shallow);
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_none_or(|f| f.contains("dcl_ecs")) {
        against_reference(&deep);
    }
}

/// Median of `runs` timings of `f`, in seconds.
fn median_seconds(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

/// `Replica::apply` against @dcl/ecs's `updateFromCrdt` on the same messages (see the module
/// docs), both timed in this run.
fn against_reference(messages: &[CrdtMessage]) {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let script = root.join("oracle/bench-apply.cjs");
    if !root.join("oracle/node_modules/@dcl/ecs").is_dir() {
        eprintln!("crdt/apply vs @dcl/ecs: skipped (run `npm ci --prefix oracle`)");
        return;
    }
    let dir = root.join("target/crdt-bench");
    let trace = dir.join("1m_puts.crdt");
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&trace, encode_stream(messages)));
    if let Err(e) = written {
        eprintln!(
            "crdt/apply vs @dcl/ecs: skipped (cannot write {}: {e})",
            trace.display()
        );
        return;
    }
    let ours = median_seconds(3, || {
        let mut replica = Replica::new();
        replica.apply_all(black_box(messages));
        black_box(&replica);
    });
    let output = match Command::new("node")
        .arg(&script)
        .arg(&trace)
        .arg("3")
        .output()
    {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => {
            eprintln!(
                "crdt/apply vs @dcl/ecs: node failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return;
        }
        Err(e) => {
            eprintln!("crdt/apply vs @dcl/ecs: skipped (cannot run node: {e})");
            return;
        }
    };
    let field = |name: &str| -> Option<f64> {
        let rest = &output[output.find(&format!("\"{name}\":"))? + name.len() + 3..];
        rest[..rest.find([',', '}'])?].trim().parse().ok()
    };
    let (Some(counted), Some(direct_ns), Some(receive_ns)) = (
        field("messages"),
        field("update_from_crdt_median_ns"),
        field("receive_path_median_ns"),
    ) else {
        eprintln!("crdt/apply vs @dcl/ecs: unexpected output from node: {output}");
        return;
    };
    assert_eq!(
        counted as usize,
        messages.len(),
        "node decoded every message"
    );
    let rate = |seconds: f64| messages.len() as f64 / seconds / 1e6;
    let (ours, direct, receive) = (rate(ours), rate(direct_ns / 1e9), rate(receive_ns / 1e9));
    eprintln!(
        "crdt/apply vs @dcl/ecs (same {} messages, medians of 3): scenetree Replica::apply {ours:.2} M messages/s; \
         @dcl/ecs Transform.updateFromCrdt {direct:.3} M/s, engine receive path {receive:.3} M/s; \
         ratio {:.1}x (receive path: {:.1}x)",
        messages.len(),
        ours / direct,
        ours / receive
    );
}

/// What the view did on a message list, for the report (and a check that the run did what
/// it says).
fn describe(name: &str, messages: &[CrdtMessage]) {
    let (mut replica, mut view) = (Replica::new(), SceneView::new());
    let (mut cycle_frames, mut recomputed) = (0, 0);
    for frame in messages.chunks(FRAME) {
        for msg in frame {
            assert!(replica.apply(msg).changed_state(), "every PUT is newer");
        }
        view.update(&replica);
        cycle_frames += usize::from(!view.cycles().is_empty());
        recomputed += view.last_update_stats().worlds_recomputed;
    }
    assert_eq!(view.len(), ENTITIES as usize + 1);
    let depth = view.preorder().iter().map(|(_, d)| *d).max().unwrap_or(0);
    eprintln!(
        "crdt/apply ({name}): {} messages, {} entities, final depth {depth}, {} of {} frames had parenting cycles ({} at the end), {:.1} worlds recomputed per message",
        messages.len(),
        ENTITIES,
        cycle_frames,
        messages.len() / FRAME,
        view.cycles().len(),
        recomputed as f64 / messages.len() as f64
    );
}

fn codec(c: &mut Criterion) {
    let fixtures =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/dcl");
    let mut group = c.benchmark_group("crdt/codec");
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for name in ["Cozy-House-Template", "art-gallery-template"] {
        let path = fixtures.join(name).join("main.crdt");
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("crdt/codec: skipping {} (not found)", path.display());
            continue;
        };
        let messages = decode_stream(&bytes).expect("fixture decodes").messages;
        eprintln!(
            "crdt/codec/{name}: {} bytes, {} messages",
            bytes.len(),
            messages.len()
        );
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("decode/{name}"), |b| {
            b.iter(|| decode_stream(black_box(&bytes)))
        });
        group.bench_function(format!("encode/{name}"), |b| {
            b.iter(|| encode_stream(black_box(&messages)))
        });
    }
    group.finish();
}

fn network(c: &mut Criterion) {
    use scenetree_core::crdt::network::{
        AutoDelivery, DeliveryOrder, LocalWrite, MessageFilter, Network, PeerId,
    };
    const WRITES: u32 = 16_000;
    let in_flight = || {
        let mut net = Network::new(2, 1, &Replica::new()).expect("two peers");
        for i in 0..WRITES {
            let write = LocalWrite::Put {
                entity: Entity(512 + i),
                component: Transform::COMPONENT_ID,
                data: Transform::IDENTITY.to_bytes().to_vec(),
            };
            net.write(PeerId(1), write).expect("a scene entity");
        }
        net
    };
    let mut group = c.benchmark_group("crdt/network");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(u64::from(WRITES)));
    for (name, order) in [
        ("deliver_all_16000", DeliveryOrder::Send),
        ("deliver_all_random_16000", DeliveryOrder::Random),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                in_flight,
                |mut net| {
                    let report = net.deliver_all(order, MessageFilter::ALL);
                    assert_eq!(report.delivered.len(), WRITES as usize);
                    net
                },
                BatchSize::LargeInput,
            )
        });
    }
    let mut delivered = in_flight();
    delivered.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    delivered.step_back();
    group.bench_function("step_back_after_16000", |b| {
        b.iter(|| {
            assert!(delivered.step_back() && delivered.step_forward());
        })
    });
    group.bench_function("advance_auto_16000", |b| {
        b.iter_batched(
            || {
                let mut net = in_flight();
                let auto = AutoDelivery {
                    latency: 2,
                    jitter: 8,
                };
                net.set_auto_delivery(Some(auto));
                net
            },
            |mut net| {
                let report = net.advance(20);
                assert_eq!(report.delivered.len(), WRITES as usize);
                net
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, apply, codec, network);
criterion_main!(benches);
