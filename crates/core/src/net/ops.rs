//! What a player's scene does in a tick (its systems), as data: the writes the model replays.
//!
//! Entities are named so that a run with other deliveries still means the same thing: an entity
//! the scene created is "the scene's k-th entity" (its number depends on what the player had
//! allocated for remote entities before), a remote entity is its network identity, and anything
//! else its number.

use super::components::NetworkIdentity;
use crate::model::{Entity, Transform};

/// An entity as the scene's code holds it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntityRef {
    /// The `k`-th entity this player's scene created with `engine.addEntity()` (from 0). The
    /// first op of a tick naming a new `k` creates it; the entities a tick creates are
    /// allocated together before its ops, and handed out in the order of `k`.
    Scene(u32),
    /// The local entity mapped to this network identity (another player's entity).
    Network(NetworkIdentity),
    /// A fixed number (the root, the player, an entity the scene did not create).
    Local(Entity),
}

/// One write of a scene's tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SceneOp {
    /// `Component.createOrReplace(entity, value)`: the value is sent at the end of the tick even
    /// if unchanged. `unseen` moves the register's timestamp on first by that many sends no
    /// capture shows (writes that went to no transport), so a replay keeps the author's clock.
    Put {
        entity: EntityRef,
        component: u32,
        data: Vec<u8>,
        unseen: u32,
    },
    /// `Component.deleteFrom(entity)` (`unseen` as for `Put`). The delete is sent even when the
    /// entity holds no value: the scene may have created the value earlier in the same tick.
    Delete {
        entity: EntityRef,
        component: u32,
        unseen: u32,
    },
    /// `engine.removeEntity(entity)`.
    Remove { entity: EntityRef },
    /// `syncEntity(entity, components, fixed_id)` of `@dcl/sdk/network`: NetworkEntity
    /// `{entityId: the entity (or fixed_id), networkId: the player's (or 0 with a fixed id)}`
    /// and SyncComponents (the components that never sync left out).
    SyncEntity {
        entity: EntityRef,
        components: Vec<u32>,
        fixed_id: Option<u32>,
    },
    /// `parentEntity(entity, parent)`: NetworkParent = the parent's NetworkEntity, and the
    /// Transform written again (created at identity when missing) so it is sent this tick.
    /// Skipped when the parent is not synced (the SDK throws).
    ParentEntity {
        entity: EntityRef,
        parent: EntityRef,
    },
    /// `removeParent(entity)`: NetworkParent deleted, nothing else. Skipped when the entity is
    /// not synced (the SDK throws).
    RemoveParent { entity: EntityRef },
}

impl SceneOp {
    /// A Transform write (`Transform.createOrReplace`).
    pub fn transform(entity: EntityRef, transform: &Transform) -> SceneOp {
        SceneOp::Put {
            entity,
            component: Transform::COMPONENT_ID,
            data: transform.to_bytes().to_vec(),
            unseen: 0,
        }
    }

    /// Every entity the op names (the parent of `ParentEntity` too).
    pub fn entities(&self) -> impl Iterator<Item = EntityRef> + use<> {
        let parent = match self {
            SceneOp::ParentEntity { parent, .. } => Some(*parent),
            _ => None,
        };
        std::iter::once(self.entity()).chain(parent)
    }

    /// The entity the op names.
    pub fn entity(&self) -> EntityRef {
        match self {
            SceneOp::Put { entity, .. }
            | SceneOp::Delete { entity, .. }
            | SceneOp::Remove { entity }
            | SceneOp::SyncEntity { entity, .. }
            | SceneOp::ParentEntity { entity, .. }
            | SceneOp::RemoveParent { entity } => *entity,
        }
    }
}
