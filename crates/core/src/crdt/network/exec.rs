//! Executing one primitive operation on the network's state, and the random draws.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::timeline::{EventKind, Op};
use super::{InFlight, LocalWrite, MessageId, MessageKind, Network, NetworkError, PeerId};
use crate::crdt::message::CrdtMessage;
use crate::crdt::replica::{ApplyOutcome, Replica, WriteError};

/// What a random draw is for: each purpose has its own generator key.
#[derive(Copy, Clone)]
pub(super) enum Draw {
    /// Which message a random-order delivery takes.
    Pick = 1,
    /// A message's auto-delivery jitter.
    Jitter = 2,
}

/// The generator for one random choice: keyed by the seed and the purpose, positioned on the
/// stream `position`.
pub(super) fn keyed_rng(seed: u64, draw: Draw, position: u64) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8] = draw as u8;
    let mut rng = ChaCha8Rng::from_seed(key);
    rng.set_stream(position);
    rng
}

impl Network {
    pub(super) fn check_peer(&self, peer: PeerId) -> Result<(), NetworkError> {
        if peer.0 == 0 || peer.index() >= self.peer_count() {
            return Err(NetworkError::UnknownPeer(peer));
        }
        Ok(())
    }

    /// Where message `id` is in the in-flight list.
    fn position(&self, id: MessageId) -> Result<usize, NetworkError> {
        (self.state.in_flight.position(id)).ok_or(NetworkError::UnknownMessage(id))
    }

    /// Puts a message in flight and returns its id.
    fn send(
        &mut self,
        from: PeerId,
        to: PeerId,
        message: CrdtMessage,
        kind: MessageKind,
        cause: Option<MessageId>,
    ) -> MessageId {
        let id = MessageId(self.state.next_id);
        self.state.next_id += 1;
        self.state.in_flight.push_back(InFlight {
            id,
            from,
            to,
            message,
            kind,
            sent_at: self.state.now,
            cause,
        });
        id
    }

    /// Sends each message to every peer but `from`: message by message, peers ascending.
    fn broadcast(
        &mut self,
        from: PeerId,
        messages: &[CrdtMessage],
        kind: MessageKind,
        cause: Option<MessageId>,
    ) -> Vec<MessageId> {
        let mut sent = Vec::new();
        for message in messages {
            for to in self.peers().filter(|p| *p != from) {
                sent.push(self.send(from, to, message.clone(), kind, cause));
            }
        }
        sent
    }

    /// Executes one primitive operation on the current state. `Ok(None)` when it changed
    /// nothing (no event is recorded then).
    pub(super) fn exec(&mut self, op: &Op) -> Result<Option<EventKind>, NetworkError> {
        Ok(Some(match op {
            Op::Write { peer, write } => return self.exec_write(*peer, write),
            Op::Deliver { id } => self.exec_deliver(*id)?,
            Op::Drop { id } => {
                let message =
                    (self.state.in_flight.remove(*id)).ok_or(NetworkError::UnknownMessage(*id))?;
                self.note_message_gone(*id);
                EventKind::Drop { message }
            }
            Op::Duplicate { id } => self.exec_duplicate(*id)?,
            Op::Reorder { id, index } => return self.exec_reorder(*id, *index),
            Op::SetOnline { peer, online } => {
                self.check_peer(*peer)?;
                if self.state.online[peer.index()] == *online {
                    return Ok(None);
                }
                self.state.online[peer.index()] = *online;
                EventKind::SetOnline {
                    peer: *peer,
                    online: *online,
                }
            }
            Op::Tick { ticks } => {
                if *ticks == 0 {
                    return Ok(None);
                }
                self.state.now = self.state.now.saturating_add(*ticks);
                self.close_unsent();
                EventKind::Tick { ticks: *ticks }
            }
            Op::SetAutoDelivery { auto } => {
                if self.state.auto == *auto {
                    return Ok(None);
                }
                self.state.auto = *auto;
                EventKind::SetAutoDelivery { auto: *auto }
            }
            Op::SetOneMessagePerTick { on } => {
                if self.state.one_message_per_tick == *on {
                    return Ok(None);
                }
                self.state.one_message_per_tick = *on;
                self.close_unsent();
                EventKind::SetOneMessagePerTick { on: *on }
            }
        }))
    }

    /// A peer's local write: applied to its replica and sent to every other peer (or merged
    /// into a write of the same tick not sent yet). `Ok(None)` when it wrote nothing.
    fn exec_write(
        &mut self,
        peer: PeerId,
        write: &LocalWrite,
    ) -> Result<Option<EventKind>, NetworkError> {
        self.check_peer(peer)?;
        if let Some(merged) = self.merge_unsent(peer, write) {
            return merged;
        }
        let replica = &mut self.state.replicas[peer.index()];
        let messages =
            write_to(replica, write).map_err(|source| NetworkError::Write { peer, source })?;
        if messages.is_empty() {
            return Ok(None);
        }
        let sent = self.broadcast(peer, &messages, MessageKind::Write, None);
        self.note_sent_write(peer, write, &messages, &sent);
        Ok(Some(EventKind::Write {
            peer,
            write: write.clone(),
            messages,
            sent,
            replaced: Vec::new(),
        }))
    }

    /// Message `id` reaches its receiver, which sends its reply (to an outdated sender) and
    /// its deleted entities' announcements.
    fn exec_deliver(&mut self, id: MessageId) -> Result<EventKind, NetworkError> {
        let m = (self.state.in_flight.message(id)).ok_or(NetworkError::UnknownMessage(id))?;
        for peer in [m.from, m.to] {
            if !self.state.online[peer.index()] {
                return Err(NetworkError::PeerOffline { id, peer });
            }
        }
        let message = (self.state.in_flight.remove(id)).expect("found above");
        self.note_delivered(&message);
        let outcome = self.state.replicas[message.to.index()].apply(&message.message);
        let mut sent = Vec::new();
        // Without replies (see `Network::with_replies`) nothing is sent.
        if self.replies
            && let Some(reply) = outcome.reply()
        {
            sent.push(self.send(
                message.to,
                message.from,
                reply.clone(),
                MessageKind::Reply,
                Some(message.id),
            ));
        }
        if let ApplyOutcome::EntityDeleted { announcements } = &outcome
            && self.replies
        {
            sent.extend(self.broadcast(
                message.to,
                announcements,
                MessageKind::Announcement,
                Some(message.id),
            ));
        }
        Ok(EventKind::Deliver {
            message,
            outcome,
            sent,
        })
    }

    /// A copy of message `id`, with an id of its own, goes in flight right after it.
    fn exec_duplicate(&mut self, id: MessageId) -> Result<EventKind, NetworkError> {
        let position = self.position(id)?;
        self.note_message_gone(id);
        let mut copy = self.state.in_flight[position].clone();
        copy.cause = Some(copy.id);
        copy.id = MessageId(self.state.next_id);
        copy.sent_at = self.state.now;
        self.state.next_id += 1;
        let copy_id = copy.id;
        self.state.in_flight.insert(position + 1, copy);
        Ok(EventKind::Duplicate {
            original: id,
            copy: copy_id,
        })
    }

    /// Message `id` moves to `index` in the in-flight list. `Ok(None)` when it is there.
    fn exec_reorder(
        &mut self,
        id: MessageId,
        index: usize,
    ) -> Result<Option<EventKind>, NetworkError> {
        let from = self.position(id)?;
        let len = self.state.in_flight.len();
        if index >= len {
            return Err(NetworkError::BadIndex { index, len });
        }
        if from == index {
            return Ok(None);
        }
        let m = (self.state.in_flight.remove(id)).expect("a position found above");
        self.state.in_flight.insert(index, m);
        Ok(Some(EventKind::Reorder {
            id,
            from,
            to: index,
        }))
    }
}

/// Applies `write` to `replica`: the messages it makes (for an authored write, the authored
/// messages, applied as they are).
fn write_to(replica: &mut Replica, write: &LocalWrite) -> Result<Vec<CrdtMessage>, WriteError> {
    match write {
        LocalWrite::Put {
            entity,
            component,
            data,
        } => replica
            .put(*entity, *component, data.clone())
            .map(|m| vec![m]),
        LocalWrite::Append {
            entity,
            component,
            data,
        } => replica
            .append(*entity, *component, data.clone())
            .map(|m| vec![m]),
        LocalWrite::DeleteComponent { entity, component } => Ok(replica
            .delete_component(*entity, *component)
            .into_iter()
            .collect()),
        LocalWrite::DeleteEntity { entity } => replica.delete_entity(*entity),
        LocalWrite::Authored { messages } => {
            for m in messages {
                replica.apply(m);
            }
            Ok(messages.clone())
        }
    }
}
