//! "One message per tick": a peer's writes to one register within one tick of the network
//! clock travel as one message, as the reference runtime sends them.
//!
//! `@dcl/ecs` marks a written (entity, component) dirty and sends, at the end of the engine
//! tick, one message per dirty register carrying its value at that moment, its timestamp
//! bumped once (`getCrdtUpdates` in `engine/lww-element-set-component-definition.js`). So a
//! gizmo drag that writes a Transform every frame reaches the other peers as one message per
//! tick, not one per frame.
//!
//! The simulation sends a write's messages at once, so they can be inspected, delivered or
//! dropped like any other; while they are still *unsent in the runtime's sense* (same tick,
//! none of them delivered, dropped or copied, and the writer has received nothing for that
//! entity since), a later write of the same register by the same peer replaces them: the
//! writer's register takes the new value and keeps the timestamp of the first write of the
//! tick ([`Replica::rewrite_unsent`]), and new messages carrying it take the old ones' places in
//! the in-flight list (new ids, so anything that followed the old ids sees them go). Entity
//! deletions, grow-only appends and authored streams are never merged (the runtime sends every
//! one of them). The setting is part of the network's state and its timeline, so a replay or a
//! saved run does exactly what the original did.
//!
//! [`Replica::rewrite_unsent`]: crate::crdt::Replica::rewrite_unsent

use rustc_hash::FxHashMap;

use super::timeline::EventKind;
use super::{InFlight, LocalWrite, MessageId, MessageKind, Network, NetworkError, PeerId};
use crate::crdt::message::CrdtMessage;
use crate::model::Entity;

/// A write whose messages the runtime would not have sent yet: they can still be replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct UnsentWrite {
    peer: PeerId,
    entity: Entity,
    component: u32,
    /// The timestamp the tick's first write gave the register (later writes keep it).
    timestamp: u32,
    /// Its in-flight messages, one per receiving peer, ascending.
    ids: Vec<MessageId>,
}

/// A register as the open writes key it: (writer, entity, component).
type Register = (PeerId, Entity, u32);

/// The open writes: at most one per register, found by register, by one of its messages, or
/// by (writer, entity), so that each write, delivery and drop costs O(1) however many writes
/// a tick holds (a scan per delivery made delivering n messages quadratic).
#[derive(Clone, Debug, Default)]
pub(super) struct UnsentWrites {
    by_register: FxHashMap<Register, UnsentWrite>,
    by_message: FxHashMap<MessageId, Register>,
    /// The components of each (writer, entity) with an open write.
    by_entity: FxHashMap<(PeerId, Entity), Vec<u32>>,
}

impl UnsentWrites {
    fn insert(&mut self, write: UnsentWrite) {
        let key = (write.peer, write.entity, write.component);
        self.remove(key);
        for &id in &write.ids {
            self.by_message.insert(id, key);
        }
        (self.by_entity.entry((key.0, key.1)).or_default()).push(key.2);
        self.by_register.insert(key, write);
    }

    fn remove(&mut self, key: Register) -> Option<UnsentWrite> {
        let write = self.by_register.remove(&key)?;
        for id in &write.ids {
            self.by_message.remove(id);
        }
        if let Some(components) = self.by_entity.get_mut(&(key.0, key.1)) {
            components.retain(|&c| c != key.2);
            if components.is_empty() {
                self.by_entity.remove(&(key.0, key.1));
            }
        }
        Some(write)
    }

    /// Closes every open write of `peer` to `entity`.
    fn remove_entity(&mut self, peer: PeerId, entity: Entity) {
        for component in self
            .by_entity
            .get(&(peer, entity))
            .cloned()
            .unwrap_or_default()
        {
            self.remove((peer, entity, component));
        }
    }

    /// Closes the write `id` is a message of.
    fn remove_message(&mut self, id: MessageId) {
        if let Some(key) = self.by_message.get(&id).copied() {
            self.remove(key);
        }
    }

    fn clear(&mut self) {
        *self = UnsentWrites::default();
    }
}

/// The register a write that can be merged sets or removes, and the value (`None` removes).
fn mergeable(write: &LocalWrite) -> Option<(Entity, u32, Option<&[u8]>)> {
    match write {
        LocalWrite::Put {
            entity,
            component,
            data,
        } => Some((*entity, *component, Some(data))),
        LocalWrite::DeleteComponent { entity, component } => Some((*entity, *component, None)),
        LocalWrite::Append { .. }
        | LocalWrite::DeleteEntity { .. }
        | LocalWrite::Authored { .. } => None,
    }
}

impl Network {
    /// True when a peer's writes to one register within one tick travel as one message (the
    /// runtime's behaviour; on for a new network). Off, every write is a message of its own.
    pub fn one_message_per_tick(&self) -> bool {
        self.state.one_message_per_tick
    }

    /// The setting the run started with (what a saved run must start with to replay).
    pub fn starts_with_one_message_per_tick(&self) -> bool {
        self.start.one_message_per_tick
    }

    /// Turns "one message per tick" on or off from now on (recorded on the timeline). Writes
    /// made before stay as they were sent.
    pub fn set_one_message_per_tick(&mut self, on: bool) {
        self.record(super::Op::SetOneMessagePerTick { on })
            .expect("changing the setting cannot fail");
    }

    /// This network, its timeline emptied, starting with "one message per tick" `on` (for a
    /// run saved with either setting).
    pub fn with_one_message_per_tick(mut self, on: bool) -> Network {
        self.start.one_message_per_tick = on;
        self.state = self.start.clone();
        self.log.clear();
        self.serials.clear();
        self.last_serial += 1;
        self.start_serial = self.last_serial;
        self.cursor = 0;
        self.epoch += 1;
        self.rewind = None;
        self
    }

    /// Merges `peer`'s write into the messages of its earlier, still unsent write of the same
    /// register, when the setting is on and there is one. `None` when the write is to be sent
    /// as usual.
    pub(super) fn merge_unsent(
        &mut self,
        peer: PeerId,
        write: &LocalWrite,
    ) -> Option<Result<Option<EventKind>, NetworkError>> {
        if !self.state.one_message_per_tick {
            return None;
        }
        let (entity, component, value) = mergeable(write)?;
        let key = (peer, entity, component);
        let open = self.state.unsent.by_register.get(&key)?;
        let timestamp = open.timestamp;
        let all_in_flight = (open.ids.iter()).all(|&id| self.state.in_flight.message(id).is_some());
        let replica = &mut self.state.replicas[peer.index()];
        if !all_in_flight || replica.timestamp(entity, component) != timestamp {
            // Every way a message leaves or the register moves closes the write; this only
            // guards against a state that cannot arise.
            self.state.unsent.remove(key);
            return None;
        }
        let message =
            match replica.rewrite_unsent(entity, component, value.map(<[u8]>::to_vec), timestamp) {
                Ok(Some(message)) => message,
                Ok(None) => return Some(Ok(None)),
                Err(source) => return Some(Err(NetworkError::Write { peer, source })),
            };
        let mut open = (self.state.unsent.remove(key)).expect("found above");
        let replaced = std::mem::take(&mut open.ids);
        let mut sent = Vec::with_capacity(replaced.len());
        for &old in &replaced {
            let id = MessageId(self.state.next_id);
            self.state.next_id += 1;
            let to = self.state.in_flight.message(old).expect("checked above").to;
            let new = InFlight {
                id,
                from: peer,
                to,
                message: message.clone(),
                kind: MessageKind::Write,
                sent_at: self.state.now,
                cause: None,
            };
            self.state.in_flight.replace(old, new);
            sent.push(id);
        }
        open.ids = sent.clone();
        self.state.unsent.insert(open);
        Some(Ok(Some(EventKind::Write {
            peer,
            write: write.clone(),
            messages: vec![message],
            sent,
            replaced,
        })))
    }

    /// Notes a write `peer` just sent under `sent`: a register write stays open for merging
    /// until the tick ends; any other write closes the open writes of the entities it touched.
    pub(super) fn note_sent_write(
        &mut self,
        peer: PeerId,
        write: &LocalWrite,
        messages: &[CrdtMessage],
        sent: &[MessageId],
    ) {
        let unsent = &mut self.state.unsent;
        let Some((entity, component, _)) = mergeable(write) else {
            for m in messages {
                unsent.remove_entity(peer, m.entity());
            }
            return;
        };
        unsent.remove((peer, entity, component));
        if !self.state.one_message_per_tick {
            return;
        }
        if let [message] = messages
            && let Some(timestamp) = message.timestamp()
        {
            unsent.insert(UnsentWrite {
                peer,
                entity,
                component,
                timestamp,
                ids: sent.to_vec(),
            });
        }
    }

    /// A message left the list or was copied: the write it belongs to counts as sent.
    pub(super) fn note_message_gone(&mut self, id: MessageId) {
        self.state.unsent.remove_message(id);
    }

    /// A message reached its receiver: besides the message itself, the receiver's open writes
    /// of that entity close (its register may now hold what it received).
    pub(super) fn note_delivered(&mut self, message: &InFlight) {
        self.state
            .unsent
            .remove_entity(message.to, message.message.entity());
        self.state.unsent.remove_message(message.id);
    }

    /// The tick ended (the clock moved) or the setting changed: everything written counts as
    /// sent.
    pub(super) fn close_unsent(&mut self) {
        self.state.unsent.clear();
    }
}
