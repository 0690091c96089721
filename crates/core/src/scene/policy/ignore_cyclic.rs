//! `IgnoreCyclicChange`: the render tree of one peer, changed write by write in the order the
//! peer applied them; a parent change that would close a cycle is not made.

use rustc_hash::FxHashMap;

use super::parent_map::ParentMap;
use crate::crdt::network::ParentWrite;
use crate::model::Entity;

/// One peer's render tree under unity-renderer's rule.
#[derive(Clone, Debug, Default)]
pub(super) struct IgnoreCyclicState {
    pub(super) tree: ParentMap,
    /// Entities whose declared parent was refused, with that parent, until a later write of
    /// theirs is applied.
    pub(super) refused: FxHashMap<Entity, Entity>,
}

impl IgnoreCyclicState {
    /// Applies one write the peer's replica took (others never reach the render tree). Like
    /// unity-renderer's `ECSTransformHandler`, every Transform update whose parent differs
    /// from the entity's render parent asks for that parent again; it is refused when the
    /// parent is the entity or below it. Returns true when the tree or a refusal changed.
    pub(super) fn apply(&mut self, write: &ParentWrite) -> bool {
        if !write.accepted {
            return false;
        }
        let entity = write.entity;
        let wanted = write.parent();
        if self.tree.get(entity) == wanted {
            return self.refused.remove(&entity).is_some();
        }
        if self.tree.would_cycle(entity, wanted) {
            return self.refused.insert(entity, wanted) != Some(wanted);
        }
        self.tree.set(entity, wanted);
        self.refused.remove(&entity);
        true
    }
}
