//! Entity → row (or slot) lookup for the replica's Transform registers and the render tree's
//! nodes, without hashing in the common case.
//!
//! Decentraland ids are small (a 16-bit number, and a version that only grows when a number is
//! reused), so a plain array indexed by id answers almost every lookup with one load. Ids that
//! would make the array too large or too sparse go to a hash map instead.

use rustc_hash::FxHashMap;

use crate::model::Entity;

/// Marks an empty array cell.
const EMPTY: u32 = u32::MAX;
/// Ids below this may live in the array (at most 8 MiB of `u32`).
const DENSE_LIMIT: usize = 1 << 21;
/// The array may always cover this many ids, however few entities there are (256 KiB: every
/// version-0 id of Decentraland's 16-bit numbers).
const DENSE_FLOOR: usize = 1 << 16;
/// Beyond the floor, the array covers at most this many ids per stored entity.
const DENSE_SPREAD: usize = 8;

/// A map from entity id to a `u32` position (a row, a slot).
#[derive(Clone, Debug, Default)]
pub(crate) struct EntityIndex {
    dense: Vec<u32>,
    sparse: FxHashMap<Entity, u32>,
    len: usize,
}

impl EntityIndex {
    /// Number of entities stored.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Forgets every entry (keeps the memory).
    pub(crate) fn clear(&mut self) {
        self.dense.fill(EMPTY);
        self.sparse.clear();
        self.len = 0;
    }

    /// The position of `entity`, if stored.
    #[inline]
    pub(crate) fn get(&self, entity: Entity) -> Option<u32> {
        match self.dense.get(entity.0 as usize) {
            Some(&slot) => (slot != EMPTY).then_some(slot),
            None if self.sparse.is_empty() => None,
            None => self.sparse.get(&entity).copied(),
        }
    }

    /// Starts loading the array cell of `entity` into the cache (see [`super::prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self, entity: Entity) {
        if let Some(cell) = self.dense.get(entity.0 as usize) {
            crate::model::prefetch(cell);
        }
    }

    /// Stores (or replaces) the position of `entity`.
    pub(crate) fn insert(&mut self, entity: Entity, slot: u32) {
        debug_assert_ne!(slot, EMPTY);
        let id = entity.0 as usize;
        if id >= self.dense.len() && id < DENSE_LIMIT && id < self.dense_budget() {
            self.grow_dense(id + 1);
        }
        let previous = match self.dense.get_mut(id) {
            Some(cell) => std::mem::replace(cell, slot),
            None => self.sparse.insert(entity, slot).unwrap_or(EMPTY),
        };
        if previous == EMPTY {
            self.len += 1;
        }
    }

    /// Moves a stored `entity` to `slot` (a renumbering: no growth, no count to keep). Returns
    /// false, changing nothing, when `entity` is not stored.
    #[inline]
    pub(crate) fn move_stored(&mut self, entity: Entity, slot: u32) -> bool {
        debug_assert_ne!(slot, EMPTY);
        let cell = match self.dense.get_mut(entity.0 as usize) {
            Some(cell) if *cell != EMPTY => cell,
            Some(_) => return false,
            None => match self.sparse.get_mut(&entity) {
                Some(cell) => cell,
                None => return false,
            },
        };
        *cell = slot;
        true
    }

    /// Removes `entity`; returns its position.
    pub(crate) fn remove(&mut self, entity: Entity) -> Option<u32> {
        let removed = match self.dense.get_mut(entity.0 as usize) {
            Some(cell) => Some(std::mem::replace(cell, EMPTY)).filter(|&s| s != EMPTY),
            None => self.sparse.remove(&entity),
        };
        if removed.is_some() {
            self.len -= 1;
        }
        removed
    }

    /// How far the array may reach for the current number of entities.
    fn dense_budget(&self) -> usize {
        DENSE_FLOOR.max((self.len + 1) * DENSE_SPREAD)
    }

    /// Grows the array to cover at least `min_len` ids (doubling), moving the sparse entries it
    /// now covers.
    fn grow_dense(&mut self, min_len: usize) {
        let new_len = min_len
            .max(self.dense.len() * 2)
            .clamp(DENSE_FLOOR.min(DENSE_LIMIT), DENSE_LIMIT);
        self.dense.resize(new_len, EMPTY);
        if !self.sparse.is_empty() {
            let dense = &mut self.dense;
            self.sparse
                .retain(|entity, slot| match dense.get_mut(entity.0 as usize) {
                    Some(cell) => {
                        *cell = *slot;
                        false
                    }
                    None => true,
                });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_a_stored_entity_renumbers_it_and_an_unknown_one_is_refused() {
        let mut index = EntityIndex::default();
        index.insert(Entity(512), 1);
        index.insert(Entity(0xFFFF_FFFF), 2); // beyond the array: in the map
        assert!(index.move_stored(Entity(512), 7));
        assert!(index.move_stored(Entity(0xFFFF_FFFF), 8));
        assert!(!index.move_stored(Entity(513), 9));
        assert!(!index.move_stored(Entity(0xFFFF_FFFE), 9));
        assert_eq!(index.get(Entity(512)), Some(7));
        assert_eq!(index.get(Entity(0xFFFF_FFFF)), Some(8));
        assert_eq!((index.get(Entity(513)), index.len()), (None, 2));
    }

    #[test]
    fn small_and_huge_ids_both_round_trip() {
        let mut index = EntityIndex::default();
        let ids = [
            0u32,
            512,
            65_535,
            512 | 3 << 16,
            0xFFFF_FFFF,
            1 << 21,
            (1 << 21) - 1,
        ];
        for (slot, &id) in ids.iter().enumerate() {
            index.insert(Entity(id), slot as u32);
        }
        assert_eq!(index.len(), ids.len());
        for (slot, &id) in ids.iter().enumerate() {
            assert_eq!(index.get(Entity(id)), Some(slot as u32), "id {id}");
        }
        assert_eq!(index.get(Entity(513)), None);
        assert_eq!(index.get(Entity(0xFFFF_FFFE)), None);
        assert_eq!(index.remove(Entity(0xFFFF_FFFF)), Some(4));
        assert_eq!(index.remove(Entity(512)), Some(1));
        assert_eq!(index.remove(Entity(512)), None);
        assert_eq!(index.get(Entity(512)), None);
        assert_eq!(index.len(), ids.len() - 2);
    }

    #[test]
    fn sparse_entries_move_into_the_array_when_it_grows() {
        let mut index = EntityIndex::default();
        // Far beyond the floor with one entity: goes to the hash map.
        index.insert(Entity(1_000_000), 7);
        assert!(index.dense.len() <= DENSE_FLOOR);
        assert_eq!(index.sparse.len(), 1);
        // Many entities: the budget allows the array to reach that id, and the entry moves.
        for i in 0..200_000u32 {
            index.insert(Entity(i + 1), i + 8);
        }
        index.insert(Entity(1_000_001), 3);
        assert!(
            index.sparse.is_empty(),
            "every id is now below the array's end"
        );
        assert_eq!(index.get(Entity(1_000_000)), Some(7));
        assert_eq!(index.get(Entity(1_000_001)), Some(3));
        assert_eq!(index.len(), 200_002);
    }

    #[test]
    fn replacing_a_slot_keeps_the_count() {
        let mut index = EntityIndex::default();
        index.insert(Entity(600), 1);
        index.insert(Entity(600), 2);
        index.insert(Entity(u32::MAX - 1), 3);
        index.insert(Entity(u32::MAX - 1), 4);
        assert_eq!(index.len(), 2);
        assert_eq!(index.get(Entity(600)), Some(2));
        assert_eq!(index.get(Entity(u32::MAX - 1)), Some(4));
        index.clear();
        assert_eq!(index.len(), 0);
        assert_eq!(index.get(Entity(600)), None);
    }
}
