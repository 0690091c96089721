//! Where a policy's tree puts things in space: the world matrices of the entities it draws
//! under another parent than the render tree does (and of everything below them), for a
//! viewport that draws one policy.

use glam::Mat4;
use rustc_hash::{FxHashMap, FxHashSet};

use super::board::PeerPolicies;
use super::{Placement, PolicyBoard, TreePolicy};
use crate::crdt::network::PeerId;
use crate::model::Entity;

/// How one policy's drawing of a peer differs in space from the peer's render tree
/// ([`TreePolicy::RootFallback`]): every other entity is drawn with the view's world matrix.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyWorlds {
    /// World matrices (world from local, meters) of the entities whose chain of parents
    /// differs under the policy: those it places elsewhere and everything below them.
    pub moved: FxHashMap<Entity, Mat4>,
    /// Entities the policy does not draw, with everything below them.
    pub hidden: FxHashSet<Entity>,
}

impl PolicyWorlds {
    /// True when the policy draws everything where the render tree does.
    pub fn is_empty(&self) -> bool {
        self.moved.is_empty() && self.hidden.is_empty()
    }
}

impl PeerPolicies {
    fn worlds(&self, policy: TreePolicy) -> PolicyWorlds {
        let overrides = &self.overrides[policy.index()];
        let mut out = PolicyWorlds::default();
        if overrides.is_empty() {
            return out;
        }
        // Everything below an entity placed elsewhere moves (or hides) with it.
        let moved_here = self.overridden_children(policy);
        let mut changed: FxHashSet<Entity> = FxHashSet::default();
        let mut stack: Vec<(Entity, bool)> = overrides
            .iter()
            .filter(|(e, _)| self.view.contains(**e))
            .map(|(e, p)| (*e, *p == Placement::Hidden))
            .collect();
        while let Some((entity, hidden)) = stack.pop() {
            if hidden {
                if !out.hidden.insert(entity) {
                    continue;
                }
            } else if !changed.insert(entity) {
                continue;
            }
            let children = self.children(policy, entity, moved_here.get(&entity));
            stack.extend(children.into_iter().map(|c| (c, hidden)));
        }
        changed.retain(|e| !out.hidden.contains(e));
        // World = the parent's world under the policy × local, parents first. The walk up
        // stops at a parent whose chain is the view's (or one already known); a policy's
        // tree has no cycles, and the step limit keeps a broken one from looping.
        let mut chain = Vec::new();
        for &entity in &changed {
            if out.moved.contains_key(&entity) {
                continue;
            }
            chain.clear();
            let mut current = entity;
            let base = loop {
                if let Some(world) = out.moved.get(&current) {
                    break *world;
                }
                if !changed.contains(&current) || chain.len() > changed.len() {
                    break self.view.world_matrix(current).unwrap_or(Mat4::IDENTITY);
                }
                chain.push(current);
                match self.placement(policy, current) {
                    Some(Placement::Under(parent)) => current = parent,
                    _ => break Mat4::IDENTITY,
                }
            };
            let mut world = base;
            for &e in chain.iter().rev() {
                let local = self.view.local_affine(e).map_or(Mat4::IDENTITY, Mat4::from);
                world *= local;
                out.moved.insert(e, world);
            }
        }
        out
    }
}

impl PolicyBoard {
    /// Where `policy` draws `peer`'s entities in space, as differences from the peer's render
    /// tree (empty for [`TreePolicy::RootFallback`], and for an unknown peer). Costs the
    /// entities placed elsewhere and their subtrees: cache it by [`Self::generation`].
    pub fn worlds(&self, peer: PeerId, policy: TreePolicy) -> PolicyWorlds {
        self.peer(peer)
            .map(|p| p.worlds(policy))
            .unwrap_or_default()
    }
}
