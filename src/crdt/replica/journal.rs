//! The change journal: which registers changed, read by derived views with a cursor.

use super::Replica;
use crate::model::Entity;

/// Append-only list of changed registers, read by derived views with a cursor.
#[derive(Debug)]
pub(super) struct ChangeJournal {
    /// Unique per replica instance (a clone gets a new one), so a view can tell that the
    /// replica it follows was replaced (a timeline seek, a switched peer) and rebuild.
    id: u64,
    /// Sequence number of `entries[0]`.
    base: u64,
    entries: Vec<(u32, Entity)>,
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
            entries: Vec::new(),
            cloned_from: None,
        }
    }
}

impl Clone for ChangeJournal {
    /// A new instance that starts where the original is: its entries are only what changes
    /// after the clone, so cloning costs nothing however long the original's history.
    fn clone(&self) -> Self {
        let position = self.base + self.entries.len() as u64;
        ChangeJournal {
            id: next_journal_id(),
            base: position,
            entries: Vec::new(),
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

/// What changed since a cursor: the registers, or `None` when the journal was compacted past
/// the cursor and the reader must rebuild from scratch.
pub struct Changes<'a> {
    /// (component, entity) pairs whose value or existence changed, oldest first, with repeats.
    pub entries: Option<&'a [(u32, Entity)]>,
    /// The cursor to pass next time.
    pub next_cursor: u64,
}

impl Replica {
    /// Identifies the replica's current state cheaply. Equal versions mean nothing changed, so
    /// anything derived from the state can be reused.
    pub fn version(&self) -> ReplicaVersion {
        ReplicaVersion {
            instance: self.journal.id,
            position: self.journal.base + self.journal.entries.len() as u64,
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

    /// Changes since `cursor` (0 = from the beginning).
    pub fn changes_since(&self, cursor: u64) -> Changes<'_> {
        let next_cursor = self.journal.base + self.journal.entries.len() as u64;
        // A cursor from before a compaction, or from another replica (past the end), cannot
        // be served: the reader rebuilds.
        let entries = (self.journal.base..=next_cursor)
            .contains(&cursor)
            .then(|| &self.journal.entries[(cursor - self.journal.base) as usize..]);
        Changes {
            entries,
            next_cursor,
        }
    }
}

impl ChangeJournal {
    /// Entries kept before the journal is compacted; readers further behind rebuild.
    const COMPACT_AFTER: usize = 1 << 20;

    pub(super) fn push(&mut self, component: u32, entity: Entity) {
        if self.entries.len() >= Self::COMPACT_AFTER {
            self.base += self.entries.len() as u64;
            self.entries.clear();
        }
        self.entries.push((component, entity));
    }
}
