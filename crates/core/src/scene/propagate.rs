//! World-matrix propagation for [`SceneView`]: `world(child) = world(effective parent) * local`,
//! parents first, without recursion.
//!
//! A changed node's subtree is its range of slots, read in order, plus the subtrees of its
//! outlying children (see `hierarchy.rs`). An update recomputes the subtrees of the topmost
//! changed nodes only (a changed node below another is covered by it), each one's range after
//! the other, on every core when they add up to enough slots.

use rayon::prelude::*;

use super::hierarchy::SceneView;
use super::records::{Matrix, NONE, Node, ROOT_SLOT};
use super::shared::SharedSlots;

/// A dirty set larger than `len / FULL_DIVISOR` recomputes every world.
const FULL_DIVISOR: usize = 8;
/// How many topmost changed nodes ahead [`SceneView::recompute_tops`] hints the first lines
/// of a subtree (and half as far, its parent's world, which needs the parent's slot first).
const TOPS_AHEAD: usize = 8;

/// The per-slot fields a subtree recompute reads.
#[derive(Clone, Copy)]
pub(super) struct Links<'a> {
    pub node: &'a [Node],
    pub prev_sibling: &'a [u32],
    pub local: &'a [Matrix],
}

/// Recomputes the world of `top` and of everything below it: its range in slot order, then
/// the outlying children's subtrees met on the way (through `stack`). Returns how many worlds
/// it computed.
///
/// # Safety
/// No other thread accesses the worlds of `top`'s subtree during the call, nor writes the
/// world of `top`'s parent.
// SAFETY: an unsafe fn because only the caller knows which threads touch which subtrees.
pub(super) unsafe fn recompute_subtree(
    links: Links<'_>,
    world: SharedSlots<'_, Matrix>,
    top: u32,
    stack: &mut Vec<u32>,
) -> usize {
    let mut computed = 0;
    stack.push(top);
    while let Some(r) = stack.pop() {
        let r = r as usize;
        let end = (links.node[r].end as usize).min(world.len());
        let nodes = &links.node[r..end];
        let locals = &links.local[r..end];
        for (k, (node, local)) in nodes.iter().zip(locals).enumerate() {
            let p = node.parent;
            if p == NONE {
                continue; // a hole
            }
            // SAFETY: `r + k` is below `end`, clamped to the slots, and `p` is a slot: the
            // top's parent or a node of the subtree computed before this one (parents come
            // first); the subtree's slots are this call's alone.
            unsafe { world.set(r + k, Matrix::new(world.get(p as usize).0 * local.0)) };
            computed += 1;
            // Children outside the range: the tail of the child list (NONE wraps to 0).
            let (last, e) = (node.last_child, node.end);
            if last.wrapping_add(1) > e {
                let mut c = last;
                while c != NONE && c >= e {
                    stack.push(c);
                    c = links.prev_sibling[c as usize];
                }
            }
        }
    }
    computed
}

impl SceneView {
    /// Recomputes every world matrix: one linear pass over the slots, every parent's before
    /// its children's (on every core for a large view, see `sweep.rs`).
    pub fn recompute_all_worlds(&mut self) {
        self.world[ROOT_SLOT as usize] = Matrix::identity();
        self.sweep_all_worlds();
    }

    /// Recomputes the subtrees of `dirty` nodes (repeats allowed, reordered here), each node
    /// once.
    pub(super) fn recompute_dirty_worlds(&mut self, dirty: &mut Vec<u32>) {
        let n = self.len();
        if dirty.len() > n / FULL_DIVISOR {
            self.stats.worlds_recomputed = 0;
            self.recompute_all_worlds();
            return;
        }
        let mut tops = std::mem::take(&mut self.tops);
        self.find_tops(dirty, &mut tops);
        self.recompute_tops(&tops);
        self.tops = tops;
    }

    /// The dirty nodes no other dirty node lies above, in slot order.
    ///
    /// Taken in slot order, a node's in-range ancestors come before it, and the last top found
    /// is the only one whose range can hold it. A node of a block appended since the layout
    /// also lies below its block's first node's parent, looked up the same way.
    fn find_tops(&mut self, dirty: &mut Vec<u32>, tops: &mut Vec<u32>) {
        self.sort_unique(dirty);
        tops.clear();
        for &d in dirty.iter() {
            let inside_last = tops.last().is_some_and(|&t| d < self.node[t as usize].end);
            if !inside_last && !self.below_a_top(d, tops) {
                tops.push(d);
            }
        }
    }

    /// Sorts `slots` and drops repeats: through a bit per slot when they are many enough for
    /// a scan of the bits to cost less than a comparison sort.
    fn sort_unique(&mut self, slots: &mut Vec<u32>) {
        let words = self.node.len().div_ceil(64);
        if slots.len() * 32 < words {
            slots.sort_unstable();
            slots.dedup();
            return;
        }
        let bits = &mut self.dirty_bits;
        bits.clear();
        bits.resize(words, 0);
        for &s in slots.iter() {
            bits[s as usize / 64] |= 1 << (s % 64);
        }
        slots.clear();
        for (w, &word) in bits.iter().enumerate() {
            let mut x = word;
            while x != 0 {
                slots.push(w as u32 * 64 + x.trailing_zeros());
                x &= x - 1;
            }
        }
    }

    /// True when an ancestor of `slot` (reached through the first node of each appended block
    /// it lies in) is in `tops` or lies in a top's range.
    fn below_a_top(&self, slot: u32, tops: &[u32]) -> bool {
        let mut s = slot;
        while s >= self.tail_start {
            s = self.node[self.node[s as usize].block as usize].parent;
            if s == ROOT_SLOT || s == NONE {
                return false;
            }
            let i = tops.partition_point(|&t| t <= s);
            if i > 0 && s < self.node[tops[i - 1] as usize].end {
                return true;
            }
        }
        false
    }

    /// Recomputes the subtrees of `tops` (none below another): on every core when they add
    /// up to at least `parallel_min_slots` slots (each work item a run of consecutive tops),
    /// else on this thread, each run in order with its next subtrees' first lines hinted
    /// ahead (see [`recompute_tops_in_order`]).
    fn recompute_tops(&mut self, tops: &[u32]) {
        let slots: usize = (tops.iter())
            .map(|&t| self.node[t as usize].end as usize - t as usize)
            .sum();
        let links = Links {
            node: &self.node,
            prev_sibling: &self.prev_sibling,
            local: &self.local,
        };
        let parallel = self.runs_in_parallel(slots);
        let world = SharedSlots::new(&mut self.world);
        let computed = if parallel {
            let items = work_items(tops, links.node, self.parallel_chunk);
            (items.par_iter())
                // SAFETY: tops lie in no other top's subtree, so each subtree is one work
                // item's alone, and no top's parent is in any of them.
                .map(|&(from, to)| unsafe {
                    recompute_tops_in_order(links, world, &tops[from..to])
                })
                .sum()
        } else {
            // SAFETY: one thread, and the tops' subtrees do not overlap.
            unsafe { recompute_tops_in_order(links, world, tops) }
        };
        self.stats.worlds_recomputed += computed;
    }
}

/// Recomputes the subtrees of `tops` one after the other, with the first lines of the
/// subtrees [`TOPS_AHEAD`] tops ahead (and half as far, their parents' worlds) hinted, so that
/// the misses of the scattered starts overlap. Returns how many worlds it computed.
///
/// # Safety
/// No other thread accesses the worlds of the tops' subtrees during the call, nor writes the
/// world of a top's parent; no top lies in another's subtree.
// SAFETY: an unsafe fn because only the caller knows which threads touch which subtrees.
#[inline]
unsafe fn recompute_tops_in_order(
    links: Links<'_>,
    world: SharedSlots<'_, Matrix>,
    tops: &[u32],
) -> usize {
    let mut stack = Vec::new();
    let mut computed = 0;
    for (i, &t) in tops.iter().enumerate() {
        if let Some(&far) = tops.get(i + TOPS_AHEAD) {
            let far = far as usize;
            crate::model::prefetch(&links.node[far]);
            crate::model::prefetch(&links.local[far]);
            world.prefetch(far);
        }
        if let Some(&near) = tops.get(i + TOPS_AHEAD / 2) {
            let p = links.node[near as usize].parent;
            if p != NONE {
                world.prefetch(p as usize);
            }
        }
        let node = &links.node[t as usize];
        if node.last_child == NONE && node.parent != NONE {
            // A leaf, the most common top: no range to walk.
            // SAFETY: `t` and its parent are slots (checked: not `NONE`); the leaf's slot is
            // this call's alone (the caller's promise), its parent's is not written.
            unsafe {
                let parent = world.get(node.parent as usize).0;
                world.set(t as usize, Matrix::new(parent * links.local[t as usize].0));
            }
            computed += 1;
            continue;
        }
        // SAFETY: the tops' subtrees are this call's alone and do not overlap (the caller's
        // promise).
        computed += unsafe { recompute_subtree(links, world, t, &mut stack) };
    }
    computed
}

/// Cuts `tops` into runs of about `chunk` slots of ranges each: `(from, to)` indices.
fn work_items(tops: &[u32], node: &[Node], chunk: usize) -> Vec<(usize, usize)> {
    let mut items = Vec::new();
    let (mut from, mut size) = (0, 0);
    for (i, &t) in tops.iter().enumerate() {
        size += node[t as usize].end as usize - t as usize;
        if size >= chunk {
            items.push((from, i + 1));
            (from, size) = (i + 1, 0);
        }
    }
    if from < tops.len() {
        items.push((from, tops.len()));
    }
    items
}
