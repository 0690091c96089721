//! Faults, against a fake host that is a real WebSocket server in the test: hosts that never
//! answer, are not data layers, send malformed or unexpected frames, refuse calls, or leave
//! mid-stream. Each gives its own typed error, never a panic or a hang. Timeouts are only
//! guards; nothing here measures time.

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support as support;

use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use scenetree_live::envelope::{self, MessageType};
use scenetree_live::{
    Call, CloseError, ConnectError, ConnectProgress, ConnectStage, DisconnectReason, FlushError,
    FrameError, LiveConnection, LiveEvent, LiveOptions, NotConnected, Phase, ProtocolError,
};
use support::fake_host::{self, FakeHost, Peer, SNAPSHOT};
use tungstenite::Message;

const WAIT: Duration = Duration::from_secs(10);

/// Whether an error is the one a case expects.
type Check = fn(&ProtocolError) -> bool;

/// Options that wait `wait` for the TCP connection and at most `wait` of silence after.
fn options(wait: Duration) -> LiveOptions {
    LiveOptions {
        connect_timeout: wait,
        stall_timeout: wait,
        ..LiveOptions::default()
    }
}

/// Connects to a fake host that played the handshake; checks the snapshot.
fn connect(host: &FakeHost) -> LiveConnection {
    let connection = LiveConnection::connect(&host.url, options(WAIT)).expect("connect");
    match connection.events().recv_timeout(WAIT) {
        Ok(LiveEvent::Snapshot(bytes)) => assert_eq!(bytes, SNAPSHOT),
        other => panic!("the snapshot first, got {other:?}"),
    }
    connection
}

/// The next event that is not an acknowledgement.
fn next_event(connection: &LiveConnection) -> LiveEvent {
    loop {
        match connection.events().recv_timeout(WAIT).expect("an event") {
            LiveEvent::Acknowledged { .. } => {}
            event => return event,
        }
    }
}

fn disconnect_reason(connection: &LiveConnection) -> DisconnectReason {
    match next_event(connection) {
        LiveEvent::Disconnected(reason) => reason,
        other => panic!("expected Disconnected, got {other:?}"),
    }
}

/// A fake host that does the handshake, then sends `frame`.
fn host_sending_after_handshake(frame: Vec<u8>) -> FakeHost {
    FakeHost::spawn(move |peer| {
        peer.handshake();
        peer.send(frame);
        while peer.recv().is_some() {}
    })
}

#[test]
fn a_host_that_accepts_but_never_answers_times_out_with_a_clear_error() {
    let (url, _silent) = fake_host::silent_host();
    let err = LiveConnection::connect(&url, options(Duration::from_millis(300))).unwrap_err();
    assert!(
        matches!(
            err,
            ConnectError::Timeout {
                stage: ConnectStage::Upgrade,
                ..
            }
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("did not answer") && message.contains("data layer"),
        "{message}"
    );
}

#[test]
fn a_websocket_that_never_says_server_ready_times_out_in_that_phase() {
    let host = FakeHost::spawn(|peer| while peer.recv().is_some() {});
    let err = LiveConnection::connect(&host.url, options(Duration::from_millis(300))).unwrap_err();
    assert!(
        matches!(
            err,
            ConnectError::Timeout {
                stage: ConnectStage::Rpc(Phase::AwaitingServerReady),
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("SERVER_READY"), "{err}");
    host.join();
}

#[test]
fn a_host_that_stops_answering_mid_handshake_says_so_without_doubting_it_is_a_data_layer() {
    // SERVER_READY came, so it is a data layer; then CREATE_PORT goes unanswered.
    let host = FakeHost::spawn(|peer| {
        peer.send(envelope::encode_server_ready());
        while peer.recv().is_some() {}
    });
    let err = LiveConnection::connect(&host.url, options(Duration::from_millis(300))).unwrap_err();
    assert!(
        matches!(
            err,
            ConnectError::Timeout {
                stage: ConnectStage::Rpc(Phase::CreatingPort),
                ..
            }
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("stopped answering the handshake"),
        "{message}"
    );
    assert!(!message.contains("is it a"), "{message}");
    host.join();
}

/// A snapshot of `len` bytes, different at every byte so a mix-up would show.
fn big_snapshot(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 251) as u8).collect()
}

#[test]
fn a_snapshot_is_joined_however_long_it_takes_while_bytes_keep_coming_and_progress_shows_it() {
    // The host may be silent 800 ms at most; the snapshot comes after 200 ms of silence, in
    // 40 pieces 40 ms apart (as a large scene's does from the real host), 1.8 s in all.
    let snapshot = big_snapshot(1 << 20);
    let sent = snapshot.clone();
    let host = FakeHost::spawn(move |peer| {
        peer.open_stream();
        std::thread::sleep(Duration::from_millis(200));
        peer.element_slowly(1, &sent, 40, Duration::from_millis(40));
        peer.element(2, b"");
        while peer.recv().is_some() {}
    });
    let progress = ConnectProgress::new();
    let options = LiveOptions {
        progress: Some(progress.clone()),
        ..options(Duration::from_millis(800))
    };
    let connection = LiveConnection::connect(&host.url, options).expect("joined");
    match connection.events().recv_timeout(WAIT) {
        Ok(LiveEvent::Snapshot(bytes)) => assert!(bytes == snapshot, "the snapshot arrived whole"),
        other => panic!("the snapshot first, got {other:?}"),
    }
    let status = progress.status().expect("the attempt reported");
    assert_eq!(status.stage, ConnectStage::Rpc(Phase::AwaitingFirstTick));
    assert!(status.bytes > 1 << 20, "{status}");
    // SERVER_READY, the port, the module, the offer, the pull, the snapshot, the tick.
    assert_eq!(status.messages, 7, "{status}");
    assert!(status.to_string().contains("MB received"), "{status}");
    connection.close().expect("closed");
    host.join();
}

#[test]
fn a_host_busy_before_it_answers_the_upgrade_is_waited_for() {
    // A host building another client's snapshot answers nobody for a while: here 600 ms,
    // twice the TCP connection's limit, well within the limit on silence.
    let host = FakeHost::raw(|stream| {
        std::thread::sleep(Duration::from_millis(600));
        let ws = tungstenite::accept(stream).expect("the client's WebSocket upgrade");
        let mut peer = Peer { ws };
        peer.handshake();
        while peer.recv().is_some() {}
    });
    let options = LiveOptions {
        connect_timeout: Duration::from_millis(300),
        stall_timeout: WAIT,
        ..LiveOptions::default()
    };
    let connection = LiveConnection::connect(&host.url, options).expect("joined");
    match connection.events().recv_timeout(WAIT) {
        Ok(LiveEvent::Snapshot(bytes)) => assert_eq!(bytes, SNAPSHOT),
        other => panic!("the snapshot first, got {other:?}"),
    }
    connection.close().expect("closed");
    host.join();
}

#[test]
fn a_snapshot_that_stops_coming_fails_saying_how_much_came() {
    let snapshot = big_snapshot(100_000);
    let host = FakeHost::spawn(move |peer| {
        peer.open_stream();
        peer.element_cut(1, &snapshot, 60_000);
        // Silent from here, the connection open, until the client gives up.
        while peer.recv().is_some() {}
    });
    let err = LiveConnection::connect(&host.url, options(Duration::from_millis(300))).unwrap_err();
    match &err {
        ConnectError::Stalled {
            stage, received, ..
        } => {
            assert_eq!(*stage, ConnectStage::Rpc(Phase::AwaitingSnapshot));
            assert!(*received >= 60_000, "{received}");
        }
        other => panic!("expected Stalled, got {other:?}"),
    }
    assert!(err.is_transient(), "a stalled host may do better next time");
    let message = err.to_string();
    assert!(
        message.contains("stopped sending while waiting for the scene snapshot")
            && message.contains("kB from it"),
        "{message}"
    );
    assert!(!message.contains("is it a"), "{message}");
    host.join();
}

#[test]
fn an_http_server_that_does_not_upgrade_is_not_a_data_layer() {
    let host = fake_host::http_host("HTTP/1.1 404 Not Found");
    let err = LiveConnection::connect(&host.url, options(WAIT)).unwrap_err();
    assert!(
        matches!(err, ConnectError::NotADataLayer { status: 404, .. }),
        "{err:?}"
    );
    host.join();
}

#[test]
fn nothing_listening_is_unreachable() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("ws://127.0.0.1:{port}/data-layer");
    let err = LiveConnection::connect(&url, options(WAIT)).unwrap_err();
    assert!(matches!(err, ConnectError::Unreachable { .. }), "{err:?}");
}

#[test]
fn a_remote_host_is_refused_unless_allowed() {
    let err = LiveConnection::connect("ws://192.0.2.1:8000/data-layer", LiveOptions::default())
        .unwrap_err();
    assert!(
        matches!(err, ConnectError::RemoteNotAllowed { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("no authentication"), "{err}");
}

#[test]
fn malformed_frames_and_frames_before_server_ready_fail_the_handshake() {
    let cases: [(Vec<u8>, Check); 3] = [
        (vec![0xff, 0xff, 0xff], |e| {
            matches!(
                e,
                ProtocolError::Frame(FrameError::Malformed { len: 3, .. })
            )
        }),
        (vec![0x0d, 0x00, 0x00, 0x00, 0x78], |e| {
            matches!(
                e,
                ProtocolError::Frame(FrameError::UnknownType { raw_type: 15, .. })
            )
        }),
        (envelope::encode_stream_ack(3, 1, 0), |e| {
            matches!(e, ProtocolError::BeforeServerReady { got: "STREAM_ACK" })
        }),
    ];
    for (frame, expected) in cases {
        let host = FakeHost::spawn(move |peer| {
            peer.send(frame);
            while peer.recv().is_some() {}
        });
        match LiveConnection::connect(&host.url, options(WAIT)) {
            Err(ConnectError::Protocol { source, .. }) => assert!(expected(&source), "{source:?}"),
            other => panic!("{other:?}"),
        }
        host.join();
    }
}

#[test]
fn a_remote_error_during_the_handshake_names_the_call() {
    let host = FakeHost::spawn(|peer| {
        peer.send(envelope::encode_server_ready());
        let create = peer.expect(MessageType::CreatePort);
        peer.send(fake_host::remote_error(
            create.number(),
            "cannot create port",
        ));
        while peer.recv().is_some() {}
    });
    match LiveConnection::connect(&host.url, options(WAIT)) {
        Err(ConnectError::Remote { source, .. }) => {
            assert_eq!(source.call, Call::CreatePort);
            assert_eq!(source.message, "cannot create port");
        }
        other => panic!("{other:?}"),
    }
    host.join();
}

#[test]
fn bad_frames_after_the_snapshot_disconnect_with_their_error() {
    let truncated = {
        let mut frame =
            envelope::encode_stream_message(4, 1, 3, envelope::encode_crdt_payload(vec![1; 68]));
        frame.truncate(20);
        frame
    };
    let cases: [(Vec<u8>, Check); 4] = [
        (truncated, |e| {
            matches!(e, ProtocolError::Frame(FrameError::Malformed { .. }))
        }),
        (vec![0x0d, 0x01, 0x00, 0x00, 0x60], |e| {
            matches!(
                e,
                ProtocolError::Frame(FrameError::UnknownType { raw_type: 12, .. })
            )
        }),
        (envelope::encode_stream_message(42, 1, 1, Vec::new()), |e| {
            matches!(e, ProtocolError::UnknownMessageNumber { number: 42, .. })
        }),
        (envelope::encode_close_stream(4, 1, 2), |e| {
            matches!(e, ProtocolError::StreamClosed { .. })
        }),
    ];
    for (frame, expected) in cases {
        let host = host_sending_after_handshake(frame);
        let connection = connect(&host);
        match disconnect_reason(&connection) {
            DisconnectReason::Protocol(error) => assert!(expected(&error), "{error:?}"),
            other => panic!("{other:?}"),
        }
        assert!(!connection.is_connected());
        assert_eq!(connection.send_crdt(vec![1]), Err(NotConnected));
        drop(connection);
        host.join();
    }
}

#[test]
fn a_text_frame_is_a_protocol_error() {
    let host = FakeHost::spawn(|peer| {
        peer.handshake();
        peer.ws.send(Message::text("hello")).unwrap();
        while peer.recv().is_some() {}
    });
    let connection = connect(&host);
    let reason = disconnect_reason(&connection);
    assert!(
        matches!(
            reason,
            DisconnectReason::Protocol(ProtocolError::Frame(FrameError::Text { len: 5 }))
        ),
        "{reason:?}"
    );
    drop(connection);
    host.join();
}

#[test]
fn a_failed_save_is_an_event_and_the_connection_goes_on() {
    let host = FakeHost::spawn(|peer| {
        peer.handshake();
        let save = peer.expect(MessageType::Request);
        peer.send(fake_host::remote_error(
            save.number(),
            "EACCES: permission denied",
        ));
        let (seq, data) = peer.write();
        assert_eq!((seq, data.as_slice()), (1, &b"after"[..]));
        peer.pull(1);
        while peer.recv().is_some() {}
    });
    let connection = connect(&host);
    connection.save().unwrap();
    match next_event(&connection) {
        LiveEvent::RemoteError(error) => {
            assert_eq!(error.call, Call::Save);
            assert!(error.to_string().contains("DataService.Save"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    connection.send_crdt(b"after".to_vec()).unwrap();
    connection.wait_acknowledged(WAIT).unwrap();
    assert!(connection.close().is_ok());
    host.join();
}

#[test]
fn writes_wait_for_the_hosts_pull_and_go_out_batched() {
    let (go_tx, go) = mpsc::channel::<()>();
    let host = FakeHost::spawn(move |peer| {
        peer.handshake();
        assert_eq!(peer.write(), (1, b"one".to_vec()));
        // No pull yet: the client must hold "two" and "three". Our next element's ACK comes
        // after anything it would have sent before it.
        go.recv().unwrap();
        peer.element(3, b"from another client");
        peer.pull(1);
        assert_eq!(peer.write(), (2, b"twothree".to_vec()));
        peer.pull(2);
        while peer.recv().is_some() {}
    });
    let connection = connect(&host);
    connection.send_crdt(b"one".to_vec()).unwrap();
    connection.send_crdt(b"two".to_vec()).unwrap();
    connection.send_crdt(b"three".to_vec()).unwrap();
    go_tx.send(()).unwrap();
    match next_event(&connection) {
        LiveEvent::Incoming(bytes) => assert_eq!(bytes, b"from another client"),
        other => panic!("{other:?}"),
    }
    connection.wait_acknowledged(WAIT).unwrap();
    assert_eq!(connection.pending_acks(), 0);
    assert!(connection.close().is_ok());
    host.join();
}

#[test]
fn a_host_that_drops_mid_stream_leaves_the_unacknowledged_writes_counted() {
    let host = FakeHost::spawn(|peer| {
        peer.handshake();
        peer.write();
        // Gone without an ACK or a WebSocket close, as a killed process.
        let _ = peer.ws.get_mut().shutdown(std::net::Shutdown::Both);
    });
    let connection = connect(&host);
    connection.send_crdt(b"lost?".to_vec()).unwrap();
    let reason = disconnect_reason(&connection);
    assert!(
        matches!(reason, DisconnectReason::HostClosed { code: None, .. }),
        "{reason:?}"
    );
    assert_eq!(connection.pending_acks(), 1);
    assert_eq!(
        connection.wait_acknowledged(WAIT),
        Err(FlushError::Disconnected { pending: 1 })
    );
    assert_eq!(connection.close(), Err(CloseError { pending: 1 }));
    host.join();
}

#[test]
fn a_host_that_closes_the_websocket_gives_its_code() {
    let host = FakeHost::spawn(|peer| {
        peer.handshake();
        let frame = tungstenite::protocol::CloseFrame {
            code: tungstenite::protocol::frame::coding::CloseCode::Away,
            reason: "restarting".into(),
        };
        peer.ws.close(Some(frame)).unwrap();
        while peer.recv().is_some() {}
    });
    let connection = connect(&host);
    let reason = disconnect_reason(&connection);
    assert!(
        matches!(&reason, DisconnectReason::HostClosed { code: Some(1001), reason } if reason == "restarting"),
        "{reason:?}"
    );
    assert_eq!(
        reason.to_string(),
        "the host closed the connection (code 1001: restarting)"
    );
    host.join();
}

#[test]
fn close_ends_the_streams_destroys_the_port_and_closes_the_websocket() {
    let (frames_tx, frames) = mpsc::channel();
    let host = FakeHost::spawn(move |peer: &mut Peer| {
        peer.handshake();
        let (seq, _) = peer.write();
        peer.pull(seq);
        let mut after = Vec::new();
        while let Ok(message) = peer.ws.read() {
            match message {
                Message::Binary(bytes) => after.push(bytes.to_vec()),
                Message::Close(_) => {
                    after.push(b"websocket close".to_vec());
                }
                _ => {}
            }
        }
        frames_tx.send(after).unwrap();
    });
    let connection = connect(&host);
    connection.send_crdt(b"last write".to_vec()).unwrap();
    assert!(connection.close().is_ok(), "the write was acknowledged");
    host.join();
    let after = frames.recv().unwrap();
    assert_eq!(
        after,
        [
            envelope::encode_close_stream(3, 1, 1),
            envelope::encode_close_stream(4, 1, 2),
            envelope::encode_destroy_port(1),
            b"websocket close".to_vec(),
        ]
    );
}
