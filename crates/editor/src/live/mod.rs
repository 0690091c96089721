//! A document's live backend: a session with Decentraland's data layer (`sdk-commands start
//! --data-layer`) through `scenetree_live`. The host's snapshot becomes a fresh replica; the
//! session keeps it as peer 1 of a two-peer [`Network`] whose peer 2 is the host as this
//! editor knows it, so the Peers workspace shows the session with the simulator's own views.
//!
//! - **Out.** The editor's writes are peer 1's writes ([`LiveSession::write`], each value
//!   checked with its component's codec first). They wait in flight to the host until the
//!   connection can take a stream element (one per acknowledgement), then go as one element;
//!   the host's acknowledgement delivers them to peer 2. While an element waits, later writes
//!   of the same register replace the queued one (one message per tick, as `@dcl/ecs` sends),
//!   so a drag is one message per element, not one per frame.
//! - **In.** The host's elements are split with the core's CRDT codec and written as peer 2's
//!   messages, delivered to peer 1 at once: [`Replica::apply`] decides, and the tree,
//!   inspector and viewport follow. The network sends no replies (the runtime computes the
//!   reply to an outdated sender and drops it; the host announces its own deletions), and a
//!   message the replica refuses is reported. A large element is handled in batches, a time
//!   slice per poll, so neither a frame nor a deadline waits for all of it.
//! - **Recording.** The network keeps no timeline; `recorder.rs` writes each event to disk as
//!   a step of the session's recording as it happens ([`RecordTo`]).
//! - **Offline.** A dropped connection keeps the document; edits go on and wait. Reconnecting
//!   runs on its own thread with backoff; the new snapshot becomes a new network, and this
//!   editor's writes the host does not hold are sent again (`resend.rs`).
//!
//! The network's clock counts milliseconds since the (re)connection, at least one tick per
//! stream element sent, so a recording keeps when things happened.

mod ids;
mod link;
mod log;
mod outgoing;
mod recorder;
mod recording;
mod resend;
mod traffic;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use scenetree_core::crdt::network::{LocalWrite, MessageId, Network, NetworkError, PeerId};
use scenetree_core::crdt::scenario::Scenario;
use scenetree_core::crdt::{CrdtMessage, Replica, decode_state_stream};
use scenetree_core::model::{Entity, known_component_name};
use scenetree_live::{ConnectError, LiveConnection, LiveEvent, NotConnected};

pub use ids::{FIRST_LIVE_NUMBER, IdRange};
pub use link::{Attempt, INCOMING_LIMIT, LiveSettings};
pub use log::{Direction, LOG_BYTES_LIMIT, LOG_LIMIT, LogEntry, MessageLog};
pub use outgoing::{BadValue, Unsendable};
pub use recorder::{RecordTo, RecordingSummary, SPOOL_LIMIT};
pub use recording::{Recorded, recording_of};

use link::{Link, Retry, close_in_background};
use outgoing::Codecs;
use recorder::Recorder;
use resend::Authored;
use traffic::Backlog;

/// This editor in the session's network.
pub const THIS_EDITOR: PeerId = PeerId(1);
/// The host (what it holds, as far as this editor knows) in the session's network.
pub const HOST: PeerId = PeerId(2);

/// Why a live session could not start.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// Connecting failed (unreachable, not a data layer, a protocol error, …).
    #[error(transparent)]
    Connect(#[from] ConnectError),
    /// The host's first element is not CRDT messages.
    #[error("{url}: the host's snapshot does not load as SDK7 CRDT messages: {reason}")]
    Snapshot {
        /// The data layer's URL.
        url: String,
        /// Where and why it does not decode.
        reason: String,
    },
    /// The recording could not be started (its file cannot be created).
    #[error("cannot record the session ({to}): {reason}")]
    Record {
        /// Where it was to go.
        to: String,
        /// Why not.
        reason: String,
    },
}

/// Something to tell the user, from [`LiveSession::take_notes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveNote {
    /// The host wrote main.composite, as asked.
    Saved,
    /// The host failed to save.
    SaveFailed(String),
    /// The connection dropped; edits go on offline.
    Disconnected(String),
    /// Connected again (connection number `connection`); `resent` writes went again.
    Reconnected {
        /// Which connection of the session this is (2 after the first reconnect).
        connection: u32,
        /// This editor's writes sent again because the host did not hold them.
        resent: usize,
    },
    /// A reconnect attempt failed and will not be retried on its own (not a data layer any
    /// more, a broken snapshot).
    GaveUp(String),
    /// The host sent bytes that are not CRDT messages; they were skipped.
    Problem(String),
    /// The host sent messages this editor's replica refused (a Transform shorter than 44
    /// bytes, a value of the wrong kind for its component): what and how many.
    Refused(String),
    /// The session recording stopped before the session's end, and why.
    RecordingStopped(String),
}

/// How the connection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkState {
    /// Open.
    Connected,
    /// A reconnect attempt is running.
    Connecting,
    /// No connection; the next attempt in `next_try` (`None`: only when asked).
    Offline {
        /// Time left before the next attempt.
        next_try: Option<Duration>,
    },
}

/// A live session with a data layer.
#[derive(Debug)]
pub struct LiveSession {
    url: String,
    settings: LiveSettings,
    /// Peer 1 this editor, peer 2 the host; the clock counts ms since `segment_start`.
    network: Network,
    link: Link,
    retry: Retry,
    /// When the session began (the log's times count from here).
    session_start: Instant,
    /// When the current connection began (the network's clock counts from here).
    segment_start: Instant,
    /// Stream elements handed to the connection and not acknowledged, oldest first: each
    /// message's id and its log entry.
    sent: VecDeque<Vec<(MessageId, u64)>>,
    authored: Authored,
    log: MessageLog,
    ids: IdRange,
    codecs: Codecs,
    notes: Vec<LiveNote>,
    /// Connections so far (1 + reconnects).
    connections: u32,
    /// The entities in the order the last snapshot first named them: the host engine's
    /// order, which an Inspector loading the scene follows.
    snapshot_order: Vec<Entity>,
    /// The recording in progress (see [`RecordTo`]).
    recorder: Option<Recorder>,
    /// The rest of a host element a poll's time slice did not reach.
    backlog: Option<Backlog>,
    /// The last poll's time slice ended before the connection's events did.
    arrivals_left: bool,
}

impl LiveSession {
    /// Connects to `url` and starts a session from the host's snapshot. Blocks up to the
    /// connect timeout (the window uses [`Attempt`] and [`LiveSession::start`] instead).
    pub fn connect(url: &str, settings: LiveSettings) -> Result<LiveSession, LiveError> {
        let connection = LiveConnection::connect(url, settings.options())?;
        LiveSession::start(url, connection, settings)
    }

    /// A session over a connection that was just opened (its first event is the snapshot).
    pub fn start(
        url: &str,
        connection: LiveConnection,
        settings: LiveSettings,
    ) -> Result<LiveSession, LiveError> {
        let (host, snapshot_order) = first_snapshot(url, &connection)?;
        let now = Instant::now();
        let network = new_network(&host);
        let head = recording_head(&network, url, 1);
        let recorder = Recorder::start(&settings.record, &head).map_err(|e| LiveError::Record {
            to: format!("{:?}", settings.record),
            reason: e.to_string(),
        })?;
        Ok(LiveSession {
            url: url.to_owned(),
            settings,
            network,
            link: Link::Connected(connection),
            retry: Retry::default(),
            session_start: now,
            segment_start: now,
            sent: VecDeque::new(),
            authored: Authored::default(),
            log: MessageLog::default(),
            ids: IdRange::choose(&host),
            codecs: Codecs::default(),
            notes: Vec::new(),
            connections: 1,
            snapshot_order,
            recorder,
            backlog: None,
            arrivals_left: false,
        })
    }

    /// The data layer's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The host as people read it: `127.0.0.1:8000` of `ws://127.0.0.1:8000/data-layer`.
    pub fn host_label(&self) -> &str {
        let rest = self.url.strip_prefix("ws://").unwrap_or(&self.url);
        rest.split('/').next().unwrap_or(rest)
    }

    /// This editor's replica.
    pub fn replica(&self) -> &Replica {
        self.network
            .replica(THIS_EDITOR)
            .expect("a live network has this editor as peer 1")
    }

    /// The session's network: this editor (peer 1) and the host (peer 2), the writes waiting
    /// for the host in flight, and the timeline of everything since the last (re)connection.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// Every message in and out, oldest first.
    pub fn log(&self) -> &MessageLog {
        &self.log
    }

    /// Where new entities' numbers come from.
    pub fn id_range(&self) -> IdRange {
        self.ids
    }

    /// `n` free entity ids for new entities (see [`IdRange::free`]).
    pub fn free_entities(&self, n: usize, taken: impl Fn(u16) -> bool) -> Vec<Entity> {
        self.ids.free(self.replica(), n, taken)
    }

    /// The entities in the order the last snapshot first named them (the host engine's).
    pub fn snapshot_entity_order(&self) -> &[Entity] {
        &self.snapshot_order
    }

    /// How the connection stands.
    pub fn state(&self) -> LinkState {
        match &self.link {
            Link::Connected(_) => LinkState::Connected,
            Link::Connecting(_) => LinkState::Connecting,
            Link::Offline { next_try } => LinkState::Offline {
                next_try: next_try.map(|t| t.saturating_duration_since(Instant::now())),
            },
        }
    }

    /// Why the connection was lost or the last reconnect failed.
    pub fn offline_reason(&self) -> Option<&str> {
        self.retry.reason.as_deref()
    }

    /// Which connection of the session is current (1, 2 after the first reconnect, …).
    pub fn connection_number(&self) -> u32 {
        self.connections
    }

    /// This editor's messages the host has not acknowledged: sent and waiting, or queued
    /// (offline, or behind the element in flight).
    pub fn waiting(&self) -> usize {
        (self.network.in_flight().iter())
            .filter(|m| m.from == THIS_EDITOR)
            .count()
    }

    /// What happened that the user should hear about since the last call.
    pub fn take_notes(&mut self) -> Vec<LiveNote> {
        std::mem::take(&mut self.notes)
    }

    /// How long until the session needs [`Self::poll`] again without anything arriving: at
    /// once when the last poll's time slice left arrivals unhandled, else the next reconnect
    /// attempt.
    pub fn next_wake(&self) -> Option<Duration> {
        if self.arrivals_left || self.backlog.is_some() {
            // A time slice ended with more to handle: at once.
            return Some(Duration::ZERO);
        }
        match &self.link {
            Link::Offline {
                next_try: Some(when),
            } => Some(when.saturating_duration_since(Instant::now())),
            _ => None,
        }
    }

    /// Writes a register as this editor: checked with its component's codec, then written
    /// to this editor's replica and queued for the host. `None` removes the component.
    pub fn write(
        &mut self,
        entity: Entity,
        component: u32,
        value: Option<Vec<u8>>,
    ) -> Result<(), WriteRefused> {
        self.codecs
            .check(component, value.as_deref())
            .map_err(|reason| {
                WriteRefused::Unsendable(Unsendable {
                    entity,
                    what: known_component_name(component)
                        .map_or_else(|| format!("component {component}"), str::to_owned),
                    reason,
                })
            })?;
        let write = LocalWrite::register(entity, component, value);
        // The write's time on the clock is when it was made (a recording shows it), unless
        // it may still merge into a queued message of the same tick.
        self.advance_clock_unless_queued();
        let written = self.network.write(THIS_EDITOR, write);
        self.record_events();
        let receipt = written?;
        for message in receipt.messages {
            if let Some(component) = message.component() {
                self.authored.insert((message.entity(), component), message);
            }
        }
        Ok(())
    }

    /// Sends what waits, as one stream element, when the host has acknowledged the last one.
    pub fn flush(&mut self) {
        self.send_queued(false);
        self.record_events();
    }

    /// Asks the host to write main.composite, with every write made so far.
    pub fn save(&mut self) -> Result<(), LiveSaveError> {
        self.send_queued(true);
        self.record_events();
        match &self.link {
            Link::Connected(connection) => Ok(connection.save()?),
            _ => Err(LiveSaveError::Offline {
                host: self.host_label().to_owned(),
            }),
        }
    }

    /// Starts a reconnect attempt now (unless connected or one is running).
    pub fn reconnect_now(&mut self) {
        if matches!(self.link, Link::Offline { .. }) {
            self.link = Link::Connecting(Attempt::start(&self.url, &self.settings));
        }
    }

    /// Ends the session: closes the connection (on its own thread: closing waits for
    /// acknowledgements) and returns this editor's replica.
    pub fn end(&mut self) -> Replica {
        if let Link::Connected(connection) =
            std::mem::replace(&mut self.link, Link::Offline { next_try: None })
        {
            close_in_background(connection);
        }
        self.replica().clone()
    }

    /// Closes the connection here, waiting up to 2 s for the host to acknowledge what was
    /// sent (for the command line, whose process ends next).
    pub fn close_and_wait(&mut self) {
        if let Link::Connected(connection) =
            std::mem::replace(&mut self.link, Link::Offline { next_try: None })
        {
            let _ = connection.close();
        }
    }

    /// The connection dropped: edits go on offline; a reconnect attempt is scheduled.
    fn lost(&mut self, reason: String) {
        if let Link::Connected(connection) =
            std::mem::replace(&mut self.link, Link::Offline { next_try: None })
        {
            close_in_background(connection);
        }
        self.sent.clear();
        self.schedule_retry(reason.clone());
        self.notes.push(LiveNote::Disconnected(reason));
    }

    fn schedule_retry(&mut self, reason: String) {
        let wait = self.retry.backoff.next().unwrap_or(Duration::from_secs(10));
        self.retry.reason = Some(reason);
        self.link = Link::Offline {
            next_try: Some(Instant::now() + wait),
        };
    }

    fn attempt_ended(&mut self, result: Result<LiveConnection, ConnectError>) {
        match result {
            Ok(connection) => self.reconnected(connection),
            Err(e) => {
                self.retry.failures += 1;
                if e.is_transient() {
                    self.schedule_retry(e.to_string());
                } else {
                    self.give_up(e.to_string());
                }
            }
        }
    }

    fn give_up(&mut self, reason: String) {
        self.retry.reason = Some(reason.clone());
        self.link = Link::Offline { next_try: None };
        self.notes.push(LiveNote::GaveUp(reason));
    }

    /// A new connection: its snapshot becomes the new network, and this editor's writes the
    /// host does not hold go again.
    fn reconnected(&mut self, connection: LiveConnection) {
        let host = match first_snapshot(&self.url, &connection) {
            Ok((host, order)) => {
                self.snapshot_order = order;
                host
            }
            Err(e) => {
                close_in_background(connection);
                self.give_up(e.to_string());
                return;
            }
        };
        let resend = resend::writes_to_resend(&self.authored, self.replica(), &host);
        self.network = new_network(&host);
        self.segment_start = Instant::now();
        self.sent.clear();
        self.backlog = None;
        self.connections += 1;
        self.link = Link::Connected(connection);
        self.retry = Retry::default();
        self.restart_recording();
        let resent = resend.len();
        if !resend.is_empty() {
            let _ = (self.network).write(THIS_EDITOR, LocalWrite::Authored { messages: resend });
            self.record_events();
        }
        self.notes.push(LiveNote::Reconnected {
            connection: self.connections,
            resent,
        });
    }
}

impl Drop for LiveSession {
    /// Closing waits for acknowledgements: it happens on its own thread.
    fn drop(&mut self) {
        if let Link::Connected(connection) =
            std::mem::replace(&mut self.link, Link::Offline { next_try: None })
        {
            close_in_background(connection);
        }
    }
}

/// Why a live write was not made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteRefused {
    /// The value would not decode on the host.
    #[error(transparent)]
    Unsendable(#[from] Unsendable),
    /// This editor's replica refused it (a deleted entity, say).
    #[error(transparent)]
    Network(#[from] NetworkError),
}

/// Why the host could not be asked to save.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LiveSaveError {
    /// The document is not a live session.
    #[error("the document is not live")]
    NotLive,
    /// No connection: the request would go nowhere.
    #[error("offline: the host can be asked to save once the connection to {host} is back")]
    Offline {
        /// The host as people read it (`127.0.0.1:8000`).
        host: String,
    },
    /// The connection closed between the last poll and the request.
    #[error("the connection to the host has just closed")]
    Closed(#[from] NotConnected),
}

/// A two-peer network (this editor, the host) starting from the host's state: one message
/// per tick, no replies (the runtime sends none), no timeline (the recording is on disk).
fn new_network(host: &Replica) -> Network {
    Network::new(2, 0, host)
        .expect("two peers is a valid network")
        .with_one_message_per_tick(true)
        .with_replies(false)
        .forgetting_timeline()
}

/// A recording's head for a fresh session network: its start (the host's snapshot) as
/// `initial`, the peers named, no steps yet.
fn recording_head(network: &Network, url: &str, connection: u32) -> Scenario {
    let host = url.strip_prefix("ws://").unwrap_or(url);
    let host = host.split('/').next().unwrap_or(host);
    let mut head = network.to_scenario(
        &format!("Live session at {host}"),
        &format!(
            "Recorded from the data layer at {url} (connection {connection} of this session). \
             Peer 1 is this editor, peer 2 the host, which relays every other client's \
             messages: a message from peer 2 was written by another client (or the host \
             itself) and reached this editor when its step says. The clock counts \
             milliseconds since connecting."
        ),
    );
    head.peer_names = vec![
        "This editor (peer 1)".to_owned(),
        format!("Host {host} (peer 2)"),
    ];
    head
}

/// The snapshot, the connection's first event, as a replica, and its entities in the order
/// it first names them.
fn first_snapshot(
    url: &str,
    connection: &LiveConnection,
) -> Result<(Replica, Vec<Entity>), LiveError> {
    let snapshot = |reason: String| LiveError::Snapshot {
        url: url.to_owned(),
        reason,
    };
    match connection.events().recv_timeout(Duration::from_secs(5)) {
        Ok(LiveEvent::Snapshot(bytes)) => match decode_state_stream(&bytes) {
            Ok(decoded) => {
                let mut seen = rustc_hash::FxHashSet::default();
                let order = (decoded.messages.iter())
                    .map(CrdtMessage::entity)
                    .filter(|&e| seen.insert(e))
                    .collect();
                Ok((Replica::from_messages(&decoded.messages), order))
            }
            Err(e) => Err(snapshot(format!(
                "at byte {} of {}: {}",
                e.offset,
                bytes.len(),
                e.kind
            ))),
        },
        Ok(other) => Err(snapshot(format!("the first event was {other:?}"))),
        Err(_) => Err(snapshot("no snapshot arrived".into())),
    }
}
