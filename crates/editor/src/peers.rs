//! A document backed by simulated peers: the editor edits the *active* peer's replica, its
//! writes travel through the network like any peer's, and the peers panel drives deliveries.

use scenetree_core::crdt::Replica;
use scenetree_core::crdt::network::{Network, NetworkError, Op, PeerId};
use scenetree_core::crdt::scenario::{Scenario, ScenarioError, ScenarioPlayer};

use super::document::Document;
use super::live::{LiveSession, Recorded, recording_of};

/// Where a document's replica lives.
#[derive(Debug)]
// One Backend per document, and Solo is the usual one: boxing its replica would only add an
// indirection to every edit.
#[allow(clippy::large_enum_variant)]
pub(super) enum Backend {
    /// One replica, edited alone (writes are collected in the document's outbox).
    Solo(Replica),
    /// Simulated peers; the document shows and edits `active`.
    Peers {
        sim: Box<Simulation>,
        active: PeerId,
    },
    /// A live session with a data layer; the document shows and edits this editor's replica.
    Live(Box<LiveSession>),
}

impl Backend {
    /// Every replica the document holds: the one, or each peer's.
    pub(super) fn replicas(&self) -> impl Iterator<Item = &Replica> {
        let (solo, peers) = match self {
            Backend::Solo(replica) => (Some(replica), None),
            Backend::Peers { sim, .. } => (None, Some(sim.network().replicas().iter())),
            Backend::Live(session) => (Some(session.replica()), None),
        };
        solo.into_iter().chain(peers.into_iter().flatten())
    }

    /// The replica the document shows and edits: the one, the active peer's, or this
    /// editor's in a live session.
    pub(super) fn shown(&self) -> &Replica {
        match self {
            Backend::Solo(replica) => replica,
            Backend::Peers { sim, active } => sim
                .network()
                .replica(*active)
                .expect("the active peer exists"),
            Backend::Live(session) => session.replica(),
        }
    }

    /// For a live session, whether it holds work that could be lost: the host owns the file,
    /// so only writes it never acknowledged while the connection is down count.
    pub(super) fn live_unsaved(&self) -> Option<bool> {
        match self {
            Backend::Live(session) => {
                Some(session.state() != super::live::LinkState::Connected && session.waiting() > 0)
            }
            _ => None,
        }
    }
}

/// The peers behind a document: a free-form network, or a lesson being played.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // it lives boxed in Backend::Peers; boxing a variant saves nothing
pub enum Simulation {
    /// Peers the user set up and drives by hand.
    Free(Network),
    /// A lesson (scenario file) with its steps and texts.
    Lesson(ScenarioPlayer),
}

impl Simulation {
    /// The network.
    pub fn network(&self) -> &Network {
        match self {
            Simulation::Free(n) => n,
            Simulation::Lesson(p) => p.network(),
        }
    }

    /// The network, to operate.
    pub fn network_mut(&mut self) -> &mut Network {
        match self {
            Simulation::Free(n) => n,
            Simulation::Lesson(p) => p.network_mut(),
        }
    }

    /// The lesson, when one is playing.
    pub fn lesson(&self) -> Option<&ScenarioPlayer> {
        match self {
            Simulation::Lesson(p) => Some(p),
            Simulation::Free(_) => None,
        }
    }

    /// The run so far as a scenario in the session recording's form (one step per write,
    /// delivery, drop or duplicate, each naming its peer and tick), titled and its peers
    /// named as its lesson's, or as a run by hand.
    pub fn history(&self) -> Scenario {
        let (title, explanation) = match self.lesson() {
            Some(player) => (
                player.scenario().title.clone(),
                player.scenario().explanation.clone(),
            ),
            None => (
                "A recorded run".to_owned(),
                "Peers edited and delivered by hand in scenetree.".to_owned(),
            ),
        };
        let mut history = recording_of(self.network(), &title, &explanation, Recorded::Simulation);
        // A replayed recording saved again keeps its peers' names.
        if let Some(player) = self.lesson() {
            history.peer_names = player.scenario().peer_names.clone();
        }
        history
    }
}

impl Document {
    /// Splits the document into `peers` simulated peers that all start from its current state;
    /// the editor then edits peer 1. Undo history is kept (undo writes as the active peer).
    pub fn start_simulation(&mut self, peers: usize, seed: u64) -> Result<(), NetworkError> {
        let network = Network::new(peers, seed, self.replica())?;
        self.set_backend(Backend::Peers {
            sim: Box::new(Simulation::Free(network)),
            active: PeerId::from_index(0),
        });
        Ok(())
    }

    /// Opens a lesson: its peers at the lesson's start, the editor on peer 1.
    pub fn open_lesson(&mut self, scenario: Scenario) -> Result<(), ScenarioError> {
        let player = ScenarioPlayer::new(scenario)?;
        self.set_backend(Backend::Peers {
            sim: Box::new(Simulation::Lesson(player)),
            active: PeerId::from_index(0),
        });
        self.clear_history();
        self.mark_unmodified();
        Ok(())
    }

    /// Ends the simulation, keeping `keep`'s state as the document. A lesson's kept state is
    /// the lesson's, not the user's work: it counts as unsaved only when the user edited the
    /// lesson's scene themselves (and once they edit it afterwards).
    pub fn stop_simulation(&mut self, keep: PeerId) -> Result<(), NetworkError> {
        let Backend::Peers { sim, .. } = &self.backend() else {
            return Ok(());
        };
        let lesson = sim.lesson().is_some();
        let replica = sim.network().replica(keep)?.clone();
        let edited = self.edited_in_lesson();
        self.set_backend(Backend::Solo(replica));
        if lesson {
            self.keep_lesson_state(edited);
        }
        Ok(())
    }

    /// The simulation and the active peer, when peers are simulated.
    pub fn simulation(&self) -> Option<(&Simulation, PeerId)> {
        match self.backend() {
            Backend::Peers { sim, active } => Some((sim, *active)),
            Backend::Solo(_) | Backend::Live(_) => None,
        }
    }

    /// Shows and edits another peer.
    pub fn set_active_peer(&mut self, peer: PeerId) -> Result<(), NetworkError> {
        if let Backend::Peers { sim, active } = self.backend_mut() {
            sim.network().replica(peer)?;
            *active = peer;
        }
        self.refresh();
        Ok(())
    }

    /// Runs one network operation (deliver, drop, duplicate, reorder, offline, tick, …).
    pub fn network_op(&mut self, op: &Op) -> Result<(), NetworkError> {
        if let Backend::Peers { sim, .. } = self.backend_mut() {
            sim.network_mut().apply(op)?;
        }
        self.refresh();
        Ok(())
    }

    /// Changes the simulation some other way (deliver all, seek the timeline, …) and refreshes.
    pub fn with_network<R>(&mut self, f: impl FnOnce(&mut Network) -> R) -> Option<R> {
        let result = match self.backend_mut() {
            Backend::Peers { sim, .. } => Some(f(sim.network_mut())),
            Backend::Solo(_) | Backend::Live(_) => None,
        };
        self.refresh();
        result
    }

    /// Plays the lesson's next step. Actions the user already made by hand (a delivery, say)
    /// are skipped; their explanations are returned. `None` when the lesson is over (or none
    /// is playing).
    pub fn next_lesson_step(&mut self) -> Option<Vec<String>> {
        let played = match self.backend_mut() {
            Backend::Peers { sim, .. } => match sim.as_mut() {
                Simulation::Lesson(player) => player.next_step_lenient(),
                Simulation::Free(_) => None,
            },
            Backend::Solo(_) | Backend::Live(_) => None,
        };
        self.refresh();
        played
    }
}
