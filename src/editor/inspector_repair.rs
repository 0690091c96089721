//! Repairing the Inspector's tree: what a document reports of `nodes_check` (the entities
//! `inspector::Nodes` misplaces) and the one undoable command that rebuilds it.

use std::sync::Arc;

use scenetree_core::model::{Entity, ids, present};
use scenetree_dcl::nodes::{Nodes, nodes_id};

use super::command::Command;
use super::document::Document;
use super::nodes_check::NodesMismatches;
use super::order::built_nodes_in;

impl Document {
    /// The entities the Inspector's tree (`inspector::Nodes`) places under another parent than
    /// the render tree (empty without Nodes).
    pub fn inspector_tree_mismatches(&self) -> Arc<NodesMismatches> {
        self.nodes_check.get(self.replica(), self.view())
    }

    /// The command that repairs the Inspector's tree in one undoable step: `inspector::Nodes`
    /// set to what the Inspector's `buildNodesHierarchy` builds from the Transforms (siblings
    /// in entity order). `None` when the scene has no Nodes, it already agrees, or the
    /// rebuild must wait ([`Document::inspector_tree_rebuild_waits`]).
    pub fn rebuild_inspector_tree(&self) -> Option<Command> {
        let mismatches = self.inspector_tree_mismatches();
        if !mismatches.has_nodes || mismatches.is_empty() || self.inspector_tree_rebuild_waits() {
            return None;
        }
        Some(Command::SetComponent {
            entity: Entity::ROOT,
            component: nodes_id(),
            value: Some(self.inspector_tree_rebuilt().encode()),
        })
    }

    /// True while an entity is re-rooted (on a cycle, or under a missing parent): the rebuild
    /// follows the Transforms' parents, which lead nowhere there, so it would misplace those
    /// entities too rather than repair the tree. Resolve them first.
    pub fn inspector_tree_rebuild_waits(&self) -> bool {
        !self.view().rerooted().is_empty()
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
}
