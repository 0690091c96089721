//! Keeping a [`SceneView`] in step with its source: incremental updates, rebuilds, node
//! storage and child lists.

use glam::Affine3A;

use super::hierarchy::{SceneView, UpdateStats};
use super::records::{Matrix, NONE, ROOT_SLOT, flag};
use super::source::TransformSource;
use crate::model::{Entity, Transform};

/// Updates with fewer changed entities than this always read them one by one.
const BULK_MIN: usize = 4096;
/// Entities read from the source per batch (see [`SceneView::read_batch`]).
const READ_BATCH: usize = 256;
/// Slots beyond twice the node count (holes) tolerated before the layout is compacted.
const COMPACT_SLACK: usize = 1024;
/// Views smaller than this are not laid out again for scattered nodes: they fit in the cache.
const RELAYOUT_MIN: usize = 4096;
/// In a view of at least [`RELAYOUT_MIN`] nodes, subtrees moved by one update whose ranges add
/// up to at least `len / MOVED_SHARE_FOR_LAYOUT` slots are laid out again with the whole view
/// instead of being copied to the end (on the 100,000-deep chain with 1% of its nodes changed
/// and a tenth of those re-parented, `cargo bench -p scenetree-core --bench propagation --
/// chain/one_percent_reparent`, this halved the update).
const MOVED_SHARE_FOR_LAYOUT: usize = 4;

/// What reading the changed entities found, for the structural steps that follow.
#[derive(Default)]
struct Found {
    /// Nodes whose declared parent changed.
    edge_changed: Vec<u32>,
    /// Nodes whose local matrix (or Transform presence) changed.
    dirty: Vec<u32>,
    /// Nodes that may have become unused (no longer live, or lost a referrer).
    maybe_remove: Vec<u32>,
    /// Nodes created in this update, not linked yet.
    fresh: Vec<u32>,
}

impl SceneView {
    /// Brings the view up to date with `source`, doing work proportional to what changed (the
    /// changed entities, the cycle checks along their parent chains, and their subtrees).
    pub fn update(&mut self, source: &impl TransformSource) {
        if !source.continues(self.source_id, self.cursor) {
            // Another instance (a replica replaced by a timeline seek, another peer): its
            // journal positions mean nothing here.
            self.rebuild(source);
            return;
        }
        let (changed, next_cursor) = source.changed_since(self.cursor);
        self.cursor = next_cursor;
        self.source_id = source.source_id(); // a clone continues its original's history
        self.stats = UpdateStats::default();
        let Some(changed) = changed else {
            self.rebuild(source);
            return;
        };
        if changed.is_empty() {
            return;
        }
        if self.len() <= 1 {
            // Nothing read yet (a fresh view of a source that kept its whole history): one
            // read of what is live, laid out once, costs a fraction of replaying every change
            // and moving each subtree whose parent came later.
            self.rebuild(source);
            return;
        }
        self.apply_changes(source, &changed);
    }

    /// Forgets everything and reads the whole source again, laying slots out in preorder.
    pub fn rebuild(&mut self, source: &impl TransformSource) {
        self.stats = UpdateStats {
            rebuilt: true,
            ..UpdateStats::default()
        };
        self.cursor = source.changed_since(u64::MAX).1;
        self.source_id = source.source_id();
        self.clear(source.live_count_hint() + 1);
        let mut read = 0;
        source.for_each_live(&mut |e, t| {
            if !e.is_root() {
                let s = self.slot_or_implicit(e);
                self.set_node_data(s, t.as_ref(), true);
            }
            read += 1;
        });
        self.stats.entities_read = read;
        let all: Vec<u32> = (1..self.entity.len() as u32).collect();
        self.find_cycles_from(&all);
        for s in 1..self.entity.len() as u32 {
            let p = self.wanted_parent(s);
            self.link(s, p);
        }
        self.relayout_and_recompute_worlds();
        self.structure_generation += 1;
        self.generation += 1;
    }

    fn apply_changes(&mut self, source: &impl TransformSource, changed: &[Entity]) {
        let mut found = Found::default();
        let pass = self.next_pass();
        let mut batch: Vec<(Entity, u32)> = Vec::with_capacity(READ_BATCH);
        let mut entries = Vec::with_capacity(READ_BATCH);
        // Slots below this were all read in bulk: the journal's entries for them are done.
        let mut read_in_bulk = 0;
        let mut every_live_read = false;
        let bulk = changed.len() >= BULK_MIN && changed.len() * 4 >= self.len();
        if bulk {
            // Most of the scene changed: re-read every node and recompute every world in one
            // sweep over the slots (on every core for a large view). The view's arrays are
            // walked sequentially, only the source is looked up at random, and nothing is
            // hashed or allocated per node. Nodes whose structure changed are applied after.
            let outcome = self.sweep_read_all(source);
            read_in_bulk = self.entity.len();
            // When every live entity of the source is a node read above, the journal names
            // nothing left to read (an entity that is not a node and not live changes
            // nothing): skip the lookup of each of its entries, a random read each.
            let root_live = usize::from(source.is_live(Entity::ROOT));
            every_live_read = source.live_count() == Some(outcome.live + root_live);
            self.stats.entities_read += outcome.read;
            self.stats.worlds_recomputed += outcome.recomputed;
            if outcome.changed {
                self.generation += 1;
            }
            let mut deferred = outcome.deferred;
            deferred.sort_unstable();
            for s in deferred {
                let e = self.entity[s as usize];
                let entry = source.read(e);
                self.refresh(e, s, entry, pass, &mut found);
            }
        }
        // The journal's entities not read yet (all of them, unless read in bulk above; new
        // entities in any case). Repeats are skipped by their stamp.
        let unread = if every_live_read { &[][..] } else { changed };
        for chunk in unread.chunks(READ_BATCH) {
            batch.clear();
            for &e in chunk {
                let slot = self.index.get(e).unwrap_or(NONE);
                let done = slot != NONE
                    && ((slot as usize) < read_in_bulk || self.node[slot as usize].mark == pass);
                if !done {
                    batch.push((e, slot));
                }
            }
            self.prefetch_rows(&batch);
            self.read_batch(source, &batch, &mut entries, pass, &mut found);
        }
        let Found {
            edge_changed,
            mut dirty,
            maybe_remove,
            fresh,
        } = found;

        // Cycles can only appear or disappear through a changed edge.
        let mut reattach: Vec<u32> = edge_changed.clone();
        reattach.extend_from_slice(&fresh);
        for &s in &edge_changed {
            let c = self.cycle[s as usize];
            if c != NONE {
                reattach.extend(self.dissolve_cycle(c));
            }
        }
        reattach.extend(self.find_cycles_from(&edge_changed));
        let mut structure_changed = !edge_changed.is_empty() || !fresh.is_empty();
        // Link every changed node under the parent it should have now, then move the subtree
        // of each node whose parent changed to a block of its own at the end, once all links
        // are final (a move lays out the whole subtree as it hangs). A new node stays where
        // it was appended, unless its parent was appended after it.
        let mut moved: Vec<u32> = Vec::new();
        for s in reattach {
            if !self.is_allocated(s) {
                continue;
            }
            let want = self.wanted_parent(s);
            if self.node[s as usize].parent != want {
                // Only a node linked for the first time has no parent.
                let fresh_node = self.node[s as usize].parent == NONE;
                self.unlink(s);
                self.link(s, want);
                dirty.push(s);
                structure_changed = true;
                if !fresh_node || want > s {
                    moved.push(s);
                }
            }
        }
        let mut lay_out_now = false;
        if !moved.is_empty() {
            let tops = self.topmost(&moved);
            // The moved subtrees' ranges (their outlying blocks aside): when they are a large
            // share of the view, copying them to the end costs about as much as laying the
            // whole view out, and leaves as many holes for the next compaction to pay for.
            let moving: usize = (tops.iter())
                .map(|&t| self.node[t as usize].end.saturating_sub(t) as usize)
                .sum();
            if self.len() >= RELAYOUT_MIN && moving * MOVED_SHARE_FOR_LAYOUT >= self.len() {
                lay_out_now = true;
            } else {
                for top in tops {
                    self.relocate_subtree(top);
                }
                for d in dirty.iter_mut() {
                    *d = self.current_slot(*d);
                }
            }
        }
        for s in maybe_remove {
            let s = self.current_slot(s);
            if s != NONE {
                structure_changed |= self.remove_if_unused(s);
            }
        }
        dirty.retain(|&s| s != NONE && self.is_allocated(s));
        if lay_out_now {
            self.stats.worlds_recomputed = 0;
            self.relayout_and_recompute_worlds();
            self.generation += 1;
        } else if !dirty.is_empty() {
            self.recompute_dirty_worlds(&mut dirty);
            self.generation += 1;
        }
        if structure_changed {
            self.structure_generation += 1;
            self.generation += 1;
        }
        // Holes left by moves and removals: compact once they outnumber the nodes. New nodes
        // and moved subtrees appended at the end sit apart from their parents' blocks, so
        // updates jump around memory: lay out again once they are half the view (amortized: the view has
        // grown by half since the last layout, which cost O(view)), or an eighth of it once
        // the worlds recomputed since the last layout add up to four views. A layout costs
        // about as much as recomputing three or four views' worlds (60,000 nodes: 5-9 ms), so
        // that second rule spends on it at most about what the scattered walks cost, and
        // catches a view that stopped growing short of the half: crdt/apply with the view
        // every 1,000 messages creates its 60,000 entities first and then only moves them,
        // and ran its 940 frames of moves with 29,000 of the nodes scattered (1.3-1.4x
        // slower, alternate runs).
        self.recomputed_since_layout += self.stats.worlds_recomputed;
        let n = self.len();
        let scattered = n >= RELAYOUT_MIN
            && (self.appended_since_layout * 2 >= n
                || (self.appended_since_layout * 8 >= n && self.recomputed_since_layout >= 4 * n));
        if self.entity.len() > 2 * self.len() + COMPACT_SLACK || scattered {
            self.relayout();
        }
    }

    /// The nodes of `nodes` that no other lies above (repeats allowed), each once. Walks up
    /// from each, stopping at the root or at a node already classified in this pass, so each
    /// node is visited at most once: moving the topmost subtrees moves the others with them
    /// (a chain re-linked node by node, bottom first, would otherwise move n times).
    fn topmost(&mut self, nodes: &[u32]) -> Vec<u32> {
        // `walk` holds the classification: 1 = listed or below a listed node, 0 = not.
        let pass = self.next_pass();
        for &s in nodes {
            self.node[s as usize].mark = pass;
            self.walk[s as usize] = 1;
        }
        let mut tops = Vec::new();
        let mut path = Vec::new();
        for &s in nodes {
            if self.walk[s as usize] == 2 {
                continue; // a repeat
            }
            path.clear();
            let mut p = self.node[s as usize].parent;
            let covered = loop {
                if p == NONE || p == ROOT_SLOT {
                    break 0;
                }
                if self.node[p as usize].mark == pass {
                    break self.walk[p as usize].min(1);
                }
                path.push(p);
                p = self.node[p as usize].parent;
            };
            for &n in &path {
                self.node[n as usize].mark = pass;
                self.walk[n as usize] = covered;
            }
            if covered == 0 {
                tops.push(s);
            }
            self.walk[s as usize] = 2; // listed and handled (still counts as covered)
        }
        tops
    }

    /// Re-reads a batch of `(entity, slot or NONE)`, skipping the root and the entities
    /// already read in this pass.
    ///
    /// Random reads cost a cache miss each (hundreds of nanoseconds on a loaded virtual
    /// machine), so a batch is handled in phases whose small loop bodies let the processor
    /// overlap many misses: the caller looks the slots up (and may prefetch the view's rows),
    /// this reads every source entry, and only then does the per-entity bookkeeping.
    fn read_batch(
        &mut self,
        source: &impl TransformSource,
        batch: &[(Entity, u32)],
        entries: &mut Vec<Option<Option<Transform>>>,
        pass: u32,
        found: &mut Found,
    ) {
        entries.clear();
        entries.extend(batch.iter().map(|&(e, _)| source.read(e)));
        for (&(e, slot), entry) in batch.iter().zip(entries.drain(..)) {
            // A node created earlier in this batch (a new entity, or an implicit parent) has
            // no slot in the batch yet.
            let slot = if slot == NONE {
                self.index.get(e).unwrap_or(NONE)
            } else {
                slot
            };
            let seen = slot != NONE && self.node[slot as usize].mark == pass;
            if !e.is_root() && !seen {
                self.refresh(e, slot, entry, pass, found);
            }
        }
    }

    /// Loads the view's per-node fields of `batch` into the cache (see [`Self::read_batch`]),
    /// and hints what recomputing their worlds will read next: their world matrices and their
    /// parents' (the parent's slot is in the record just loaded). Most changed nodes are the
    /// topmost of their subtrees, so their recompute then finds its scattered lines cached.
    fn prefetch_rows(&self, batch: &[(Entity, u32)]) {
        let mut sink = 0u32;
        for &(_, s) in batch {
            if s != NONE {
                let s = s as usize;
                let node = &self.node[s];
                sink ^= node.mark;
                crate::model::prefetch(&self.local[s]);
                crate::model::prefetch(&self.world[s]);
                if let Some(parent) = self.world.get(node.parent as usize) {
                    crate::model::prefetch(parent);
                }
            }
        }
        std::hint::black_box(sink);
    }

    /// Applies one entity's state read from the source: `entry` is `None` when it is not
    /// live, else its Transform (if any); `slot` is its node, or `NONE` when it has none yet.
    /// Records what changed in `found`.
    fn refresh(
        &mut self,
        entity: Entity,
        slot: u32,
        entry: Option<Option<Transform>>,
        pass: u32,
        found: &mut Found,
    ) {
        self.stats.entities_read += 1;
        let live = entry.is_some();
        let slot = match slot {
            NONE if !live => return,
            NONE => {
                let s = self.push_slot(entity, 0);
                found.fresh.push(s);
                s
            }
            s => s,
        };
        let s = slot as usize;
        self.node[s].mark = pass;
        let old_declared = self.node[s].declared;
        let old_flags = self.node[s].flags;
        let old_local = self.local[s];
        self.set_node_data(slot, entry.flatten().as_ref(), live);
        if self.node[s].declared != old_declared {
            let declared_slot = self.node_slot(self.node[s].declared);
            if declared_slot != ROOT_SLOT && self.node[declared_slot as usize].parent == NONE {
                found.fresh.push(declared_slot); // just created as an implicit node
            }
            found.maybe_remove.push(self.node_slot(old_declared));
            found.edge_changed.push(slot);
        }
        let transform_toggled = (old_flags ^ self.node[s].flags) & flag::HAS_TRANSFORM != 0;
        if transform_toggled || self.local[s] != old_local {
            found.dirty.push(slot);
        }
        if !live {
            found.maybe_remove.push(slot);
        }
    }

    /// The slot of an entity that is known to be a node (a declared parent always is).
    pub(super) fn node_slot(&self, entity: Entity) -> u32 {
        self.index
            .get(entity)
            .expect("every declared parent is a node of the view")
    }

    /// True when `slot` holds a node (not on the free list).
    pub(super) fn is_allocated(&self, slot: u32) -> bool {
        self.node[slot as usize].flags & flag::FREE == 0
    }

    /// A fresh visit stamp for [`super::records::Node::mark`]; on wrap-around every stamp is reset.
    pub(super) fn next_pass(&mut self) -> u32 {
        if self.pass == u32::MAX {
            self.node.iter_mut().for_each(|n| n.mark = 0);
            self.pass = 0;
        }
        self.pass += 1;
        self.pass
    }

    /// Writes an entity's Transform-derived fields (declared parent, local matrix, flags).
    fn set_node_data(&mut self, slot: u32, transform: Option<&Transform>, live: bool) {
        let s = slot as usize;
        let t = transform.copied().unwrap_or(Transform::IDENTITY);
        if self.node[s].declared != t.parent {
            // Every node counts as a referrer of its declared parent (the root included).
            let old = self.node_slot(self.node[s].declared);
            self.referrers[old as usize] -= 1;
            self.note_parent_state(old);
            let new = self.slot_or_implicit(t.parent);
            self.referrers[new as usize] += 1;
            self.note_parent_state(new);
            self.node[s].declared = t.parent;
        }
        self.local[s] = Matrix::new(if transform.is_some() {
            t.local_affine()
        } else {
            Affine3A::IDENTITY
        });
        self.node[s].flags = (if live { flag::LIVE } else { 0 })
            | (if transform.is_some() {
                flag::HAS_TRANSFORM
            } else {
                0
            });
        self.note_parent_state(slot);
    }

    /// The slot of `entity`, creating an unlinked implicit node (no Transform, declared parent
    /// the root) if needed. Callers link new slots.
    fn slot_or_implicit(&mut self, entity: Entity) -> u32 {
        match self.index.get(entity) {
            Some(s) => s,
            None => self.push_slot(entity, 0),
        }
    }

    /// Frees a node that is neither live nor anyone's declared parent, then its declared parent
    /// if that became unused (a chain of implicit nodes). Returns true if anything was freed.
    fn remove_if_unused(&mut self, slot: u32) -> bool {
        let mut freed_any = false;
        let mut next = Some(slot);
        while let Some(slot) = next.take() {
            let s = slot as usize;
            let unused = slot != ROOT_SLOT
                && self.is_allocated(slot)
                && self.node[s].flags & flag::LIVE == 0
                && self.referrers[s] == 0;
            if !unused {
                break;
            }
            debug_assert_eq!(
                self.first_child[s], NONE,
                "a node nobody declares has no children"
            );
            if self.cycle[s] != NONE {
                let c = self.cycle[s];
                self.dissolve_cycle(c);
            }
            self.unlink(slot);
            let declared_slot = self.node_slot(self.node[s].declared);
            self.referrers[declared_slot as usize] -= 1;
            self.note_parent_state(declared_slot);
            self.index.remove(self.entity[s]);
            self.node[s].flags = flag::FREE;
            self.note_parent_state(slot);
            self.walk[s] = NONE; // freed, not moved
            self.plan = None;
            freed_any = true;
            next = Some(declared_slot);
        }
        freed_any
    }

    /// The effective parent a node should have now.
    pub(super) fn wanted_parent(&self, slot: u32) -> u32 {
        let s = slot as usize;
        if self.cycle[s] != NONE || self.node[s].declared.is_root() {
            ROOT_SLOT
        } else {
            self.node_slot(self.node[s].declared)
        }
    }
}
