//! World-matrix propagation for [`SceneView`]: `world(child) = world(effective parent) * local`,
//! parents first, without recursion.

use glam::Affine3A;

use super::hierarchy::{NONE, ROOT_SLOT, SceneView};

/// A dirty set larger than `len / FULL_DIVISOR` recomputes every world.
const FULL_DIVISOR: usize = 8;
/// In the topological layout, a dirty set of at least `len / SWEEP_DIVISOR` nodes is
/// propagated by one sweep over the slots instead of a walk of each dirty subtree, in views
/// of at least `SWEEP_MIN_NODES` nodes. The sweep reads every slot after the first dirty one
/// but sequentially; the walks touch only the recomputed nodes but at random. Measured on the
/// benchmark forests (benches/propagation.rs): with 1% of the entities changed, walks win
/// while the view fits in the cache (200,000 nodes: 190 µs against 540 µs), the sweep wins
/// beyond it (1,000,000 nodes: 6 ms against 9 ms).
const SWEEP_DIVISOR: usize = 256;
pub(super) const SWEEP_MIN_NODES: usize = 1 << 19;

impl SceneView {
    /// Recomputes every world matrix. In the parents-first layout this is one linear pass over
    /// contiguous arrays (on every core for a large view, see `sweep.rs`); without it, a walk
    /// of the child lists.
    pub fn recompute_all_worlds(&mut self) {
        self.world[ROOT_SLOT as usize] = Affine3A::IDENTITY;
        if self.topo_sorted {
            self.sweep_all_worlds();
        } else {
            let first = self.first_child[ROOT_SLOT as usize];
            if first != NONE {
                self.recompute_subtrees(&[first], true);
            }
        }
    }

    /// Recomputes the subtrees of `dirty` nodes (repeats allowed), each node once: a dirty node
    /// below another dirty node is covered by the upper one's pass.
    pub(super) fn recompute_dirty_worlds(&mut self, dirty: &[u32]) {
        let n = self.len();
        if dirty.len() > n / FULL_DIVISOR {
            self.stats.worlds_recomputed = 0;
            self.recompute_all_worlds();
        } else if self.topo_sorted && n >= self.sweep_min_nodes && dirty.len() >= n / SWEEP_DIVISOR
        {
            self.sweep_dirty(dirty);
        } else {
            self.recompute_dirty_subtrees(dirty);
        }
    }

    /// Propagates dirtiness in one pass over the slots from the first dirty one: with every
    /// parent before its children, a node must be recomputed when it is dirty or its parent
    /// is. The pass reads two small arrays sequentially; the recomputation then visits only
    /// the nodes found, in slot order.
    fn sweep_dirty(&mut self, dirty: &[u32]) {
        debug_assert!(self.topo_sorted);
        let pass = self.next_pass();
        let n = self.world.len();
        let mut first = n;
        for &d in dirty {
            self.mark[d as usize] = pass;
            first = first.min(d as usize);
        }
        // The list of nodes to recompute goes into the `walk` scratch array (a node's entry
        // never lands after its own slot), so the sweep allocates nothing. The loop body is
        // branch-free on the dirty test, which is unpredictable.
        let mut todo = std::mem::take(&mut self.walk);
        let mut len = first;
        {
            let mark = &mut self.mark[..n];
            for (s, &p) in self.parent.iter().enumerate().take(n).skip(first) {
                if p == NONE {
                    continue; // the root or a hole
                }
                let hit = (mark[s] == pass) | (mark[p as usize] == pass);
                mark[s] = if hit { pass } else { mark[s] };
                todo[len] = s as u32;
                len += usize::from(hit);
            }
        }
        self.recompute_listed(&todo[first..len], n - first);
        self.walk = todo;
    }

    /// Recomputes the listed nodes, in order (parents before children). `span` is the slot
    /// range they were taken from: for a sparse list, the matrices of the node
    /// `AHEAD` places on are hinted into the cache (hints retire at once, so many misses are
    /// in flight together instead of stalling the multiplications one by one); a dense list
    /// is read in memory order and needs no help.
    fn recompute_listed(&mut self, slots: &[u32], span: usize) {
        const AHEAD: usize = 16;
        let sparse = slots.len() * 4 < span;
        for (i, &s) in slots.iter().enumerate() {
            // The parent's slot is needed to hint its world, so it is hinted twice as far
            // ahead: read without it, it stalls the loop (perf: a third of the time here).
            if sparse && let Some(&far) = slots.get(i + 2 * AHEAD) {
                crate::model::prefetch(&self.parent[far as usize]);
            }
            if sparse && let Some(&ahead) = slots.get(i + AHEAD) {
                let ahead = ahead as usize;
                // The node's own world row too, so that the store does not wait.
                crate::model::prefetch(&self.local[ahead]);
                crate::model::prefetch(&self.world[ahead]);
                crate::model::prefetch(&self.world[self.parent[ahead] as usize]);
            }
            let s = s as usize;
            self.world[s] = self.world[self.parent[s] as usize] * self.local[s];
        }
        self.stats.worlds_recomputed += slots.len();
    }

    /// Walks the subtree of every dirty node that is not below another dirty node.
    fn recompute_dirty_subtrees(&mut self, dirty: &[u32]) {
        if self.topo_sorted {
            self.recompute_dirty_subtrees_in_slot_order(dirty);
        } else {
            self.recompute_dirty_subtrees_from_tops(dirty);
        }
    }

    /// In the parents-first layout, an ancestor has a smaller slot than its descendants: taken
    /// in slot order, a dirty node below another dirty node was already reached (and stamped)
    /// by the upper one's walk. No walk up to the root, unlike [`Self::recompute_dirty_subtrees_from_tops`].
    ///
    /// Two phases: the walks (breadth-first within each subtree) only list the slots, reading
    /// the small child-list arrays, then [`Self::recompute_listed`] computes the listed worlds in that
    /// order (parents before children) with the matrices loaded ahead, so that the misses on
    /// the large matrix arrays overlap instead of stalling the walk node by node.
    fn recompute_dirty_subtrees_in_slot_order(&mut self, dirty: &[u32]) {
        let pass = self.next_pass();
        let mut starts = dirty.to_vec();
        starts.sort_unstable();
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        for (i, &start) in starts.iter().enumerate() {
            // Most subtrees are small (a few nodes), so the misses worth hiding are those of
            // the next starts: hinted two stages ahead, the start's own fields far ahead, then
            // (cached by now) its first child's, which the walk below reads next.
            if let Some(&far) = starts.get(i + 16) {
                crate::model::prefetch(&self.first_child[far as usize]);
                crate::model::prefetch(&self.mark[far as usize]);
            }
            if let Some(&near) = starts.get(i + 8) {
                let first = self.first_child[near as usize];
                if first != NONE {
                    crate::model::prefetch(&self.next_sibling[first as usize]);
                    crate::model::prefetch(&self.first_child[first as usize]);
                    crate::model::prefetch(&self.mark[first as usize]);
                }
            }
            if self.mark[start as usize] == pass {
                continue;
            }
            self.mark[start as usize] = pass;
            // Breadth-first, with `order` as the queue: the next node's child list is known
            // long before it is read, so its loads overlap with the current node's.
            let mut head = order.len();
            order.push(start);
            while let Some(&s) = order.get(head) {
                head += 1;
                if let Some(&ahead) = order.get(head + 8) {
                    crate::model::prefetch(&self.first_child[ahead as usize]);
                }
                let mut c = self.first_child[s as usize];
                while c != NONE {
                    self.mark[c as usize] = pass;
                    order.push(c);
                    c = self.next_sibling[c as usize];
                }
            }
        }
        self.recompute_listed(&order, usize::MAX);
        self.order = order;
    }

    /// Finds the topmost dirty nodes by walking up from each, then walks each one's subtree.
    fn recompute_dirty_subtrees_from_tops(&mut self, dirty: &[u32]) {
        // Mark the dirty set (dropping repeats), then find the topmost dirty nodes. Walking up
        // from a dirty node stops at the root, at a dirty node, or at a node already
        // classified in this pass, so each node is visited at most once overall. `walk` holds
        // the classification: 1 = dirty or below a dirty node, 0 = clean path to the root.
        let pass = self.next_pass();
        let mut unique = Vec::with_capacity(dirty.len());
        for &d in dirty {
            if self.mark[d as usize] != pass {
                self.mark[d as usize] = pass;
                self.walk[d as usize] = 1;
                unique.push(d);
            }
        }
        let mut tops = Vec::new();
        let mut path = Vec::new();
        for &d in &unique {
            path.clear();
            let mut p = self.parent[d as usize];
            let covered = loop {
                if p == NONE || p == ROOT_SLOT {
                    break 0;
                }
                if self.mark[p as usize] == pass {
                    break self.walk[p as usize];
                }
                path.push(p);
                p = self.parent[p as usize];
            };
            for &n in &path {
                self.mark[n as usize] = pass;
                self.walk[n as usize] = covered;
            }
            if covered == 0 {
                tops.push(d);
            }
        }
        self.recompute_subtrees(&tops, false);
    }

    /// Recomputes the world of each start node and everything below it. With `siblings`, the
    /// starts' following siblings are included too (used to sweep all of the root's children).
    fn recompute_subtrees(&mut self, starts: &[u32], siblings: bool) {
        let mut stack: Vec<u32> = Vec::new();
        for &start in starts {
            stack.push(start);
            while let Some(s) = stack.pop() {
                let i = s as usize;
                self.world[i] = self.world[self.parent[i] as usize] * self.local[i];
                self.stats.worlds_recomputed += 1;
                if siblings || s != start {
                    let next = self.next_sibling[i];
                    if next != NONE {
                        stack.push(next);
                    }
                }
                let child = self.first_child[i];
                if child != NONE {
                    stack.push(child);
                }
            }
        }
    }

    /// Renumbers slots in breadth-first order from the root (children by entity id), dropping
    /// free slots, so that every parent precedes its children and siblings sit together.
    pub(super) fn relayout_breadth_first(&mut self) {
        let mut order: Vec<u32> = Vec::with_capacity(self.len());
        order.push(ROOT_SLOT);
        let mut kids: Vec<u32> = Vec::new();
        let mut head = 0;
        while head < order.len() {
            let s = order[head] as usize;
            head += 1;
            kids.clear();
            let mut c = self.first_child[s];
            while c != NONE {
                kids.push(c);
                c = self.next_sibling[c as usize];
            }
            kids.sort_unstable_by_key(|&k| self.entity[k as usize]);
            order.extend_from_slice(&kids);
        }
        debug_assert_eq!(
            order.len(),
            self.len(),
            "every node is reachable from the root"
        );
        let mut new_slot = vec![NONE; self.entity.len()];
        for (new, &old) in order.iter().enumerate() {
            new_slot[old as usize] = new as u32;
        }
        let permute = |v: &Vec<u32>, remap: bool| -> Vec<u32> {
            order
                .iter()
                .map(|&old| {
                    let x = v[old as usize];
                    if remap && x != NONE {
                        new_slot[x as usize]
                    } else {
                        x
                    }
                })
                .collect()
        };
        self.parent = permute(&self.parent, true);
        self.cycle = permute(&self.cycle, false);
        self.referrers = permute(&self.referrers, false);
        self.entity = order.iter().map(|&o| self.entity[o as usize]).collect();
        self.declared = order.iter().map(|&o| self.declared[o as usize]).collect();
        self.local = order.iter().map(|&o| self.local[o as usize]).collect();
        self.world = order.iter().map(|&o| self.world[o as usize]).collect();
        self.flags = order.iter().map(|&o| self.flags[o as usize]).collect();
        self.source_hint = order
            .iter()
            .map(|&o| self.source_hint[o as usize])
            .collect();
        self.walk = vec![NONE; order.len()];
        let n = order.len();
        self.first_child = vec![NONE; n];
        self.last_child = vec![NONE; n];
        self.next_sibling = vec![NONE; n];
        self.prev_sibling = vec![NONE; n];
        self.mark = vec![0; n];
        self.index.clear();
        for (s, e) in self.entity.iter().enumerate() {
            self.index.insert(*e, s as u32);
        }
        self.topo_sorted = true;
        self.appended_since_layout = 0;
        self.recomputed_since_layout = 0;
        let parents = std::mem::take(&mut self.parent);
        self.parent = vec![NONE; n];
        for s in 1..n as u32 {
            self.link(s, parents[s as usize]);
        }
    }
}
