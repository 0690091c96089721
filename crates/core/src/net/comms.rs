//! The comms framing around CRDT bytes, as `@dcl/sdk` 7.28.0's `binary-message-bus` and
//! `message-bus-sync` write and read it.
//!
//! - An **outbound item** (what a scene passes to `sendBinary`) is `[CommsMessage u8][payload]`.
//! - An **inbound item** (what `sendBinary` returns) is `[u8 len][sender address, UTF-8]
//!   [CommsMessage u8][payload]`: the explorer prepends the sender.
//! - A **state response**'s payload is `[u8 len][requester address][CRDT messages]`; a state
//!   request's payload is empty; a CRDT item's payload is CRDT messages back to back.
//!
//! The CommsMessage byte is numbered per [`Dialect`]: mainline CRDT = 1, REQ_CRDT_STATE = 2,
//! RES_CRDT_STATE = 3; the authoritative-server SDK renumbers them 7, 8, 9 and adds
//! CRDT_SERVER = 4, CRDT_AUTHORITATIVE = 5 and CUSTOM_EVENT = 6.
//!
//! The SDK decodes addresses leniently (invalid UTF-8 becomes replacement characters), so this
//! reader does too; every other malformation is an error naming the byte offset.

use std::borrow::Cow;

use crate::crdt::stream::{DecodeErrorKind, Dialect};

/// What an item carries (the CommsMessage byte, named).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CommsKind {
    /// CRDT messages (`CommsMessage.CRDT`).
    Crdt,
    /// A request for every peer's state (`REQ_CRDT_STATE`); empty payload.
    ReqCrdtState,
    /// A state dump addressed to a requester (`RES_CRDT_STATE`).
    ResCrdtState,
    /// Authoritative dialect only: CRDT from the server (`CRDT_SERVER`).
    CrdtServer,
    /// Authoritative dialect only: authoritative CRDT (`CRDT_AUTHORITATIVE`).
    CrdtAuthoritative,
    /// Authoritative dialect only: a scene's custom event (`CUSTOM_EVENT`).
    CustomEvent,
}

impl CommsKind {
    /// The byte this kind is written as in `dialect`, or `None` when the dialect has no such
    /// message.
    pub const fn code(self, dialect: Dialect) -> Option<u8> {
        match (dialect, self) {
            (Dialect::Mainline, Self::Crdt) => Some(1),
            (Dialect::Mainline, Self::ReqCrdtState) => Some(2),
            (Dialect::Mainline, Self::ResCrdtState) => Some(3),
            (Dialect::Mainline, _) => None,
            (Dialect::Authoritative, Self::Crdt) => Some(7),
            (Dialect::Authoritative, Self::ReqCrdtState) => Some(8),
            (Dialect::Authoritative, Self::ResCrdtState) => Some(9),
            (Dialect::Authoritative, Self::CrdtServer) => Some(4),
            (Dialect::Authoritative, Self::CrdtAuthoritative) => Some(5),
            (Dialect::Authoritative, Self::CustomEvent) => Some(6),
        }
    }

    /// The kind a byte names in `dialect`, or `None` for a byte the dialect does not define
    /// (the SDK ignores such items: no handler is registered for them).
    pub fn from_code(code: u8, dialect: Dialect) -> Option<CommsKind> {
        [
            Self::Crdt,
            Self::ReqCrdtState,
            Self::ResCrdtState,
            Self::CrdtServer,
            Self::CrdtAuthoritative,
            Self::CustomEvent,
        ]
        .into_iter()
        .find(|kind| kind.code(dialect) == Some(code))
    }

    /// The SDK's name (`"CRDT"`, `"REQ_CRDT_STATE"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Crdt => "CRDT",
            Self::ReqCrdtState => "REQ_CRDT_STATE",
            Self::ResCrdtState => "RES_CRDT_STATE",
            Self::CrdtServer => "CRDT_SERVER",
            Self::CrdtAuthoritative => "CRDT_AUTHORITATIVE",
            Self::CustomEvent => "CUSTOM_EVENT",
        }
    }
}

/// A malformed comms item: where and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {kind}")]
pub struct FrameError {
    /// Offset, from the item's first byte, where the problem starts.
    pub offset: usize,
    /// What was expected and found.
    pub kind: FrameErrorKind,
}

/// The specific framing failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameErrorKind {
    /// The item is empty where a CommsMessage byte (outbound) or an address length (inbound,
    /// state response) should be.
    #[error("empty item: expected {expected}")]
    Empty { expected: &'static str },
    /// An address declares more bytes than the item holds.
    #[error("the {what} address declares {declared} bytes but only {remaining} remain")]
    AddressTruncated {
        what: &'static str,
        declared: usize,
        remaining: usize,
    },
    /// The item ends right after the sender's address, where the CommsMessage byte should be.
    #[error("no CommsMessage byte after the sender's address")]
    MissingCommsByte,
    /// The CRDT messages inside the item are malformed (offset from the item's start).
    #[error("CRDT payload: {0}")]
    Crdt(DecodeErrorKind),
}

/// One item as the scene passes it to `sendBinary`: `[CommsMessage][payload]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboundItem<'a> {
    /// The CommsMessage byte as sent.
    pub code: u8,
    /// The kind that byte names in the dialect read with, if any.
    pub kind: Option<CommsKind>,
    /// Everything after the CommsMessage byte.
    pub payload: &'a [u8],
}

/// One item as `sendBinary` returns it: `[u8 len][sender][CommsMessage][payload]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboundItem<'a> {
    /// The sender's address (invalid UTF-8 replaced, as the SDK's decoder does).
    pub sender: Cow<'a, str>,
    /// The item as the sender passed it to `sendBinary`.
    pub item: OutboundItem<'a>,
    /// Offset of `item` within the inbound bytes (1 + the address's length).
    pub item_offset: usize,
}

/// A state response's payload: `[u8 len][requester][CRDT messages]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateResponse<'a> {
    /// The address of the player that asked (only that player applies the state).
    pub requester: Cow<'a, str>,
    /// The CRDT messages.
    pub crdt: &'a [u8],
    /// Offset of `crdt` within the payload.
    pub crdt_offset: usize,
}

/// Reads an outbound item in `dialect`.
pub fn decode_outbound(bytes: &[u8], dialect: Dialect) -> Result<OutboundItem<'_>, FrameError> {
    let (&code, payload) = bytes.split_first().ok_or(FrameError {
        offset: 0,
        kind: FrameErrorKind::Empty {
            expected: "a CommsMessage byte",
        },
    })?;
    Ok(OutboundItem {
        code,
        kind: CommsKind::from_code(code, dialect),
        payload,
    })
}

/// Reads `[u8 len][address]` at the start of `bytes`: the address and the offset after it.
fn read_address<'a>(
    bytes: &'a [u8],
    what: &'static str,
) -> Result<(Cow<'a, str>, usize), FrameError> {
    let (&len, rest) = bytes.split_first().ok_or(FrameError {
        offset: 0,
        kind: FrameErrorKind::Empty {
            expected: "an address length byte",
        },
    })?;
    let len = usize::from(len);
    let address = rest.get(..len).ok_or(FrameError {
        offset: 1,
        kind: FrameErrorKind::AddressTruncated {
            what,
            declared: len,
            remaining: rest.len(),
        },
    })?;
    Ok((String::from_utf8_lossy(address), 1 + len))
}

/// Reads an inbound item in `dialect`.
pub fn decode_inbound(bytes: &[u8], dialect: Dialect) -> Result<InboundItem<'_>, FrameError> {
    let (sender, item_offset) = read_address(bytes, "sender's")?;
    let item = decode_outbound(&bytes[item_offset..], dialect).map_err(|_| FrameError {
        offset: item_offset,
        kind: FrameErrorKind::MissingCommsByte,
    })?;
    Ok(InboundItem {
        sender,
        item,
        item_offset,
    })
}

/// Reads a state response's payload.
pub fn decode_state_response(payload: &[u8]) -> Result<StateResponse<'_>, FrameError> {
    let (requester, crdt_offset) = read_address(payload, "requester's")?;
    Ok(StateResponse {
        requester,
        crdt: &payload[crdt_offset..],
        crdt_offset,
    })
}

/// `[u8 len][address]`, the length byte wrapping at 256 as the SDK's `Uint8Array` does.
fn push_address(out: &mut Vec<u8>, address: &str) {
    out.push(address.len() as u8);
    out.extend_from_slice(address.as_bytes());
}

/// An outbound item: `[code][payload]`.
pub fn encode_outbound(code: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + payload.len());
    out.push(code);
    out.extend_from_slice(payload);
    out
}

/// The inbound form of an outbound item sent by `sender`: `[u8 len][sender][item]`.
pub fn encode_inbound(sender: &str, outbound: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + sender.len() + outbound.len());
    push_address(&mut out, sender);
    out.extend_from_slice(outbound);
    out
}

/// A state response's payload: `[u8 len][requester][crdt]` (`encodeCRDTState`).
pub fn encode_state_response(requester: &str, crdt: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + requester.len() + crdt.len());
    push_address(&mut out, requester);
    out.extend_from_slice(crdt);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALICE: &str = "0xa11ce00000000000000000000000000000000000";

    #[test]
    fn both_numberings_round_trip_and_differ() {
        for dialect in [Dialect::Mainline, Dialect::Authoritative] {
            for kind in [
                CommsKind::Crdt,
                CommsKind::ReqCrdtState,
                CommsKind::ResCrdtState,
            ] {
                let code = kind.code(dialect).unwrap();
                assert_eq!(CommsKind::from_code(code, dialect), Some(kind));
            }
        }
        assert_eq!(CommsKind::Crdt.code(Dialect::Mainline), Some(1));
        assert_eq!(CommsKind::Crdt.code(Dialect::Authoritative), Some(7));
        assert_eq!(CommsKind::CustomEvent.code(Dialect::Mainline), None);
        // 7 is nothing in mainline: the SDK has no handler for it.
        assert_eq!(CommsKind::from_code(7, Dialect::Mainline), None);
        assert_eq!(
            CommsKind::from_code(4, Dialect::Authoritative),
            Some(CommsKind::CrdtServer)
        );
    }

    #[test]
    fn an_inbound_state_response_reads_back() {
        let crdt = [1, 2, 3];
        let item = encode_outbound(3, &encode_state_response(ALICE, &crdt));
        let bytes = encode_inbound("0xb0b", &item);
        let inbound = decode_inbound(&bytes, Dialect::Mainline).unwrap();
        assert_eq!(inbound.sender, "0xb0b");
        assert_eq!(inbound.item_offset, 6);
        assert_eq!(inbound.item.kind, Some(CommsKind::ResCrdtState));
        let response = decode_state_response(inbound.item.payload).unwrap();
        assert_eq!(response.requester, ALICE);
        assert_eq!(response.crdt, crdt);
        assert_eq!(response.crdt_offset, 43);
    }

    #[test]
    fn malformed_items_name_their_offset() {
        assert_eq!(
            decode_inbound(&[], Dialect::Mainline).unwrap_err().offset,
            0
        );
        let err = decode_inbound(&[5, b'a', b'b'], Dialect::Mainline).unwrap_err();
        assert_eq!(
            err,
            FrameError {
                offset: 1,
                kind: FrameErrorKind::AddressTruncated {
                    what: "sender's",
                    declared: 5,
                    remaining: 2
                }
            }
        );
        let err = decode_inbound(&[2, b'a', b'b'], Dialect::Mainline).unwrap_err();
        assert_eq!(err.offset, 3);
        assert_eq!(err.kind, FrameErrorKind::MissingCommsByte);
        assert!(err.to_string().contains("at byte 3"));
    }
}
