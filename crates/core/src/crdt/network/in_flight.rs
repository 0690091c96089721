//! The list of messages in flight, in list order, with every operation a bulk delivery repeats
//! in O(log n): finding a message by id or by position, removing it anywhere, sending a new one.
//!
//! Deliveries from the middle (random order, auto-delivery by due time) must neither shift the
//! list nor scan it, or n of them cost O(n²). So a removed message leaves an empty slot,
//! positions are counted over the occupied slots by a Fenwick tree, and the slots are compacted
//! once the empty ones outnumber the occupied ones.

use std::fmt;
use std::ops::Index;

use rustc_hash::FxHashMap;

use super::types::{InFlight, MessageId};

/// Messages in flight, in list order (the order "deliver all in send order" uses).
#[derive(Clone, Default)]
pub struct InFlightList {
    /// One slot per message placed since the last compaction, in list order; `None` once the
    /// message left.
    slots: Vec<Option<InFlight>>,
    /// How many slots are occupied, by prefix: position ↔ slot.
    occupied: SlotCounts,
    /// The slot of each message in flight.
    slot_of: FxHashMap<MessageId, usize>,
    /// Every slot before it is empty.
    head: usize,
    /// Every slot from it on is empty.
    end: usize,
    /// Changes whenever messages change slots (compaction, insertion in the middle), so a
    /// caller holding slot numbers knows to look again.
    layout: u64,
}

impl InFlightList {
    /// Number of messages in flight.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// Whether nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    /// The messages in list order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &InFlight> + Clone {
        self.slots[self.head..self.end].iter().flatten()
    }

    /// The message at `position` in list order.
    pub fn get(&self, position: usize) -> Option<&InFlight> {
        let slot = self.occupied.nth_set(position)?;
        self.slots[slot].as_ref()
    }

    /// The first message in list order.
    pub fn front(&self) -> Option<&InFlight> {
        self.iter().next()
    }

    /// The last message in list order.
    pub fn back(&self) -> Option<&InFlight> {
        self.iter().next_back()
    }

    /// Message `id`, while it is in flight.
    pub fn message(&self, id: MessageId) -> Option<&InFlight> {
        let slot = *self.slot_of.get(&id)?;
        self.slots[slot].as_ref()
    }

    /// Where message `id` is in list order.
    pub fn position(&self, id: MessageId) -> Option<usize> {
        let slot = *self.slot_of.get(&id)?;
        Some(self.occupied.count_before(slot))
    }

    /// Sends `m` last.
    pub(super) fn push_back(&mut self, m: InFlight) {
        let slot = self.slots.len();
        self.slot_of.insert(m.id, slot);
        self.slots.push(Some(m));
        self.occupied.push(true);
        self.end = self.slots.len();
    }

    /// Puts `m` at `position` in list order (at most `len`). Renumbers the slots: meant for
    /// the user's one-off reorders and duplicates, not for bulk work.
    pub(super) fn insert(&mut self, position: usize, m: InFlight) {
        let mut messages: Vec<InFlight> = self.slots.drain(..).flatten().collect();
        messages.insert(position.min(messages.len()), m);
        self.rebuild(messages);
    }

    /// Takes message `id` out of the list.
    pub(super) fn remove(&mut self, id: MessageId) -> Option<InFlight> {
        let slot = self.slot_of.remove(&id)?;
        let m = self.slots[slot].take();
        self.occupied.unset(slot);
        while self.head < self.end && self.slots[self.head].is_none() {
            self.head += 1;
        }
        while self.end > self.head && self.slots[self.end - 1].is_none() {
            self.end -= 1;
        }
        if self.slots.len() - self.len() > self.len().max(64) {
            let messages = self.slots.drain(..).flatten().collect();
            self.rebuild(messages);
        }
        m
    }

    /// Puts `m` in the place of message `id` (same position), returning the message it
    /// replaced.
    pub(super) fn replace(&mut self, id: MessageId, m: InFlight) -> Option<InFlight> {
        let slot = self.slot_of.remove(&id)?;
        self.slot_of.insert(m.id, slot);
        self.slots[slot].replace(m)
    }

    /// The slots, for a bulk delivery that tracks messages by slot: valid until
    /// [`layout`](Self::layout) changes; new messages take slots after the existing ones.
    pub(super) fn slots(&self) -> &[Option<InFlight>] {
        &self.slots
    }

    /// Changes whenever slot numbers stop meaning what they meant.
    pub(super) fn layout(&self) -> u64 {
        self.layout
    }

    fn rebuild(&mut self, messages: Vec<InFlight>) {
        self.slot_of.clear();
        self.slot_of
            .extend(messages.iter().enumerate().map(|(slot, m)| (m.id, slot)));
        self.occupied = SlotCounts::all_set(messages.len());
        self.slots = messages.into_iter().map(Some).collect();
        self.head = 0;
        self.end = self.slots.len();
        self.layout += 1;
    }
}

impl Index<usize> for InFlightList {
    type Output = InFlight;

    fn index(&self, position: usize) -> &InFlight {
        let len = self.len();
        (self.get(position))
            .unwrap_or_else(|| panic!("position {position} of an in-flight list of {len}"))
    }
}

impl<'a> IntoIterator for &'a InFlightList {
    type Item = &'a InFlight;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'a, Option<InFlight>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.slots[self.head..self.end].iter().flatten()
    }
}

impl fmt::Debug for InFlightList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Which slots of a list are set, counted by prefix in O(log n): a Fenwick tree over 0/1 flags.
/// Written here because the bulk deliveries need two things together that the Fenwick crates
/// do not both offer: growing at the end, and the n-th set slot.
#[derive(Clone, Default, Debug)]
pub(super) struct SlotCounts {
    /// `tree[i - 1]` counts the set slots in `(i - lowbit(i), i]` (1-based), as usual.
    tree: Vec<u32>,
}

impl SlotCounts {
    /// `len` slots, all set, in O(len).
    pub(super) fn all_set(len: usize) -> SlotCounts {
        SlotCounts::from_flags(vec![true; len])
    }

    /// The given flags, in O(len).
    pub(super) fn from_flags(set: Vec<bool>) -> SlotCounts {
        let mut tree: Vec<u32> = set.into_iter().map(u32::from).collect();
        for i in 1..=tree.len() {
            let parent = i + lowest_bit(i);
            if parent <= tree.len() {
                tree[parent - 1] += tree[i - 1];
            }
        }
        SlotCounts { tree }
    }

    /// Number of slots.
    pub(super) fn len(&self) -> usize {
        self.tree.len()
    }

    /// Adds a slot at the end.
    pub(super) fn push(&mut self, set: bool) {
        let i = self.tree.len() + 1;
        // The new node covers (i - lowbit(i), i]: its own flag and the slots before it in that
        // range, which are whole nodes ending at i - 1.
        let mut count = u32::from(set);
        let mut j = i - 1;
        let stop = i - lowest_bit(i);
        while j > stop {
            count += self.tree[j - 1];
            j -= lowest_bit(j);
        }
        self.tree.push(count);
    }

    /// Whether `slot` is set.
    pub(super) fn is_set(&self, slot: usize) -> bool {
        slot < self.tree.len() && self.count_before(slot + 1) > self.count_before(slot)
    }

    /// Clears `slot` (nothing when it is clear or beyond the end).
    pub(super) fn unset(&mut self, slot: usize) {
        if !self.is_set(slot) {
            return;
        }
        let mut i = slot + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] -= 1;
            i += lowest_bit(i);
        }
    }

    /// Number of set slots before `slot`.
    pub(super) fn count_before(&self, slot: usize) -> usize {
        let mut count = 0;
        let mut i = slot.min(self.tree.len());
        while i > 0 {
            count += self.tree[i - 1] as usize;
            i -= lowest_bit(i);
        }
        count
    }

    /// Number of set slots.
    pub(super) fn count(&self) -> usize {
        self.count_before(self.tree.len())
    }

    /// The slot of the `n`-th set slot (0-based), if there are more than `n`.
    pub(super) fn nth_set(&self, n: usize) -> Option<usize> {
        let mut remaining = u32::try_from(n).ok()?;
        let mut at = 0;
        let mut step = self.tree.len().checked_next_power_of_two()?;
        while step > 0 {
            let next = at + step;
            if next <= self.tree.len() && self.tree[next - 1] <= remaining {
                remaining -= self.tree[next - 1];
                at = next;
            }
            step /= 2;
        }
        // `at` slots hold exactly n set ones; the n-th is the next slot, when there is one.
        (at < self.tree.len()).then_some(at)
    }
}

fn lowest_bit(i: usize) -> usize {
    i & i.wrapping_neg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crdt::CrdtMessage;
    use crate::crdt::network::{MessageKind, PeerId};
    use crate::model::Entity;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn message(id: u64) -> InFlight {
        InFlight {
            id: MessageId(id),
            from: PeerId(1),
            to: PeerId(2),
            message: CrdtMessage::DeleteEntity {
                entity: Entity(512),
            },
            kind: MessageKind::Write,
            sent_at: 0,
            cause: None,
        }
    }

    fn ids(list: &InFlightList) -> Vec<u64> {
        list.iter().map(|m| m.id.0).collect()
    }

    /// Random pushes, removals, inserts and replacements agree with a plain vector at every
    /// step, through many compactions.
    #[test]
    fn matches_a_vector_through_random_edits() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut list = InFlightList::default();
        let mut model: Vec<u64> = Vec::new();
        let mut next = 1;
        for step in 0..20_000 {
            match rng.random_range(0..10) {
                0..=3 => {
                    list.push_back(message(next));
                    model.push(next);
                    next += 1;
                }
                4..=7 if !model.is_empty() => {
                    let at = rng.random_range(0..model.len());
                    let id = model.remove(at);
                    assert_eq!(list.remove(MessageId(id)).map(|m| m.id.0), Some(id));
                }
                8 => {
                    let at = rng.random_range(0..=model.len());
                    list.insert(at, message(next));
                    model.insert(at, next);
                    next += 1;
                }
                _ if !model.is_empty() => {
                    let at = rng.random_range(0..model.len());
                    let old = std::mem::replace(&mut model[at], next);
                    list.replace(MessageId(old), message(next));
                    next += 1;
                }
                _ => {}
            }
            assert_eq!(list.len(), model.len(), "step {step}");
            if step % 97 == 0 {
                assert_eq!(ids(&list), model, "step {step}");
                assert_eq!(list.iter().rev().count(), model.len());
            }
            if let Some(at) = (!model.is_empty()).then(|| rng.random_range(0..model.len())) {
                assert_eq!(list[at].id.0, model[at]);
                assert_eq!(list.position(MessageId(model[at])), Some(at));
            }
            assert_eq!(list.front().map(|m| m.id.0), model.first().copied());
            assert_eq!(list.back().map(|m| m.id.0), model.last().copied());
        }
        assert!(list.slots.len() <= 2 * list.len() + 65, "compacted");
    }

    #[test]
    fn counts_agree_with_the_flags() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let flags: Vec<bool> = (0..1000).map(|_| rng.random_bool(0.3)).collect();
        let mut counts = SlotCounts::from_flags(flags[..500].to_vec());
        for &f in &flags[500..] {
            counts.push(f);
        }
        let set: Vec<usize> = (0..flags.len()).filter(|&i| flags[i]).collect();
        assert_eq!(counts.count(), set.len());
        for (n, &slot) in set.iter().enumerate() {
            assert_eq!(counts.nth_set(n), Some(slot));
            assert_eq!(counts.count_before(slot), n);
        }
        assert_eq!(counts.nth_set(set.len()), None);
        for (slot, &flag) in flags.iter().enumerate() {
            assert_eq!(counts.is_set(slot), flag, "slot {slot}");
        }
        assert!(!counts.is_set(flags.len()));
    }
}
