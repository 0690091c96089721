//! `RevertToEarlierParent`: every parent each entity was ever given (its *edge map*, as in Evan
//! Wallace's mutable-tree CRDT), and the deterministic pass that reattaches the entities cut
//! off from the root by a cycle to their most recent parent that is connected.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::crdt::network::{ParentWrite, WriteOrigin};
use crate::crdt::replica::compare_data;
use crate::model::{Entity, Transform};

/// One parent an entity was given, by one write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Edge {
    /// The write (so a copy received twice counts once, and a write merged away can go).
    origin: WriteOrigin,
    pub(super) parent: Entity,
    pub(super) timestamp: u32,
    value: Option<[u8; Transform::BYTE_LEN]>,
}

impl Edge {
    /// The register's order: newer timestamp, then greater value (a removal is smallest).
    fn recency(&self, other: &Edge) -> Ordering {
        self.timestamp.cmp(&other.timestamp).then_with(|| {
            compare_data(
                self.value.as_ref().map(|v| &v[..]),
                other.value.as_ref().map(|v| &v[..]),
            )
        })
    }
}

/// Every parent each entity was given, as received by one peer (whether or not the peer's
/// register kept that write: an older write still records an earlier parent).
#[derive(Clone, Debug, Default)]
pub(super) struct EdgeMap {
    edges: FxHashMap<Entity, Vec<Edge>>,
}

impl EdgeMap {
    /// Records a write; returns true when it is new here.
    pub(super) fn add(&mut self, write: &ParentWrite) -> bool {
        let edges = self.edges.entry(write.entity).or_default();
        if edges.iter().any(|e| e.origin == write.origin) {
            return false;
        }
        edges.push(Edge {
            origin: write.origin,
            parent: write.parent(),
            timestamp: write.timestamp,
            value: write.value,
        });
        true
    }

    /// Forgets a write of `entity` that a later write of the same tick replaced before it was
    /// sent (no other peer ever receives it); returns true when it was here.
    pub(super) fn remove(&mut self, entity: Entity, origin: WriteOrigin) -> bool {
        let Some(edges) = self.edges.get_mut(&entity) else {
            return false;
        };
        let before = edges.len();
        edges.retain(|e| e.origin != origin);
        edges.len() != before
    }

    /// The entity's edges (none for an entity never given a Transform).
    pub(super) fn edges_of(&self, entity: Entity) -> &[Edge] {
        self.edges.get(&entity).map_or(&[], Vec::as_slice)
    }
}

/// Where the pass put one cut-off entity.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Reattached {
    pub(super) parent: Entity,
    /// The timestamp of the write that gave it that parent; `None` when no earlier parent was
    /// connected and it went to the root.
    pub(super) timestamp: Option<u32>,
}

/// A candidate edge in the pass: real edges before the root fallback, then the most recent,
/// then the larger parent and child ids (so every peer pops them in the same order).
struct Candidate<'a> {
    child: Entity,
    edge: Option<&'a Edge>,
}

impl Candidate<'_> {
    fn parent(&self) -> Entity {
        self.edge.map_or(Entity::ROOT, |e| e.parent)
    }
}

impl Ord for Candidate<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.edge, other.edge) {
            (Some(a), Some(b)) => a.recency(b),
            (a, b) => a.is_some().cmp(&b.is_some()),
        }
        .then_with(|| self.parent().cmp(&other.parent()))
        .then_with(|| self.child.cmp(&other.child))
    }
}

impl PartialOrd for Candidate<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate<'_> {}

/// Evan Wallace's reattachment pass: `cut_off` are the entities whose declared parents do not
/// lead to the root (cycle members and everything below them). Edges to a parent that is
/// connected are *ready*; edges to a cut-off parent wait until that parent is reattached.
/// The most recent ready edge is taken first, each entity keeps the first edge taken for it,
/// and an entity with no connected parent at all goes to the root. `is_node` says whether a
/// parent outside `cut_off` is drawn at all (an edge to an entity that is gone is skipped).
pub(super) fn reattach(
    edges: &EdgeMap,
    cut_off: &FxHashSet<Entity>,
    is_node: impl Fn(Entity) -> bool,
) -> FxHashMap<Entity, Reattached> {
    let mut ready = BinaryHeap::new();
    let mut waiting: FxHashMap<Entity, Vec<Candidate>> = FxHashMap::default();
    for &child in cut_off {
        ready.push(Candidate { child, edge: None });
        for edge in edges.edges_of(child) {
            let candidate = Candidate {
                child,
                edge: Some(edge),
            };
            if edge.parent == child {
                continue;
            } else if cut_off.contains(&edge.parent) {
                waiting.entry(edge.parent).or_default().push(candidate);
            } else if edge.parent.is_root() || is_node(edge.parent) {
                ready.push(candidate);
            }
        }
    }
    let mut placed = FxHashMap::default();
    while let Some(top) = ready.pop() {
        if placed.contains_key(&top.child) {
            continue;
        }
        placed.insert(
            top.child,
            Reattached {
                parent: top.parent(),
                timestamp: top.edge.map(|e| e.timestamp),
            },
        );
        if let Some(released) = waiting.remove(&top.child) {
            ready.extend(released);
        }
    }
    placed
}
