//! The Transform registers (`core::Transform`, component 1), stored apart from the other
//! components: most messages are Transform PUTs and the render tree reads every Transform.
//!
//! An index by entity (an array for Decentraland's 16-bit numbers: no hashing), then one
//! 64-byte row per register holding everything deciding and storing a write touches
//! (timestamp, presence, the 44-byte value), so a write costs one cache line. No allocation
//! per value. Rows are never removed (a tombstone keeps its timestamp), so they never move.

use crate::model::entity_index::EntityIndex;
use crate::model::{Entity, Transform, prefetch};

/// One Transform register as read: the timestamp and, unless deleted, the canonical 44 bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct TransformRegister<'a> {
    pub entity: Entity,
    pub timestamp: u32,
    pub value: Option<&'a [u8; Transform::BYTE_LEN]>,
}

/// A register's row: one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct Row {
    /// The canonical value (meaningless while `present` is false).
    pub value: [u8; Transform::BYTE_LEN],
    pub timestamp: u32,
    /// Whose register this is (so that a reader holding a row position can check it).
    pub entity: Entity,
    pub present: bool,
}

impl Row {
    /// The stored value, unless deleted.
    #[inline]
    pub fn value(&self) -> Option<&[u8; Transform::BYTE_LEN]> {
        self.present.then_some(&self.value)
    }
}

/// Every Transform register, by row in the order they were first written.
#[derive(Clone, Debug, Default)]
pub(super) struct TransformColumn {
    row_of: EntityIndex,
    rows: Vec<Row>,
}

impl TransformColumn {
    fn register(&self, row: usize) -> TransformRegister<'_> {
        let r = &self.rows[row];
        TransformRegister {
            entity: r.entity,
            timestamp: r.timestamp,
            value: r.value(),
        }
    }

    /// The row of `entity`, if it was ever written.
    #[inline]
    pub fn row(&self, entity: Entity) -> Option<&Row> {
        let row = self.row_of.get(entity)? as usize;
        self.rows.get(row)
    }

    /// The row of `entity` and its position, trying position `hint` first (a position an
    /// earlier call returned: rows never move, so it is right unless the hint came from
    /// elsewhere).
    #[inline]
    pub fn row_hinted(&self, entity: Entity, hint: u32) -> Option<(&Row, u32)> {
        if let Some(row) = self.rows.get(hint as usize)
            && row.entity == entity
        {
            return Some((row, hint));
        }
        let position = self.row_of.get(entity)?;
        Some((&self.rows[position as usize], position))
    }

    /// Starts loading the row at position `hint` (see [`Self::row_hinted`]).
    #[inline]
    pub fn prefetch_at(&self, hint: u32) {
        if let Some(row) = self.rows.get(hint as usize) {
            prefetch(row);
        }
    }

    /// The row of `entity`, created (no value, timestamp 0) if it was never written.
    #[inline]
    pub fn row_mut(&mut self, entity: Entity) -> &mut Row {
        let row = match self.row_of.get(entity) {
            Some(row) => row as usize,
            None => {
                self.row_of.insert(entity, self.rows.len() as u32);
                self.rows.push(Row {
                    value: [0; Transform::BYTE_LEN],
                    timestamp: 0,
                    entity,
                    present: false,
                });
                self.rows.len() - 1
            }
        };
        &mut self.rows[row]
    }

    /// Sets a register (creating it if needed); returns whether it held a value before.
    #[inline]
    pub fn set(
        &mut self,
        entity: Entity,
        timestamp: u32,
        value: Option<&[u8; Transform::BYTE_LEN]>,
    ) -> bool {
        let row = self.row_mut(entity);
        let had = std::mem::replace(&mut row.present, value.is_some());
        row.timestamp = timestamp;
        if let Some(value) = value {
            row.value = *value;
        }
        had
    }

    /// Every register, in first-write order.
    pub fn iter(&self) -> impl Iterator<Item = TransformRegister<'_>> {
        (0..self.rows.len()).map(|row| self.register(row))
    }

    /// True when no Transform was ever written.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Starts loading the index cell of `entity` (see [`prefetch`]).
    #[inline]
    pub fn prefetch_lookup(&self, entity: Entity) {
        self.row_of.prefetch(entity);
    }

    /// Starts loading the register of `entity` (its index cell should be cached): everything
    /// reading or writing it touches.
    #[inline]
    pub fn prefetch_register(&self, entity: Entity) {
        if let Some(row) = self
            .row_of
            .get(entity)
            .and_then(|r| self.rows.get(r as usize))
        {
            prefetch(row);
        }
    }
}
