//! The bulk deliveries: "deliver all" in send, reverse or random order, and auto-delivery's
//! [`advance`](Network::advance). Each keeps its candidates by in-flight slot (a count tree
//! for the orders, a heap for due times) and updates them as messages leave and replies arrive,
//! so n deliveries cost O(n log n) whatever the order or the filter.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::Rng;

use super::exec::{Draw, keyed_rng};
use super::in_flight::SlotCounts;
use super::{
    DeliveryOrder, DeliveryReport, InFlight, MAX_DELIVERIES_PER_CALL, MessageFilter, MessageId,
    Network,
};

impl Network {
    /// Most deliveries one bulk call makes: [`MAX_DELIVERIES_PER_CALL`] beyond four per
    /// message in flight when it starts (a reply or an announcement per delivery at most, in
    /// practice), so a large scene's messages all go while a run that never quiets down stops.
    fn delivery_cap(&self) -> usize {
        (self.state.in_flight.len().saturating_mul(4)).saturating_add(MAX_DELIVERIES_PER_CALL)
    }

    /// Lets `ticks` ticks pass. With auto-delivery on, every deliverable message whose due time
    /// falls within them is delivered at its due time (earliest first, then list order);
    /// overdue messages (held by an offline peer) go first.
    pub fn advance(&mut self, ticks: u64) -> DeliveryReport {
        let target = self.state.now.saturating_add(ticks);
        let cap = self.delivery_cap();
        let mut report = DeliveryReport::default();
        let mut due = DueQueue::default();
        while self.state.auto.is_some() {
            if report.delivered.len() >= cap {
                report.capped = true;
                break;
            }
            due.catch_up(self, target);
            let Some((at, id)) = due.pop(self) else { break };
            if at > self.state.now {
                self.tick(at - self.state.now);
            }
            self.deliver(id)
                .expect("a deliverable in-flight message can be delivered");
            report.delivered.push(id);
        }
        if target > self.state.now {
            self.tick(target - self.state.now);
        }
        report.waiting = self.state.in_flight.len();
        report
    }

    /// Delivers every deliverable message that passes `filter`, including the replies and
    /// announcements those deliveries send, until none is left, in `order`.
    pub fn deliver_all(&mut self, order: DeliveryOrder, filter: MessageFilter) -> DeliveryReport {
        let cap = self.delivery_cap();
        let mut report = DeliveryReport::default();
        let mut candidates = Candidates::default();
        loop {
            candidates.catch_up(self, filter);
            let count = candidates.slots.count();
            if count == 0 {
                break;
            }
            let n = match order {
                DeliveryOrder::Send => 0,
                DeliveryOrder::Reverse => count - 1,
                DeliveryOrder::Random => {
                    // Keyed by the timeline position the delivery will take. u32 sampling is
                    // the same on every platform; the list is far shorter.
                    let len = u32::try_from(count).unwrap_or(u32::MAX);
                    let mut rng = keyed_rng(self.seed, Draw::Pick, self.cursor as u64);
                    rng.random_range(0..len) as usize
                }
            };
            if report.delivered.len() >= cap {
                report.capped = true;
                break;
            }
            let slot = (candidates.slots.nth_set(n)).expect("n is below the count");
            let id = self.state.in_flight.slots()[slot]
                .as_ref()
                .expect("a candidate slot holds a message")
                .id;
            self.deliver(id)
                .expect("a deliverable in-flight message can be delivered");
            candidates.slots.unset(slot);
            report.delivered.push(id);
        }
        report.waiting = (self.state.in_flight.iter())
            .filter(|m| filter.matches(m))
            .count();
        report
    }
}

/// The in-flight slots a "deliver all" may take next: deliverable and passing its filter.
/// Neither changes during the call (no peer goes on or offline), so a slot's flag is computed
/// once, when the slot first appears.
#[derive(Default)]
struct Candidates {
    slots: SlotCounts,
    /// The list layout `slots` describes.
    layout: Option<u64>,
}

impl Candidates {
    /// Takes in the messages sent since the last call (all of them after a re-layout).
    fn catch_up(&mut self, net: &Network, filter: MessageFilter) {
        let list = &net.state.in_flight;
        let candidate = |m: &Option<InFlight>| {
            m.as_ref()
                .is_some_and(|m| filter.matches(m) && net.is_deliverable(m))
        };
        if self.layout != Some(list.layout()) {
            self.layout = Some(list.layout());
            self.slots = SlotCounts::from_flags(list.slots().iter().map(candidate).collect());
            return;
        }
        for m in &list.slots()[self.slots.len()..] {
            self.slots.push(candidate(m));
        }
    }
}

/// Auto-delivery's next messages: deliverable ones due by the target tick, earliest first,
/// then in list order (slot order is list order).
#[derive(Default)]
struct DueQueue {
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    /// Slots before it are in the heap (or were not due, or were empty).
    seen: usize,
    /// The list layout the slots refer to.
    layout: Option<u64>,
}

impl DueQueue {
    /// Takes in the messages sent since the last call (all of them after a re-layout).
    fn catch_up(&mut self, net: &Network, target: u64) {
        let list = &net.state.in_flight;
        if self.layout != Some(list.layout()) {
            self.layout = Some(list.layout());
            self.heap.clear();
            self.seen = 0;
        }
        let slots = list.slots();
        for (slot, m) in slots.iter().enumerate().skip(self.seen) {
            if let Some(m) = m
                && net.is_deliverable(m)
                && let Some(due) = net.due_at(m)
                && due <= target
            {
                self.heap.push(Reverse((due, slot)));
            }
        }
        self.seen = slots.len();
    }

    /// The next message to deliver and its due tick.
    fn pop(&mut self, net: &Network) -> Option<(u64, MessageId)> {
        let slots = net.state.in_flight.slots();
        while let Some(Reverse((due, slot))) = self.heap.pop() {
            if let Some(Some(m)) = slots.get(slot) {
                return Some((due, m.id));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crdt::Replica;
    use crate::crdt::network::{AutoDelivery, LocalWrite, PeerId};
    use crate::model::{Entity, Transform};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn digests(net: &Network) -> Vec<u128> {
        net.replicas().iter().map(Replica::digest).collect()
    }

    /// Three peers writing conflicting Transforms (so deliveries send replies), deleting
    /// entities (so they send announcements), reordering and duplicating, over a few ticks.
    fn busy_network(seed: u64) -> Network {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut net = Network::new(3, seed, &Replica::new()).expect("three peers");
        for _ in 0..400 {
            let peer = PeerId(rng.random_range(1..=3));
            let entity = Entity(512 + rng.random_range(0..40));
            let write = if rng.random_bool(0.1) {
                LocalWrite::DeleteEntity { entity }
            } else {
                let mut t = Transform::IDENTITY;
                t.position.x = rng.random_range(0.0..10.0);
                LocalWrite::Put {
                    entity,
                    component: Transform::COMPONENT_ID,
                    data: t.to_bytes().to_vec(),
                }
            };
            let _ = net.write(peer, write);
            match rng.random_range(0..20) {
                0 => net.tick(1),
                1 if !net.in_flight().is_empty() => {
                    let id = net.in_flight()[rng.random_range(0..net.in_flight().len())].id;
                    let to = rng.random_range(0..net.in_flight().len());
                    net.reorder(id, to).expect("a message in flight");
                }
                2 if !net.in_flight().is_empty() => {
                    let id = net.in_flight()[rng.random_range(0..net.in_flight().len())].id;
                    net.duplicate(id).expect("a message in flight");
                }
                _ => {}
            }
        }
        net
    }

    /// "Deliver all" as defined: each time, list the candidates in list order and take the
    /// first, the last or the drawn one.
    fn deliver_all_one_by_one(
        net: &mut Network,
        order: DeliveryOrder,
        filter: MessageFilter,
    ) -> Vec<MessageId> {
        let mut delivered = Vec::new();
        loop {
            let candidates: Vec<MessageId> = (net.in_flight().iter())
                .filter(|m| filter.matches(m) && net.is_deliverable(m))
                .map(|m| m.id)
                .collect();
            let Some(&last) = candidates.last() else {
                return delivered;
            };
            let id = match order {
                DeliveryOrder::Send => candidates[0],
                DeliveryOrder::Reverse => last,
                DeliveryOrder::Random => {
                    let len = candidates.len() as u32;
                    let mut rng = keyed_rng(net.seed, Draw::Pick, net.cursor as u64);
                    candidates[rng.random_range(0..len) as usize]
                }
            };
            net.deliver(id).expect("a candidate is deliverable");
            delivered.push(id);
        }
    }

    #[test]
    fn deliver_all_takes_the_messages_its_definition_takes() {
        let filters = [
            MessageFilter::ALL,
            MessageFilter {
                from: None,
                to: Some(PeerId(2)),
            },
            MessageFilter {
                from: Some(PeerId(3)),
                to: None,
            },
        ];
        for seed in 0..6 {
            for order in [
                DeliveryOrder::Send,
                DeliveryOrder::Reverse,
                DeliveryOrder::Random,
            ] {
                for (f, &filter) in filters.iter().enumerate() {
                    let mut bulk = busy_network(seed);
                    if seed % 2 == 1 {
                        bulk.set_online(PeerId(1), false).expect("a peer");
                    }
                    let mut defined = bulk.clone();
                    let report = bulk.deliver_all(order, filter);
                    let expected = deliver_all_one_by_one(&mut defined, order, filter);
                    let case = format!("seed {seed}, {order:?}, filter {f}");
                    assert!(expected.len() > 50, "{case}: a busy run");
                    assert_eq!(report.delivered, expected, "{case}");
                    let left = |n: &Network| n.in_flight().iter().map(|m| m.id).collect::<Vec<_>>();
                    assert_eq!(left(&bulk), left(&defined), "{case}");
                    assert_eq!(digests(&bulk), digests(&defined), "{case}");
                }
            }
        }
    }

    /// Auto-delivery as defined: each time, the deliverable message due first (then first in
    /// the list) among those due by the target.
    #[test]
    fn advance_delivers_in_the_order_of_its_definition() {
        for seed in 0..6 {
            let mut bulk = busy_network(seed);
            if seed % 2 == 1 {
                bulk.set_online(PeerId(3), false).expect("a peer");
            }
            bulk.set_auto_delivery(Some(AutoDelivery {
                latency: 2,
                jitter: 6,
            }));
            let mut defined = bulk.clone();
            let target = bulk.now() + 9;
            let report = bulk.advance(9);
            let mut expected = Vec::new();
            loop {
                let next = (defined.in_flight().iter())
                    .filter(|m| defined.is_deliverable(m))
                    .filter_map(|m| Some((defined.due_at(m)?, m.id)))
                    .enumerate()
                    .filter(|(_, (due, _))| *due <= target)
                    .min_by_key(|(position, (due, _))| (*due, *position))
                    .map(|(_, next)| next);
                let Some((due, id)) = next else { break };
                if due > defined.now() {
                    defined.tick(due - defined.now());
                }
                defined.deliver(id).expect("deliverable");
                expected.push(id);
            }
            assert!(expected.len() > 50, "seed {seed}: a busy run");
            assert_eq!(report.delivered, expected, "seed {seed}");
            assert_eq!(digests(&bulk), digests(&defined), "seed {seed}");
        }
    }
}
