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
//! Storage is a structure of arrays indexed by *slot*. Slot 0 is the root. The slots form
//! *blocks*, each the preorder layout of a subtree (a node, then each child's subtree in
//! turn), so every node's subtree is the slot range `slot..end[slot]` plus the subtrees of its
//! *outlying* children: children linked after the block was laid out, which sit in later
//! blocks. A full layout makes the root's subtree one block (no outliers); a node whose
//! parent changes moves, with its subtree, to a new block at the end; a new node is a block of
//! its own at the end. Every parent's slot is before its children's, so a full recompute of
//! the world matrices is one linear pass, and a changed node's subtree is recomputed by
//! reading its range in order. Nothing here recurses on the call stack, so a 100,000-deep
//! chain is fine.
//!
//! This file holds the view and its read-only queries, `records.rs` the per-slot record
//! types; `update.rs` keeps it in step with the source, `slots.rs` allocates and moves nodes,
//! `layout.rs` lays every node out again, `cycles.rs` finds parenting cycles, `propagate.rs`
//! computes world matrices (`sweep.rs`: whole-view passes, on every core; `shared.rs`: the
//! slot arrays those passes share between threads), `model::entity_index` maps entities to
//! slots.

use glam::{Affine3A, Mat4};

use super::source::TransformSource;
use crate::model::Entity;
use crate::model::entity_index::EntityIndex;

use super::records::{Matrix, NONE, Node, ROOT_SLOT, RelocateScratch, flag};

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

/// The render tree derived from a [`TransformSource`].
#[derive(Clone, Debug)]
pub struct SceneView {
    /// Entity → slot of every node.
    pub(super) index: EntityIndex,
    pub(super) entity: Vec<Entity>,
    /// The hot fields of every slot.
    pub(super) node: Vec<Node>,
    /// Child lists: the children laid out with the node first, in slot order, then its
    /// outlying children (slots at or after its `end`) in the order they were linked.
    pub(super) first_child: Vec<u32>,
    pub(super) next_sibling: Vec<u32>,
    pub(super) prev_sibling: Vec<u32>,
    pub(super) local: Vec<Matrix>,
    pub(super) world: Vec<Matrix>,
    /// How many nodes declare this slot's entity as their parent.
    pub(super) referrers: Vec<u32>,
    /// Index into `cycles`, or `NONE`.
    pub(super) cycle: Vec<u32>,
    /// Per-pass scratch: the walk id during cycle search, the covered flag while finding the
    /// topmost dirty nodes.
    pub(super) walk: Vec<u32>,
    /// Per-update scratch: the topmost changed nodes, whose subtrees to recompute.
    pub(super) tops: Vec<u32>,
    /// Scratch of [`Self::relocate_subtree`], kept so that moving a thousand small subtrees
    /// in an update does not allocate and grow three lists for each.
    pub(super) relocating: RelocateScratch,
    /// Cycles by id (`None` once dissolved), each listed as in [`Fallback::Cycle`].
    pub(super) cycles: Vec<Option<Vec<Entity>>>,
    pub(super) free_cycles: Vec<u32>,
    /// Nodes other than the root that some node declares as its parent but that hold no
    /// Transform: their children are drawn at the root ([`Fallback::MissingParent`]). Kept as
    /// nodes change, so [`Self::rerooted`] costs what it lists, not the whole view.
    pub(super) transformless_parents: rustc_hash::FxHashSet<Entity>,
    /// Slots before this were laid out by the last full layout (one block per child of the
    /// root, whose nodes all hang where they were laid out); blocks from here on were
    /// appended since.
    pub(super) tail_start: u32,
    /// Scratch for sorting an update's changed slots (a bit per slot).
    pub(super) dirty_bits: Vec<u64>,
    /// Buffers a full layout rewrites arrays through, kept between layouts (see `layout.rs`).
    pub(super) spare_u32: Vec<u32>,
    pub(super) spare_entity: Vec<Entity>,
    pub(super) spare_node: Vec<Node>,
    pub(super) spare_matrix: Vec<Matrix>,
    /// How a parallel sweep cuts the slots (see `sweep.rs`), kept until they change.
    pub(super) plan: Option<std::sync::Arc<super::sweep::Plan>>,
    /// Nodes appended at the end since the last full layout (new nodes, and every node of each
    /// moved subtree): they sit apart from their parents' blocks. See `update.rs`. (Moved
    /// subtrees also leave holes, which the compaction counts.)
    pub(super) appended_since_layout: usize,
    /// Worlds recomputed by incremental updates since the last full layout: the work a
    /// scattered layout slows down, which pays for laying it out again. See `update.rs`.
    pub(super) recomputed_since_layout: usize,
    pub(super) pass: u32,
    /// Passes over at least this many slots (a whole-view sweep, or the changed subtrees
    /// of an update) run on every thread of rayon's pool, in work items of about
    /// `parallel_chunk` slots (see `sweep.rs`). See [`SceneView::set_parallel_grain`].
    pub(super) parallel_min_slots: usize,
    pub(super) parallel_chunk: usize,
    pub(super) cursor: u64,
    /// [`super::TransformSource::source_id`] of the source `cursor` belongs to.
    pub(super) source_id: u64,
    /// Bumped whenever the shape of the tree (parents, membership) changes.
    pub(super) structure_generation: u64,
    /// Full layouts so far (each lists every node's children by entity id).
    pub(super) layouts: u64,
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
            node: Vec::new(),
            first_child: Vec::new(),
            next_sibling: Vec::new(),
            prev_sibling: Vec::new(),
            local: Vec::new(),
            world: Vec::new(),
            referrers: Vec::new(),
            cycle: Vec::new(),
            walk: Vec::new(),
            tops: Vec::new(),
            relocating: Default::default(),
            cycles: Vec::new(),
            free_cycles: Vec::new(),
            transformless_parents: Default::default(),
            tail_start: 1,
            dirty_bits: Vec::new(),
            spare_u32: Vec::new(),
            spare_entity: Vec::new(),
            spare_node: Vec::new(),
            spare_matrix: Vec::new(),
            plan: None,
            appended_since_layout: 0,
            recomputed_since_layout: 0,
            pass: 0,
            parallel_min_slots: super::sweep::PARALLEL_MIN_SLOTS,
            parallel_chunk: super::sweep::PARALLEL_CHUNK,
            cursor: 0,
            source_id: 0,
            structure_generation: 0,
            layouts: 0,
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
            &mut self.first_child,
            &mut self.next_sibling,
            &mut self.prev_sibling,
            &mut self.referrers,
            &mut self.cycle,
            &mut self.walk,
        ] {
            v.clear();
            v.reserve(nodes);
        }
        self.entity.clear();
        self.entity.reserve(nodes);
        self.node.clear();
        self.node.reserve(nodes);
        self.local.clear();
        self.local.reserve(nodes);
        self.world.clear();
        self.world.reserve(nodes);
        self.cycles.clear();
        self.free_cycles.clear();
        self.transformless_parents.clear();
        let root = self.push_slot(Entity::ROOT, 0);
        debug_assert_eq!(root, ROOT_SLOT);
        self.node[ROOT_SLOT as usize].end = NONE;
        self.tail_start = 1;
        self.plan = None;
        self.appended_since_layout = 0;
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
        (0..self.entity.len()).filter(|&s| self.node[s].flags & flag::FREE == 0)
    }

    /// The parent the entity's Transform declares (the root when it has no Transform).
    pub fn declared_parent_of(&self, entity: Entity) -> Option<Entity> {
        let s = self.slot(entity)?;
        (s != ROOT_SLOT as usize).then(|| self.node[s].declared)
    }

    /// The parent it is drawn under: the declared parent, or the root for cycle members.
    pub fn effective_parent_of(&self, entity: Entity) -> Option<Entity> {
        let p = self.node[self.slot(entity)?].parent;
        (p != NONE).then(|| self.entity[p as usize])
    }

    /// Children drawn under `entity` (effective parent): by entity id as of the last full
    /// layout, then those that joined since, in the order they joined (see
    /// [`Self::child_order_generation`]; [`Self::sorted_children_of`] for a stable order).
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
        self.slot(entity).map(|s| self.world[s].0)
    }

    /// The local matrix used for drawing (identity without a Transform).
    pub fn local_affine(&self, entity: Entity) -> Option<Affine3A> {
        self.slot(entity).map(|s| self.local[s].0)
    }

    /// True when the entity holds components (false for implicit parents and the root).
    pub fn is_live(&self, entity: Entity) -> bool {
        self.slot(entity)
            .is_some_and(|s| self.node[s].flags & flag::LIVE != 0)
    }

    /// True for a declared parent that holds no components at all.
    pub fn is_implicit(&self, entity: Entity) -> bool {
        !entity.is_root() && self.contains(entity) && !self.is_live(entity)
    }

    /// True when the entity has a Transform.
    pub fn has_transform(&self, entity: Entity) -> bool {
        self.slot(entity)
            .is_some_and(|s| self.node[s].flags & flag::HAS_TRANSFORM != 0)
    }

    /// Why the entity is not drawn plainly under its declared parent.
    pub fn fallback_reason(&self, entity: Entity) -> Fallback<'_> {
        let Some(s) = self.slot(entity) else {
            return Fallback::None;
        };
        if let Some(members) = self.cycle_members_of_slot(s) {
            return Fallback::Cycle(members);
        }
        let declared = self.node[s].declared;
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
            .is_some_and(|s| !self.local[s].0.is_finite())
    }

    /// The entity itself or its nearest ancestor (by effective parent) whose local matrix is not
    /// finite: the one whose Transform keeps `entity` from being drawn. `None` when its world
    /// matrix comes from finite locals only. Walks up iteratively (any depth).
    pub fn non_finite_source_of(&self, entity: Entity) -> Option<Entity> {
        let mut s = self.slot(entity)? as u32;
        while s != NONE {
            if !self.local[s as usize].0.is_finite() {
                return Some(self.entity[s as usize]);
            }
            s = self.node[s as usize].parent;
        }
        None
    }

    /// Every entity whose local matrix is not finite (see [`Self::has_non_finite_local`]),
    /// sorted.
    pub fn non_finite_locals(&self) -> Vec<Entity> {
        let mut out: Vec<Entity> = self
            .allocated_slots()
            .filter(|&s| !self.local[s].0.is_finite())
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

    /// Every entity with a fallback reason, sorted by entity: the members of every cycle and
    /// the children of every parent without a Transform. Costs what it lists.
    pub fn rerooted(&self) -> Vec<(Entity, Fallback<'_>)> {
        let cycle_members = self.cycles.iter().flatten().flatten().copied();
        let orphans = (self.transformless_parents.iter()).flat_map(|&p| self.children_of(p));
        let mut out: Vec<(Entity, Fallback<'_>)> = cycle_members
            .chain(orphans)
            .map(|e| (e, self.fallback_reason(e)))
            .filter(|(_, f)| *f != Fallback::None)
            .collect();
        out.sort_unstable_by_key(|(e, _)| *e);
        out
    }

    /// Keeps [`Self::transformless_parents`] right for the node in `slot` after its flags or
    /// referrer count changed.
    pub(super) fn note_parent_state(&mut self, slot: u32) {
        let s = slot as usize;
        let entity = self.entity[s];
        let transformless_parent = slot != ROOT_SLOT
            && self.node[s].flags & (flag::FREE | flag::HAS_TRANSFORM) == 0
            && self.referrers[s] > 0;
        if transformless_parent {
            self.transformless_parents.insert(entity);
        } else {
            self.transformless_parents.remove(&entity);
        }
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

    /// Changes whenever [`Self::children_of`] may list some entity's children in another
    /// order: with the structure, and when the view lays its nodes out again (children then
    /// by entity id), which an update of Transforms alone can do. For caches that keep the
    /// tree's walking order (the viewport's items).
    pub fn child_order_generation(&self) -> u64 {
        self.structure_generation + self.layouts
    }

    /// Changes whenever anything in the view changes (for caches of drawn data).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// What the last update did.
    pub fn last_update_stats(&self) -> UpdateStats {
        self.stats
    }

    /// Sets when world passes (a rebuild's world computation, an update that changed most of
    /// the scene, the changed subtrees of a smaller update) run on every thread of rayon's
    /// current pool: passes over at least `min_slots` slots, in work items of about `chunk`
    /// slots (`usize::MAX` keeps every pass on one thread). The defaults were measured on the
    /// benchmark forests; tests use tiny values to run the parallel code on small views,
    /// benchmarks `usize::MAX` to time one thread. Results do not depend on it: every world is
    /// computed by the same expression.
    pub fn set_parallel_grain(&mut self, min_slots: usize, chunk: usize) {
        self.parallel_min_slots = min_slots;
        self.parallel_chunk = chunk.max(1);
    }

    /// Whether a pass over `slots` slots runs on every thread of rayon's current pool (see
    /// [`Self::set_parallel_grain`]).
    pub(super) fn runs_in_parallel(&self, slots: usize) -> bool {
        slots >= self.parallel_min_slots && rayon::current_num_threads() > 1
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
            let p = self.node[s].parent;
            assert!(
                p != NONE && self.node[p as usize].flags & flag::FREE == 0,
                "parent of {s}"
            );
            assert!((p as usize) < s, "slot {s} before its parent {p}");
            let end = self.node[s].end as usize;
            assert!(s < end && end <= self.entity.len(), "range of {s}: ..{end}");
            // Every node laid out in the range hangs inside it, with a range inside it.
            for i in s + 1..end {
                if self.node[i].flags & flag::FREE == 0 {
                    let q = self.node[i].parent as usize;
                    assert!(s <= q && q < end, "slot {i} in the range of {s} under {q}");
                    assert!(
                        self.node[i].end as usize <= end,
                        "range of {i} inside {s}'s"
                    );
                }
            }
            if (p as usize) != ROOT_SLOT as usize && s >= self.node[p as usize].end as usize {
                // An outlying child: the first slot of a block appended since the layout.
                assert_eq!(self.node[s].block, s as u32, "outlying child {s} of {p}");
                assert!(
                    s >= self.tail_start as usize,
                    "outlying child {s} in the laid-out part"
                );
            } else if (p as usize) != ROOT_SLOT as usize {
                assert_eq!(
                    self.node[s].block, self.node[p as usize].block,
                    "block of {s}"
                );
            } else {
                assert_eq!(self.node[s].block, s as u32, "block of {s}, under the root");
            }
            if s < self.tail_start as usize {
                assert!(
                    (p as usize) == ROOT_SLOT as usize || s < self.node[p as usize].end as usize,
                    "slot {s} of the laid-out part is inside its parent {p}'s range"
                );
            }
            children[p as usize] += 1;
            referrers[self
                .index
                .get(self.node[s].declared)
                .expect("declared node") as usize] += 1;
        }
        for &s in &allocated {
            let mut count = 0;
            let mut prev = NONE;
            let mut outlying = false;
            let mut c = self.first_child[s];
            while c != NONE {
                assert_eq!(self.node[c as usize].parent, s as u32, "child list of {s}");
                assert_eq!(self.prev_sibling[c as usize], prev, "prev link of {c}");
                let out = c >= self.node[s].end;
                assert!(out || !outlying, "outlying children of {s} come last");
                outlying |= out;
                prev = c;
                count += 1;
                c = self.next_sibling[c as usize];
            }
            assert_eq!(self.node[s].last_child, prev, "last child of {s}");
            assert_eq!(count, children[s], "children of {s}");
            assert_eq!(self.referrers[s], referrers[s], "referrers of {s}");
        }
        let transformless: rustc_hash::FxHashSet<Entity> = (allocated.iter())
            .filter(|&&s| {
                s != ROOT_SLOT as usize
                    && self.node[s].flags & flag::HAS_TRANSFORM == 0
                    && referrers[s] > 0
            })
            .map(|&s| self.entity[s])
            .collect();
        assert_eq!(
            self.transformless_parents, transformless,
            "parents without a Transform"
        );
        let mut rerooted: Vec<(Entity, Fallback<'_>)> = (allocated.iter())
            .map(|&s| (self.entity[s], self.fallback_reason(self.entity[s])))
            .filter(|(_, f)| *f != Fallback::None)
            .collect();
        rerooted.sort_unstable_by_key(|(e, _)| *e);
        assert_eq!(self.rerooted(), rerooted, "re-rooted entities");
    }
}
