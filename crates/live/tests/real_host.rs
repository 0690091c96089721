//! The client against Decentraland's real data layer (`sdk-commands start --data-layer`
//! 7.28.0 from `oracle-live/`), at the protocol level: the snapshot, a write relayed byte for
//! byte, a stale write dropped, Save into main.composite, a killed and restarted host.
//! Without `oracle-live/node_modules` these fail with the command to run.

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support as support;

use std::time::Duration;

use scenetree_live::{DisconnectReason, LiveConnection, LiveEvent, LiveOptions, NotConnected};
use support::dcl_host::DclHost;
use support::wire::{self, CrdtMessage, TRANSFORM};

/// Only a guard against hanging: every wait ends as soon as its event arrives.
const WAIT: Duration = Duration::from_secs(20);

/// The Elevator, the fixture's first entity; its Transform is at x 14.8 in main.composite.
const ELEVATOR: u32 = 512;
/// Another entity with a Transform, for marker writes.
const OTHER: u32 = 513;

fn connect(host: &DclHost) -> (LiveConnection, Vec<CrdtMessage>) {
    let connection = LiveConnection::connect(&host.url(), LiveOptions::default())
        .unwrap_or_else(|e| panic!("{e}\nthe host printed:\n{}", host.log()));
    match connection.events().recv_timeout(WAIT) {
        Ok(LiveEvent::Snapshot(bytes)) => {
            let messages = wire::split(&bytes);
            (connection, messages)
        }
        other => panic!("the first event must be the snapshot, got {other:?}"),
    }
}

/// The snapshot's Transform PUT of `entity`.
fn transform(snapshot: &[CrdtMessage], entity: u32) -> CrdtMessage {
    snapshot
        .iter()
        .find(|m| {
            m.kind == wire::PUT_COMPONENT
                && m.entity() == Some(entity)
                && m.component() == Some(TRANSFORM)
        })
        .unwrap_or_else(|| panic!("the snapshot has no Transform for entity {entity}"))
        .clone()
}

/// A Transform PUT of `entity` at `timestamp`, from `base`'s value with position x = `x`.
fn transform_put(base: &CrdtMessage, timestamp: u32, x: f32) -> Vec<u8> {
    let value = wire::with_x(base.data().expect("a PUT"), x);
    wire::put(base.entity().unwrap(), TRANSFORM, timestamp, &value)
}

/// Reads events until one satisfies `found`; returns the CRDT messages of every Incoming
/// seen on the way, the matching event's included.
fn wait_for(
    connection: &LiveConnection,
    what: &str,
    mut found: impl FnMut(&LiveEvent) -> bool,
) -> Vec<CrdtMessage> {
    let mut seen = Vec::new();
    loop {
        let event = connection
            .events()
            .recv_timeout(WAIT)
            .unwrap_or_else(|e| panic!("waiting for {what}: {e}; messages seen: {seen:?}"));
        if let LiveEvent::Incoming(bytes) = &event {
            seen.extend(wire::split(bytes));
        }
        if found(&event) {
            return seen;
        }
        if let LiveEvent::Disconnected(reason) = event {
            panic!("waiting for {what}: disconnected: {reason}");
        }
    }
}

/// Waits until `connection` receives exactly `message` (byte for byte).
fn wait_for_message(connection: &LiveConnection, message: &[u8]) -> Vec<CrdtMessage> {
    wait_for(connection, "a relayed message", |event| match event {
        LiveEvent::Incoming(bytes) => wire::split(bytes).iter().any(|m| m.bytes == message),
        _ => false,
    })
}

#[test]
fn the_snapshot_is_the_whole_scene_as_crdt_messages() {
    let host = DclHost::start();
    let (_connection, snapshot) = connect(&host);
    let transforms = snapshot
        .iter()
        .filter(|m| m.kind == wire::PUT_COMPONENT && m.component() == Some(TRANSFORM))
        .count();
    assert!(transforms >= 20, "{transforms} Transforms in the snapshot");
    let elevator = transform(&snapshot, ELEVATOR);
    assert_eq!(elevator.data().unwrap().len(), 44);
    assert_eq!(wire::x_of(elevator.data().unwrap()), 14.8);
}

#[test]
fn a_write_reaches_the_other_client_byte_for_byte_and_a_stale_one_does_not() {
    let host = DclHost::start();
    let (a, snapshot) = connect(&host);
    let (b, _) = connect(&host);
    let elevator = transform(&snapshot, ELEVATOR);
    let ts = elevator.timestamp().unwrap();

    let write = transform_put(&elevator, ts + 1, 15.8);
    a.send_crdt(write.clone()).unwrap();
    wait_for_message(&b, &write);
    wait_for(&a, "the ACK of A's write", |e| {
        matches!(e, LiveEvent::Acknowledged { pending: 0, .. })
    });

    // A stale write (the snapshot's timestamp), then a fresh one on another entity: the host
    // handles one client's elements in order, so when B has the fresh one it would have had
    // the stale one before it.
    let stale = transform_put(&elevator, ts, 99.0);
    let other = transform(&snapshot, OTHER);
    let marker = transform_put(&other, other.timestamp().unwrap() + 1, 7.0);
    a.send_crdt(stale.clone()).unwrap();
    a.send_crdt(marker.clone()).unwrap();
    let seen = wait_for_message(&b, &marker);
    assert!(
        !seen.iter().any(|m| m.bytes == stale),
        "the stale write was relayed"
    );

    // And back: B's newer write reaches A as it was sent.
    let back = transform_put(&elevator, ts + 2, 16.8);
    b.send_crdt(back.clone()).unwrap();
    wait_for_message(&a, &back);
    assert!(a.close().is_ok());
    assert!(b.close().is_ok());
}

#[test]
fn writes_queued_together_all_arrive_in_order() {
    let host = DclHost::start();
    let (a, snapshot) = connect(&host);
    let (b, _) = connect(&host);
    let elevator = transform(&snapshot, ELEVATOR);
    let ts = elevator.timestamp().unwrap();
    let writes: Vec<Vec<u8>> = (1..=50)
        .map(|i| transform_put(&elevator, ts + i, 20.0 + i as f32))
        .collect();
    for write in &writes {
        a.send_crdt(write.clone()).unwrap();
    }
    a.wait_acknowledged(WAIT).unwrap();
    assert_eq!(a.pending_acks(), 0);
    let seen = wait_for_message(&b, writes.last().unwrap());
    let relayed: Vec<&[u8]> = seen
        .iter()
        .filter(|m| m.entity() == Some(ELEVATOR) && m.component() == Some(TRANSFORM))
        .map(|m| m.bytes.as_slice())
        .collect();
    // Each relayed value is one of ours, in the order written (the host may coalesce).
    let mut from = 0;
    for message in relayed {
        let at = writes[from..]
            .iter()
            .position(|w| w == message)
            .expect("a relayed message that was written, in order");
        from += at + 1;
    }
}

#[test]
fn save_writes_the_new_value_into_main_composite() {
    let host = DclHost::start();
    let (a, snapshot) = connect(&host);
    let elevator = transform(&snapshot, ELEVATOR);
    let write = transform_put(&elevator, elevator.timestamp().unwrap() + 1, 15.8);
    a.send_crdt(write).unwrap();
    a.save().unwrap();
    wait_for(&a, "Saved", |e| matches!(e, LiveEvent::Saved));
    let composite = host.composite();
    let x = composite["components"]
        .as_array()
        .expect("components")
        .iter()
        .find(|c| c["name"] == "core::Transform")
        .expect("core::Transform in main.composite")["data"][ELEVATOR.to_string()]["json"]
        ["position"]["x"]
        .as_f64()
        .expect("the Elevator's position x");
    assert_eq!(x as f32, 15.8);
}

#[test]
fn a_killed_host_is_a_disconnect_and_a_restarted_one_sends_a_fresh_snapshot() {
    let mut host = DclHost::start();
    let (a, snapshot) = connect(&host);
    let elevator = transform(&snapshot, ELEVATOR);
    a.send_crdt(transform_put(
        &elevator,
        elevator.timestamp().unwrap() + 1,
        15.8,
    ))
    .unwrap();
    a.save().unwrap();
    wait_for(&a, "Saved", |e| matches!(e, LiveEvent::Saved));

    host.kill_between_writes();
    let mut reason = None;
    wait_for(&a, "Disconnected", |e| match e {
        LiveEvent::Disconnected(why) => {
            reason = Some(why.to_string());
            matches!(why, DisconnectReason::HostClosed { .. })
        }
        _ => false,
    });
    assert!(
        reason
            .unwrap()
            .starts_with("the host closed the connection"),
        "a clear reason"
    );
    assert!(!a.is_connected());
    assert_eq!(a.send_crdt(vec![1, 2, 3]), Err(NotConnected));
    // While it is down, connecting fails with an error worth retrying.
    let down = LiveConnection::connect(&host.url(), LiveOptions::default()).unwrap_err();
    assert!(down.is_transient(), "{down:?}");

    // The app reconnects by connecting again; the new host read what was saved.
    host.restart();
    let (b, fresh) = connect(&host);
    let elevator = transform(&fresh, ELEVATOR);
    assert_eq!(wire::x_of(elevator.data().unwrap()), 15.8);
    assert!(b.close().is_ok());
}
