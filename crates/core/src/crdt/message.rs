//! CRDT messages and their wire framing, byte for byte as `@dcl/ecs` 7.x writes them.
//!
//! Every integer is little-endian. A message is a header `length: u32` (the whole message,
//! header included) and `type: u32`, then a body:
//!
//! | type | name | body |
//! |---|---|---|
//! | 1 | PUT_COMPONENT | entity, component, timestamp, data_length, data |
//! | 2 | DELETE_COMPONENT | entity, component, timestamp |
//! | 3 | DELETE_ENTITY | entity |
//! | 4 | APPEND_VALUE | entity, component, timestamp, data_length, data |
//! | 5 | PUT_COMPONENT_NETWORK | entity, component, timestamp, network_id, data_length, data |
//! | 6 | DELETE_COMPONENT_NETWORK | entity, component, timestamp, network_id |
//! | 7 | DELETE_ENTITY_NETWORK | entity, network_id |
//!
//! A stream is messages back to back. See [`super::stream`] for reading one.

use std::fmt;

use crate::model::{Entity, Transform, ids};

/// Size of the common header (`length`, `type`).
pub const HEADER_LEN: usize = 8;

/// The message types of the protocol (`CrdtMessageType`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum MessageType {
    PutComponent = 1,
    DeleteComponent = 2,
    DeleteEntity = 3,
    AppendValue = 4,
    PutComponentNetwork = 5,
    DeleteComponentNetwork = 6,
    DeleteEntityNetwork = 7,
}

impl MessageType {
    /// The type for a wire number, or `None` for types this protocol version does not define.
    pub const fn from_u32(value: u32) -> Option<MessageType> {
        Some(match value {
            1 => Self::PutComponent,
            2 => Self::DeleteComponent,
            3 => Self::DeleteEntity,
            4 => Self::AppendValue,
            5 => Self::PutComponentNetwork,
            6 => Self::DeleteComponentNetwork,
            7 => Self::DeleteEntityNetwork,
            _ => return None,
        })
    }

    /// The protocol's name for the type (`"PUT_COMPONENT"`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::PutComponent => "PUT_COMPONENT",
            Self::DeleteComponent => "DELETE_COMPONENT",
            Self::DeleteEntity => "DELETE_ENTITY",
            Self::AppendValue => "APPEND_VALUE",
            Self::PutComponentNetwork => "PUT_COMPONENT_NETWORK",
            Self::DeleteComponentNetwork => "DELETE_COMPONENT_NETWORK",
            Self::DeleteEntityNetwork => "DELETE_ENTITY_NETWORK",
        }
    }

    /// Bytes of the fixed body fields, before any `data` payload.
    pub const fn fixed_body_len(self) -> usize {
        match self {
            Self::PutComponent | Self::AppendValue => 16,
            Self::DeleteComponent => 12,
            Self::DeleteEntity => 4,
            Self::PutComponentNetwork => 20,
            Self::DeleteComponentNetwork => 16,
            Self::DeleteEntityNetwork => 8,
        }
    }

    /// True when the body ends with `data_length` and a payload.
    pub const fn has_data(self) -> bool {
        matches!(
            self,
            Self::PutComponent | Self::AppendValue | Self::PutComponentNetwork
        )
    }
}

/// One CRDT message. `timestamp` is the Lamport counter of the (component, entity) register.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum CrdtMessage {
    /// Set a component's value.
    PutComponent {
        entity: Entity,
        component: u32,
        timestamp: u32,
        data: Vec<u8>,
    },
    /// Remove a component (a tombstone with a timestamp).
    DeleteComponent {
        entity: Entity,
        component: u32,
        timestamp: u32,
    },
    /// Retire an entity number at this version: later messages for it are ignored.
    DeleteEntity { entity: Entity },
    /// Add a value to a grow-only set component.
    AppendValue {
        entity: Entity,
        component: u32,
        timestamp: u32,
        data: Vec<u8>,
    },
    /// PUT_COMPONENT addressed by (network id, the sender's entity).
    PutComponentNetwork {
        entity: Entity,
        component: u32,
        timestamp: u32,
        network_id: u32,
        data: Vec<u8>,
    },
    /// DELETE_COMPONENT addressed by (network id, the sender's entity).
    DeleteComponentNetwork {
        entity: Entity,
        component: u32,
        timestamp: u32,
        network_id: u32,
    },
    /// DELETE_ENTITY addressed by (network id, the sender's entity).
    DeleteEntityNetwork { entity: Entity, network_id: u32 },
}

impl CrdtMessage {
    /// A PUT_COMPONENT of `entity`'s Transform (its 44-byte wire form) at `timestamp`.
    pub fn put_transform(entity: Entity, timestamp: u32, transform: &Transform) -> Self {
        Self::PutComponent {
            entity,
            component: ids::TRANSFORM,
            timestamp,
            data: transform.to_bytes().to_vec(),
        }
    }

    /// The message's type.
    pub fn message_type(&self) -> MessageType {
        match self {
            Self::PutComponent { .. } => MessageType::PutComponent,
            Self::DeleteComponent { .. } => MessageType::DeleteComponent,
            Self::DeleteEntity { .. } => MessageType::DeleteEntity,
            Self::AppendValue { .. } => MessageType::AppendValue,
            Self::PutComponentNetwork { .. } => MessageType::PutComponentNetwork,
            Self::DeleteComponentNetwork { .. } => MessageType::DeleteComponentNetwork,
            Self::DeleteEntityNetwork { .. } => MessageType::DeleteEntityNetwork,
        }
    }

    /// The entity the message names (the sender's entity for *_NETWORK messages).
    pub fn entity(&self) -> Entity {
        match self {
            Self::PutComponent { entity, .. }
            | Self::DeleteComponent { entity, .. }
            | Self::DeleteEntity { entity }
            | Self::AppendValue { entity, .. }
            | Self::PutComponentNetwork { entity, .. }
            | Self::DeleteComponentNetwork { entity, .. }
            | Self::DeleteEntityNetwork { entity, .. } => *entity,
        }
    }

    /// The component id, for component messages.
    pub fn component(&self) -> Option<u32> {
        match self {
            Self::PutComponent { component, .. }
            | Self::DeleteComponent { component, .. }
            | Self::AppendValue { component, .. }
            | Self::PutComponentNetwork { component, .. }
            | Self::DeleteComponentNetwork { component, .. } => Some(*component),
            Self::DeleteEntity { .. } | Self::DeleteEntityNetwork { .. } => None,
        }
    }

    /// The Lamport timestamp, for component messages.
    pub fn timestamp(&self) -> Option<u32> {
        match self {
            Self::PutComponent { timestamp, .. }
            | Self::DeleteComponent { timestamp, .. }
            | Self::AppendValue { timestamp, .. }
            | Self::PutComponentNetwork { timestamp, .. }
            | Self::DeleteComponentNetwork { timestamp, .. } => Some(*timestamp),
            Self::DeleteEntity { .. } | Self::DeleteEntityNetwork { .. } => None,
        }
    }

    /// The payload of PUT and APPEND messages.
    pub fn data(&self) -> Option<&[u8]> {
        match self {
            Self::PutComponent { data, .. }
            | Self::AppendValue { data, .. }
            | Self::PutComponentNetwork { data, .. } => Some(data),
            _ => None,
        }
    }

    /// The network id of *_NETWORK messages.
    pub fn network_id(&self) -> Option<u32> {
        match self {
            Self::PutComponentNetwork { network_id, .. }
            | Self::DeleteComponentNetwork { network_id, .. }
            | Self::DeleteEntityNetwork { network_id, .. } => Some(*network_id),
            _ => None,
        }
    }

    /// The number of bytes [`encode_into`](Self::encode_into) appends.
    pub fn encoded_len(&self) -> usize {
        let ty = self.message_type();
        HEADER_LEN + ty.fixed_body_len() + self.data().map_or(0, <[u8]>::len)
    }

    /// Appends the message's wire bytes to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let len = self.encoded_len();
        out.reserve(len);
        let mut put = |v: u32| out.extend_from_slice(&v.to_le_bytes());
        put(len as u32);
        put(self.message_type() as u32);
        match self {
            Self::PutComponent {
                entity,
                component,
                timestamp,
                data,
            }
            | Self::AppendValue {
                entity,
                component,
                timestamp,
                data,
            } => {
                put(entity.0);
                put(*component);
                put(*timestamp);
                put(data.len() as u32);
                out.extend_from_slice(data);
            }
            Self::DeleteComponent {
                entity,
                component,
                timestamp,
            } => {
                put(entity.0);
                put(*component);
                put(*timestamp);
            }
            Self::DeleteEntity { entity } => put(entity.0),
            Self::PutComponentNetwork {
                entity,
                component,
                timestamp,
                network_id,
                data,
            } => {
                put(entity.0);
                put(*component);
                put(*timestamp);
                put(*network_id);
                put(data.len() as u32);
                out.extend_from_slice(data);
            }
            Self::DeleteComponentNetwork {
                entity,
                component,
                timestamp,
                network_id,
            } => {
                put(entity.0);
                put(*component);
                put(*timestamp);
                put(*network_id);
            }
            Self::DeleteEntityNetwork { entity, network_id } => {
                put(entity.0);
                put(*network_id);
            }
        }
    }

    /// The message's wire bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut out);
        out
    }
}

/// Concatenates messages into one stream.
pub fn encode_stream<'a>(messages: impl IntoIterator<Item = &'a CrdtMessage>) -> Vec<u8> {
    let mut out = Vec::new();
    for msg in messages {
        msg.encode_into(&mut out);
    }
    out
}

impl fmt::Debug for CrdtMessage {
    /// A one-line summary; payloads are shown by size, not dumped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(e={}", self.message_type().name(), self.entity())?;
        if let Some(c) = self.component() {
            write!(f, " c={c}")?;
        }
        if let Some(t) = self.timestamp() {
            write!(f, " t={t}")?;
        }
        if let Some(n) = self.network_id() {
            write!(f, " net={n}")?;
        }
        if let Some(d) = self.data() {
            write!(f, " {} bytes", d.len())?;
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_component_layout_matches_the_reference() {
        let msg = CrdtMessage::PutComponent {
            entity: Entity(512),
            component: 1,
            timestamp: 7,
            data: vec![0xAA, 0xBB],
        };
        let bytes = msg.to_bytes();
        let words: Vec<u32> = bytes[..24]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words, [26, 1, 512, 1, 7, 2]);
        assert_eq!(&bytes[24..], &[0xAA, 0xBB]);
    }

    #[test]
    fn every_type_encodes_its_declared_length() {
        let e = Entity(600);
        let all = [
            CrdtMessage::PutComponent {
                entity: e,
                component: 1,
                timestamp: 1,
                data: vec![1; 3],
            },
            CrdtMessage::DeleteComponent {
                entity: e,
                component: 1,
                timestamp: 2,
            },
            CrdtMessage::DeleteEntity { entity: e },
            CrdtMessage::AppendValue {
                entity: e,
                component: 1063,
                timestamp: 0,
                data: vec![9],
            },
            CrdtMessage::PutComponentNetwork {
                entity: e,
                component: 1,
                timestamp: 1,
                network_id: 4,
                data: vec![],
            },
            CrdtMessage::DeleteComponentNetwork {
                entity: e,
                component: 1,
                timestamp: 1,
                network_id: 4,
            },
            CrdtMessage::DeleteEntityNetwork {
                entity: e,
                network_id: 4,
            },
        ];
        let expected_len = [27, 20, 12, 25, 28, 24, 16];
        for (msg, want) in all.iter().zip(expected_len) {
            let bytes = msg.to_bytes();
            assert_eq!(bytes.len(), want, "{msg:?}");
            assert_eq!(
                u32::from_le_bytes(bytes[0..4].try_into().unwrap()) as usize,
                want
            );
            assert_eq!(
                u32::from_le_bytes(bytes[4..8].try_into().unwrap()),
                msg.message_type() as u32
            );
        }
    }
}
