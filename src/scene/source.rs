//! What the render tree reads: a source of Transforms with a change journal.

use rustc_hash::FxHashMap;

use crate::crdt::Replica;
use crate::model::{Entity, Transform};

/// A source of per-entity Transforms that can say what changed since a cursor.
///
/// [`Replica`] is the real one; [`TransformTable`] is a plain map used by benchmarks and tests
/// that need more entities than Decentraland's 65,535 numbers allow.
pub trait TransformSource {
    /// Entities whose Transform or presence may have changed since `cursor` (with repeats), and
    /// the next cursor. `None` means the history is gone: rebuild from [`Self::for_each_live`].
    fn changed_since(&self, cursor: u64) -> (Option<Vec<Entity>>, u64);
    /// Identifies the source instance: a view whose cursor came from another instance (the
    /// replica was replaced by a timeline seek, or the view now follows another peer) rebuilds.
    fn source_id(&self) -> u64 {
        0
    }
    /// The entity's Transform, if it has one.
    fn transform(&self, entity: Entity) -> Option<Transform>;
    /// True when the entity exists (holds at least one component).
    fn is_live(&self, entity: Entity) -> bool;
    /// Calls `f` for every live entity with its Transform, if any.
    fn for_each_live(&self, f: &mut dyn FnMut(Entity, Option<Transform>));
}

impl TransformSource for Replica {
    fn source_id(&self) -> u64 {
        self.journal_id()
    }

    fn changed_since(&self, cursor: u64) -> (Option<Vec<Entity>>, u64) {
        let changes = self.changes_since(cursor);
        (
            changes
                .entries
                .map(|e| e.iter().map(|(_, entity)| *entity).collect()),
            changes.next_cursor,
        )
    }

    fn transform(&self, entity: Entity) -> Option<Transform> {
        Replica::transform(self, entity)
    }

    fn is_live(&self, entity: Entity) -> bool {
        Replica::is_live(self, entity)
    }

    fn for_each_live(&self, f: &mut dyn FnMut(Entity, Option<Transform>)) {
        for entity in self.live_entities() {
            f(entity, Replica::transform(self, entity));
        }
    }
}

/// A plain entity → Transform map with a change journal: every entity in it is live and has a
/// Transform. For benchmarks, tests and the naive reference.
#[derive(Clone, Debug, Default)]
pub struct TransformTable {
    transforms: FxHashMap<Entity, Transform>,
    journal: Vec<Entity>,
}

impl TransformTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets (or adds) an entity's Transform.
    pub fn set(&mut self, entity: Entity, transform: Transform) {
        self.transforms.insert(entity, transform);
        self.journal.push(entity);
    }

    /// Removes an entity entirely.
    pub fn remove(&mut self, entity: Entity) {
        self.transforms.remove(&entity);
        self.journal.push(entity);
    }

    /// The stored Transform.
    pub fn get(&self, entity: Entity) -> Option<&Transform> {
        self.transforms.get(&entity)
    }

    /// Number of entities.
    pub fn len(&self) -> usize {
        self.transforms.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.transforms.is_empty()
    }

    /// Every (entity, transform), unordered.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, &Transform)> {
        self.transforms.iter().map(|(e, t)| (*e, t))
    }
}

impl TransformSource for TransformTable {
    fn changed_since(&self, cursor: u64) -> (Option<Vec<Entity>>, u64) {
        let next = self.journal.len() as u64;
        (
            self.journal.get(cursor as usize..).map(<[Entity]>::to_vec),
            next,
        )
    }

    fn transform(&self, entity: Entity) -> Option<Transform> {
        self.transforms.get(&entity).copied()
    }

    fn is_live(&self, entity: Entity) -> bool {
        self.transforms.contains_key(&entity)
    }

    fn for_each_live(&self, f: &mut dyn FnMut(Entity, Option<Transform>)) {
        for (e, t) in &self.transforms {
            f(*e, Some(*t));
        }
    }
}
