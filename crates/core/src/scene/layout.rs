//! Laying every node of a [`SceneView`] out again: the root's subtree as one block in preorder,
//! children by entity id, without holes.

use rayon::prelude::*;

use super::hierarchy::SceneView;
use super::records::{NONE, Node, ROOT_SLOT};

/// A layout gathers its arrays on every core from this many times the slots from which a sweep
/// does (`SceneView::runs_in_parallel`): 262,144 by default.
const PARALLEL_LAYOUT_FACTOR: usize = 8;

impl SceneView {
    /// Renumbers slots in preorder from the root (children by entity id), dropping free slots:
    /// every node's subtree becomes the range `slot..end[slot]`, with no outlying children.
    /// The layout depends on the content only, not on the order the source listed it.
    pub(super) fn relayout(&mut self) {
        self.lay_out(true);
    }

    /// [`Self::relayout`], then every world recomputed: the old worlds are not carried over
    /// (a random read of a 64-byte row per node, for values about to be overwritten).
    pub(super) fn relayout_and_recompute_worlds(&mut self) {
        self.lay_out(false);
        self.recompute_all_worlds();
    }

    fn lay_out(&mut self, keep_worlds: bool) {
        self.layouts += 1;
        let mut order: Vec<u32> = Vec::with_capacity(self.len());
        let mut stack: Vec<u32> = vec![ROOT_SLOT];
        while let Some(s) = stack.pop() {
            order.push(s);
            // Children onto the stack largest entity first, so that the smallest is laid out
            // first: walking a list backwards gives that order, unless children were linked
            // since the last layout; only then is this list's part of the stack sorted.
            let from = stack.len();
            let (mut in_order, mut above) = (true, None);
            let mut c = self.node[s as usize].last_child;
            while c != NONE {
                let entity = self.entity[c as usize];
                in_order &= above.is_none_or(|above| entity < above);
                above = Some(entity);
                stack.push(c);
                c = self.prev_sibling[c as usize];
            }
            if !in_order {
                // Mostly in order: a stable sort merges the runs (the keys are unique).
                stack[from..].sort_by_key(|&k| std::cmp::Reverse(self.entity[k as usize]));
            }
        }
        debug_assert_eq!(
            order.len(),
            self.len(),
            "every node is reachable from the root"
        );
        let n = order.len();
        // Subtree sizes by old slot in `walk` (scratch, reset below), children before parents
        // (reverse preorder); then new slots by old slot in `mark` (likewise).
        self.walk.fill(1);
        self.count_subtrees(&order);
        for (new, &old) in order.iter().enumerate() {
            self.node[old as usize].mark = new as u32;
        }
        // Each node's block: the child of the root it lies under (parents come first).
        for &s in order.iter().skip(1) {
            let p = self.node[s as usize].parent;
            self.node[s as usize].block = if p == ROOT_SLOT {
                self.node[s as usize].mark
            } else {
                self.node[p as usize].block
            };
        }
        // Each array is rewritten through a spare buffer of its element type, kept between
        // layouts (the old array becomes the spare for the next): fresh arrays of megabytes
        // would each be mapped and zeroed by the kernel, then grown again by copies as nodes
        // are appended. Room for half as many again is reserved for those.
        let room = n + n / 2;
        // The gathers below move hundreds of megabytes for a large view: on every core. Not for
        // a scene of Decentraland's size (at most 65,535 entities), which a frequent layout
        // keeps compact: there waking the threads cost more than it saved (the view-every-
        // 1,000-messages bench was ~10% slower on 2 cores).
        let parallel = self.runs_in_parallel(n / PARALLEL_LAYOUT_FACTOR);
        let mut spare = std::mem::take(&mut self.spare_node);
        reuse(&mut spare, room);
        let (nodes, walk) = (&self.node[..], &self.walk[..]);
        let laid_out = |(new, &old): (usize, &u32)| {
            let node = &nodes[old as usize];
            let parent = match node.parent {
                NONE => NONE,
                p => nodes[p as usize].mark,
            };
            Node {
                parent,
                end: new as u32 + walk[old as usize],
                last_child: NONE,
                mark: 0,
                ..*node
            }
        };
        if parallel {
            spare.par_extend(order.par_iter().enumerate().map(laid_out));
        } else {
            spare.extend(order.iter().enumerate().map(laid_out));
        }
        spare[ROOT_SLOT as usize].end = NONE;
        std::mem::swap(&mut self.node, &mut spare);
        self.spare_node = spare;
        let mut spare = std::mem::take(&mut self.spare_u32);
        for v in [&mut self.cycle, &mut self.referrers] {
            permute(v, &mut spare, &order, room, parallel);
        }
        self.spare_u32 = spare;
        let mut spare = std::mem::take(&mut self.spare_entity);
        permute(&mut self.entity, &mut spare, &order, room, parallel);
        self.spare_entity = spare;
        let mut spare = std::mem::take(&mut self.spare_matrix);
        permute(&mut self.local, &mut spare, &order, room, parallel);
        if keep_worlds {
            permute(&mut self.world, &mut spare, &order, room, parallel);
        } else {
            self.world.truncate(n);
        }
        self.spare_matrix = spare;
        self.walk.clear();
        self.walk.resize(n, NONE);
        // The entities are the same, in new slots.
        debug_assert_eq!(self.index.len(), n, "every node is in the order");
        for (s, e) in self.entity.iter().enumerate() {
            let stored = self.index.move_stored(*e, s as u32);
            debug_assert!(stored, "every node's entity is indexed");
        }
        self.tail_start = n as u32;
        self.appended_since_layout = 0;
        self.recomputed_since_layout = 0;
        self.plan = None;
        self.link_block(0, n);
    }
}

/// Rewrites `v` as `v[order[i]]` for each new slot `i`, through `spare` (with room for `room`
/// slots), which gets the old array; on every core when `parallel`.
fn permute<T: Copy + Send + Sync>(
    v: &mut Vec<T>,
    spare: &mut Vec<T>,
    order: &[u32],
    room: usize,
    parallel: bool,
) {
    reuse(spare, room);
    let old = &v[..];
    if parallel {
        // An indexed parallel extend writes into the spare's existing room.
        spare.par_extend(order.par_iter().map(|&s| old[s as usize]));
    } else {
        spare.extend(order.iter().map(|&s| old[s as usize]));
    }
    std::mem::swap(v, spare);
}

/// Empties `spare` with room for `room` elements; a buffer too small is replaced, not grown
/// (growing would copy the stale contents).
fn reuse<T>(spare: &mut Vec<T>, room: usize) {
    spare.clear();
    if spare.capacity() < room {
        *spare = Vec::with_capacity(room);
    }
}
