//! Sibling order, kept where the Decentraland Inspector keeps it: each entity's children list
//! in `inspector::Nodes`. The tree shows children in that order when the scene has Nodes (by
//! entity id otherwise, and after the listed ones for children Nodes does not list), and a
//! [`Command::Reorder`](super::Command::Reorder) writes it.

use rustc_hash::{FxHashMap, FxHashSet};

use scenetree_core::crdt::Replica;
use scenetree_core::model::Entity;
use scenetree_core::scene::SceneView;
use scenetree_dcl::nodes::{Node, Nodes};

use super::document::Document;

/// Where each entity stands among its siblings, read from an `inspector::Nodes` value.
#[derive(Clone, Debug, Default)]
pub struct SiblingOrder {
    /// Child → (the parent whose Nodes list holds it, its index there). A child listed under
    /// another parent than the one it is drawn under has no rank there.
    rank: FxHashMap<Entity, (Entity, u32)>,
}

impl SiblingOrder {
    /// The order a Nodes value gives (`None`: no Nodes, children by id).
    pub fn from_nodes(nodes: Option<&Nodes>) -> SiblingOrder {
        let mut rank = FxHashMap::default();
        for node in nodes.into_iter().flat_map(|n| &n.nodes) {
            for (i, &child) in node.children.iter().enumerate() {
                rank.insert(child, (node.entity, i as u32));
            }
        }
        SiblingOrder { rank }
    }

    /// The sort key of `child` drawn under `parent`: listed children by their index, then the
    /// others by id.
    fn key(&self, parent: Entity, child: Entity) -> (u32, Entity) {
        match self.rank.get(&child) {
            Some(&(listed_under, i)) if listed_under == parent => (i, child),
            _ => (u32::MAX, child),
        }
    }

    /// Sorts children drawn under `parent` into display order.
    pub fn sort(&self, parent: Entity, children: &mut [Entity]) {
        children.sort_unstable_by_key(|&c| self.key(parent, c));
    }

    /// Every node of the view with its depth (root = 0), parents before children, siblings in
    /// this order, the members of its parenting cycles first at the root (see
    /// [`Self::preorder_rings_first`]). Iterative, so any depth is fine.
    pub fn preorder(&self, view: &SceneView) -> Vec<(Entity, u32)> {
        self.preorder_rings_first(view.len(), &view.cycles(), |e, kids| {
            kids.extend(view.children_of(e))
        })
    }

    /// The same for any tree: `children(e, kids)` appends `e`'s children (in any order) to
    /// `kids`; `len` is a capacity hint.
    pub fn preorder_with(
        &self,
        len: usize,
        children: impl FnMut(Entity, &mut Vec<Entity>),
    ) -> Vec<(Entity, u32)> {
        self.preorder_rings_first(len, &[], children)
    }

    /// [`Self::preorder_with`], with the members of each ring of `rings` (parenting cycles,
    /// each in ring order) that hang at the root first among the root's children, ring by
    /// ring and in ring order: a cycle reads as one group wherever its members' ids or places
    /// in the Nodes list would scatter them, and every view of the same cycle lists it alike.
    pub fn preorder_rings_first(
        &self,
        len: usize,
        rings: &[&[Entity]],
        mut children: impl FnMut(Entity, &mut Vec<Entity>),
    ) -> Vec<(Entity, u32)> {
        let on_ring: FxHashMap<Entity, (usize, usize)> = (rings.iter().enumerate())
            .flat_map(|(r, ring)| ring.iter().enumerate().map(move |(i, &e)| (e, (r, i))))
            .collect();
        self.preorder_from(Entity::ROOT, len, |e, kids| {
            children(e, kids);
            self.sort(e, kids);
            if e.is_root() && !on_ring.is_empty() {
                // Stable, after the sibling sort: the members first, the rest as they were.
                kids.sort_by_key(|k| on_ring.get(k).copied().unwrap_or((usize::MAX, 0)));
            }
        })
    }

    /// `top` and every node drawn below it, parents before children, siblings in this order
    /// (as the hierarchy lists their rows).
    pub fn subtree(&self, view: &SceneView, top: Entity) -> Vec<Entity> {
        self.preorder_from(top, 1, |e, kids| {
            kids.extend(view.children_of(e));
            self.sort(e, kids);
        })
        .into_iter()
        .map(|(e, _)| e)
        .collect()
    }

    /// `top` (depth 0) and every node below it, parents before children, each node's children
    /// in the order `children` appends them.
    fn preorder_from(
        &self,
        top: Entity,
        len: usize,
        mut children: impl FnMut(Entity, &mut Vec<Entity>),
    ) -> Vec<(Entity, u32)> {
        let mut out = Vec::with_capacity(len);
        let mut stack = vec![(top, 0u32)];
        let mut kids = Vec::new();
        while let Some((e, depth)) = stack.pop() {
            out.push((e, depth));
            kids.clear();
            children(e, &mut kids);
            stack.extend(kids.iter().rev().map(|&k| (k, depth + 1)));
        }
        out
    }
}

impl Document {
    /// The scene's sibling order (from `inspector::Nodes`, by id without it).
    pub fn sibling_order(&self) -> SiblingOrder {
        SiblingOrder::from_nodes(self.inspector_nodes().as_ref())
    }

    /// The entities sorted as their rows are (parents before children, siblings in order).
    pub(super) fn in_display_order(&self, mut entities: Vec<Entity>) -> Vec<Entity> {
        let rank: FxHashMap<Entity, usize> = self
            .sibling_order()
            .preorder(self.view())
            .into_iter()
            .enumerate()
            .map(|(i, (e, _))| (e, i))
            .collect();
        entities.sort_by_key(|e| rank.get(e).copied().unwrap_or(usize::MAX));
        entities
    }

    /// The children drawn under `parent`, in display order.
    pub fn ordered_children(&self, parent: Entity) -> Vec<Entity> {
        let mut kids: Vec<Entity> = self.view().children_of(parent).collect();
        self.sibling_order().sort(parent, &mut kids);
        kids
    }
}

/// `movers` (top-level entities, in display order) placed under `parent` right after `after`
/// (`None`: first), as the Inspector's `setParent` then `reorder(source, after or parent,
/// parent)` leave its Nodes, one mover after the other. `shown` are the children drawn under
/// `parent` in display order (the listed ones first): when `after` is a child the list lacks
/// (an entity the Inspector does not track, such as one without a Transform), the unlisted
/// children down to it are listed first, so the movers land where the drop line was; otherwise
/// the list gains nothing but the movers, as in the Inspector.
pub(super) fn place_in_nodes(
    nodes: &mut Nodes,
    parent: Entity,
    shown: &[Entity],
    movers: &[Entity],
    after: Option<Entity>,
) {
    let moving: FxHashSet<Entity> = movers.iter().copied().collect();
    for node in &mut nodes.nodes {
        node.children.retain(|c| !moving.contains(c));
    }
    if nodes.node(parent).is_none() {
        nodes.nodes.push(Node {
            entity: parent,
            open: None,
            children: Vec::new(),
        });
    }
    let node = nodes
        .nodes
        .iter_mut()
        .find(|n| n.entity == parent)
        .expect("just ensured");
    if let Some(a) = after
        && !node.children.contains(&a)
        && let Some(upto) = shown.iter().position(|&c| c == a)
    {
        let listed: FxHashSet<Entity> = node.children.iter().copied().collect();
        node.children.extend(
            shown[..=upto]
                .iter()
                .filter(|c| !listed.contains(c) && !moving.contains(c)),
        );
    }
    let at = after
        .and_then(|a| node.children.iter().position(|&c| c == a))
        .map_or(0, |i| i + 1);
    node.children.splice(at..at, movers.iter().copied());
    // One set of the entities with a node, not a search of the list per mover (quadratic for
    // a large selection).
    let mut with_node: FxHashSet<Entity> = nodes.nodes.iter().map(|n| n.entity).collect();
    for &m in movers {
        if with_node.insert(m) {
            nodes.nodes.push(Node {
                entity: m,
                open: None,
                children: Vec::new(),
            });
        }
    }
}

/// The Nodes value the Inspector builds for a scene that has none when it opens it
/// (`buildNodesHierarchy`): the root first (open), a node for every entity holding a component
/// (here in id order), each listing the entities whose Transform names it as parent (entities
/// without a Transform, or whose parent holds no component, under the root), the player's and
/// camera's nodes empty (last unless they hold components).
pub(super) fn built_nodes(replica: &Replica) -> Nodes {
    built_nodes_in(replica, &[])
}

/// [`built_nodes`] with the entities visited in the Inspector engine's order: `first` (the
/// order its components and their values were defined in), then the others by id.
pub(super) fn built_nodes_in(replica: &Replica, first: &[Entity]) -> Nodes {
    const PLAYER: Entity = Entity(1);
    const CAMERA: Entity = Entity(2);
    let mut rest: Vec<Entity> = replica.live_entities().collect();
    rest.sort_unstable();
    let mut seen = FxHashSet::default();
    let entities: Vec<Entity> = (first.iter().copied())
        .filter(|&e| replica.is_live(e))
        .chain(rest)
        .filter(|&e| seen.insert(e))
        .collect();
    let mut nodes: Vec<Node> = vec![Node {
        entity: Entity::ROOT,
        open: Some(true),
        children: Vec::new(),
    }];
    let mut index: FxHashMap<Entity, usize> = FxHashMap::default();
    index.insert(Entity::ROOT, 0);
    let mut node_of = |nodes: &mut Vec<Node>, e: Entity| -> usize {
        *index.entry(e).or_insert_with(|| {
            nodes.push(Node {
                entity: e,
                open: None,
                children: Vec::new(),
            });
            nodes.len() - 1
        })
    };
    for &e in &entities {
        node_of(&mut nodes, e);
    }
    // Over the nodes as they grow, as the Inspector iterates its Map: a parent that holds no
    // component gains a node here and is then listed under the root itself.
    let mut i = 0;
    while i < nodes.len() {
        let e = nodes[i].entity;
        i += 1;
        if e.is_root() || e == PLAYER || e == CAMERA {
            continue;
        }
        let parent = replica.transform(e).map_or(Entity::ROOT, |t| t.parent);
        // Each entity has one node, visited once: it joins its parent's list once, so no search
        // of that list is needed (quadratic for a flat scene).
        let p = node_of(&mut nodes, parent);
        nodes[p].children.push(e);
    }
    for special in [PLAYER, CAMERA] {
        let i = node_of(&mut nodes, special);
        nodes[i].children.clear();
    }
    Nodes { nodes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::model::{Transform, ids};

    fn node(entity: u32, children: &[u32]) -> Node {
        Node {
            entity: Entity(entity),
            open: None,
            children: children.iter().map(|&c| Entity(c)).collect(),
        }
    }

    fn es(list: &[u32]) -> Vec<Entity> {
        list.iter().map(|&e| Entity(e)).collect()
    }

    #[test]
    fn listed_children_come_in_their_order_then_the_others_by_id() {
        let nodes = Nodes {
            nodes: vec![node(0, &[515, 512]), node(512, &[600])],
        };
        let order = SiblingOrder::from_nodes(Some(&nodes));
        let mut kids = es(&[600, 512, 513, 515]);
        order.sort(Entity::ROOT, &mut kids);
        // 600 is listed under 512, not under the root: it sorts with the unlisted ones.
        assert_eq!(kids, es(&[515, 512, 513, 600]));
        let mut by_id = es(&[515, 513, 512]);
        SiblingOrder::from_nodes(None).sort(Entity::ROOT, &mut by_id);
        assert_eq!(by_id, es(&[512, 513, 515]));
    }

    #[test]
    fn placing_moves_entities_after_a_sibling_or_first_as_the_inspector_reorders() {
        let base = Nodes {
            nodes: vec![node(0, &[512, 513, 514, 515]), node(512, &[520])],
        };
        let shown = es(&[512, 513, 514, 515]);
        // Down: 512 after 514 (the Inspector's reorder puts the source after the target).
        let mut n = base.clone();
        place_in_nodes(&mut n, Entity::ROOT, &shown, &es(&[512]), Some(Entity(514)));
        assert_eq!(n.children_of(Entity::ROOT), es(&[513, 514, 512, 515]));
        // Up, and two entities keep their order.
        let mut n = base.clone();
        place_in_nodes(&mut n, Entity::ROOT, &shown, &es(&[514, 515]), None);
        assert_eq!(n.children_of(Entity::ROOT), es(&[514, 515, 512, 513]));
        // From another parent: it leaves that list and gains a place here.
        let mut n = base.clone();
        place_in_nodes(&mut n, Entity::ROOT, &shown, &es(&[520]), Some(Entity(512)));
        assert_eq!(n.children_of(Entity::ROOT), es(&[512, 520, 513, 514, 515]));
        assert!(n.children_of(Entity(512)).is_empty());
        assert!(n.node(Entity(520)).is_some(), "the mover has a node");
        // Children the list lacks (shown after the listed ones) stay unlisted, as in the
        // Inspector, unless the drop line is below one of them.
        let unlisted = Nodes {
            nodes: vec![node(0, &[513])],
        };
        let shown = es(&[513, 512, 514, 515]);
        let mut n = unlisted.clone();
        place_in_nodes(&mut n, Entity::ROOT, &shown, &es(&[515]), None);
        assert_eq!(n.children_of(Entity::ROOT), es(&[515, 513]));
        let mut n = unlisted.clone();
        place_in_nodes(&mut n, Entity::ROOT, &shown, &es(&[515]), Some(Entity(512)));
        assert_eq!(n.children_of(Entity::ROOT), es(&[513, 512, 515]));
        // A parent without a node gets one.
        let mut n = Nodes::default();
        place_in_nodes(&mut n, Entity(530), &es(&[531, 532]), &es(&[532]), None);
        assert_eq!(n.children_of(Entity(530)), es(&[532]));
    }

    #[test]
    fn a_cycles_members_come_first_at_the_root_together_in_ring_order() {
        let mut r = Replica::new();
        let under = |p: u32| Transform {
            parent: Entity(p),
            ..Transform::IDENTITY
        };
        // 512 and 520 form a cycle; 513..519 at the root between them by id.
        r.put_transform(Entity(512), &under(520)).unwrap();
        r.put_transform(Entity(520), &under(512)).unwrap();
        for e in 513..520 {
            r.put_transform(Entity(e), &under(0)).unwrap();
        }
        let view = SceneView::from_source(&r);
        let order = SiblingOrder::from_nodes(None);
        let rows: Vec<u32> = (order.preorder(&view).into_iter().skip(1))
            .map(|(e, _)| e.0)
            .collect();
        assert_eq!(&rows[..2], [512, 520], "{rows:?}");
        assert_eq!(&rows[2..], [513, 514, 515, 516, 517, 518, 519]);
    }

    #[test]
    fn a_ring_is_listed_first_at_the_root_in_any_tree_that_keeps_one_member_there() {
        // What IgnoreCyclicChange draws for the ring 512 → 520 → 512: 520 stays under 512,
        // so 512 comes first at the root with 520 below it, before 513 and 514.
        let tree: FxHashMap<Entity, Vec<Entity>> = [
            (Entity::ROOT, vec![Entity(513), Entity(512), Entity(514)]),
            (Entity(512), vec![Entity(520)]),
        ]
        .into_iter()
        .collect();
        let ring = [Entity(520), Entity(512)];
        let rows = SiblingOrder::from_nodes(None).preorder_rings_first(5, &[&ring], |e, kids| {
            kids.extend(tree.get(&e).into_iter().flatten())
        });
        let rows: Vec<(u32, u32)> = rows.into_iter().map(|(e, d)| (e.0, d)).collect();
        assert_eq!(rows, [(0, 0), (512, 1), (520, 2), (513, 1), (514, 1)]);
    }

    #[test]
    fn a_scene_without_nodes_gets_the_value_the_inspector_builds() {
        let mut r = Replica::new();
        let under = |p: u32| Transform {
            parent: Entity(p),
            ..Transform::IDENTITY
        };
        r.put_transform(Entity(513), &under(512)).unwrap();
        r.put_transform(Entity(512), &under(0)).unwrap();
        // Below an entity that holds no component (600): 600 is then listed under the root.
        r.put_transform(Entity(514), &under(600)).unwrap();
        // No Transform: under the root. Under the player: the player's list is emptied.
        r.put(
            Entity(515),
            ids::NAME,
            scenetree_core::model::encode_name("x"),
        )
        .unwrap();
        r.put_transform(Entity(516), &under(1)).unwrap();
        let n = built_nodes(&r);
        let entities: Vec<u32> = n.nodes.iter().map(|n| n.entity.0).collect();
        assert_eq!(entities, [0, 512, 513, 514, 515, 516, 600, 1, 2]);
        assert_eq!(n.nodes[0].open, Some(true));
        assert_eq!(n.children_of(Entity::ROOT), es(&[512, 515, 600]));
        assert_eq!(n.children_of(Entity(512)), es(&[513]));
        assert_eq!(n.children_of(Entity(600)), es(&[514]));
        assert!(n.children_of(Entity(1)).is_empty());
    }
}
