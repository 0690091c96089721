//! Where a column's tree comes from. The column draws any source of effective parents: a
//! peer's render tree (Decentraland's root fallback), or the tree one [`TreePolicy`] draws for
//! a peer (the Policies view), which also marks the entities the policies place differently.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ui::tree_row::RowBadge;
use scenetree_core::crdt::network::PeerId;
use scenetree_core::model::Entity;
use scenetree_core::scene::SceneView;
use scenetree_core::scene::policy::{PolicyBoard, TreePolicy};
use scenetree_editor::{InspectorFlags, NodesMismatches, SiblingOrder};

/// A tree to draw in a column: the entities in display order with their depths, and why an
/// entity is drawn where it is when that is not under its declared parent.
pub trait TreeSource {
    /// Changes whenever [`Self::rows`] or a badge changes (the column keeps its rows until
    /// then).
    fn generation(&self) -> u64;
    /// Every drawn entity, parents before their children, with its depth (0 = at the root;
    /// the root itself is not listed).
    fn rows(&self) -> Vec<(Entity, u32)>;
    /// The badge of a drawn entity; `name` says what to call an entity.
    fn badge(&self, entity: Entity, name: &dyn Fn(Entity) -> String) -> RowBadge;
    /// True for an entity drawn only because others name it as their parent (it holds no
    /// components).
    fn is_implicit(&self, entity: Entity) -> bool;
    /// True for an entity drawn marked (another view of the same peer places it elsewhere).
    fn is_marked(&self, _entity: Entity) -> bool {
        false
    }
    /// Why a marked entity is drawn where it is, for its tooltip.
    fn mark_note(&self, _entity: Entity, _name: &dyn Fn(Entity) -> String) -> String {
        String::new()
    }
}

/// A peer's render tree as Decentraland draws it (ADR-153): entities on a parenting cycle at
/// the root, a declared parent without a Transform as the identity. Siblings in the peer's
/// `inspector::Nodes` order, as the hierarchy shows them (by id without it).
pub struct RootFallbackTree<'a> {
    /// The peer's render tree.
    pub view: &'a SceneView,
    /// The peer's Inspector flags, for the sibling order.
    pub flags: &'a InspectorFlags,
    /// The entities the peer's `inspector::Nodes` places elsewhere (marked ≠).
    pub nodes: &'a NodesMismatches,
}

/// A tree's generation combined with its sibling order's, so either change rebuilds the rows.
fn with_order(generation: u64, flags: &InspectorFlags) -> u64 {
    // Both only grow; a tree's generation stays far below 2^40.
    generation.wrapping_add(flags.order_generation() << 40)
}

/// A preorder from the root (depth 0) as column rows: the root left out, depths from 0.
pub(super) fn below_root(preorder: Vec<(Entity, u32)>) -> Vec<(Entity, u32)> {
    preorder
        .into_iter()
        .filter(|(e, _)| !e.is_root())
        .map(|(e, depth)| (e, depth - 1))
        .collect()
}

impl TreeSource for RootFallbackTree<'_> {
    fn generation(&self) -> u64 {
        with_order(self.view.generation(), self.flags)
    }

    fn rows(&self) -> Vec<(Entity, u32)> {
        below_root(self.flags.sibling_order.preorder(self.view))
    }

    fn badge(&self, entity: Entity, name: &dyn Fn(Entity) -> String) -> RowBadge {
        RowBadge::of(self.view, entity, name)
    }

    fn is_implicit(&self, entity: Entity) -> bool {
        self.view.is_implicit(entity)
    }

    fn is_marked(&self, entity: Entity) -> bool {
        self.nodes.get(entity).is_some()
    }

    fn mark_note(&self, entity: Entity, name: &dyn Fn(Entity) -> String) -> String {
        self.nodes
            .get(entity)
            .map_or_else(String::new, |m| m.describe(name))
    }
}

/// The tree `policy` draws for `peer`; entities in `differing` (those the policies place
/// differently for this peer) are marked, and their tooltip gives every policy's reason.
pub struct PolicyTree<'a> {
    /// Every policy's tree for every peer.
    pub board: &'a PolicyBoard,
    /// Whose tree.
    pub peer: PeerId,
    /// Under which rule.
    pub policy: TreePolicy,
    /// The entities to mark.
    pub differing: &'a FxHashSet<Entity>,
    /// The peer's Inspector flags, for the sibling order.
    pub flags: &'a InspectorFlags,
}

impl TreeSource for PolicyTree<'_> {
    fn generation(&self) -> u64 {
        with_order(self.board.generation(self.peer, self.policy), self.flags)
    }

    fn rows(&self) -> Vec<(Entity, u32)> {
        let preorder = self.board.preorder(self.peer, self.policy);
        // Every column lists a cycle's members as the render tree does: first, in ring order.
        let rings = self
            .board
            .view(self.peer)
            .map(|v| v.cycles())
            .unwrap_or_default();
        below_root(in_sibling_order(
            &preorder,
            &self.flags.sibling_order,
            &rings,
        ))
    }

    fn badge(&self, entity: Entity, name: &dyn Fn(Entity) -> String) -> RowBadge {
        // The render tree's badges belong to the rule that re-roots; the other policies say
        // why in the mark's tooltip.
        match (self.policy, self.board.view(self.peer)) {
            (TreePolicy::RootFallback, Some(view)) => RowBadge::of(view, entity, name),
            _ => RowBadge::None,
        }
    }

    fn is_implicit(&self, entity: Entity) -> bool {
        self.board
            .view(self.peer)
            .is_some_and(|v| v.is_implicit(entity))
    }

    fn is_marked(&self, entity: Entity) -> bool {
        self.differing.contains(&entity)
    }

    fn mark_note(&self, entity: Entity, name: &dyn Fn(Entity) -> String) -> String {
        policy_reasons(self.board, self.peer, self.policy, entity, name)
    }
}

/// A preorder from the root (depth 0) with every entity's children put in `order` (the
/// policies list them by id: the board lives below the editor, which knows the order).
fn in_sibling_order(
    preorder: &[(Entity, u32)],
    order: &SiblingOrder,
    rings: &[&[Entity]],
) -> Vec<(Entity, u32)> {
    let mut children: FxHashMap<Entity, Vec<Entity>> = FxHashMap::default();
    // path[d] is the entity at depth d on the way to the current row.
    let mut path: Vec<Entity> = Vec::new();
    for &(entity, depth) in preorder {
        path.truncate(depth as usize);
        if let Some(&parent) = path.last() {
            children.entry(parent).or_default().push(entity);
        }
        path.push(entity);
    }
    order.preorder_rings_first(preorder.len(), rings, |e, kids| {
        kids.extend_from_slice(children.get(&e).map_or(&[][..], Vec::as_slice))
    })
}

/// Every policy's placement of `entity` for `peer` and why, one line each, `first` first.
pub fn policy_reasons(
    board: &PolicyBoard,
    peer: PeerId,
    first: TreePolicy,
    entity: Entity,
    name: &dyn Fn(Entity) -> String,
) -> String {
    let mut order = vec![first];
    order.extend(TreePolicy::ALL.into_iter().filter(|p| *p != first));
    let mut lines = vec![format!("The policies place {} differently:", name(entity))];
    for policy in order {
        let Some(placement) = board.placement(peer, policy, entity) else {
            continue;
        };
        let place = match placement.parent() {
            Some(p) if p.is_root() => "at the root".to_string(),
            Some(p) => format!("under {}", name(p)),
            None => "hidden".to_string(),
        };
        let why = board
            .reason(peer, policy, entity)
            .map(|r| r.explain(name))
            .unwrap_or_default();
        lines.push(format!("{}: {place}: {why}", policy.name()));
    }
    lines.join("\n")
}
