//! Reading a [`PolicyBoard`]: placements, reasons, children, rows, and agreement between peers.

use rustc_hash::FxHashMap;

use super::board::{PeerPolicies, PolicyAgreement};
use super::{Placement, PlacementReason, PolicyBoard, TreePolicy};
use crate::crdt::network::PeerId;
use crate::model::Entity;
use crate::scene::Fallback;

impl PeerPolicies {
    pub(super) fn placement(&self, policy: TreePolicy, entity: Entity) -> Option<Placement> {
        if entity.is_root() || !self.view.contains(entity) {
            return None;
        }
        self.overrides[policy.index()]
            .get(&entity)
            .copied()
            .or_else(|| self.view.effective_parent_of(entity).map(Placement::Under))
    }

    /// `Declared` or `MissingParent`, for an entity under its declared parent.
    fn plain_reason(&self, entity: Entity) -> PlacementReason {
        match self.view.declared_parent_of(entity) {
            Some(p) if !p.is_root() && !self.view.has_transform(p) => {
                PlacementReason::MissingParent
            }
            _ => PlacementReason::Declared,
        }
    }

    fn reason(&self, policy: TreePolicy, entity: Entity) -> Option<PlacementReason> {
        let placement = self.placement(policy, entity)?;
        let declared = self.view.declared_parent_of(entity);
        let under_declared = placement.parent() == declared;
        let cycle = || {
            self.cut_off
                .get(&entity)
                .map(|&i| self.cycles[i].clone())
                .unwrap_or_default()
        };
        Some(match policy {
            TreePolicy::RootFallback => match self.view.fallback_reason(entity) {
                Fallback::Cycle(members) => PlacementReason::CycleAtRoot {
                    cycle: members.to_vec(),
                },
                _ => self.plain_reason(entity),
            },
            TreePolicy::HideCycle => match self.cut_off.get(&entity) {
                Some(&i) if self.cycles[i].contains(&entity) => {
                    PlacementReason::HiddenOnCycle { cycle: cycle() }
                }
                Some(_) => PlacementReason::HiddenBelowCycle { cycle: cycle() },
                None => self.plain_reason(entity),
            },
            TreePolicy::RevertToEarlierParent => {
                match (self.cut_off.contains_key(&entity), placement) {
                    (true, Placement::Under(parent)) if !under_declared => {
                        let timestamp = self
                            .edges
                            .edges_of(entity)
                            .iter()
                            .filter(|e| e.parent == parent)
                            .map(|e| e.timestamp)
                            .max();
                        match timestamp {
                            Some(timestamp) => PlacementReason::Reverted {
                                cycle: cycle(),
                                parent,
                                timestamp,
                            },
                            None => PlacementReason::RevertedToRoot { cycle: cycle() },
                        }
                    }
                    _ => self.plain_reason(entity),
                }
            }
            TreePolicy::IgnoreCyclicChange => match self.ignore.refused.get(&entity) {
                Some(&wanted) => PlacementReason::KeptAfterIgnoredChange { wanted },
                None => self.plain_reason(entity),
            },
            TreePolicy::MoveOpSkip if under_declared => self.plain_reason(entity),
            TreePolicy::MoveOpSkip => match self.moves.last_move(entity) {
                Some((wanted, true)) => PlacementReason::MoveSkipped { wanted },
                _ => match self.moves.waiting_move(entity) {
                    Some(wanted) => PlacementReason::MoveWaiting { wanted },
                    None => PlacementReason::MoveOrder,
                },
            },
        })
    }

    /// Entities placed under each parent by overrides.
    pub(super) fn overridden_children(&self, policy: TreePolicy) -> FxHashMap<Entity, Vec<Entity>> {
        let mut by_parent: FxHashMap<Entity, Vec<Entity>> = FxHashMap::default();
        for (entity, placement) in &self.overrides[policy.index()] {
            if let Placement::Under(parent) = placement
                && self.view.contains(*entity)
            {
                by_parent.entry(*parent).or_default().push(*entity);
            }
        }
        by_parent
    }

    pub(super) fn children(
        &self,
        policy: TreePolicy,
        entity: Entity,
        moved_here: Option<&Vec<Entity>>,
    ) -> Vec<Entity> {
        let overrides = &self.overrides[policy.index()];
        let mut out: Vec<Entity> = self
            .view
            .children_of(entity)
            .filter(|c| !overrides.contains_key(c))
            .chain(moved_here.into_iter().flatten().copied())
            .collect();
        out.sort_unstable();
        out
    }
}

impl PolicyBoard {
    /// Where `policy` draws `entity` for `peer`; `None` for the root, for an entity that is not
    /// a node of the peer's tree, and for an unknown peer.
    pub fn placement(&self, peer: PeerId, policy: TreePolicy, entity: Entity) -> Option<Placement> {
        self.peer(peer)?.placement(policy, entity)
    }

    /// Why `policy` draws `entity` where it does for `peer` (`None` as for [`Self::placement`]).
    pub fn reason(
        &self,
        peer: PeerId,
        policy: TreePolicy,
        entity: Entity,
    ) -> Option<PlacementReason> {
        self.peer(peer)?.reason(policy, entity)
    }

    /// The children `policy` draws under `entity` for `peer`, ascending.
    pub fn children(&self, peer: PeerId, policy: TreePolicy, entity: Entity) -> Vec<Entity> {
        let Some(p) = self.peer(peer) else {
            return Vec::new();
        };
        let overrides = &p.overrides[policy.index()];
        let moved_here: Vec<Entity> = overrides
            .iter()
            .filter(|(e, placement)| {
                **placement == Placement::Under(entity) && p.view.contains(**e)
            })
            .map(|(e, _)| *e)
            .collect();
        p.children(policy, entity, Some(&moved_here))
    }

    /// Every entity `policy` draws for `peer` with its depth (root = 0), parents before
    /// children, children ascending; hidden entities and everything below them are left out.
    /// Iterative, so any depth is fine. Costs the size of the tree: cache it by
    /// [`Self::generation`].
    pub fn preorder(&self, peer: PeerId, policy: TreePolicy) -> Vec<(Entity, u32)> {
        let Some(p) = self.peer(peer) else {
            return Vec::new();
        };
        let moved = p.overridden_children(policy);
        let mut out = Vec::with_capacity(p.view.len());
        let mut stack = vec![(Entity::ROOT, 0u32)];
        while let Some((entity, depth)) = stack.pop() {
            out.push((entity, depth));
            let children = p.children(policy, entity, moved.get(&entity));
            stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
        }
        out
    }

    /// The entities `policy` does not draw for `peer`, ascending.
    pub fn hidden(&self, peer: PeerId, policy: TreePolicy) -> Vec<Entity> {
        let Some(p) = self.peer(peer) else {
            return Vec::new();
        };
        let mut out: Vec<Entity> = p.overrides[policy.index()]
            .iter()
            .filter(|(e, placement)| **placement == Placement::Hidden && p.view.contains(**e))
            .map(|(e, _)| *e)
            .collect();
        out.sort_unstable();
        out
    }

    /// The entities whose placement for `peer` differs between at least two policies,
    /// ascending. Costs the number of entities any policy places differently from the view.
    pub fn disagreements(&self, peer: PeerId) -> Vec<Entity> {
        let Some(p) = self.peer(peer) else {
            return Vec::new();
        };
        let mut out: Vec<Entity> = p
            .overrides
            .iter()
            .flat_map(|o| o.keys().copied())
            .filter(|e| p.view.contains(*e))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether every peer draws the same tree under `policy`: the same entities, each under
    /// the same parent or hidden alike. Cached until a peer's tree for that policy changes;
    /// otherwise it compares every entity of every peer.
    pub fn agreement(&mut self, policy: TreePolicy) -> PolicyAgreement {
        let key: Vec<u64> = self
            .peers
            .iter()
            .map(|p| p.generations[policy.index()])
            .collect();
        if let Some((cached_key, cached)) = &self.agreements[policy.index()]
            && *cached_key == key
        {
            return cached.clone();
        }
        let mut entities: Vec<Entity> = self
            .peers
            .iter()
            .flat_map(|p| p.view.entities())
            .filter(|e| !e.is_root())
            .collect();
        entities.sort_unstable();
        entities.dedup();
        let differing: Vec<Entity> = entities
            .into_iter()
            .filter(|e| {
                let mut placements = self.peers.iter().map(|p| p.placement(policy, *e));
                let first = placements.next().flatten();
                placements.any(|p| p != first)
            })
            .collect();
        let agreement = PolicyAgreement {
            agree: differing.is_empty(),
            differing,
        };
        self.agreements[policy.index()] = Some((key, agreement.clone()));
        agreement
    }
}
