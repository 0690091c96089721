//! The Decentraland Inspector's editor components in a scene: `inspector::Nodes` (the tree the
//! Inspector shows, with each entity's child order, one register on the root entity),
//! `inspector::Hide` and `inspector::Lock` (`{value: boolean}` per entity).
//!
//! [`Nodes`] edits follow the Inspector's own helpers (`@dcl/inspector`, `lib/sdk/nodes.ts`:
//! `pushChild`, `insertChildAfterInNodes`, `removeChild`, `removeNode`), so that a scene edited
//! here opens in the Inspector as if it had been edited there; `oracle/inspector-nodes.cjs`
//! runs the Inspector's operations for the comparison.

use rustc_hash::FxHashMap;
use serde_json::{Value, json};

use super::js::FieldError;
use super::schema::Schema;
use scenetree_core::model::Entity;
use scenetree_core::model::component::component_id_from_name;

/// Component names.
pub const NODES_NAME: &str = "inspector::Nodes";
/// `inspector::Hide`: hidden in the Inspector's viewport (and here).
pub const HIDE_NAME: &str = "inspector::Hide";
/// `inspector::Lock`: not selectable or movable in the Inspector's viewport (and here).
pub const LOCK_NAME: &str = "inspector::Lock";
/// `inspector::TransformConfig`: the Inspector's per-entity Transform settings, which it gives
/// every entity it creates (and adds on an entity's first edit there).
pub const TRANSFORM_CONFIG_NAME: &str = "inspector::TransformConfig";

/// The id of `inspector::Nodes`.
pub fn nodes_id() -> u32 {
    component_id_from_name(NODES_NAME)
}

/// The id of `inspector::Hide`.
pub fn hide_id() -> u32 {
    component_id_from_name(HIDE_NAME)
}

/// The id of `inspector::Lock`.
pub fn lock_id() -> u32 {
    component_id_from_name(LOCK_NAME)
}

/// The id of `inspector::TransformConfig`.
pub fn transform_config_id() -> u32 {
    component_id_from_name(TRANSFORM_CONFIG_NAME)
}

/// The bytes of `inspector::TransformConfig {}`, the value the Inspector gives a new entity.
pub fn transform_config_value() -> Vec<u8> {
    schema(transform_config_id())
        .encode_component(&json!({}))
        .expect("an empty map encodes")
}

/// The `jsonSchema` the Inspector declares for these components (its `COMPONENT_REGISTRY`, as
/// a composite records it), for scenes that were not read from a composite.
pub fn inspector_json_schema(id: u32) -> Option<(&'static str, Value)> {
    let boolean_value = || {
        json!({"type": "object", "properties": {
            "value": {"type": "boolean", "serializationType": "boolean"}},
            "serializationType": "map"})
    };
    if id == nodes_id() {
        let entity = json!({"type": "integer", "serializationType": "entity"});
        Some((
            NODES_NAME,
            json!({"type": "object", "properties": {"value": {"type": "array", "items": {
                "type": "object", "properties": {
                    "entity": entity,
                    "open": {"type": "boolean", "serializationType": "optional",
                        "optionalJsonSchema": {"type": "boolean", "serializationType": "boolean"}},
                    "children": {"type": "array", "items": entity, "serializationType": "array"}},
                "serializationType": "map"}, "serializationType": "array"}},
                "serializationType": "map"}),
        ))
    } else if id == transform_config_id() {
        Some((
            TRANSFORM_CONFIG_NAME,
            json!({"type": "object", "properties": {"porportionalScaling": {
                "type": "boolean", "serializationType": "optional",
                "optionalJsonSchema": {"type": "boolean", "serializationType": "boolean"}}},
                "serializationType": "map"}),
        ))
    } else if id == hide_id() {
        Some((HIDE_NAME, boolean_value()))
    } else if id == lock_id() {
        Some((LOCK_NAME, boolean_value()))
    } else {
        None
    }
}

fn schema(id: u32) -> Schema {
    let (_, json) = inspector_json_schema(id).expect("an Inspector component");
    Schema::from_json_schema(&json).expect("the Inspector's schemas are supported")
}

/// The bytes of `{value: true}`, what the Inspector writes for Hide and Lock.
pub fn flag_value() -> Vec<u8> {
    schema(hide_id())
        .encode_component(&json!({"value": true}))
        .expect("a boolean map encodes")
}

/// Whether a Hide or Lock value says true.
pub fn flag_is_set(bytes: &[u8]) -> bool {
    schema(hide_id())
        .decode(bytes)
        .is_ok_and(|v| v["value"] == Value::Bool(true))
}

/// One entry of `inspector::Nodes`: an entity, whether its row is expanded, its children in
/// the order the Inspector shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The entity.
    pub entity: Entity,
    /// Expanded in the Inspector's tree (`None`: never set).
    pub open: Option<bool>,
    /// Its children, in display order.
    pub children: Vec<Entity>,
}

/// The `inspector::Nodes` value: the Inspector's tree, in its own order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nodes {
    /// The entries in stored order (the root's first in files the Inspector writes).
    pub nodes: Vec<Node>,
}

impl Nodes {
    /// Decodes a stored value.
    pub fn decode(bytes: &[u8]) -> Result<Nodes, FieldError> {
        let json = schema(nodes_id()).decode(bytes)?;
        let entity = |v: &Value| Entity(v.as_u64().unwrap_or(0) as u32);
        let nodes = json["value"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|n| Node {
                        entity: entity(&n["entity"]),
                        open: n["open"].as_bool(),
                        children: n["children"]
                            .as_array()
                            .map(|c| c.iter().map(entity).collect())
                            .unwrap_or_default(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Nodes { nodes })
    }

    /// The bytes the Inspector stores for this value.
    pub fn encode(&self) -> Vec<u8> {
        let value: Vec<Value> = self
            .nodes
            .iter()
            .map(|n| {
                let mut obj = serde_json::Map::new();
                obj.insert("entity".into(), n.entity.0.into());
                if let Some(open) = n.open {
                    obj.insert("open".into(), open.into());
                }
                let children: Vec<Value> = n.children.iter().map(|c| c.0.into()).collect();
                obj.insert("children".into(), children.into());
                Value::Object(obj)
            })
            .collect();
        schema(nodes_id())
            .encode_component(&json!({ "value": value }))
            .expect("a Nodes value always encodes")
    }

    /// The node of an entity.
    pub fn node(&self, entity: Entity) -> Option<&Node> {
        self.nodes.iter().find(|n| n.entity == entity)
    }

    /// The children of an entity in display order (empty when it has no node).
    pub fn children_of(&self, entity: Entity) -> &[Entity] {
        self.node(entity).map_or(&[], |n| &n.children)
    }

    /// The entity whose children list holds `entity` (`getParent`); the root when none does.
    pub fn parent_of(&self, entity: Entity) -> Entity {
        self.nodes
            .iter()
            .find(|n| n.children.contains(&entity))
            .map_or(Entity::ROOT, |n| n.entity)
    }

    /// `pushChild`: append `child` to `parent`'s children unless it is there; give `child` a
    /// node (at the end) unless it has one. A parent without a node gains no child.
    pub fn push_child(&mut self, parent: Entity, child: Entity) {
        self.insert_child(parent, child, None);
    }

    /// `insertChildAfterInNodes`: like [`push_child`](Self::push_child), but right after
    /// `after` when `after` is one of the children.
    pub fn insert_child_after(&mut self, parent: Entity, child: Entity, after: Entity) {
        let index = self
            .children_of(parent)
            .iter()
            .position(|c| *c == after)
            .map(|i| i + 1);
        self.insert_child(parent, child, index);
    }

    /// Inserts `child` among `parent`'s children at `index` (clamped; `None`: at the end),
    /// unless it is there already; gives `child` a node unless it has one.
    pub fn insert_child(&mut self, parent: Entity, child: Entity, index: Option<usize>) {
        if let Some(node) = self.nodes.iter_mut().find(|n| n.entity == parent)
            && !node.children.contains(&child)
        {
            let at = index.map_or(node.children.len(), |i| i.min(node.children.len()));
            node.children.insert(at, child);
        }
        if self.node(child).is_none() {
            self.nodes.push(Node {
                entity: child,
                open: None,
                children: Vec::new(),
            });
        }
    }

    /// Each edit in turn, with the result one call each gives ([`Self::insert_child_after`],
    /// [`Self::push_child`], [`Self::remove_child`]), in time linear in the edits and the lists
    /// they touch: one call each searches the nodes and the list, quadratic for the thousands
    /// of entities a large duplicate or move places.
    pub fn apply_edits(&mut self, edits: &[ChildEdit]) {
        let mut at: FxHashMap<Entity, usize> = FxHashMap::default();
        for (i, node) in self.nodes.iter().enumerate() {
            at.entry(node.entity).or_insert(i);
        }
        // The lists being edited, as linked lists, by node index.
        let mut lists: FxHashMap<usize, LinkedChildren> = FxHashMap::default();
        for edit in edits {
            match *edit {
                ChildEdit::Insert {
                    parent,
                    child,
                    after,
                } => {
                    if let Some(&p) = at.get(&parent) {
                        let list = (lists.entry(p))
                            .or_insert_with(|| LinkedChildren::new(&self.nodes[p].children));
                        list.insert(child, after);
                    }
                    let next = self.nodes.len();
                    if let std::collections::hash_map::Entry::Vacant(slot) = at.entry(child) {
                        slot.insert(next);
                        self.nodes.push(Node {
                            entity: child,
                            open: None,
                            children: Vec::new(),
                        });
                    }
                }
                ChildEdit::Remove { parent, child } => {
                    if let Some(&p) = at.get(&parent) {
                        (lists.entry(p))
                            .or_insert_with(|| LinkedChildren::new(&self.nodes[p].children))
                            .remove(child);
                    }
                }
            }
        }
        for (p, list) in lists {
            self.nodes[p].children = list.into_vec();
        }
    }

    /// `removeChild`: drop `child` from `parent`'s children (its own node stays).
    pub fn remove_child(&mut self, parent: Entity, child: Entity) {
        if let Some(node) = self.nodes.iter_mut().find(|n| n.entity == parent) {
            node.children.retain(|c| *c != child);
        }
    }

    /// `removeNode`: drop the entity's node and every mention of it as a child.
    pub fn remove_node(&mut self, entity: Entity) {
        self.remove_nodes(|e| e == entity);
    }

    /// [`remove_node`](Self::remove_node) for every entity `removed` says, in one pass over
    /// the tree (a delete of many entities costs one pass, not one per entity).
    pub fn remove_nodes(&mut self, removed: impl Fn(Entity) -> bool) {
        self.nodes.retain(|n| !removed(n.entity));
        for n in &mut self.nodes {
            n.children.retain(|&c| !removed(c));
        }
    }
}

/// One edit of a child list, for [`Nodes::apply_edits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChildEdit {
    /// `child` into `parent`'s list right after the first `after` (at the end when `after` is
    /// `None` or not in the list), unless it is there; a node for `child` unless it has one.
    Insert {
        parent: Entity,
        child: Entity,
        after: Option<Entity>,
    },
    /// Every mention of `child` out of `parent`'s list (its own node stays).
    Remove { parent: Entity, child: Entity },
}

/// A child list being edited: cells linked both ways in display order, each entity's cells
/// found by a lookup, so an insert or a removal costs O(1) per cell.
struct LinkedChildren {
    entity: Vec<Entity>,
    next: Vec<usize>,
    prev: Vec<usize>,
    first: usize,
    last: usize,
    /// Each listed entity's cells, in display order (several only where the stored list
    /// repeats it: an insert happens only when an entity is absent).
    cells: FxHashMap<Entity, Vec<usize>>,
}

impl LinkedChildren {
    const END: usize = usize::MAX;

    fn new(children: &[Entity]) -> Self {
        let n = children.len();
        let mut cells: FxHashMap<Entity, Vec<usize>> = FxHashMap::default();
        for (i, &c) in children.iter().enumerate() {
            cells.entry(c).or_default().push(i);
        }
        LinkedChildren {
            entity: children.to_vec(),
            next: (1..=n)
                .map(|i| if i == n { Self::END } else { i })
                .collect(),
            prev: (0..n)
                .map(|i| i.checked_sub(1).unwrap_or(Self::END))
                .collect(),
            first: if n == 0 { Self::END } else { 0 },
            last: n.checked_sub(1).unwrap_or(Self::END),
            cells,
        }
    }

    fn insert(&mut self, child: Entity, after: Option<Entity>) {
        if self.cells.contains_key(&child) {
            return;
        }
        let anchor = after.and_then(|a| self.cells.get(&a)).map(|cells| cells[0]);
        let new = self.entity.len();
        self.entity.push(child);
        self.cells.insert(child, vec![new]);
        let prev = anchor.unwrap_or(self.last);
        let next = match prev {
            Self::END => self.first,
            p => self.next[p],
        };
        self.next.push(next);
        self.prev.push(prev);
        self.relink(prev, new, next, new);
    }

    fn remove(&mut self, child: Entity) {
        for cell in self.cells.remove(&child).unwrap_or_default() {
            let (prev, next) = (self.prev[cell], self.next[cell]);
            self.relink(prev, next, next, prev);
        }
    }

    /// Points `prev` (the front when `END`) forward to `forward`, and `next` (the back when
    /// `END`) back to `backward`.
    fn relink(&mut self, prev: usize, forward: usize, next: usize, backward: usize) {
        match prev {
            Self::END => self.first = forward,
            p => self.next[p] = forward,
        }
        match next {
            Self::END => self.last = backward,
            n => self.prev[n] = backward,
        }
    }

    fn into_vec(self) -> Vec<Entity> {
        let mut out = Vec::with_capacity(self.entity.len());
        let mut c = self.first;
        while c != Self::END {
            out.push(self.entity[c]);
            c = self.next[c];
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_values_match_the_inspector() {
        assert_eq!(nodes_id(), 2_032_030_903);
        assert_eq!(flag_value(), [1]);
        assert!(flag_is_set(&[1]));
        assert!(!flag_is_set(&[0]));
        let nodes = Nodes {
            nodes: vec![
                Node {
                    entity: Entity::ROOT,
                    open: Some(true),
                    children: vec![Entity(512)],
                },
                Node {
                    entity: Entity(512),
                    open: None,
                    children: vec![],
                },
            ],
        };
        assert_eq!(Nodes::decode(&nodes.encode()).unwrap(), nodes);
    }

    #[test]
    fn edits_follow_the_inspector_helpers() {
        let mut n = Nodes::default();
        n.nodes.push(Node {
            entity: Entity::ROOT,
            open: Some(true),
            children: vec![],
        });
        n.push_child(Entity::ROOT, Entity(512));
        n.push_child(Entity::ROOT, Entity(513));
        n.push_child(Entity::ROOT, Entity(512)); // already there: unchanged
        assert_eq!(n.children_of(Entity::ROOT), [Entity(512), Entity(513)]);
        n.insert_child_after(Entity::ROOT, Entity(514), Entity(512));
        assert_eq!(
            n.children_of(Entity::ROOT),
            [Entity(512), Entity(514), Entity(513)]
        );
        n.push_child(Entity(999), Entity(515)); // no node for 999: only 515's node appears
        assert!(n.node(Entity(515)).is_some());
        assert_eq!(n.parent_of(Entity(515)), Entity::ROOT);
        n.remove_child(Entity::ROOT, Entity(514));
        n.push_child(Entity(512), Entity(514));
        assert_eq!(n.parent_of(Entity(514)), Entity(512));
        n.remove_node(Entity(512));
        assert_eq!(n.children_of(Entity::ROOT), [Entity(513)]);
        assert!(
            n.node(Entity(514)).is_some(),
            "removeNode drops only that entity"
        );
        n.insert_child(Entity::ROOT, Entity(516), Some(0));
        assert_eq!(n.children_of(Entity::ROOT), [Entity(516), Entity(513)]);
    }

    proptest::proptest! {
        /// The batch gives what one call per edit gives, whatever the lists hold (repeats,
        /// children without nodes, parents without nodes) and whatever the anchors are (a child
        /// inserted earlier in the batch, one removed, one not in the list, none).
        #[test]
        fn editing_children_in_a_batch_equals_one_call_each(
            lists in proptest::collection::vec(
                (0u32..12, proptest::collection::vec(0u32..12, 0..6)), 0..6),
            edits in proptest::collection::vec(
                (proptest::bool::weighted(0.7), 0u32..14, 0u32..20,
                    proptest::option::of(0u32..20)), 0..24),
        ) {
            let e = |n: u32| Entity(512 + n);
            let nodes = Nodes {
                nodes: lists
                    .iter()
                    .map(|(entity, children)| Node {
                        entity: e(*entity),
                        open: None,
                        children: children.iter().map(|&c| e(c)).collect(),
                    })
                    .collect(),
            };
            let edits: Vec<ChildEdit> = edits
                .iter()
                .map(|&(insert, p, c, a)| match insert {
                    true => ChildEdit::Insert { parent: e(p), child: e(c), after: a.map(e) },
                    false => ChildEdit::Remove { parent: e(p), child: e(c) },
                })
                .collect();
            let mut one_by_one = nodes.clone();
            for edit in &edits {
                match *edit {
                    ChildEdit::Insert { parent, child, after: Some(after) } => {
                        one_by_one.insert_child_after(parent, child, after)
                    }
                    ChildEdit::Insert { parent, child, after: None } => {
                        one_by_one.push_child(parent, child)
                    }
                    ChildEdit::Remove { parent, child } => one_by_one.remove_child(parent, child),
                }
            }
            let mut batched = nodes;
            batched.apply_edits(&edits);
            proptest::prop_assert_eq!(batched, one_by_one);
        }
    }
}
