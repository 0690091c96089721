//! Slots of a [`SceneView`]: appending nodes, moving subtrees behind their parents (which keeps
//! the layout topological), and the child lists.

use glam::Affine3A;

use super::hierarchy::{NONE, ROOT_SLOT, SceneView, flag};
use super::source::NO_HINT;
use crate::model::Entity;

impl SceneView {
    /// Appends a node. Freed slots are never reused: a new node at the end keeps every parent
    /// before its children.
    pub(super) fn push_slot(&mut self, entity: Entity, flags: u8) -> u32 {
        let s = self.entity.len() as u32;
        self.entity.push(entity);
        self.declared.push(Entity::ROOT);
        self.parent.push(NONE);
        self.first_child.push(NONE);
        self.last_child.push(NONE);
        self.next_sibling.push(NONE);
        self.prev_sibling.push(NONE);
        self.local.push(Affine3A::IDENTITY);
        self.world.push(Affine3A::IDENTITY);
        self.flags.push(flags);
        self.referrers.push(0);
        self.cycle.push(NONE);
        self.mark.push(0);
        self.walk.push(NONE);
        self.source_hint.push(NO_HINT);
        self.appended_since_layout += 1;
        self.index.insert(entity, s);
        if s != ROOT_SLOT {
            self.referrers[ROOT_SLOT as usize] += 1;
        }
        s
    }

    /// Moves `root` and its subtree to fresh slots at the end, breadth-first, so that it can
    /// hang under a parent with a larger slot without breaking the topological layout. The
    /// old slots become holes whose `walk` names the new slot (see [`Self::current_slot`]).
    /// Costs O(subtree), no more than recomputing the subtree's worlds, which the move
    /// requires anyway.
    pub(super) fn relocate_subtree(&mut self, root: u32) -> u32 {
        let parent = self.parent[root as usize];
        self.unlink(root);
        let mut order = vec![root];
        let mut head = 0;
        while head < order.len() {
            let mut c = self.first_child[order[head] as usize];
            head += 1;
            while c != NONE {
                order.push(c);
                c = self.next_sibling[c as usize];
            }
        }
        let base = self.entity.len() as u32;
        for (i, &old) in order.iter().enumerate() {
            self.walk[old as usize] = base + i as u32;
        }
        // Every link inside the subtree points inside it; the root is unlinked.
        for &old in &order {
            let o = old as usize;
            let map = |x: u32| {
                if x == NONE {
                    NONE
                } else {
                    self.walk[x as usize]
                }
            };
            let (parent, first, last, next, prev) = (
                map(self.parent[o]),
                map(self.first_child[o]),
                map(self.last_child[o]),
                map(self.next_sibling[o]),
                map(self.prev_sibling[o]),
            );
            let new = self.entity.len() as u32;
            self.entity.push(self.entity[o]);
            self.declared.push(self.declared[o]);
            self.parent.push(parent);
            self.first_child.push(first);
            self.last_child.push(last);
            self.next_sibling.push(next);
            self.prev_sibling.push(prev);
            self.local.push(self.local[o]);
            self.world.push(self.world[o]);
            self.flags.push(self.flags[o]);
            self.referrers.push(self.referrers[o]);
            self.cycle.push(self.cycle[o]);
            self.mark.push(self.mark[o]);
            self.walk.push(NONE);
            self.source_hint.push(self.source_hint[o]);
            self.index.insert(self.entity[o], new);
        }
        for &old in &order {
            let o = old as usize;
            self.flags[o] = flag::FREE;
            self.parent[o] = NONE;
            self.first_child[o] = NONE;
            self.last_child[o] = NONE;
            self.next_sibling[o] = NONE;
            self.prev_sibling[o] = NONE;
            self.cycle[o] = NONE;
        }
        self.link(base, parent);
        base
    }

    /// Where the node once at `slot` lives now, following relocations; `NONE` if it was freed.
    pub(super) fn current_slot(&self, mut slot: u32) -> u32 {
        while slot != NONE && !self.is_allocated(slot) {
            slot = self.walk[slot as usize];
        }
        slot
    }

    // ----- child lists ---------------------------------------------------------------------

    pub(super) fn link(&mut self, child: u32, parent: u32) {
        let (c, p) = (child as usize, parent as usize);
        self.parent[c] = parent;
        self.next_sibling[c] = NONE;
        self.prev_sibling[c] = self.last_child[p];
        if self.last_child[p] == NONE {
            self.first_child[p] = child;
        } else {
            self.next_sibling[self.last_child[p] as usize] = child;
        }
        self.last_child[p] = child;
        if parent > child {
            self.topo_sorted = false;
        }
    }

    pub(super) fn unlink(&mut self, child: u32) {
        let c = child as usize;
        let p = self.parent[c];
        if p == NONE {
            return;
        }
        let (prev, next) = (self.prev_sibling[c], self.next_sibling[c]);
        if prev == NONE {
            self.first_child[p as usize] = next;
        } else {
            self.next_sibling[prev as usize] = next;
        }
        if next == NONE {
            self.last_child[p as usize] = prev;
        } else {
            self.prev_sibling[next as usize] = prev;
        }
        self.parent[c] = NONE;
        self.prev_sibling[c] = NONE;
        self.next_sibling[c] = NONE;
    }
}
