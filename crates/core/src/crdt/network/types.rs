//! The plain values of the network: peers, message ids, in-flight messages, local writes,
//! delivery settings, reports and errors.

use std::fmt;

use crate::crdt::message::CrdtMessage;
use crate::crdt::replica::WriteError;
use crate::model::{Entity, Transform, encode_name, ids};

use super::{MAX_PEERS, MIN_PEERS};

/// A peer, numbered from 1 as users read it ("peer 1"). Valid numbers are `1..=peer_count`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PeerId(pub u8);

impl PeerId {
    /// The peer's position in per-peer lists (peer 1 → 0).
    pub fn index(self) -> usize {
        usize::from(self.0).wrapping_sub(1)
    }

    /// The peer at a list position (0 → peer 1).
    pub fn from_index(index: usize) -> PeerId {
        PeerId(u8::try_from(index + 1).unwrap_or(u8::MAX))
    }
}

impl fmt::Display for PeerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "peer {}", self.0)
    }
}

/// A message's id, unique within one network run (assigned 1, 2, 3, … in send order, so a
/// replay assigns the same ids).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MessageId(pub u64);

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Why a message was sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// A local write broadcast by its author.
    Write,
    /// The receiver's newer state, sent back to an outdated sender.
    Reply,
    /// A DELETE_COMPONENT the receiver of a DELETE_ENTITY broadcasts for each component it held.
    Announcement,
}

impl MessageKind {
    /// `"write"`, `"reply"` or `"announcement"`.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::Write => "write",
            MessageKind::Reply => "reply",
            MessageKind::Announcement => "announcement",
        }
    }
}

/// A message on its way from one peer to another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// Its id.
    pub id: MessageId,
    /// The sending peer.
    pub from: PeerId,
    /// The receiving peer.
    pub to: PeerId,
    /// What it carries.
    pub message: CrdtMessage,
    /// Why it was sent.
    pub kind: MessageKind,
    /// The clock (ticks) when it was sent.
    pub sent_at: u64,
    /// For a reply or an announcement, the message whose delivery caused it; for a duplicate,
    /// the message it copies.
    pub cause: Option<MessageId>,
}

/// A write a peer authors locally, as data (so runs can be replayed and saved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalWrite {
    /// Set a last-writer-wins component (a Transform is its exact 44 bytes).
    Put {
        entity: Entity,
        component: u32,
        data: Vec<u8>,
    },
    /// Add a value to a grow-only set component.
    Append {
        entity: Entity,
        component: u32,
        data: Vec<u8>,
    },
    /// Remove a component.
    DeleteComponent { entity: Entity, component: u32 },
    /// Delete an entity: its components, then its id.
    DeleteEntity { entity: Entity },
    /// Messages the peer already authored outside the network, e.g. by an editor document that
    /// owns its own replica (its outbox): applied to the peer's replica here, in order, so the
    /// two stay equal, and sent to the other peers like any write.
    Authored { messages: Vec<CrdtMessage> },
}

impl LocalWrite {
    /// Writes a Transform (local values relative to `transform.parent`).
    pub fn transform(entity: Entity, transform: &Transform) -> LocalWrite {
        LocalWrite::Put {
            entity,
            component: Transform::COMPONENT_ID,
            data: transform.to_bytes().to_vec(),
        }
    }

    /// Sets a last-writer-wins component to `value`, or removes it (`None`).
    pub fn register(entity: Entity, component: u32, value: Option<Vec<u8>>) -> LocalWrite {
        match value {
            Some(data) => LocalWrite::Put {
                entity,
                component,
                data,
            },
            None => LocalWrite::DeleteComponent { entity, component },
        }
    }

    /// Writes the `core-schema::Name` component.
    pub fn name(entity: Entity, name: &str) -> LocalWrite {
        LocalWrite::Put {
            entity,
            component: ids::NAME,
            data: encode_name(name),
        }
    }
}

/// Automatic delivery: a message becomes due `latency` ticks after it was sent, plus a jitter
/// of 0 to `jitter` ticks fixed per message by the seed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AutoDelivery {
    /// Ticks every message travels.
    pub latency: u64,
    /// Most extra ticks a message may take (0 = none).
    pub jitter: u64,
}

/// In which order [`Network::deliver_all`](super::Network::deliver_all) delivers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DeliveryOrder {
    /// The in-flight list from its front (send order, unless reordered).
    Send,
    /// The in-flight list from its back (newest first, replies included).
    Reverse,
    /// A random deliverable message each time, drawn from the network's seeded generator.
    Random,
}

impl DeliveryOrder {
    /// `"send"`, `"reverse"` or `"random"`.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryOrder::Send => "send",
            DeliveryOrder::Reverse => "reverse",
            DeliveryOrder::Random => "random",
        }
    }
}

/// Which in-flight messages a bulk operation touches (`None` = any peer).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MessageFilter {
    /// Only messages from this peer.
    pub from: Option<PeerId>,
    /// Only messages to this peer.
    pub to: Option<PeerId>,
}

impl MessageFilter {
    /// Every message.
    pub const ALL: MessageFilter = MessageFilter {
        from: None,
        to: None,
    };

    /// True when the message passes the filter.
    pub fn matches(&self, m: &InFlight) -> bool {
        self.from.is_none_or(|p| p == m.from) && self.to.is_none_or(|p| p == m.to)
    }
}

/// What a bulk delivery did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeliveryReport {
    /// Messages delivered, in order.
    pub delivered: Vec<MessageId>,
    /// Matching messages still in flight because a peer they involve is offline (or, with
    /// auto-delivery, because they are not due yet).
    pub waiting: usize,
    /// True when [`MAX_DELIVERIES_PER_CALL`](super::MAX_DELIVERIES_PER_CALL) stopped the call.
    pub capped: bool,
}

/// What a local write produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteReceipt {
    /// The messages the peer broadcasts (empty when the write changed nothing).
    pub messages: Vec<CrdtMessage>,
    /// The in-flight ids, message by message, peer by peer (ascending).
    pub sent: Vec<MessageId>,
    /// The in-flight messages the write replaced: its peer's earlier write of the same
    /// register in the same tick, not sent yet (see
    /// [`Network::one_message_per_tick`](super::Network::one_message_per_tick)).
    pub replaced: Vec<MessageId>,
}

/// Why a network operation was refused. A refused operation changes nothing and records no
/// event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    /// Networks hold 2 to 8 peers.
    #[error("a network holds {MIN_PEERS} to {MAX_PEERS} peers, not {0}")]
    PeerCount(usize),
    /// No such peer in this network.
    #[error("there is no {0} (peers are numbered from 1)")]
    UnknownPeer(PeerId),
    /// The message is not in flight (delivered, dropped, or never sent).
    #[error("message {0} is not in flight")]
    UnknownMessage(MessageId),
    /// A peer the message involves is offline; the message waits.
    #[error("message {id} waits: {peer} is offline")]
    PeerOffline { id: MessageId, peer: PeerId },
    /// A position outside the in-flight list.
    #[error("position {index} is outside the in-flight list of {len} messages")]
    BadIndex { index: usize, len: usize },
    /// The peer's replica refused the write.
    #[error("{peer} cannot write: {source}")]
    Write { peer: PeerId, source: WriteError },
    /// A timeline position past the last event.
    #[error("the timeline has {len} events; there is no position {index}")]
    NoSuchEvent { index: usize, len: usize },
    /// A seek back on a network that keeps no timeline (a live session's).
    #[error("this network keeps no timeline to go back on")]
    NoTimeline,
}
