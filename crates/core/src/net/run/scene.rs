//! What a player's renderer holds, every component of it: the renderer's stream applied in
//! order, each PUT replacing the last whatever its timestamp, a DELETE_COMPONENT removing one
//! value and a DELETE_ENTITY all of them (the rule of [`crate::net::renderer::RendererState`],
//! which keeps only the Transforms' parents). As a replica it draws like any scene.

use std::collections::BTreeMap;

use crate::crdt::{CrdtMessage, Replica};
use crate::model::{Entity, ids};

/// A renderer's values (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RendererScene {
    /// Entity → component → the last value put.
    values: BTreeMap<Entity, BTreeMap<u32, Vec<u8>>>,
}

impl RendererScene {
    /// Applies one renderer-bound message.
    pub fn apply(&mut self, message: &CrdtMessage) {
        match message {
            CrdtMessage::PutComponent {
                entity,
                component,
                data,
                ..
            } => {
                (self.values.entry(*entity).or_default()).insert(*component, data.clone());
            }
            CrdtMessage::DeleteComponent {
                entity, component, ..
            } => {
                if let Some(values) = self.values.get_mut(entity) {
                    values.remove(component);
                    if values.is_empty() {
                        self.values.remove(entity);
                    }
                }
            }
            CrdtMessage::DeleteEntity { entity } => {
                self.values.remove(entity);
            }
            _ => {}
        }
    }

    /// The entity's value of a component.
    pub fn value(&self, entity: Entity, component: u32) -> Option<&[u8]> {
        self.values.get(&entity)?.get(&component).map(Vec::as_slice)
    }

    /// The declared parent field of the entity's Transform (bytes 40..44 as received).
    pub fn parent(&self, entity: Entity) -> Option<Entity> {
        let data = self.value(entity, ids::TRANSFORM)?;
        let bytes = data.get(40..44)?.first_chunk::<4>()?;
        Some(Entity(u32::from_le_bytes(*bytes)))
    }

    /// Every entity with a Transform and its declared parent, sorted by entity.
    pub fn tree(&self) -> Vec<(Entity, Entity)> {
        (self.values.keys())
            .filter_map(|&e| Some((e, self.parent(e)?)))
            .collect()
    }

    /// Every entity the renderer holds a value of, sorted.
    pub fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.values.keys().copied()
    }

    /// The values as a replica (each at timestamp 1), to derive a render tree from.
    pub fn replica(&self) -> Replica {
        let mut replica = Replica::new();
        for (&entity, values) in &self.values {
            for (&component, data) in values {
                replica.apply(&CrdtMessage::PutComponent {
                    entity,
                    component,
                    timestamp: 1,
                    data: data.clone(),
                });
            }
        }
        replica
    }
}
