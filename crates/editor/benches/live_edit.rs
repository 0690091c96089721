//! Two scenetree documents on Decentraland's real data layer (`oracle-live/`), measured at the
//! editor's level: an edit in window A (`Document::apply`, which writes, checks and sends) until
//! window B's replica holds it (median and 99th percentile); a burst of 1,000 edits until B has
//! the last and A every acknowledgement; and what one UI frame's live work costs (an edit and a
//! poll) with the host answering and with the host frozen (SIGSTOP), to show the frame never
//! waits on the network.
//!
//! `cargo bench --bench live_edit` (needs `npm ci --prefix oracle-live`). A plain harness, as
//! the live crate's bench: these are percentiles of round trips through a Node.js process.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::dcl_host;

use std::time::{Duration, Instant};

use scenetree_core::model::Entity;
use scenetree_editor::{Command, Direction, Document, LinkState, LiveSettings};

use dcl_host::DclHost;

/// Edits timed one at a time.
const LATENCY_EDITS: u32 = 300;
/// Edits in the burst.
const BURST_EDITS: u32 = 1_000;
/// Frames timed with the host answering, and frozen.
const FRAMES: u32 = 300;
/// Only a guard against hanging.
const WAIT: Duration = Duration::from_secs(60);
/// The fixture's Elevator.
const ENTITY: Entity = Entity(512);

fn main() {
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let host = DclHost::start();
    let settings = LiveSettings {
        connect_timeout: Some(Duration::from_secs(15)),
        ..LiveSettings::default()
    };
    let mut a = Document::connect_live(&host.url(), settings.clone()).expect("A connects");
    let mut b = Document::connect_live(&host.url(), settings).expect("B connects");

    for i in 0..50 {
        edit_and_wait(&mut a, &mut b, i as f32);
    }
    let latencies: Vec<Duration> = (0..LATENCY_EDITS)
        .map(|i| edit_and_wait(&mut a, &mut b, 100.0 + i as f32))
        .collect();
    let [median, p99, max] = spread(latencies);
    println!(
        "edit in A → in B's replica: median {median:.2} ms, p99 {p99:.2} ms, max {max:.2} ms over {LATENCY_EDITS} edits"
    );

    // The burst: 1,000 edits as fast as the editor takes them (one command each), polling A
    // between them as the window's frames would.
    let logged = a.live().unwrap().log().len();
    let start = Instant::now();
    let last = 5_000.0 + BURST_EDITS as f32;
    for i in 1..=BURST_EDITS {
        move_x(&mut a, 5_000.0 + i as f32);
        a.poll_live(None);
    }
    let made = start.elapsed();
    // A goes on polling, as its window's frames would: its queued writes leave only then.
    wait_both(&mut a, &mut b, |b| x_of(b) == last);
    let arrived = start.elapsed();
    wait(&mut a, |a| a.live().unwrap().waiting() == 0);
    let acknowledged = start.elapsed();
    // Messages out, and the stream elements they went in (one element's share a time).
    let out: Vec<Duration> = (a.live().unwrap().log().entries().iter().skip(logged))
        .filter(|e| e.direction == Direction::Out)
        .map(|e| e.at)
        .collect();
    let mut elements = out.clone();
    elements.dedup();
    println!(
        "burst of {BURST_EDITS} edits: made in {:.1} ms, the last in B after {:.1} ms, all \
         acknowledged after {:.1} ms ({:.0} edits/s); {} messages in {} stream elements \
         (a register's writes while an element waits go as one message)",
        ms(made),
        ms(arrived),
        ms(acknowledged),
        BURST_EDITS as f64 / acknowledged.as_secs_f64(),
        out.len(),
        elements.len()
    );

    // One frame's live work: an edit (write, check, send) and a poll, the host answering.
    let answering = frames(&mut a, 10_000.0);
    wait(&mut a, |a| a.live().unwrap().waiting() == 0);
    host.pause();
    let frozen = frames(&mut a, 20_000.0);
    let waiting = a.live().unwrap().waiting();
    host.resume();
    wait(&mut a, |a| a.live().unwrap().waiting() == 0);
    for (label, times) in [("host answering", answering), ("host frozen", frozen)] {
        let [median, p99, max] = spread(times);
        println!(
            "frame's live work ({label}): median {median:.3} ms, p99 {p99:.3} ms, max {max:.3} ms over {FRAMES} frames"
        );
    }
    println!(
        "with the host frozen the edits queued ({waiting} message(s) waiting, one element in flight) and went out once it answered"
    );
}

/// The median, 99th percentile and maximum of `times`, in milliseconds.
fn spread(mut times: Vec<Duration>) -> [f64; 3] {
    times.sort();
    let at = |p: f64| ms(times[((times.len() - 1) as f64 * p).round() as usize]);
    [at(0.5), at(0.99), at(1.0)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn x_of(doc: &Document) -> f32 {
    doc.replica()
        .transform(ENTITY)
        .map_or(f32::NAN, |t| t.position.x)
}

fn move_x(doc: &mut Document, x: f32) {
    let mut t = doc.replica().transform(ENTITY).expect("the Elevator");
    t.position.x = x;
    doc.apply(Command::SetTransforms(vec![(ENTITY, t)]))
        .expect("the move applies");
}

/// One edit in A, timed until B's replica holds it.
fn edit_and_wait(a: &mut Document, b: &mut Document, x: f32) -> Duration {
    let start = Instant::now();
    move_x(a, x);
    wait(b, |b| x_of(b) == x);
    let took = start.elapsed();
    // A takes its acknowledgement before the next edit, as between two drags.
    wait(a, |a| a.live().unwrap().waiting() == 0);
    took
}

fn wait(doc: &mut Document, done: impl FnMut(&Document) -> bool) {
    let mut notes = Vec::new();
    assert!(
        doc.poll_live_until(WAIT, done, &mut notes),
        "timed out; notes {notes:?}"
    );
    assert_eq!(doc.live().unwrap().state(), LinkState::Connected);
}

/// Polls `a` and `b` in turn, as two windows' frames would, until `done` holds for `b`.
fn wait_both(a: &mut Document, b: &mut Document, mut done: impl FnMut(&Document) -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done(b) {
        assert!(Instant::now() < deadline, "timed out");
        a.poll_live(None);
        b.poll_live(Some(Duration::from_micros(200)));
    }
}

/// The live part of `FRAMES` frames: an edit and a poll each, timed.
fn frames(doc: &mut Document, from: f32) -> Vec<Duration> {
    (0..FRAMES)
        .map(|i| {
            let start = Instant::now();
            move_x(doc, from + i as f32);
            doc.poll_live(None);
            start.elapsed()
        })
        .collect()
}
