//! What the Peers workspace's multiplayer mode costs on a big capture: the bench capture of
//! `net_replay` (8 players of `@dcl/sdk` 7.28.0, 1,000 synced entities, 600 ticks each, 4,800
//! player ticks; made once by `oracle-net/run.mjs --preset bench` into `target/tmp/net-bench/`,
//! or `SCENETREE_NET_BENCH_CAPTURE=FILE.jsonl`).
//!
//! - `net_run/open/8p-1000e-600t`: `NetRun::from_replay` of the capture already replayed (the
//!   window replays it first: `net/replay` in `net_replay.rs`), i.e. matching every received
//!   item with the frame the model sent and running the script once;
//! - `net_run/reorder/8p-1000e-600t`: one drag in the deliveries table: the second item of a
//!   tick after mid-run moved before the first, and the whole script run again;
//! - `net_run/seek/8p-1000e-600t`: one move of the timeline to mid-run: the players and
//!   renderers there (from the nearest kept state) and the deliveries in flight, decoded.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use scenetree_core::net::capture::{Capture, replay};
use scenetree_core::net::run::{NetRun, Slot};

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

mod support;

use support::capture_path;

/// A tick after mid-run whose `sendBinary` returns at least two items.
fn busy_step(run: &NetRun) -> usize {
    (run.script().len() / 2..run.script().len())
        .find(|&step| run.inbox(step).len() >= 2)
        .expect("a tick receiving two items after mid-run")
}

fn bench(c: &mut Criterion) {
    let text = std::fs::read_to_string(capture_path()).expect("bench capture readable");
    let capture = Capture::parse(&text).expect("bench capture reads");
    let replayed = replay(&capture);
    let mut run = NetRun::from_replay(&capture, &replayed);
    let step = busy_step(&run);

    let mut group = c.benchmark_group("net_run");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("open/8p-1000e-600t", |b| {
        b.iter(|| black_box(NetRun::from_replay(&capture, &replayed)))
    });
    group.bench_function("reorder/8p-1000e-600t", |b| {
        b.iter(|| {
            // The tick's second item moves before its first (so each iteration swaps them).
            let (first, second) = (Slot::At { step, index: 0 }, Slot::At { step, index: 1 });
            run.reorder(second, first).expect("two items of one tick");
            black_box(run.generation())
        })
    });
    let middle = run.script().len() / 2;
    group.bench_function("seek/8p-1000e-600t", |b| {
        b.iter(|| {
            run.seek(middle);
            black_box((run.state(), run.in_flight()))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
