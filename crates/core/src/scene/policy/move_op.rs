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
        self.author_move(author, write.entity, write.parent(), touched)
    }

    /// [`Self::author`] for `entity` under `parent`.
    fn author_move(
        &mut self,
        author: PeerId,
        entity: Entity,
        parent: Entity,
        touched: &mut Vec<Entity>,
    ) -> Option<Arc<MoveOp>> {
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
        self.receive_all([op.clone()], touched);
        Some(op)
    }

    /// Moves that reached this peer, in the order they arrived: each is applied once
    /// everything its author had is here (then any waiting move that became ready too), else
    /// kept waiting. Entities whose parent may have changed are pushed to `touched`. The state
    /// is the one receiving them one by one gives (every applied move in stamp order), but the
    /// moves after the earliest new one are undone and redone once, not once per move: two
    /// peers' interleaved runs of n moves cost n²/2 redos when received one by one.
    pub(super) fn receive_all(
        &mut self,
        ops: impl IntoIterator<Item = Arc<MoveOp>>,
        touched: &mut Vec<Entity>,
    ) {
        let mut ready = Vec::new();
        let mut applicable = Vec::new();
        for op in ops {
            if !self.seen.insert(op.stamp) {
                continue;
            }
            ready.push(op);
            while let Some(op) = ready.pop() {
                if let Some(lacking) = self.first_lacking(&op) {
                    self.waiting.entry(lacking).or_default().push(op);
                    self.waiting_count += 1;
                    continue;
                }
                let author = op.author.index();
                self.version[author] = self.version[author].max(op.deps[author] + 1);
                self.max_lamport = self.max_lamport.max(Some(op.stamp.lamport));
                if let Some(released) = self.waiting.remove(&(author, self.version[author])) {
                    self.waiting_count -= released.len();
                    ready.extend(released);
                }
                applicable.push(op);
            }
        }
        self.apply_all(applicable, touched);
    }

    /// The first move `op`'s author had that this peer lacks: (peer index, the count it
    /// needs); `None` when `op` can be applied.
    fn first_lacking(&self, op: &MoveOp) -> Option<(usize, u32)> {
        (self.version.iter().zip(&op.deps))
            .position(|(have, need)| have < need)
            .map(|peer| (peer, op.deps[peer]))
    }

    /// Undo-do-redo: the state becomes "every applied move in stamp order", `ops` (ready to
    /// apply, their authors' versions already counted) among them.
    fn apply_all(&mut self, mut ops: Vec<Arc<MoveOp>>, touched: &mut Vec<Entity>) {
        ops.sort_unstable_by_key(|op| op.stamp);
        let Some(first) = ops.first() else {
            return;
        };
        let at = self.log.partition_point(|e| e.op.stamp < first.stamp);
        for entry in self.log[at..].iter().rev() {
            self.tree.set(entry.op.entity, entry.old_parent);
        }
        let undone: Vec<LogEntry> = self.log.drain(at..).collect();
        let mut undone = undone.into_iter().peekable();
        let mut new = ops.into_iter().peekable();
        loop {
            let take_new = match (undone.peek(), new.peek()) {
                (Some(old), Some(op)) => op.stamp < old.op.stamp,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (None, None) => break,
            };
            let mut entry = if take_new {
                let op = new.next().expect("peeked");
                LogEntry {
                    op,
                    old_parent: Entity::ROOT,
                    skipped: false,
                }
            } else {
                undone.next().expect("peeked")
            };
            let (entity, parent) = (entry.op.entity, entry.op.parent);
            entry.old_parent = self.tree.get(entity);
            entry.skipped = self.tree.would_cycle(entity, parent);
            if !entry.skipped {
                self.tree.set(entity, parent);
            }
            touched.push(entity);
            self.log.push(entry);
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// What a peer's side shows: every entity's parent, the log's stamps and skips, the moves
    /// still waiting.
    fn observed(state: &MovePeerState) -> (Vec<Entity>, Vec<(MoveStamp, bool)>, usize, Version) {
        let parents = (512..532).map(|e| state.tree.get(Entity(e))).collect();
        let log = state.log.iter().map(|e| (e.op.stamp, e.skipped)).collect();
        (parents, log, state.waiting_count, state.version)
    }

    /// Three peers move twenty entities about while exchanging some of their moves; then a
    /// fourth receives every move in a random order, one by one or in random batches: the
    /// same tree, log and waiting moves either way.
    #[test]
    fn receiving_moves_together_is_receiving_them_one_by_one() {
        for seed in 0..20 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut authors = vec![MovePeerState::default(); 3];
            let mut all: Vec<Arc<MoveOp>> = Vec::new();
            let mut scratch = Vec::new();
            for _ in 0..300 {
                let a = rng.random_range(0..3);
                if rng.random_bool(0.3) && !all.is_empty() {
                    let op = all[rng.random_range(0..all.len())].clone();
                    authors[a].receive_all([op], &mut scratch);
                    continue;
                }
                let entity = Entity(512 + rng.random_range(0..20));
                let parent = match rng.random_range(0..21) {
                    20 => Entity::ROOT,
                    p => Entity(512 + p),
                };
                let peer = PeerId::from_index(a);
                all.extend(authors[a].author_move(peer, entity, parent, &mut scratch));
            }
            all.shuffle(&mut rng);
            let mut one_by_one = MovePeerState::default();
            for op in &all {
                one_by_one.receive_all([op.clone()], &mut scratch);
            }
            let mut batched = MovePeerState::default();
            let mut touched = Vec::new();
            let mut rest = &all[..];
            while !rest.is_empty() {
                let n = rng.random_range(1..=rest.len().min(80));
                batched.receive_all(rest[..n].iter().cloned(), &mut touched);
                rest = &rest[n..];
            }
            assert!(all.len() > 100, "seed {seed}: a busy run");
            assert_eq!(observed(&batched), observed(&one_by_one), "seed {seed}");
            assert_eq!(batched.waiting_count, 0, "everything arrived");
        }
    }
}
