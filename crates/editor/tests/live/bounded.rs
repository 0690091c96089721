//! A live session's memory does not grow with the session: the network keeps no timeline
//! (the recording is on disk), the message log keeps a bounded window, a huge element is
//! handled a time slice at a time, no reply is simulated only to be dropped, and what the
//! replica refuses is said. Measured by counting what the session holds, not by timing.

use scenetree_core::crdt::network::MessageKind;
use scenetree_core::crdt::{CrdtMessage, encode_stream};
use scenetree_core::model::{Entity, Transform};
use scenetree_dcl::io::scenario::read_scenario;
use scenetree_editor::{Document, LOG_BYTES_LIMIT, LiveNote};

use crate::fake_host::FakeHost;
use crate::support::{settings, wait_for};

fn put(entity: u32, timestamp: u32, x: f32) -> CrdtMessage {
    let mut t = Transform::IDENTITY;
    t.position.x = x;
    CrdtMessage::put_transform(Entity(entity), timestamp, &t)
}

/// A name of `bytes` bytes on `entity`, at `timestamp`.
fn big_value(entity: u32, timestamp: u32, bytes: usize) -> CrdtMessage {
    CrdtMessage::PutComponent {
        entity: Entity(entity),
        component: 5000,
        timestamp,
        data: vec![b'x'; bytes],
    }
}

#[test]
fn a_long_session_keeps_no_history_in_memory_and_records_every_message_on_disk() {
    const ELEMENTS: u32 = 2_300;
    const VALUE: usize = 32 << 10;
    let snapshot = encode_stream([&put(512, 1, 0.0)]);
    let host = FakeHost::spawn(move |peer| {
        peer.handshake_with(&snapshot);
        // Every element moves 512 once more and carries a 32 KiB value: 4,600 messages and
        // 72 MiB through the session, more than the log keeps and more than may wait in the
        // connection (the session says what it took, or the host would stall).
        for i in 0..ELEMENTS {
            let element =
                encode_stream([&put(512, 2 + i, i as f32), &big_value(513, 2 + i, VALUE)]);
            peer.element(3 + i, &element);
        }
        let _ = peer.recv();
    });
    let mut doc = Document::connect_live(&host.url, settings()).expect("the fake handshake");
    let last = (ELEMENTS - 1) as f32;
    wait_for(&mut doc, "the last element", |d| {
        d.replica()
            .transform(Entity(512))
            .is_some_and(|t| t.position.x == last)
    });
    let live = doc.live().unwrap();
    // Nothing of the history stays in memory: no timeline, a bounded log.
    assert_eq!(
        live.network().events().len(),
        0,
        "the network keeps no timeline"
    );
    assert!(live.log().retained_bytes() <= LOG_BYTES_LIMIT);
    assert!(live.log().forgotten() > 0, "older log entries were let go");
    // Every message is in the recording, on disk.
    let summary = live
        .recording_summary()
        .expect("the session records")
        .clone();
    assert_eq!(summary.arrived, 2 * u64::from(ELEMENTS));
    let values = u64::from(ELEMENTS) * VALUE as u64;
    assert!(summary.bytes > values, "{} bytes recorded", summary.bytes);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.scenario.json");
    let saved = doc.save_live_recording(&path).unwrap();
    assert_eq!(saved.steps, summary.steps);
    let recording = read_scenario(&path).unwrap();
    let played = recording.run().unwrap();
    assert_eq!(
        played
            .network()
            .replica(scenetree_editor::THIS_EDITOR)
            .unwrap()
            .digest(),
        doc.replica().digest()
    );
    drop(doc);
    host.join();
}

#[test]
fn a_huge_element_is_handled_a_slice_at_a_time() {
    const MESSAGES: u32 = 200_000;
    let snapshot = encode_stream([&put(512, 1, 0.0)]);
    let element: Vec<CrdtMessage> = (0..MESSAGES).map(|i| put(512, 2 + i, i as f32)).collect();
    let element = encode_stream(&element);
    let host = FakeHost::spawn(move |peer| {
        peer.handshake_with(&snapshot);
        peer.element(3, &element);
        let _ = peer.recv();
    });
    let mut doc = Document::connect_live(&host.url, settings()).expect("the fake handshake");
    // The first poll that takes the element handles a slice of it and says more waits.
    let at = |d: &Document| d.replica().transform(Entity(512)).unwrap().position.x;
    while at(&doc) == 0.0 {
        doc.poll_live(Some(std::time::Duration::from_millis(50)));
    }
    let after_one = at(&doc);
    assert!(
        after_one < (MESSAGES - 1) as f32,
        "one poll handled all of it"
    );
    assert_eq!(
        doc.live().unwrap().next_wake(),
        Some(std::time::Duration::ZERO),
        "the rest is due at once"
    );
    let last = (MESSAGES - 1) as f32;
    wait_for(&mut doc, "the whole element", |d| at(d) == last);
    drop(doc);
    host.join();
}

#[test]
fn no_reply_is_simulated_and_refused_messages_are_said() {
    let snapshot = encode_stream([&put(512, 5, 0.0)]);
    let host = FakeHost::spawn(move |peer| {
        peer.handshake_with(&snapshot);
        // An outdated write (timestamp 3 < 5: the runtime computes a reply and drops it),
        // a Transform of 12 bytes, an APPEND for a last-writer-wins component, and a good one.
        let short = CrdtMessage::PutComponent {
            entity: Entity(513),
            component: Transform::COMPONENT_ID,
            timestamp: 1,
            data: vec![0; 12],
        };
        let append = CrdtMessage::AppendValue {
            entity: Entity(514),
            component: 5000,
            timestamp: 1,
            data: vec![1],
        };
        let element = encode_stream([&put(512, 3, 9.0), &short, &append, &put(515, 1, 4.0)]);
        peer.element(3, &element);
        let _ = peer.recv();
    });
    let mut doc = Document::connect_live(&host.url, settings()).expect("the fake handshake");
    let notes = wait_for(&mut doc, "the good message", |d| {
        d.replica().transform(Entity(515)).is_some()
    });
    let refused: Vec<&String> = (notes.iter())
        .filter_map(|n| match n {
            LiveNote::Refused(text) => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(refused.len(), 1, "one note for the element: {notes:?}");
    assert!(refused[0].contains("2 message(s)"), "{}", refused[0]);
    assert!(
        refused[0].contains("Transform of 12 bytes for entity 513"),
        "{}",
        refused[0]
    );
    assert!(
        refused[0].contains("wrong kind for component 5000"),
        "{}",
        refused[0]
    );
    // The outdated write earned no reply: nothing in flight but writes, nothing dropped.
    let live = doc.live().unwrap();
    assert!(
        live.network()
            .in_flight()
            .iter()
            .all(|m| m.kind == MessageKind::Write)
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.scenario.json");
    doc.save_live_recording(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("not sent"), "no reply was dropped: {text}");
    assert_eq!(
        doc.replica().transform(Entity(512)).unwrap().position.x,
        0.0
    );
    drop(doc);
    host.join();
}
