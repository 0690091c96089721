//! Reading the state: registers, values, live and deleted entities, free ids.

use rustc_hash::FxHashSet;

use super::{LwwEntry, Replica, StoredEntry};
use crate::model::{Entity, Transform};

impl Replica {
    /// The register of (entity, component), including tombstones.
    #[inline]
    pub fn lww_entry(&self, entity: Entity, component: u32) -> Option<LwwEntry<'_>> {
        if component == Transform::COMPONENT_ID {
            let row = self.transforms.row(entity)?;
            Some(LwwEntry {
                timestamp: row.timestamp,
                data: row.value().map(|bytes| &bytes[..]),
            })
        } else {
            self.lww
                .get(&component)?
                .get(&entity)
                .map(StoredEntry::view)
        }
    }

    /// Every register of a last-writer-wins component (tombstones included), unordered.
    pub(super) fn registers(&self, component: u32) -> Vec<(Entity, LwwEntry<'_>)> {
        if component == Transform::COMPONENT_ID {
            self.transforms
                .iter()
                .map(|r| {
                    let data = r.value.map(|bytes| &bytes[..]);
                    (
                        r.entity,
                        LwwEntry {
                            timestamp: r.timestamp,
                            data,
                        },
                    )
                })
                .collect()
        } else {
            self.lww.get(&component).map_or_else(Vec::new, |entries| {
                entries
                    .iter()
                    .map(|(e, entry)| (*e, entry.view()))
                    .collect()
            })
        }
    }

    /// The last-writer-wins components with at least one register (tombstones count),
    /// unordered.
    pub(super) fn lww_components(&self) -> impl Iterator<Item = u32> + '_ {
        let transform = (!self.transforms.is_empty()).then_some(Transform::COMPONENT_ID);
        transform.into_iter().chain(self.lww.keys().copied())
    }

    /// The last-writer-wins components holding a value for `entity`, unordered.
    pub(super) fn lww_components_of(&self, entity: Entity) -> impl Iterator<Item = u32> + '_ {
        self.lww_components()
            .filter(move |&c| self.lww_entry(entity, c).is_some_and(|e| e.data.is_some()))
    }

    /// The current value of a last-writer-wins component, if present.
    pub fn component_data(&self, entity: Entity, component: u32) -> Option<&[u8]> {
        self.lww_entry(entity, component)?.data
    }

    /// The Lamport timestamp of a register (0 when never written).
    pub fn timestamp(&self, entity: Entity, component: u32) -> u32 {
        self.lww_entry(entity, component).map_or(0, |e| e.timestamp)
    }

    /// The highest Lamport timestamp this replica holds (0 when empty): how far its clock went.
    pub fn clock(&self) -> u32 {
        let transforms = self.transforms.iter().map(|r| r.timestamp);
        self.lww
            .values()
            .flat_map(|entries| entries.values().map(|e| e.timestamp))
            .chain(transforms)
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
    #[inline]
    pub fn transform(&self, entity: Entity) -> Option<Transform> {
        self.transforms
            .row(entity)?
            .value()
            .map(Transform::from_array)
    }

    /// Like [`Self::transform`] and [`Self::is_live`] at once (`None`: not live; else the
    /// Transform, if any), trying the storage position `hint` first: a position this call
    /// returned for the entity before (`u32::MAX`: none). Returns the position for next time.
    /// A reader that re-reads many entities in its own order saves the index lookup, one
    /// cache miss of two.
    #[inline]
    pub fn read_transform_hinted(
        &self,
        entity: Entity,
        hint: u32,
    ) -> (Option<Option<Transform>>, u32) {
        match self.transforms.row_hinted(entity, hint) {
            Some((row, position)) => match row.value() {
                Some(value) => (Some(Some(Transform::from_array(value))), position),
                None => (self.is_live(entity).then_some(None), position),
            },
            None => (self.is_live(entity).then_some(None), u32::MAX),
        }
    }

    /// Starts loading the Transform register at storage position `hint` (see
    /// [`Self::read_transform_hinted`]).
    #[inline]
    pub fn prefetch_transform_at(&self, hint: u32) {
        self.transforms.prefetch_at(hint);
    }

    /// A cache hint before reading many Transforms in an order that is not the replica's:
    /// starts loading what locates `entity`'s Transform register.
    #[inline]
    pub fn prefetch_transform_lookup(&self, entity: Entity) {
        self.transforms.prefetch_lookup(entity);
    }

    /// A cache hint, after [`Self::prefetch_transform_lookup`]: starts loading `entity`'s
    /// Transform register itself.
    #[inline]
    pub fn prefetch_transform(&self, entity: Entity) {
        self.transforms.prefetch_register(entity);
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
            .lww_components_of(entity)
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
    #[inline]
    pub fn is_deleted(&self, entity: Entity) -> bool {
        !entity.is_reserved()
            && !self.deleted.is_empty()
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
