//! One peer's CRDT state: Decentraland's last-writer-wins element sets, grow-only sets and the
//! deleted-entity set, with exactly the rules of `@dcl/ecs` 7.28.0.
//!
//! The replica stores no derived data. It keeps a journal of which (component, entity) registers
//! changed so that derived views ([`crate::scene::SceneView`]) update incrementally.

use std::cmp::Ordering;

use rustc_hash::{FxHashMap, FxHashSet};

use super::message::CrdtMessage;
use crate::model::{Entity, Transform, component};

/// Most values a grow-only set keeps per entity (the reference's `maxElements`).
pub const GROW_ONLY_MAX_VALUES: usize = 100;

/// One last-writer-wins register: its Lamport timestamp and its value, or a tombstone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LwwEntry {
    /// The Lamport timestamp of the accepted write.
    pub timestamp: u32,
    /// The serialized value, or `None` once deleted (the timestamp is kept).
    pub data: Option<Vec<u8>>,
}

/// What applying one message did, in the terms of the reference's `ProcessMessageResultType`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApplyOutcome {
    /// Newer timestamp (or nothing stored): the state changed.
    AcceptedNewer,
    /// Equal timestamps and the incoming data is greater: the state changed.
    AcceptedGreaterData,
    /// Older timestamp: ignored; `reply` carries our state back to the outdated sender.
    IgnoredOlder { reply: CrdtMessage },
    /// Equal timestamps and our data is greater: ignored; `reply` corrects the sender.
    IgnoredSmallerData { reply: CrdtMessage },
    /// Equal timestamp and equal data, or a delete of nothing: nothing to do.
    IgnoredEqual,
    /// The entity's number was deleted at this version or a later one.
    IgnoredDeletedEntity,
    /// A PUT/DELETE for a grow-only set, or an APPEND for a last-writer-wins component: the
    /// reference ignores it without an answer.
    IgnoredWrongKind,
    /// A Transform PUT shorter than 44 bytes. (The reference throws while decoding it; we
    /// refuse the message and leave the state alone.)
    RejectedMalformedTransform { length: usize },
    /// A value was added to a grow-only set.
    Appended,
    /// DELETE_ENTITY: its components were removed. `announcements` are the DELETE_COMPONENT
    /// messages (timestamps bumped) that the runtime then broadcasts for each removed component.
    EntityDeleted { announcements: Vec<CrdtMessage> },
}

impl ApplyOutcome {
    /// True when the message changed the state.
    pub fn changed_state(&self) -> bool {
        matches!(
            self,
            Self::AcceptedNewer
                | Self::AcceptedGreaterData
                | Self::Appended
                | Self::EntityDeleted { .. }
        )
    }

    /// The message to send back to the sender, if the protocol answers one.
    pub fn reply(&self) -> Option<&CrdtMessage> {
        match self {
            Self::IgnoredOlder { reply } | Self::IgnoredSmallerData { reply } => Some(reply),
            _ => None,
        }
    }

    /// A short name for logs and the peers panel.
    pub fn label(&self) -> &'static str {
        match self {
            Self::AcceptedNewer => "accepted (newer timestamp)",
            Self::AcceptedGreaterData => "accepted (equal timestamp, greater data)",
            Self::IgnoredOlder { .. } => "ignored (older timestamp), replied",
            Self::IgnoredSmallerData { .. } => "ignored (equal timestamp, smaller data), replied",
            Self::IgnoredEqual => "ignored (same state)",
            Self::IgnoredDeletedEntity => "ignored (entity deleted)",
            Self::IgnoredWrongKind => "ignored (wrong component kind)",
            Self::RejectedMalformedTransform { .. } => "rejected (malformed Transform)",
            Self::Appended => "appended",
            Self::EntityDeleted { .. } => "entity deleted",
        }
    }
}

/// Why a local write was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The entity number was deleted at this version or a later one.
    #[error("entity {0} was deleted")]
    EntityDeleted(Entity),
    /// Reserved engine entities (numbers below 512) cannot be deleted by a scene.
    #[error("entity {0} is reserved by the engine and cannot be deleted")]
    ReservedEntity(Entity),
    /// A Transform value must be exactly 44 bytes.
    #[error("a Transform value is 44 bytes, got {0}")]
    MalformedTransform(usize),
    /// APPEND is only for grow-only components, PUT only for last-writer-wins ones.
    #[error("component {0} does not take this kind of write")]
    WrongKind(u32),
}

/// The state of one replica.
#[derive(Clone, Debug, Default)]
pub struct Replica {
    /// component id → entity → register.
    lww: FxHashMap<u32, FxHashMap<Entity, LwwEntry>>,
    /// component id → entity → values in the order they were appended (oldest first).
    grow_only: FxHashMap<u32, FxHashMap<Entity, Vec<Vec<u8>>>>,
    /// Entity number → highest deleted version (the reference's version G-set).
    deleted: FxHashMap<u16, u16>,
    /// Entity → number of components holding a value (0 = not present in the scene).
    live_components: FxHashMap<Entity, u32>,
    journal: ChangeJournal,
}

/// Append-only list of changed registers, read by derived views with a cursor.
#[derive(Debug)]
struct ChangeJournal {
    /// Unique per replica instance (a clone gets a new one), so a view can tell that the
    /// replica it follows was replaced (a timeline seek, a switched peer) and rebuild.
    id: u64,
    /// Sequence number of `entries[0]`.
    base: u64,
    entries: Vec<(u32, Entity)>,
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
        }
    }
}

impl Clone for ChangeJournal {
    fn clone(&self) -> Self {
        ChangeJournal {
            id: next_journal_id(),
            base: self.base,
            entries: self.entries.clone(),
        }
    }
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
    /// An empty replica.
    pub fn new() -> Self {
        Self::default()
    }

    // ----- reading -------------------------------------------------------------------------

    /// The register of (entity, component), including tombstones.
    pub fn lww_entry(&self, entity: Entity, component: u32) -> Option<&LwwEntry> {
        self.lww.get(&component)?.get(&entity)
    }

    /// The current value of a last-writer-wins component, if present.
    pub fn component_data(&self, entity: Entity, component: u32) -> Option<&[u8]> {
        self.lww_entry(entity, component)?.data.as_deref()
    }

    /// The Lamport timestamp of a register (0 when never written).
    pub fn timestamp(&self, entity: Entity, component: u32) -> u32 {
        self.lww_entry(entity, component).map_or(0, |e| e.timestamp)
    }

    /// The highest Lamport timestamp this replica holds (0 when empty): how far its clock went.
    pub fn clock(&self) -> u32 {
        self.lww
            .values()
            .flat_map(|entries| entries.values().map(|e| e.timestamp))
            .max()
            .unwrap_or(0)
    }

    /// Identifies the replica's current state cheaply: (instance, journal position). Equal
    /// versions mean nothing changed, so anything derived from the state can be reused.
    pub fn version(&self) -> (u64, u64) {
        (
            self.journal.id,
            self.journal.base + self.journal.entries.len() as u64,
        )
    }

    /// The values of a grow-only set component for an entity, oldest first.
    pub fn grow_only_values(&self, entity: Entity, component: u32) -> &[Vec<u8>] {
        self.grow_only
            .get(&component)
            .and_then(|rows| rows.get(&entity))
            .map_or(&[], Vec::as_slice)
    }

    /// The entity's Transform, decoded, if it has one.
    pub fn transform(&self, entity: Entity) -> Option<Transform> {
        let bytes = self.component_data(entity, Transform::COMPONENT_ID)?;
        let bytes: &[u8; Transform::BYTE_LEN] =
            bytes.get(..Transform::BYTE_LEN)?.try_into().ok()?;
        Some(Transform::from_array(bytes))
    }

    /// Every entity with a Transform value, with its raw bytes (44 bytes each).
    pub fn transforms(&self) -> impl Iterator<Item = (Entity, &[u8])> {
        self.lww
            .get(&Transform::COMPONENT_ID)
            .into_iter()
            .flat_map(|m| {
                m.iter()
                    .filter_map(|(e, entry)| Some((*e, entry.data.as_deref()?)))
            })
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
            .lww
            .iter()
            .filter(|(_, m)| m.get(&entity).is_some_and(|e| e.data.is_some()))
            .map(|(c, _)| *c)
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
    pub fn is_deleted(&self, entity: Entity) -> bool {
        !entity.is_reserved()
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

    /// Identifies this replica instance for change cursors: clones and new replicas differ.
    pub fn journal_id(&self) -> u64 {
        self.journal.id
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

    // ----- local writes (this peer authors a change) ----------------------------------------

    /// Sets a component value as a local write: the timestamp becomes the previous one + 1.
    /// Returns the PUT_COMPONENT to broadcast.
    pub fn put(
        &mut self,
        entity: Entity,
        component: u32,
        data: Vec<u8>,
    ) -> Result<CrdtMessage, WriteError> {
        if self.is_deleted(entity) {
            return Err(WriteError::EntityDeleted(entity));
        }
        if component::is_grow_only(component) {
            return Err(WriteError::WrongKind(component));
        }
        let data = if component == Transform::COMPONENT_ID {
            if data.len() != Transform::BYTE_LEN {
                return Err(WriteError::MalformedTransform(data.len()));
            }
            // The runtime stores the decoded value and sends it re-encoded (NaNs quieted).
            canonical_transform_bytes(&data).to_vec()
        } else {
            data
        };
        self.note_entity_used(entity);
        let timestamp = self.timestamp(entity, component).wrapping_add(1);
        self.store(entity, component, timestamp, Some(&data));
        Ok(CrdtMessage::PutComponent {
            entity,
            component,
            timestamp,
            data,
        })
    }

    /// Writes a Transform as a local write.
    pub fn put_transform(
        &mut self,
        entity: Entity,
        transform: &Transform,
    ) -> Result<CrdtMessage, WriteError> {
        self.put(
            entity,
            Transform::COMPONENT_ID,
            transform.to_bytes().to_vec(),
        )
    }

    /// Removes a component as a local write. Returns the DELETE_COMPONENT to broadcast, or
    /// `None` when the component held no value (the reference sends nothing then).
    pub fn delete_component(&mut self, entity: Entity, component: u32) -> Option<CrdtMessage> {
        let entry = self.lww.get(&component)?.get(&entity)?;
        entry.data.as_ref()?;
        let timestamp = entry.timestamp.wrapping_add(1);
        self.store(entity, component, timestamp, None);
        Some(CrdtMessage::DeleteComponent {
            entity,
            component,
            timestamp,
        })
    }

    /// Deletes an entity as a local write: a DELETE_COMPONENT for each of its values, then a
    /// DELETE_ENTITY, in the order the reference sends them. An entity already retired here
    /// (a later version of its number was seen) only loses its values: the reference sends no
    /// DELETE_ENTITY for an id it no longer counts as in use.
    pub fn delete_entity(&mut self, entity: Entity) -> Result<Vec<CrdtMessage>, WriteError> {
        if entity.is_reserved() {
            return Err(WriteError::ReservedEntity(entity));
        }
        let already_retired = self.is_deleted(entity);
        let mut out = self.clear_entity_components(entity);
        if !already_retired {
            self.mark_deleted(entity);
            out.push(CrdtMessage::DeleteEntity { entity });
        }
        Ok(out)
    }

    /// Adds a value to a grow-only set component as a local write (timestamp 0, as the
    /// reference sends it).
    pub fn append(
        &mut self,
        entity: Entity,
        component: u32,
        data: Vec<u8>,
    ) -> Result<CrdtMessage, WriteError> {
        if self.is_deleted(entity) {
            return Err(WriteError::EntityDeleted(entity));
        }
        if !component::is_grow_only(component) {
            return Err(WriteError::WrongKind(component));
        }
        self.note_entity_used(entity);
        self.push_value(entity, component, data.clone());
        Ok(CrdtMessage::AppendValue {
            entity,
            component,
            timestamp: 0,
            data,
        })
    }

    // ----- remote messages -----------------------------------------------------------------

    /// Applies a message received from another peer, with the reference's rules.
    ///
    /// *_NETWORK messages are applied to the entity they name: scenetree's peers share one
    /// entity space, so the network-id indirection of Decentraland's comms layer (which maps
    /// a remote entity to a locally allocated one) is not simulated.
    pub fn apply(&mut self, msg: &CrdtMessage) -> ApplyOutcome {
        match msg {
            CrdtMessage::DeleteEntity { entity }
            | CrdtMessage::DeleteEntityNetwork { entity, .. } => {
                let announcements = self.clear_entity_components(*entity);
                self.mark_deleted(*entity);
                ApplyOutcome::EntityDeleted { announcements }
            }
            CrdtMessage::PutComponent {
                entity,
                component,
                timestamp,
                data,
            }
            | CrdtMessage::PutComponentNetwork {
                entity,
                component,
                timestamp,
                data,
                ..
            } => self.apply_lww(*entity, *component, *timestamp, Some(data)),
            CrdtMessage::DeleteComponent {
                entity,
                component,
                timestamp,
            }
            | CrdtMessage::DeleteComponentNetwork {
                entity,
                component,
                timestamp,
                ..
            } => self.apply_lww(*entity, *component, *timestamp, None),
            CrdtMessage::AppendValue {
                entity,
                component,
                data,
                ..
            } => {
                if self.is_deleted(*entity) {
                    return ApplyOutcome::IgnoredDeletedEntity;
                }
                self.note_entity_used(*entity);
                if !component::is_grow_only(*component) {
                    return ApplyOutcome::IgnoredWrongKind;
                }
                self.push_value(*entity, *component, data.clone());
                ApplyOutcome::Appended
            }
        }
    }

    fn apply_lww(
        &mut self,
        entity: Entity,
        component: u32,
        timestamp: u32,
        incoming: Option<&[u8]>,
    ) -> ApplyOutcome {
        if self.is_deleted(entity) {
            return ApplyOutcome::IgnoredDeletedEntity;
        }
        self.note_entity_used(entity);
        if component::is_grow_only(component) {
            return ApplyOutcome::IgnoredWrongKind;
        }
        let is_transform = component == Transform::COMPONENT_ID;
        if is_transform
            && let Some(data) = incoming
            && data.len() < Transform::BYTE_LEN
        {
            return ApplyOutcome::RejectedMalformedTransform { length: data.len() };
        }
        let current = self.lww.get(&component).and_then(|m| m.get(&entity));
        let outcome = match current {
            None => ApplyOutcome::AcceptedNewer,
            Some(cur) if cur.timestamp < timestamp => ApplyOutcome::AcceptedNewer,
            Some(cur) if cur.timestamp > timestamp => ApplyOutcome::IgnoredOlder {
                reply: Self::state_message(entity, component, cur),
            },
            Some(cur) => {
                // Equal timestamps: deletes of nothing are idempotent, otherwise the greater
                // serialized value wins ("no data" < any data, longer > shorter, then bytes).
                if incoming.is_none() && cur.data.is_none() {
                    ApplyOutcome::IgnoredEqual
                } else {
                    match compare_data(cur.data.as_deref(), incoming) {
                        Ordering::Equal => ApplyOutcome::IgnoredEqual,
                        Ordering::Greater => ApplyOutcome::IgnoredSmallerData {
                            reply: Self::state_message(entity, component, cur),
                        },
                        Ordering::Less => ApplyOutcome::AcceptedGreaterData,
                    }
                }
            }
        };
        if outcome.changed_state() {
            let canonical;
            let stored = match incoming {
                Some(data) if is_transform => {
                    canonical = canonical_transform_bytes(data);
                    Some(&canonical[..])
                }
                other => other,
            };
            self.store(entity, component, timestamp, stored);
        }
        outcome
    }

    /// Our state of one register as the message the reference answers with.
    fn state_message(entity: Entity, component: u32, entry: &LwwEntry) -> CrdtMessage {
        match &entry.data {
            Some(data) => CrdtMessage::PutComponent {
                entity,
                component,
                timestamp: entry.timestamp,
                data: data.clone(),
            },
            None => CrdtMessage::DeleteComponent {
                entity,
                component,
                timestamp: entry.timestamp,
            },
        }
    }

    // ----- state plumbing ------------------------------------------------------------------

    /// Receiving or writing a message for version v retires versions below v of that number.
    fn note_entity_used(&mut self, entity: Entity) {
        if entity.version() > 0 && !entity.is_reserved() {
            let prev = entity.version() - 1;
            let slot = self.deleted.entry(entity.number()).or_insert(prev);
            *slot = (*slot).max(prev);
        }
    }

    fn mark_deleted(&mut self, entity: Entity) {
        if !entity.is_reserved() {
            let slot = self
                .deleted
                .entry(entity.number())
                .or_insert(entity.version());
            *slot = (*slot).max(entity.version());
        }
    }

    /// Removes every component value of `entity` (tombstones keep their timestamps, bumped by
    /// one as the reference's dirty-flush does) and returns the DELETE_COMPONENT messages.
    fn clear_entity_components(&mut self, entity: Entity) -> Vec<CrdtMessage> {
        let mut holding: Vec<u32> = self
            .lww
            .iter()
            .filter(|(_, m)| m.get(&entity).is_some_and(|e| e.data.is_some()))
            .map(|(c, _)| *c)
            .collect();
        holding.sort_unstable();
        let mut out = Vec::with_capacity(holding.len());
        for component in holding {
            let timestamp = self.timestamp(entity, component).wrapping_add(1);
            self.store(entity, component, timestamp, None);
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
            self.journal.push(component, entity);
        }
        out
    }

    /// Sets a register, reusing the stored value's allocation (most writes replace a value of
    /// the same size), and journals the change.
    fn store(&mut self, entity: Entity, component: u32, timestamp: u32, data: Option<&[u8]>) {
        use std::collections::hash_map::Entry;
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
                slot.insert(LwwEntry {
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
        self.journal.push(component, entity);
    }

    fn push_value(&mut self, entity: Entity, component: u32, data: Vec<u8>) {
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
        self.journal.push(component, entity);
    }

    fn adjust_live(&mut self, entity: Entity, delta: i32) {
        let count = self.live_components.entry(entity).or_insert(0);
        *count = count.saturating_add_signed(delta);
        if *count == 0 {
            self.live_components.remove(&entity);
        }
    }

    // ----- whole-state views ---------------------------------------------------------------

    /// Every register as a message, sorted by (component, entity): PUT for values,
    /// DELETE_COMPONENT for tombstones, APPEND_VALUE (timestamp 0) for grow-only values.
    /// This is the complete LWW state, tombstones included; [`Self::digest`] hashes it.
    pub fn state_messages(&self) -> Vec<CrdtMessage> {
        let mut out = Vec::new();
        let mut components: Vec<u32> = self
            .lww
            .keys()
            .chain(self.grow_only.keys())
            .copied()
            .collect();
        components.sort_unstable();
        components.dedup();
        for component in components {
            if let Some(entries) = self.lww.get(&component) {
                let mut entities: Vec<&Entity> = entries.keys().collect();
                entities.sort_unstable();
                out.extend(
                    entities
                        .into_iter()
                        .map(|e| Self::state_message(*e, component, &entries[e])),
                );
            }
            if let Some(rows) = self.grow_only.get(&component) {
                let mut entities: Vec<&Entity> = rows.keys().collect();
                entities.sort_unstable();
                for e in entities {
                    out.extend(rows[e].iter().map(|data| CrdtMessage::AppendValue {
                        entity: *e,
                        component,
                        timestamp: 0,
                        data: data.clone(),
                    }));
                }
            }
        }
        out
    }

    /// The canonical `main.crdt` of this state: one PUT_COMPONENT per live value (APPEND_VALUE
    /// per grow-only value) and one DELETE_ENTITY per deleted entity number (at its highest
    /// deleted version), sorted by entity then component. Tombstones are not written.
    pub fn canonical_messages(&self) -> Vec<CrdtMessage> {
        let mut keyed: Vec<(Entity, u32, CrdtMessage)> = Vec::new();
        for msg in self.state_messages() {
            if matches!(msg, CrdtMessage::DeleteComponent { .. }) {
                continue;
            }
            let component = msg.component().unwrap_or(0);
            keyed.push((msg.entity(), component, msg));
        }
        for entity in self.deleted_entities() {
            // After the entity's own components (there are none at that version), before the
            // next entity id.
            keyed.push((entity, u32::MAX, CrdtMessage::DeleteEntity { entity }));
        }
        // Stable sort: grow-only values keep their order.
        keyed.sort_by_key(|(e, c, _)| (*e, *c));
        keyed.into_iter().map(|(_, _, m)| m).collect()
    }

    /// A 128-bit digest of the state that can still matter: every register (value or
    /// tombstone, with its timestamp) and grow-only value of entities that are not deleted, and
    /// the deleted-entity set. Registers of deleted entities are left out: no message can touch
    /// them again, and their tombstone timestamps depend on delivery order (a DELETE_ENTITY that
    /// arrives after a value bumps a timestamp; one that arrives first leaves none).
    /// Equal digests ⇔ equal states, up to a negligible chance of collision.
    pub fn digest(&self) -> u128 {
        let mut bytes = Vec::new();
        for msg in self.state_messages() {
            if !self.is_deleted(msg.entity()) {
                msg.encode_into(&mut bytes);
            }
        }
        for entity in self.deleted_entities() {
            CrdtMessage::DeleteEntity { entity }.encode_into(&mut bytes);
        }
        xxhash_rust::xxh3::xxh3_128(&bytes)
    }

    /// Builds a replica by applying messages in order (replies are discarded).
    pub fn from_messages<'a>(messages: impl IntoIterator<Item = &'a CrdtMessage>) -> Replica {
        let mut replica = Replica::new();
        for msg in messages {
            replica.apply(msg);
        }
        replica
    }
}

impl ChangeJournal {
    /// Entries kept before the journal is compacted; readers further behind rebuild.
    const COMPACT_AFTER: usize = 1 << 20;

    fn push(&mut self, component: u32, entity: Entity) {
        if self.entries.len() >= Self::COMPACT_AFTER {
            self.base += self.entries.len() as u64;
            self.entries.clear();
        }
        self.entries.push((component, entity));
    }
}

/// The reference's `dataCompare` on serialized values: `None` < any data, then the longer is
/// greater, then byte by byte.
pub fn compare_data(ours: Option<&[u8]>, theirs: Option<&[u8]>) -> Ordering {
    match (ours, theirs) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
    }
}

/// The bytes the reference stores for an incoming Transform: it decodes the first 44 bytes
/// into JS numbers and encodes them again, which drops trailing bytes and quiets signalling
/// NaNs (sets the top mantissa bit) while keeping every other bit.
pub fn canonical_transform_bytes(data: &[u8]) -> [u8; Transform::BYTE_LEN] {
    let mut out = [0u8; Transform::BYTE_LEN];
    out.copy_from_slice(&data[..Transform::BYTE_LEN]);
    for chunk in out[..40].chunks_exact_mut(4) {
        let bits = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        let is_nan = bits & 0x7F80_0000 == 0x7F80_0000 && bits & 0x007F_FFFF != 0;
        if is_nan {
            chunk.copy_from_slice(&(bits | 0x0040_0000).to_le_bytes());
        }
    }
    out
}
