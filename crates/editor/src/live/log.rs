//! What a live session saw, message by message, for the Peers workspace's live table and the
//! session recording: each message in (from the host) and out (from this editor), what it
//! changed on its receiver, its Lamport timestamp, and when it arrived or left.

use std::collections::VecDeque;
use std::time::Duration;

use scenetree_core::crdt::CrdtMessage;
use scenetree_core::crdt::network::{FieldChange, MessageEffect, MessageRow};

/// Which way a message went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the host (another client's write it relayed, or its own) to this editor.
    In,
    /// From this editor to the host.
    Out,
}

/// One message of the session.
#[derive(Clone, Debug, PartialEq)]
pub struct LogEntry {
    /// Which way it went.
    pub direction: Direction,
    /// The message as it crossed the wire.
    pub message: CrdtMessage,
    /// What it changed on its receiver (this editor's replica for `In`, the host's as this
    /// editor knows it for `Out`), computed when it arrived or was sent.
    pub row: MessageRow,
    /// For `In`: what this editor's replica did with it ("accepted (newer timestamp)").
    pub outcome: Option<&'static str>,
    /// When it arrived (`In`) or was handed to the connection (`Out`), since the session began.
    pub at: Duration,
    /// For `Out`: when the host acknowledged it (`None`: not yet, or never: the connection
    /// dropped first and the write went again after reconnecting).
    pub acknowledged: Option<Duration>,
    /// Which connection of the session (1, then 2 after the first reconnect, …).
    pub connection: u32,
}

/// The most entries kept; older ones are forgotten (counted in [`MessageLog::forgotten`]).
pub const LOG_LIMIT: usize = 100_000;

/// The most bytes the kept entries may hold (their messages' values and texts): a host can
/// send large values, and the table shows a few dozen rows at a time.
pub const LOG_BYTES_LIMIT: usize = 32 << 20;

impl LogEntry {
    /// The bytes this entry holds, itself and what it points to (an estimate from above of
    /// what keeping it costs).
    pub fn retained_bytes(&self) -> usize {
        let row = &self.row;
        let effect = match &row.effect {
            MessageEffect::Transform { changes, .. } => {
                changes.capacity() * std::mem::size_of::<FieldChange>()
            }
            MessageEffect::Name { before, after } => {
                before.as_ref().map_or(0, String::capacity) + after.capacity()
            }
            _ => 0,
        };
        std::mem::size_of::<LogEntry>()
            + self.message.data().map_or(0, <[u8]>::len)
            + row.component.as_ref().map_or(0, String::capacity)
            + effect
    }
}

/// The session's messages, oldest first: at most [`LOG_LIMIT`] entries holding at most
/// [`LOG_BYTES_LIMIT`] bytes (the newest entry is kept whatever its size).
#[derive(Clone, Debug, Default)]
pub struct MessageLog {
    entries: VecDeque<LogEntry>,
    /// Entries dropped from the front to stay within the limits.
    forgotten: u64,
    /// What the kept entries hold ([`LogEntry::retained_bytes`]).
    bytes: usize,
}

impl MessageLog {
    /// Adds an entry, forgetting the oldest ones beyond the limits; returns its number
    /// (counting forgotten ones).
    pub(super) fn push(&mut self, entry: LogEntry) -> u64 {
        let size = entry.retained_bytes();
        while !self.entries.is_empty()
            && (self.entries.len() >= LOG_LIMIT || self.bytes + size > LOG_BYTES_LIMIT)
        {
            if let Some(old) = self.entries.pop_front() {
                self.bytes -= old.retained_bytes();
                self.forgotten += 1;
            }
        }
        self.bytes += size;
        self.entries.push_back(entry);
        self.forgotten + self.entries.len() as u64 - 1
    }

    /// What the kept entries hold, in bytes (see [`LogEntry::retained_bytes`]).
    pub fn retained_bytes(&self) -> usize {
        self.bytes
    }

    /// Marks entry `number` acknowledged at `at`.
    pub(super) fn acknowledge(&mut self, number: u64, at: Duration) {
        if let Some(i) = number.checked_sub(self.forgotten)
            && let Some(entry) = self.entries.get_mut(i as usize)
        {
            entry.acknowledged = Some(at);
        }
    }

    /// The entries kept, oldest first.
    pub fn entries(&self) -> &VecDeque<LogEntry> {
        &self.entries
    }

    /// How many entries were dropped to stay within the limits.
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was logged.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::crdt::network::{MessageId, MessageKind, PeerId};
    use scenetree_core::model::Entity;

    /// An arrival of a `bytes`-long value.
    fn arrival(bytes: usize) -> LogEntry {
        let entity = Entity(512);
        LogEntry {
            direction: Direction::In,
            message: CrdtMessage::PutComponent {
                entity,
                component: 5000,
                timestamp: 1,
                data: vec![7; bytes],
            },
            row: MessageRow {
                id: MessageId(1),
                from: PeerId(2),
                to: PeerId(1),
                kind: MessageKind::Write,
                entity,
                component: Some("component 5000".to_owned()),
                component_id: Some(5000),
                effect: MessageEffect::Value { bytes, same: false },
                timestamp: Some(1),
                stale: false,
                already_held: false,
                sent_at: 0,
            },
            outcome: None,
            at: Duration::ZERO,
            acknowledged: None,
            connection: 1,
        }
    }

    #[test]
    fn large_messages_are_forgotten_oldest_first_to_stay_within_the_byte_limit() {
        let mut log = MessageLog::default();
        let value = 1 << 20;
        for _ in 0..100 {
            log.push(arrival(value));
            assert!(
                log.retained_bytes() <= LOG_BYTES_LIMIT,
                "{}",
                log.retained_bytes()
            );
        }
        let kept = log.len();
        assert!(kept < LOG_BYTES_LIMIT / value && kept > 0, "{kept} kept");
        assert_eq!(log.forgotten() + kept as u64, 100);
        // A message larger than the whole limit is kept alone (it is the newest).
        let number = log.push(arrival(LOG_BYTES_LIMIT + 1));
        assert_eq!((log.len(), number), (1, 100));
        // Numbers go on counting the forgotten ones; a forgotten entry is not marked.
        log.acknowledge(3, Duration::from_secs(1));
        log.acknowledge(100, Duration::from_secs(1));
        assert_eq!(log.entries()[0].acknowledged, Some(Duration::from_secs(1)));
    }

    #[test]
    fn small_messages_are_kept_up_to_the_entry_limit() {
        let mut log = MessageLog::default();
        for _ in 0..LOG_LIMIT + 10 {
            log.push(arrival(44));
        }
        assert_eq!((log.len(), log.forgotten()), (LOG_LIMIT, 10));
    }
}
