//! What a live session saw, message by message, for the Peers workspace's live table and the
//! session recording: each message in (from the host) and out (from this editor), what it
//! changed on its receiver, its Lamport timestamp, and when it arrived or left.

use std::collections::VecDeque;
use std::time::Duration;

use scenetree_core::crdt::CrdtMessage;
use scenetree_core::crdt::network::MessageRow;

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

/// The session's messages, oldest first.
#[derive(Clone, Debug, Default)]
pub struct MessageLog {
    entries: VecDeque<LogEntry>,
    /// Entries dropped from the front to stay within [`LOG_LIMIT`].
    forgotten: u64,
}

impl MessageLog {
    /// Adds an entry; returns its number (counting forgotten ones).
    pub(super) fn push(&mut self, entry: LogEntry) -> u64 {
        if self.entries.len() == LOG_LIMIT {
            self.entries.pop_front();
            self.forgotten += 1;
        }
        self.entries.push_back(entry);
        self.forgotten + self.entries.len() as u64 - 1
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

    /// How many entries were dropped to stay within [`LOG_LIMIT`].
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
