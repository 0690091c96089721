//! The network's timeline: every primitive operation, what it did, and replay to any point.
//!
//! Bulk calls (`deliver_all`, `advance`) record the primitive operations they perform, and random
//! choices depend only on the seed and the timeline position, so replaying the first `k` events
//! of a run rebuilds exactly the state the run had after its `k`-th event, and the run goes on
//! from there as it did.

use super::{AutoDelivery, InFlight, LocalWrite, MessageId, Network, NetworkError, PeerId};
use crate::crdt::message::CrdtMessage;
use crate::crdt::replica::ApplyOutcome;

/// One primitive, replayable operation on a [`Network`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A local write on a peer.
    Write { peer: PeerId, write: LocalWrite },
    /// Deliver one in-flight message.
    Deliver { id: MessageId },
    /// Lose one in-flight message.
    Drop { id: MessageId },
    /// Send a second copy of an in-flight message.
    Duplicate { id: MessageId },
    /// Move an in-flight message to a position of the list.
    Reorder { id: MessageId, index: usize },
    /// Take a peer offline or bring it back.
    SetOnline { peer: PeerId, online: bool },
    /// Move the clock forward (ticks).
    Tick { ticks: u64 },
    /// Turn auto-delivery on or off.
    SetAutoDelivery { auto: Option<AutoDelivery> },
    /// Turn "one message per tick" on or off.
    SetOneMessagePerTick { on: bool },
}

/// What an operation did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A peer wrote locally and broadcast `messages` under the ids `sent`; `replaced` are the
    /// in-flight messages of its unsent write of the same register that these took the place
    /// of (one message per tick), empty otherwise.
    Write {
        peer: PeerId,
        write: LocalWrite,
        messages: Vec<CrdtMessage>,
        sent: Vec<MessageId>,
        replaced: Vec<MessageId>,
    },
    /// A message reached its receiver; `sent` are the reply and announcements it caused.
    Deliver {
        message: InFlight,
        outcome: ApplyOutcome,
        sent: Vec<MessageId>,
    },
    /// A message was lost.
    Drop { message: InFlight },
    /// A message was copied.
    Duplicate {
        original: MessageId,
        copy: MessageId,
    },
    /// A message moved from one list position to another.
    Reorder {
        id: MessageId,
        from: usize,
        to: usize,
    },
    /// A peer went offline or came back.
    SetOnline { peer: PeerId, online: bool },
    /// The clock moved forward.
    Tick { ticks: u64 },
    /// Auto-delivery changed.
    SetAutoDelivery { auto: Option<AutoDelivery> },
    /// "One message per tick" changed.
    SetOneMessagePerTick { on: bool },
}

impl EventKind {
    /// A one-word name: `"write"`, `"deliver"`, `"drop"`, `"duplicate"`, `"reorder"`,
    /// `"online"`, `"offline"`, `"tick"`, `"auto_delivery"` or `"one_message_per_tick"`.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Write { .. } => "write",
            EventKind::Deliver { .. } => "deliver",
            EventKind::Drop { .. } => "drop",
            EventKind::Duplicate { .. } => "duplicate",
            EventKind::Reorder { .. } => "reorder",
            EventKind::SetOnline { online: true, .. } => "online",
            EventKind::SetOnline { online: false, .. } => "offline",
            EventKind::Tick { .. } => "tick",
            EventKind::SetAutoDelivery { .. } => "auto_delivery",
            EventKind::SetOneMessagePerTick { .. } => "one_message_per_tick",
        }
    }

    /// The operation that replays this event.
    pub fn op(&self) -> Op {
        match self {
            EventKind::Write { peer, write, .. } => Op::Write {
                peer: *peer,
                write: write.clone(),
            },
            EventKind::Deliver { message, .. } => Op::Deliver { id: message.id },
            EventKind::Drop { message } => Op::Drop { id: message.id },
            EventKind::Duplicate { original, .. } => Op::Duplicate { id: *original },
            EventKind::Reorder { id, to, .. } => Op::Reorder {
                id: *id,
                index: *to,
            },
            EventKind::SetOnline { peer, online } => Op::SetOnline {
                peer: *peer,
                online: *online,
            },
            EventKind::Tick { ticks } => Op::Tick { ticks: *ticks },
            EventKind::SetAutoDelivery { auto } => Op::SetAutoDelivery { auto: *auto },
            EventKind::SetOneMessagePerTick { on } => Op::SetOneMessagePerTick { on: *on },
        }
    }
}

/// One entry of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The clock (ticks) after it happened.
    pub at: u64,
}

/// How far before a backward seek's target [`Network::seek`] keeps the state: stepping back
/// again replays at most this many events (a few milliseconds) instead of the whole timeline.
const REWIND_SPAN: usize = 1_000;

impl Network {
    /// Every recorded event, including those after the cursor (undone by a seek, kept until
    /// a new operation replaces them).
    pub fn events(&self) -> &[Event] {
        &self.log
    }

    /// How many events the current state reflects (0 = the start).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// True when the cursor is before the timeline's last event (a seek back): a new operation
    /// now replaces the events after it.
    pub fn is_rewound(&self) -> bool {
        self.cursor < self.log.len()
    }

    /// Identifies the first `len` events of the timeline and the start they apply to: two
    /// calls that return the same value (on this network or a clone of it) saw the same events
    /// there. An event is only ever replaced together with every event after it, so this is
    /// the number the `len`-th event was recorded under. A tick (or an auto-delivery change)
    /// merged into the event before it keeps that event's number: it moves the clock or a
    /// setting, never a replica. `None` when the timeline is shorter than `len`.
    pub fn timeline_id(&self, len: usize) -> Option<u64> {
        match len {
            0 => Some(self.start_serial),
            _ => self.serials.get(len - 1).copied(),
        }
    }

    /// Changes whenever a seek rebuilt the replicas from the start. A view that reads a
    /// replica's change journal incrementally must rebuild from scratch when this changes.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Replays the timeline to just after its `index`-th event (0 = the start). Later events
    /// stay on the timeline until a new operation replaces them.
    pub fn seek(&mut self, index: usize) -> Result<(), NetworkError> {
        let len = self.log.len();
        if index > len {
            return Err(NetworkError::NoSuchEvent { index, len });
        }
        if index < self.cursor && !self.keeps_timeline {
            return Err(NetworkError::NoTimeline);
        }
        if index < self.cursor {
            // From the kept state when it is at or before the target, else from the start.
            let (at, state) = match &self.rewind {
                Some((at, state)) if *at <= index => (*at, state.clone()),
                _ => (0, self.start.clone()),
            };
            self.state = state;
            self.cursor = at;
            self.epoch += 1;
            // Keep the state a little before the target, for the next step back.
            let keep_at = index.saturating_sub(REWIND_SPAN);
            if keep_at > at {
                self.replay_to(keep_at);
                self.rewind = Some((keep_at, self.state.clone()));
            }
        }
        self.replay_to(index);
        Ok(())
    }

    /// Replays recorded events from the cursor up to `index`.
    fn replay_to(&mut self, index: usize) {
        while self.cursor < index {
            // The operation only: cloning the whole event copied every message it carries.
            let op = self.log[self.cursor].kind.op();
            let kind = self.exec(&op).expect("a recorded operation replays");
            // `None` only for a merged auto-delivery change that ended where it began.
            if let Some(kind) = kind {
                debug_assert_eq!(kind, self.log[self.cursor].kind, "replay is deterministic");
            }
            self.cursor += 1;
        }
    }

    /// Steps back one event; false at the start.
    pub fn step_back(&mut self) -> bool {
        self.cursor > 0 && self.seek(self.cursor - 1).is_ok()
    }

    /// Steps forward one recorded event; false at the end.
    pub fn step_forward(&mut self) -> bool {
        self.cursor < self.log.len() && self.seek(self.cursor + 1).is_ok()
    }

    /// A network that starts from this one's start and runs the same operations: the same run
    /// as a fresh object (for comparing a replay with the original).
    pub fn replayed(&self) -> Network {
        let mut copy = Network {
            seed: self.seed,
            start: self.start.clone(),
            state: self.start.clone(),
            log: self.log[..self.cursor].to_vec(),
            cursor: 0,
            serials: self.serials[..self.cursor].to_vec(),
            start_serial: self.start_serial,
            last_serial: self.last_serial,
            epoch: 0,
            rewind: None,
            replies: self.replies,
            keeps_timeline: true,
        };
        copy.seek(self.cursor)
            .expect("the cursor is within the log");
        copy
    }

    /// Executes `op` and records it at the cursor, dropping any events after the cursor.
    /// Returns the recorded event, or `None` when the operation changed nothing.
    pub(super) fn record(&mut self, op: Op) -> Result<Option<&Event>, NetworkError> {
        // A new event replaces those from the cursor on, or merges into the one before it:
        // a kept state that reflects either no longer fits the timeline.
        if self
            .rewind
            .as_ref()
            .is_some_and(|(at, _)| *at >= self.cursor)
        {
            self.rewind = None;
        }
        let Some(kind) = self.exec(&op)? else {
            return Ok(None);
        };
        self.log.truncate(self.cursor);
        self.serials.truncate(self.cursor);
        let event = Event {
            kind,
            at: self.state.now,
        };
        // A run of clock ticks, or of auto-delivery changes (a dragged slider), is one event.
        let merged = match (self.log.last_mut(), &event.kind) {
            (
                Some(Event {
                    kind: EventKind::Tick { ticks: total },
                    at,
                    ..
                }),
                EventKind::Tick { ticks },
            ) => {
                *total = total.saturating_add(*ticks);
                *at = event.at;
                true
            }
            (
                Some(Event {
                    kind: EventKind::SetAutoDelivery { auto: last },
                    ..
                }),
                EventKind::SetAutoDelivery { auto },
            ) => {
                *last = *auto;
                true
            }
            _ => false,
        };
        if !merged {
            self.log.push(event);
            self.last_serial += 1;
            self.serials.push(self.last_serial);
            self.cursor += 1;
        }
        Ok(self.log.last())
    }
}
