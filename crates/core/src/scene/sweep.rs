//! Sweeps over every slot, parents first, on every core when the view is large: the full
//! recompute of the world matrices, and the bulk read that re-reads every node from the
//! source and recomputes its world in the same pass.
//!
//! One thread sweeps the slots in order. Several split the view by subtrees: the blocks (see
//! `hierarchy.rs`) are cut into *bands*, runs of blocks whose first nodes' parents lie before
//! the band, so the blocks of a band do not depend on each other (after a full layout every
//! child of the root starts one, and all of them form one band). A block larger than two work
//! items is split below its first node, which is computed first on the calling thread, into
//! its children's ranges, recursively, so a wide tree, a binary tree and thousands of small
//! rigs all give work items of about the same size. Every world is computed by the same
//! expression, `world[parent] * local`, whichever thread computes it, so the result is
//! bit-identical to a one-thread sweep.

use std::ops::Range;
use std::sync::Arc;

use rayon::prelude::*;

use super::hierarchy::SceneView;
use super::records::{Matrix, NONE, Node, ROOT_SLOT, flag};
use super::shared::SharedSlots;
use super::source::{NO_HINT, Prefetch, TransformSource};
use crate::model::Entity;

/// Slots per parallel work item. A block is split across threads only from twice this many
/// slots: below, waking the threads and joining them costs more than the block's work.
pub(super) const PARALLEL_CHUNK: usize = 4096;
/// Passes over fewer slots run on the calling thread: planning and waking the threads would
/// cost more than the parallelism brings.
pub(super) const PARALLEL_MIN_SLOTS: usize = 1 << 15;
/// A block is split below at most this many nodes in a row that have one child each: past
/// that the rest of the run is one work item, so that planning a 100,000-deep chain does not
/// visit every node (a chain has nothing to run in parallel).
const MAX_SPINE: u32 = 256;
/// How many slots ahead [`read_run`] asks the source to prefetch values (and twice as far,
/// their lookups): enough rows in flight to cover memory latency behind the matrix work.
const READ_AHEAD: usize = 32;

/// What one run of a sweep did.
#[derive(Default)]
pub(super) struct SweepOutcome {
    /// World matrices computed.
    pub recomputed: usize,
    /// Nodes read from the source.
    pub read: usize,
    /// Nodes the source holds as live.
    pub live: usize,
    /// A local matrix changed.
    pub changed: bool,
    /// Nodes read whose structure changed (presence, Transform, declared parent): their local
    /// matrix was left alone, the caller applies them one by one (after sorting them).
    pub deferred: Vec<u32>,
}

impl SweepOutcome {
    fn merge(mut self, other: SweepOutcome) -> SweepOutcome {
        self.recomputed += other.recomputed;
        self.read += other.read;
        self.live += other.live;
        self.changed |= other.changed;
        self.deferred.extend(other.deferred);
        self
    }
}

/// The per-slot fields a sweep only reads (indexed by slot).
struct Rows<'a> {
    entity: &'a [Entity],
}

/// The per-slot fields a sweep writes, shared by its threads: each slot is written by the one
/// work item (or the calling thread) that holds it, and read as a parent only after that.
#[derive(Clone, Copy)]
struct Slots<'a> {
    world: SharedSlots<'a, Matrix>,
    local: SharedSlots<'a, Matrix>,
    node: SharedSlots<'a, Node>,
}

/// One band of a parallel sweep: `serial` runs of slots (ascending) computed on the calling
/// thread, then the work items, each a run of `ranges` swept in order.
#[derive(Debug, Default, PartialEq)]
struct Band {
    /// Half-open slot ranges; consecutive split nodes (a chain's) share one, so that a deep
    /// chain is one call of the pass's body rather than one per node.
    serial: Vec<(u32, u32)>,
    ranges: Vec<(u32, u32)>,
    /// Work items as index ranges into `ranges`.
    items: Vec<(usize, usize)>,
}

/// How a parallel sweep cuts the view: its bands, in order.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Plan {
    bands: Vec<Band>,
}

/// Cuts slots `1..node.len()` into bands and work items of about `chunk` slots (see the
/// module docs).
fn plan(node: &[Node], chunk: usize) -> Plan {
    let n = node.len();
    let range_of = |s: usize| -> (usize, u32) {
        if node[s].flags & flag::FREE == 0 {
            // Clamped: the passes index the slot arrays unchecked within these ranges.
            ((node[s].end as usize).min(n), node[s].parent)
        } else {
            (s + 1, NONE)
        }
    };
    let free = |s: usize| node[s].flags & flag::FREE != 0;
    let mut bands = Vec::new();
    let mut band = Band::default();
    let mut band_start = ROOT_SLOT as usize + 1;
    // Ranges to place, each with the number of single-child nodes split right above it.
    let mut stack: Vec<(usize, usize, u32)> = Vec::new();
    let mut kids: Vec<(usize, usize)> = Vec::new();
    let mut s = band_start;
    while s < n {
        let (block_end, p) = range_of(s);
        if p != NONE && p as usize >= band_start {
            bands.push(close_band(std::mem::take(&mut band), chunk));
            band_start = s;
        }
        stack.push((s, block_end, 0));
        while let Some((a, b, spine)) = stack.pop() {
            if b - a <= 2 * chunk || free(a) || spine >= MAX_SPINE {
                band.ranges.push((a as u32, b as u32));
                continue;
            }
            match band.serial.last_mut() {
                Some((_, end)) if *end == a as u32 => *end += 1,
                _ => band.serial.push((a as u32, a as u32 + 1)),
            }
            kids.clear();
            let mut c = a + 1;
            while c < b {
                let (e, _) = range_of(c);
                kids.push((c, e));
                c = e;
            }
            let spine = if kids.len() == 1 { spine + 1 } else { 0 };
            stack.extend(kids.iter().rev().map(|&(c, e)| (c, e, spine)));
        }
        s = block_end;
    }
    bands.push(close_band(band, chunk));
    Plan { bands }
}

/// Groups a band's ranges into work items of about `chunk` slots, joining the ranges of an
/// item that follow each other into one: a pass reads ahead within a range, so thousands of
/// small blocks (rigs of a few dozen nodes) swept one call each would wait on memory at every
/// block's start (the humanoids' bulk read gained nothing from a second thread).
fn close_band(band: Band, chunk: usize) -> Band {
    let mut out = Band {
        serial: band.serial,
        ..Band::default()
    };
    let (mut from, mut size) = (0, 0);
    for &(a, b) in &band.ranges {
        let in_item = out.ranges.len() > from;
        match out.ranges.last_mut() {
            Some((_, end)) if in_item && *end == a => *end = b,
            _ => out.ranges.push((a, b)),
        }
        size += (b - a) as usize;
        if size >= chunk {
            out.items.push((from, out.ranges.len()));
            (from, size) = (out.ranges.len(), 0);
        }
    }
    if from < out.ranges.len() {
        out.items.push((from, out.ranges.len()));
    }
    out
}

impl SceneView {
    /// Runs `body` over every slot after the root, parents first, on every thread of rayon's
    /// current pool when the view is large enough (see the module docs).
    fn sweep<F>(&mut self, body: F) -> SweepOutcome
    where
        F: Fn(&Rows<'_>, Slots<'_>, Range<usize>) -> SweepOutcome + Sync,
    {
        let from = ROOT_SLOT as usize + 1;
        let n = self.world.len();
        let parallel = self.runs_in_parallel(n);
        let plan = if parallel { Some(self.plan()) } else { None };
        let rows = Rows {
            entity: &self.entity,
        };
        let slots = Slots {
            world: SharedSlots::new(&mut self.world),
            local: SharedSlots::new(&mut self.local),
            node: SharedSlots::new(&mut self.node),
        };
        let Some(plan) = plan else {
            return body(&rows, slots, from..n);
        };
        let mut total = SweepOutcome::default();
        for band in &plan.bands {
            for &(a, b) in &band.serial {
                total = total.merge(body(&rows, slots, a as usize..b as usize));
            }
            let run_item = |&(i, j): &(usize, usize)| {
                (band.ranges[i..j].iter())
                    .map(|&(a, b)| body(&rows, slots, a as usize..b as usize))
                    .fold(SweepOutcome::default(), SweepOutcome::merge)
            };
            let outcome = if band.items.len() > 1 {
                (band.items.par_iter())
                    .map(run_item)
                    .reduce(SweepOutcome::default, SweepOutcome::merge)
            } else {
                band.items
                    .iter()
                    .map(run_item)
                    .fold(SweepOutcome::default(), SweepOutcome::merge)
            };
            total = total.merge(outcome);
        }
        total
    }

    /// The plan of a parallel sweep, kept until the slots change.
    fn plan(&mut self) -> Arc<Plan> {
        if let Some(plan) = &self.plan {
            return plan.clone();
        }
        let plan = Arc::new(plan(&self.node, self.parallel_chunk));
        self.plan = Some(plan.clone());
        plan
    }

    /// Recomputes every world from the cached local matrices.
    pub(super) fn sweep_all_worlds(&mut self) {
        let outcome = self.sweep(|_, slots, range| {
            let mut recomputed = 0;
            for s in range {
                // SAFETY: slot `s` is this run's (runs lie within the slots) and its parent a
                // slot, computed before (see `Slots`); records and locals are not written here.
                unsafe {
                    let p = slots.node.get(s).parent;
                    if p != NONE {
                        let world = slots.world.get(p as usize).0 * slots.local.get(s).0;
                        slots.world.set(s, Matrix::new(world));
                        recomputed += 1;
                    }
                }
            }
            SweepOutcome {
                recomputed,
                ..SweepOutcome::default()
            }
        });
        self.stats.worlds_recomputed += outcome.recomputed;
    }

    /// Re-reads every node from `source` and recomputes every world in the same pass. A node
    /// whose structure did not change (still live or not,
    /// still with or without a Transform, same declared parent) gets its new local matrix
    /// here; the others are returned in `deferred` with their old local matrix, for the caller
    /// to apply one by one and propagate.
    pub(super) fn sweep_read_all(&mut self, source: &impl TransformSource) -> SweepOutcome {
        self.sweep(|rows, slots, range| read_run(source, rows, slots, range))
    }
}

/// The body of [`SceneView::sweep_read_all`] for one run of slots.
///
/// The source is read at random (its order is not the view's): each slot hints the source
/// about the slots [`READ_AHEAD`] and twice that later (see [`TransformSource::prefetch`]), so
/// that memory latency overlaps with the matrix work instead of stalling every slot.
fn read_run(
    source: &impl TransformSource,
    rows: &Rows<'_>,
    slots: Slots<'_>,
    range: Range<usize>,
) -> SweepOutcome {
    let mut out = SweepOutcome::default();
    let end = range.end;
    for s in range {
        // A node whose storage position is known (from the last bulk read) is loaded from
        // there in one step; the others are located first, twice as far ahead. Past the
        // run's end positions are not at hand: locate. A hole's stale entity costs a useless
        // hint, no more.
        let (far, near) = (s + 2 * READ_AHEAD, s + READ_AHEAD);
        // SAFETY: slots `s`, `near` and `far` (when inside the run) are this run's, which
        // lies within the slots, and a parent (a slot) had its world computed before the run
        // or earlier in it (see `Slots`).
        unsafe {
            let far_hint = (far < end).then(|| slots.node.get(far).source_hint);
            if far_hint.is_none_or(|h| h == NO_HINT)
                && let Some(&e) = rows.entity.get(far)
            {
                source.prefetch(e, Prefetch::Lookup);
            }
            match (near < end).then(|| slots.node.get(near).source_hint) {
                Some(hint) if hint != NO_HINT => source.prefetch_hinted(hint),
                _ => {
                    if let Some(&e) = rows.entity.get(near) {
                        source.prefetch(e, Prefetch::Value);
                    }
                }
            }
            let node = slots.node.get(s);
            let p = node.parent;
            if p == NONE {
                continue; // a hole
            }
            let (entry, hint) = source.read_hinted(rows.entity[s], node.source_hint);
            // The record is written back only when the source moved the row: a sweep that
            // writes every record dirties its lines, and writing them back to memory cost more
            // than the reads (the caller knows which slots were read without a stamp).
            if hint != node.source_hint {
                slots.node.set(
                    s,
                    Node {
                        source_hint: hint,
                        ..node
                    },
                );
            }
            out.read += 1;
            out.live += usize::from(entry.is_some());
            let f = node.flags;
            let same_structure = match entry {
                None => f == 0,
                Some(None) => f == flag::LIVE && node.declared.is_root(),
                Some(Some(t)) => f == flag::LIVE | flag::HAS_TRANSFORM && t.parent == node.declared,
            };
            let mut local = slots.local.get(s).0;
            if same_structure {
                if let Some(Some(t)) = entry {
                    let new = t.local_affine();
                    out.changed |= new != local;
                    local = new;
                    slots.local.set(s, Matrix::new(local));
                }
            } else {
                out.deferred.push(s as u32);
            }
            slots
                .world
                .set(s, Matrix::new(slots.world.get(p as usize).0 * local));
        }
        out.recomputed += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_split_large_blocks_below_their_first_node_and_break_at_inner_parents() {
        // Root; a block of 7 (node 1 with children 2 (2..5: 3, 4 under it) and 5 (5..8: 6, 7));
        // then a block of one at 8 under 3, which must wait for the first band.
        let parent = [NONE, 0, 1, 2, 2, 1, 5, 5, 3];
        let end = [NONE, 8, 5, 4, 5, 8, 7, 8, 9];
        let node: Vec<Node> = (parent.iter().zip(end))
            .map(|(&parent, end)| Node {
                parent,
                end,
                ..Node::new(0)
            })
            .collect();
        let plan = plan(&node, 1);
        assert_eq!(
            plan.bands,
            vec![
                Band {
                    serial: vec![(1, 3), (5, 6)],
                    ranges: vec![(3, 4), (4, 5), (6, 7), (7, 8)],
                    items: vec![(0, 1), (1, 2), (2, 3), (3, 4)],
                },
                Band {
                    serial: vec![],
                    ranges: vec![(8, 9)],
                    items: vec![(0, 1)],
                },
            ]
        );
        // Large chunks: one range per block, grouped.
        let plan = super::plan(&node, 8);
        assert_eq!(plan.bands[0].ranges, vec![(1, 8)]);
    }

    #[test]
    fn small_blocks_side_by_side_form_one_range_per_work_item() {
        // Root; 100 blocks of 3 (a node and its two children) under it.
        let mut node = vec![Node {
            parent: NONE,
            end: NONE,
            ..Node::new(0)
        }];
        for block in 0..100u32 {
            let first = 1 + 3 * block;
            for (parent, end) in [(0, first + 3), (first, first + 2), (first, first + 3)] {
                node.push(Node {
                    parent,
                    end,
                    ..Node::new(0)
                });
            }
        }
        let plan = plan(&node, 30);
        let band = &plan.bands[0];
        assert_eq!(plan.bands.len(), 1);
        assert_eq!(band.items.len(), 10);
        assert_eq!(
            band.ranges.len(),
            10,
            "one range per item: {:?}",
            band.ranges
        );
        for (k, &(i, j)) in band.items.iter().enumerate() {
            assert_eq!((i, j), (k, k + 1));
            assert_eq!(band.ranges[i], (1 + 30 * k as u32, 31 + 30 * k as u32));
        }
    }

    #[test]
    fn a_deep_chain_is_split_below_a_few_hundred_nodes_then_run_whole() {
        let n = 2000u32;
        let node: Vec<Node> = (0..=n)
            .map(|s| Node {
                parent: if s == 0 { NONE } else { s - 1 },
                end: if s == 0 { NONE } else { n + 1 },
                ..Node::new(0)
            })
            .collect();
        let plan = plan(&node, 1);
        assert_eq!(
            plan.bands,
            vec![Band {
                serial: vec![(1, 1 + MAX_SPINE)],
                ranges: vec![(1 + MAX_SPINE, n + 1)],
                items: vec![(0, 1)],
            }]
        );
    }
}
