//! The change journal: which entities had a register change, read by derived views with a
//! cursor.

use super::Replica;
use crate::model::Entity;

/// Append-only list of the entities whose registers changed, read by derived views with a
/// cursor. Only entities: readers re-read what they derive from an entity, whichever of its
/// components changed, and half the bytes keep a long journal cheap to scan.
#[derive(Debug)]
pub(super) struct ChangeJournal {
    /// Unique per replica instance (a clone gets a new one), so a view can tell that the
    /// replica it follows was replaced (a timeline seek, a switched peer) and rebuild.
    id: u64,
    /// Sequence number of `entities[0]`.
    base: u64,
    entities: Vec<Entity>,
    /// For a clone, the state of the original it was cloned from: a reader that was up to date
    /// with that state continues with this journal (see [`Replica::continues`]).
    cloned_from: Option<ReplicaVersion>,
}

fn next_journal_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Default for ChangeJournal {
    fn default() -> Self {
        ChangeJournal {
            id: next_journal_id(),
            base: 0,
            entities: Vec::new(),
            cloned_from: None,
        }
    }
}

impl Clone for ChangeJournal {
    /// A new instance that starts where the original is: its entries are only what changes
    /// after the clone, so cloning costs nothing however long the original's history.
    fn clone(&self) -> Self {
        let position = self.base + self.entities.len() as u64;
        ChangeJournal {
            id: next_journal_id(),
            base: position,
            entities: Vec::new(),
            cloned_from: Some(ReplicaVersion {
                instance: self.id,
                position,
            }),
        }
    }
}

/// One state of one replica instance: the instance (a clone, a timeline replay or another
/// peer is another instance) and the position in its change journal. A bare position means
/// nothing across instances (clones start at their original's position), so caches and the
/// unsaved-changes check store this pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReplicaVersion {
    /// The replica instance (its journal id).
    pub instance: u64,
    /// Changes journaled so far (only grows).
    pub position: u64,
}

/// What changed since a cursor: the entities, or `None` when the journal was compacted past
/// the cursor and the reader must rebuild from scratch.
pub struct Changes<'a> {
    /// Entities with a register whose value or existence changed, oldest first, with repeats.
    pub entities: Option<&'a [Entity]>,
    /// The cursor to pass next time.
    pub next_cursor: u64,
}

impl Replica {
    /// Identifies the replica's current state cheaply. Equal versions mean nothing changed, so
    /// anything derived from the state can be reused.
    pub fn version(&self) -> ReplicaVersion {
        ReplicaVersion {
            instance: self.journal.id,
            position: self.journal.base + self.journal.entities.len() as u64,
        }
    }

    /// Identifies this replica instance for change cursors: clones and new replicas differ.
    pub fn journal_id(&self) -> u64 {
        self.journal.id
    }

    /// True when a reader that is up to date with `version` can follow this replica with
    /// [`Self::changes_since`] from `version.position`: the version is this instance's, or it is
    /// exactly the state this replica was cloned from (a clone continues its original's history;
    /// the order explorer clones a replica for every delivery it tries). Otherwise the reader
    /// must rebuild.
    pub fn continues(&self, version: ReplicaVersion) -> bool {
        version.instance == self.journal.id || self.journal.cloned_from == Some(version)
    }

    /// The entities whose registers changed since the replica was at `version` (with repeats),
    /// when this replica continues that one and its journal still reaches back there; `None`:
    /// what was derived from the replica at `version` must be derived again from scratch.
    pub fn entities_changed_since(&self, version: ReplicaVersion) -> Option<&[Entity]> {
        if !self.continues(version) {
            return None;
        }
        self.changes_since(version.position).entities
    }

    /// Changes since `cursor` (0 = from the beginning).
    pub fn changes_since(&self, cursor: u64) -> Changes<'_> {
        let next_cursor = self.journal.base + self.journal.entities.len() as u64;
        // A cursor from before a compaction, or from another replica (past the end), cannot
        // be served: the reader rebuilds.
        let entities = (self.journal.base..=next_cursor)
            .contains(&cursor)
            .then(|| &self.journal.entities[(cursor - self.journal.base) as usize..]);
        Changes {
            entities,
            next_cursor,
        }
    }
}

impl ChangeJournal {
    /// Entries kept before the journal is compacted; readers further behind rebuild.
    const COMPACT_AFTER: usize = 1 << 20;

    pub(super) fn push(&mut self, entity: Entity) {
        if self.entities.len() >= Self::COMPACT_AFTER {
            self.base += self.entities.len() as u64;
            self.entities.clear();
        }
        self.entities.push(entity);
    }
}
