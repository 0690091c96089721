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

mod describe;
mod timeline;

use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::message::CrdtMessage;
use super::replica::{ApplyOutcome, Replica, WriteError};
use crate::model::{Entity, Transform, encode_name, ids};

pub use describe::{Convergence, describe_message, entity_states};
pub use timeline::{Event, EventKind, Op};

/// Fewest peers a network holds.
pub const MIN_PEERS: usize = 2;
/// Most peers a network holds.
pub const MAX_PEERS: usize = 8;
/// Most deliveries one call of [`Network::deliver_all`] or [`Network::advance`] makes. The
/// protocol always quiets down long before this (replies only flow towards newer state); the cap
/// only turns a bug into a stop instead of a hang.
pub const MAX_DELIVERIES_PER_CALL: usize = 100_000;

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

    /// Writes the `core-schema::Name` component.
    pub fn name(entity: Entity, name: &str) -> LocalWrite {
        LocalWrite::Put {
            entity,
            component: ids::NAME,
            data: encode_name(name),
        }
    }

    /// The entity written.
    pub fn entity(&self) -> Entity {
        match self {
            LocalWrite::Put { entity, .. }
            | LocalWrite::Append { entity, .. }
            | LocalWrite::DeleteComponent { entity, .. }
            | LocalWrite::DeleteEntity { entity } => *entity,
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

/// In which order [`Network::deliver_all`] delivers.
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
    /// True when [`MAX_DELIVERIES_PER_CALL`] stopped the call.
    pub capped: bool,
}

/// What a local write produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteReceipt {
    /// The messages the peer broadcasts (empty when the write changed nothing).
    pub messages: Vec<CrdtMessage>,
    /// The in-flight ids, message by message, peer by peer (ascending).
    pub sent: Vec<MessageId>,
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
}

/// Everything a replay rebuilds: the peers, the messages in flight, the clock, the generator.
#[derive(Clone, Debug)]
struct NetState {
    replicas: Vec<Replica>,
    online: Vec<bool>,
    in_flight: Vec<InFlight>,
    next_id: u64,
    now: u64,
    auto: Option<AutoDelivery>,
}

/// What a random draw is for: each purpose has its own generator key.
#[derive(Copy, Clone)]
enum Draw {
    /// Which message a random-order delivery takes.
    Pick = 1,
    /// A message's auto-delivery jitter.
    Jitter = 2,
}

/// The generator for one random choice: keyed by the seed and the purpose, positioned on the
/// stream `position`.
fn keyed_rng(seed: u64, draw: Draw, position: u64) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8] = draw as u8;
    let mut rng = ChaCha8Rng::from_seed(key);
    rng.set_stream(position);
    rng
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
    /// Bumped whenever the replicas are rebuilt instead of updated (a seek backwards).
    epoch: u64,
}

impl Network {
    /// A network of `peers` peers that all start with `initial`'s state, online, with nothing in
    /// flight, the clock at 0 and auto-delivery off. `seed` drives every random choice.
    pub fn new(peers: usize, seed: u64, initial: &Replica) -> Result<Network, NetworkError> {
        if !(MIN_PEERS..=MAX_PEERS).contains(&peers) {
            return Err(NetworkError::PeerCount(peers));
        }
        let start = NetState {
            replicas: vec![initial.clone(); peers],
            online: vec![true; peers],
            in_flight: Vec::new(),
            next_id: 1,
            now: 0,
            auto: None,
        };
        Ok(Network {
            seed,
            state: start.clone(),
            start,
            log: Vec::new(),
            cursor: 0,
            epoch: 0,
        })
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
    pub fn in_flight(&self) -> &[InFlight] {
        &self.state.in_flight
    }

    /// One in-flight message.
    pub fn message(&self, id: MessageId) -> Option<&InFlight> {
        self.state.in_flight.iter().find(|m| m.id == id)
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

    /// Applies a local write on `peer` and sends its messages to every other peer.
    pub fn write(&mut self, peer: PeerId, write: LocalWrite) -> Result<WriteReceipt, NetworkError> {
        let event = self.record(Op::Write { peer, write })?;
        Ok(match event.map(|e| &e.kind) {
            Some(EventKind::Write { messages, sent, .. }) => WriteReceipt {
                messages: messages.clone(),
                sent: sent.clone(),
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

    /// Lets `ticks` ticks pass. With auto-delivery on, every deliverable message whose due time
    /// falls within them is delivered at its due time (earliest first, then list order);
    /// overdue messages (held by an offline peer) go first.
    pub fn advance(&mut self, ticks: u64) -> DeliveryReport {
        let target = self.state.now.saturating_add(ticks);
        let mut report = DeliveryReport::default();
        while self.state.auto.is_some() {
            if report.delivered.len() >= MAX_DELIVERIES_PER_CALL {
                report.capped = true;
                break;
            }
            let next = self
                .state
                .in_flight
                .iter()
                .filter(|m| self.is_deliverable(m))
                .filter_map(|m| Some((self.due_at(m)?, m.id)))
                .enumerate()
                .filter(|(_, (due, _))| *due <= target)
                .min_by_key(|(position, (due, _))| (*due, *position))
                .map(|(_, next)| next);
            let Some((due, id)) = next else { break };
            if due > self.state.now {
                self.tick(due - self.state.now);
            }
            self.deliver(id)
                .expect("a deliverable in-flight message can be delivered");
            report.delivered.push(id);
        }
        if target > self.state.now {
            self.tick(target - self.state.now);
        }
        report.waiting = self.state.in_flight.len();
        report
    }

    /// Delivers every deliverable message that passes `filter`, including the replies and
    /// announcements those deliveries send, until none is left, in `order`.
    pub fn deliver_all(&mut self, order: DeliveryOrder, filter: MessageFilter) -> DeliveryReport {
        let mut report = DeliveryReport::default();
        loop {
            let candidates: Vec<MessageId> = self
                .state
                .in_flight
                .iter()
                .filter(|m| filter.matches(m) && self.is_deliverable(m))
                .map(|m| m.id)
                .collect();
            if candidates.is_empty() {
                break;
            }
            if report.delivered.len() >= MAX_DELIVERIES_PER_CALL {
                report.capped = true;
                break;
            }
            let id = match order {
                DeliveryOrder::Send => candidates[0],
                DeliveryOrder::Reverse => candidates[candidates.len() - 1],
                DeliveryOrder::Random => {
                    // Keyed by the timeline position the delivery will take. u32 sampling is
                    // the same on every platform; the list is far shorter.
                    let len = u32::try_from(candidates.len()).unwrap_or(u32::MAX);
                    let mut rng = keyed_rng(self.seed, Draw::Pick, self.cursor as u64);
                    candidates[rng.random_range(0..len) as usize]
                }
            };
            self.deliver(id)
                .expect("a deliverable in-flight message can be delivered");
            report.delivered.push(id);
        }
        report.waiting = self
            .state
            .in_flight
            .iter()
            .filter(|m| filter.matches(m))
            .count();
        report
    }

    /// Runs one primitive operation, as recorded on the timeline.
    pub fn apply(&mut self, op: &Op) -> Result<(), NetworkError> {
        self.record(op.clone()).map(drop)
    }

    // ----- execution -------------------------------------------------------------------------

    fn check_peer(&self, peer: PeerId) -> Result<(), NetworkError> {
        if peer.0 == 0 || peer.index() >= self.peer_count() {
            return Err(NetworkError::UnknownPeer(peer));
        }
        Ok(())
    }

    fn position(&self, id: MessageId) -> Result<usize, NetworkError> {
        self.state
            .in_flight
            .iter()
            .position(|m| m.id == id)
            .ok_or(NetworkError::UnknownMessage(id))
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
        self.state.in_flight.push(InFlight {
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
    fn exec(&mut self, op: &Op) -> Result<Option<EventKind>, NetworkError> {
        Ok(Some(match op {
            Op::Write { peer, write } => {
                self.check_peer(*peer)?;
                let replica = &mut self.state.replicas[peer.index()];
                let result = match write {
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
                };
                let messages = result.map_err(|source| NetworkError::Write {
                    peer: *peer,
                    source,
                })?;
                if messages.is_empty() {
                    return Ok(None);
                }
                let sent = self.broadcast(*peer, &messages, MessageKind::Write, None);
                EventKind::Write {
                    peer: *peer,
                    write: write.clone(),
                    messages,
                    sent,
                }
            }
            Op::Deliver { id } => {
                let position = self.position(*id)?;
                let m = &self.state.in_flight[position];
                for peer in [m.from, m.to] {
                    if !self.state.online[peer.index()] {
                        return Err(NetworkError::PeerOffline { id: *id, peer });
                    }
                }
                let message = self.state.in_flight.remove(position);
                let outcome = self.state.replicas[message.to.index()].apply(&message.message);
                let mut sent = Vec::new();
                if let Some(reply) = outcome.reply() {
                    sent.push(self.send(
                        message.to,
                        message.from,
                        reply.clone(),
                        MessageKind::Reply,
                        Some(message.id),
                    ));
                }
                if let ApplyOutcome::EntityDeleted { announcements } = &outcome {
                    sent.extend(self.broadcast(
                        message.to,
                        announcements,
                        MessageKind::Announcement,
                        Some(message.id),
                    ));
                }
                EventKind::Deliver {
                    message,
                    outcome,
                    sent,
                }
            }
            Op::Drop { id } => {
                let position = self.position(*id)?;
                EventKind::Drop {
                    message: self.state.in_flight.remove(position),
                }
            }
            Op::Duplicate { id } => {
                let position = self.position(*id)?;
                let mut copy = self.state.in_flight[position].clone();
                copy.cause = Some(copy.id);
                copy.id = MessageId(self.state.next_id);
                copy.sent_at = self.state.now;
                self.state.next_id += 1;
                let copy_id = copy.id;
                self.state.in_flight.insert(position + 1, copy);
                EventKind::Duplicate {
                    original: *id,
                    copy: copy_id,
                }
            }
            Op::Reorder { id, index } => {
                let from = self.position(*id)?;
                let len = self.state.in_flight.len();
                if *index >= len {
                    return Err(NetworkError::BadIndex { index: *index, len });
                }
                if from == *index {
                    return Ok(None);
                }
                let m = self.state.in_flight.remove(from);
                self.state.in_flight.insert(*index, m);
                EventKind::Reorder {
                    id: *id,
                    from,
                    to: *index,
                }
            }
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
                EventKind::Tick { ticks: *ticks }
            }
            Op::SetAutoDelivery { auto } => {
                if self.state.auto == *auto {
                    return Ok(None);
                }
                self.state.auto = *auto;
                EventKind::SetAutoDelivery { auto: *auto }
            }
        }))
    }
}
