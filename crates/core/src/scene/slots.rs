//! Slots of a [`SceneView`]: appending nodes, moving subtrees to blocks of their own at the end
//! (which keeps every parent before its children and every subtree a range), and the child
//! lists.

use super::hierarchy::SceneView;
use super::records::{Matrix, NONE, Node, ROOT_SLOT, RelocateScratch, flag};
use crate::model::Entity;

impl SceneView {
    /// Appends a node, a block of its own. Freed slots are never reused: a new node at the end
    /// keeps every parent before its children, and lies in no other node's range.
    pub(super) fn push_slot(&mut self, entity: Entity, flags: u8) -> u32 {
        let s = self.entity.len() as u32;
        self.entity.push(entity);
        self.node.push(Node {
            end: s + 1,
            block: s,
            ..Node::new(flags)
        });
        self.plan = None;
        self.first_child.push(NONE);
        self.next_sibling.push(NONE);
        self.prev_sibling.push(NONE);
        self.local.push(Matrix::identity());
        self.world.push(Matrix::identity());
        self.referrers.push(0);
        self.cycle.push(NONE);
        self.walk.push(NONE);
        self.appended_since_layout += 1;
        self.index.insert(entity, s);
        if s != ROOT_SLOT {
            self.referrers[ROOT_SLOT as usize] += 1;
        }
        s
    }

    /// Moves `root` and its subtree to fresh slots at the end, a new block laid out in
    /// preorder (its outlying children taken in), and links it last under its parent, whose
    /// outlying child it becomes. The old slots become holes whose `walk` names the new slot
    /// (see [`Self::current_slot`]). The moved nodes' worlds are left as the identity: their
    /// parent changed, so the caller recomputes the subtree. Costs O(subtree), no more than
    /// recomputing the subtree's worlds, which the move requires anyway.
    pub(super) fn relocate_subtree(&mut self, root: u32) -> u32 {
        let parent = self.node[root as usize].parent;
        self.unlink(root);
        let RelocateScratch {
            mut order,
            mut stack,
            mut ends,
        } = std::mem::take(&mut self.relocating);
        // Preorder, children in list order (so the new child lists are in slot order).
        order.clear();
        stack.clear();
        stack.push(root);
        while let Some(s) = stack.pop() {
            order.push(s);
            let mut c = self.node[s as usize].last_child;
            while c != NONE {
                stack.push(c);
                c = self.prev_sibling[c as usize];
            }
        }
        for &s in &order {
            self.walk[s as usize] = 1;
        }
        self.count_subtrees(&order);
        let base = self.entity.len() as u32;
        ends.clear();
        ends.extend(
            (order.iter().enumerate()).map(|(i, &s)| base + i as u32 + self.walk[s as usize]),
        );
        for (i, &old) in order.iter().enumerate() {
            self.walk[old as usize] = base + i as u32;
        }
        // The values that move unchanged, one array at a time; then the links, each pointing
        // inside the subtree (the root is unlinked).
        append_gathered(&mut self.entity, &order);
        append_gathered(&mut self.local, &order);
        append_gathered(&mut self.referrers, &order);
        append_gathered(&mut self.cycle, &order);
        let len = self.entity.len();
        self.world.resize(len, Matrix::identity());
        let new_slot = |walk: &[u32], x: u32| if x == NONE { NONE } else { walk[x as usize] };
        self.node.reserve(order.len());
        for (&old, &end) in order.iter().zip(&ends) {
            let o = &self.node[old as usize];
            let moved = Node {
                parent: new_slot(&self.walk, o.parent),
                end,
                last_child: NONE,
                block: base,
                ..*o
            };
            self.node.push(moved);
        }
        self.walk.resize(len, NONE);
        for i in base as usize..len {
            let moved = self.index.move_stored(self.entity[i], i as u32);
            debug_assert!(moved, "a moved node's entity is indexed");
        }
        self.link_block(base as usize, len);
        for &old in &order {
            let o = old as usize;
            self.node[o].flags = flag::FREE;
            self.node[o].parent = NONE;
            self.first_child[o] = NONE;
            self.node[o].last_child = NONE;
            self.next_sibling[o] = NONE;
            self.prev_sibling[o] = NONE;
            self.cycle[o] = NONE;
        }
        self.plan = None;
        self.appended_since_layout += order.len();
        self.relocating = RelocateScratch { order, stack, ends };
        self.link(base, parent);
        base
    }

    /// Turns the 1 in `walk` of every node of `preorder` (a subtree's nodes, its top first)
    /// into the size of the node's subtree: children are added to parents in reverse order.
    pub(super) fn count_subtrees(&mut self, preorder: &[u32]) {
        for &s in preorder.iter().skip(1).rev() {
            let size = self.walk[s as usize];
            self.walk[self.node[s as usize].parent as usize] += size;
        }
    }

    /// Where the node once at `slot` lives now, following relocations; `NONE` if it was freed.
    pub(super) fn current_slot(&self, mut slot: u32) -> u32 {
        while slot != NONE && !self.is_allocated(slot) {
            slot = self.walk[slot as usize];
        }
        slot
    }

    // ----- child lists ---------------------------------------------------------------------

    /// Writes the child lists of the block `from..to`, laid out in preorder with every node's
    /// `parent` and `end` set (`NONE` for the layout's root: every slot): a node's first child
    /// is the next slot when its range holds more than itself, and each child's next sibling
    /// starts where the child's range ends, until its parent's range does. No list is walked.
    /// The block's first node is left unlinked from its own parent.
    pub(super) fn link_block(&mut self, from: usize, to: usize) {
        let end_of = |node: &Node| {
            if node.end == NONE {
                to as u32
            } else {
                node.end
            }
        };
        self.first_child.truncate(from);
        self.first_child.extend(
            (self.node[from..to].iter().zip(from as u32..))
                .map(|(node, s)| if end_of(node) > s + 1 { s + 1 } else { NONE }),
        );
        for links in [&mut self.next_sibling, &mut self.prev_sibling] {
            links.truncate(from);
            links.resize(to, NONE);
        }
        for c in from + 1..to {
            let (p, e) = (self.node[c].parent as usize, self.node[c].end);
            if e < end_of(&self.node[p]) {
                self.next_sibling[c] = e;
                self.prev_sibling[e as usize] = c as u32;
            } else {
                self.node[p].last_child = c as u32;
            }
        }
    }

    pub(super) fn link(&mut self, child: u32, parent: u32) {
        let (c, p) = (child as usize, parent as usize);
        self.node[c].parent = parent;
        self.next_sibling[c] = NONE;
        self.prev_sibling[c] = self.node[p].last_child;
        if self.node[p].last_child == NONE {
            self.first_child[p] = child;
        } else {
            self.next_sibling[self.node[p].last_child as usize] = child;
        }
        self.node[p].last_child = child;
    }

    pub(super) fn unlink(&mut self, child: u32) {
        let c = child as usize;
        let p = self.node[c].parent;
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
            self.node[p as usize].last_child = prev;
        } else {
            self.prev_sibling[next as usize] = prev;
        }
        self.node[c].parent = NONE;
        self.prev_sibling[c] = NONE;
        self.next_sibling[c] = NONE;
    }
}

/// Appends `v[i]` for each `i` of `from` to `v`, in that order.
fn append_gathered<T: Copy>(v: &mut Vec<T>, from: &[u32]) {
    v.reserve(from.len());
    for &i in from {
        let x = v[i as usize];
        v.push(x);
    }
}
