//! A forest as a child → parent map that is kept free of cycles by its users: the effective
//! tree of the history-dependent policies. Beside the map, a link-cut tree answers "would
//! this move close a cycle?" in O(log n) amortized; a walk up from the new parent costs the
//! depth, which makes building a deep chain cost the square of its depth.

use rustc_hash::FxHashMap;

use crate::model::Entity;

/// Effective parents; an entity without an entry is at the root.
#[derive(Clone, Debug, Default)]
pub(super) struct ParentMap {
    parents: FxHashMap<Entity, Entity>,
    /// The same forest (entities under the root are tree roots), for ancestor queries.
    forest: LinkCut,
    /// Each entity's node in `forest`, made when it first takes part in a move.
    node_of: FxHashMap<Entity, u32>,
}

impl ParentMap {
    /// The entity's parent (the root when it has none).
    pub(super) fn get(&self, entity: Entity) -> Entity {
        self.parents.get(&entity).copied().unwrap_or(Entity::ROOT)
    }

    /// Sets the entity's parent; returns the previous one. The caller has checked that this
    /// closes no cycle ([`Self::would_cycle`]), or is putting back an earlier parent; a set
    /// that would close one all the same changes nothing (a cycle would make the link-cut
    /// tree's walks endless).
    pub(super) fn set(&mut self, entity: Entity, parent: Entity) -> Entity {
        if !parent.is_root() && self.get(entity) != parent && self.would_cycle(entity, parent) {
            return self.get(entity);
        }
        let old = if parent.is_root() {
            self.parents.remove(&entity)
        } else {
            self.parents.insert(entity, parent)
        };
        let old = old.unwrap_or(Entity::ROOT);
        if old != parent {
            let child = self.node(entity);
            if !old.is_root() {
                self.forest.cut(child);
            }
            if !parent.is_root() {
                let above = self.node(parent);
                self.forest.link(child, above);
            }
        }
        old
    }

    /// True when making `parent` the parent of `entity` would close a cycle: `parent` is
    /// `entity` or one of its descendants.
    pub(super) fn would_cycle(&mut self, entity: Entity, parent: Entity) -> bool {
        if entity == parent {
            return true;
        }
        // An entity without a node has no children, and a parent without one is at the root.
        match (self.node_of.get(&entity), self.node_of.get(&parent)) {
            (Some(&above), Some(&below)) => self.forest.is_ancestor(above, below),
            _ => false,
        }
    }

    fn node(&mut self, entity: Entity) -> u32 {
        let forest = &mut self.forest;
        *self.node_of.entry(entity).or_insert_with(|| forest.add())
    }
}

/// A rooted forest as a link-cut tree (Sleator and Tarjan): each preferred path is a splay tree
/// keyed by depth. Written here because the one link-cut crate (`lctree`) keeps unrooted trees,
/// so an ancestor test there re-roots with reversals; a rooted forest needs neither.
#[derive(Clone, Debug, Default)]
struct LinkCut {
    nodes: Vec<SplayNode>,
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct SplayNode {
    /// Shallower and deeper parts of the node's preferred path.
    children: [u32; 2],
    /// The splay parent, or for a splay root the path parent (the node above its path).
    parent: u32,
}

impl LinkCut {
    /// A new one-node tree.
    fn add(&mut self) -> u32 {
        self.nodes.push(SplayNode {
            children: [NONE; 2],
            parent: NONE,
        });
        (self.nodes.len() - 1) as u32
    }

    /// Hangs the tree rooted at `child` (a tree root) under `parent` (not in that tree).
    fn link(&mut self, child: u32, parent: u32) {
        self.access(child);
        self.nodes[child as usize].parent = parent;
    }

    /// Detaches `child` (not a tree root) from its parent.
    fn cut(&mut self, child: u32) {
        self.access(child);
        let above = self.nodes[child as usize].children[0];
        if above != NONE {
            self.nodes[above as usize].parent = NONE;
            self.nodes[child as usize].children[0] = NONE;
        }
    }

    /// Whether `above` is `below` or one of its ancestors.
    fn is_ancestor(&mut self, above: u32, below: u32) -> bool {
        // The lowest common ancestor is where the path to `below` joins the path to `above`;
        // in different trees it is never `above`.
        self.access(above);
        self.access(below) == above
    }

    /// Makes the path from the root to `x` preferred and `x` the root of its splay tree;
    /// returns the last node where that path joined the previously preferred one.
    fn access(&mut self, x: u32) -> u32 {
        let mut last = NONE;
        let mut at = x;
        while at != NONE {
            self.splay(at);
            self.nodes[at as usize].children[1] = last;
            if last != NONE {
                self.nodes[last as usize].parent = at;
            }
            last = at;
            at = self.nodes[at as usize].parent;
        }
        self.splay(x);
        last
    }

    fn is_splay_root(&self, x: u32) -> bool {
        let parent = self.nodes[x as usize].parent;
        parent == NONE || !self.nodes[parent as usize].children.contains(&x)
    }

    fn splay(&mut self, x: u32) {
        while !self.is_splay_root(x) {
            let parent = self.nodes[x as usize].parent;
            if !self.is_splay_root(parent) {
                let grand = self.nodes[parent as usize].parent;
                let zig_zig = (self.nodes[grand as usize].children[0] == parent)
                    == (self.nodes[parent as usize].children[0] == x);
                self.rotate(if zig_zig { parent } else { x });
            }
            self.rotate(x);
        }
    }

    /// Moves `x` above its splay parent, keeping the in-order (depth) sequence.
    fn rotate(&mut self, x: u32) {
        let parent = self.nodes[x as usize].parent;
        let grand = self.nodes[parent as usize].parent;
        let side = usize::from(self.nodes[parent as usize].children[1] == x);
        let moved = self.nodes[x as usize].children[1 - side];
        if !self.is_splay_root(parent) {
            let g = &mut self.nodes[grand as usize].children;
            let at = usize::from(g[1] == parent);
            g[at] = x;
        }
        self.nodes[x as usize].parent = grand;
        self.nodes[x as usize].children[1 - side] = parent;
        self.nodes[parent as usize].parent = x;
        self.nodes[parent as usize].children[side] = moved;
        if moved != NONE {
            self.nodes[moved as usize].parent = parent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The walk the link-cut tree replaces.
    fn walks_into(tree: &ParentMap, entity: Entity, parent: Entity) -> bool {
        let mut at = parent;
        loop {
            if at == entity {
                return true;
            }
            if at.is_root() {
                return false;
            }
            at = tree.get(at);
        }
    }

    /// Random moves (each applied when it closes no cycle) and undos: every answer matches a
    /// walk up the map.
    #[test]
    fn would_cycle_agrees_with_a_walk_up() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut tree = ParentMap::default();
        let mut history: Vec<(Entity, Entity)> = Vec::new();
        let entity = |rng: &mut ChaCha8Rng| Entity(512 + rng.random_range(0..60));
        for step in 0..30_000 {
            if rng.random_bool(0.1) && !history.is_empty() {
                // Put back the newest move's earlier parent (the move policy's undo).
                let (moved, old) = history.pop().expect("not empty");
                tree.set(moved, old);
                continue;
            }
            let child = entity(&mut rng);
            let parent = if rng.random_bool(0.1) {
                Entity::ROOT
            } else {
                entity(&mut rng)
            };
            let expected = walks_into(&tree, child, parent);
            assert_eq!(tree.would_cycle(child, parent), expected, "step {step}");
            if !expected {
                history.push((child, tree.set(child, parent)));
            }
        }
    }

    #[test]
    fn a_set_that_would_close_a_cycle_changes_nothing() {
        let mut tree = ParentMap::default();
        let (a, b, c) = (Entity(512), Entity(513), Entity(514));
        tree.set(b, a);
        tree.set(c, b);
        assert_eq!(tree.set(a, c), Entity::ROOT, "a stays at the root");
        assert_eq!(tree.get(a), Entity::ROOT);
        assert!(tree.would_cycle(a, c), "and the forest still answers");
        assert!(!tree.would_cycle(c, a));
    }

    #[test]
    fn a_deep_chain_is_built_without_walking_it() {
        let mut tree = ParentMap::default();
        let depth = 100_000;
        for i in 1..depth {
            let (child, parent) = (Entity(512 + i), Entity(512 + i - 1));
            assert!(!tree.would_cycle(child, parent));
            tree.set(child, parent);
        }
        assert!(tree.would_cycle(Entity(512), Entity(512 + depth - 1)));
        assert!(!tree.would_cycle(Entity(512 + depth - 1), Entity(512)));
    }
}
