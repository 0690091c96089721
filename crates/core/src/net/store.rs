//! One component of a player's engine, with `@dcl/ecs` 7.28.0's last-writer-wins rules
//! (`engine/lww-element-set-component-definition.js`): values, Lamport timestamps (kept after
//! a value is deleted), the last bytes sent per entity, and the entities written this tick.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;

use super::ordered::JsMap;
use crate::crdt::CrdtMessage;
use crate::crdt::replica::compare_data;
use crate::model::Entity;

/// What a remote write did to a register (`ProcessMessageResultType`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Update {
    /// Newer timestamp, or equal and greater data: stored.
    Accepted,
    /// Older timestamp, or equal and smaller data: ignored (the runtime computes a correction
    /// and drops it).
    Outdated,
    /// Same timestamp and data, or a delete of nothing at the same timestamp: ignored.
    NoChanges,
}

/// One component's registers (see the module docs).
#[derive(Clone, Debug)]
pub struct ComponentStore {
    /// The component id.
    pub id: u32,
    /// entity → value, as the runtime would serialize it, in the order values were set.
    data: JsMap<Entity, Vec<u8>>,
    /// entity → timestamp, in the order each entity first got one; never removed.
    timestamps: JsMap<Entity, u32>,
    /// entity → the bytes last sent or received, to skip sending a value that did not change
    /// (`None`: the stored value's own bytes, the usual case, kept without a copy).
    last_sent: FxHashMap<Entity, Option<Vec<u8>>>,
    /// Entities written since the last send, in the order first written.
    dirty: JsMap<Entity, ()>,
}

impl ComponentStore {
    /// An empty store of component `id`.
    pub fn new(id: u32) -> Self {
        ComponentStore {
            id,
            data: JsMap::default(),
            timestamps: JsMap::default(),
            last_sent: FxHashMap::default(),
            dirty: JsMap::default(),
        }
    }

    /// The entity's value.
    pub fn get(&self, entity: Entity) -> Option<&[u8]> {
        self.data.get(&entity).map(Vec::as_slice)
    }

    /// True when the entity holds a value.
    pub fn has(&self, entity: Entity) -> bool {
        self.data.contains_key(&entity)
    }

    /// The register's timestamp (`None` before any write).
    pub fn timestamp(&self, entity: Entity) -> Option<u32> {
        self.timestamps.get(&entity).copied()
    }

    /// Where the entity's value stands in the order values were set (see [`JsMap::rank`]).
    pub fn rank(&self, entity: Entity) -> Option<usize> {
        self.data.rank(&entity)
    }

    /// The entities holding a value, in the order they were set.
    pub fn entities(&self) -> impl Iterator<Item = (Entity, &[u8])> + '_ {
        self.data.iter().map(|(e, v)| (*e, v.as_slice()))
    }

    /// True when some entity was written since the last send.
    pub fn is_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// `createOrReplace`: sets the value, marks it written, and forgets what was last sent, so
    /// the next send carries it even if unchanged.
    pub fn create_or_replace(&mut self, entity: Entity, value: Vec<u8>) -> Option<Vec<u8>> {
        self.dirty.insert(entity, ());
        self.last_sent.remove(&entity);
        self.data.insert(entity, value)
    }

    /// `deleteFrom` / `entityDeleted`: removes the value; marks it written when there was one
    /// and `mark_dirty` says so. Returns the removed value.
    pub fn delete(&mut self, entity: Entity, mark_dirty: bool) -> Option<Vec<u8>> {
        let old = self.data.remove(&entity);
        if old.is_some() && mark_dirty {
            self.dirty.insert(entity, ());
        }
        self.last_sent.remove(&entity);
        old
    }

    /// Marks the entity written this tick without changing its value: a value created and
    /// deleted again within one tick is sent as a delete.
    pub fn mark_written(&mut self, entity: Entity) {
        self.dirty.insert(entity, ());
    }

    /// Moves the register's timestamp on by `steps` sends nobody saw (see
    /// [`super::ops::SceneOp`]).
    pub fn skip_timestamps(&mut self, entity: Entity, steps: u32) {
        if steps > 0 {
            let ts = self.timestamp(entity).unwrap_or(0).wrapping_add(steps);
            self.timestamps.insert(entity, ts);
        }
    }

    /// `updateFromCrdt`: a remote PUT (`incoming` = the wire bytes, `stored` = what the runtime
    /// keeps of them) or DELETE (`None`, `None`) at `timestamp`.
    pub fn update_from_crdt(
        &mut self,
        entity: Entity,
        timestamp: u32,
        incoming: Option<&[u8]>,
        stored: Option<Vec<u8>>,
    ) -> Update {
        let outcome = match self.timestamp(entity) {
            None => Update::Accepted,
            Some(current) if current < timestamp => Update::Accepted,
            Some(current) if current > timestamp => Update::Outdated,
            Some(_) => match (self.get(entity), incoming) {
                (None, None) => Update::NoChanges,
                (ours, theirs) => match compare_data(ours, theirs) {
                    Ordering::Equal => Update::NoChanges,
                    Ordering::Greater => Update::Outdated,
                    Ordering::Less => Update::Accepted,
                },
            },
        };
        if outcome == Update::Accepted {
            self.timestamps.insert(entity, timestamp);
            match (incoming, stored) {
                (Some(raw), Some(value)) => {
                    let copy = (raw != value.as_slice()).then(|| raw.to_vec());
                    self.data.insert(entity, value);
                    self.last_sent.insert(entity, copy);
                }
                _ => {
                    self.data.remove(&entity);
                    self.last_sent.remove(&entity);
                }
            }
        }
        outcome
    }

    /// `getCrdtUpdates`: one message per entity written since the last send, in the order
    /// first written, with the timestamp bumped; a value equal to the one last sent is skipped
    /// (and keeps its timestamp).
    pub fn take_updates(&mut self, out: &mut Vec<CrdtMessage>) {
        let dirty = std::mem::take(&mut self.dirty);
        for (&entity, ()) in dirty.iter() {
            let timestamp = self.timestamp(entity).unwrap_or(0).wrapping_add(1);
            match self.data.get(&entity) {
                Some(value) => {
                    let unchanged = match self.last_sent.get(&entity) {
                        Some(None) => true,
                        Some(Some(sent)) => sent == value,
                        None => false,
                    };
                    if unchanged {
                        continue;
                    }
                    self.last_sent.insert(entity, None);
                    self.timestamps.insert(entity, timestamp);
                    out.push(CrdtMessage::PutComponent {
                        entity,
                        component: self.id,
                        timestamp,
                        data: value.clone(),
                    });
                }
                None => {
                    self.last_sent.remove(&entity);
                    self.timestamps.insert(entity, timestamp);
                    out.push(CrdtMessage::DeleteComponent {
                        entity,
                        component: self.id,
                        timestamp,
                    });
                }
            }
        }
    }

    /// `dumpCrdtStateToBuffer` restricted to PUTs (all `engineToCrdt` keeps): every register
    /// holding a value whose entity passes `keep`, in the order the registers first got a
    /// timestamp.
    pub fn dump<'a>(
        &'a self,
        keep: impl Fn(Entity) -> bool + 'a,
    ) -> impl Iterator<Item = (Entity, u32, &'a [u8])> + 'a {
        self.timestamps.iter().filter_map(move |(&entity, &ts)| {
            if !keep(entity) {
                return None;
            }
            self.get(entity).map(|value| (entity, ts, value))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const E: Entity = Entity(512);

    #[test]
    fn a_write_is_sent_once_with_its_timestamp_bumped() {
        let mut store = ComponentStore::new(9000);
        store.create_or_replace(E, vec![1]);
        let mut out = Vec::new();
        store.take_updates(&mut out);
        assert_eq!(
            out,
            [CrdtMessage::PutComponent {
                entity: E,
                component: 9000,
                timestamp: 1,
                data: vec![1]
            }]
        );
        // Nothing written: nothing sent.
        out.clear();
        store.take_updates(&mut out);
        assert!(out.is_empty());
        // Replaced with the same value: sent again (createOrReplace forgets the last sent).
        store.create_or_replace(E, vec![1]);
        store.take_updates(&mut out);
        assert_eq!(out[0].timestamp(), Some(2));
    }

    #[test]
    fn remote_writes_follow_last_writer_wins() {
        let mut store = ComponentStore::new(9000);
        let put = |s: &mut ComponentStore, ts, d: &[u8]| {
            s.update_from_crdt(E, ts, Some(d), Some(d.to_vec()))
        };
        assert_eq!(put(&mut store, 3, &[5]), Update::Accepted);
        assert_eq!(put(&mut store, 2, &[9]), Update::Outdated);
        assert_eq!(put(&mut store, 3, &[5]), Update::NoChanges);
        assert_eq!(put(&mut store, 3, &[4]), Update::Outdated);
        assert_eq!(put(&mut store, 3, &[6]), Update::Accepted);
        assert_eq!(store.update_from_crdt(E, 4, None, None), Update::Accepted);
        assert!(!store.has(E));
        assert_eq!(store.update_from_crdt(E, 4, None, None), Update::NoChanges);
        assert_eq!(store.timestamp(E), Some(4));
    }

    #[test]
    fn a_received_value_is_not_sent_back_when_marked_written_unchanged() {
        let mut store = ComponentStore::new(9000);
        store.update_from_crdt(E, 1, Some(&[7]), Some(vec![7]));
        store.dirty.insert(E, ()); // getMutable without a change
        let mut out = Vec::new();
        store.take_updates(&mut out);
        assert!(out.is_empty());
    }
}
