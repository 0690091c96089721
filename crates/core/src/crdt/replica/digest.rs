//! The state's digest, as a sum: one 128-bit hash per register, grow-only value and deleted
//! entity number, added with wrapping arithmetic. A sum needs no order (the whole-state digest
//! sorts nothing) and can be kept up to date: [`DigestCache`] re-hashes only the entities a
//! replica's change journal names, so a replay that reports every peer's digest after every
//! event costs a few hashes per event instead of the whole state's bytes.

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_128;

use super::{LwwEntry, Replica, ReplicaVersion};
use crate::model::{Entity, Transform};

/// What a hashed record is: a register, the `index`-th value of a grow-only set, or a deleted
/// entity number at its highest deleted version. Part of the hashed bytes, so that no two
/// records of different kinds can hash alike by construction.
#[derive(Clone, Copy)]
enum Record {
    Value = 1,
    Tombstone = 2,
    GrowOnly = 3,
    Deleted = 4,
}

/// Hashes one record: its kind, entity, component, timestamp (or grow-only index) and bytes.
fn record_hash(buffer: &mut Vec<u8>, record: Record, head: [u32; 3], data: &[u8]) -> u128 {
    buffer.clear();
    buffer.push(record as u8);
    for field in head {
        buffer.extend_from_slice(&field.to_le_bytes());
    }
    buffer.extend_from_slice(data);
    xxh3_128(buffer)
}

fn register_hash(
    buffer: &mut Vec<u8>,
    entity: Entity,
    component: u32,
    entry: LwwEntry<'_>,
) -> u128 {
    let (record, data) = match entry.data {
        Some(data) => (Record::Value, data),
        None => (Record::Tombstone, &[][..]),
    };
    record_hash(buffer, record, [entity.0, component, entry.timestamp], data)
}

/// The hash a deleted entity number adds, at its highest deleted version.
fn deleted_hash(number: u16, version: u16) -> u128 {
    let entity = Entity::from_parts(number, version);
    record_hash(&mut Vec::new(), Record::Deleted, [entity.0, 0, 0], &[])
}

impl Replica {
    /// A 128-bit digest of the state that can still matter: every register (value or
    /// tombstone, with its timestamp) and grow-only value (with its place in the set) of
    /// entities that are not deleted, and the deleted-entity set. Registers of deleted
    /// entities are left out: no message can touch them again, and their tombstone timestamps
    /// depend on delivery order (a DELETE_ENTITY that arrives after a value bumps a timestamp;
    /// one that arrives first leaves none). Equal digests ⇔ equal states, up to a negligible
    /// chance of collision. O(state); [`DigestCache`] keeps it for a replica that changes.
    pub fn digest(&self) -> u128 {
        let mut buffer = Vec::new();
        // From scratch (not `deleted_digest`), so that the cache can be checked against it.
        let mut sum = (self.deleted.iter()).fold(0u128, |sum, (&number, &version)| {
            sum.wrapping_add(deleted_hash(number, version))
        });
        for row in self.transforms.iter() {
            if !self.is_deleted(row.entity) {
                let entry = LwwEntry {
                    timestamp: row.timestamp,
                    data: row.value.map(|bytes| &bytes[..]),
                };
                let hash = register_hash(&mut buffer, row.entity, Transform::COMPONENT_ID, entry);
                sum = sum.wrapping_add(hash);
            }
        }
        for (&component, entries) in &self.lww {
            for (&entity, entry) in entries {
                if !self.is_deleted(entity) {
                    let hash = register_hash(&mut buffer, entity, component, entry.view());
                    sum = sum.wrapping_add(hash);
                }
            }
        }
        for (&component, rows) in &self.grow_only {
            for (&entity, values) in rows {
                if !self.is_deleted(entity) {
                    sum = sum.wrapping_add(grow_only_hash(&mut buffer, entity, component, values));
                }
            }
        }
        sum
    }

    /// What one entity's registers and grow-only values add to [`Self::digest`] (0 when it is
    /// deleted or holds nothing): O(components in the replica).
    fn entity_digest(&self, entity: Entity, buffer: &mut Vec<u8>) -> u128 {
        if self.is_deleted(entity) {
            return 0;
        }
        let mut sum = 0u128;
        if let Some(entry) = self.lww_entry(entity, Transform::COMPONENT_ID) {
            sum = sum.wrapping_add(register_hash(
                buffer,
                entity,
                Transform::COMPONENT_ID,
                entry,
            ));
        }
        for (&component, entries) in &self.lww {
            if let Some(entry) = entries.get(&entity) {
                sum = sum.wrapping_add(register_hash(buffer, entity, component, entry.view()));
            }
        }
        for (&component, rows) in &self.grow_only {
            if let Some(values) = rows.get(&entity) {
                sum = sum.wrapping_add(grow_only_hash(buffer, entity, component, values));
            }
        }
        sum
    }

    /// Keeps [`Self::digest`]'s part for the deleted set when number `number`'s highest
    /// deleted version moves from `old` to `new`.
    pub(super) fn note_deleted_version(&mut self, number: u16, old: Option<u16>, new: u16) {
        if let Some(old) = old {
            self.deleted_digest = self.deleted_digest.wrapping_sub(deleted_hash(number, old));
        }
        self.deleted_digest = self.deleted_digest.wrapping_add(deleted_hash(number, new));
        // Versions up to `new` stop counting: readers of the journal (the digest cache) look
        // at the number again.
        self.journal.push(Entity::from_parts(number, new));
    }
}

/// The hashes of a grow-only row's values, each with its place (arrival order matters).
fn grow_only_hash(
    buffer: &mut Vec<u8>,
    entity: Entity,
    component: u32,
    values: &[Vec<u8>],
) -> u128 {
    let mut sum = 0u128;
    for (index, value) in values.iter().enumerate() {
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        let hash = record_hash(
            buffer,
            Record::GrowOnly,
            [entity.0, component, index],
            value,
        );
        sum = sum.wrapping_add(hash);
    }
    sum
}

/// [`Replica::digest`] of one replica as it changes, re-hashing only the entities its change
/// journal names since the last call (and rebuilding once for another replica instance, or
/// a journal that no longer reaches back).
#[derive(Clone, Debug, Default)]
pub struct DigestCache {
    /// The state the sums below describe.
    version: Option<ReplicaVersion>,
    /// The sum of every entity's part.
    registers: u128,
    /// Entity number → (version, its part) for every entity whose part is not 0: the
    /// versions of a number are looked at together, since a newer one retires older ones.
    parts: FxHashMap<u16, Vec<(u16, u128)>>,
    buffer: Vec<u8>,
}

impl DigestCache {
    /// An empty cache; the first call hashes the whole state.
    pub fn new() -> DigestCache {
        DigestCache::default()
    }

    /// `replica`'s [`Replica::digest`]: O(entities changed since the last call), or
    /// O(state) when the replica is not the one (or the state) seen last.
    pub fn digest(&mut self, replica: &Replica) -> u128 {
        let changed = self
            .version
            .and_then(|version| replica.entities_changed_since(version));
        match changed {
            // A change list longer than the state costs more to walk than a rebuild.
            Some(entities) if entities.len() <= 2 * self.parts.len() + 1024 => {
                let mut entities = entities.to_vec();
                entities.sort_unstable();
                entities.dedup();
                for entity in entities {
                    self.refresh_number(replica, entity);
                }
            }
            _ => self.rebuild(replica),
        }
        self.version = Some(replica.version());
        self.registers.wrapping_add(replica.deleted_digest)
    }

    fn rebuild(&mut self, replica: &Replica) {
        self.registers = 0;
        self.parts.clear();
        let mut entities: Vec<Entity> = replica.transforms.iter().map(|r| r.entity).collect();
        entities.extend(
            replica
                .lww
                .values()
                .flat_map(|entries| entries.keys().copied()),
        );
        entities.extend(
            replica
                .grow_only
                .values()
                .flat_map(|rows| rows.keys().copied()),
        );
        entities.sort_unstable();
        entities.dedup();
        for entity in entities {
            let part = replica.entity_digest(entity, &mut self.buffer);
            if part != 0 {
                self.registers = self.registers.wrapping_add(part);
                (self.parts.entry(entity.number()).or_default()).push((entity.version(), part));
            }
        }
    }

    /// Hashes again `entity` and every version of its number the cache holds.
    fn refresh_number(&mut self, replica: &Replica, entity: Entity) {
        let number = entity.number();
        let mut versions = self.parts.remove(&number).unwrap_or_default();
        if !versions.iter().any(|&(v, _)| v == entity.version()) {
            versions.push((entity.version(), 0));
        }
        for (version, part) in &mut versions {
            let new = replica.entity_digest(Entity::from_parts(number, *version), &mut self.buffer);
            self.registers = self.registers.wrapping_sub(*part).wrapping_add(new);
            *part = new;
        }
        versions.retain(|&(_, part)| part != 0);
        if !versions.is_empty() {
            self.parts.insert(number, versions);
        }
    }
}
