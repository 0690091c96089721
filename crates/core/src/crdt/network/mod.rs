//! A simulated network of 2 to 8 peers, each with its own [`Replica`], for watching the CRDT
//! protocol converge one message at a time.
//!
//! Every local write on a peer becomes one in-flight message to every other peer. Messages wait
//! in one ordered in-flight list until the user (or a scenario, or auto-delivery) delivers,
//! drops, duplicates or reorders them. Delivering a message applies it to the receiver with the
//! reference's rules; the reply the protocol sends to an outdated sender, and the
//! DELETE_COMPONENT announcements a DELETE_ENTITY causes, are sent back into the list like any
//! other message.
//!
//! Everything is deterministic: there is no wall-clock time (the clock counts abstract *ticks*),
//! no hash-map iteration order reaches the outputs, and every random choice comes from a ChaCha8
//! generator keyed by the network's one seed and positioned by *where* the choice is made (the
//! timeline position of a random delivery, the id of a message for its jitter). So the state is
//! a function of the seed and the recorded operations alone: a replay, or a saved run loaded
//! back, continues with the same random choices as the original. Every mutating call records
//! [`Event`]s on a timeline; [`Network::seek`] replays the timeline from the start to any event.
//!
//! Peers and the network share one entity space (see [`Replica::apply`] on *_NETWORK messages).

mod bulk;
mod coalesce;
mod describe;
mod effect;
mod exec;
mod in_flight;
mod parent_writes;
mod timeline;
mod types;

use rand::Rng;

use super::replica::{ApplyOutcome, Replica};
use exec::{Draw, keyed_rng};

pub use describe::{Convergence, describe_message};
pub use effect::{FieldChange, MessageEffect, MessageRow, transform_changes};
pub use in_flight::InFlightList;
pub use parent_writes::{ParentWrite, ParentWriteTracker, WriteOrigin};
pub use timeline::{Event, EventKind, Op};
pub use types::{
    AutoDelivery, DeliveryOrder, DeliveryReport, InFlight, LocalWrite, MessageFilter, MessageId,
    MessageKind, NetworkError, PeerId, WriteReceipt,
};

/// Fewest peers a network holds.
pub const MIN_PEERS: usize = 2;
/// Most peers a network holds.
pub const MAX_PEERS: usize = 8;
/// Most deliveries one call of [`Network::deliver_all`] or [`Network::advance`] makes beyond
/// four per message in flight when it starts. The protocol always quiets down long before this
/// (replies only flow towards newer state); the cap only turns a bug into a stop instead of a
/// hang.
pub const MAX_DELIVERIES_PER_CALL: usize = 100_000;

/// Everything a replay rebuilds: the peers, the messages in flight, the clock, the generator.
#[derive(Clone, Debug)]
struct NetState {
    replicas: Vec<Replica>,
    online: Vec<bool>,
    in_flight: InFlightList,
    next_id: u64,
    now: u64,
    auto: Option<AutoDelivery>,
    /// See [`Network::one_message_per_tick`].
    one_message_per_tick: bool,
    /// Writes whose messages can still be merged (see the `coalesce` module).
    unsent: coalesce::UnsentWrites,
}

/// The simulated network. See the module documentation.
#[derive(Clone, Debug)]
pub struct Network {
    seed: u64,
    start: NetState,
    state: NetState,
    log: Vec<Event>,
    /// The state reflects `log[..cursor]`; events after it are the "redo" side of the timeline.
    cursor: usize,
    /// Per event of `log`, the number it was recorded under (see [`Network::timeline_id`]).
    serials: Vec<u64>,
    /// The number the start was given (0, or a later one once the start changed), and the
    /// last number handed out.
    start_serial: u64,
    last_serial: u64,
    /// Bumped whenever the replicas are rebuilt instead of updated (a seek backwards).
    epoch: u64,
    /// The state after the first `.0` events, kept by a seek backwards a little before where
    /// it went, so stepping back again replays from there instead of from the start.
    rewind: Option<(usize, NetState)>,
    /// Whether a delivery sends the reply an outdated sender gets and the announcements of a
    /// DELETE_ENTITY (see [`Network::with_replies`]).
    replies: bool,
    /// Whether the timeline is kept (see [`Network::forgetting_timeline`]).
    keeps_timeline: bool,
}

impl Network {
    /// A network of `peers` peers that all start with `initial`'s state, online, with nothing in
    /// flight, the clock at 0, auto-delivery off and one message per tick on. `seed` drives
    /// every random choice.
    pub fn new(peers: usize, seed: u64, initial: &Replica) -> Result<Network, NetworkError> {
        if !(MIN_PEERS..=MAX_PEERS).contains(&peers) {
            return Err(NetworkError::PeerCount(peers));
        }
        let start = NetState {
            replicas: vec![initial.clone(); peers],
            online: vec![true; peers],
            in_flight: InFlightList::default(),
            next_id: 1,
            now: 0,
            auto: None,
            one_message_per_tick: true,
            unsent: Default::default(),
        };
        Ok(Network {
            seed,
            state: start.clone(),
            start,
            log: Vec::new(),
            cursor: 0,
            serials: Vec::new(),
            start_serial: 0,
            last_serial: 0,
            epoch: 0,
            rewind: None,
            replies: true,
            keeps_timeline: true,
        })
    }

    /// This network sending replies and announcements (`true`, as a new network does) or not:
    /// `@dcl/ecs` computes the reply to an outdated sender but never sends it, and a live
    /// session's host sends its own announcements, so a live session (and its recording) runs
    /// without them instead of simulating messages it would drop. Set before the first
    /// operation; it holds for the whole run.
    pub fn with_replies(mut self, on: bool) -> Network {
        self.replies = on;
        self
    }

    /// Whether deliveries send replies and announcements (see [`Self::with_replies`]).
    pub fn sends_replies(&self) -> bool {
        self.replies
    }

    /// This network without a timeline: each operation's events wait only until
    /// [`Self::take_events`] takes them, so a network that runs for hours (a live session)
    /// keeps none of its history; it cannot seek back. Set before the first operation.
    pub fn forgetting_timeline(mut self) -> Network {
        self.keeps_timeline = false;
        self
    }

    /// The events recorded since the last call, oldest first, taken off the timeline. Only
    /// for a network [forgetting its timeline](Self::forgetting_timeline); one that keeps
    /// it returns nothing and keeps everything.
    pub fn take_events(&mut self) -> Vec<Event> {
        if self.keeps_timeline {
            return Vec::new();
        }
        self.serials.clear();
        self.cursor = 0;
        std::mem::take(&mut self.log)
    }

    // ----- reading -------------------------------------------------------------------------

    /// The seed the network was created with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Number of peers.
    pub fn peer_count(&self) -> usize {
        self.state.replicas.len()
    }

    /// Every peer, ascending.
    pub fn peers(&self) -> impl Iterator<Item = PeerId> + use<> {
        (0..self.peer_count()).map(PeerId::from_index)
    }

    /// A peer's replica.
    pub fn replica(&self, peer: PeerId) -> Result<&Replica, NetworkError> {
        self.state
            .replicas
            .get(peer.index())
            .ok_or(NetworkError::UnknownPeer(peer))
    }

    /// Every peer's replica, peer 1 first.
    pub fn replicas(&self) -> &[Replica] {
        &self.state.replicas
    }

    /// The state every peer started from.
    pub fn initial_replica(&self) -> &Replica {
        &self.start.replicas[0]
    }

    /// True when the peer is online (its messages travel).
    pub fn is_online(&self, peer: PeerId) -> Result<bool, NetworkError> {
        self.check_peer(peer)?;
        Ok(self.state.online[peer.index()])
    }

    /// The messages in flight, in list order (the order "deliver all in send order" uses).
    pub fn in_flight(&self) -> &InFlightList {
        &self.state.in_flight
    }

    /// One in-flight message.
    pub fn message(&self, id: MessageId) -> Option<&InFlight> {
        self.state.in_flight.message(id)
    }

    /// The clock, in ticks.
    pub fn now(&self) -> u64 {
        self.state.now
    }

    /// The auto-delivery setting (`None` = off).
    pub fn auto_delivery(&self) -> Option<AutoDelivery> {
        self.state.auto
    }

    /// True when both ends of the message are online.
    pub fn is_deliverable(&self, m: &InFlight) -> bool {
        self.state.online[m.from.index()] && self.state.online[m.to.index()]
    }

    /// The tick at which auto-delivery delivers the message, or `None` while it is off.
    pub fn due_at(&self, m: &InFlight) -> Option<u64> {
        let auto = self.state.auto?;
        let jitter = if auto.jitter == 0 {
            0
        } else {
            // Fixed per message by (seed, id), so it does not depend on when it is asked.
            keyed_rng(self.seed, Draw::Jitter, m.id.0).random_range(0..=auto.jitter)
        };
        Some(
            m.sent_at
                .saturating_add(auto.latency)
                .saturating_add(jitter),
        )
    }

    // ----- operations (each records events) --------------------------------------------------

    /// Applies a local write on `peer` and sends its messages to every other peer (or, with
    /// [one message per tick](Self::one_message_per_tick), replaces the messages of its
    /// unsent write of the same register).
    pub fn write(&mut self, peer: PeerId, write: LocalWrite) -> Result<WriteReceipt, NetworkError> {
        let event = self.record(Op::Write { peer, write })?;
        Ok(match event.map(|e| &e.kind) {
            Some(EventKind::Write {
                messages,
                sent,
                replaced,
                ..
            }) => WriteReceipt {
                messages: messages.clone(),
                sent: sent.clone(),
                replaced: replaced.clone(),
            },
            _ => WriteReceipt::default(),
        })
    }

    /// Delivers one message: the receiver applies it, and any reply or announcement it causes
    /// is sent. Refused while either end is offline.
    pub fn deliver(&mut self, id: MessageId) -> Result<ApplyOutcome, NetworkError> {
        match self.record(Op::Deliver { id })?.map(|e| &e.kind) {
            Some(EventKind::Deliver { outcome, .. }) => Ok(outcome.clone()),
            _ => unreachable!("a delivery always records a delivery event"),
        }
    }

    /// Loses a message on the way.
    pub fn drop_message(&mut self, id: MessageId) -> Result<(), NetworkError> {
        self.record(Op::Drop { id }).map(drop)
    }

    /// Sends a second copy of a message, placed right after it. Returns the copy's id.
    pub fn duplicate(&mut self, id: MessageId) -> Result<MessageId, NetworkError> {
        match self.record(Op::Duplicate { id })?.map(|e| &e.kind) {
            Some(EventKind::Duplicate { copy, .. }) => Ok(*copy),
            _ => unreachable!("a duplication always records a duplication event"),
        }
    }

    /// Moves a message to position `index` of the in-flight list (dragging it in the panel).
    pub fn reorder(&mut self, id: MessageId, index: usize) -> Result<(), NetworkError> {
        self.record(Op::Reorder { id, index }).map(drop)
    }

    /// Takes a peer offline (its messages, both ways, wait) or back online.
    pub fn set_online(&mut self, peer: PeerId, online: bool) -> Result<(), NetworkError> {
        self.record(Op::SetOnline { peer, online }).map(drop)
    }

    /// Moves the clock forward without delivering anything.
    pub fn tick(&mut self, ticks: u64) {
        self.record(Op::Tick { ticks })
            .expect("a clock tick cannot fail");
    }

    /// Turns auto-delivery on (with its latency) or off.
    pub fn set_auto_delivery(&mut self, auto: Option<AutoDelivery>) {
        self.record(Op::SetAutoDelivery { auto })
            .expect("changing auto-delivery cannot fail");
    }

    /// Runs one primitive operation, as recorded on the timeline.
    pub fn apply(&mut self, op: &Op) -> Result<(), NetworkError> {
        self.record(op.clone()).map(drop)
    }
}
