//! What the render tree reads: a source of Transforms with a change journal.

use std::borrow::Cow;

use crate::crdt::{Replica, ReplicaVersion};
use crate::model::entity_index::EntityIndex;
use crate::model::{Entity, Transform};

/// A source of per-entity Transforms that can say what changed since a cursor.
///
/// [`Replica`] is the real one; [`TransformTable`] is a plain map used by benchmarks and tests
/// that need more entities than Decentraland's 65,535 numbers allow.
///
/// `Sync`, because a large update reads the source from several threads at once.
pub trait TransformSource: Sync {
    /// Entities whose Transform or presence may have changed since `cursor` (with repeats), and
    /// the next cursor. `None` means the history is gone: rebuild from [`Self::for_each_live`].
    /// Borrowed when the source keeps exactly that list (no copy of a long journal).
    fn changed_since(&self, cursor: u64) -> (Option<Cow<'_, [Entity]>>, u64);
    /// Identifies the source instance: a view whose cursor came from another instance (the
    /// replica was replaced by a timeline seek, or the view now follows another peer) rebuilds.
    fn source_id(&self) -> u64 {
        0
    }
    /// True when a view that read source `source_id` up to `cursor` can continue here with
    /// [`Self::changed_since`]: the same instance, or (for a replica) a clone made at exactly
    /// that point.
    fn continues(&self, source_id: u64, _cursor: u64) -> bool {
        // Within one instance the journal itself says when a cursor is too old.
        source_id == self.source_id()
    }
    /// The entity's Transform, if it has one.
    fn transform(&self, entity: Entity) -> Option<Transform>;
    /// True when the entity exists (holds at least one component).
    fn is_live(&self, entity: Entity) -> bool;
    /// Calls `f` for every live entity with its Transform, if any.
    fn for_each_live(&self, f: &mut dyn FnMut(Entity, Option<Transform>));
    /// About how many entities [`Self::for_each_live`] lists (0: unknown), so that a rebuild
    /// can size its arrays once instead of growing them by copies.
    fn live_count_hint(&self) -> usize {
        0
    }
    /// Exactly how many entities are live, when the source keeps that count. A reader that
    /// found that many among the entities it already knows can tell that nothing else is live
    /// without looking each changed entity up.
    fn live_count(&self) -> Option<usize> {
        None
    }

    /// Both facts at once: `None` when the entity is not live, else its Transform (if any).
    /// Sources override this when one lookup can answer both.
    fn read(&self, entity: Entity) -> Option<Option<Transform>> {
        self.is_live(entity).then(|| self.transform(entity))
    }

    /// [`Self::read`], trying `hint` first: where the source stored the entity when an earlier
    /// call returned that hint ([`NO_HINT`]: none). Returns the entry and the hint for next
    /// time. A reader that re-reads every entity in its own order keeps the hints, and a
    /// source whose storage positions rarely change then skips the lookup that locates the
    /// value: one cache miss instead of two. Sources without positions just read.
    fn read_hinted(&self, entity: Entity, hint: u32) -> (Option<Option<Transform>>, u32) {
        let _ = hint;
        (self.read(entity), NO_HINT)
    }

    /// Starts loading the value stored at `hint` (see [`Self::read_hinted`]).
    fn prefetch_hinted(&self, hint: u32) {
        let _ = hint;
    }

    /// A hint that `entity` will be read soon. Large updates read the source in an order that
    /// is not its own, so without hints every read waits for memory. They hint each entity
    /// twice: far ahead with [`Prefetch::Lookup`] (sources start loading whatever maps the
    /// entity to its value, an index entry say), then nearer with [`Prefetch::Value`] (that
    /// entry is cached by now: sources look it up and start loading the value itself).
    fn prefetch(&self, entity: Entity, stage: Prefetch) {
        let _ = (entity, stage);
    }
}

/// "No storage position known" for [`TransformSource::read_hinted`].
pub const NO_HINT: u32 = u32::MAX;

/// The two stages of [`TransformSource::prefetch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefetch {
    /// Start loading what locates the entity's value.
    Lookup,
    /// Locate the value (cheap after `Lookup`) and start loading it.
    Value,
}

impl TransformSource for Replica {
    fn source_id(&self) -> u64 {
        self.journal_id()
    }

    fn continues(&self, source_id: u64, cursor: u64) -> bool {
        Replica::continues(
            self,
            ReplicaVersion {
                instance: source_id,
                position: cursor,
            },
        )
    }

    fn changed_since(&self, cursor: u64) -> (Option<Cow<'_, [Entity]>>, u64) {
        let changes = self.changes_since(cursor);
        (changes.entities.map(Cow::Borrowed), changes.next_cursor)
    }

    fn transform(&self, entity: Entity) -> Option<Transform> {
        Replica::transform(self, entity)
    }

    fn is_live(&self, entity: Entity) -> bool {
        Replica::is_live(self, entity)
    }

    #[inline]
    fn read(&self, entity: Entity) -> Option<Option<Transform>> {
        // A Transform value makes the entity live, so the liveness lookup is only needed
        // without one.
        match Replica::transform(self, entity) {
            Some(t) => Some(Some(t)),
            None => Replica::is_live(self, entity).then_some(None),
        }
    }

    #[inline]
    fn read_hinted(&self, entity: Entity, hint: u32) -> (Option<Option<Transform>>, u32) {
        self.read_transform_hinted(entity, hint)
    }

    #[inline]
    fn prefetch_hinted(&self, hint: u32) {
        self.prefetch_transform_at(hint);
    }

    #[inline]
    fn prefetch(&self, entity: Entity, stage: Prefetch) {
        match stage {
            Prefetch::Lookup => self.prefetch_transform_lookup(entity),
            Prefetch::Value => self.prefetch_transform(entity),
        }
    }

    fn live_count_hint(&self) -> usize {
        self.live_entity_count()
    }

    fn live_count(&self) -> Option<usize> {
        Some(self.live_entity_count())
    }

    fn for_each_live(&self, f: &mut dyn FnMut(Entity, Option<Transform>)) {
        for entity in self.live_entities() {
            f(entity, Replica::transform(self, entity));
        }
    }
}

/// One row of a [`TransformTable`]: 64 bytes on a 64-byte boundary, so that reading a row at
/// random costs one cache line, not two.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct TableRow {
    entity: Entity,
    transform: Transform,
}

/// A plain entity → Transform map with a change journal: every entity in it is live and has a
/// Transform. For benchmarks, tests and the naive reference.
///
/// Stored like an ECS table: rows packed in a vector (removal swaps the last row in) and an
/// id → row index, so a scan is sequential and a lookup is an index read plus a row read.
#[derive(Clone, Debug, Default)]
pub struct TransformTable {
    rows: Vec<TableRow>,
    row_of: EntityIndex,
    /// Changed entities since the last [`TransformTable::forget_history`]; entry `i` has
    /// sequence number `journal_base + i`.
    journal: Vec<Entity>,
    journal_base: u64,
}

impl TransformTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets (or adds) an entity's Transform.
    pub fn set(&mut self, entity: Entity, transform: Transform) {
        match self.row_of.get(entity) {
            Some(row) => self.rows[row as usize].transform = transform,
            None => {
                self.row_of.insert(entity, self.rows.len() as u32);
                self.rows.push(TableRow { entity, transform });
            }
        }
        self.journal.push(entity);
    }

    /// Removes an entity entirely.
    pub fn remove(&mut self, entity: Entity) {
        if let Some(row) = self.row_of.remove(entity) {
            self.rows.swap_remove(row as usize);
            if let Some(moved) = self.rows.get(row as usize) {
                self.row_of.insert(moved.entity, row);
            }
        }
        self.journal.push(entity);
    }

    /// The stored Transform.
    #[inline]
    pub fn get(&self, entity: Entity) -> Option<&Transform> {
        let row = self.row_of.get(entity)?;
        Some(&self.rows[row as usize].transform)
    }

    /// Number of entities.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Every (entity, transform), unordered.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, &Transform)> {
        self.rows.iter().map(|row| (row.entity, &row.transform))
    }

    /// Drops the change journal (its memory) while keeping cursors meaningful: a reader that
    /// had caught up sees no changes; one that had not rebuilds. Long benchmark loops call this
    /// so that millions of writes do not accumulate.
    pub fn forget_history(&mut self) {
        self.journal_base += self.journal.len() as u64;
        self.journal.clear();
    }
}

impl TransformSource for TransformTable {
    fn live_count_hint(&self) -> usize {
        self.len()
    }

    fn live_count(&self) -> Option<usize> {
        Some(self.len())
    }

    fn changed_since(&self, cursor: u64) -> (Option<Cow<'_, [Entity]>>, u64) {
        let next = self.journal_base + self.journal.len() as u64;
        let changes = cursor
            .checked_sub(self.journal_base)
            .and_then(|start| self.journal.get(start as usize..))
            .map(Cow::Borrowed);
        (changes, next)
    }

    fn transform(&self, entity: Entity) -> Option<Transform> {
        self.get(entity).copied()
    }

    fn is_live(&self, entity: Entity) -> bool {
        self.row_of.get(entity).is_some()
    }

    #[inline]
    fn read(&self, entity: Entity) -> Option<Option<Transform>> {
        self.get(entity).map(|t| Some(*t))
    }

    #[inline]
    fn read_hinted(&self, entity: Entity, hint: u32) -> (Option<Option<Transform>>, u32) {
        // Rows move only when a removal swaps the last row in: the entity check catches it.
        if let Some(row) = self.rows.get(hint as usize)
            && row.entity == entity
        {
            return (Some(Some(row.transform)), hint);
        }
        match self.row_of.get(entity) {
            Some(r) => (Some(Some(self.rows[r as usize].transform)), r),
            None => (None, NO_HINT),
        }
    }

    #[inline]
    fn prefetch_hinted(&self, hint: u32) {
        if let Some(row) = self.rows.get(hint as usize) {
            crate::model::prefetch(row);
        }
    }

    #[inline]
    fn prefetch(&self, entity: Entity, stage: Prefetch) {
        match stage {
            Prefetch::Lookup => self.row_of.prefetch(entity),
            Prefetch::Value => {
                let row = self
                    .row_of
                    .get(entity)
                    .and_then(|r| self.rows.get(r as usize));
                if let Some(row) = row {
                    crate::model::prefetch(row);
                }
            }
        }
    }

    fn for_each_live(&self, f: &mut dyn FnMut(Entity, Option<Transform>)) {
        for row in &self.rows {
            f(row.entity, Some(row.transform));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_survive_removals_and_the_journal_survives_forgetting() {
        let mut table = TransformTable::new();
        for n in 0..5 {
            table.set(Entity(600 + n), Transform::identity_under(Entity(n)));
        }
        table.remove(Entity(601)); // the last row moves into its place
        table.remove(Entity(999)); // absent: journaled, nothing else
        assert_eq!(table.len(), 4);
        assert_eq!(table.get(Entity(601)), None);
        assert_eq!(table.get(Entity(604)).unwrap().parent, Entity(4));
        assert_eq!(
            table.read(Entity(603)),
            Some(Some(Transform::identity_under(Entity(3))))
        );
        let (changes, cursor) = table.changed_since(0);
        assert_eq!(changes.unwrap().len(), 7);
        table.forget_history();
        assert_eq!(
            table.changed_since(cursor),
            (Some(Cow::Borrowed(&[][..])), cursor)
        );
        assert_eq!(
            table.changed_since(cursor - 1).0,
            None,
            "behind the base: rebuild"
        );
        table.set(Entity(600), Transform::IDENTITY);
        assert_eq!(
            table.changed_since(cursor),
            (Some(Cow::Borrowed(&[Entity(600)][..])), cursor + 1)
        );
    }
}
