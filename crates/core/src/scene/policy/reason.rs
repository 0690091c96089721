//! Why a policy placed an entity where it did, in words a tooltip or a report can show.

use crate::model::{Entity, present};

/// Why a [`TreePolicy`](super::TreePolicy) placed an entity where it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlacementReason {
    /// Drawn under its declared parent (the root when it has no Transform).
    Declared,
    /// Under its declared parent, which has no Transform: an implicit node at the origin.
    MissingParent,
    /// RootFallback: on a cycle (members in parent order), drawn at the root while it lasts.
    CycleAtRoot { cycle: Vec<Entity> },
    /// HideCycle: on a cycle, not drawn until it is resolved.
    HiddenOnCycle { cycle: Vec<Entity> },
    /// HideCycle: below an entity on a cycle, not drawn until it is resolved.
    HiddenBelowCycle { cycle: Vec<Entity> },
    /// RevertToEarlierParent: cut off from the root by a cycle; drawn under the most recent
    /// parent it was given that is connected, written with `timestamp`.
    Reverted {
        cycle: Vec<Entity>,
        parent: Entity,
        timestamp: u32,
    },
    /// RevertToEarlierParent: cut off by a cycle, and no parent it was ever given is
    /// connected: drawn at the root.
    RevertedToRoot { cycle: Vec<Entity> },
    /// IgnoreCyclicChange: its Transform asks for `wanted`, which is the entity or below it in
    /// this peer's render tree, so the request was ignored and it keeps the parent it had.
    KeptAfterIgnoredChange { wanted: Entity },
    /// MoveOpSkip: its newest move (to `wanted`) would, in (Lamport, peer) order, put it under
    /// itself or its own descendant, so it was skipped.
    MoveSkipped { wanted: Entity },
    /// MoveOpSkip: a move to `wanted` arrived before moves its author had made or received, and
    /// waits for them (as Loro does).
    MoveWaiting { wanted: Entity },
    /// MoveOpSkip: the newest move in (Lamport, peer) order puts it here, not the write that
    /// last-writer-wins kept (or that write was not a move: its author's tree already had
    /// that parent, or had the entity above it).
    MoveOrder,
}

impl PlacementReason {
    /// One sentence for a tooltip or a report; entities are written with `name`.
    pub fn explain(&self, name: impl Fn(Entity) -> String) -> String {
        let ring = |cycle: &[Entity]| present::cycle_ring(cycle, &name);
        match self {
            PlacementReason::Declared => "under its declared parent".to_string(),
            PlacementReason::MissingParent => {
                "under its declared parent, which has no Transform (drawn at the origin)".into()
            }
            PlacementReason::CycleAtRoot { cycle } => {
                format!(
                    "on the cycle {}: drawn at the root while it lasts",
                    ring(cycle)
                )
            }
            PlacementReason::HiddenOnCycle { cycle } => {
                format!("on the cycle {}: hidden until it is resolved", ring(cycle))
            }
            PlacementReason::HiddenBelowCycle { cycle } => format!(
                "below the cycle {}: hidden until it is resolved",
                ring(cycle)
            ),
            PlacementReason::Reverted {
                cycle,
                parent,
                timestamp,
            } => format!(
                "cut off by the cycle {}: back under {}, its most recent parent still connected \
                 to the root (written at timestamp {timestamp})",
                ring(cycle),
                name(*parent)
            ),
            PlacementReason::RevertedToRoot { cycle } => format!(
                "cut off by the cycle {}, and no parent it ever had is connected: at the root",
                ring(cycle)
            ),
            PlacementReason::KeptAfterIgnoredChange { wanted } => format!(
                "its Transform asks for {}, which would close a cycle in this peer's render \
                 tree: the change was ignored and it keeps its parent",
                name(*wanted)
            ),
            PlacementReason::MoveSkipped { wanted } => format!(
                "its newest move, to {}, would close a cycle in (Lamport, peer) order: skipped",
                name(*wanted)
            ),
            PlacementReason::MoveWaiting { wanted } => format!(
                "a move to {} arrived before moves it depends on, and waits for them",
                name(*wanted)
            ),
            PlacementReason::MoveOrder => {
                "the newest move in (Lamport, peer) order puts it here, not the write \
                 last-writer-wins kept"
                    .to_string()
            }
        }
    }
}
