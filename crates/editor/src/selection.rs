//! Which entities are selected: an ordered set with a primary (the last clicked) and an anchor
//! for Shift-range selection, as in Godot, Unity and Blender.

use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashSet;

use scenetree_core::model::Entity;

/// The selected entities, in the order they were added; the last one is the primary.
///
/// Membership is a hash-set lookup, so a frame can ask about every drawn entity whatever the
/// selection's size; each change gets a new [`Self::generation`], so caches can tell whether
/// the selection changed without comparing it.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    entities: Vec<Entity>,
    /// The same entities, for membership.
    members: FxHashSet<Entity>,
    anchor: Option<Entity>,
    generation: u64,
}

impl PartialEq for Selection {
    fn eq(&self, other: &Self) -> bool {
        self.entities == other.entities && self.anchor == other.anchor
    }
}

impl Eq for Selection {}

/// Unique across selections, so a generation names one state of one selection.
fn next_generation() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Selection {
    /// Nothing selected.
    pub fn new() -> Self {
        Self::default()
    }

    /// The selected entities, oldest first.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The primary selection (the inspector's subject): the most recently added entity.
    pub fn primary(&self) -> Option<Entity> {
        self.entities.last().copied()
    }

    /// True when `entity` is selected.
    pub fn contains(&self, entity: Entity) -> bool {
        self.members.contains(&entity)
    }

    /// True when nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// Number of selected entities.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Changes whenever the selection does; equal generations mean an equal selection.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// A plain click: select only `entity`, and make it the range anchor.
    pub fn select_only(&mut self, entity: Entity) {
        self.replace(vec![entity]);
        self.anchor = Some(entity);
    }

    /// Replaces the selection with `entities` (the last becomes primary).
    pub fn set(&mut self, entities: impl IntoIterator<Item = Entity>) {
        self.replace(entities.into_iter().collect());
        self.anchor = self.entities.last().copied();
    }

    /// Ctrl+click: add or remove `entity`; it becomes the anchor. Removing costs a pass over
    /// the selection, once per click.
    pub fn toggle(&mut self, entity: Entity) {
        if self.members.remove(&entity) {
            self.entities.retain(|&e| e != entity);
        } else {
            self.members.insert(entity);
            self.entities.push(entity);
        }
        self.anchor = Some(entity);
        self.generation = next_generation();
    }

    /// Shift+click: select every entity between the anchor and `entity` in `visible_order` (the
    /// rows as shown: collapsed subtrees and rows a search hides are not in it), keeping the
    /// anchor. Without an anchor, or when either end is not shown, it acts like a plain click.
    pub fn select_range(&mut self, entity: Entity, visible_order: &[Entity]) {
        let anchor = self.anchor.unwrap_or(entity);
        let (Some(a), Some(b)) = (
            visible_order.iter().position(|&e| e == anchor),
            visible_order.iter().position(|&e| e == entity),
        ) else {
            self.select_only(entity);
            return;
        };
        let (lo, hi) = (a.min(b), a.max(b));
        // The clicked row last, so it is primary.
        let range = visible_order[lo..=hi]
            .iter()
            .copied()
            .filter(|&e| e != entity)
            .chain([entity]);
        self.replace(range.collect());
        self.anchor = Some(anchor);
    }

    /// Clears the selection.
    pub fn clear(&mut self) {
        self.replace(Vec::new());
        self.anchor = None;
    }

    /// Drops entities for which `keep` is false (e.g. deleted by an edit or a peer).
    pub fn retain(&mut self, mut keep: impl FnMut(Entity) -> bool) {
        let before = self.entities.len();
        self.entities.retain(|&e| keep(e));
        if self.entities.len() != before {
            self.members = self.entities.iter().copied().collect();
            self.generation = next_generation();
        }
        if self.anchor.is_some_and(|a| !keep(a)) {
            self.anchor = self.entities.last().copied();
        }
    }

    /// Makes `entities` (without repeats, first occurrence kept) the selection.
    fn replace(&mut self, mut entities: Vec<Entity>) {
        self.members.clear();
        entities.retain(|&e| self.members.insert(e));
        self.entities = entities;
        self.generation = next_generation();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROWS: [Entity; 5] = [
        Entity(512),
        Entity(513),
        Entity(514),
        Entity(515),
        Entity(516),
    ];

    #[test]
    fn ctrl_click_toggles_and_shift_click_selects_a_range_from_the_anchor() {
        let mut s = Selection::new();
        s.select_only(ROWS[1]);
        s.select_range(ROWS[3], &ROWS);
        assert_eq!(s.entities(), &ROWS[1..=3]);
        assert_eq!(s.primary(), Some(ROWS[3]));
        s.select_range(ROWS[0], &ROWS); // the anchor stays at row 1
        assert_eq!(s.entities(), &[ROWS[1], ROWS[0]]);
        s.toggle(ROWS[4]);
        assert!(s.contains(ROWS[4]));
        s.toggle(ROWS[4]);
        assert!(!s.contains(ROWS[4]));
    }

    #[test]
    fn retain_drops_vanished_entities() {
        let mut s = Selection::new();
        s.set(ROWS);
        s.retain(|e| e != ROWS[4]);
        assert_eq!(s.primary(), Some(ROWS[3]));
    }
}
