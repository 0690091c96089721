//! The frames captured from `sdk-commands start --data-layer` 7.28.0 in the research note
//! (`research/dcl-data-layer.md`, "Wire framing"): ours encode to exactly those bytes, the
//! host's decode to what they say.

use super::*;
use crate::error::FrameError;

/// Hex with spaces (as the note writes frames) to bytes.
pub(crate) fn hex(text: &str) -> Vec<u8> {
    let digits: String = text.split_whitespace().collect();
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).expect("test hex"))
        .collect()
}

/// `prefix` (hex) followed by `text`'s bytes.
pub(crate) fn with_text(prefix: &str, text: &str) -> Vec<u8> {
    let mut bytes = hex(prefix);
    bytes.extend_from_slice(text.as_bytes());
    bytes
}

/// The 22 procedures of `DataService` in @dcl/inspector 7.36.3 (the version sdk-commands
/// 7.28.0 installs), in declaration order: ids 1 to 22.
pub(crate) const INSPECTOR_7_36_3: [&str; 22] = [
    "CrdtStream",
    "Undo",
    "Redo",
    "GetUndoRedoState",
    "getFiles",
    "getFilesSizes",
    "saveFile",
    "GetAssetCatalog",
    "GetAssetData",
    "ImportAsset",
    "RemoveAsset",
    "RemoveFiles",
    "Save",
    "GetInspectorPreferences",
    "SetInspectorPreferences",
    "CopyFile",
    "GetFile",
    "GetFilesList",
    "CreateCustomAsset",
    "GetCustomAssets",
    "DeleteCustomAsset",
    "RenameCustomAsset",
];

/// A REQUEST_MODULE_RESPONSE #`number` on port 1 listing `names` with ids from 1.
pub(crate) fn module_response(number: u32, names: &[&str]) -> Vec<u8> {
    pb::RequestModuleResponse {
        message_identifier: message_identifier(MessageType::RequestModuleResponse, number),
        port_id: 1,
        procedures: names
            .iter()
            .zip(1..)
            .map(|(name, id)| pb::ModuleProcedure {
                procedure_id: id,
                procedure_name: (*name).to_owned(),
            })
            .collect(),
    }
    .encode_to_vec()
}

#[test]
fn identifiers_pack_the_type_in_the_top_five_bits() {
    assert_eq!(message_identifier(MessageType::CreatePort, 1), 0x2800_0001);
    assert_eq!(message_identifier(MessageType::ServerReady, 0), 0x5800_0000);
    assert_eq!(message_identifier(MessageType::StreamAck, 4), 0x2000_0004);
    assert_eq!(split_identifier(0x1800_0004), (3, 4));
    // The number keeps 27 bits; more is masked, as @dcl/rpc does.
    assert_eq!(
        message_identifier(MessageType::Request, 0x0800_0001),
        0x0800_0001
    );
}

#[test]
fn our_handshake_frames_are_the_captured_bytes() {
    assert_eq!(
        encode_create_port(1, "scene-ctx"),
        with_text("0d 01000028 22 09", "scene-ctx")
    );
    assert_eq!(
        encode_request_module(2, 1, "DataService"),
        with_text("0d 02000038 15 01000000 22 0b", "DataService")
    );
    assert_eq!(
        encode_request(4, 1, 1, 3, Vec::new()),
        hex("0d 04000008 15 01000000 25 01000000 2d 03000000")
    );
}

#[test]
fn our_stream_frames_are_the_captured_bytes() {
    // The ACK of the host's offer (element 0), whose sequence field is the omitted default.
    assert_eq!(
        encode_stream_ack(4, 1, 0),
        hex("0d 04000020 15 01000000 40 01")
    );
    assert_eq!(
        encode_stream_ack(4, 1, 1),
        hex("0d 04000020 15 01000000 25 01000000 40 01")
    );
    let put = vec![0x5a; 68];
    let mut expected = hex("0d 03000018 15 01000000 25 01000000 32 46 0a 44");
    expected.extend_from_slice(&put);
    assert_eq!(
        encode_stream_message(3, 1, 1, encode_crdt_payload(put)),
        expected
    );
}

#[test]
fn closing_frames_are_what_dcl_rpc_writes() {
    // closeStreamMessage: a STREAM_MESSAGE with closed = true; DESTROY_PORT has number 0.
    assert_eq!(
        encode_close_stream(3, 1, 2),
        hex("0d 03000018 15 01000000 25 02000000 38 01")
    );
    assert_eq!(encode_destroy_port(1), hex("0d 00000050 15 01000000"));
    assert_eq!(encode_server_ready(), hex("0d 00000058"));
}

#[test]
fn the_hosts_captured_frames_decode() {
    assert_eq!(
        Frame::decode(&hex("0d 00000058")).unwrap(),
        Frame::ServerReady
    );
    let port = Frame::decode(&hex("0d 01000030 15 01000000")).unwrap();
    assert_eq!(port.kind(), MessageType::CreatePortResponse);
    assert_eq!(port.number(), 1);
    let Frame::CreatePortResponse(port) = port else {
        unreachable!()
    };
    assert_eq!(port.port_id, 1);

    let offer = Frame::decode(&hex("0d 04000018 15 01000000")).unwrap();
    let Frame::StreamMessage(offer) = offer else {
        panic!("the offer is a STREAM_MESSAGE")
    };
    assert_eq!(
        (offer.sequence_id, offer.closed, offer.payload.len()),
        (0, false, 0)
    );

    let pull = Frame::decode(&hex("0d 03000020 15 01000000 40 01")).unwrap();
    assert_eq!((pull.kind(), pull.number()), (MessageType::StreamAck, 3));
}

#[test]
fn the_captured_snapshot_element_decodes_to_its_crdt_bytes() {
    let crdt: Vec<u8> = (0..32_408u32).map(|i| (i % 251) as u8).collect();
    let mut frame = hex("0d 04000018 15 01000000 25 01000000 32 9cfd01 0a 98fd01");
    frame.extend_from_slice(&crdt);
    let Frame::StreamMessage(element) = Frame::decode(&frame).unwrap() else {
        panic!("a STREAM_MESSAGE")
    };
    assert_eq!(element.sequence_id, 1);
    let payload = pb::CrdtStreamMessage::decode(element.payload.as_slice()).unwrap();
    assert_eq!(payload.data, crdt);
}

#[test]
fn the_inspector_module_answer_is_474_bytes_as_captured() {
    let frame = module_response(2, &INSPECTOR_7_36_3);
    assert_eq!(frame.len(), 474);
    assert_eq!(&frame[..5], &hex("0d 02000040")[..]);
    let Frame::RequestModuleResponse(module) = Frame::decode(&frame).unwrap() else {
        panic!("a REQUEST_MODULE_RESPONSE")
    };
    assert_eq!(module.procedures.len(), 22);
    assert_eq!(module.procedures[12].procedure_name, "Save");
    assert_eq!(module.procedures[12].procedure_id, 13);
}

#[test]
fn frames_that_are_not_the_envelope_are_typed_errors() {
    let unknown = |bytes: &str| match Frame::decode(&hex(bytes)) {
        Err(FrameError::UnknownType { raw_type, .. }) => raw_type,
        other => panic!("{bytes}: {other:?}"),
    };
    // An empty frame has identifier 0: type 0 is no message.
    assert_eq!(unknown(""), 0);
    assert_eq!(unknown("0d 01000060"), 12);
    assert_eq!(unknown("0d 01000078"), 15);
    let malformed = |bytes: &[u8]| {
        assert!(
            matches!(Frame::decode(bytes), Err(FrameError::Malformed { .. })),
            "{bytes:02x?}"
        )
    };
    malformed(&hex("0d 010000")); // truncated identifier
    malformed(&hex("ff ff ff ff"));
    malformed(&hex("0d 04000018 15 01000000 32 46 0a")); // payload cut short
    malformed(&hex("0d 01000030 12 01")); // port as length-delimited, truncated
}

#[test]
fn every_truncation_of_a_captured_frame_decodes_or_errs_without_panicking() {
    let mut frames = vec![
        module_response(2, &INSPECTOR_7_36_3),
        encode_stream_message(3, 1, 1, encode_crdt_payload(vec![7; 68])),
        with_text("0d 02000038 15 01000000 22 0b", "DataService"),
    ];
    frames.push(hex("0d 04000018 15 01000000 25 01000000 40 01 38 01"));
    for frame in &frames {
        for len in 0..frame.len() {
            let _ = Frame::decode(&frame[..len]);
        }
    }
    // And arbitrary bytes (a fixed xorshift, so a failure replays).
    let mut random = xorshift(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let len = (random() % 24) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| random() as u8).collect();
        let _ = Frame::decode(&bytes);
    }
}

/// A small deterministic generator for the "any bytes" tests.
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
