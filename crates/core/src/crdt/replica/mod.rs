//! One peer's CRDT state: Decentraland's last-writer-wins element sets, grow-only sets and the
//! deleted-entity set, with exactly the rules of `@dcl/ecs` 7.28.0.
//!
//! The replica stores no derived data. It keeps a journal of which entities had a register
//! change so that derived views ([`crate::scene::SceneView`]) update incrementally. Transform
//! registers live in a column of their own (`transforms.rs`), the rest in hash maps.

mod apply;
mod digest;
mod journal;
mod reads;
mod snapshot;
mod store;
mod transforms;
mod unsent;
mod write;

pub use apply::{ApplyOutcome, canonical_transform_bytes, compare_data};
pub use digest::DigestCache;
pub use journal::{Changes, ReplicaVersion};
pub use write::WriteError;

use rustc_hash::FxHashMap;

use crate::model::Entity;

use journal::ChangeJournal;
use transforms::TransformColumn;

/// Most values a grow-only set keeps per entity (the reference's `maxElements`).
pub const GROW_ONLY_MAX_VALUES: usize = 100;

/// One last-writer-wins register as read from a replica: its Lamport timestamp and its value,
/// or a tombstone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LwwEntry<'a> {
    /// The Lamport timestamp of the accepted write.
    pub timestamp: u32,
    /// The serialized value, or `None` once deleted (the timestamp is kept).
    pub data: Option<&'a [u8]>,
}

/// A stored register of a component other than Transform.
#[derive(Clone, Debug, PartialEq, Eq)]
struct StoredEntry {
    timestamp: u32,
    data: Option<Vec<u8>>,
}

impl StoredEntry {
    fn view(&self) -> LwwEntry<'_> {
        LwwEntry {
            timestamp: self.timestamp,
            data: self.data.as_deref(),
        }
    }
}

/// The state of one replica.
#[derive(Clone, Debug, Default)]
pub struct Replica {
    /// The Transform registers (component 1); boxed, so that a replica stays small to move.
    transforms: Box<TransformColumn>,
    /// component id → entity → register, for every other last-writer-wins component.
    lww: FxHashMap<u32, FxHashMap<Entity, StoredEntry>>,
    /// component id → entity → values in the order they were appended (oldest first).
    grow_only: FxHashMap<u32, FxHashMap<Entity, Vec<Vec<u8>>>>,
    /// Entity number → highest deleted version (the reference's version G-set).
    deleted: FxHashMap<u16, u16>,
    /// What the deleted set adds to [`Replica::digest`], kept as it changes.
    deleted_digest: u128,
    /// Entity → number of components holding a value (0 = not present in the scene).
    live_components: FxHashMap<Entity, u32>,
    journal: ChangeJournal,
}

impl Replica {
    /// An empty replica.
    pub fn new() -> Self {
        Self::default()
    }
}
