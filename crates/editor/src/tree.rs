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

/// The parenting cycle that the declared parents `new_parents` (entity → parent, overriding
/// what `replica` holds) would close through one of their entities that is not on a cycle
/// now, as its members from that entity along declared parents; `None` when they close none.
/// `on_cycle_now` says whether an entity is on a cycle before the writes. Each entity is
/// walked once, whatever the number of writes and the depth of the tree.
pub fn closed_cycle(
    replica: &Replica,
    new_parents: &FxHashMap<Entity, Entity>,
    on_cycle_now: impl Fn(Entity) -> bool,
) -> Option<Vec<Entity>> {
    let parent_of = |e: Entity| -> Entity {
        new_parents
            .get(&e)
            .copied()
            .unwrap_or_else(|| replica.transform(e).map_or(Entity::ROOT, |t| t.parent))
    };
    // 0: reaches the root or an old cycle; 1: on the walk being made.
    let mut state: FxHashMap<Entity, u8> = FxHashMap::default();
    let mut starts: Vec<Entity> = new_parents.keys().copied().collect();
    starts.sort_unstable();
    for start in starts {
        let mut path = Vec::new();
        let mut cur = start;
        let closed = loop {
            if cur.is_root() {
                break None;
            }
            match state.get(&cur) {
                Some(0) => break None,
                Some(_) => break path.iter().position(|&e| e == cur),
                None => {}
            }
            state.insert(cur, 1);
            path.push(cur);
            cur = parent_of(cur);
        };
        if let Some(at) = closed {
            let members = &path[at..];
            if !members.iter().all(|&e| on_cycle_now(e)) {
                return Some(members.to_vec());
            }
        }
        for e in path {
            state.insert(e, 0);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::model::Transform;

    fn under(replica: &mut Replica, entity: u32, parent: u32) {
        let t = Transform {
            parent: Entity(parent),
            ..Transform::IDENTITY
        };
        replica.put_transform(Entity(entity), &t).unwrap();
    }

    fn writes(list: &[(u32, u32)]) -> FxHashMap<Entity, Entity> {
        list.iter().map(|&(e, p)| (Entity(e), Entity(p))).collect()
    }

    #[test]
    fn a_write_closing_a_loop_names_its_members_and_an_old_cycle_is_not_new() {
        let mut r = Replica::new();
        under(&mut r, 512, 0);
        under(&mut r, 513, 512);
        under(&mut r, 514, 513);
        let never = |_| false;
        assert_eq!(closed_cycle(&r, &writes(&[(513, 0)]), never), None);
        assert_eq!(
            closed_cycle(&r, &writes(&[(512, 514)]), never),
            Some(vec![Entity(512), Entity(514), Entity(513)])
        );
        // Two writes that close a loop only together.
        under(&mut r, 600, 0);
        under(&mut r, 601, 0);
        assert_eq!(
            closed_cycle(&r, &writes(&[(600, 601), (601, 600)]), never),
            Some(vec![Entity(600), Entity(601)])
        );
        // A write to a member of a cycle the scene holds already closes nothing new.
        under(&mut r, 700, 701);
        under(&mut r, 701, 700);
        let old = |e: Entity| e == Entity(700) || e == Entity(701);
        assert_eq!(closed_cycle(&r, &writes(&[(700, 701)]), old), None);
        // A write leading into that old cycle closes nothing either.
        assert_eq!(closed_cycle(&r, &writes(&[(514, 700)]), old), None);
    }

    #[test]
    fn a_deep_chain_is_walked_without_recursion() {
        let mut r = Replica::new();
        let depth = 60_000u32;
        for i in 0..depth {
            let e = 512 + i;
            under(&mut r, e, if i == 0 { 0 } else { e - 1 });
        }
        let top = Entity(512);
        let bottom = Entity(512 + depth - 1);
        let closed = closed_cycle(&r, &writes(&[(512, bottom.0)]), |_| false);
        assert_eq!(closed.map(|m| (m.len(), m[0])), Some((depth as usize, top)));
    }
}
