//! Storing: registers, grow-only rows, the deleted set and live counts, journaled.

use super::apply::canonical_transform_bytes;
use super::{GROW_ONLY_MAX_VALUES, Replica, StoredEntry};
use crate::crdt::message::CrdtMessage;
use crate::model::{Entity, Transform};

impl Replica {
    /// Receiving or writing a message for version v retires versions below v of that number.
    pub(super) fn note_entity_used(&mut self, entity: Entity) {
        if entity.version() > 0 && !entity.is_reserved() {
            self.raise_deleted_version(entity.number(), entity.version() - 1);
        }
    }

    pub(super) fn mark_deleted(&mut self, entity: Entity) {
        if !entity.is_reserved() {
            self.raise_deleted_version(entity.number(), entity.version());
        }
    }

    /// Number `number` is deleted up to `version` (versions only grow).
    fn raise_deleted_version(&mut self, number: u16, version: u16) {
        let old = self.deleted.get(&number).copied();
        if old.is_none_or(|old| old < version) {
            self.deleted.insert(number, version);
            self.note_deleted_version(number, old, version);
        }
    }

    /// Removes every component value of `entity` (tombstones keep their timestamps, bumped by
    /// one as the reference's dirty-flush does) and returns the DELETE_COMPONENT messages.
    pub(super) fn clear_entity_components(&mut self, entity: Entity) -> Vec<CrdtMessage> {
        let mut holding: Vec<u32> = self.lww_components_of(entity).collect();
        holding.sort_unstable();
        let mut out = Vec::with_capacity(holding.len());
        for component in holding {
            let timestamp = self.timestamp(entity, component).wrapping_add(1);
            if component == Transform::COMPONENT_ID {
                self.store_transform(entity, timestamp, None);
            } else {
                self.store(entity, component, timestamp, None);
            }
            out.push(CrdtMessage::DeleteComponent {
                entity,
                component,
                timestamp,
            });
        }
        let grow_only: Vec<u32> = self
            .grow_only
            .iter()
            .filter(|(_, rows)| rows.contains_key(&entity))
            .map(|(c, _)| *c)
            .collect();
        for component in grow_only {
            if let Some(rows) = self.grow_only.get_mut(&component) {
                rows.remove(&entity);
            }
            self.adjust_live(entity, -1);
            self.journal.push(entity);
        }
        out
    }

    /// Sets a Transform register (`value` canonical: see `canonical_transform_bytes`) and
    /// journals the change.
    #[inline]
    pub(super) fn store_transform(
        &mut self,
        entity: Entity,
        timestamp: u32,
        value: Option<&[u8; Transform::BYTE_LEN]>,
    ) {
        let had = self.transforms.set(entity, timestamp, value);
        match (had, value.is_some()) {
            (false, true) => self.adjust_live(entity, 1),
            (true, false) => self.adjust_live(entity, -1),
            _ => {}
        }
        self.journal.push(entity);
    }

    /// Sets a register (a Transform goes to [`Self::store_transform`]), reusing the stored value's allocation (most writes replace a value of the same size),
    /// and journals the change.
    pub(super) fn store(
        &mut self,
        entity: Entity,
        component: u32,
        timestamp: u32,
        data: Option<&[u8]>,
    ) {
        use std::collections::hash_map::Entry;
        if component == Transform::COMPONENT_ID {
            // Callers pass values `put` checked (44 bytes); canonical either way.
            let canonical = data.and_then(canonical_transform_bytes);
            return self.store_transform(entity, timestamp, canonical.as_ref());
        }
        let entries = self.lww.entry(component).or_default();
        let had = match entries.entry(entity) {
            Entry::Occupied(mut slot) => {
                let entry = slot.get_mut();
                let had = entry.data.is_some();
                entry.timestamp = timestamp;
                match (&mut entry.data, data) {
                    (Some(old), Some(new)) => {
                        old.clear();
                        old.extend_from_slice(new);
                    }
                    (value, new) => *value = new.map(<[u8]>::to_vec),
                }
                had
            }
            Entry::Vacant(slot) => {
                slot.insert(StoredEntry {
                    timestamp,
                    data: data.map(<[u8]>::to_vec),
                });
                false
            }
        };
        match (had, data.is_some()) {
            (false, true) => self.adjust_live(entity, 1),
            (true, false) => self.adjust_live(entity, -1),
            _ => {}
        }
        self.journal.push(entity);
    }

    pub(super) fn push_value(&mut self, entity: Entity, component: u32, data: Vec<u8>) {
        let row = self
            .grow_only
            .entry(component)
            .or_default()
            .entry(entity)
            .or_default();
        let was_empty = row.is_empty();
        row.push(data);
        if row.len() > GROW_ONLY_MAX_VALUES {
            row.remove(0);
        }
        if was_empty {
            self.adjust_live(entity, 1);
        }
        self.journal.push(entity);
    }

    pub(super) fn adjust_live(&mut self, entity: Entity, delta: i32) {
        let count = self.live_components.entry(entity).or_insert(0);
        *count = count.saturating_add_signed(delta);
        if *count == 0 {
            self.live_components.remove(&entity);
        }
    }
}
