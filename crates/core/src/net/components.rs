//! The three components the sync layer adds, byte for byte as `@dcl/ecs` 7.28.0 serializes
//! them (`components/manual/{NetworkEntity,NetworkParent,SyncComponents}.js`; every integer
//! little-endian):
//!
//! | component | id | layout |
//! |---|---|---|
//! | `core-schema::Network-Entity` | 1075645054 | networkId: Int64 (8 bytes), entityId: u32 |
//! | `core-schema::Network-Parent` | 1420531287 | networkId: Int64 (8 bytes), entityId: u32 |
//! | `core-schema::Sync-Components` | 2241712969 | count: u32, then count × Int64 |
//!
//! The runtime keeps the *decoded* value and serializes it again whenever it compares or sends
//! it, so bytes past the schema are dropped and an Int64 goes through a JS number (exact up to
//! 2⁵³). [`canonical_value`] gives those bytes.

use crate::model::ids;

/// `core-schema::Sync-Components`.
pub const SYNC_COMPONENTS: u32 = 2_241_712_969;

/// The value of NetworkEntity (which network entity a local entity is) and of NetworkParent
/// (which network entity is its parent): the owner's network id (0 for entities synced with a
/// fixed id) and the owner's entity (or the fixed id).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NetworkIdentity {
    /// The owner's network id, as the Int64 it is stored as.
    pub network_id: i64,
    /// The owner's local entity (version bits included), or the fixed id.
    pub entity_id: u32,
}

/// Why a component value does not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{component} needs {needed} bytes, the value has {got}")]
pub struct ValueError {
    /// The component's name.
    pub component: &'static str,
    /// Bytes its schema reads.
    pub needed: usize,
    /// Bytes the value has.
    pub got: usize,
}

/// Bytes of a NetworkEntity or NetworkParent value.
pub const IDENTITY_LEN: usize = 12;

/// An Int64 as the runtime keeps it: through a JS number.
fn through_js_number(value: i64) -> i64 {
    value as f64 as i64
}

impl NetworkIdentity {
    /// The identity the SDK compares a wire message's `(networkId, entityId)` with.
    pub fn new(network_id: u32, entity_id: u32) -> Self {
        NetworkIdentity {
            network_id: i64::from(network_id),
            entity_id,
        }
    }

    /// The 12 bytes of the value.
    pub fn to_bytes(self) -> [u8; IDENTITY_LEN] {
        let mut out = [0; IDENTITY_LEN];
        out[..8].copy_from_slice(&self.network_id.to_le_bytes());
        out[8..].copy_from_slice(&self.entity_id.to_le_bytes());
        out
    }

    /// Decodes a value of `component` (named in errors); bytes past the 12 are ignored, as the
    /// runtime's reader ignores them.
    pub fn from_bytes(data: &[u8], component: &'static str) -> Result<Self, ValueError> {
        let bytes = data.first_chunk::<IDENTITY_LEN>().ok_or(ValueError {
            component,
            needed: IDENTITY_LEN,
            got: data.len(),
        })?;
        let mut network = [0; 8];
        network.copy_from_slice(&bytes[..8]);
        Ok(NetworkIdentity {
            network_id: through_js_number(i64::from_le_bytes(network)),
            entity_id: u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]),
        })
    }

    /// The network id as the SDK writes it into a message's u32 field (`setUint32`: modulo 2³²).
    pub fn wire_network_id(self) -> u32 {
        self.network_id as u32
    }

    /// True when this identity names the wire pair `(network_id, entity_id)` (`findNetworkId`'s
    /// comparison: the Int64 equals the u32 network id).
    pub fn names(self, network_id: u32, entity_id: u32) -> bool {
        self.network_id == i64::from(network_id) && self.entity_id == entity_id
    }
}

/// Encodes a SyncComponents value.
pub fn encode_sync_components(component_ids: &[i64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 8 * component_ids.len());
    out.extend_from_slice(&(component_ids.len() as u32).to_le_bytes());
    for id in component_ids {
        out.extend_from_slice(&id.to_le_bytes());
    }
    out
}

/// Decodes a SyncComponents value.
pub fn decode_sync_components(data: &[u8]) -> Result<Vec<i64>, ValueError> {
    let err = || ValueError {
        component: "core-schema::Sync-Components",
        needed: 4,
        got: data.len(),
    };
    let count = data.first_chunk::<4>().ok_or_else(err)?;
    let count = u32::from_le_bytes(*count) as usize;
    let needed = 4usize.saturating_add(count.saturating_mul(8));
    let body = data.get(4..needed).ok_or(ValueError { needed, ..err() })?;
    Ok(body
        .chunks_exact(8)
        .map(|c| {
            let mut word = [0; 8];
            word.copy_from_slice(c);
            through_js_number(i64::from_le_bytes(word))
        })
        .collect())
}

/// The bytes the runtime stores (and later compares and sends) for a value of one of the
/// network components: what its schema reads, re-encoded; `None` for other components, whose
/// bytes scenetree keeps as they came.
pub fn canonical_value(component: u32, data: &[u8]) -> Option<Result<Vec<u8>, ValueError>> {
    match component {
        ids::NETWORK_ENTITY => Some(
            NetworkIdentity::from_bytes(data, "core-schema::Network-Entity")
                .map(|v| v.to_bytes().to_vec()),
        ),
        ids::NETWORK_PARENT => Some(
            NetworkIdentity::from_bytes(data, "core-schema::Network-Parent")
                .map(|v| v.to_bytes().to_vec()),
        ),
        SYNC_COMPONENTS => {
            Some(decode_sync_components(data).map(|ids| encode_sync_components(&ids)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::component_id_from_name;

    #[test]
    fn ids_are_the_hashes_of_the_names() {
        assert_eq!(
            component_id_from_name("core-schema::Sync-Components"),
            SYNC_COMPONENTS
        );
        assert_eq!(
            component_id_from_name("core-schema::Network-Entity"),
            ids::NETWORK_ENTITY
        );
    }

    #[test]
    fn identity_layout_is_int64_then_u32() {
        let value = NetworkIdentity::new(3_248_898_687, 513);
        let bytes = value.to_bytes();
        assert_eq!(&bytes[..8], &3_248_898_687i64.to_le_bytes());
        assert_eq!(&bytes[8..], &513u32.to_le_bytes());
        let mut longer = bytes.to_vec();
        longer.push(9);
        assert_eq!(NetworkIdentity::from_bytes(&longer, "x"), Ok(value));
        assert_eq!(
            canonical_value(ids::NETWORK_PARENT, &longer),
            Some(Ok(bytes.to_vec()))
        );
        assert!(NetworkIdentity::from_bytes(&bytes[..11], "x").is_err());
    }

    #[test]
    fn sync_components_round_trip_and_refuse_short_values() {
        let bytes = encode_sync_components(&[1, 1018]);
        assert_eq!(bytes.len(), 4 + 16);
        assert_eq!(&bytes[..4], &2u32.to_le_bytes());
        assert_eq!(decode_sync_components(&bytes), Ok(vec![1, 1018]));
        let err = decode_sync_components(&bytes[..19]).unwrap_err();
        assert_eq!((err.needed, err.got), (20, 19));
        // A count near u32::MAX is refused without allocating.
        assert!(decode_sync_components(&[0xFF; 4]).is_err());
    }

    #[test]
    fn int64_values_go_through_a_js_number() {
        let big = (1i64 << 60) + 1;
        let value = NetworkIdentity {
            network_id: big,
            entity_id: 1,
        };
        let read = NetworkIdentity::from_bytes(&value.to_bytes(), "x").unwrap();
        assert_eq!(read.network_id, 1i64 << 60);
    }
}
