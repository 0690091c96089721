//! Reading a stream of CRDT messages (a `main.crdt` file, a network packet).
//!
//! The reference runtime stops silently at a truncated message and would loop forever on an
//! unknown message that declares a length shorter than its header. scenetree instead reports
//! the byte offset and what was wrong, and skips unknown types by their declared length.
//!
//! DELETE_ENTITY_NETWORK (type 7) is always read as 16 bytes whatever its header declares:
//! `@dcl/ecs` up to 7.27 writes 16 bytes but declares 12, 7.28 declares 16, and players of both
//! versions meet in one room. The runtime reads the type's fields in sequence, so it consumes 16
//! either way; so does this reader.

use super::message::{CrdtMessage, HEADER_LEN, MessageType};
use crate::model::{Entity, Transform};

/// What went wrong at which byte of a stream.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {kind}")]
pub struct DecodeError {
    /// Offset of the first byte of the offending message.
    pub offset: usize,
    /// What was expected and found.
    pub kind: DecodeErrorKind,
}

/// The specific decoding failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    /// Fewer than 8 bytes remain where a header should start.
    #[error("truncated header: {remaining} bytes left, a message header is 8")]
    TruncatedHeader { remaining: usize },
    /// The header declares more bytes than the stream holds.
    #[error("message declares {declared} bytes but only {remaining} remain (truncated file?)")]
    Truncated { declared: usize, remaining: usize },
    /// The declared length is too short for the header and the type's fixed fields.
    #[error("{type_name} declares {declared} bytes, its fields need at least {minimum}")]
    TooShort {
        type_name: &'static str,
        declared: usize,
        minimum: usize,
    },
    /// The fixed-size body does not match the declared length.
    #[error("{type_name} declares {declared} bytes, the type is exactly {expected}")]
    WrongLength {
        type_name: &'static str,
        declared: usize,
        expected: usize,
    },
    /// A Transform PUT shorter than the 44 bytes `@dcl/ecs` reads: the runtime throws while
    /// loading it (`Outside of the bounds of writen data`) and stops applying the stream, so a
    /// state holding one (a main.crdt, a snapshot) is refused rather than loaded without it.
    #[error(
        "the Transform PUT of entity {entity} holds {length} bytes; a Transform is 44 bytes, \
         and Decentraland's runtime refuses a shorter one"
    )]
    MalformedTransform {
        /// The entity the PUT is for.
        entity: Entity,
        /// The bytes it holds.
        length: usize,
    },
    /// `data_length` disagrees with the message length.
    #[error(
        "{type_name} carries data_length {data_length} but its length leaves room for {available}"
    )]
    DataLengthMismatch {
        type_name: &'static str,
        data_length: usize,
        available: usize,
    },
}

/// Which message types a stream may hold: mainline `@dcl/ecs`, or the authoritative-server
/// SDK's, which adds type 8 (AUTHORITATIVE_PUT_COMPONENT, laid out as PUT_COMPONENT).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `@dcl/ecs` 7.x as published (`latest`): types 1 to 7; type 8 is unknown and skipped.
    #[default]
    Mainline,
    /// The `auth-server` SDK: types 1 to 8.
    Authoritative,
}

/// The wire number of AUTHORITATIVE_PUT_COMPONENT in the authoritative dialect.
pub const AUTHORITATIVE_PUT_COMPONENT: u32 = 8;

/// Bytes a DELETE_ENTITY_NETWORK takes, whatever its header declares (see the module docs).
pub const DELETE_ENTITY_NETWORK_LEN: usize = 16;

/// One item of a stream: a message, or an unknown type that was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamItem {
    /// A decoded message and the offset it started at.
    Message { offset: usize, message: CrdtMessage },
    /// An AUTHORITATIVE_PUT_COMPONENT (type 8, [`Dialect::Authoritative`] only), decoded as the
    /// [`CrdtMessage::PutComponent`] it is laid out as.
    AuthoritativePut { offset: usize, message: CrdtMessage },
    /// A message of a type this protocol version does not define, skipped by its length.
    Unknown {
        offset: usize,
        message_type: u32,
        length: usize,
    },
}

/// Iterates the messages of a byte stream. After an error the iterator ends.
pub struct StreamReader<'a> {
    bytes: &'a [u8],
    offset: usize,
    failed: bool,
    dialect: Dialect,
}

impl<'a> StreamReader<'a> {
    /// A reader over `bytes` in the mainline dialect, starting at offset 0.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self::with_dialect(bytes, Dialect::Mainline)
    }

    /// A reader over `bytes` that knows the message types of `dialect`.
    pub fn with_dialect(bytes: &'a [u8], dialect: Dialect) -> Self {
        StreamReader {
            bytes,
            offset: 0,
            failed: false,
            dialect,
        }
    }

    /// The offset of the next unread byte.
    pub fn offset(&self) -> usize {
        self.offset
    }

    fn read_one(&mut self) -> Result<StreamItem, DecodeError> {
        let start = self.offset;
        let rest = &self.bytes[start..];
        let fail = |kind| {
            Err(DecodeError {
                offset: start,
                kind,
            })
        };
        if rest.len() < HEADER_LEN {
            return fail(DecodeErrorKind::TruncatedHeader {
                remaining: rest.len(),
            });
        }
        let word = |i: usize| u32::from_le_bytes([rest[i], rest[i + 1], rest[i + 2], rest[i + 3]]);
        let declared = word(0) as usize;
        let raw_type = word(4);
        if declared > rest.len() {
            return fail(DecodeErrorKind::Truncated {
                declared,
                remaining: rest.len(),
            });
        }
        let authoritative =
            self.dialect == Dialect::Authoritative && raw_type == AUTHORITATIVE_PUT_COMPONENT;
        let Some(ty) =
            MessageType::from_u32(raw_type).or(authoritative.then_some(MessageType::PutComponent))
        else {
            if declared < HEADER_LEN {
                return fail(DecodeErrorKind::TooShort {
                    type_name: "unknown message type",
                    declared,
                    minimum: HEADER_LEN,
                });
            }
            self.offset += declared;
            return Ok(StreamItem::Unknown {
                offset: start,
                message_type: raw_type,
                length: declared,
            });
        };
        if ty == MessageType::DeleteEntityNetwork {
            return self.read_delete_entity_network(start);
        }
        let minimum = HEADER_LEN + ty.fixed_body_len();
        if declared < minimum {
            return fail(DecodeErrorKind::TooShort {
                type_name: ty.name(),
                declared,
                minimum,
            });
        }
        if !ty.has_data() && declared != minimum {
            return fail(DecodeErrorKind::WrongLength {
                type_name: ty.name(),
                declared,
                expected: minimum,
            });
        }
        let entity = Entity(word(8));
        let data = |len_at: usize| -> Result<Vec<u8>, DecodeError> {
            let data_length = word(len_at) as usize;
            let available = declared - minimum;
            if data_length != available {
                return Err(DecodeError {
                    offset: start,
                    kind: DecodeErrorKind::DataLengthMismatch {
                        type_name: ty.name(),
                        data_length,
                        available,
                    },
                });
            }
            Ok(rest[minimum..declared].to_vec())
        };
        let message = match ty {
            MessageType::PutComponent => CrdtMessage::PutComponent {
                entity,
                component: word(12),
                timestamp: word(16),
                data: data(20)?,
            },
            MessageType::AppendValue => CrdtMessage::AppendValue {
                entity,
                component: word(12),
                timestamp: word(16),
                data: data(20)?,
            },
            MessageType::DeleteComponent => CrdtMessage::DeleteComponent {
                entity,
                component: word(12),
                timestamp: word(16),
            },
            MessageType::DeleteEntity => CrdtMessage::DeleteEntity { entity },
            MessageType::PutComponentNetwork => CrdtMessage::PutComponentNetwork {
                entity,
                component: word(12),
                timestamp: word(16),
                network_id: word(20),
                data: data(24)?,
            },
            MessageType::DeleteComponentNetwork => CrdtMessage::DeleteComponentNetwork {
                entity,
                component: word(12),
                timestamp: word(16),
                network_id: word(20),
            },
            MessageType::DeleteEntityNetwork => CrdtMessage::DeleteEntityNetwork {
                entity,
                network_id: word(12),
            },
        };
        self.offset += declared;
        Ok(if authoritative {
            StreamItem::AuthoritativePut {
                offset: start,
                message,
            }
        } else {
            StreamItem::Message {
                offset: start,
                message,
            }
        })
    }

    /// Type 7 at `start`: 16 bytes whatever the header declares (see the module docs).
    fn read_delete_entity_network(&mut self, start: usize) -> Result<StreamItem, DecodeError> {
        let rest = &self.bytes[start..];
        let Some(body) = rest.first_chunk::<DELETE_ENTITY_NETWORK_LEN>() else {
            return Err(DecodeError {
                offset: start,
                kind: DecodeErrorKind::Truncated {
                    declared: DELETE_ENTITY_NETWORK_LEN,
                    remaining: rest.len(),
                },
            });
        };
        let word = |i: usize| u32::from_le_bytes([body[i], body[i + 1], body[i + 2], body[i + 3]]);
        self.offset += DELETE_ENTITY_NETWORK_LEN;
        Ok(StreamItem::Message {
            offset: start,
            message: CrdtMessage::DeleteEntityNetwork {
                entity: Entity(word(8)),
                network_id: word(12),
            },
        })
    }
}

impl Iterator for StreamReader<'_> {
    type Item = Result<StreamItem, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.offset >= self.bytes.len() {
            return None;
        }
        let item = self.read_one();
        self.failed = item.is_err();
        Some(item)
    }
}

/// A whole stream decoded: its messages, and how many unknown messages were skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DecodedStream {
    /// The messages, in stream order.
    pub messages: Vec<CrdtMessage>,
    /// Unknown message types that were skipped: (offset, type).
    pub skipped_unknown: Vec<(usize, u32)>,
}

/// Decodes a whole stream, all or nothing: the first corrupt or truncated message is an error
/// naming its offset, so a caller never sees half a file.
pub fn decode_stream(bytes: &[u8]) -> Result<DecodedStream, DecodeError> {
    match decode_stream_prefix(bytes) {
        (decoded, None) => Ok(decoded),
        (_, Some(error)) => Err(error),
    }
}

/// Decodes a stream up to its first corrupt or truncated message: what was read before it,
/// and the error there (`None` when the stream reads whole). For offering what a damaged file
/// still holds once the damage has been reported; [`decode_stream`] for everything else.
pub fn decode_stream_prefix(bytes: &[u8]) -> (DecodedStream, Option<DecodeError>) {
    decode_prefix(bytes, false)
}

/// Decodes a whole stream that is loaded as a scene's state (a main.crdt, a data layer's
/// snapshot, a scenario's initial stream), all or nothing: as [`decode_stream`], and a value
/// Decentraland's runtime cannot read (a Transform PUT shorter than 44 bytes:
/// [`DecodeErrorKind::MalformedTransform`]) is an error at its offset too. A replica refuses
/// such a message without a word ([`crate::crdt::Replica::apply_all`]), which a stream of
/// messages arriving one by one reports as it goes, but a whole state would lose silently.
pub fn decode_state_stream(bytes: &[u8]) -> Result<DecodedStream, DecodeError> {
    match decode_state_stream_prefix(bytes) {
        (decoded, None) => Ok(decoded),
        (_, Some(error)) => Err(error),
    }
}

/// [`decode_stream_prefix`] with [`decode_state_stream`]'s check of values: what precedes the
/// first message that does not decode or holds a value the runtime cannot read.
pub fn decode_state_stream_prefix(bytes: &[u8]) -> (DecodedStream, Option<DecodeError>) {
    decode_prefix(bytes, true)
}

/// The value of a message that Decentraland's runtime throws on when it applies it, if any.
fn unreadable_value(message: &CrdtMessage) -> Option<DecodeErrorKind> {
    match message {
        CrdtMessage::PutComponent {
            entity,
            component: Transform::COMPONENT_ID,
            data,
            ..
        }
        | CrdtMessage::PutComponentNetwork {
            entity,
            component: Transform::COMPONENT_ID,
            data,
            ..
        } if data.len() < Transform::BYTE_LEN => Some(DecodeErrorKind::MalformedTransform {
            entity: *entity,
            length: data.len(),
        }),
        _ => None,
    }
}

fn decode_prefix(bytes: &[u8], check_values: bool) -> (DecodedStream, Option<DecodeError>) {
    let mut out = DecodedStream::default();
    for item in StreamReader::new(bytes) {
        match item {
            Ok(
                StreamItem::Message { offset, message }
                | StreamItem::AuthoritativePut { offset, message },
            ) => {
                if check_values && let Some(kind) = unreadable_value(&message) {
                    return (out, Some(DecodeError { offset, kind }));
                }
                out.messages.push(message)
            }
            Ok(StreamItem::Unknown {
                offset,
                message_type,
                ..
            }) => out.skipped_unknown.push((offset, message_type)),
            Err(error) => return (out, Some(error)),
        }
    }
    (out, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crdt::message::encode_stream;

    fn sample() -> Vec<CrdtMessage> {
        vec![
            CrdtMessage::PutComponent {
                entity: Entity(512),
                component: 1,
                timestamp: 3,
                data: vec![7; 44],
            },
            CrdtMessage::DeleteEntity {
                entity: Entity(513),
            },
            CrdtMessage::DeleteComponentNetwork {
                entity: Entity(9),
                component: 2,
                timestamp: 4,
                network_id: 77,
            },
        ]
    }

    #[test]
    fn decodes_what_it_encodes() {
        let bytes = encode_stream(&sample());
        assert_eq!(decode_stream(&bytes).unwrap().messages, sample());
    }

    #[test]
    fn unknown_types_are_skipped_by_length() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&12u32.to_le_bytes());
        bytes.extend_from_slice(&99u32.to_le_bytes());
        bytes.extend_from_slice(&[1, 2, 3, 4]);
        bytes.extend(encode_stream(&sample()));
        let decoded = decode_stream(&bytes).unwrap();
        assert_eq!(decoded.messages, sample());
        assert_eq!(decoded.skipped_unknown, vec![(0, 99)]);
    }

    #[test]
    fn truncation_reports_the_offset_of_the_cut_message() {
        let bytes = encode_stream(&sample());
        let first_len = sample()[0].encoded_len();
        let err = decode_stream(&bytes[..first_len + 5]).unwrap_err();
        assert_eq!(err.offset, first_len);
        assert_eq!(err.kind, DecodeErrorKind::TruncatedHeader { remaining: 5 });
        let err = decode_stream(&bytes[..first_len - 1]).unwrap_err();
        assert_eq!(err.offset, 0);
        assert_eq!(
            err.kind,
            DecodeErrorKind::Truncated {
                declared: 68,
                remaining: 67
            }
        );
    }

    #[test]
    fn a_state_stream_refuses_a_transform_shorter_than_44_bytes_at_its_offset() {
        for length in [0, 12, 43] {
            let messages = [
                sample()[0].clone(),
                CrdtMessage::PutComponent {
                    entity: Entity(513),
                    component: Transform::COMPONENT_ID,
                    timestamp: 1,
                    data: vec![0; length],
                },
            ];
            let bytes = encode_stream(&messages);
            // As messages arriving one by one, the stream decodes (the replica then reports
            // the refusal of each); as a state to load, it is refused where the value is.
            assert_eq!(decode_stream(&bytes).unwrap().messages, messages);
            let err = decode_state_stream(&bytes).unwrap_err();
            assert_eq!(err.offset, messages[0].encoded_len(), "length {length}");
            assert_eq!(
                err.kind,
                DecodeErrorKind::MalformedTransform {
                    entity: Entity(513),
                    length
                }
            );
            let (before, damage) = decode_state_stream_prefix(&bytes);
            assert_eq!(before.messages, messages[..1]);
            assert_eq!(damage, Some(err));
        }
        // 44 bytes or more (the runtime reads the first 44) load.
        let long = CrdtMessage::PutComponent {
            entity: Entity(513),
            component: Transform::COMPONENT_ID,
            timestamp: 1,
            data: vec![0; 50],
        };
        assert!(decode_state_stream(&encode_stream(&[long])).is_ok());
    }

    #[test]
    fn a_zero_length_unknown_message_is_an_error_not_a_hang() {
        let mut bytes = vec![0u8; 4];
        bytes.extend_from_slice(&42u32.to_le_bytes());
        let err = decode_stream(&bytes).unwrap_err();
        assert!(matches!(err.kind, DecodeErrorKind::TooShort { .. }));
    }

    #[test]
    fn inconsistent_data_length_is_reported() {
        let mut bytes = sample()[0].to_bytes();
        bytes[20..24].copy_from_slice(&10u32.to_le_bytes());
        let err = decode_stream(&bytes).unwrap_err();
        assert_eq!(
            err.kind,
            DecodeErrorKind::DataLengthMismatch {
                type_name: "PUT_COMPONENT",
                data_length: 10,
                available: 44
            }
        );
    }

    #[test]
    fn fixed_size_messages_must_have_their_exact_length() {
        let mut bytes = CrdtMessage::DeleteEntity { entity: Entity(5) }.to_bytes();
        bytes.extend_from_slice(&[0; 4]);
        bytes[0..4].copy_from_slice(&16u32.to_le_bytes());
        let err = decode_stream(&bytes).unwrap_err();
        assert!(matches!(
            err.kind,
            DecodeErrorKind::WrongLength { expected: 12, .. }
        ));
    }

    /// A DELETE_ENTITY_NETWORK as `@dcl/ecs` ≤ 7.27 writes it: 16 bytes declaring 12.
    fn delete_entity_network_declaring(declared: u32) -> Vec<u8> {
        let mut bytes = CrdtMessage::DeleteEntityNetwork {
            entity: Entity(513),
            network_id: 0xDEAD_BEEF,
        }
        .to_bytes();
        bytes[0..4].copy_from_slice(&declared.to_le_bytes());
        bytes
    }

    #[test]
    fn delete_entity_network_is_16_bytes_whatever_its_header_declares() {
        let next = sample();
        for declared in [12, 16, 0, 9] {
            let mut bytes = delete_entity_network_declaring(declared);
            bytes.extend(encode_stream(&next));
            let decoded = decode_stream(&bytes).unwrap();
            assert_eq!(
                decoded.messages[0],
                CrdtMessage::DeleteEntityNetwork {
                    entity: Entity(513),
                    network_id: 0xDEAD_BEEF
                },
                "declared {declared}"
            );
            assert_eq!(decoded.messages[1..], next[..], "declared {declared}");
        }
        // 7.28's own bytes, checked against `DeleteEntityNetwork.write(513, 0xdeadbeef)`.
        assert_eq!(
            delete_entity_network_declaring(16),
            [16, 0, 0, 0, 7, 0, 0, 0, 1, 2, 0, 0, 0xEF, 0xBE, 0xAD, 0xDE]
        );
    }

    #[test]
    fn a_short_delete_entity_network_is_truncated_at_its_offset() {
        let mut bytes = encode_stream(&sample()[..1]);
        let at = bytes.len();
        bytes.extend(&delete_entity_network_declaring(12)[..12]);
        let err = decode_stream(&bytes).unwrap_err();
        assert_eq!(err.offset, at);
        assert_eq!(
            err.kind,
            DecodeErrorKind::Truncated {
                declared: 16,
                remaining: 12
            }
        );
    }

    #[test]
    fn type_8_is_a_put_only_in_the_authoritative_dialect() {
        let put = sample()[0].clone();
        let mut bytes = put.to_bytes();
        bytes[4..8].copy_from_slice(&AUTHORITATIVE_PUT_COMPONENT.to_le_bytes());
        let mainline: Vec<_> = StreamReader::new(&bytes).collect();
        assert_eq!(
            mainline,
            [Ok(StreamItem::Unknown {
                offset: 0,
                message_type: 8,
                length: bytes.len()
            })]
        );
        let authoritative: Vec<_> =
            StreamReader::with_dialect(&bytes, Dialect::Authoritative).collect();
        assert_eq!(
            authoritative,
            [Ok(StreamItem::AuthoritativePut {
                offset: 0,
                message: put
            })]
        );
    }
}
