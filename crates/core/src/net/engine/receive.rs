//! The start of a tick: the messages received since the last one are applied
//! (`crdtSceneSystem.receiveMessages` of `@dcl/ecs` 7.28.0).
//!
//! For each message, in arrival order: a *_NETWORK message is mapped to the local entity holding
//! the same NetworkEntity, and a pair never seen gets a new local entity (`engine.addEntity()`)
//! holding it; a delete of an entity is kept for the end; anything else is skipped when its
//! entity was deleted, and otherwise goes through last-writer-wins on the sender's timestamp.
//! What is not outdated (accepted, or equal to what is stored) and every delete of an entity
//! is kept to be sent on to the other transports at the end of the tick. Then the deleted entities lose every value, NetworkEntity
//! included, so their network mapping is gone before anything is sent.

use super::super::components::{NetworkIdentity, canonical_value};
use super::super::entities::EntityState;
use super::super::store::Update;
use super::Engine;
use super::messages::{Forward, Received, with_parent};
use crate::crdt::CrdtMessage;
use crate::crdt::replica::canonical_transform_bytes;
use crate::model::{Entity, Transform, ids};

/// What applying one received message did, for the views and the hazards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReceiveNote {
    /// A network pair never seen got a new local entity.
    Mapped {
        entity: Entity,
        identity: NetworkIdentity,
    },
    /// A component message was applied to `entity` with this result; `delete` for a
    /// DELETE_COMPONENT.
    Applied {
        entity: Entity,
        component: u32,
        update: Update,
        delete: bool,
        state_response: Option<u32>,
    },
    /// A message for an entity deleted here was skipped.
    SkippedDeleted { entity: Entity },
    /// A value the runtime cannot decode (it throws and the tick fails); scenetree refuses the
    /// message and goes on.
    Refused {
        entity: Entity,
        component: u32,
        reason: String,
    },
    /// The entity was deleted, with every value it held.
    Deleted { entity: Entity },
}

/// What the runtime keeps of an incoming value: a Transform decoded and re-encoded, the
/// network components through their schemas, anything else as it came.
fn stored_value(component: u32, data: &[u8]) -> Result<Vec<u8>, String> {
    if component == ids::TRANSFORM {
        return canonical_transform_bytes(data)
            .map(|bytes| bytes.to_vec())
            .ok_or_else(|| format!("a Transform is 44 bytes, this one {}", data.len()));
    }
    match canonical_value(component, data) {
        Some(result) => result.map_err(|e| e.to_string()),
        None => Ok(data.to_vec()),
    }
}

impl Engine {
    /// Applies every queued message (see the module docs).
    pub fn receive_messages(&mut self) -> Vec<ReceiveNote> {
        let mut notes = Vec::new();
        let mut deleted = Vec::new();
        for received in std::mem::take(&mut self.received) {
            let mut entity = self.local_entity_of(&received.message);
            if let (None, Some(network_id)) = (entity, received.message.network_id()) {
                let identity = NetworkIdentity::new(network_id, received.message.entity().0);
                // The SDK throws past 65,534 numbers; the message is dropped here instead.
                let Ok(new) = self.entities.generate() else {
                    notes.push(ReceiveNote::Refused {
                        entity: received.message.entity(),
                        component: received.message.component().unwrap_or(0),
                        reason: "no entity number left to map it to".to_string(),
                    });
                    continue;
                };
                self.set_value(new, ids::NETWORK_ENTITY, identity.to_bytes().to_vec());
                notes.push(ReceiveNote::Mapped {
                    entity: new,
                    identity,
                });
                entity = Some(new);
            }
            let entity = entity.unwrap_or(received.message.entity());
            self.receive_one(entity, received, &mut deleted, &mut notes);
        }
        for entity in deleted {
            let components: Vec<u32> = self.stores.iter().map(|s| s.id).collect();
            for component in components {
                self.delete_value(entity, component, true);
            }
            self.entities.update_removed(entity);
            notes.push(ReceiveNote::Deleted { entity });
        }
        notes
    }

    fn receive_one(
        &mut self,
        entity: Entity,
        mut received: Received,
        deleted: &mut Vec<Entity>,
        notes: &mut Vec<ReceiveNote>,
    ) {
        let message = &mut received.message;
        if let CrdtMessage::DeleteEntity { .. } | CrdtMessage::DeleteEntityNetwork { .. } = message
        {
            deleted.push(entity);
            self.broadcast
                .push(Forward::received(received, Some(entity)));
            return;
        }
        match self.entities.state(entity) {
            EntityState::Removed => {
                notes.push(ReceiveNote::SkippedDeleted { entity });
                return;
            }
            EntityState::Unknown => {
                self.entities.update_used(entity);
            }
            EntityState::Used | EntityState::Reserved => {}
        }
        let component = message.component().unwrap_or(0);
        let timestamp = message.timestamp().unwrap_or(0);
        // The renderer-edge rewrite on the way back: a plain Transform PUT for a synced entity
        // with a NetworkParent loses its parent, so every player keeps the sender's raw value.
        if let CrdtMessage::PutComponent { data, .. } = message
            && component == Transform::COMPONENT_ID
            && self.has(entity, ids::NETWORK_ENTITY)
            && self.has(entity, ids::NETWORK_PARENT)
            && let Some(stripped) = with_parent(data, Entity::ROOT)
        {
            *data = stripped.to_vec();
        }
        let message = &received.message;
        let update = match message {
            CrdtMessage::PutComponent { data, .. }
            | CrdtMessage::PutComponentNetwork { data, .. } => {
                let stored = match stored_value(component, data) {
                    Ok(stored) => stored,
                    Err(reason) => {
                        notes.push(ReceiveNote::Refused {
                            entity,
                            component,
                            reason,
                        });
                        return;
                    }
                };
                self.change(entity, component, |s| {
                    s.update_from_crdt(entity, timestamp, Some(data), Some(stored))
                })
            }
            CrdtMessage::DeleteComponent { .. } | CrdtMessage::DeleteComponentNetwork { .. } => {
                self.change(entity, component, |s| {
                    s.update_from_crdt(entity, timestamp, None, None)
                })
            }
            // APPEND_VALUE: the runtime's last-writer-wins components answer it with no
            // conflict, so it is sent on without being stored (grow-only sets are not modelled).
            _ => Update::Accepted,
        };
        let delete = matches!(
            received.message,
            CrdtMessage::DeleteComponent { .. } | CrdtMessage::DeleteComponentNetwork { .. }
        );
        notes.push(ReceiveNote::Applied {
            entity,
            component,
            update,
            delete,
            state_response: received.state_response,
        });
        // Only a conflict (an outdated message) stops here: `updateFromCrdt` answers an equal
        // message with no conflict, so it is sent on like a new one.
        if update != Update::Outdated {
            self.broadcast.push(Forward::received(received, None));
        }
    }
}
