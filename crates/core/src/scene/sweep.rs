//! Sweeps over the slots in their parents-first layout, on every core when the view is large:
//! the full recompute of the world matrices, and the bulk read that re-reads every node from
//! the source and recomputes its world in the same pass.
//!
//! A sweep cuts the slots into *bands*: runs in which every node's parent lies before the band
//! starts. After a rebuild the layout is breadth-first, so each tree level is one band; a
//! subtree moved to the end brings its own levels. The nodes of a band do not depend on each
//! other, so a large band is cut into chunks computed in parallel; runs of small bands (a deep
//! chain has one node per level) stay on one thread, in slot order. Every world is computed by
//! the same expression, `world[parent] * local`, whichever thread computes it, so the result is
//! bit-identical to a one-thread sweep.

use glam::Affine3A;
use rayon::prelude::*;

use super::hierarchy::{NONE, ROOT_SLOT, SceneView, flag};
use super::source::{NO_HINT, Prefetch, TransformSource};
use crate::model::Entity;

/// Slots per parallel work item. A band is split across threads only from twice this many
/// slots: below, waking the threads and joining them costs more than the band's work.
pub(super) const PARALLEL_CHUNK: usize = 4096;
/// Views with fewer slots are swept on the calling thread: computing the bands would cost more
/// than the parallelism brings.
pub(super) const PARALLEL_MIN_SLOTS: usize = 1 << 15;
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
    /// Nodes read whose structure changed (presence, Transform, declared parent), in slot
    /// order: their local matrix was left alone, the caller applies them one by one.
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

/// The per-slot fields a sweep only reads, for every slot (indexed by slot).
struct Rows<'a> {
    parent: &'a [u32],
    entity: &'a [Entity],
    declared: &'a [Entity],
    flags: &'a [u8],
}

/// The slots `lo .. lo + world.len()` of a sweep, writable, and the worlds of every slot before
/// `lo` that their parents may be (all of them for a one-thread run; the slots before the band
/// for a chunk of a band).
struct Run<'a> {
    lo: usize,
    before: &'a [Affine3A],
    world: &'a mut [Affine3A],
    local: &'a mut [Affine3A],
    mark: &'a mut [u32],
    source_hint: &'a mut [u32],
}

impl Run<'_> {
    /// The world of parent slot `p`, computed either before the run or earlier in it.
    #[inline]
    fn parent_world(&self, p: usize) -> Affine3A {
        if p < self.lo {
            self.before[p]
        } else {
            self.world[p - self.lo]
        }
    }
}

/// The bands of `parent[from..]` as `(start, end, parallel)`: a band is parallel from two
/// chunks on; consecutive smaller ones are merged into one serial run.
fn bands(parent: &[u32], from: usize, chunk: usize) -> Vec<(usize, usize, bool)> {
    let mut out: Vec<(usize, usize, bool)> = Vec::new();
    let mut close = |start: usize, end: usize| {
        let parallel = end - start >= 2 * chunk;
        match out.last_mut() {
            Some((_, last_end, false)) if !parallel => *last_end = end,
            _ => out.push((start, end, parallel)),
        }
    };
    let mut start = from;
    for (s, &p) in parent.iter().enumerate().skip(from) {
        if p != NONE && p as usize >= start {
            close(start, s);
            start = s;
        }
    }
    close(start, parent.len());
    out
}

impl SceneView {
    /// Runs `body` over every slot after the root, in parents-first order, on every thread of
    /// rayon's current pool when the view is large enough. The layout must be topological.
    fn sweep<F>(&mut self, body: F) -> SweepOutcome
    where
        F: Fn(&Rows<'_>, Run<'_>) -> SweepOutcome + Sync,
    {
        debug_assert!(self.topo_sorted);
        let from = ROOT_SLOT as usize + 1;
        let n = self.world.len();
        let rows = Rows {
            parent: &self.parent,
            entity: &self.entity,
            declared: &self.declared,
            flags: &self.flags,
        };
        let chunk = self.parallel_chunk.max(1);
        let parallel = n >= self.parallel_min_slots && rayon::current_num_threads() > 1;
        let segments = if parallel {
            bands(&self.parent, from, chunk)
        } else {
            vec![(from, n, false)]
        };
        let mut total = SweepOutcome::default();
        for (start, end, parallel) in segments {
            let (before, rest) = self.world.split_at_mut(start);
            let world = &mut rest[..end - start];
            let local = &mut self.local[start..end];
            let mark = &mut self.mark[start..end];
            let source_hint = &mut self.source_hint[start..end];
            let outcome = if parallel {
                world
                    .par_chunks_mut(chunk)
                    .zip(local.par_chunks_mut(chunk))
                    .zip(mark.par_chunks_mut(chunk))
                    .zip(source_hint.par_chunks_mut(chunk))
                    .enumerate()
                    .map(|(i, (((world, local), mark), source_hint))| {
                        let lo = start + i * chunk;
                        body(
                            &rows,
                            Run {
                                lo,
                                before,
                                world,
                                local,
                                mark,
                                source_hint,
                            },
                        )
                    })
                    .reduce(SweepOutcome::default, SweepOutcome::merge)
            } else {
                body(
                    &rows,
                    Run {
                        lo: start,
                        before,
                        world,
                        local,
                        mark,
                        source_hint,
                    },
                )
            };
            total = total.merge(outcome);
        }
        total
    }

    /// Recomputes every world from the cached local matrices (topological layout only).
    pub(super) fn sweep_all_worlds(&mut self) {
        let outcome = self.sweep(|rows, run| {
            let mut recomputed = 0;
            for i in 0..run.world.len() {
                let p = rows.parent[run.lo + i];
                if p != NONE {
                    run.world[i] = run.parent_world(p as usize) * run.local[i];
                    recomputed += 1;
                }
            }
            SweepOutcome {
                recomputed,
                ..SweepOutcome::default()
            }
        });
        self.stats.worlds_recomputed += outcome.recomputed;
    }

    /// Re-reads every node from `source` and recomputes every world in the same pass, stamping
    /// the nodes read with `pass` (topological layout only). A node whose structure did not
    /// change (still live or not, still with or without a Transform, same declared parent) gets
    /// its new local matrix here; the others are returned in `deferred` with their old local
    /// matrix, for the caller to apply one by one and propagate.
    pub(super) fn sweep_read_all(
        &mut self,
        source: &impl TransformSource,
        pass: u32,
    ) -> SweepOutcome {
        self.sweep(|rows, run| read_run(source, pass, rows, run))
    }
}

/// The body of [`SceneView::sweep_read_all`] for one run.
///
/// The source is read at random (its order is not the view's): each slot hints the source
/// about the slots [`READ_AHEAD`] and twice that later (see [`TransformSource::prefetch`]), so
/// that memory latency overlaps with the matrix work instead of stalling every slot.
fn read_run(
    source: &impl TransformSource,
    pass: u32,
    rows: &Rows<'_>,
    run: Run<'_>,
) -> SweepOutcome {
    let mut out = SweepOutcome::default();
    for i in 0..run.world.len() {
        let s = run.lo + i;
        // A node whose storage position is known (from the last bulk read) is loaded from
        // there in one step; the others are located first, twice as far ahead. Past the
        // run's end positions are not at hand: locate. A hole's stale entity costs a useless
        // hint, no more.
        let far_hint = run.source_hint.get(i + 2 * READ_AHEAD).copied();
        if far_hint.is_none_or(|h| h == NO_HINT)
            && let Some(&far) = rows.entity.get(s + 2 * READ_AHEAD)
        {
            source.prefetch(far, Prefetch::Lookup);
        }
        match run.source_hint.get(i + READ_AHEAD) {
            Some(&hint) if hint != NO_HINT => source.prefetch_hinted(hint),
            _ => {
                if let Some(&near) = rows.entity.get(s + READ_AHEAD) {
                    source.prefetch(near, Prefetch::Value);
                }
            }
        }
        let p = rows.parent[s];
        if p == NONE {
            continue; // a hole
        }
        let (entry, hint) = source.read_hinted(rows.entity[s], run.source_hint[i]);
        run.source_hint[i] = hint;
        out.read += 1;
        out.live += usize::from(entry.is_some());
        let f = rows.flags[s];
        let same_structure = match entry {
            None => f == 0,
            Some(None) => f == flag::LIVE && rows.declared[s].is_root(),
            Some(Some(t)) => f == flag::LIVE | flag::HAS_TRANSFORM && t.parent == rows.declared[s],
        };
        if same_structure {
            if let Some(Some(t)) = entry {
                let local = t.local_affine();
                out.changed |= local != run.local[i];
                run.local[i] = local;
            }
            run.mark[i] = pass;
        } else {
            out.deferred.push(s as u32);
        }
        run.world[i] = run.parent_world(p as usize) * run.local[i];
        out.recomputed += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_cut_where_a_parent_is_inside_the_band_and_merge_small_ones() {
        // root, then 3 nodes under the root, then a chain of 2 under slot 1.
        let parent = [NONE, 0, 0, 0, 1, 4];
        assert_eq!(bands(&parent, 1, 4), vec![(1, 6, false)]);
        // A large level after a one-node level: its own parallel band.
        let mut parent = vec![NONE, 0];
        parent.extend(std::iter::repeat_n(1, 8));
        parent.push(2);
        let n = parent.len();
        assert_eq!(
            bands(&parent, 1, 4),
            vec![(1, 2, false), (2, n - 1, true), (n - 1, n, false)]
        );
    }
}
