//! A forest as a plain child → parent map that is kept free of cycles by its users: the
//! effective tree of the history-dependent policies.

use rustc_hash::FxHashMap;

use crate::model::Entity;

/// Effective parents; an entity without an entry is at the root.
#[derive(Clone, Debug, Default)]
pub(super) struct ParentMap {
    parents: FxHashMap<Entity, Entity>,
}

impl ParentMap {
    /// The entity's parent (the root when it has none).
    pub(super) fn get(&self, entity: Entity) -> Entity {
        self.parents.get(&entity).copied().unwrap_or(Entity::ROOT)
    }

    /// Sets the entity's parent; returns the previous one.
    pub(super) fn set(&mut self, entity: Entity, parent: Entity) -> Entity {
        let old = if parent.is_root() {
            self.parents.remove(&entity)
        } else {
            self.parents.insert(entity, parent)
        };
        old.unwrap_or(Entity::ROOT)
    }

    /// True when making `parent` the parent of `entity` would close a cycle: `parent` is
    /// `entity` or one of its descendants. Walks up from `parent`; the map holds no cycle, and
    /// the walk is bounded by its size all the same.
    pub(super) fn would_cycle(&self, entity: Entity, parent: Entity) -> bool {
        let mut at = parent;
        // A path up holds at most one node per entry, then a node without one.
        for _ in 0..self.parents.len() + 2 {
            if at == entity {
                return true;
            }
            if at.is_root() {
                return false;
            }
            at = self.get(at);
        }
        true
    }
}
