//! Against Decentraland's real data layer (`oracle-live/`): the time from a write in client A
//! to its arrival in client B (one write at a time, median and 99th percentile), and a burst
//! of 1,000 writes end to end (queued at once, until B has the last and A has every ACK).
//!
//! `cargo bench -p scenetree-live --bench live_latency` (needs `npm ci --prefix oracle-live`).
//! A plain harness: criterion's statistics are for CPU-bound loops, and the numbers wanted here
//! are percentiles of a network round trip through a Node.js process.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support as support;

use std::time::{Duration, Instant};

use scenetree_live::{LiveConnection, LiveEvent, LiveOptions};
use support::dcl_host::DclHost;
use support::wire::{self, CrdtMessage, TRANSFORM};

/// Writes timed one at a time.
const LATENCY_WRITES: u32 = 400;
/// Writes in the burst.
const BURST_WRITES: u32 = 1_000;
/// Only a guard against hanging.
const WAIT: Duration = Duration::from_secs(30);
/// The entity whose Transform is written (the fixture's Elevator).
const ENTITY: u32 = 512;

fn main() {
    // `cargo test --benches` runs bench targets too; only `cargo bench` passes `--bench`.
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let host = DclHost::start();
    let (a, snapshot) = connect(&host);
    let (b, _) = connect(&host);
    let base = snapshot
        .iter()
        .find(|m| m.entity() == Some(ENTITY) && m.component() == Some(TRANSFORM))
        .expect("the Elevator's Transform")
        .clone();
    let mut ts = base.timestamp().expect("a PUT");
    let mut next_write = |x: f32| {
        ts += 1;
        let value = wire::with_x(base.data().expect("a PUT"), x);
        wire::put(ENTITY, TRANSFORM, ts, &value)
    };

    // Warm-up: the JIT of the host and our first allocations are not the steady state.
    for i in 0..50 {
        let write = next_write(i as f32);
        a.send_crdt(write.clone()).unwrap();
        wait_for(&b, &write);
    }

    let mut latencies = Vec::with_capacity(LATENCY_WRITES as usize);
    for i in 0..LATENCY_WRITES {
        let write = next_write(100.0 + i as f32);
        let start = Instant::now();
        a.send_crdt(write.clone()).unwrap();
        wait_for(&b, &write);
        latencies.push(start.elapsed());
    }
    a.wait_acknowledged(WAIT).unwrap();
    drain(&a);
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    println!(
        "write A -> arrival B, one at a time ({LATENCY_WRITES} writes): median {:.2} ms, p99 {:.2} ms, min {:.2} ms, max {:.2} ms",
        ms(at(0.5)),
        ms(at(0.99)),
        ms(latencies[0]),
        ms(*latencies.last().unwrap()),
    );

    let writes: Vec<Vec<u8>> = (0..BURST_WRITES)
        .map(|i| next_write(1_000.0 + i as f32))
        .collect();
    let start = Instant::now();
    for write in &writes {
        a.send_crdt(write.clone()).unwrap();
    }
    let queued = start.elapsed();
    wait_for(&b, writes.last().unwrap());
    let arrived = start.elapsed();
    a.wait_acknowledged(WAIT).unwrap();
    let acknowledged = start.elapsed();
    let elements = drain(&a);
    println!(
        "burst of {BURST_WRITES} writes: queued in {:.2} ms, last one at B after {:.1} ms, all acknowledged after {:.1} ms ({:.0} writes/s), in {elements} stream elements",
        ms(queued),
        ms(arrived),
        ms(acknowledged),
        f64::from(BURST_WRITES) / acknowledged.as_secs_f64(),
    );
    drop(a);
    drop(b);
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

fn connect(host: &DclHost) -> (LiveConnection, Vec<CrdtMessage>) {
    let connection = LiveConnection::connect(&host.url(), LiveOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n{}", host.log()));
    match connection.events().recv_timeout(WAIT) {
        Ok(LiveEvent::Snapshot(bytes)) => {
            let snapshot = wire::split(&bytes);
            (connection, snapshot)
        }
        other => panic!("expected the snapshot, got {other:?}"),
    }
}

/// Waits until `connection` receives `message`, byte for byte.
fn wait_for(connection: &LiveConnection, message: &[u8]) {
    loop {
        match connection.events().recv_timeout(WAIT) {
            Ok(LiveEvent::Incoming(bytes)) if contains(&bytes, message) => return,
            Ok(LiveEvent::Disconnected(reason)) => panic!("disconnected: {reason}"),
            Ok(_) => {}
            Err(e) => panic!("no arrival within {WAIT:?}: {e}"),
        }
    }
}

/// Whether a stream element holds `message` (the element's CRDT messages split apart).
fn contains(element: &[u8], message: &[u8]) -> bool {
    wire::split(element).iter().any(|m| m.bytes == message)
}

/// Empties a connection's queued events; returns how many ACKs (stream elements) it held.
fn drain(connection: &LiveConnection) -> usize {
    std::iter::from_fn(|| connection.events().try_recv().ok())
        .filter(|e| matches!(e, LiveEvent::Acknowledged { .. }))
        .count()
}
