//! Reading the state: registers, values, live and deleted entities, free ids.

use rustc_hash::FxHashSet;

use super::{LwwEntry, Replica};
use crate::model::{Entity, Transform};

impl Replica {
    /// The register of (entity, component), including tombstones.
    pub fn lww_entry(&self, entity: Entity, component: u32) -> Option<&LwwEntry> {
        self.lww.get(&component)?.get(&entity)
    }

    /// The current value of a last-writer-wins component, if present.
    pub fn component_data(&self, entity: Entity, component: u32) -> Option<&[u8]> {
        self.lww_entry(entity, component)?.data.as_deref()
    }

    /// The Lamport timestamp of a register (0 when never written).
    pub fn timestamp(&self, entity: Entity, component: u32) -> u32 {
        self.lww_entry(entity, component).map_or(0, |e| e.timestamp)
    }

    /// The highest Lamport timestamp this replica holds (0 when empty): how far its clock went.
    pub fn clock(&self) -> u32 {
        self.lww
            .values()
            .flat_map(|entries| entries.values().map(|e| e.timestamp))
            .max()
            .unwrap_or(0)
    }

    /// The values of a grow-only set component for an entity, oldest first.
    pub fn grow_only_values(&self, entity: Entity, component: u32) -> &[Vec<u8>] {
        self.grow_only
            .get(&component)
            .and_then(|rows| rows.get(&entity))
            .map_or(&[], Vec::as_slice)
    }

    /// The entity's Transform, decoded, if it has one.
    pub fn transform(&self, entity: Entity) -> Option<Transform> {
        let bytes = self.component_data(entity, Transform::COMPONENT_ID)?;
        let bytes: &[u8; Transform::BYTE_LEN] =
            bytes.get(..Transform::BYTE_LEN)?.try_into().ok()?;
        Some(Transform::from_array(bytes))
    }

    /// True when the entity has at least one component value.
    pub fn is_live(&self, entity: Entity) -> bool {
        self.live_components.get(&entity).is_some_and(|&n| n > 0)
    }

    /// Every entity with at least one component value (unordered).
    pub fn live_entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.live_components
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(e, _)| *e)
    }

    /// Number of entities with at least one component value.
    pub fn live_entity_count(&self) -> usize {
        self.live_components.len()
    }

    /// The components (ids, ascending) an entity holds values for, both kinds.
    pub fn components_of(&self, entity: Entity) -> Vec<u32> {
        let mut ids: Vec<u32> = self
            .lww
            .iter()
            .filter(|(_, m)| m.get(&entity).is_some_and(|e| e.data.is_some()))
            .map(|(c, _)| *c)
            .chain(
                self.grow_only
                    .iter()
                    .filter(|(_, m)| m.contains_key(&entity))
                    .map(|(c, _)| *c),
            )
            .collect();
        ids.sort_unstable();
        ids
    }

    /// True when this entity's number was deleted at this version or a later one. Reserved
    /// numbers are never tombstoned (as in the reference).
    pub fn is_deleted(&self, entity: Entity) -> bool {
        !entity.is_reserved()
            && self
                .deleted
                .get(&entity.number())
                .is_some_and(|&v| v >= entity.version())
    }

    /// The deleted-entity set: number → highest deleted version, sorted by number.
    pub fn deleted_entities(&self) -> Vec<Entity> {
        let mut out: Vec<Entity> = self
            .deleted
            .iter()
            .map(|(&n, &v)| Entity::from_parts(n, v))
            .collect();
        out.sort_unstable();
        out
    }

    /// The next free scene entity: see [`Self::free_entities`].
    pub fn allocate_entity(&self) -> Option<Entity> {
        self.free_entities(1, |_| false).pop()
    }

    /// `n` entity ids a new entity can take, smallest numbers first: scene numbers (≥ 512)
    /// that hold no component and for which `also_taken` is false (an id still referenced as a
    /// parent, say). A deleted number comes back at its next version, as the runtime reuses
    /// it. Fewer than `n` when the 65,024 scene numbers run out.
    pub fn free_entities(&self, n: usize, also_taken: impl Fn(u16) -> bool) -> Vec<Entity> {
        let live: FxHashSet<u16> = self.live_components.keys().map(|e| e.number()).collect();
        (Entity::FIRST_SCENE_NUMBER..=u16::MAX)
            .filter(|number| !live.contains(number) && !also_taken(*number))
            .filter_map(|number| match self.deleted.get(&number) {
                Some(&u16::MAX) => None, // every version used up
                Some(&v) => Some(Entity::from_parts(number, v + 1)),
                None => Some(Entity::from_parts(number, 0)),
            })
            .take(n)
            .collect()
    }
}
