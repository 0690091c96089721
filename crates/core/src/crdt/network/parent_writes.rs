//! The Transform writes each peer received, in the order it received them, with where each
//! value was first written: what history-dependent tree policies (`scene::policy`) read.
//!
//! The network's timeline already records every write and delivery; [`ParentWriteTracker`]
//! reads it event by event and says, for each event, which Transform values reached which
//! peer. The one fact the timeline does not spell out is a value's *origin*: the local write
//! that first produced it. A duplicate carries its original's origin, and a reply (the newer
//! state a receiver sends back to an outdated sender) carries the origin of the value the
//! replying peer holds, so a policy can tell "a new write" from "a write I already have".

use rustc_hash::FxHashMap;

use super::{Event, EventKind, MessageId, Network, PeerId};
use crate::crdt::message::CrdtMessage;
use crate::crdt::replica::{ApplyOutcome, Replica, canonical_transform_bytes, compare_data};
use crate::model::{Entity, Transform};

/// Where a Transform value was first written.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WriteOrigin {
    /// In the state every peer started from.
    Initial,
    /// The `serial`-th Transform write (from 1) that `peer` authored: a local write, or the
    /// DELETE_COMPONENT a peer announces when it applies a DELETE_ENTITY.
    Authored { peer: PeerId, serial: u32 },
}

/// One Transform value reaching one peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParentWrite {
    /// The peer that wrote or received it.
    pub peer: PeerId,
    /// The entity whose Transform it sets or removes.
    pub entity: Entity,
    /// The Transform as the runtime stores it (44 bytes), or `None` when the write removes it.
    pub value: Option<[u8; Transform::BYTE_LEN]>,
    /// The register's Lamport timestamp (per entity and component, as in the protocol).
    pub timestamp: u32,
    /// The local write that first produced this value.
    pub origin: WriteOrigin,
    /// True when `peer` authored it here (a local write or an announcement), false when it
    /// arrived in a message.
    pub local: bool,
    /// True when the peer's replica took it (it became the declared Transform); false when
    /// last-writer-wins kept a newer value, or the entity was already deleted there.
    pub accepted: bool,
    /// For a local write merged into its peer's earlier write of the same register within one
    /// tick ("one message per tick"): that earlier write, whose messages this one replaced. No
    /// other peer ever receives the earlier value; this write's messages stand for both.
    pub replaces: Option<WriteOrigin>,
}

impl ParentWrite {
    /// The parent the write declares; the root when it removes the Transform (an entity
    /// without a Transform is drawn at the root).
    pub fn parent(&self) -> Entity {
        self.value
            .map_or(Entity::ROOT, |v| Transform::from_array(&v).parent)
    }

    /// Orders two writes of the same entity as the register does: the newer timestamp, then
    /// the greater value (a removal is the smallest) wins.
    pub fn register_order(&self, other: &ParentWrite) -> std::cmp::Ordering {
        self.timestamp.cmp(&other.timestamp).then_with(|| {
            compare_data(
                self.value.as_ref().map(|v| &v[..]),
                other.value.as_ref().map(|v| &v[..]),
            )
        })
    }
}

/// Reads a network's timeline event by event and reports the Transform writes each event
/// brought to each peer. Feed it the events in timeline order, starting from the first.
#[derive(Clone, Debug)]
pub struct ParentWriteTracker {
    peers: usize,
    /// Origins of the Transform messages in flight.
    in_flight: FxHashMap<MessageId, WriteOrigin>,
    /// Per peer: the origin of the Transform value (or removal) its replica holds, where it
    /// did not start with it.
    held: Vec<FxHashMap<Entity, WriteOrigin>>,
    /// Per peer: how many Transform writes it authored.
    authored: Vec<u32>,
}

impl ParentWriteTracker {
    /// A tracker at the start of `network`'s timeline.
    pub fn new(network: &Network) -> ParentWriteTracker {
        let peers = network.peer_count();
        ParentWriteTracker {
            peers,
            in_flight: FxHashMap::default(),
            held: vec![FxHashMap::default(); peers],
            authored: vec![0; peers],
        }
    }

    /// The Transforms every peer starts with, in ascending entity order, as writes of
    /// `peer` with origin [`WriteOrigin::Initial`].
    pub fn initial_writes(initial: &Replica, peer: PeerId) -> Vec<ParentWrite> {
        let mut out: Vec<ParentWrite> = initial
            .live_entities()
            .filter(|entity| !entity.is_root())
            .filter_map(|entity| {
                let data = initial.component_data(entity, Transform::COMPONENT_ID)?;
                Some(ParentWrite {
                    peer,
                    entity,
                    value: Some(canonical_transform_bytes(data)?),
                    timestamp: initial.timestamp(entity, Transform::COMPONENT_ID),
                    origin: WriteOrigin::Initial,
                    local: false,
                    accepted: true,
                    replaces: None,
                })
            })
            .collect();
        out.sort_unstable_by_key(|w| w.entity);
        out
    }

    /// Appends to `out` the Transform writes `event` brought, in the order they happened.
    pub fn track(&mut self, event: &Event, out: &mut Vec<ParentWrite>) {
        match &event.kind {
            EventKind::Write {
                peer,
                messages,
                sent,
                replaced,
                ..
            } => {
                let mut replaces = None;
                for id in replaced {
                    replaces = self.in_flight.remove(id).or(replaces);
                }
                let first = out.len();
                self.broadcast(*peer, messages, sent, out);
                if let Some(write) = out.get_mut(first) {
                    write.replaces = replaces;
                }
            }
            EventKind::Deliver {
                message,
                outcome,
                sent,
            } => {
                let to = message.to;
                let origin = self.in_flight.remove(&message.id);
                if let Some((entity, value, timestamp)) = transform_value(&message.message) {
                    let origin = origin.unwrap_or(WriteOrigin::Initial);
                    let accepted = outcome.changed_state();
                    if accepted {
                        self.held[to.index()].insert(entity, origin);
                    }
                    out.push(ParentWrite {
                        peer: to,
                        entity,
                        value,
                        timestamp,
                        origin,
                        local: false,
                        accepted,
                        replaces: None,
                    });
                    if outcome.reply().is_some()
                        && let Some(&reply) = sent.first()
                    {
                        let held = self.held_origin(to, entity);
                        self.in_flight.insert(reply, held);
                    }
                }
                if let ApplyOutcome::EntityDeleted { announcements } = outcome {
                    self.broadcast(to, announcements, sent, out);
                }
            }
            EventKind::Duplicate { original, copy } => {
                if let Some(&origin) = self.in_flight.get(original) {
                    self.in_flight.insert(*copy, origin);
                }
            }
            EventKind::Drop { message } => {
                self.in_flight.remove(&message.id);
            }
            EventKind::Reorder { .. }
            | EventKind::SetOnline { .. }
            | EventKind::Tick { .. }
            | EventKind::SetAutoDelivery { .. }
            | EventKind::SetOneMessagePerTick { .. } => {}
        }
    }

    /// The origin of the Transform value `peer` holds for `entity`.
    fn held_origin(&self, peer: PeerId, entity: Entity) -> WriteOrigin {
        self.held[peer.index()]
            .get(&entity)
            .copied()
            .unwrap_or(WriteOrigin::Initial)
    }

    /// Messages `peer` authored and broadcast: `sent` holds their ids message by message, one
    /// per other peer (as `Network` sends them).
    fn broadcast(
        &mut self,
        peer: PeerId,
        messages: &[CrdtMessage],
        sent: &[MessageId],
        out: &mut Vec<ParentWrite>,
    ) {
        let fan_out = self.peers - 1;
        for (i, message) in messages.iter().enumerate() {
            let ids = sent.get(i * fan_out..(i + 1) * fan_out).unwrap_or(&[]);
            self.author(peer, message, ids, out);
        }
    }

    /// A Transform message `peer` authored and sent under `ids`.
    fn author(
        &mut self,
        peer: PeerId,
        message: &CrdtMessage,
        ids: &[MessageId],
        out: &mut Vec<ParentWrite>,
    ) {
        let Some((entity, value, timestamp)) = transform_value(message) else {
            return;
        };
        let serial = &mut self.authored[peer.index()];
        *serial += 1;
        let origin = WriteOrigin::Authored {
            peer,
            serial: *serial,
        };
        self.held[peer.index()].insert(entity, origin);
        for id in ids {
            self.in_flight.insert(*id, origin);
        }
        out.push(ParentWrite {
            peer,
            entity,
            value,
            timestamp,
            origin,
            local: true,
            accepted: true,
            replaces: None,
        });
    }
}

/// The entity, stored value and timestamp of a Transform PUT or DELETE_COMPONENT; `None` for
/// other messages, the root entity, and Transforms too short to decode (the runtime refuses
/// those).
fn transform_value(
    message: &CrdtMessage,
) -> Option<(Entity, Option<[u8; Transform::BYTE_LEN]>, u32)> {
    if message.component() != Some(Transform::COMPONENT_ID) || message.entity().is_root() {
        return None;
    }
    let timestamp = message.timestamp()?;
    let value = match message {
        CrdtMessage::PutComponent { data, .. } | CrdtMessage::PutComponentNetwork { data, .. } => {
            Some(canonical_transform_bytes(data)?)
        }
        CrdtMessage::DeleteComponent { .. } | CrdtMessage::DeleteComponentNetwork { .. } => None,
        _ => return None,
    };
    Some((message.entity(), value, timestamp))
}
