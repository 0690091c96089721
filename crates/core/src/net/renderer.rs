//! What a player's renderer holds, as the oracle defines it: the renderer's stream applied in
//! order, each Transform PUT replacing the last (whatever its timestamp), a DELETE_COMPONENT of
//! Transform or a DELETE_ENTITY removing it. Explorers differ in how they treat timestamps
//! and deleted entities; this is what the scene *told* its renderer.

use rustc_hash::FxHashMap;

use crate::crdt::CrdtMessage;
use crate::model::{Entity, Transform};

/// The Transforms a renderer was last told (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RendererState {
    /// Entity → the declared parent of its Transform (`None` when too short to hold one).
    transforms: FxHashMap<Entity, Option<Entity>>,
}

impl RendererState {
    /// Applies one renderer-bound message.
    pub fn apply(&mut self, message: &CrdtMessage) {
        match message {
            CrdtMessage::PutComponent {
                entity,
                component: Transform::COMPONENT_ID,
                data,
                ..
            } => {
                let parent = data
                    .get(40..44)
                    .and_then(|b| b.first_chunk::<4>())
                    .map(|b| Entity(u32::from_le_bytes(*b)));
                self.transforms.insert(*entity, parent);
            }
            CrdtMessage::DeleteComponent {
                entity,
                component: Transform::COMPONENT_ID,
                ..
            }
            | CrdtMessage::DeleteEntity { entity } => {
                self.transforms.remove(entity);
            }
            _ => {}
        }
    }

    /// True when the renderer holds a Transform for `entity`.
    pub fn has_transform(&self, entity: Entity) -> bool {
        self.transforms.contains_key(&entity)
    }

    /// The declared parent field of the entity's Transform (bytes 40..44 as received).
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        self.transforms.get(&entity).copied().flatten()
    }

    /// Every entity with a Transform and its declared parent, sorted by entity (entities whose
    /// Transform is too short to hold a parent are left out).
    pub fn tree(&self) -> Vec<(Entity, Entity)> {
        let mut tree: Vec<_> = self
            .transforms
            .keys()
            .filter_map(|&e| Some((e, self.parent(e)?)))
            .collect();
        tree.sort_unstable();
        tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(entity: u32, parent: u32, timestamp: u32) -> CrdtMessage {
        let transform = Transform::identity_under(Entity(parent));
        CrdtMessage::put_transform(Entity(entity), timestamp, &transform)
    }

    #[test]
    fn the_last_message_wins_whatever_its_timestamp() {
        let mut renderer = RendererState::default();
        renderer.apply(&put(512, 0, 5));
        renderer.apply(&put(512, 513, 2));
        renderer.apply(&put(514, 512, 1));
        renderer.apply(&CrdtMessage::DeleteEntity {
            entity: Entity(514),
        });
        assert_eq!(renderer.tree(), [(Entity(512), Entity(513))]);
        renderer.apply(&put(514, 0, 1));
        assert_eq!(renderer.tree().len(), 2);
    }
}
