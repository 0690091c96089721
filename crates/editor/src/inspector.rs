//! The Decentraland Inspector's editor components, kept as the Inspector keeps them:
//! `inspector::Nodes` follows every create, delete, duplicate and reparent (when the scene has
//! one), and hide / lock are `inspector::Hide` / `inspector::Lock` values, so a scene edited
//! here opens in the Inspector with the same tree, child order and flags.

use std::collections::{HashMap, HashSet};

use scenetree_core::crdt::Replica;
use scenetree_core::model::Entity;
use scenetree_dcl::nodes::{ChildEdit, Nodes, hide_id, lock_id, nodes_id};

use super::document::Document;
use super::order::{SiblingOrder, built_nodes, place_in_nodes};

/// The `inspector::Nodes` edits of one command: loaded when the scene holds a Nodes value
/// (scenes without one stay without), written once at the end.
pub(super) struct NodesPlan {
    nodes: Option<Nodes>,
    changed: bool,
    /// Moves and copies of a command, applied in one batch before anything else reads or
    /// edits the tree (see [`Nodes::apply_edits`]).
    pending: Vec<ChildEdit>,
}

impl NodesPlan {
    pub(super) fn new(doc: &Document) -> NodesPlan {
        NodesPlan {
            nodes: doc.inspector_nodes(),
            changed: false,
            pending: Vec::new(),
        }
    }

    /// The scene keeps the Inspector's tree, so the Inspector manages it: entities created
    /// here get what the Inspector gives its own.
    pub(super) fn tracks(&self) -> bool {
        self.nodes.is_some()
    }

    fn edit(&mut self, f: impl FnOnce(&mut Nodes)) {
        self.apply_pending();
        if let Some(nodes) = &mut self.nodes {
            f(nodes);
            self.changed = true;
        }
    }

    fn apply_pending(&mut self) {
        if let Some(nodes) = &mut self.nodes
            && !self.pending.is_empty()
        {
            nodes.apply_edits(&self.pending);
            self.pending.clear();
            self.changed = true;
        }
    }

    /// `addChild`: a new entity under `parent`.
    pub(super) fn created(&mut self, parent: Entity, child: Entity) {
        self.edit(|n| n.push_child(parent, child));
    }

    /// `setParent`: `entity` moved from `old` (its Transform's parent, `None` without a
    /// Transform) to `new`; nothing when the parent did not change.
    pub(super) fn reparented(&mut self, entity: Entity, old: Option<Entity>, new: Entity) {
        if old == Some(new) {
            return;
        }
        if self.nodes.is_none() {
            return;
        }
        if let Some(old) = old {
            self.pending.push(ChildEdit::Remove {
                parent: old,
                child: entity,
            });
        }
        self.pending.push(ChildEdit::Insert {
            parent: new,
            child: entity,
            after: None,
        });
    }

    /// `removeEntity` for each of `entities` (whole subtrees): each loses its node and every
    /// mention as a child.
    pub(super) fn deleted(&mut self, entities: &rustc_hash::FxHashSet<Entity>) {
        self.edit(|n| n.remove_nodes(|e| entities.contains(&e)));
    }

    /// `duplicateEntity`: `map` pairs each original of the subtree with its copy; copies are
    /// placed in the order the Inspector places them (its clone walks the subtree children
    /// first, then it inserts in reverse), each copy of a top entity right after its original.
    pub(super) fn duplicated(&mut self, replica: &Replica, map: &[(Entity, Entity)]) {
        if self.nodes.is_none() || map.is_empty() {
            return;
        }
        let copy_of: HashMap<Entity, Entity> = map.iter().copied().collect();
        let originals: HashSet<Entity> = copy_of.keys().copied().collect();
        let parent = |e: Entity| replica.transform(e).map(|t| t.parent);
        // The engine iterates Transforms in creation order: entity order for a loaded scene.
        let mut children: HashMap<Entity, Vec<Entity>> = HashMap::new();
        let mut sorted: Vec<Entity> = originals.iter().copied().collect();
        sorted.sort_unstable();
        for &e in &sorted {
            if let Some(p) = parent(e).filter(|p| originals.contains(p) && *p != e) {
                children.entry(p).or_default().push(e);
            }
        }
        let top = map[0].0;
        let mut post_order = Vec::with_capacity(map.len());
        let mut stack = vec![(top, false)];
        let mut seen = HashSet::new();
        while let Some((e, expanded)) = stack.pop() {
            if expanded {
                post_order.push(e);
                continue;
            }
            if !seen.insert(e) {
                continue;
            }
            stack.push((e, true));
            for &c in children.get(&e).into_iter().flatten().rev() {
                stack.push((c, false));
            }
        }
        self.pending
            .extend(post_order.iter().rev().map(|&original| {
                let child = copy_of[&original];
                let (parent, after) = match parent(original) {
                    None | Some(Entity::ROOT) => (Entity::ROOT, Some(original)),
                    Some(p) => match copy_of.get(&p) {
                        Some(&copied_parent) => (copied_parent, None),
                        None => (p, Some(original)),
                    },
                };
                ChildEdit::Insert {
                    parent,
                    child,
                    after,
                }
            }));
    }

    /// A drop between rows: `movers` under `parent` right after `after` (`None`: first);
    /// `shown` are `parent`'s children in display order. A scene without Nodes gets the value
    /// the Inspector would build on opening it, then the move.
    pub(super) fn placed(
        &mut self,
        replica: &Replica,
        parent: Entity,
        shown: &[Entity],
        movers: &[Entity],
        after: Option<Entity>,
    ) {
        self.apply_pending();
        let before = self.nodes.clone();
        let nodes = self.nodes.get_or_insert_with(|| built_nodes(replica));
        place_in_nodes(nodes, parent, shown, movers, after);
        // A drop where the entities already were writes nothing (and leaves no undo step).
        self.changed |= self.nodes != before;
    }

    /// The register write of the new Nodes value, if anything changed.
    pub(super) fn write(mut self) -> Option<(Entity, u32, Option<Vec<u8>>)> {
        self.apply_pending();
        let nodes = self.nodes.filter(|_| self.changed)?;
        Some((Entity::ROOT, nodes_id(), Some(nodes.encode())))
    }
}

impl Document {
    /// The scene's `inspector::Nodes` (on the root entity), when it has a readable one.
    pub fn inspector_nodes(&self) -> Option<Nodes> {
        let bytes = self.replica().component_data(Entity::ROOT, nodes_id())?;
        Nodes::decode(bytes).ok()
    }

    /// True when the entity carries `inspector::Hide` (hidden in the viewport).
    pub fn is_hidden(&self, entity: Entity) -> bool {
        self.replica().component_data(entity, hide_id()).is_some()
    }

    /// True when the entity carries `inspector::Lock` (not pickable or draggable).
    pub fn is_locked(&self, entity: Entity) -> bool {
        self.replica().component_data(entity, lock_id()).is_some()
    }

    /// The entity and its descendants along Transform parents (the Inspector's
    /// `getComponentEntityTree`), what a hide applies to.
    pub(super) fn transform_tree(&self, entity: Entity) -> Vec<Entity> {
        let mut children: HashMap<Entity, Vec<Entity>> = HashMap::new();
        for e in self.replica().live_entities() {
            if let Some(t) = self.replica().transform(e) {
                children.entry(t.parent).or_default().push(e);
            }
        }
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![entity];
        while let Some(e) = stack.pop() {
            if seen.insert(e) {
                out.push(e);
                stack.extend(children.get(&e).into_iter().flatten().copied());
            }
        }
        out
    }
}

/// The entities that carry `inspector::Hide` and `inspector::Lock`, and the sibling order of
/// `inspector::Nodes`, kept up to date from a replica's change journal (a full scan only when
/// the journal cannot tell).
#[derive(Debug, Default)]
pub struct InspectorFlags {
    journal: u64,
    cursor: u64,
    generation: u64,
    order_generation: u64,
    /// Hidden entities.
    pub hidden: HashSet<Entity>,
    /// Locked entities.
    pub locked: HashSet<Entity>,
    /// The order siblings are shown in (Nodes is a component of the root entity).
    pub sibling_order: SiblingOrder,
}

impl InspectorFlags {
    /// Changes whenever either set changes (to key caches on).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Changes whenever [`Self::sibling_order`] does.
    pub fn order_generation(&self) -> u64 {
        self.order_generation
    }

    fn read_sibling_order(&mut self, replica: &Replica) {
        let nodes = replica
            .component_data(Entity::ROOT, nodes_id())
            .and_then(|bytes| Nodes::decode(bytes).ok());
        self.sibling_order = SiblingOrder::from_nodes(nodes.as_ref());
        self.order_generation += 1;
    }

    /// Catches up with the replica.
    pub fn update(&mut self, replica: &Replica) {
        let (hide, lock) = (hide_id(), lock_id());
        let changes = replica.changes_since(self.cursor);
        let fresh = self.journal != replica.journal_id();
        match changes.entities.filter(|_| !fresh) {
            Some(entities) => {
                if entities.contains(&Entity::ROOT) {
                    self.read_sibling_order(replica);
                }
                // The journal names entities, not components: look at both flags again.
                for &e in entities {
                    for (component, set) in [(hide, &mut self.hidden), (lock, &mut self.locked)] {
                        let changed = if replica.component_data(e, component).is_some() {
                            set.insert(e)
                        } else {
                            set.remove(&e)
                        };
                        self.generation += u64::from(changed);
                    }
                }
            }
            None => {
                let has = |e: Entity, c: u32| replica.component_data(e, c).is_some();
                self.hidden = replica.live_entities().filter(|&e| has(e, hide)).collect();
                self.locked = replica.live_entities().filter(|&e| has(e, lock)).collect();
                self.generation += 1;
                self.read_sibling_order(replica);
            }
        }
        self.journal = replica.journal_id();
        self.cursor = changes.next_cursor;
    }
}
