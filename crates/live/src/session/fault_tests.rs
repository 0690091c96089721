//! The session's error paths: frames a host must not send, remote errors, and any bytes in
//! any phase without a panic.

use super::tests::{
    element, events, handshake_frames, open_session, pull, remote_error, transmitted,
};
use super::*;
use crate::envelope::tests::{hex, xorshift};

#[test]
fn frames_before_server_ready_are_refused() {
    let mut s = Session::new();
    let err = s.receive(&hex("0d 01000030 15 01000000")).unwrap_err();
    assert!(matches!(
        err,
        ProtocolError::BeforeServerReady {
            got: "CREATE_PORT_RESPONSE"
        }
    ));
}

type Check = fn(&ProtocolError) -> bool;

#[test]
fn frames_for_unknown_numbers_or_of_client_types_are_refused() {
    let cases: [(Vec<u8>, Check); 7] = [
        (envelope::encode_stream_message(9, 1, 1, Vec::new()), |e| {
            matches!(
                e,
                ProtocolError::UnknownMessageNumber {
                    got: "STREAM_MESSAGE",
                    number: 9
                }
            )
        }),
        (envelope::encode_stream_ack(4, 1, 0), |e| {
            matches!(
                e,
                ProtocolError::Unexpected {
                    got: "STREAM_ACK",
                    number: 4,
                    ..
                }
            )
        }),
        (hex("0d 07000010"), |e| {
            matches!(
                e,
                ProtocolError::UnknownMessageNumber {
                    got: "RESPONSE",
                    number: 7
                }
            )
        }),
        (hex("0d 00000058"), |e| {
            matches!(
                e,
                ProtocolError::Unexpected {
                    got: "SERVER_READY",
                    ..
                }
            )
        }),
        (envelope::encode_create_port(1, "x"), |e| {
            matches!(
                e,
                ProtocolError::Unexpected {
                    got: "CREATE_PORT",
                    ..
                }
            )
        }),
        (envelope::encode_close_stream(3, 1, 0), |e| {
            matches!(
                e,
                ProtocolError::StreamClosed {
                    half: StreamHalf::ToHost
                }
            )
        }),
        (envelope::encode_close_stream(4, 1, 1), |e| {
            matches!(
                e,
                ProtocolError::StreamClosed {
                    half: StreamHalf::FromHost
                }
            )
        }),
    ];
    for (frame, expected) in cases {
        let err = open_session().receive(&frame).unwrap_err();
        assert!(expected(&err), "{frame:02x?}: {err:?}");
    }
}

#[test]
fn remote_errors_name_the_call() {
    let mut s = Session::new();
    s.receive(&hex("0d 00000058")).unwrap();
    s.receive(&hex("0d 01000030 15 01000000")).unwrap();
    let err = s
        .receive(&remote_error(2, "Module DataService is not available"))
        .unwrap_err();
    let ProtocolError::Remote(err) = err else {
        panic!("{err:?}")
    };
    assert_eq!(err.call, Call::RequestModule);
    assert_eq!(
        err.to_string(),
        "the host failed REQUEST_MODULE DataService: Module DataService is not available (error code 0)"
    );

    let mut s = open_session();
    let err = s.receive(&remote_error(4, "boom")).unwrap_err();
    assert!(matches!(
        err,
        ProtocolError::Remote(RemoteError {
            call: Call::CrdtStream,
            ..
        })
    ));

    let mut s = open_session();
    let err = s.receive(&remote_error(77, "who")).unwrap_err();
    assert!(matches!(
        err,
        ProtocolError::UnknownMessageNumber { number: 77, .. }
    ));
}

#[test]
fn any_bytes_in_any_phase_never_panic() {
    let mut random = xorshift(0x2545_f491_4f6c_dd1d);
    let valid: Vec<Vec<u8>> = (handshake_frames().into_iter())
        .chain([
            element(1, b"snapshot"),
            element(2, b"tick"),
            element(3, b"more"),
            pull(1),
        ])
        .collect();
    for _ in 0..2_000 {
        let mut s = Session::new();
        for frame in &valid {
            let bytes = match random() % 8 {
                0 => frame[..(random() as usize % frame.len().max(1))].to_vec(),
                1 => (0..random() % 16).map(|_| random() as u8).collect(),
                2 => {
                    let mut bent = frame.clone();
                    let at = random() as usize % frame.len().max(1);
                    if let Some(b) = bent.get_mut(at) {
                        *b ^= 1 << (random() % 8);
                    }
                    bent
                }
                _ => frame.clone(),
            };
            if random().is_multiple_of(4) {
                let _ = s.send_crdt(vec![random() as u8; 3]);
            }
            let _ = s.receive(&bytes);
        }
        transmitted(&mut s);
        events(&mut s);
    }
}
