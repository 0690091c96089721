//! The Transform registers (`core::Transform`, component 1), stored apart from the other
//! components: most messages are Transform PUTs and the render tree reads every Transform.
//!
//! An index by entity (an array for Decentraland's 16-bit numbers: no hashing), then columns
//! by row: what deciding a write needs (timestamp, presence: a few bytes per entity, so they
//! stay in the cache for a whole scene) apart from the 44-byte values (written, and read by
//! the render tree). No allocation per value. Rows are never removed (a tombstone keeps its
//! timestamp), so they never move.

use crate::model::entity_index::EntityIndex;
use crate::model::{Entity, Transform, prefetch};

/// One Transform register as read: the timestamp and, unless deleted, the canonical 44 bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct TransformRegister<'a> {
    pub entity: Entity,
    pub timestamp: u32,
    pub value: Option<&'a [u8; Transform::BYTE_LEN]>,
}

/// Every Transform register, by row in the order they were first written.
#[derive(Clone, Debug, Default)]
pub(super) struct TransformColumn {
    row_of: EntityIndex,
    entities: Vec<Entity>,
    timestamps: Vec<u32>,
    present: Vec<bool>,
    values: Vec<[u8; Transform::BYTE_LEN]>,
}

impl TransformColumn {
    fn register(&self, row: usize) -> TransformRegister<'_> {
        TransformRegister {
            entity: self.entities[row],
            timestamp: self.timestamps[row],
            value: self.present[row].then(|| &self.values[row]),
        }
    }

    /// The register of `entity`, if it was ever written.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<TransformRegister<'_>> {
        let row = self.row_of.get(entity)? as usize;
        Some(self.register(row))
    }

    /// Sets a register (creating it if needed); returns whether it held a value before.
    #[inline]
    pub fn set(
        &mut self,
        entity: Entity,
        timestamp: u32,
        value: Option<&[u8; Transform::BYTE_LEN]>,
    ) -> bool {
        let row = match self.row_of.get(entity) {
            Some(row) => row as usize,
            None => {
                self.row_of.insert(entity, self.entities.len() as u32);
                self.entities.push(entity);
                self.timestamps.push(timestamp);
                self.present.push(false);
                self.values.push([0; Transform::BYTE_LEN]);
                self.entities.len() - 1
            }
        };
        let had = std::mem::replace(&mut self.present[row], value.is_some());
        self.timestamps[row] = timestamp;
        if let Some(value) = value {
            self.values[row] = *value;
        }
        had
    }

    /// Every register, in first-write order.
    pub fn iter(&self) -> impl Iterator<Item = TransformRegister<'_>> {
        (0..self.entities.len()).map(|row| self.register(row))
    }

    /// True when no Transform was ever written.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// Starts loading the index cell of `entity` (see [`prefetch`]).
    #[inline]
    pub fn prefetch_lookup(&self, entity: Entity) {
        self.row_of.prefetch(entity);
    }

    /// Starts loading the value of `entity` (its index cell should be cached).
    #[inline]
    pub fn prefetch_value(&self, entity: Entity) {
        if let Some(value) = self
            .row_of
            .get(entity)
            .and_then(|r| self.values.get(r as usize))
        {
            prefetch(value);
        }
    }

    /// Starts loading everything a write to `entity` touches (its index cell should be
    /// cached): timestamp, presence and value.
    #[inline]
    pub fn prefetch_register(&self, entity: Entity) {
        if let Some(row) = self.row_of.get(entity) {
            let row = row as usize;
            if let (Some(t), Some(p), Some(v)) = (
                self.timestamps.get(row),
                self.present.get(row),
                self.values.get(row),
            ) {
                prefetch(t);
                prefetch(p);
                prefetch(v);
            }
        }
    }
}
