//! A live session's traffic: the host's elements in, this editor's writes out one element
//! per acknowledgement, and the network's clock.

use rustc_hash::FxHashSet;

use scenetree_core::crdt::network::{InFlight, LocalWrite, MessageId, MessageKind};
use scenetree_core::crdt::{CrdtMessage, decode_stream, encode_stream};

use super::link::Link;
use super::log::{Direction, LogEntry};
use super::{HOST, LiveNote, LiveSession, THIS_EDITOR};

impl LiveSession {
    /// Another client's (or the host's) messages: written as the host's, delivered to this
    /// editor at once.
    pub(super) fn receive(&mut self, bytes: &[u8]) {
        let (messages, problem) = decode_lenient(bytes);
        if let Some(problem) = problem {
            self.notes.push(LiveNote::Problem(problem));
        }
        if messages.is_empty() {
            return;
        }
        self.advance_clock(false);
        let Ok(receipt) = (self.network).write(HOST, LocalWrite::Authored { messages }) else {
            return;
        };
        let at = self.session_start.elapsed();
        for id in receipt.sent {
            let Some(m) = self.network.message(id).cloned() else {
                continue;
            };
            let row = self.network.message_row(&m);
            let outcome = self.network.deliver(id).ok().map(|o| o.label());
            self.log.push(LogEntry {
                direction: Direction::In,
                message: m.message,
                row,
                outcome,
                at,
                acknowledged: None,
                connection: self.connections,
            });
        }
        self.drop_replies();
    }

    /// The host took `writes` stream elements: their messages reach peer 2.
    pub(super) fn acknowledged(&mut self, writes: usize) {
        self.advance_clock_unless_queued();
        let at = self.session_start.elapsed();
        for _ in 0..writes {
            let Some(batch) = self.sent.pop_front() else {
                break;
            };
            for (id, entry) in batch {
                let _ = self.network.deliver(id);
                self.log.acknowledge(entry, at);
            }
        }
        self.drop_replies();
    }

    /// The runtime computes a reply for an outdated sender but never sends it, and the
    /// announcements a received DELETE_ENTITY causes are the host's to send.
    fn drop_replies(&mut self) {
        let replies: Vec<MessageId> = (self.network.in_flight().iter())
            .filter(|m| m.kind != MessageKind::Write)
            .map(|m| m.id)
            .collect();
        for id in replies {
            let _ = self.network.drop_message(id);
        }
    }

    /// Hands the queued writes to the connection as one element: when nothing is waiting for
    /// an acknowledgement, or always (`even_if_waiting`, before a Save).
    pub(super) fn send_queued(&mut self, even_if_waiting: bool) {
        let Link::Connected(connection) = &self.link else {
            return;
        };
        if !even_if_waiting && !self.sent.is_empty() {
            return;
        }
        let in_element: FxHashSet<MessageId> =
            self.sent.iter().flatten().map(|(id, _)| *id).collect();
        let queued: Vec<InFlight> = (self.network.in_flight().iter())
            .filter(|m| {
                m.from == THIS_EDITOR && m.kind == MessageKind::Write && !in_element.contains(&m.id)
            })
            .cloned()
            .collect();
        if queued.is_empty() {
            return;
        }
        let bytes = encode_stream(queued.iter().map(|m| &m.message));
        if connection.send_crdt(bytes).is_err() {
            // The connection just ended; its Disconnected event says why.
            return;
        }
        let at = self.session_start.elapsed();
        let mut element = Vec::with_capacity(queued.len());
        for m in queued {
            let row = self.network.message_row(&m);
            let entry = self.log.push(LogEntry {
                direction: Direction::Out,
                message: m.message,
                row,
                outcome: None,
                at,
                acknowledged: None,
                connection: self.connections,
            });
            element.push((m.id, entry));
        }
        self.sent.push_back(element);
        // A later write is a new tick: it must not replace what was just sent.
        self.advance_clock(true);
    }

    /// Moves the clock to now while none of this editor's writes waits unsent: a write made
    /// while one waits stays in its tick, so "one message per tick" merges the two.
    pub(super) fn advance_clock_unless_queued(&mut self) {
        let sent: usize = self.sent.iter().map(Vec::len).sum();
        let ours = (self.network.in_flight().iter())
            .filter(|m| m.from == THIS_EDITOR && m.kind == MessageKind::Write)
            .count();
        if ours <= sent {
            self.advance_clock(false);
        }
    }

    /// Moves the network's clock to the milliseconds since this connection began (at least
    /// one tick when `at_least_one`).
    pub(super) fn advance_clock(&mut self, at_least_one: bool) {
        let now = u64::try_from(self.segment_start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let clock = self.network.now();
        let ticks = match now.checked_sub(clock) {
            Some(d) if d > 0 => d,
            _ => u64::from(at_least_one),
        };
        if ticks > 0 {
            self.network.tick(ticks);
        }
    }
}

/// The messages of an element, up to the first that does not decode, and what was wrong.
fn decode_lenient(bytes: &[u8]) -> (Vec<CrdtMessage>, Option<String>) {
    match decode_stream(bytes) {
        Ok(decoded) => (decoded.messages, None),
        Err(e) => {
            let before = decode_stream(&bytes[..e.offset])
                .map(|d| d.messages)
                .unwrap_or_default();
            let problem = format!(
                "the host sent {} bytes that are not CRDT messages (at byte {} of an element \
                 of {}: {}); they were skipped",
                bytes.len() - e.offset,
                e.offset,
                bytes.len(),
                e.kind
            );
            (before, Some(problem))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::model::Entity;

    #[test]
    fn a_broken_element_keeps_the_messages_before_the_break() {
        let good = CrdtMessage::DeleteEntity {
            entity: Entity(600),
        };
        let mut bytes = encode_stream([&good]);
        bytes.extend_from_slice(&[40, 0, 0, 0, 1, 0, 0, 0, 9]);
        let (messages, problem) = decode_lenient(&bytes);
        assert_eq!(messages, [good]);
        assert!(problem.unwrap().contains("not CRDT messages"));
    }
}
