//! Hosts that misbehave: a fake data layer sending bytes that are not CRDT messages or frames
//! that are not `@dcl/rpc`, a host that never answers, a host frozen mid-session. No panic,
//! nothing typed is lost, and every failure says what happened.

use std::time::Duration;

use scenetree_core::crdt::{CrdtMessage, encode_stream};
use scenetree_core::model::{Entity, Transform};
use scenetree_editor::{Document, LinkState, LiveError, LiveNote, LiveSettings};
use scenetree_live::ConnectError;

use crate::dcl_host::DclHost;
use crate::fake_host::{FakeHost, silent_host};
use crate::support::{ELEVATOR, move_x, open, settings, transform, wait_acknowledged, wait_for};

fn put(entity: u32, x: f32) -> CrdtMessage {
    let mut t = Transform::IDENTITY;
    t.position.x = x;
    CrdtMessage::put_transform(Entity(entity), 1, &t)
}

#[test]
fn bytes_that_are_not_crdt_messages_are_skipped_and_said() {
    let snapshot = encode_stream([&put(512, 1.0)]);
    let host = FakeHost::spawn(move |peer| {
        peer.handshake_with(&snapshot);
        // One good message, then a header claiming more bytes than there are.
        let mut element = encode_stream([&put(513, 2.0)]);
        element.extend_from_slice(&[200, 0, 0, 0, 1, 0, 0, 0, 7, 7]);
        peer.element(3, &element);
        // Then a frame that is no @dcl/rpc message at all.
        peer.send(vec![0xff, 0xff, 0xff]);
        let _ = peer.recv();
    });
    let mut doc = Document::connect_live(&host.url, settings()).expect("the fake handshake");
    assert_eq!(transform(&doc, Entity(512)).position.x, 1.0);
    // The good message arrives, the rest of its element is skipped and said, and the
    // broken frame ends the connection with its reason.
    let mut notes = wait_for(&mut doc, "the good message", |d| {
        d.replica().transform(Entity(513)).is_some()
    });
    notes.extend(wait_for(&mut doc, "the broken frame", |d| {
        d.live().unwrap().state() != LinkState::Connected
    }));
    assert!(
        notes
            .iter()
            .any(|n| matches!(n, LiveNote::Problem(p) if p.contains("not CRDT messages"))),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| matches!(n, LiveNote::Disconnected(r) if r.contains("protocol"))),
        "{notes:?}"
    );
    // The document stays, and edits go on offline.
    assert_ne!(doc.live().unwrap().state(), LinkState::Connected);
    move_x(&mut doc, Entity(512), 3.0);
    assert_eq!(transform(&doc, Entity(512)).position.x, 3.0);
    assert_eq!(doc.live().unwrap().waiting(), 1);
    assert!(doc.is_modified());
    host.join();
}

#[test]
fn a_snapshot_that_is_not_crdt_is_refused_with_a_clear_message() {
    let host = FakeHost::spawn(|peer| {
        peer.handshake();
        let _ = peer.recv();
    });
    match Document::connect_live(&host.url, settings()) {
        Err(LiveError::Snapshot { reason, .. }) => assert!(reason.contains("at byte"), "{reason}"),
        other => panic!("expected a snapshot error, got {:?}", other.map(|_| ())),
    }
    host.join();
}

#[test]
fn a_host_that_never_answers_fails_with_a_timeout() {
    let (url, _thread) = silent_host();
    let quick = LiveSettings {
        connect_timeout: Some(Duration::from_millis(500)),
        ..LiveSettings::default()
    };
    match Document::connect_live(&url, quick) {
        Err(LiveError::Connect(e @ ConnectError::Timeout { .. })) => {
            assert!(e.to_string().contains(&url), "{e}")
        }
        other => panic!("expected a timeout, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn a_frozen_host_never_blocks_editing_and_catches_up() {
    let host = DclHost::start();
    let mut doc = open(&host);
    host.pause();
    for i in 0..50 {
        move_x(&mut doc, ELEVATOR, 20.0 + i as f32);
        doc.poll_live(None);
    }
    // One element went out and waits; the 49 moves after it are one queued message.
    let live = doc.live().unwrap();
    assert_eq!(live.state(), LinkState::Connected);
    assert_eq!(live.waiting(), 2);
    host.resume();
    wait_acknowledged(&mut doc);
    let fresh = open(&host);
    assert_eq!(transform(&fresh, ELEVATOR).position.x, 69.0);
}
