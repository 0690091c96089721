//! The order explorer: every delivery order of a few messages to one replica, with what the
//! render tree shows along the way.
//!
//! For `n` messages there are `n!` orders (40,320 for 8). The explorer walks them as a tree of
//! prefixes and merges prefixes that reach the same state with the same messages left (most
//! messages commute), so it visits each distinct intermediate state once. For each it records
//! whether the render tree holds a parenting cycle and which entities fall back to the root.
//!
//! It lives in `scene` because it reads the render tree; it drives only [`Replica::apply`].

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::{Fallback, SceneView};
use crate::crdt::{CrdtMessage, Network, NetworkError, PeerId, Replica};
use crate::model::Entity;

/// Most messages the explorer takes (8! = 40,320 orders).
pub const MAX_MESSAGES: usize = 8;

/// Why an exploration was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExploreError {
    /// Too many messages to enumerate every order.
    #[error("{count} messages have {count}! orders; the explorer takes at most {MAX_MESSAGES}")]
    TooManyMessages { count: usize },
    /// The peer does not exist.
    #[error(transparent)]
    Network(#[from] NetworkError),
}

/// An entity that fell back to the root in some state of some order, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EverRerooted {
    /// The entity.
    pub entity: Entity,
    /// It sat on a parenting cycle in some state.
    pub cycle: bool,
    /// Its declared parent had no Transform in some state.
    pub missing_parent: bool,
}

/// One final state and the orders that end in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalState {
    /// The replica's digest at the end.
    pub digest: u128,
    /// How many orders end here.
    pub orders: u64,
    /// One such order, as positions in the explored message list.
    pub example: Vec<usize>,
    /// The parenting cycles that state holds (for good: no message is left to break them),
    /// as [`Fallback::Cycle`] lists them.
    pub cycles: Vec<Vec<Entity>>,
}

/// What every delivery order of a trace does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderExploration {
    /// Messages explored.
    pub messages: usize,
    /// Orders enumerated (`messages!`).
    pub orders: u64,
    /// Orders whose states, after any delivery, include a parenting cycle.
    pub orders_through_cycle: u64,
    /// One order through a cycle, as positions in the message list.
    pub cycle_example: Option<Vec<usize>>,
    /// Every distinct cycle seen, as [`Fallback::Cycle`] lists it, sorted.
    pub cycles: Vec<Vec<Entity>>,
    /// Every entity that fell back to the root in some state, ascending.
    pub rerooted: Vec<EverRerooted>,
    /// The distinct final states (one when the orders converge), by digest.
    pub finals: Vec<FinalState>,
    /// Distinct intermediate states visited (the work done).
    pub states_visited: usize,
}

impl OrderExploration {
    /// The parenting cycles every order ends with, for good: those of the one final state
    /// when the orders converge; empty otherwise.
    pub fn converged_cycles(&self) -> &[Vec<Entity>] {
        match self.finals.as_slice() {
            [only] => &only.cycles,
            _ => &[],
        }
    }

    /// True when every order ends in the same state.
    pub fn converges(&self) -> bool {
        self.finals.len() <= 1
    }
}

/// Explores every order in which `messages` can reach a replica that starts as `start`.
/// Replies and announcements the deliveries would send are ignored: they travel to other peers.
pub fn explore_orders(
    start: &Replica,
    messages: &[CrdtMessage],
) -> Result<OrderExploration, ExploreError> {
    if messages.len() > MAX_MESSAGES {
        return Err(ExploreError::TooManyMessages {
            count: messages.len(),
        });
    }
    let mut walk = Walk {
        messages,
        touched: touched_registers(start, messages),
        memo: FxHashMap::default(),
        cycles: BTreeSet::new(),
        rerooted: BTreeMap::new(),
    };
    let view = SceneView::from_source(start);
    let top = walk.visit(start, &view, 0);
    let mut finals: Vec<FinalState> = top
        .finals
        .iter()
        .map(|(digest, (orders, example, cycles))| FinalState {
            digest: *digest,
            orders: *orders,
            example: example.iter().map(|&i| usize::from(i)).collect(),
            cycles: cycles.as_ref().clone(),
        })
        .collect();
    finals.sort_by_key(|f| std::cmp::Reverse(f.orders));
    Ok(OrderExploration {
        messages: messages.len(),
        orders: top.leaves,
        orders_through_cycle: top.cycled,
        cycle_example: top
            .cycle_example
            .as_ref()
            .map(|o| o.iter().map(|&i| usize::from(i)).collect()),
        cycles: walk.cycles.into_iter().collect(),
        rerooted: walk
            .rerooted
            .into_iter()
            .map(|(entity, (cycle, missing_parent))| EverRerooted {
                entity,
                cycle,
                missing_parent,
            })
            .collect(),
        finals,
        states_visited: walk.memo.len(),
    })
}

/// Explores every order in which the messages now in flight to `peer` can reach it.
pub fn explore_inbox(network: &Network, peer: PeerId) -> Result<OrderExploration, ExploreError> {
    let replica = network.replica(peer)?;
    let inbox: Vec<CrdtMessage> = network
        .in_flight()
        .iter()
        .filter(|m| m.to == peer)
        .map(|m| m.message.clone())
        .collect();
    explore_orders(replica, &inbox)
}

/// The orders that end in one final state: how many, an example suffix, the cycles it holds.
type FinalOrders = (u64, Vec<u8>, Rc<Vec<Vec<Entity>>>);

/// What the orders below one state do.
#[derive(Default)]
struct Subtree {
    /// Complete orders below.
    leaves: u64,
    /// Of those, orders with a cycle in a state strictly below this one.
    cycled: u64,
    /// Final digest → (orders, an example suffix, the cycles that state holds).
    finals: BTreeMap<u128, FinalOrders>,
    /// A suffix with a cycle strictly below this state.
    cycle_example: Option<Vec<u8>>,
}

struct Walk<'a> {
    messages: &'a [CrdtMessage],
    /// The registers the messages can change (see [`touched_registers`]).
    touched: Vec<(Entity, u32)>,
    /// (messages delivered, state key) → (that state has a cycle, what follows it).
    memo: FxHashMap<(u16, u128), (bool, Rc<Subtree>)>,
    cycles: BTreeSet<Vec<Entity>>,
    rerooted: BTreeMap<Entity, (bool, bool)>,
}

impl Walk<'_> {
    /// The orders that continue from `replica`, which has received the messages in `used`.
    /// Recursion depth is the message count (at most [`MAX_MESSAGES`]).
    fn visit(&mut self, replica: &Replica, view: &SceneView, used: u16) -> Rc<Subtree> {
        let n = self.messages.len();
        let mut out = Subtree::default();
        if used.count_ones() as usize == n {
            out.leaves = 1;
            let cycles = view.cycles().into_iter().map(<[Entity]>::to_vec).collect();
            (out.finals).insert(replica.digest(), (1, Vec::new(), Rc::new(cycles)));
            return Rc::new(out);
        }
        for i in 0..n {
            if used & (1 << i) != 0 {
                continue;
            }
            let mut next = replica.clone();
            next.apply(&self.messages[i]);
            let key = (used | 1 << i, state_key(&next, &self.touched));
            let (cyclic, below) = match self.memo.get(&key) {
                Some((cyclic, below)) => (*cyclic, Rc::clone(below)),
                None => {
                    let mut next_view = view.clone();
                    next_view.update(&next);
                    let cyclic = self.observe(&next_view);
                    let below = self.visit(&next, &next_view, key.0);
                    self.memo.insert(key, (cyclic, Rc::clone(&below)));
                    (cyclic, below)
                }
            };
            let step = i as u8;
            out.leaves += below.leaves;
            out.cycled += if cyclic { below.leaves } else { below.cycled };
            for (digest, (orders, example, cycles)) in &below.finals {
                let slot = out.finals.entry(*digest).or_insert_with(|| {
                    let mut order = vec![step];
                    order.extend(example);
                    (0, order, Rc::clone(cycles))
                });
                slot.0 += orders;
            }
            if out.cycle_example.is_none() {
                let suffix = if cyclic {
                    below.finals.values().next().map(|(_, ex, _)| ex.clone())
                } else {
                    below.cycle_example.clone()
                };
                out.cycle_example = suffix.map(|s| {
                    let mut order = vec![step];
                    order.extend(s);
                    order
                });
            }
        }
        Rc::new(out)
    }

    /// Records the cycles and re-rooted entities of one state; true when it has a cycle.
    fn observe(&mut self, view: &SceneView) -> bool {
        let cycles = view.cycles();
        for c in &cycles {
            self.cycles.insert(c.to_vec());
        }
        for (entity, reason) in view.rerooted() {
            let slot = self.rerooted.entry(entity).or_default();
            match reason {
                Fallback::Cycle(_) => slot.0 = true,
                Fallback::MissingParent => slot.1 = true,
                Fallback::None => {}
            }
        }
        !cycles.is_empty()
    }
}

/// The registers a trace can change: every component the messages name on their entities, and
/// every component those entities hold at the start (a DELETE_ENTITY clears them).
fn touched_registers(start: &Replica, messages: &[CrdtMessage]) -> Vec<(Entity, u32)> {
    let mut out: Vec<(Entity, u32)> = Vec::new();
    for m in messages {
        let e = m.entity();
        out.extend(m.component().map(|c| (e, c)));
        out.extend(start.components_of(e).into_iter().map(|c| (e, c)));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A hash of the registers a trace can change. Two prefixes with the same messages delivered
/// merge only when these are equal; everything else is equal anyway: other registers are never
/// touched, and the deleted-entity set only grows by a maximum, so it depends on which
/// messages were delivered, not on their order.
fn state_key(replica: &Replica, touched: &[(Entity, u32)]) -> u128 {
    let mut bytes = Vec::new();
    for &(entity, component) in touched {
        bytes.extend_from_slice(&entity.0.to_le_bytes());
        bytes.extend_from_slice(&component.to_le_bytes());
        match replica.lww_entry(entity, component) {
            None => bytes.push(0),
            Some(entry) => {
                bytes.push(1);
                bytes.extend_from_slice(&entry.timestamp.to_le_bytes());
                match &entry.data {
                    None => bytes.push(0),
                    Some(data) => {
                        bytes.push(1);
                        bytes.extend_from_slice(&(data.len() as u32).to_le_bytes());
                        bytes.extend_from_slice(data);
                    }
                }
            }
        }
        let values = replica.grow_only_values(entity, component);
        bytes.extend_from_slice(&(values.len() as u32).to_le_bytes());
        for value in values {
            bytes.extend_from_slice(&(value.len() as u32).to_le_bytes());
            bytes.extend_from_slice(value);
        }
    }
    xxhash_rust::xxh3::xxh3_128(&bytes)
}
