//! The Inspector's tree against the Transforms. The Decentraland Inspector keeps its tree in
//! `inspector::Nodes`: one last-writer-wins register on the root entity listing every
//! entity's children. When two people change the structure at once, both Transforms survive
//! but only one Nodes value does, and the Inspector then shows some entities under another
//! parent than the runtime draws them (or not at all). This finds them, and builds the value
//! that repairs it: the Inspector's own `buildNodesHierarchy` of the Transforms.

use std::cell::RefCell;
use std::hash::Hasher;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};

use scenetree_core::crdt::{Replica, ReplicaVersion};
use scenetree_core::model::Entity;
use scenetree_core::scene::SceneView;
use scenetree_dcl::nodes::{Nodes, nodes_id};

/// An entity the Inspector's tree places under another parent than the render tree does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodesMismatch {
    /// The entity.
    pub entity: Entity,
    /// The entity whose children list in `inspector::Nodes` holds it (`None`: no list does,
    /// so the Inspector does not show it at all).
    pub in_nodes: Option<Entity>,
    /// Its effective parent: its Transform's parent, or the root while it is on a cycle.
    pub effective: Entity,
}

impl NodesMismatch {
    /// The badge's tooltip, naming both parents.
    pub fn describe(&self, name: impl Fn(Entity) -> String) -> String {
        let nodes = match self.in_nodes {
            Some(p) => format!("under {}", name(p)),
            None => "nowhere (no children list holds it: the Inspector does not show it)".into(),
        };
        format!(
            "The Inspector's tree (inspector::Nodes) puts {} {nodes}; its Transform puts it under \
             {}. Two structural edits at once kept both Transforms but only one Nodes value. \
             Rebuild the Inspector's tree from the Transforms (inspector, Scene) repairs it.",
            name(self.entity),
            name(self.effective)
        )
    }
}

/// The entities where the Inspector's tree and the render tree disagree, by entity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodesMismatches {
    /// In entity order.
    pub list: Vec<NodesMismatch>,
    index: FxHashMap<Entity, usize>,
    /// The scene holds an `inspector::Nodes` value (else nothing is compared).
    pub has_nodes: bool,
}

impl NodesMismatches {
    /// The mismatch of `entity`, if any.
    pub fn get(&self, entity: Entity) -> Option<&NodesMismatch> {
        self.index.get(&entity).map(|&i| &self.list[i])
    }

    /// How many entities disagree.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when the trees agree (or the scene has no Nodes).
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Compares `replica`'s `inspector::Nodes` with `view`'s effective parents: every entity of
/// the scene that holds a component (the engine's reserved ones left out) whose Nodes parent
/// is not its effective parent. Nothing when the scene has no readable Nodes.
pub fn nodes_mismatches(replica: &Replica, view: &SceneView) -> NodesMismatches {
    let Some(nodes) = replica
        .component_data(Entity::ROOT, nodes_id())
        .and_then(|bytes| Nodes::decode(bytes).ok())
    else {
        return NodesMismatches::default();
    };
    // The first list holding an entity is its parent, as the Inspector's getParent finds it.
    let mut parent_in_nodes: FxHashMap<Entity, Entity> = FxHashMap::default();
    for node in &nodes.nodes {
        for &child in &node.children {
            parent_in_nodes.entry(child).or_insert(node.entity);
        }
    }
    let mut entities: Vec<Entity> = (view.entities())
        .filter(|&e| !e.is_reserved() && replica.is_live(e))
        .collect();
    entities.sort_unstable();
    let list: Vec<NodesMismatch> = entities
        .into_iter()
        .filter_map(|entity| {
            let effective = view.effective_parent_of(entity).unwrap_or(Entity::ROOT);
            let in_nodes = parent_in_nodes.get(&entity).copied();
            (in_nodes != Some(effective)).then_some(NodesMismatch {
                entity,
                in_nodes,
                effective,
            })
        })
        .collect();
    let index = list
        .iter()
        .enumerate()
        .map(|(i, m)| (m.entity, i))
        .collect();
    NodesMismatches {
        list,
        index,
        has_nodes: true,
    }
}

/// [`nodes_mismatches`] kept for one replica and its view: computed again only when the tree's
/// shape, the Nodes value or the replica instance changed (not on every move of a drag).
#[derive(Debug, Default)]
pub struct NodesCheck {
    /// The replica state last looked at: the same state needs no look at all.
    seen: Option<(ReplicaVersion, u64)>,
    key: Option<(u64, u64, u64)>,
    found: Arc<NodesMismatches>,
}

impl NodesCheck {
    /// The mismatches of `replica` as `view` (up to date with it) draws it.
    pub fn get(&mut self, replica: &Replica, view: &SceneView) -> Arc<NodesMismatches> {
        let seen = (replica.version(), view.structure_generation());
        if self.seen == Some(seen) {
            return Arc::clone(&self.found);
        }
        self.seen = Some(seen);
        let mut hasher = FxHasher::default();
        if let Some(bytes) = replica.component_data(Entity::ROOT, nodes_id()) {
            hasher.write(bytes);
            hasher.write_u8(1);
        }
        let key = (
            replica.journal_id(),
            view.structure_generation(),
            hasher.finish(),
        );
        if self.key != Some(key) {
            self.key = Some(key);
            self.found = Arc::new(nodes_mismatches(replica, view));
        }
        Arc::clone(&self.found)
    }
}

/// A document's check, behind a cell so that reading it (from `&Document`) can refresh it.
#[derive(Debug, Default)]
pub struct DocumentNodesCheck(RefCell<NodesCheck>);

impl DocumentNodesCheck {
    /// [`NodesCheck::get`] through the cell.
    pub fn get(&self, replica: &Replica, view: &SceneView) -> Arc<NodesMismatches> {
        self.0.borrow_mut().get(replica, view)
    }
}
