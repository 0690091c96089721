//! Which entities are selected: an ordered set with a primary (the last clicked) and an anchor
//! for Shift-range selection, as in Godot, Unity and Blender.

use crate::model::Entity;

/// The selected entities, in the order they were added; the last one is the primary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    entities: Vec<Entity>,
    anchor: Option<Entity>,
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
        self.entities.contains(&entity)
    }

    /// True when nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// Number of selected entities.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// A plain click: select only `entity`, and make it the range anchor.
    pub fn select_only(&mut self, entity: Entity) {
        self.entities.clear();
        self.entities.push(entity);
        self.anchor = Some(entity);
    }

    /// Replaces the selection with `entities` (the last becomes primary).
    pub fn set(&mut self, entities: impl IntoIterator<Item = Entity>) {
        self.entities.clear();
        for e in entities {
            if !self.entities.contains(&e) {
                self.entities.push(e);
            }
        }
        self.anchor = self.entities.last().copied();
    }

    /// Ctrl+click: add or remove `entity`; it becomes the anchor.
    pub fn toggle(&mut self, entity: Entity) {
        if let Some(i) = self.entities.iter().position(|&e| e == entity) {
            self.entities.remove(i);
        } else {
            self.entities.push(entity);
        }
        self.anchor = Some(entity);
    }

    /// Shift+click: select every entity between the anchor and `entity` in `visible_order` (the
    /// rows as shown), keeping the anchor. Without an anchor it acts like a plain click.
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
        self.entities = visible_order[lo..=hi].to_vec();
        // Keep the clicked row primary.
        if let Some(i) = self.entities.iter().position(|&e| e == entity) {
            let clicked = self.entities.remove(i);
            self.entities.push(clicked);
        }
        self.anchor = Some(anchor);
    }

    /// Clears the selection.
    pub fn clear(&mut self) {
        self.entities.clear();
        self.anchor = None;
    }

    /// Drops entities for which `keep` is false (e.g. deleted by an edit or a peer).
    pub fn retain(&mut self, mut keep: impl FnMut(Entity) -> bool) {
        self.entities.retain(|&e| keep(e));
        if self.anchor.is_some_and(|a| !keep(a)) {
            self.anchor = self.entities.last().copied();
        }
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
