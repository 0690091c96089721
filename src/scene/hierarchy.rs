//! The derived render tree of one replica: declared and effective parents with the root
//! fallback, children, cycles, and world matrices, updated incrementally.
//!
//! Rules (SPEC.md §2, §4; ADR-153):
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

use glam::{Affine3A, Mat4};
use rustc_hash::FxHashMap;

use super::source::TransformSource;
use crate::model::{Entity, Transform};

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
mod flag {
    pub const LIVE: u8 = 1;
    pub const HAS_TRANSFORM: u8 = 2;
}

/// The render tree derived from a [`TransformSource`].
#[derive(Clone, Debug)]
pub struct SceneView {
    pub(super) slot_of: FxHashMap<Entity, u32>,
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
    /// Per-update visit marks (update number) and walk ids, for cycle search and dedupe.
    pub(super) mark: Vec<u64>,
    pub(super) walk: Vec<u32>,
    cycles: Vec<Option<Vec<Entity>>>,
    free_cycles: Vec<u32>,
    pub(super) free_slots: Vec<u32>,
    /// True while every node's parent slot is smaller than its own (the linear-pass layout).
    pub(super) topo_sorted: bool,
    pub(super) pass: u64,
    cursor: u64,
    /// [`TransformSource::source_id`] of the source `cursor` belongs to.
    source_id: u64,
    /// Bumped whenever the shape of the tree (parents, membership) changes.
    structure_generation: u64,
    /// Bumped whenever anything (including world matrices) changes.
    generation: u64,
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
            slot_of: FxHashMap::default(),
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
            mark: Vec::new(),
            walk: Vec::new(),
            cycles: Vec::new(),
            free_cycles: Vec::new(),
            free_slots: Vec::new(),
            topo_sorted: true,
            pass: 0,
            cursor: 0,
            source_id: 0,
            structure_generation: 0,
            generation: 0,
            stats: UpdateStats::default(),
        };
        view.clear();
        view
    }

    /// Builds the view of a source from scratch.
    pub fn from_source(source: &impl TransformSource) -> Self {
        let mut view = Self::new();
        view.update(source);
        view
    }

    fn clear(&mut self) {
        self.slot_of.clear();
        for v in [
            &mut self.parent,
            &mut self.first_child,
            &mut self.last_child,
            &mut self.next_sibling,
            &mut self.prev_sibling,
            &mut self.referrers,
            &mut self.cycle,
            &mut self.walk,
        ] {
            v.clear();
        }
        self.entity.clear();
        self.declared.clear();
        self.local.clear();
        self.world.clear();
        self.flags.clear();
        self.mark.clear();
        self.cycles.clear();
        self.free_cycles.clear();
        self.free_slots.clear();
        self.topo_sorted = true;
        let root = self.push_slot(Entity::ROOT, 0);
        debug_assert_eq!(root, ROOT_SLOT);
        self.parent[ROOT_SLOT as usize] = NONE;
    }

    // ----- queries -------------------------------------------------------------------------

    /// Number of nodes, the root and implicit parents included.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// True when only the root is present.
    pub fn is_empty(&self) -> bool {
        self.len() <= 1
    }

    /// True when the entity is a node of the tree (live, an implicit parent, or the root).
    pub fn contains(&self, entity: Entity) -> bool {
        self.slot_of.contains_key(&entity)
    }

    pub(super) fn slot(&self, entity: Entity) -> Option<usize> {
        self.slot_of.get(&entity).map(|&s| s as usize)
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

    fn cycle_members_of_slot(&self, s: usize) -> Option<&[Entity]> {
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
            .slot_of
            .keys()
            .map(|&e| (e, self.fallback_reason(e)))
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
        self.slot_of.keys().copied()
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

    // ----- update --------------------------------------------------------------------------

    /// Brings the view up to date with `source`, doing work proportional to what changed (the
    /// changed entities, the cycle checks along their parent chains, and their subtrees).
    pub fn update(&mut self, source: &impl TransformSource) {
        if source.source_id() != self.source_id {
            self.stats = UpdateStats::default();
            self.rebuild(source);
            return;
        }
        let (changed, next_cursor) = source.changed_since(self.cursor);
        self.cursor = next_cursor;
        self.stats = UpdateStats::default();
        let Some(mut changed) = changed else {
            self.rebuild(source);
            return;
        };
        if changed.is_empty() {
            return;
        }
        changed.sort_unstable();
        changed.dedup();
        if changed.len() > 4096 && changed.len() > self.len() / 2 {
            self.rebuild(source);
            return;
        }
        self.apply_changes(source, &changed);
    }

    /// Forgets everything and reads the whole source again, laying slots out breadth-first.
    pub fn rebuild(&mut self, source: &impl TransformSource) {
        self.stats = UpdateStats {
            rebuilt: true,
            ..UpdateStats::default()
        };
        self.cursor = source.changed_since(u64::MAX).1;
        self.source_id = source.source_id();
        let mut live: Vec<(Entity, Option<Transform>)> = Vec::new();
        source.for_each_live(&mut |e, t| live.push((e, t)));
        live.sort_unstable_by_key(|(e, _)| *e);
        self.stats.entities_read = live.len();
        self.clear();
        for (e, t) in &live {
            if e.is_root() {
                continue;
            }
            let s = self.slot_or_implicit(*e);
            self.set_node_data(s, t.as_ref(), true);
        }
        let all: Vec<u32> = (1..self.entity.len() as u32).collect();
        self.find_cycles_from(&all);
        for s in 1..self.entity.len() as u32 {
            let p = self.wanted_parent(s);
            self.link(s, p);
        }
        self.relayout_breadth_first();
        self.recompute_all_worlds();
        self.structure_generation += 1;
        self.generation += 1;
    }

    fn apply_changes(&mut self, source: &impl TransformSource, changed: &[Entity]) {
        self.stats.entities_read = changed.len();
        let mut edge_changed: Vec<u32> = Vec::new();
        let mut dirty: Vec<u32> = Vec::new();
        let mut maybe_remove: Vec<u32> = Vec::new();
        let mut fresh: Vec<u32> = Vec::new();
        for &e in changed {
            if e.is_root() {
                continue;
            }
            let live = source.is_live(e);
            let transform = if live { source.transform(e) } else { None };
            let slot = match self.slot_of.get(&e) {
                Some(&s) => s,
                None if !live => continue,
                None => {
                    let s = self.slot_or_implicit(e);
                    fresh.push(s);
                    s
                }
            };
            let s = slot as usize;
            let old_declared = self.declared[s];
            let old_flags = self.flags[s];
            let old_local = self.local[s];
            self.set_node_data(slot, transform.as_ref(), live);
            let declared_slot = self.slot_of[&self.declared[s]];
            if declared_slot != ROOT_SLOT && self.parent[declared_slot as usize] == NONE {
                fresh.push(declared_slot); // just created as an implicit node, not linked yet
            }
            if self.declared[s] != old_declared {
                maybe_remove.push(self.slot_of[&old_declared]);
                edge_changed.push(slot);
            }
            let transform_toggled = (old_flags ^ self.flags[s]) & flag::HAS_TRANSFORM != 0;
            if transform_toggled || self.local[s] != old_local {
                dirty.push(slot);
            }
            if !live {
                maybe_remove.push(slot);
            }
        }
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
        for s in reattach {
            if !self.is_allocated(s) {
                continue;
            }
            let want = self.wanted_parent(s);
            if self.parent[s as usize] != want {
                self.unlink(s);
                self.link(s, want);
                dirty.push(s);
                structure_changed = true;
            }
        }
        for s in maybe_remove {
            structure_changed |= self.remove_if_unused(s);
        }
        dirty.retain(|&s| self.is_allocated(s));
        if !dirty.is_empty() {
            self.recompute_dirty_worlds(&mut dirty);
            self.generation += 1;
        }
        if structure_changed {
            self.structure_generation += 1;
            self.generation += 1;
        }
    }

    /// True when `slot` holds a node (not on the free list).
    fn is_allocated(&self, slot: u32) -> bool {
        self.slot_of.get(&self.entity[slot as usize]) == Some(&slot)
    }

    /// Writes an entity's Transform-derived fields (declared parent, local matrix, flags).
    fn set_node_data(&mut self, slot: u32, transform: Option<&Transform>, live: bool) {
        let s = slot as usize;
        let t = transform.copied().unwrap_or(Transform::IDENTITY);
        if self.declared[s] != t.parent {
            // Every node counts as a referrer of its declared parent (the root included).
            let old = self.slot_of[&self.declared[s]];
            self.referrers[old as usize] -= 1;
            let new = self.slot_or_implicit(t.parent);
            self.referrers[new as usize] += 1;
            self.declared[s] = t.parent;
        }
        self.local[s] = if transform.is_some() {
            t.local_affine()
        } else {
            Affine3A::IDENTITY
        };
        self.flags[s] = (if live { flag::LIVE } else { 0 })
            | (if transform.is_some() {
                flag::HAS_TRANSFORM
            } else {
                0
            });
    }

    /// The slot of `entity`, creating an unlinked implicit node (no Transform, declared parent
    /// the root) if needed. Callers link new slots.
    fn slot_or_implicit(&mut self, entity: Entity) -> u32 {
        match self.slot_of.get(&entity) {
            Some(&s) => s,
            None => self.push_slot(entity, 0),
        }
    }

    fn push_slot(&mut self, entity: Entity, flags: u8) -> u32 {
        let s = match self.free_slots.pop() {
            Some(s) => {
                let i = s as usize;
                self.entity[i] = entity;
                self.declared[i] = Entity::ROOT;
                self.parent[i] = NONE;
                self.first_child[i] = NONE;
                self.last_child[i] = NONE;
                self.next_sibling[i] = NONE;
                self.prev_sibling[i] = NONE;
                self.local[i] = Affine3A::IDENTITY;
                self.world[i] = Affine3A::IDENTITY;
                self.flags[i] = flags;
                self.referrers[i] = 0;
                self.cycle[i] = NONE;
                self.mark[i] = 0;
                self.walk[i] = NONE;
                s
            }
            None => {
                let s = self.entity.len() as u32;
                self.entity.push(entity);
                self.declared.push(Entity::ROOT);
                self.parent.push(NONE);
                self.first_child.push(NONE);
                self.last_child.push(NONE);
                self.next_sibling.push(NONE);
                self.prev_sibling.push(NONE);
                self.local.push(Affine3A::IDENTITY);
                self.world.push(Affine3A::IDENTITY);
                self.flags.push(flags);
                self.referrers.push(0);
                self.cycle.push(NONE);
                self.mark.push(0);
                self.walk.push(NONE);
                s
            }
        };
        self.slot_of.insert(entity, s);
        if s != ROOT_SLOT {
            self.referrers[ROOT_SLOT as usize] += 1;
        }
        s
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
                && self.flags[s] & flag::LIVE == 0
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
            let declared_slot = self.slot_of[&self.declared[s]];
            self.referrers[declared_slot as usize] -= 1;
            self.slot_of.remove(&self.entity[s]);
            self.free_slots.push(slot);
            freed_any = true;
            next = Some(declared_slot);
        }
        freed_any
    }

    /// The effective parent a node should have now.
    fn wanted_parent(&self, slot: u32) -> u32 {
        let s = slot as usize;
        if self.cycle[s] != NONE || self.declared[s].is_root() {
            ROOT_SLOT
        } else {
            self.slot_of[&self.declared[s]]
        }
    }

    // ----- child lists ---------------------------------------------------------------------

    pub(super) fn link(&mut self, child: u32, parent: u32) {
        let (c, p) = (child as usize, parent as usize);
        self.parent[c] = parent;
        self.next_sibling[c] = NONE;
        self.prev_sibling[c] = self.last_child[p];
        if self.last_child[p] == NONE {
            self.first_child[p] = child;
        } else {
            self.next_sibling[self.last_child[p] as usize] = child;
        }
        self.last_child[p] = child;
        if parent > child {
            self.topo_sorted = false;
        }
    }

    fn unlink(&mut self, child: u32) {
        let c = child as usize;
        let p = self.parent[c];
        if p == NONE {
            return;
        }
        let (prev, next) = (self.prev_sibling[c], self.next_sibling[c]);
        if prev == NONE {
            self.first_child[p as usize] = next;
        } else {
            self.next_sibling[prev as usize] = next;
        }
        if next == NONE {
            self.last_child[p as usize] = prev;
        } else {
            self.prev_sibling[next as usize] = prev;
        }
        self.parent[c] = NONE;
        self.prev_sibling[c] = NONE;
        self.next_sibling[c] = NONE;
    }

    // ----- cycles --------------------------------------------------------------------------

    /// Follows declared parents from each start and records every cycle met that is not known
    /// yet. Each node is visited at most once per call. Returns the new members' slots.
    fn find_cycles_from(&mut self, starts: &[u32]) -> Vec<u32> {
        self.pass += 1;
        let pass = self.pass;
        let mut new_members = Vec::new();
        for (walk_id, &start) in starts.iter().enumerate() {
            let walk_id = walk_id as u32;
            let mut s = start as usize;
            loop {
                if s == ROOT_SLOT as usize
                    || self.flags[s] & flag::HAS_TRANSFORM == 0
                    || self.cycle[s] != NONE
                {
                    break; // reached the root, an implicit or Transform-less node, or a known cycle
                }
                if self.mark[s] == pass {
                    if self.walk[s] == walk_id {
                        let members = self.record_cycle(s);
                        new_members.extend(members);
                    }
                    break;
                }
                self.mark[s] = pass;
                self.walk[s] = walk_id;
                self.stats.cycle_walk_steps += 1;
                match self.slot_of.get(&self.declared[s]) {
                    Some(&p) => s = p as usize,
                    None => break,
                }
            }
        }
        new_members
    }

    /// Records the cycle through `on_cycle` and returns its member slots.
    fn record_cycle(&mut self, on_cycle: usize) -> Vec<u32> {
        let mut slots = vec![on_cycle as u32];
        let mut s = self.slot_of[&self.declared[on_cycle]] as usize;
        while s != on_cycle {
            slots.push(s as u32);
            s = self.slot_of[&self.declared[s]] as usize;
        }
        // Canonical order: parent order, starting from the smallest entity.
        let start = (0..slots.len())
            .min_by_key(|&i| self.entity[slots[i] as usize])
            .unwrap_or(0);
        slots.rotate_left(start);
        let members: Vec<Entity> = slots.iter().map(|&s| self.entity[s as usize]).collect();
        let id = match self.free_cycles.pop() {
            Some(id) => {
                self.cycles[id as usize] = Some(members);
                id
            }
            None => {
                self.cycles.push(Some(members));
                (self.cycles.len() - 1) as u32
            }
        };
        for &s in &slots {
            self.cycle[s as usize] = id;
        }
        slots
    }

    /// Forgets a cycle; returns its former members' slots.
    fn dissolve_cycle(&mut self, id: u32) -> Vec<u32> {
        let Some(members) = self.cycles[id as usize].take() else {
            return Vec::new();
        };
        self.free_cycles.push(id);
        let slots: Vec<u32> = members
            .iter()
            .filter_map(|e| self.slot_of.get(e).copied())
            .collect();
        for &s in &slots {
            self.cycle[s as usize] = NONE;
        }
        slots
    }
}
