//! The derived render tree of one replica: declared and effective parents with the root
//! fallback, children, cycles, and world matrices, updated incrementally.
//!
//! Rules (Decentraland's Transform semantics, as Decentraland's ADR-153 recommends):
//! - The declared parent is the Transform's `parent`; an entity without a Transform is the
//!   identity at the root.
//! - An entity on a parenting cycle is drawn at the root while the cycle exists (reason
//!   [`Fallback::Cycle`] with every member). Its descendants that are not on the cycle keep
//!   their declared parent and follow it to the root.
//! - A declared parent with no Transform (never seen, deleted, or its Transform removed) is an
//!   implicit node: the identity at the root. The child stays under it (reason
//!   [`Fallback::MissingParent`]).
//!
//! Storage is a structure of arrays indexed by *slot*. Slot 0 is the root. A full rebuild lays
//! slots out in breadth-first order (every parent before its children, siblings together), so
//! a full recompute of the world matrices is one linear pass.
//! Nothing here recurses on the call stack, so a 100,000-deep chain is fine.
//!
//! This file holds the data and the read-only queries; `update.rs` keeps it in step with the
//! source, `slots.rs` allocates and moves nodes, `cycles.rs` finds parenting cycles,
//! `propagate.rs` computes world matrices (`sweep.rs`: whole-view passes, on every core),
//! `model::entity_index` maps entities to slots.

use glam::{Affine3A, Mat4};

use super::source::TransformSource;
use crate::model::Entity;
use crate::model::entity_index::EntityIndex;

pub(super) const NONE: u32 = u32::MAX;
pub(super) const ROOT_SLOT: u32 = 0;

/// Why an entity is not drawn plainly under its declared parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback<'a> {
    /// Drawn under its declared parent.
    None,
    /// The declared parent has no Transform: the child stays under that implicit parent, which
    /// sits at the origin.
    MissingParent,
    /// On a parenting cycle: drawn at the root. The members in parent order, starting from the
    /// smallest id (`[A, B]` means A's parent is B and B's parent is A).
    Cycle(&'a [Entity]),
}

impl Fallback<'_> {
    /// `"none"`, `"missing_parent"` or `"cycle"`, as the CLI's JSON writes it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Fallback::None => "none",
            Fallback::MissingParent => "missing_parent",
            Fallback::Cycle(_) => "cycle",
        }
    }
}

/// Counters of the last [`SceneView::update`], to check that work follows the change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateStats {
    /// True when the view was rebuilt from scratch.
    pub rebuilt: bool,
    /// Distinct entities read from the source.
    pub entities_read: usize,
    /// Nodes visited while looking for parenting cycles.
    pub cycle_walk_steps: usize,
    /// World matrices recomputed.
    pub worlds_recomputed: usize,
}

/// Per-slot flags.
pub(super) mod flag {
    /// The entity holds components in the source.
    pub const LIVE: u8 = 1;
    /// The entity has a Transform.
    pub const HAS_TRANSFORM: u8 = 2;
    /// The slot is on the free list (holds no node).
    pub const FREE: u8 = 4;
}

/// The render tree derived from a [`TransformSource`].
#[derive(Clone, Debug)]
pub struct SceneView {
    /// Entity → slot of every node.
    pub(super) index: EntityIndex,
    pub(super) entity: Vec<Entity>,
    pub(super) declared: Vec<Entity>,
    /// Effective parent slot (`NONE` only for the root and free slots).
    pub(super) parent: Vec<u32>,
    pub(super) first_child: Vec<u32>,
    pub(super) last_child: Vec<u32>,
    pub(super) next_sibling: Vec<u32>,
    pub(super) prev_sibling: Vec<u32>,
    pub(super) local: Vec<Affine3A>,
    pub(super) world: Vec<Affine3A>,
    pub(super) flags: Vec<u8>,
    /// How many nodes declare this slot's entity as their parent.
    pub(super) referrers: Vec<u32>,
    /// Index into `cycles`, or `NONE`.
    pub(super) cycle: Vec<u32>,
    /// Where the source last stored the node's Transform ([`super::NO_HINT`]: unknown), kept
    /// by bulk re-reads (see [`super::TransformSource::read_hinted`]).
    pub(super) source_hint: Vec<u32>,
    /// Visit stamps: `mark[s] == pass` means "seen in the current pass" (reading changes,
    /// cycle search, dirty propagation). See [`SceneView::next_pass`].
    pub(super) mark: Vec<u32>,
    /// Per-pass scratch: the walk id during cycle search, the covered flag while finding the
    /// topmost dirty nodes.
    pub(super) walk: Vec<u32>,
    /// Per-update scratch: the slots whose worlds to recompute, in order.
    pub(super) order: Vec<u32>,
    /// Cycles by id (`None` once dissolved), each listed as in [`Fallback::Cycle`].
    pub(super) cycles: Vec<Option<Vec<Entity>>>,
    pub(super) free_cycles: Vec<u32>,
    /// True while every node's parent slot is smaller than its own (the linear-pass layout).
    /// Incremental updates keep it true: a node linked under a parent with a larger slot is
    /// moved, with its subtree, to fresh slots at the end. Freed slots stay empty (holes)
    /// until a compaction lays everything out again.
    pub(super) topo_sorted: bool,
    /// New nodes appended at the end since the last breadth-first layout: they sit apart from
    /// their siblings. See `update.rs`. (Subtrees moved to the end leave holes, which the
    /// compaction counts.)
    pub(super) appended_since_layout: usize,
    /// Worlds recomputed by incremental updates since the last breadth-first layout: the
    /// work a scattered layout slows down, which pays for laying it out again. See `update.rs`.
    pub(super) recomputed_since_layout: usize,
    pub(super) pass: u32,
    /// Views with at least this many nodes may propagate by sweeping the slots (see
    /// `propagate.rs`); a field so that unit tests can force the sweep on small views.
    pub(super) sweep_min_nodes: usize,
    /// Views with at least this many slots sweep on every thread of rayon's pool, in chunks
    /// of `parallel_chunk` slots (see `sweep.rs`). See [`SceneView::set_parallel_grain`].
    pub(super) parallel_min_slots: usize,
    pub(super) parallel_chunk: usize,
    pub(super) cursor: u64,
    /// [`super::TransformSource::source_id`] of the source `cursor` belongs to.
    pub(super) source_id: u64,
    /// Bumped whenever the shape of the tree (parents, membership) changes.
    pub(super) structure_generation: u64,
    /// Bumped whenever anything (including world matrices) changes.
    pub(super) generation: u64,
    pub(super) stats: UpdateStats,
}

impl Default for SceneView {
    fn default() -> Self {
        Self::new()
    }
}

impl SceneView {
    /// A view holding only the root; call [`Self::update`] to fill it.
    pub fn new() -> Self {
        let mut view = SceneView {
            index: EntityIndex::default(),
            entity: Vec::new(),
            declared: Vec::new(),
            parent: Vec::new(),
            first_child: Vec::new(),
            last_child: Vec::new(),
            next_sibling: Vec::new(),
            prev_sibling: Vec::new(),
            local: Vec::new(),
            world: Vec::new(),
            flags: Vec::new(),
            referrers: Vec::new(),
            cycle: Vec::new(),
            source_hint: Vec::new(),
            mark: Vec::new(),
            walk: Vec::new(),
            order: Vec::new(),
            cycles: Vec::new(),
            free_cycles: Vec::new(),
            topo_sorted: true,
            appended_since_layout: 0,
            recomputed_since_layout: 0,
            pass: 0,
            sweep_min_nodes: super::propagate::SWEEP_MIN_NODES,
            parallel_min_slots: super::sweep::PARALLEL_MIN_SLOTS,
            parallel_chunk: super::sweep::PARALLEL_CHUNK,
            cursor: 0,
            source_id: 0,
            structure_generation: 0,
            generation: 0,
            stats: UpdateStats::default(),
        };
        view.clear(1);
        view
    }

    /// Builds the view of a source from scratch.
    pub fn from_source(source: &impl TransformSource) -> Self {
        let mut view = Self::new();
        view.update(source);
        view
    }

    /// Empties the view down to its root, with room for `nodes` nodes without regrowing.
    pub(super) fn clear(&mut self, nodes: usize) {
        self.index.clear();
        for v in [
            &mut self.parent,
            &mut self.first_child,
            &mut self.last_child,
            &mut self.next_sibling,
            &mut self.prev_sibling,
            &mut self.referrers,
            &mut self.cycle,
            &mut self.walk,
            &mut self.source_hint,
        ] {
            v.clear();
            v.reserve(nodes);
        }
        self.entity.clear();
        self.entity.reserve(nodes);
        self.declared.clear();
        self.declared.reserve(nodes);
        self.local.clear();
        self.local.reserve(nodes);
        self.world.clear();
        self.world.reserve(nodes);
        self.flags.clear();
        self.flags.reserve(nodes);
        self.mark.clear();
        self.mark.reserve(nodes);
        self.cycles.clear();
        self.free_cycles.clear();
        self.topo_sorted = true;
        let root = self.push_slot(Entity::ROOT, 0);
        debug_assert_eq!(root, ROOT_SLOT);
        self.parent[ROOT_SLOT as usize] = NONE;
    }

    // ----- queries -------------------------------------------------------------------------

    /// Number of nodes, the root and implicit parents included.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when only the root is present.
    pub fn is_empty(&self) -> bool {
        self.len() <= 1
    }

    /// True when the entity is a node of the tree (live, an implicit parent, or the root).
    pub fn contains(&self, entity: Entity) -> bool {
        self.index.get(entity).is_some()
    }

    pub(super) fn slot(&self, entity: Entity) -> Option<usize> {
        self.index.get(entity).map(|s| s as usize)
    }

    /// Slots that hold a node (not on the free list).
    pub(super) fn allocated_slots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.entity.len()).filter(|&s| self.flags[s] & flag::FREE == 0)
    }

    /// The parent the entity's Transform declares (the root when it has no Transform).
    pub fn declared_parent_of(&self, entity: Entity) -> Option<Entity> {
        let s = self.slot(entity)?;
        (s != ROOT_SLOT as usize).then(|| self.declared[s])
    }

    /// The parent it is drawn under: the declared parent, or the root for cycle members.
    pub fn effective_parent_of(&self, entity: Entity) -> Option<Entity> {
        let p = self.parent[self.slot(entity)?];
        (p != NONE).then(|| self.entity[p as usize])
    }

    /// Children drawn under `entity` (effective parent), in the order they joined.
    pub fn children_of(&self, entity: Entity) -> impl Iterator<Item = Entity> + '_ {
        let first = self.slot(entity).map_or(NONE, |s| self.first_child[s]);
        std::iter::successors((first != NONE).then_some(first), move |&c| {
            let n = self.next_sibling[c as usize];
            (n != NONE).then_some(n)
        })
        .map(move |c| self.entity[c as usize])
    }

    /// Children of `entity` sorted by entity id, for stable display.
    pub fn sorted_children_of(&self, entity: Entity) -> Vec<Entity> {
        let mut out: Vec<Entity> = self.children_of(entity).collect();
        out.sort_unstable();
        out
    }

    /// True when the entity has at least one child in the render tree.
    pub fn has_children(&self, entity: Entity) -> bool {
        self.slot(entity)
            .is_some_and(|s| self.first_child[s] != NONE)
    }

    /// The world matrix (world from local), or `None` for an unknown entity.
    pub fn world_matrix(&self, entity: Entity) -> Option<Mat4> {
        self.world_affine(entity).map(Mat4::from)
    }

    /// The world transform as an affine matrix.
    pub fn world_affine(&self, entity: Entity) -> Option<Affine3A> {
        self.slot(entity).map(|s| self.world[s])
    }

    /// The local matrix used for drawing (identity without a Transform).
    pub fn local_affine(&self, entity: Entity) -> Option<Affine3A> {
        self.slot(entity).map(|s| self.local[s])
    }

    /// True when the entity holds components (false for implicit parents and the root).
    pub fn is_live(&self, entity: Entity) -> bool {
        self.slot(entity)
            .is_some_and(|s| self.flags[s] & flag::LIVE != 0)
    }

    /// True for a declared parent that holds no components at all.
    pub fn is_implicit(&self, entity: Entity) -> bool {
        !entity.is_root() && self.contains(entity) && !self.is_live(entity)
    }

    /// True when the entity has a Transform.
    pub fn has_transform(&self, entity: Entity) -> bool {
        self.slot(entity)
            .is_some_and(|s| self.flags[s] & flag::HAS_TRANSFORM != 0)
    }

    /// Why the entity is not drawn plainly under its declared parent.
    pub fn fallback_reason(&self, entity: Entity) -> Fallback<'_> {
        let Some(s) = self.slot(entity) else {
            return Fallback::None;
        };
        if let Some(members) = self.cycle_members_of_slot(s) {
            return Fallback::Cycle(members);
        }
        let declared = self.declared[s];
        if s != ROOT_SLOT as usize && !declared.is_root() && !self.has_transform(declared) {
            return Fallback::MissingParent;
        }
        Fallback::None
    }

    /// True when the entity's local matrix is not finite: its Transform holds an infinite or
    /// NaN value, or values so large that the matrix overflows. The viewport cannot draw it or
    /// anything below it (their world matrices are not finite either).
    pub fn has_non_finite_local(&self, entity: Entity) -> bool {
        self.slot(entity)
            .is_some_and(|s| !self.local[s].is_finite())
    }

    /// The entity itself or its nearest ancestor (by effective parent) whose local matrix is not
    /// finite: the one whose Transform keeps `entity` from being drawn. `None` when its world
    /// matrix comes from finite locals only. Walks up iteratively (any depth).
    pub fn non_finite_source_of(&self, entity: Entity) -> Option<Entity> {
        let mut s = self.slot(entity)? as u32;
        while s != NONE {
            if !self.local[s as usize].is_finite() {
                return Some(self.entity[s as usize]);
            }
            s = self.parent[s as usize];
        }
        None
    }

    /// Every entity whose local matrix is not finite (see [`Self::has_non_finite_local`]),
    /// sorted.
    pub fn non_finite_locals(&self) -> Vec<Entity> {
        let mut out: Vec<Entity> = self
            .allocated_slots()
            .filter(|&s| !self.local[s].is_finite())
            .map(|s| self.entity[s])
            .collect();
        out.sort_unstable();
        out
    }

    pub(super) fn cycle_members_of_slot(&self, s: usize) -> Option<&[Entity]> {
        let c = self.cycle[s];
        (c != NONE)
            .then(|| self.cycles[c as usize].as_deref())
            .flatten()
    }

    /// Every parenting cycle, each listed as in [`Fallback::Cycle`], sorted.
    pub fn cycles(&self) -> Vec<&[Entity]> {
        let mut out: Vec<&[Entity]> = self.cycles.iter().flatten().map(Vec::as_slice).collect();
        out.sort_unstable();
        out
    }

    /// Every entity with a fallback reason, sorted by entity.
    pub fn rerooted(&self) -> Vec<(Entity, Fallback<'_>)> {
        let mut out: Vec<(Entity, Fallback<'_>)> = self
            .allocated_slots()
            .map(|s| self.entity[s])
            .map(|e| (e, self.fallback_reason(e)))
            .filter(|(_, f)| *f != Fallback::None)
            .collect();
        out.sort_unstable_by_key(|(e, _)| *e);
        out
    }

    /// Every node with its depth (root = 0), parents before children, children by entity id.
    /// Iterative, so any depth is fine.
    pub fn preorder(&self) -> Vec<(Entity, u32)> {
        let mut out = Vec::with_capacity(self.len());
        let mut stack = vec![(Entity::ROOT, 0u32)];
        while let Some((e, depth)) = stack.pop() {
            out.push((e, depth));
            let mut kids = self.sorted_children_of(e);
            kids.reverse();
            stack.extend(kids.into_iter().map(|k| (k, depth + 1)));
        }
        out
    }

    /// All entities of the tree (root and implicit parents included), unordered.
    pub fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.allocated_slots().map(|s| self.entity[s])
    }

    /// Changes whenever parents or membership change (for caches of the tree's shape).
    pub fn structure_generation(&self) -> u64 {
        self.structure_generation
    }

    /// Changes whenever anything in the view changes (for caches of drawn data).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// What the last update did.
    pub fn last_update_stats(&self) -> UpdateStats {
        self.stats
    }

    /// Sets when whole-view passes (a rebuild's world computation, an update that changed most
    /// of the scene) run on every thread of rayon's current pool: views of at least
    /// `min_slots` slots, in work items of `chunk` slots (`usize::MAX` keeps every pass on one
    /// thread). The defaults were measured on the benchmark forests; tests use tiny values to
    /// run the parallel code on small views, benchmarks `usize::MAX` to time one thread.
    /// Results do not depend on it: every world is computed by the same expression.
    pub fn set_parallel_grain(&mut self, min_slots: usize, chunk: usize) {
        self.parallel_min_slots = min_slots;
        self.parallel_chunk = chunk.max(1);
    }
}

#[cfg(test)]
impl SceneView {
    /// Checks every internal invariant (index, links, layout, referrer counts); panics with
    /// the first violation.
    pub(super) fn assert_consistent(&self) {
        let allocated: Vec<usize> = self.allocated_slots().collect();
        assert_eq!(allocated.len(), self.index.len(), "index size");
        let mut children = vec![0u32; self.entity.len()];
        let mut referrers = vec![0u32; self.entity.len()];
        for &s in &allocated {
            assert_eq!(
                self.index.get(self.entity[s]),
                Some(s as u32),
                "index of slot {s}"
            );
            if s == ROOT_SLOT as usize {
                continue;
            }
            let p = self.parent[s];
            assert!(
                p != NONE && self.flags[p as usize] & flag::FREE == 0,
                "parent of {s}"
            );
            if self.topo_sorted {
                assert!((p as usize) < s, "slot {s} before its parent {p}");
            }
            children[p as usize] += 1;
            referrers[self.index.get(self.declared[s]).expect("declared node") as usize] += 1;
        }
        for &s in &allocated {
            let mut count = 0;
            let mut prev = NONE;
            let mut c = self.first_child[s];
            while c != NONE {
                assert_eq!(self.parent[c as usize], s as u32, "child list of {s}");
                assert_eq!(self.prev_sibling[c as usize], prev, "prev link of {c}");
                prev = c;
                count += 1;
                c = self.next_sibling[c as usize];
            }
            assert_eq!(self.last_child[s], prev, "last child of {s}");
            assert_eq!(count, children[s], "children of {s}");
            assert_eq!(self.referrers[s], referrers[s], "referrers of {s}");
        }
    }
}
