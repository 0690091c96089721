//! The messages of a tick, between its receive and its send: what came in on a transport, and
//! what goes out to the others at the end of the tick.

use std::sync::Arc;

use crate::crdt::CrdtMessage;
use crate::crdt::replica::canonical_transform_bytes;
use crate::model::{Entity, Transform};

/// The transport a message came in on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Another player, through comms.
    Network,
    /// The player's own renderer.
    Renderer,
}

/// A message received and waiting for the next tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Received {
    /// The message as it came (for *_NETWORK messages, in the sender's terms).
    pub message: CrdtMessage,
    /// Where it came from.
    pub origin: Origin,
    /// The sending player's address, when known.
    pub sender: Option<Arc<str>>,
    /// The state response it came in, numbered per receiving player from 1 (`None` for plain
    /// CRDT items).
    pub state_response: Option<u32>,
}

/// A message on its way out at the end of a tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Forward {
    /// The message (a received one as it came, possibly with its parent stripped). Its
    /// encoding is the runtime's `messageBuffer`: the decoder accepts only messages whose
    /// bytes it writes back the same.
    pub message: CrdtMessage,
    /// The transport it came from; `None` for the scene's own writes.
    pub origin: Option<Origin>,
    /// For received messages, who sent them and in which state response.
    pub sender: Option<Arc<str>>,
    /// See [`Received::state_response`].
    pub state_response: Option<u32>,
    /// For a received delete of an entity, the local entity it deleted.
    pub deleted_local: Option<Entity>,
}

impl Forward {
    pub(super) fn received(received: Received, deleted_local: Option<Entity>) -> Forward {
        Forward {
            message: received.message,
            origin: Some(received.origin),
            sender: received.sender,
            state_response: received.state_response,
            deleted_local,
        }
    }

    pub(super) fn own(message: CrdtMessage) -> Forward {
        Forward {
            message,
            origin: None,
            sender: None,
            state_response: None,
            deleted_local: None,
        }
    }
}

/// A Transform's bytes (at least 44) with the parent replaced, re-encoded as the runtime's
/// `fixTransformParent` does.
pub(super) fn with_parent(data: &[u8], parent: Entity) -> Option<[u8; Transform::BYTE_LEN]> {
    let mut bytes = canonical_transform_bytes(data)?;
    bytes[40..].copy_from_slice(&parent.0.to_le_bytes());
    Some(bytes)
}
