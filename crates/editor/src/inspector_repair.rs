//! Repairing the Inspector's tree: what a document reports of `nodes_check` (the entities
//! `inspector::Nodes` misplaces, and the leftovers it rightly leaves out), the one undoable
//! command that repairs it without touching what the author arranged, and the one that
//! removes the leftovers.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use scenetree_core::model::{Entity, ids, present};
use scenetree_dcl::nodes::{Node, Nodes, nodes_id};

use super::command::Command;
use super::document::Document;
use super::nodes_check::{MisplacedCause, NodesMismatches, describe_leftover};
use super::order::built_nodes_in;

/// One entity the repair of the Inspector's tree moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodesMove {
    /// The entity.
    pub entity: Entity,
    /// The entity whose children list holds it now (`None`: none does).
    pub from: Option<Entity>,
    /// The entity whose children list it moves to the end of.
    pub to: Entity,
}

/// The repair of the Inspector's tree: the one command, and what it changes.
#[derive(Clone, Debug)]
pub struct InspectorTreeRepair {
    /// The moves, in the order they are made.
    pub moves: Vec<NodesMove>,
    /// The write of the repaired `inspector::Nodes` (one undoable step).
    pub command: Command,
}

impl Document {
    /// The entities the Inspector's tree (`inspector::Nodes`) places under another parent than
    /// the render tree, and the leftovers (empty without Nodes).
    pub fn inspector_tree_mismatches(&self) -> Arc<NodesMismatches> {
        self.nodes_check.get(self.replica(), self.view())
    }

    /// The repair of the Inspector's tree, with what it changes: each misplaced entity moved
    /// to the end of its effective parent's children list (a parent the tree shows nowhere
    /// first gains a place at the end of the root's), every other entity's place and every
    /// `open` flag kept. Entities on a parenting cycle stay where they are: their Transforms
    /// lead nowhere until the cycle is broken. `None` when nothing can be repaired.
    pub fn inspector_tree_repair(&self) -> Option<InspectorTreeRepair> {
        let mismatches = self.inspector_tree_mismatches();
        let moves: Vec<NodesMove> = (mismatches.list.iter())
            .filter(|m| m.cause != MisplacedCause::OnCycle)
            .map(|m| NodesMove {
                entity: m.entity,
                from: m.in_nodes,
                to: m.effective,
            })
            .collect();
        if moves.is_empty() {
            return None;
        }
        let mut nodes = self.inspector_nodes()?;
        let mut shown: FxHashSet<Entity> = (nodes.nodes.iter())
            .flat_map(|n| n.children.iter().copied())
            .chain(moves.iter().map(|m| m.entity))
            .collect();
        let parents_first: Vec<NodesMove> = (moves.iter())
            .filter(|m| !m.to.is_root() && shown.insert(m.to))
            .map(|m| NodesMove {
                entity: m.to,
                from: None,
                to: Entity::ROOT,
            })
            .collect();
        let moves: Vec<NodesMove> = parents_first.into_iter().chain(moves).collect();
        move_to_ends(&mut nodes, &moves);
        Some(InspectorTreeRepair {
            command: Command::SetComponent {
                entity: Entity::ROOT,
                component: nodes_id(),
                value: Some(nodes.encode()),
            },
            moves,
        })
    }

    /// The command of [`Self::inspector_tree_repair`], or `None`.
    pub fn rebuild_inspector_tree(&self) -> Option<Command> {
        self.inspector_tree_repair().map(|r| r.command)
    }

    /// The command that deletes every leftover (entities holding no Transform and no place in
    /// the Inspector's tree: editor data of deleted entities), one undoable step. `None`
    /// without leftovers.
    pub fn remove_leftovers(&self) -> Option<Command> {
        let mismatches = self.inspector_tree_mismatches();
        (!mismatches.leftovers.is_empty()).then(|| Command::Delete {
            entities: mismatches.leftovers.clone(),
        })
    }

    /// The tooltip of a leftover's row, naming the components it holds.
    pub fn leftover_note(&self, entity: Entity) -> String {
        let replica = self.replica();
        let held: Vec<u32> = (replica.components_of(entity).into_iter())
            .filter(|&c| replica.component_data(entity, c).is_some())
            .collect();
        let names = present::first_named(&held, ", ", |&c| self.component_label(c));
        describe_leftover(&self.display_name(entity), &names)
    }

    /// What the Inspector's `buildNodesHierarchy` builds from the scene's Transforms: the root
    /// first (open), a node for every entity holding a component, each listing the entities
    /// whose Transform names it as parent; siblings in entity order.
    pub fn inspector_tree_rebuilt(&self) -> Nodes {
        built_nodes_in(self.replica(), &self.inspector_engine_order())
    }

    /// The order an Inspector's engine holding this scene visits its entities
    /// (`componentsIter`, then each component's entities), which decides the rebuilt tree's
    /// sibling order: a live scene's as the host's snapshot listed them (its engine's dump);
    /// a composite's Transforms first, then its components in file order, entities by id
    /// within one (JavaScript lists integer keys in order). Empty otherwise (by id).
    fn inspector_engine_order(&self) -> Vec<Entity> {
        if let Some(live) = self.live() {
            return live.snapshot_entity_order().to_vec();
        }
        let Some(composite) = &self.save_context.composite else {
            return Vec::new();
        };
        let replica = self.replica();
        let mut entities: Vec<Entity> = replica.live_entities().collect();
        entities.sort_unstable();
        let components = std::iter::once(ids::TRANSFORM)
            .chain(composite.component_names().filter_map(|(_, id)| id));
        components
            .flat_map(|c| {
                (entities.iter().copied())
                    .filter(move |&e| replica.component_data(e, c).is_some())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// A line for the scene summary: how many entities the Inspector misplaces.
    pub fn inspector_tree_summary(&self) -> Option<String> {
        let mismatches = self.inspector_tree_mismatches();
        (!mismatches.is_empty()).then(|| {
            let names: Vec<String> = (mismatches.list.iter().take(3))
                .map(|m| present::entity_name(m.entity, self.name_of(m.entity).as_deref()))
                .collect();
            let more = mismatches.len().saturating_sub(3);
            format!(
                "≠ {} entit{} the Inspector's tree places elsewhere than the Transforms ({}{})",
                mismatches.len(),
                if mismatches.len() == 1 { "y" } else { "ies" },
                names.join(", "),
                if more > 0 {
                    format!(", {more} more")
                } else {
                    String::new()
                }
            )
        })
    }

    /// A line for the scene summary: how many leftovers the scene holds.
    pub fn leftovers_summary(&self) -> Option<String> {
        let n = self.inspector_tree_mismatches().leftovers.len();
        (n > 0).then(|| {
            format!(
                "{n} leftover{}: editor data of deleted entities, shown by neither the \
                 Inspector nor the runtime",
                if n == 1 { "" } else { "s" }
            )
        })
    }
}

/// Moves each entity of `moves` to the end of its target's children list, in order; every
/// other entry and flag stays. A target without a node gains one (at the end), as does a
/// moved entity (the Inspector's `pushChild`). One pass over the lists whatever the number of
/// moves.
fn move_to_ends(nodes: &mut Nodes, moves: &[NodesMove]) {
    let moving: FxHashSet<Entity> = moves.iter().map(|m| m.entity).collect();
    for node in &mut nodes.nodes {
        node.children.retain(|c| !moving.contains(c));
    }
    let mut index: FxHashMap<Entity, usize> = (nodes.nodes.iter().enumerate())
        .map(|(i, n)| (n.entity, i))
        .collect();
    let mut node_of = |nodes: &mut Nodes, e: Entity| -> usize {
        *index.entry(e).or_insert_with(|| {
            nodes.nodes.push(Node {
                entity: e,
                open: None,
                children: Vec::new(),
            });
            nodes.nodes.len() - 1
        })
    };
    for m in moves {
        let to = node_of(nodes, m.to);
        nodes.nodes[to].children.push(m.entity);
        node_of(nodes, m.entity);
    }
}
