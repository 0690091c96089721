//! Questions about a replica's tree that do not need a document: what lies below an entity,
//! whether a move would close a cycle, which of a set of entities are top-most. The document
//! asks them of its own replica; the Peers panel of any peer's.

use rustc_hash::{FxHashMap, FxHashSet};

use scenetree_core::crdt::Replica;
use scenetree_core::model::Entity;
use scenetree_core::scene::SceneView;

/// `entity` and everything `view` draws below it, parents first (iterative, any depth).
pub fn subtree(view: &SceneView, entity: Entity) -> Vec<Entity> {
    let mut out = Vec::new();
    let mut stack = vec![entity];
    while let Some(e) = stack.pop() {
        out.push(e);
        stack.extend(view.children_of(e));
    }
    out
}

/// True when `ancestor` is `entity`'s effective parent, grandparent, … in `view`.
pub fn is_drawn_below(view: &SceneView, entity: Entity, ancestor: Entity) -> bool {
    let mut cur = entity;
    for _ in 0..=view.len() {
        match view.effective_parent_of(cur) {
            Some(p) if p == ancestor => return true,
            Some(p) if !p.is_root() => cur = p,
            _ => return false,
        }
    }
    false
}

/// True when putting `entity` under `parent` in `replica` would make a parenting cycle:
/// `parent` is `entity` or lies below it along declared parents. `bound` limits the walk (the
/// number of entities drawn: a longer walk has met a cycle that does not hold `entity`).
pub fn would_cycle(replica: &Replica, bound: usize, entity: Entity, parent: Entity) -> bool {
    let mut cur = parent;
    for _ in 0..=bound {
        if cur == entity {
            return true;
        }
        if cur.is_root() {
            return false;
        }
        cur = replica.transform(cur).map_or(Entity::ROOT, |t| t.parent);
    }
    false // an existing cycle upstream that does not contain `entity`
}

/// Keeps only the top-most entities of a set as `view` draws them (a child moves with its
/// selected parent), in the order given, without repeats. The work is proportional to the
/// entities and their ancestors: each ancestor is walked once, however many of the entities
/// lie below it.
pub fn top_level(view: &SceneView, entities: &[Entity]) -> Vec<Entity> {
    let chosen: FxHashSet<Entity> = entities.iter().copied().collect();
    // Entity → whether a chosen entity lies strictly above it, for every node walked.
    let mut below_chosen: FxHashMap<Entity, bool> = FxHashMap::default();
    let mut path = Vec::new();
    let mut out = Vec::new();
    let mut seen = FxHashSet::default();
    for &e in entities {
        if !seen.insert(e) {
            continue;
        }
        // Walk up until a chosen entity, a node already answered, or the top.
        path.clear();
        let mut cur = e;
        let answer = loop {
            match view.effective_parent_of(cur) {
                Some(p) if chosen.contains(&p) => break true,
                Some(p) if !p.is_root() => {
                    if let Some(&known) = below_chosen.get(&p) {
                        break known;
                    }
                    path.push(p);
                    cur = p;
                }
                _ => break false,
            }
        };
        // Every node on the path has the same chosen entity (or none) above it.
        below_chosen.extend(path.iter().map(|&p| (p, answer)));
        if !answer {
            out.push(e);
        }
    }
    out
}
