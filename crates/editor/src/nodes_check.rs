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
use scenetree_core::scene::{Fallback, SceneView};
use scenetree_dcl::nodes::{Nodes, nodes_id};

/// Why the Inspector's tree and the render tree disagree on one entity, read off the entity's
/// state (never a guess at the edits that led there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MisplacedCause {
    /// No children list of `inspector::Nodes` holds it, so the Inspector shows it nowhere.
    NotListed,
    /// It holds no Transform, so the runtime draws it at the root; Nodes lists it elsewhere.
    NoTransform,
    /// Its Transform names another parent than the list holding it.
    OtherParent,
    /// Its Transform's parent chain loops back to it: the runtime draws it at the root.
    OnCycle,
    /// The list holding it belongs to an entity no longer in the scene.
    ListedUnderGone,
}

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
    /// Its Transform's parent (`None`: it holds no Transform).
    pub declared: Option<Entity>,
    /// Why the two trees disagree.
    pub cause: MisplacedCause,
}

impl NodesMismatch {
    /// The badge's tooltip: where each tree puts the entity and why they differ, from the
    /// entity's state; `name` says what to call an entity.
    pub fn describe(&self, name: impl Fn(Entity) -> String) -> String {
        let this = name(self.entity);
        let listed = self.in_nodes.map(&name).unwrap_or_default();
        let drawn = name(self.effective);
        let declared = self.declared.map(&name).unwrap_or_default();
        let why = match self.cause {
            MisplacedCause::NotListed => format!(
                "No children list of the Inspector's tree (inspector::Nodes) holds {this}, so \
                 the Inspector does not show it; the runtime draws it under {drawn}."
            ),
            MisplacedCause::NoTransform => format!(
                "The Inspector's tree lists {this} under {listed}, but {this} holds no \
                 Transform, so the runtime draws it at the root."
            ),
            MisplacedCause::OtherParent => format!(
                "The Inspector's tree lists {this} under {listed}, but its Transform names \
                 {declared} as its parent, where the runtime draws it."
            ),
            MisplacedCause::OnCycle => format!(
                "The Inspector's tree lists {this} under {listed}, but its Transform's parent \
                 ({declared}) leads back to it (a parenting cycle), so the runtime draws it at \
                 the root."
            ),
            MisplacedCause::ListedUnderGone => format!(
                "The Inspector's tree lists {this} under {listed}, which is no longer in the \
                 scene; the runtime draws it under {drawn}."
            ),
        };
        match self.cause {
            MisplacedCause::OnCycle => format!(
                "{why} Break the cycle first; then Repair the Inspector's tree (inspector, \
                 Scene) moves it where its Transform says."
            ),
            _ => format!(
                "{why} Repair the Inspector's tree (inspector, Scene) moves it under {drawn}, \
                 after its other children."
            ),
        }
    }
}

/// The tooltip of a leftover's row: what it holds and why nothing draws it.
pub fn describe_leftover(name: &str, components: &str) -> String {
    format!(
        "{name} holds no Transform and has no place in the Inspector's tree, so neither the \
         Inspector nor the runtime draws it: editor data left by a deleted entity (it holds \
         {components}). Remove leftovers (inspector, Scene) deletes them, undoably."
    )
}

/// The entities where the Inspector's tree and the render tree disagree, by entity, and the
/// leftovers: entities holding no Transform that no Nodes list holds and nothing is drawn
/// under (editor data of deleted entities, which the Inspector shows nowhere), kept apart
/// because the two trees agree on them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodesMismatches {
    /// In entity order.
    pub list: Vec<NodesMismatch>,
    index: FxHashMap<Entity, usize>,
    /// The leftovers, in entity order.
    pub leftovers: Vec<Entity>,
    /// The scene holds an `inspector::Nodes` value (else nothing is compared).
    pub has_nodes: bool,
}

impl NodesMismatches {
    /// The mismatch of `entity`, if any.
    pub fn get(&self, entity: Entity) -> Option<&NodesMismatch> {
        self.index.get(&entity).map(|&i| &self.list[i])
    }

    /// Whether `entity` is a leftover.
    pub fn is_leftover(&self, entity: Entity) -> bool {
        self.leftovers.binary_search(&entity).is_ok()
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
/// is not its effective parent, and the leftovers apart. Nothing when the scene has no
/// readable Nodes.
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
    let mut list = Vec::new();
    let mut leftovers = Vec::new();
    for entity in entities {
        let in_nodes = parent_in_nodes.get(&entity).copied();
        let declared = view
            .has_transform(entity)
            .then(|| view.declared_parent_of(entity).unwrap_or(Entity::ROOT));
        if declared.is_none() && in_nodes.is_none() && !view.has_children(entity) {
            leftovers.push(entity);
            continue;
        }
        let effective = view.effective_parent_of(entity).unwrap_or(Entity::ROOT);
        if in_nodes == Some(effective) {
            continue;
        }
        let cause = match (in_nodes, declared) {
            (None, _) => MisplacedCause::NotListed,
            (Some(_), None) => MisplacedCause::NoTransform,
            (Some(_), Some(_)) if matches!(view.fallback_reason(entity), Fallback::Cycle(_)) => {
                MisplacedCause::OnCycle
            }
            (Some(listed), Some(_)) if !listed.is_root() && !view.contains(listed) => {
                MisplacedCause::ListedUnderGone
            }
            (Some(_), Some(_)) => MisplacedCause::OtherParent,
        };
        list.push(NodesMismatch {
            entity,
            in_nodes,
            effective,
            declared,
            cause,
        });
    }
    let index = list
        .iter()
        .enumerate()
        .map(|(i, m)| (m.entity, i))
        .collect();
    NodesMismatches {
        list,
        index,
        leftovers,
        has_nodes: true,
    }
}

/// [`nodes_mismatches`] kept for one replica and its view: computed again only when the tree's
/// shape, the Nodes value or the replica instance changed (not on every move of a drag).
#[derive(Debug, Default)]
pub struct NodesCheck {
    /// The replica state last looked at: the same state needs no look at all.
    seen: Option<(ReplicaVersion, u64)>,
    /// A hash of the Nodes value as of `seen`, read again only when the root entity (which
    /// holds it) changed since: it is as large as the scene.
    nodes_hash: u64,
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
        let root_unchanged = (self.seen)
            .and_then(|(version, _)| replica.entities_changed_since(version))
            .is_some_and(|changed| !changed.contains(&Entity::ROOT));
        self.seen = Some(seen);
        if !root_unchanged {
            let mut hasher = FxHasher::default();
            if let Some(bytes) = replica.component_data(Entity::ROOT, nodes_id()) {
                hasher.write(bytes);
                hasher.write_u8(1);
            }
            self.nodes_hash = hasher.finish();
        }
        let key = (
            replica.journal_id(),
            view.structure_generation(),
            self.nodes_hash,
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
