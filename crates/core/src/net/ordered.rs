//! A map that iterates in insertion order with a JavaScript `Map`'s rules, which the SDK's
//! outputs depend on: setting an existing key keeps its place, deleting and setting again
//! moves it to the end.
//!
//! Hand-written because `indexmap` keeps the order only with `shift_remove`, which is O(n) per
//! delete: here a delete leaves a hole, and the holes are squeezed out once they outnumber the
//! entries, so every operation is O(1) amortized.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// An insertion-ordered map (see the module docs).
#[derive(Clone, Debug)]
pub struct JsMap<K, V> {
    slots: Vec<Option<(K, V)>>,
    index: FxHashMap<K, usize>,
}

impl<K, V> Default for JsMap<K, V> {
    fn default() -> Self {
        JsMap {
            slots: Vec::new(),
            index: FxHashMap::default(),
        }
    }
}

impl<K: Copy + Eq + Hash, V> JsMap<K, V> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The value of `key`.
    pub fn get(&self, key: &K) -> Option<&V> {
        let slot = *self.index.get(key)?;
        self.slots[slot].as_ref().map(|(_, v)| v)
    }

    /// The value of `key`, mutable (its place does not change).
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let slot = *self.index.get(key)?;
        self.slots[slot].as_mut().map(|(_, v)| v)
    }

    /// True when `key` is present.
    pub fn contains_key(&self, key: &K) -> bool {
        self.index.contains_key(key)
    }

    /// Sets `key` (an existing key keeps its place, a new one goes last); returns the old value.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        if let Some(&slot) = self.index.get(&key) {
            return self.slots[slot].replace((key, value)).map(|(_, v)| v);
        }
        self.index.insert(key, self.slots.len());
        self.slots.push(Some((key, value)));
        None
    }

    /// Removes `key`; returns its value.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        let slot = self.index.remove(key)?;
        let value = self.slots[slot].take().map(|(_, v)| v);
        if self.slots.len() > 32 && self.slots.len() > 2 * self.index.len() {
            self.compact();
        }
        value
    }

    /// Empties the map.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.index.clear();
    }

    /// Where `key` stands among the entries: smaller comes first. Only comparable between
    /// calls with no removal in between.
    pub fn rank(&self, key: &K) -> Option<usize> {
        self.index.get(key).copied()
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> + '_ {
        self.slots.iter().flatten().map(|(k, v)| (k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.iter().map(|(k, _)| k)
    }

    fn compact(&mut self) {
        self.slots.retain(Option::is_some);
        for (slot, entry) in self.slots.iter().enumerate() {
            if let Some((key, _)) = entry {
                self.index.insert(*key, slot);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_javascript_map_order() {
        let mut map = JsMap::default();
        for k in 0..5 {
            map.insert(k, k * 10);
        }
        map.insert(1, 11); // keeps its place
        map.remove(&2);
        map.insert(2, 22); // goes last
        let keys: Vec<_> = map.keys().copied().collect();
        assert_eq!(keys, [0, 1, 3, 4, 2]);
        assert_eq!(map.get(&1), Some(&11));
        assert_eq!(map.len(), 5);
    }

    #[test]
    fn many_deletes_compact_and_keep_the_order() {
        let mut map = JsMap::default();
        for k in 0..1000u32 {
            map.insert(k, ());
        }
        for k in (0..1000u32).filter(|k| k % 10 != 0) {
            map.remove(&k);
        }
        assert!(map.slots.len() < 1000);
        let keys: Vec<_> = map.keys().copied().collect();
        assert_eq!(keys, (0..1000).step_by(10).collect::<Vec<_>>());
        assert!(map.rank(&10) < map.rank(&20));
    }
}
