//! A played scenario replayed event by event, with what `scenetree scenario run` reports
//! after each event: every peer's digest, its re-rooted entities and where the Inspector's
//! tree (`inspector::Nodes`) disagrees with its Transforms. Each peer's derived state follows
//! its replica incrementally (a [`DigestCache`], a [`SceneView`], a [`NodesCheck`]), so an
//! event costs what it changed, not the scene's size; [`report`] writes the report as it goes.

mod policies;
pub mod report;

use std::sync::Arc;

use scenetree_core::crdt::network::{Network, NetworkError, PeerId};
use scenetree_core::crdt::{DigestCache, ScenarioPlayer};
use scenetree_core::model::Entity;
use scenetree_core::scene::{Fallback, SceneView};

use crate::nodes_check::{NodesCheck, NodesMismatches};

pub use policies::{PolicyStates, PolicyTree, parse_policies, policy_states};

/// Why an entity is drawn at the root instead of under its declared parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rerooted {
    /// It is on this parenting cycle (members as [`Fallback::Cycle`] lists them).
    Cycle(Vec<Entity>),
    /// Its declared parent holds no Transform.
    MissingParent(Entity),
}

/// A re-rooted entity of one peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RerootedEntity {
    /// The entity.
    pub entity: Entity,
    /// Its name, as this peer (else any peer) knows it.
    pub name: Option<String>,
    /// Why it is at the root.
    pub reason: Rerooted,
}

/// One peer at one point of the replay.
#[derive(Clone, Debug)]
pub struct PeerReport {
    /// The peer.
    pub peer: PeerId,
    /// Its replica's [`scenetree_core::crdt::Replica::digest`].
    pub digest: u128,
    /// Its re-rooted entities, by entity.
    pub rerooted: Vec<RerootedEntity>,
    /// Where its `inspector::Nodes` disagrees with its Transforms (shared with the previous
    /// event's report while neither changed).
    pub misplaced: Arc<NodesMismatches>,
}

/// One event of the run and the peers after it.
#[derive(Clone, Debug)]
pub struct EventReport {
    /// The scenario step (from 1) that recorded the event; 0 for none.
    pub step: usize,
    /// The event's number on the timeline (from 1).
    pub index: usize,
    /// Its kind, one word (see [`scenetree_core::crdt::network::EventKind::name`]).
    pub kind: &'static str,
    /// The clock after it, in ticks.
    pub at: u64,
    /// The event in one line.
    pub summary: String,
    /// Every peer after it.
    pub peers: Vec<PeerReport>,
    /// Messages in flight after it.
    pub in_flight: usize,
}

/// What is derived from one peer's replica, kept up to date from its change journal.
#[derive(Debug, Default)]
struct PeerWatch {
    view: SceneView,
    digest: DigestCache,
    nodes: NodesCheck,
}

/// A played scenario, rewound to its start and replayed one event at a time (an iterator of
/// [`EventReport`]s). It owns the player: its network is the one replayed, so nothing as long
/// as the run is copied.
#[derive(Debug)]
pub struct Replay {
    player: ScenarioPlayer,
    watches: Vec<PeerWatch>,
    /// The events the run recorded (the replay stops there).
    events: usize,
    /// The played step the next event belongs to (an index into the step ends).
    step: usize,
}

impl Replay {
    /// Rewinds `player`'s network to the start of its run.
    pub fn new(mut player: ScenarioPlayer) -> Result<Replay, NetworkError> {
        let events = player.network().cursor();
        player.network_mut().seek(0)?;
        let watches = player
            .network()
            .peers()
            .map(|_| PeerWatch::default())
            .collect();
        Ok(Replay {
            player,
            watches,
            events,
            step: 0,
        })
    }

    /// The player (its scenario, and its network at the replay's position).
    pub fn player(&self) -> &ScenarioPlayer {
        &self.player
    }

    /// The network at the replay's position.
    pub fn network(&self) -> &Network {
        self.player.network()
    }

    /// Events not replayed yet.
    pub fn events_left(&self) -> usize {
        self.events - self.network().cursor()
    }

    /// Every peer now.
    pub fn peers(&mut self) -> Vec<PeerReport> {
        let network = self.player.network();
        (network.peers().zip(&mut self.watches))
            .map(|(peer, watch)| watch.report(network, peer))
            .collect()
    }

    /// The step (from 1) that recorded event `index` (from 0), or 0 when no played step did;
    /// `index` only grows from call to call.
    fn step_of(&mut self, index: usize) -> usize {
        let ends = self.player.step_ends();
        while self.step < ends.len() && ends[self.step] <= index {
            self.step += 1;
        }
        if self.step < ends.len() {
            self.step + 1
        } else {
            0
        }
    }
}

impl Iterator for Replay {
    type Item = EventReport;

    /// Replays the next event and reports it.
    fn next(&mut self) -> Option<EventReport> {
        let index = self.network().cursor();
        if index >= self.events || !self.player.network_mut().step_forward() {
            return None;
        }
        let step = self.step_of(index);
        let network = self.player.network();
        let event = &network.events()[index];
        let (kind, at, summary) = (event.kind.name(), event.at, network.describe_event(event));
        let in_flight = network.in_flight().len();
        Some(EventReport {
            step,
            index: index + 1,
            kind,
            at,
            summary,
            peers: self.peers(),
            in_flight,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.events_left(), Some(self.events_left()))
    }
}

impl PeerWatch {
    fn report(&mut self, network: &Network, peer: PeerId) -> PeerReport {
        let replica = network.replica(peer).expect("peers() lists existing peers");
        self.view.update(replica);
        let view = &self.view;
        let rerooted = (view.rerooted().into_iter())
            .filter_map(|(entity, reason)| {
                let reason = match reason {
                    Fallback::Cycle(members) => Rerooted::Cycle(members.to_vec()),
                    Fallback::MissingParent => {
                        Rerooted::MissingParent(view.declared_parent_of(entity)?)
                    }
                    Fallback::None => return None,
                };
                Some(RerootedEntity {
                    entity,
                    name: network.name_of(entity, &[peer]),
                    reason,
                })
            })
            .collect();
        PeerReport {
            peer,
            digest: self.digest.digest(replica),
            rerooted,
            misplaced: self.nodes.get(replica, view),
        }
    }
}
