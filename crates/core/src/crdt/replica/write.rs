//! Local writes: this peer authors a change and gets the message to broadcast.

use super::Replica;
use super::apply::canonical_transform_bytes;
use crate::crdt::message::CrdtMessage;
use crate::model::{Entity, Transform, component};

/// Why a local write was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The entity number was deleted at this version or a later one.
    #[error("entity {0} was deleted")]
    EntityDeleted(Entity),
    /// Reserved engine entities (numbers below 512) cannot be deleted by a scene.
    #[error("entity {0} is reserved by the engine and cannot be deleted")]
    ReservedEntity(Entity),
    /// A Transform value must be exactly 44 bytes.
    #[error("a Transform value is 44 bytes, got {0}")]
    MalformedTransform(usize),
    /// APPEND is only for grow-only components, PUT only for last-writer-wins ones.
    #[error("component {0} does not take this kind of write")]
    WrongKind(u32),
}

impl Replica {
    /// Sets a component value as a local write: the timestamp becomes the previous one + 1.
    /// Returns the PUT_COMPONENT to broadcast.
    pub fn put(
        &mut self,
        entity: Entity,
        component: u32,
        data: Vec<u8>,
    ) -> Result<CrdtMessage, WriteError> {
        if self.is_deleted(entity) {
            return Err(WriteError::EntityDeleted(entity));
        }
        if component::is_grow_only(component) {
            return Err(WriteError::WrongKind(component));
        }
        let is_transform = component == Transform::COMPONENT_ID;
        if is_transform && data.len() != Transform::BYTE_LEN {
            return Err(WriteError::MalformedTransform(data.len()));
        }
        self.note_entity_used(entity);
        let timestamp = self.timestamp(entity, component).wrapping_add(1);
        let data = if is_transform {
            // The runtime stores the decoded value and sends it re-encoded (NaNs quieted).
            let canonical = canonical_transform_bytes(&data);
            self.store_transform(entity, timestamp, canonical.as_ref());
            canonical.map_or(data, |c| c.to_vec())
        } else {
            self.store(entity, component, timestamp, Some(&data));
            data
        };
        Ok(CrdtMessage::PutComponent {
            entity,
            component,
            timestamp,
            data,
        })
    }

    /// Writes a Transform as a local write.
    pub fn put_transform(
        &mut self,
        entity: Entity,
        transform: &Transform,
    ) -> Result<CrdtMessage, WriteError> {
        self.put(
            entity,
            Transform::COMPONENT_ID,
            transform.to_bytes().to_vec(),
        )
    }

    /// Removes a component as a local write. Returns the DELETE_COMPONENT to broadcast, or
    /// `None` when the component held no value (the reference sends nothing then).
    pub fn delete_component(&mut self, entity: Entity, component: u32) -> Option<CrdtMessage> {
        let entry = self.lww_entry(entity, component)?;
        entry.data?;
        let timestamp = entry.timestamp.wrapping_add(1);
        if component == Transform::COMPONENT_ID {
            self.store_transform(entity, timestamp, None);
        } else {
            self.store(entity, component, timestamp, None);
        }
        Some(CrdtMessage::DeleteComponent {
            entity,
            component,
            timestamp,
        })
    }

    /// Deletes an entity as a local write: a DELETE_COMPONENT for each of its values, then a
    /// DELETE_ENTITY, in the order the reference sends them. An entity already retired here
    /// (a later version of its number was seen) only loses its values: the reference sends no
    /// DELETE_ENTITY for an id it no longer counts as in use.
    pub fn delete_entity(&mut self, entity: Entity) -> Result<Vec<CrdtMessage>, WriteError> {
        if entity.is_reserved() {
            return Err(WriteError::ReservedEntity(entity));
        }
        let already_retired = self.is_deleted(entity);
        let mut out = self.clear_entity_components(entity);
        if !already_retired {
            self.mark_deleted(entity);
            out.push(CrdtMessage::DeleteEntity { entity });
        }
        Ok(out)
    }

    /// Adds a value to a grow-only set component as a local write (timestamp 0, as the
    /// reference sends it).
    pub fn append(
        &mut self,
        entity: Entity,
        component: u32,
        data: Vec<u8>,
    ) -> Result<CrdtMessage, WriteError> {
        if self.is_deleted(entity) {
            return Err(WriteError::EntityDeleted(entity));
        }
        if !component::is_grow_only(component) {
            return Err(WriteError::WrongKind(component));
        }
        self.note_entity_used(entity);
        self.push_value(entity, component, data.clone());
        Ok(CrdtMessage::AppendValue {
            entity,
            component,
            timestamp: 0,
            data,
        })
    }
}
