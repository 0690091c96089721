//! [`PolicyBoard`]: every policy's tree for every peer of a network, kept in step with its
//! timeline and recomputed only where the inputs changed.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::ignore_cyclic::IgnoreCyclicState;
use super::move_op::{MoveOp, MovePeerState};
use super::revert::{EdgeMap, reattach};
use super::{Placement, TreePolicy};
use crate::crdt::network::{Event, ParentWrite, ParentWriteTracker, PeerId, WriteOrigin};
use crate::crdt::{Network, Replica};
use crate::model::Entity;
use crate::scene::SceneView;

/// Every [`TreePolicy`]'s tree for every peer of a [`Network`], at the network's timeline
/// position.
///
/// Call [`PolicyBoard::sync`] whenever the network may have changed (every frame is fine): it
/// reads only the events since the last call. When the events it read are no longer the
/// timeline's (a seek backwards, or events replaced after one) it starts over, from the board
/// it kept a little before the last such target when that still fits, else from the start; a
/// network of another start replays from the start. Per peer it keeps a [`SceneView`] (the
/// render tree, which is also [`TreePolicy::RootFallback`]) and each other policy's state; a
/// policy whose inputs did not change is not recomputed, and [`PolicyBoard::generation`] tells
/// a cache when a policy's tree changed.
///
/// Cost: an event costs what it touches (a write: a walk up the tree per history policy; a
/// cycle appearing or disappearing: the entities below it). A replay from the start builds each
/// peer's view and the initial trees again (tens of milliseconds for 65,000 entities) and reads
/// every event up to the cursor; a step back reads at most [`KEEP_BEFORE`] events from the kept
/// board (each peer's view is still read again: the network's replicas are new instances).
#[derive(Clone, Debug, Default)]
pub struct PolicyBoard {
    /// The initial replica's journal id of the network the state was built for.
    source: Option<u64>,
    /// Timeline events read so far.
    processed: usize,
    /// [`Network::timeline_id`] of the events read so far.
    timeline: u64,
    /// The board after the first `at` events, kept when a sync went backwards so that the next
    /// steps back read from there instead of from the start.
    kept: Option<Box<KeptBoard>>,
    tracker: Option<ParentWriteTracker>,
    /// The moves the messages of each write carry, in order: its own move, if it was one,
    /// after those of the earlier write of the same tick it replaced.
    moves: FxHashMap<WriteOrigin, Vec<Arc<MoveOp>>>,
    pub(super) peers: Vec<PeerPolicies>,
    scratch: Vec<ParentWrite>,
    /// Per policy: the peers' generations the last agreement was computed for, and it.
    pub(super) agreements: [Option<(Vec<u64>, PolicyAgreement)>; 5],
    /// How many times the board started over: generations after a replay start above every
    /// generation before it, so caches keyed by them stay sound.
    replays: u64,
}

/// How far before a backward target a sync keeps the board (see [`PolicyBoard::sync`]): a step
/// back reads at most this many events, as [`Network::seek`] replays at most as many.
pub const KEEP_BEFORE: usize = 1_000;

/// A copy of the board as it was after reading the first `at` events of the timeline
/// identified by `timeline`.
#[derive(Clone, Debug)]
struct KeptBoard {
    at: usize,
    timeline: u64,
    board: PolicyBoard,
}

/// Do all peers draw the same tree under one policy?
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyAgreement {
    /// True when every peer places every entity the same way (and draws the same entities).
    pub agree: bool,
    /// The entities placed differently (or drawn by only some peers), ascending.
    pub differing: Vec<Entity>,
}

/// One peer's policies.
#[derive(Clone, Debug)]
pub(super) struct PeerPolicies {
    pub(super) view: SceneView,
    pub(super) ignore: IgnoreCyclicState,
    pub(super) edges: EdgeMap,
    pub(super) moves: MovePeerState,
    /// Per policy: entities placed differently from the view's render tree.
    pub(super) overrides: [FxHashMap<Entity, Placement>; 5],
    /// Per policy: bumped whenever its tree may have changed.
    pub(super) generations: [u64; 5],
    /// Entities cut off from the root by a cycle (members and everything below them), with
    /// the index (in `cycles`) of the cycle each hangs under.
    pub(super) cut_off: FxHashMap<Entity, usize>,
    pub(super) cycles: Vec<Vec<Entity>>,
    /// What changed since the last refresh.
    touched: Vec<Entity>,
    /// Moves received in the events read so far and not yet given to `moves`: they are
    /// applied together (see [`MovePeerState::receive_all`]), before the peer's next own move
    /// and at the end of each sync.
    incoming: Vec<Arc<MoveOp>>,
    edges_changed: bool,
    dirty: bool,
    /// The view's structure generation the derived parts were computed for.
    structure: Option<u64>,
}

impl PeerPolicies {
    /// A peer at the start: `start` is the initial Transforms applied in ascending entity
    /// order (a Transform that would close a cycle not applied), `edges` every initial parent.
    fn new(start: &IgnoreCyclicState, edges: &EdgeMap, generation: u64) -> PeerPolicies {
        PeerPolicies {
            view: SceneView::new(),
            ignore: start.clone(),
            edges: edges.clone(),
            moves: MovePeerState::new(start.tree.clone()),
            overrides: Default::default(),
            generations: [generation; 5],
            cut_off: FxHashMap::default(),
            cycles: Vec::new(),
            touched: Vec::new(),
            incoming: Vec::new(),
            edges_changed: true,
            dirty: true,
            structure: None,
        }
    }

    /// Applies the moves received since the last call.
    fn receive_incoming(&mut self) {
        let incoming = std::mem::take(&mut self.incoming);
        self.moves.receive_all(incoming, &mut self.touched);
    }

    /// Brings the view and every derived tree up to `replica`. Returns true when anything
    /// was recomputed.
    fn refresh(&mut self, replica: &Replica) -> bool {
        // Any message may change the view (a Name makes an entity live), not only Transforms.
        self.view.update(replica);
        let structure = self.view.structure_generation();
        let structure_changed = self.structure != Some(structure);
        if !structure_changed && !self.dirty {
            return false;
        }
        if structure_changed {
            self.structure = Some(structure);
            // Entities whose render parent may have changed without a write of theirs: the
            // members of cycles that dissolved or formed.
            self.touched.extend(self.cycles.iter().flatten().copied());
            self.find_cut_off();
            self.touched.extend(self.cycles.iter().flatten().copied());
            for generation in &mut self.generations {
                *generation += 1;
            }
            let hidden = self
                .cut_off
                .keys()
                .map(|e| (*e, Placement::Hidden))
                .collect();
            self.overrides[TreePolicy::HideCycle.index()] = hidden;
        }
        if structure_changed || (self.edges_changed && !self.cut_off.is_empty()) {
            self.reattach_cut_off();
        }
        self.edges_changed = false;
        let mut touched = std::mem::take(&mut self.touched);
        touched.sort_unstable();
        touched.dedup();
        for policy in [TreePolicy::IgnoreCyclicChange, TreePolicy::MoveOpSkip] {
            let tree = match policy {
                TreePolicy::IgnoreCyclicChange => &self.ignore.tree,
                _ => &self.moves.tree,
            };
            let overrides = &mut self.overrides[policy.index()];
            let mut changed = false;
            for &entity in &touched {
                // An entity that is not a node now would become one at the root (an implicit
                // parent, or live without a Transform): compare with that.
                let drawn = self
                    .view
                    .effective_parent_of(entity)
                    .unwrap_or(Entity::ROOT);
                let placed = tree.get(entity);
                changed |= if drawn == placed {
                    overrides.remove(&entity).is_some()
                } else {
                    overrides.insert(entity, Placement::Under(placed))
                        != Some(Placement::Under(placed))
                };
            }
            if changed {
                self.generations[policy.index()] += 1;
            }
        }
        touched.clear();
        self.touched = touched;
        self.dirty = false;
        true
    }

    /// The view's cycles, and every entity below a member (following the render tree, where
    /// members sit at the root with their other children still under them).
    fn find_cut_off(&mut self) {
        self.cycles = self.view.cycles().iter().map(|c| c.to_vec()).collect();
        self.cut_off.clear();
        for (index, cycle) in self.cycles.iter().enumerate() {
            let mut stack: Vec<Entity> = cycle.clone();
            while let Some(entity) = stack.pop() {
                if self.cut_off.insert(entity, index).is_none() {
                    stack.extend(self.view.children_of(entity));
                }
            }
        }
    }

    /// RevertToEarlierParent's placements for the cut-off entities.
    fn reattach_cut_off(&mut self) {
        let cut_off: FxHashSet<Entity> = self.cut_off.keys().copied().collect();
        let placed = reattach(&self.edges, &cut_off, |e| self.view.contains(e));
        let overrides: FxHashMap<Entity, Placement> = placed
            .into_iter()
            .filter(|(entity, r)| self.view.effective_parent_of(*entity) != Some(r.parent))
            .map(|(entity, r)| (entity, Placement::Under(r.parent)))
            .collect();
        let slot = &mut self.overrides[TreePolicy::RevertToEarlierParent.index()];
        if *slot != overrides {
            *slot = overrides;
            self.generations[TreePolicy::RevertToEarlierParent.index()] += 1;
        }
    }
}

impl PolicyBoard {
    /// An empty board; [`Self::sync`] fills it.
    pub fn new() -> PolicyBoard {
        PolicyBoard::default()
    }

    /// Brings every peer's policies to the network's current timeline position. Returns true
    /// when anything was recomputed.
    pub fn sync(&mut self, network: &Network) -> bool {
        let source = network.initial_replica().journal_id();
        let cursor = network.cursor();
        let same_network = self.source == Some(source) && self.peers.len() == network.peer_count();
        let read_still_holds = same_network
            && self.processed <= cursor
            && network.timeline_id(self.processed) == Some(self.timeline);
        let mut changed = false;
        if !read_still_holds {
            self.start_over(network, same_network);
            self.source = Some(source);
            changed = true;
        }
        if !changed && self.processed == cursor {
            return false;
        }
        self.read_events(network, cursor);
        for peer in &mut self.peers {
            peer.receive_incoming();
        }
        for (peer, replica) in self.peers.iter_mut().zip(network.replicas()) {
            changed |= peer.refresh(replica);
        }
        changed
    }

    /// Reads the timeline's events from the last one read up to `end`.
    fn read_events(&mut self, network: &Network, end: usize) {
        for event in &network.events()[self.processed..end] {
            self.read_event(event);
        }
        self.processed = end;
        self.timeline = network
            .timeline_id(end)
            .expect("the events read are on the timeline");
    }

    /// Goes back to the kept board if it is still on the network's timeline and not after its
    /// cursor, else to the start; then keeps the board [`KEEP_BEFORE`] events before the
    /// cursor for the next step back, if that is later than where it went.
    fn start_over(&mut self, network: &Network, same_network: bool) {
        let cursor = network.cursor();
        let kept = self.kept.take().filter(|kept| {
            same_network && kept.at <= cursor && network.timeline_id(kept.at) == Some(kept.timeline)
        });
        match kept {
            Some(kept) => {
                self.restore(&kept.board);
                self.kept = Some(kept);
            }
            None => self.rebuild(network),
        }
        let keep_at = cursor.saturating_sub(KEEP_BEFORE);
        if keep_at > self.processed {
            self.read_events(network, keep_at);
            let mut board = self.clone();
            board.kept = None;
            self.kept = Some(Box::new(KeptBoard {
                at: keep_at,
                timeline: self.timeline,
                board,
            }));
        }
    }

    /// Becomes a copy of `kept` (keeping nothing itself), with every generation moved above
    /// every one handed out so far, so that caches keyed by them stay sound.
    fn restore(&mut self, kept: &PolicyBoard) {
        let replays = self.replays + 1;
        *self = kept.clone();
        self.kept = None;
        self.replays = replays;
        for peer in &mut self.peers {
            for generation in &mut peer.generations {
                *generation = (replays << 32) | (*generation & u64::from(u32::MAX));
            }
        }
        self.agreements = Default::default();
    }

    /// Starts over from the network's initial state.
    fn rebuild(&mut self, network: &Network) {
        let initial = ParentWriteTracker::initial_writes(network.initial_replica(), PeerId(1));
        let mut edges = EdgeMap::default();
        let mut start = IgnoreCyclicState::default();
        for write in &initial {
            edges.add(write);
            start.apply(write);
        }
        self.replays += 1;
        self.tracker = Some(ParentWriteTracker::new(network));
        self.moves.clear();
        self.processed = 0;
        self.timeline = network.timeline_id(0).expect("every timeline has a start");
        self.peers = (0..network.peer_count())
            .map(|_| PeerPolicies::new(&start, &edges, self.replays << 32))
            .collect();
        self.agreements = Default::default();
    }

    /// Feeds one timeline event to the peers it reached.
    fn read_event(&mut self, event: &Event) {
        let Some(tracker) = self.tracker.as_mut() else {
            return;
        };
        self.scratch.clear();
        tracker.track(event, &mut self.scratch);
        for write in &self.scratch {
            let peer = &mut self.peers[write.peer.index()];
            peer.dirty = true;
            peer.touched.push(write.entity);
            peer.ignore.apply(write);
            if let Some(replaced) = write.replaces {
                peer.edges_changed |= peer.edges.remove(write.entity, replaced);
            }
            peer.edges_changed |= peer.edges.add(write);
            if write.local {
                // The peer's own move is stamped after everything it has received.
                peer.receive_incoming();
                let mut carried = write
                    .replaces
                    .and_then(|o| self.moves.remove(&o))
                    .unwrap_or_default();
                carried.extend(peer.moves.author(write.peer, write, &mut peer.touched));
                self.moves.insert(write.origin, carried);
            } else if let Some(carried) = self.moves.get(&write.origin) {
                peer.incoming.extend(carried.iter().cloned());
            }
        }
    }

    // ----- reading ----------------------------------------------------------------------------

    /// Number of peers.
    pub fn peer_count(&self) -> usize {
        self.peers.len()
    }

    pub(super) fn peer(&self, peer: PeerId) -> Option<&PeerPolicies> {
        self.peers.get(peer.index())
    }

    /// The peer's render tree (the view [`TreePolicy::RootFallback`] draws).
    pub fn view(&self, peer: PeerId) -> Option<&SceneView> {
        self.peer(peer).map(|p| &p.view)
    }

    /// Changes whenever the tree `policy` draws for `peer` may have changed: a cache of rows
    /// or placements keyed by it stays valid while it does not change.
    pub fn generation(&self, peer: PeerId, policy: TreePolicy) -> u64 {
        self.peer(peer).map_or(0, |p| p.generations[policy.index()])
    }

    /// The parent [`TreePolicy::MoveOpSkip`]'s own tree holds for `entity` at `peer`, drawn
    /// or not (the root for an entity it never moved): what a movable-tree CRDT such as
    /// Loro's holds for the same moves. `None` for an unknown peer.
    pub fn move_tree_parent(&self, peer: PeerId, entity: Entity) -> Option<Entity> {
        self.peer(peer).map(|p| p.moves.tree.get(entity))
    }

    /// How many moves `peer` received before moves their author had, and holds back
    /// ([`TreePolicy::MoveOpSkip`] only).
    pub fn waiting_moves(&self, peer: PeerId) -> usize {
        self.peer(peer).map_or(0, |p| p.moves.waiting_count())
    }
}
