//! The session against the host's captured frames, then every rule of the handshake, the
//! stop-and-wait credit and the error paths, byte for byte.

use super::*;
use crate::envelope::tests::{INSPECTOR_7_36_3, hex, module_response, with_text};
use crate::envelope::{MessageType, message_identifier};

pub(super) fn transmitted(session: &mut Session) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| session.poll_transmit()).collect()
}

pub(super) fn events(session: &mut Session) -> Vec<LiveEvent> {
    std::iter::from_fn(|| session.poll_event()).collect()
}

/// A 68-byte SDK7 PUT_COMPONENT of a Transform at x (entity 512, timestamp `ts`).
pub(super) fn transform_put(ts: u32, x: f32) -> Vec<u8> {
    let mut put = Vec::new();
    for word in [68u32, 1, 512, 1, ts, 44] {
        put.extend_from_slice(&word.to_le_bytes());
    }
    for value in [x, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0] {
        put.extend_from_slice(&value.to_le_bytes());
    }
    put.extend_from_slice(&0u32.to_le_bytes());
    put
}

/// A host → client element `seq` on stream #4 holding `crdt`.
pub(super) fn element(seq: u32, crdt: &[u8]) -> Vec<u8> {
    envelope::encode_stream_message(4, 1, seq, envelope::encode_crdt_payload(crdt.to_vec()))
}

pub(super) const OFFER: &str = "0d 04000018 15 01000000";
pub(super) const PULL_0: &str = "0d 03000020 15 01000000 40 01";

pub(super) fn pull(seq: u32) -> Vec<u8> {
    envelope::encode_stream_ack(3, 1, seq)
}

/// The captured handshake's frames from the host, up to its offer and first pull.
pub(super) fn handshake_frames() -> [Vec<u8>; 5] {
    [
        hex("0d 00000058"),
        hex("0d 01000030 15 01000000"),
        module_response(2, &INSPECTOR_7_36_3),
        hex(OFFER),
        hex(PULL_0),
    ]
}

/// A session taken through the captured handshake to [`Phase::Open`], with the snapshot
/// consumed and nothing left to send.
pub(super) fn open_session() -> Session {
    let mut s = Session::new();
    let snapshot = [element(1, b"snapshot"), element(2, b"")];
    for frame in handshake_frames().into_iter().chain(snapshot) {
        s.receive(&frame).unwrap();
    }
    transmitted(&mut s);
    events(&mut s);
    assert_eq!(s.phase(), Phase::Open);
    s
}

#[test]
fn the_captured_handshake_sends_the_captured_frames() {
    let mut s = Session::new();
    assert!(transmitted(&mut s).is_empty(), "the host speaks first");
    s.receive(&hex("0d 00000058")).unwrap();
    assert_eq!(
        transmitted(&mut s),
        [with_text("0d 01000028 22 09", "scene-ctx")]
    );
    s.receive(&hex("0d 01000030 15 01000000")).unwrap();
    assert_eq!(
        transmitted(&mut s),
        [with_text("0d 02000038 15 01000000 22 0b", "DataService")]
    );
    assert_eq!(s.phase(), Phase::LoadingModule);
    s.receive(&module_response(2, &INSPECTOR_7_36_3)).unwrap();
    assert_eq!(
        transmitted(&mut s),
        [hex("0d 04000008 15 01000000 25 01000000 2d 03000000")]
    );
    s.receive(&hex(OFFER)).unwrap();
    assert_eq!(transmitted(&mut s), [hex("0d 04000020 15 01000000 40 01")]);
    assert_eq!(s.phase(), Phase::AwaitingSnapshot);
    s.receive(&hex(PULL_0)).unwrap();
    assert!(
        transmitted(&mut s).is_empty(),
        "credit, but nothing to send"
    );

    let snapshot: Vec<u8> = (0..32_408u32).map(|i| i as u8).collect();
    let mut frame = hex("0d 04000018 15 01000000 25 01000000 32 9cfd01 0a 98fd01");
    frame.extend_from_slice(&snapshot);
    s.receive(&frame).unwrap();
    assert_eq!(
        transmitted(&mut s),
        [hex("0d 04000020 15 01000000 25 01000000 40 01")]
    );
    assert!(
        events(&mut s).is_empty(),
        "the snapshot waits for the first tick"
    );
    assert_eq!(s.phase(), Phase::AwaitingFirstTick);
    // The host's first tick: the 220-byte SceneMetadata PUT of the capture, then the snapshot.
    let tick = vec![0x33; 220];
    s.receive(&element(2, &tick)).unwrap();
    assert_eq!(transmitted(&mut s), [envelope::encode_stream_ack(4, 1, 2)]);
    let got = events(&mut s);
    let whole = [snapshot, tick].concat();
    assert!(matches!(&got[..], [LiveEvent::Snapshot(bytes)] if *bytes == whole));
    assert_eq!(s.phase(), Phase::Open);

    // Our write, with the credit of the host's first pull.
    let put = transform_put(2, 15.8);
    s.send_crdt(put.clone()).unwrap();
    let mut expected = hex("0d 03000018 15 01000000 25 01000000 32 46 0a 44");
    expected.extend_from_slice(&put);
    assert_eq!(transmitted(&mut s), [expected]);
    assert_eq!(s.pending(), 1);
}

#[test]
fn procedures_are_found_by_name_in_any_order() {
    // js-sdk-toolchain's older DataService: no GetUndoRedoState, Save is procedure 10.
    let older = [
        "CrdtStream",
        "Undo",
        "Redo",
        "getFiles",
        "saveFile",
        "GetAssetCatalog",
        "GetAssetData",
        "ImportAsset",
        "RemoveAsset",
        "Save",
    ];
    let mut reversed = older;
    reversed.reverse(); // CrdtStream is procedure 10, Save 1
    for (names, crdt_stream, save) in [(&older, 1u32, 10u32), (&reversed, 10, 1)] {
        let mut s = Session::new();
        s.receive(&hex("0d 00000058")).unwrap();
        s.receive(&hex("0d 01000030 15 01000000")).unwrap();
        transmitted(&mut s);
        s.receive(&module_response(2, names)).unwrap();
        let request = envelope::encode_request(4, 1, crdt_stream, 3, Vec::new());
        assert_eq!(transmitted(&mut s), [request]);
        s.save().unwrap();
        let save_request = envelope::encode_request(5, 1, save, 0, Vec::new());
        assert_eq!(transmitted(&mut s), [save_request]);
    }
}

#[test]
fn a_module_without_save_is_a_missing_procedure() {
    let mut s = Session::new();
    s.receive(&hex("0d 00000058")).unwrap();
    s.receive(&hex("0d 01000030 15 01000000")).unwrap();
    let err = s
        .receive(&module_response(2, &["CrdtStream", "Undo"]))
        .unwrap_err();
    match err {
        ProtocolError::MissingProcedure {
            procedure,
            available,
        } => {
            assert_eq!(procedure, "Save");
            assert_eq!(available, "CrdtStream, Undo");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.phase(), Phase::Failed);
    assert!(matches!(s.receive(&hex(OFFER)), Err(ProtocolError::Ended)));
}

#[test]
fn writes_wait_for_credit_and_batch_into_one_element() {
    let mut s = Session::new();
    s.send_crdt(b"early".to_vec()).unwrap();
    for frame in [
        hex("0d 00000058"),
        hex("0d 01000030 15 01000000"),
        module_response(2, &INSPECTOR_7_36_3),
        hex(OFFER),
    ] {
        s.receive(&frame).unwrap();
    }
    transmitted(&mut s);
    s.send_crdt(b"-two".to_vec()).unwrap();
    assert!(transmitted(&mut s).is_empty(), "no pull yet, no credit");
    s.receive(&hex(PULL_0)).unwrap();
    let payload = envelope::encode_crdt_payload(b"early-two".to_vec());
    let first = envelope::encode_stream_message(3, 1, 1, payload);
    assert_eq!(transmitted(&mut s), [first]);
    assert_eq!(s.pending(), 2);

    s.send_crdt(b"three".to_vec()).unwrap();
    s.send_crdt(b"-four".to_vec()).unwrap();
    s.send_crdt(Vec::new()).unwrap(); // empty writes are not writes
    assert!(
        transmitted(&mut s).is_empty(),
        "one element in flight at a time"
    );
    assert_eq!(s.pending(), 4);

    s.receive(&pull(1)).unwrap();
    let payload = envelope::encode_crdt_payload(b"three-four".to_vec());
    let second = envelope::encode_stream_message(3, 1, 2, payload);
    assert_eq!(transmitted(&mut s), [second]);
    let got = events(&mut s);
    assert!(
        matches!(
            got[..],
            [LiveEvent::Acknowledged {
                writes: 2,
                pending: 2
            }]
        ),
        "{got:?}"
    );
    s.receive(&pull(2)).unwrap();
    assert!(matches!(
        events(&mut s)[..],
        [LiveEvent::Acknowledged {
            writes: 2,
            pending: 0
        }]
    ));
    assert_eq!(s.pending(), 0);
}

#[test]
fn batches_stop_at_the_item_size_limit() {
    let mut s = open_session();
    // Spend the credit so the next writes queue up.
    s.send_crdt(vec![1]).unwrap();
    transmitted(&mut s);
    let half = vec![2u8; MAX_ITEM_BYTES / 2 + 1];
    s.send_crdt(half.clone()).unwrap();
    s.send_crdt(half.clone()).unwrap();
    s.receive(&pull(1)).unwrap();
    let sent = transmitted(&mut s);
    assert_eq!(sent.len(), 1);
    let expected = envelope::encode_stream_message(3, 1, 2, envelope::encode_crdt_payload(half));
    assert_eq!(sent[0], expected, "only the first half fits");
    assert_eq!(s.pending(), 2);
}

#[test]
fn host_elements_are_acknowledged_and_empty_ones_not_reported() {
    let mut s = open_session();
    s.receive(&element(3, b"")).unwrap();
    s.receive(&element(4, b"remote put")).unwrap();
    assert_eq!(
        transmitted(&mut s),
        [
            envelope::encode_stream_ack(4, 1, 3),
            envelope::encode_stream_ack(4, 1, 4)
        ]
    );
    let got = events(&mut s);
    assert!(
        matches!(&got[..], [LiveEvent::Incoming(b)] if b == b"remote put"),
        "{got:?}"
    );
}

#[test]
fn with_an_incoming_limit_the_credit_waits_until_the_app_took_enough() {
    let mut s = open_session();
    s.set_incoming_limit(Some(100));
    let data = [7u8; 60];
    // 60 bytes wait: within the limit, acknowledged at once.
    s.receive(&element(3, &data)).unwrap();
    assert_eq!(transmitted(&mut s), [envelope::encode_stream_ack(4, 1, 3)]);
    // 120 wait: the host gets no credit for its next element.
    s.receive(&element(4, &data)).unwrap();
    assert!(transmitted(&mut s).is_empty());
    assert!(s.holds_ack());
    assert_eq!((s.incoming_held(), events(&mut s).len()), (120, 2));
    // The app took one element: 60 wait, and the credit goes.
    s.took(60);
    assert_eq!(transmitted(&mut s), [envelope::encode_stream_ack(4, 1, 4)]);
    assert!(!s.holds_ack());
    // Without a limit nothing is held, however much waits.
    let mut open = open_session();
    for seq in 3..10 {
        open.receive(&element(seq, &data)).unwrap();
    }
    assert_eq!(transmitted(&mut open).len(), 7);
}

#[test]
fn out_of_order_elements_and_acks_are_sequence_errors() {
    let mut s = open_session();
    let err = s.receive(&element(4, b"skipped 3")).unwrap_err();
    assert!(matches!(
        err,
        ProtocolError::Sequence {
            half: StreamHalf::FromHost,
            expected: 3,
            got: 4
        }
    ));

    let mut s = open_session();
    s.send_crdt(vec![1]).unwrap();
    let err = s.receive(&pull(7)).unwrap_err();
    assert!(matches!(
        err,
        ProtocolError::Sequence {
            half: StreamHalf::ToHost,
            expected: 1,
            got: 7
        }
    ));

    // Credit already held (nothing in flight): a second pull is not a thing a host does.
    let mut s = open_session();
    let err = s.receive(&hex(PULL_0)).unwrap_err();
    assert!(matches!(
        err,
        ProtocolError::Unexpected {
            got: "STREAM_ACK",
            number: 3,
            ..
        }
    ));
}

#[test]
fn an_element_that_is_not_a_crdt_stream_message_is_a_payload_error() {
    let mut s = open_session();
    // Payload 0a 05 00: a length of 5 with 1 byte behind it.
    let frame = envelope::encode_stream_message(4, 1, 3, hex("0a 05 00"));
    let err = s.receive(&frame).unwrap_err();
    assert!(
        matches!(err, ProtocolError::Payload { sequence: 3, .. }),
        "{err:?}"
    );
}

pub(super) fn remote_error(number: u32, message: &str) -> Vec<u8> {
    pb::RemoteError {
        message_identifier: message_identifier(MessageType::RemoteErrorResponse, number),
        error_code: 0,
        error_message: message.to_owned(),
    }
    .encode_to_vec()
}

#[test]
fn save_is_answered_by_saved_or_a_remote_error_and_the_session_goes_on() {
    let mut s = open_session();
    s.save().unwrap();
    s.save().unwrap();
    assert_eq!(
        transmitted(&mut s),
        [
            envelope::encode_request(5, 1, 13, 0, Vec::new()),
            envelope::encode_request(6, 1, 13, 0, Vec::new())
        ]
    );
    // Answers may come in any order.
    s.receive(&remote_error(6, "EACCES: permission denied"))
        .unwrap();
    s.receive(&hex("0d 05000010")).unwrap();
    let got = events(&mut s);
    assert!(matches!(
        &got[..],
        [
            LiveEvent::RemoteError(RemoteError {
                call: Call::Save,
                ..
            }),
            LiveEvent::Saved
        ]
    ));
    // An answer to a finished Save is for no call of ours.
    assert!(matches!(
        s.receive(&hex("0d 05000010")),
        Err(ProtocolError::UnknownMessageNumber { number: 5, .. })
    ));
}

#[test]
fn save_waits_for_the_writes_before_it_to_be_acknowledged() {
    let mut s = open_session();
    s.send_crdt(b"x = 15.8".to_vec()).unwrap();
    transmitted(&mut s);
    s.save().unwrap();
    s.send_crdt(b"after the save".to_vec()).unwrap();
    assert!(
        transmitted(&mut s).is_empty(),
        "Save waits for the ACK of the write before it"
    );
    s.receive(&pull(1)).unwrap();
    let payload = envelope::encode_crdt_payload(b"after the save".to_vec());
    assert_eq!(
        transmitted(&mut s),
        [
            envelope::encode_request(5, 1, 13, 0, Vec::new()),
            envelope::encode_stream_message(3, 1, 2, payload),
        ]
    );
}

#[test]
fn save_before_the_module_is_loaded_is_refused() {
    let mut s = Session::new();
    assert_eq!(
        s.save(),
        Err(NotOpen {
            phase: Phase::AwaitingServerReady
        })
    );
}

#[test]
fn close_ends_both_streams_and_the_port_as_dcl_rpc_does() {
    let mut s = open_session();
    s.send_crdt(vec![1]).unwrap();
    transmitted(&mut s);
    s.close();
    assert_eq!(
        transmitted(&mut s),
        [
            envelope::encode_close_stream(3, 1, 1),
            envelope::encode_close_stream(4, 1, 2),
            envelope::encode_destroy_port(1),
        ]
    );
    assert_eq!(s.phase(), Phase::Closed);
    assert!(s.send_crdt(vec![2]).is_err());
    s.close();
    assert!(
        transmitted(&mut s).is_empty(),
        "closing twice sends nothing"
    );
    assert!(matches!(s.receive(&pull(1)), Err(ProtocolError::Ended)));

    let mut early = Session::new();
    early.close();
    assert!(
        transmitted(&mut early).is_empty(),
        "no port, nothing to destroy"
    );
}
