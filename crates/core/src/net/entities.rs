//! A player's entity numbering, allocated exactly as `@dcl/ecs` 7.28.0's entity container
//! (`engine/entity.js`) allocates it: `engine.addEntity()` takes a fresh number from a counter
//! that starts at 512 while every number below the counter is in use, and otherwise the first
//! deleted number (in the order numbers were first deleted) whose next version is free.
//!
//! The runtime finds that reusable number by scanning every deleted number each time; this
//! container keeps the deleted numbers whose next version may be free in an ordered set, so an
//! allocation costs O(log n) however many numbers were deleted.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use crate::model::Entity;

/// Numbers below this are the renderer's (`RESERVED_STATIC_ENTITIES`).
const RESERVED: u16 = Entity::RESERVED_STATIC_COUNT;

/// What the container knows about an id (`EntityState`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EntityState {
    /// Never generated nor seen.
    Unknown,
    /// Generated here, or seen in a message.
    Used,
    /// Deleted at this version or a later one.
    Removed,
    /// A renderer-reserved number (below 512), at any version.
    Reserved,
}

/// Why no entity could be allocated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no entity number is left: the counter passed 65,534 (the SDK throws here)")]
pub struct OutOfEntities;

/// One player's entity container (see the module docs).
#[derive(Clone, Debug)]
pub struct EntityContainer {
    /// The next fresh number.
    counter: u32,
    /// number → the versions in use.
    used: FxHashMap<u16, Vec<u16>>,
    used_count: usize,
    /// Removed by the scene this tick, released (tombstoned) at the end of its systems.
    to_remove: Vec<Entity>,
    /// The deleted numbers in the order first deleted, with their highest deleted version.
    removed: Vec<(u16, u16)>,
    removed_at: FxHashMap<u16, usize>,
    /// Positions in `removed` whose next version may be free.
    maybe_free: BTreeSet<usize>,
}

impl Default for EntityContainer {
    fn default() -> Self {
        EntityContainer {
            counter: u32::from(RESERVED),
            used: FxHashMap::default(),
            used_count: 0,
            to_remove: Vec::new(),
            removed: Vec::new(),
            removed_at: FxHashMap::default(),
            maybe_free: BTreeSet::new(),
        }
    }
}

impl EntityContainer {
    /// True when `entity` is in use.
    pub fn is_used(&self, entity: Entity) -> bool {
        self.used
            .get(&entity.number())
            .is_some_and(|versions| versions.contains(&entity.version()))
    }

    /// What the container knows about `entity`.
    pub fn state(&self, entity: Entity) -> EntityState {
        if entity.number() < RESERVED {
            EntityState::Reserved
        } else if self.is_used(entity) {
            EntityState::Used
        } else if self.removed_version(entity.number()) >= Some(entity.version()) {
            EntityState::Removed
        } else {
            EntityState::Unknown
        }
    }

    /// The highest deleted version of a number.
    pub fn removed_version(&self, number: u16) -> Option<u16> {
        self.removed_at.get(&number).map(|&i| self.removed[i].1)
    }

    /// `engine.addEntity()`.
    pub fn generate(&mut self) -> Result<Entity, OutOfEntities> {
        if self.used_count + usize::from(RESERVED) >= self.counter as usize {
            return self.generate_new();
        }
        let mut stale = Vec::new();
        let mut found = None;
        for &at in &self.maybe_free {
            let (number, version) = self.removed[at];
            if version == u16::MAX {
                stale.push(at); // no next version, ever
                continue;
            }
            let candidate = Entity::from_parts(number, version + 1);
            if self.is_used(candidate) {
                stale.push(at); // back when the candidate leaves use or the number is deleted again
            } else if !self.to_remove.contains(&candidate) {
                found = Some((at, candidate));
                break;
            }
        }
        for at in stale {
            self.maybe_free.remove(&at);
        }
        match found {
            Some((at, entity)) => {
                self.maybe_free.remove(&at);
                self.add_used(entity);
                Ok(entity)
            }
            None => self.generate_new(),
        }
    }

    fn generate_new(&mut self) -> Result<Entity, OutOfEntities> {
        loop {
            if self.counter > u32::from(u16::MAX) - 1 {
                return Err(OutOfEntities);
            }
            let number = self.counter as u16;
            self.counter += 1;
            // `toEntityId` masks the version to 16 bits: one past 65535 is version 0.
            let version = self
                .removed_version(number)
                .map_or(0, |v| v.wrapping_add(1));
            let entity = Entity::from_parts(number, version);
            if !self.is_used(entity) {
                self.add_used(entity);
                return Ok(entity);
            }
        }
    }

    /// The scene's `engine.removeEntity`: an entity in use is tombstoned at the end of the tick
    /// ([`Self::release_removed`]); one not in use at once. False for reserved numbers.
    pub fn remove(&mut self, entity: Entity) -> bool {
        if entity.number() < RESERVED {
            return false;
        }
        if self.is_used(entity) {
            self.delete_used(entity);
            self.to_remove.push(entity);
        } else {
            self.update_removed(entity);
        }
        true
    }

    /// The entities the scene removed this tick, tombstoned now (`releaseRemovedEntities`).
    pub fn release_removed(&mut self) -> Vec<Entity> {
        let released = std::mem::take(&mut self.to_remove);
        for &entity in &released {
            self.add_removed(entity.number(), entity.version());
        }
        released
    }

    /// A DELETE_ENTITY was processed (`updateRemovedEntity`): the number is deleted at this
    /// version, and it and every older version leave use.
    pub fn update_removed(&mut self, entity: Entity) -> bool {
        if entity.number() < RESERVED {
            return false;
        }
        self.add_removed(entity.number(), entity.version());
        self.retain_used(entity.number(), |v| v > entity.version());
        true
    }

    /// A message named an unknown entity (`updateUsedEntity`): it comes into use, and older
    /// versions of its number count as deleted.
    pub fn update_used(&mut self, entity: Entity) -> bool {
        let (number, version) = (entity.number(), entity.version());
        if number < RESERVED || self.removed_version(number) >= Some(version) {
            return false;
        }
        if version > 0 {
            self.retain_used(number, |v| v >= version);
            self.add_removed(number, version - 1);
        }
        self.add_used(entity);
        true
    }

    fn add_used(&mut self, entity: Entity) {
        let versions = self.used.entry(entity.number()).or_default();
        if !versions.contains(&entity.version()) {
            versions.push(entity.version());
            self.used_count += 1;
        }
    }

    fn delete_used(&mut self, entity: Entity) {
        self.retain_used(entity.number(), |v| v != entity.version());
    }

    fn retain_used(&mut self, number: u16, keep: impl Fn(u16) -> bool) {
        if let Some(versions) = self.used.get_mut(&number) {
            let before = versions.len();
            versions.retain(|&v| keep(v));
            self.used_count -= before - versions.len();
            if versions.is_empty() {
                self.used.remove(&number);
            }
        }
        if let Some(&at) = self.removed_at.get(&number) {
            self.maybe_free.insert(at);
        }
    }

    /// The version G-set's `addTo`: keeps the highest version.
    fn add_removed(&mut self, number: u16, version: u16) {
        let at = match self.removed_at.get(&number) {
            Some(&at) => {
                let slot = &mut self.removed[at].1;
                *slot = (*slot).max(version);
                at
            }
            None => {
                self.removed.push((number, version));
                self.removed_at.insert(number, self.removed.len() - 1);
                self.removed.len() - 1
            }
        };
        self.maybe_free.insert(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(number: u16, version: u16) -> Entity {
        Entity::from_parts(number, version)
    }

    #[test]
    fn fresh_numbers_count_up_from_512() {
        let mut c = EntityContainer::default();
        let got: Vec<_> = (0..3).map(|_| c.generate().unwrap()).collect();
        assert_eq!(got, [e(512, 0), e(513, 0), e(514, 0)]);
    }

    #[test]
    fn a_removed_number_comes_back_at_its_next_version_after_the_tick() {
        let mut c = EntityContainer::default();
        let a = c.generate().unwrap();
        let _b = c.generate().unwrap();
        c.remove(a);
        // Still this tick: the removed id is not reused, and the counter has room.
        assert_eq!(c.generate().unwrap(), e(514, 0));
        assert_eq!(c.release_removed(), [a]);
        assert_eq!(c.state(a), EntityState::Removed);
        assert_eq!(c.generate().unwrap(), e(512, 1));
        assert_eq!(c.generate().unwrap(), e(515, 0));
    }

    #[test]
    fn reuse_follows_the_order_numbers_were_first_deleted() {
        let mut c = EntityContainer::default();
        let ids: Vec<_> = (0..4).map(|_| c.generate().unwrap()).collect();
        c.update_removed(ids[2]);
        c.update_removed(ids[0]);
        assert_eq!(c.generate().unwrap(), e(514, 1));
        assert_eq!(c.generate().unwrap(), e(512, 1));
        assert_eq!(c.generate().unwrap(), e(516, 0));
    }

    #[test]
    fn a_message_for_a_later_version_retires_the_older_ones() {
        let mut c = EntityContainer::default();
        assert!(c.update_used(e(600, 2)));
        assert_eq!(c.state(e(600, 1)), EntityState::Removed);
        assert_eq!(c.state(e(600, 2)), EntityState::Used);
        assert!(!c.update_used(e(600, 1)));
        assert_eq!(c.state(e(7, 0)), EntityState::Reserved);
        // 600 is used far above the counter: counting it, the first fresh number is still 512.
        assert_eq!(c.generate().unwrap(), e(512, 0));
    }
}
