//! Multiplayer replay throughput, against the real SDK in the same run.
//!
//! - `net/replay/8p-1000e-600t`: `net::capture::replay` of the capture `oracle-net/run.mjs
//!   --preset bench` writes (8 players of `@dcl/sdk` 7.28.0 from round 0, 1,000 synced entities
//!   spawned 25 a tick, half of them under an entity the player knows, then 5 moves a tick per
//!   player and now and then a reparent; 600 ticks each, 4,800 player ticks), parsed once
//!   beforehand. It recovers every player's own writes from the capture and computes everything
//!   each player sent to its renderer and the network, as the SDK did. Throughput = player
//!   ticks. The setup checks that the replay reproduces every tick.
//! - `net/parse/8p-1000e-600t`: `Capture::parse` of the same capture (JSON Lines, base64).
//!
//! Then `oracle-net/bench-sdk.mjs` replays the same capture on the real SDK (every player's
//! `onUpdate` on the capture's received items, its scene re-doing its actions; bundling, each
//! player's start, the scene's own actions and the host's exchange excluded) and the bench
//! prints both times (medians of 3 runs of ours) and the ratio. It runs when no filter is given
//! or the filter contains `sdk` (`cargo bench --bench net_replay -- sdk`), and is skipped, with
//! a note, when node or `oracle-net/node_modules` is missing (`npm ci --prefix oracle-net`).
//!
//! The capture (41 MB) is made once into `target/tmp/net-bench/` by the oracle (about 4 minutes
//! on two shared cores); `SCENETREE_NET_BENCH_CAPTURE=FILE.jsonl` uses another one (with its
//! `.final.json` beside it for the SDK's side).

use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use scenetree_core::net::capture::{Capture, replay};

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

mod support;

use support::{capture_path, node_ready, oracle_dir};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn bench(c: &mut Criterion) {
    let path = capture_path();
    let text = std::fs::read_to_string(&path).expect("bench capture readable");
    let capture = Capture::parse(&text).expect("bench capture reads");
    let ticks = capture.ticks.len() as u64;
    let check = replay(&capture);
    assert_eq!(
        check.mismatched_ticks, 0,
        "the replay must reproduce every tick of the bench capture"
    );

    let mut group = c.benchmark_group("net");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(ticks));
    group.bench_function("replay/8p-1000e-600t", |b| {
        b.iter(|| black_box(replay(black_box(&capture))))
    });
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse/8p-1000e-600t", |b| {
        b.iter(|| black_box(Capture::parse(black_box(&text))))
    });
    group.finish();

    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_some_and(|f| !f.contains("sdk")) {
        return;
    }
    if !node_ready() {
        eprintln!("net/sdk: skipped (node or oracle-net/node_modules missing)");
        return;
    }
    let ours_ms = median(
        (0..3)
            .map(|_| {
                let start = Instant::now();
                black_box(replay(&capture));
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect(),
    );
    let output = Command::new("node")
        .arg(oracle_dir().join("bench-sdk.mjs"))
        .arg(&path)
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "bench-sdk.mjs failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("bench-sdk.mjs prints JSON");
    let sdk_ms = report["sdk_ms"].as_f64().expect("sdk_ms");
    let sdk_cpu_ms = report["sdk_cpu_ms"].as_f64().unwrap_or(f64::NAN);
    eprintln!(
        "net/sdk: {ticks} player ticks; @dcl/sdk 7.28.0 {sdk_ms:.0} ms (CPU {sdk_cpu_ms:.0} ms), \
         scenetree {ours_ms:.0} ms (median of 3): {:.1}× faster",
        sdk_ms / ours_ms
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
