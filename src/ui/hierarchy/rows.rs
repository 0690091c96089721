//! The hierarchy's rows: the render tree flattened depth-first, siblings in the scene's order,
//! folded subtrees skipped, filtered by the search (matches and their ancestors), and dimmed
//! below hidden entities. The panel keeps them cached under a [`RowsKey`].

use std::collections::HashSet;

use scenetree_core::crdt::ReplicaVersion;
use scenetree_core::model::Entity;
use scenetree_editor::{Document, SiblingOrder};

/// One visible row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Row {
    pub entity: Entity,
    /// Tree depth (0 = a child of the scene root).
    pub depth: u32,
    pub has_children: bool,
    /// The entity or an ancestor is hidden in the viewport.
    pub dimmed: bool,
    /// Editor data of a deleted entity (no Transform, no place in the Inspector's tree):
    /// drawn muted, after every other row.
    pub leftover: bool,
}

/// Key of the cached rows: they are rebuilt when any part changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RowsKey {
    /// The view's `structure_generation`.
    pub structure: u64,
    /// Names only matter for the search filter: `None` while the search box is empty.
    pub replica: Option<ReplicaVersion>,
    /// The folded rows' generation.
    pub collapsed_version: u64,
    /// The hide flags dim rows.
    pub flags: u64,
    /// The sibling order (`InspectorFlags::order_generation`).
    pub order: u64,
    pub search: String,
}

/// Flattens the render tree into rows: depth-first, siblings in `order`, collapsed subtrees skipped;
/// with a search, only matching rows and their ancestors (expanded). Rows at or below a hidden
/// entity are marked dimmed.
pub(super) fn build_rows(
    doc: &Document,
    order: &SiblingOrder,
    collapsed: &HashSet<Entity>,
    hidden: &HashSet<Entity>,
    search: &str,
) -> Vec<Row> {
    let view = doc.view();
    let preorder = order.preorder(view); // includes the root at depth 0
    // dimmed[i]: preorder[i] or an ancestor is hidden. In preorder, the ancestors of a node are
    // the last nodes seen at each smaller depth, so one "hidden from this depth" marker does.
    let mut dimmed = vec![false; preorder.len()];
    if !hidden.is_empty() {
        let mut hidden_from: Option<u32> = None;
        for (i, &(e, depth)) in preorder.iter().enumerate() {
            if hidden_from.is_some_and(|d| depth <= d) {
                hidden_from = None;
            }
            if hidden_from.is_none() && hidden.contains(&e) {
                hidden_from = Some(depth);
            }
            dimmed[i] = hidden_from.is_some();
        }
    }
    let leftovers = doc.inspector_tree_mismatches();
    let row = |i: usize| {
        let (e, depth) = preorder[i];
        Row {
            entity: e,
            depth: depth - 1,
            has_children: view.has_children(e),
            dimmed: dimmed[i],
            leftover: leftovers.is_leftover(e),
        }
    };
    let mut rows = rows_of(doc, &preorder, collapsed, search, row);
    // Leftovers are childless rows at the top level: moved after the others, the tree's
    // shape stays whole.
    if !leftovers.leftovers.is_empty() {
        rows.sort_by_key(|r| r.leftover);
    }
    rows
}

/// The rows of `preorder` (the root first) that are not folded away or filtered out.
fn rows_of(
    doc: &Document,
    preorder: &[(Entity, u32)],
    collapsed: &HashSet<Entity>,
    search: &str,
    row: impl Fn(usize) -> Row,
) -> Vec<Row> {
    let needle = search.trim().to_lowercase();
    if needle.is_empty() {
        let mut rows = Vec::with_capacity(preorder.len());
        let mut skip_below: Option<u32> = None;
        for (i, &(e, depth)) in preorder.iter().enumerate().skip(1) {
            if let Some(d) = skip_below {
                if depth > d {
                    continue;
                }
                skip_below = None;
            }
            let row = row(i);
            if row.has_children && collapsed.contains(&e) {
                skip_below = Some(depth);
            }
            rows.push(row);
        }
        return rows;
    }
    let matches = |e: Entity| matches_search(doc, e, &needle);
    // Keep a node when it or a descendant matches. Scanning the preorder backwards, a node's
    // children are the nodes one level deeper seen since the last node at its depth or above:
    // `below[d]` says whether any of them (at depth d) had a matching subtree.
    let max_depth = preorder.iter().map(|(_, d)| *d as usize).max().unwrap_or(0);
    let mut below = vec![false; max_depth + 2];
    let mut keep = vec![false; preorder.len()];
    for i in (1..preorder.len()).rev() {
        let (e, depth) = preorder[i];
        let d = depth as usize;
        let subtree = matches(e) || below[d + 1];
        below[d + 1] = false;
        below[d] |= subtree;
        keep[i] = subtree;
    }
    (1..preorder.len()).filter(|&i| keep[i]).map(row).collect()
}

/// Whether the search (`needle`, trimmed and lower case) finds `entity`: in its id or its name,
/// or, for `t:Component` (Unity's hierarchy search by type), in the name of a component it
/// holds ("t:gltf" finds `core::GltfContainer`).
pub(super) fn matches_search(doc: &Document, entity: Entity, needle: &str) -> bool {
    if let Some(component) = needle.strip_prefix("t:") {
        let component = component.trim();
        let replica = doc.replica();
        return replica.components_of(entity).into_iter().any(|id| {
            replica.component_data(entity, id).is_some()
                && doc.component_label(id).to_lowercase().contains(component)
        });
    }
    entity.to_string().contains(needle)
        || (doc.name_of(entity)).is_some_and(|n| n.to_lowercase().contains(needle))
}

/// How many entities the search finds (not counting the ancestors shown around them).
pub(super) fn count_matches(doc: &Document, order: &SiblingOrder, search: &str) -> usize {
    let needle = search.trim().to_lowercase();
    if needle.is_empty() {
        return 0;
    }
    (order.preorder(doc.view()).into_iter().skip(1))
        .filter(|&(e, _)| matches_search(doc, e, &needle))
        .count()
}
