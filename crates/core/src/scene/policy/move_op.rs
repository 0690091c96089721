//! `MoveOpSkip`: Kleppmann et al.'s replicated move operation, with the choices Loro's
//! `LoroTree` makes, run on every peer of the simulation.
//!
//! A Transform write becomes a *move* when, in its author's tree, it names a parent other than
//! the entity's current one and that parent is not the entity or below it (Loro refuses such a
//! local move with `CyclicMoveError`; a position-only write is not a move either). A move is
//! stamped like a Loro op: a Lamport number one above every move its author has applied, the
//! author's peer number, and the author's version (how many moves of each peer it applied).
//! A peer applies a move once it has applied everything the author had (Loro's causal
//! delivery; an early move waits), and keeps its moves in (Lamport, peer) order: a move that
//! sorts before moves already applied undoes them, is applied, and redoes them. A move that
//! would put an entity under itself or its own descendant is skipped, and stays in the log.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::parent_map::ParentMap;
use crate::crdt::network::{MAX_PEERS, ParentWrite, PeerId};
use crate::model::Entity;

/// The total order of moves: Lamport number, then peer (Loro's `IdLp`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MoveStamp {
    /// One more than the largest Lamport number the author had applied (from 0).
    pub lamport: u32,
    /// The author's peer number.
    pub peer: u8,
}

/// How many moves of each peer (by index) a peer has applied.
pub(super) type Version = [u32; MAX_PEERS];

/// One move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct MoveOp {
    pub(super) stamp: MoveStamp,
    pub(super) author: PeerId,
    /// The author's version when it moved, its own earlier moves included.
    pub(super) deps: Version,
    pub(super) entity: Entity,
    pub(super) parent: Entity,
}

/// One applied move and what applying it did.
#[derive(Clone, Debug)]
struct LogEntry {
    op: Arc<MoveOp>,
    /// The entity's parent before the move (restored by an undo).
    old_parent: Entity,
    /// True when the move would have closed a cycle and changed nothing.
    skipped: bool,
}

/// One peer's side of MoveOpSkip.
#[derive(Clone, Debug, Default)]
pub(super) struct MovePeerState {
    pub(super) tree: ParentMap,
    /// Applied moves in ascending stamp order.
    log: Vec<LogEntry>,
    version: Version,
    max_lamport: Option<u32>,
    /// Stamps received (applied or waiting).
    seen: FxHashSet<MoveStamp>,
    /// Moves received before everything their author had, by the first move they lack:
    /// (peer index, how many of that peer's moves must be applied). A peer's count grows by one
    /// per move, so the moves waiting for a count are looked at once, when it is reached,
    /// instead of every waiting move after every applied one (quadratic when a long run of
    /// one peer's moves arrives newest first).
    waiting: FxHashMap<(usize, u32), Vec<Arc<MoveOp>>>,
    waiting_count: usize,
}

impl MovePeerState {
    /// A peer starting from `tree`.
    pub(super) fn new(tree: ParentMap) -> MovePeerState {
        MovePeerState {
            tree,
            ..MovePeerState::default()
        }
    }

    /// The move a local write of `author` makes, applied here; `None` when the write is not a
    /// move (same parent, or a parent at or below the entity in this tree).
    pub(super) fn author(
        &mut self,
        author: PeerId,
        write: &ParentWrite,
        touched: &mut Vec<Entity>,
    ) -> Option<Arc<MoveOp>> {
        let (entity, parent) = (write.entity, write.parent());
        if self.tree.get(entity) == parent || self.tree.would_cycle(entity, parent) {
            return None;
        }
        let op = Arc::new(MoveOp {
            stamp: MoveStamp {
                lamport: self.max_lamport.map_or(0, |l| l + 1),
                peer: author.0,
            },
            author,
            deps: self.version,
            entity,
            parent,
        });
        self.receive(op.clone(), touched);
        Some(op)
    }

    /// A move that reached this peer: applied when everything its author had is here (then
    /// any waiting move that became ready too), else kept waiting. Entities whose parent may
    /// have changed are pushed to `touched`.
    pub(super) fn receive(&mut self, op: Arc<MoveOp>, touched: &mut Vec<Entity>) {
        if !self.seen.insert(op.stamp) {
            return;
        }
        let mut ready = vec![op];
        while let Some(op) = ready.pop() {
            if let Some(lacking) = self.first_lacking(&op) {
                self.waiting.entry(lacking).or_default().push(op);
                self.waiting_count += 1;
                continue;
            }
            let author = op.author.index();
            self.apply(op, touched);
            if let Some(released) = self.waiting.remove(&(author, self.version[author])) {
                self.waiting_count -= released.len();
                ready.extend(released);
            }
        }
    }

    /// The first move `op`'s author had that this peer lacks: (peer index, the count it
    /// needs); `None` when `op` can be applied.
    fn first_lacking(&self, op: &MoveOp) -> Option<(usize, u32)> {
        (self.version.iter().zip(&op.deps))
            .position(|(have, need)| have < need)
            .map(|peer| (peer, op.deps[peer]))
    }

    /// Undo-do-redo: the state becomes "every applied move in stamp order".
    fn apply(&mut self, op: Arc<MoveOp>, touched: &mut Vec<Entity>) {
        let at = self.log.partition_point(|e| e.op.stamp < op.stamp);
        for entry in self.log[at..].iter().rev() {
            self.tree.set(entry.op.entity, entry.old_parent);
        }
        let author = op.author.index();
        self.version[author] = self.version[author].max(op.deps[author] + 1);
        self.max_lamport = self.max_lamport.max(Some(op.stamp.lamport));
        self.log.insert(
            at,
            LogEntry {
                op,
                old_parent: Entity::ROOT,
                skipped: false,
            },
        );
        for entry in &mut self.log[at..] {
            let (entity, parent) = (entry.op.entity, entry.op.parent);
            entry.old_parent = self.tree.get(entity);
            entry.skipped = self.tree.would_cycle(entity, parent);
            if !entry.skipped {
                self.tree.set(entity, parent);
            }
            touched.push(entity);
        }
    }

    /// The parent the newest applied move of `entity` asked for, and whether it was skipped.
    pub(super) fn last_move(&self, entity: Entity) -> Option<(Entity, bool)> {
        self.log
            .iter()
            .rev()
            .find(|e| e.op.entity == entity)
            .map(|e| (e.op.parent, e.skipped))
    }

    /// The parent a waiting move of `entity` asks for, if one waits.
    pub(super) fn waiting_move(&self, entity: Entity) -> Option<Entity> {
        (self.waiting.values().flatten())
            .filter(|op| op.entity == entity)
            .max_by_key(|op| op.stamp)
            .map(|op| op.parent)
    }

    /// How many received moves wait for moves their author had.
    pub(super) fn waiting_count(&self) -> usize {
        self.waiting_count
    }
}
