//! A live session's traffic: polling the connection a time slice at a time, the host's
//! elements in (in batches, what the replica refuses reported), this editor's writes out one
//! element per acknowledgement, and the network's clock.

use std::time::{Duration, Instant};

use rustc_hash::FxHashSet;

use scenetree_core::crdt::network::{InFlight, LocalWrite, MessageId, MessageKind};
use scenetree_core::crdt::{ApplyOutcome, CrdtMessage, StreamItem, StreamReader, encode_stream};
use scenetree_live::LiveEvent;

use super::link::Link;
use super::log::{Direction, LogEntry};
use super::{HOST, LiveNote, LiveSession, THIS_EDITOR};

/// Messages of a host element handled together: between batches the poll's time slice is
/// checked, so an element of millions of messages stalls neither a frame nor a deadline.
const BATCH: usize = 4096;

/// The longest one poll spends on what arrived before it returns (the rest waits for the next
/// poll): a frame's share in the window, and how far `--seconds` can be overrun.
pub(super) const POLL_SLICE: Duration = Duration::from_millis(40);

/// A host element and how far into it the session got.
#[derive(Debug)]
pub(super) struct Backlog {
    bytes: Vec<u8>,
    offset: usize,
}

impl LiveSession {
    /// Handles what arrived (waiting up to `wait` for something when nothing has) for at most
    /// [`POLL_SLICE`], starts a reconnect attempt when one is due, and sends what waits.
    pub fn poll(&mut self, wait: Option<Duration>) {
        let mut attempt_result = None;
        let mut try_now = false;
        match &self.link {
            Link::Connected(_) => self.take_arrivals(wait),
            Link::Connecting(attempt) => attempt_result = attempt.poll(wait),
            Link::Offline { next_try } => {
                let now = Instant::now();
                match *next_try {
                    Some(when) if when <= now => try_now = true,
                    Some(when) => {
                        if let Some(wait) = wait {
                            std::thread::sleep(wait.min(when - now));
                        }
                    }
                    None => {
                        if let Some(wait) = wait {
                            std::thread::sleep(wait);
                        }
                    }
                }
            }
        }
        if let Some(result) = attempt_result {
            self.attempt_ended(result);
        }
        if try_now {
            self.reconnect_now();
        }
        self.flush();
        self.record_events();
    }

    /// The rest of an element a slice did not reach, then the connection's events, until the
    /// slice (counted from the first thing handled) is spent.
    fn take_arrivals(&mut self, wait: Option<Duration>) {
        let mut wait = wait.filter(|_| self.backlog.is_none());
        let mut deadline = None;
        // Until the channel is found empty, more may wait (see `next_wake`).
        self.arrivals_left = true;
        loop {
            if let Some(backlog) = self.backlog.take() {
                let until = *deadline.get_or_insert_with(|| Instant::now() + POLL_SLICE);
                self.receive(backlog, until);
            } else {
                let Link::Connected(connection) = &self.link else {
                    self.arrivals_left = false;
                    return;
                };
                let event = match wait.take() {
                    Some(wait) => connection.events().recv_timeout(wait).ok(),
                    None => connection.events().try_recv().ok(),
                };
                let Some(event) = event else {
                    self.arrivals_left = false;
                    return;
                };
                if let LiveEvent::Incoming(bytes) = &event {
                    // Taken off the channel: the host may send more (see `INCOMING_LIMIT`).
                    connection.took(bytes.len());
                }
                let until = *deadline.get_or_insert_with(|| Instant::now() + POLL_SLICE);
                self.handle(event, until);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return;
            }
        }
    }

    fn handle(&mut self, event: LiveEvent, until: Instant) {
        match event {
            // Only the first event, taken by `start` or a reconnect.
            LiveEvent::Snapshot(_) => {}
            LiveEvent::Incoming(bytes) => self.receive(Backlog { bytes, offset: 0 }, until),
            LiveEvent::Acknowledged { writes, .. } => self.acknowledged(writes),
            LiveEvent::Saved => self.notes.push(LiveNote::Saved),
            LiveEvent::RemoteError(e) => self.notes.push(LiveNote::SaveFailed(e.to_string())),
            LiveEvent::Disconnected(reason) => self.lost(reason.to_string()),
        }
    }

    /// Another client's (or the host's) messages, from `element.offset` on: written as the
    /// host's, delivered to this editor at once, a batch at a time until `until`; what is
    /// left waits in the backlog. Bytes that do not decode end the element, reported.
    fn receive(&mut self, element: Backlog, until: Instant) {
        let mut reader = StreamReader::new(&element.bytes[element.offset..]);
        let mut refused = Refusals::default();
        loop {
            let mut batch = Vec::new();
            let mut broken = None;
            while batch.len() < BATCH {
                match reader.next() {
                    Some(Ok(
                        StreamItem::Message { message, .. }
                        | StreamItem::AuthoritativePut { message, .. },
                    )) => batch.push(message),
                    Some(Ok(StreamItem::Unknown { message_type, .. })) => {
                        refused.note(format!("a message of unknown type {message_type}"));
                    }
                    Some(Err(e)) => {
                        broken = Some(e);
                        break;
                    }
                    None => break,
                }
            }
            self.receive_batch(batch, &mut refused);
            self.record_events();
            if let Some(e) = broken {
                let at = element.offset + e.offset;
                self.say_problem(LiveNote::Problem(format!(
                    "the host sent {} bytes that are not CRDT messages (at byte {at} of an \
                     element of {}: {}); they were skipped",
                    element.bytes.len() - at,
                    element.bytes.len(),
                    e.kind
                )));
                break;
            }
            let offset = element.offset + reader.offset();
            if offset >= element.bytes.len() {
                break;
            }
            if Instant::now() >= until {
                self.backlog = Some(Backlog {
                    bytes: element.bytes,
                    offset,
                });
                break;
            }
        }
        if let Some(note) = refused.note_text() {
            self.say_problem(LiveNote::Refused(note));
        }
    }

    /// Writes `messages` as the host's and delivers them to this editor, logging each and
    /// counting what the replica refused.
    fn receive_batch(&mut self, messages: Vec<CrdtMessage>, refused: &mut Refusals) {
        if messages.is_empty() {
            return;
        }
        self.advance_clock(false);
        let count = messages.len();
        let receipt = match (self.network).write(HOST, LocalWrite::Authored { messages }) {
            Ok(receipt) => receipt,
            Err(e) => {
                refused.note_many(count, format!("{count} messages ({e})"));
                return;
            }
        };
        let at = self.session_start.elapsed();
        for id in receipt.sent {
            let Some(m) = self.network.message(id).cloned() else {
                continue;
            };
            let row = self.network.message_row(&m);
            let outcome = self.network.deliver(id).ok();
            if let Some(why) = outcome.as_ref().and_then(|o| refusal(&m.message, o)) {
                refused.note(why);
            }
            self.log.push(LogEntry {
                direction: Direction::In,
                message: m.message,
                row,
                outcome: outcome.map(|o| o.label()),
                at,
                acknowledged: None,
                connection: self.connections,
            });
        }
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
        self.record_events();
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

/// What this editor's replica refuses of what the host sends, and why: the runtime refuses
/// the same (a short Transform makes it throw; a value of the wrong kind it ignores).
fn refusal(message: &CrdtMessage, outcome: &ApplyOutcome) -> Option<String> {
    let entity = message.entity();
    match outcome {
        ApplyOutcome::RejectedMalformedTransform { length } => Some(format!(
            "a Transform of {length} bytes for entity {entity} (a Transform is 44)"
        )),
        ApplyOutcome::IgnoredWrongKind => Some(format!(
            "a value of the wrong kind for component {} of entity {entity}",
            message.component().unwrap_or_default()
        )),
        _ => None,
    }
}

/// The refusals of one host element: how many, and the first few.
#[derive(Debug, Default)]
struct Refusals {
    count: usize,
    first: Vec<String>,
}

impl Refusals {
    /// How many refusals a note names (it counts the rest).
    const NAMED: usize = 3;

    fn note(&mut self, what: String) {
        self.note_many(1, what);
    }

    fn note_many(&mut self, count: usize, what: String) {
        self.count += count;
        if self.first.len() < Self::NAMED {
            self.first.push(what);
        }
    }

    /// The user's note, or `None` when nothing was refused.
    fn note_text(&self) -> Option<String> {
        let more = self.count.saturating_sub(self.first.len());
        (self.count > 0).then(|| {
            format!(
                "this editor refused {} message(s) the host sent: {}{}; the scene keeps what it \
                 held before them",
                self.count,
                self.first.join("; "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )
        })
    }
}
