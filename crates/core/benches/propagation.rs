//! World-matrix propagation of [`SceneView`] on the five shuffled forests of
//! `benches/support/forest.rs` (wide, deep, chain, forest, humanoids).
//!
//! For each forest (`propagation/<forest>/<case>`), with N = the forest's entity count and
//! criterion's throughput set to N elements, so "time / N" is the cost per entity:
//!
//! - `from_source`: a from-scratch build (`SceneView::from_source`): read every entity, find
//!   cycles, link, lay slots out in preorder, compute every world.
//! - `recompute_all_worlds` (**full recompute**): every world matrix recomputed from the cached
//!   local matrices, topology unchanged (`SceneView::recompute_all_worlds`).
//! - `all_locals_changed` (full recompute through the source): every entity gets a new local
//!   translation (same parents), then `update` reads them all back and propagates.
//! - `one_percent_locals` (**1% changed**): 1% of the entities (seeded, uniform) get a new local
//!   translation, then `update`.
//! - `one_percent_reparent`: the same 1%, every tenth of which also moves under a random node
//!   that precedes it in tree order (the forest stays acyclic), then `update`.
//! - `nothing_changed` (**static frame**): `update` with an empty journal.
//!
//! Changes alternate between the new and the original values, so every timed update sees real
//! changes; writing them into the table is not timed (`iter_custom`), only `update` is.
//! After the cases, the incrementally maintained view is checked against a fresh build.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::forest;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use forest::{ChangeSet, Forest};
use scenetree_core::scene::{SceneView, TransformTable};

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

fn main() {
    flush_subnormals_if_asked();
    let mut criterion = Criterion::default().configure_from_args();
    let makers = forest::BY_NAME;
    // `cargo bench --bench propagation -- forest` builds only the forests the filter names
    // (generating the large ones takes seconds); criterion applies the filter itself.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| match &filter {
        Some(f) if makers.iter().any(|(m, _)| f.contains(m)) => f.contains(name),
        _ => true,
    };
    for (name, make) in makers {
        if wanted(name) {
            bench_forest(&mut criterion, &make());
        }
    }
    criterion.final_summary();
}

/// With `SCENETREE_BENCH_FLUSH_SUBNORMALS=1`, sets the calling thread's flush-to-zero and
/// denormals-are-zero bits (x86 MXCSR) before any bench, to tell whether subnormal floats
/// cost a case its time: Intel cores take a slow microcode assist on each subnormal operand
/// or result. Threads spawned later inherit the bits; results may then differ in the last
/// bits from a run without them.
fn flush_subnormals_if_asked() {
    if std::env::var("SCENETREE_BENCH_FLUSH_SUBNORMALS").is_ok_and(|v| v == "1") {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: MXCSR's FTZ (bit 15) and DAZ (bit 6) only change how subnormals round.
        #[allow(deprecated)]
        unsafe {
            use std::arch::x86_64::{_mm_getcsr, _mm_setcsr};
            _mm_setcsr(_mm_getcsr() | 0x8040);
        }
        eprintln!("subnormal floats flushed to zero on this thread (MXCSR FTZ and DAZ)");
    }
}

fn bench_forest(c: &mut Criterion, forest: &Forest) {
    let n = forest.len();
    let mut group = c.benchmark_group(format!("propagation/{}", forest.name));
    // Large inputs: few, flat samples keep `cargo bench` within minutes.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(n as u64));

    let mut table = forest.table();
    table.forget_history();
    group.bench_function("from_source", |b| {
        b.iter_with_large_drop(|| SceneView::from_source(black_box(&table)))
    });

    let mut view = SceneView::from_source(&table);
    group.bench_function("recompute_all_worlds", |b| {
        b.iter(|| view.recompute_all_worlds())
    });

    let cases = [
        ("all_locals_changed", forest.all_changed()),
        ("one_percent_locals", forest.random_changes(1.0, None, 7)),
        (
            "one_percent_reparent",
            forest.random_changes(1.0, Some(10), 8),
        ),
    ];
    for (name, set) in &cases {
        bench_changes(&mut group, name, forest, set, &mut table, &mut view);
    }

    group.bench_function("nothing_changed", |b| {
        b.iter(|| view.update(black_box(&table)))
    });
    group.finish();

    check_against_fresh_build(forest, &table, &view);
}

/// Times `update` after writing `set` (alternately forward and back) into the table.
fn bench_changes(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    forest: &Forest,
    set: &ChangeSet,
    table: &mut TransformTable,
    view: &mut SceneView,
) {
    let mut forward = true;
    let mut recomputed = None;
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                forest.apply(set, forward, table);
                forward = !forward;
                let start = Instant::now();
                view.update(black_box(&*table));
                total += start.elapsed();
                table.forget_history();
                recomputed = Some(view.last_update_stats().worlds_recomputed);
            }
            total
        })
    });
    if !forward {
        forest.apply(set, false, table);
        view.update(&*table);
        table.forget_history();
    }
    if let Some(recomputed) = recomputed {
        eprintln!(
            "propagation/{}/{name}: {} of {} entities changed ({} reparented), {} worlds recomputed ({:.2}%)",
            forest.name,
            set.indices.len(),
            forest.len(),
            set.reparented,
            recomputed,
            100.0 * recomputed as f64 / forest.len() as f64,
        );
    }
}

/// The incrementally updated view must equal a fresh build of the same table.
fn check_against_fresh_build(forest: &Forest, table: &TransformTable, view: &SceneView) {
    let fresh = SceneView::from_source(table);
    assert_eq!(fresh.len(), view.len(), "{}: node count", forest.name);
    for &e in &forest.entities {
        assert_eq!(
            view.effective_parent_of(e),
            fresh.effective_parent_of(e),
            "{}: parent of {e}",
            forest.name
        );
        let (a, b) = (
            view.world_affine(e).unwrap(),
            fresh.world_affine(e).unwrap(),
        );
        assert!(
            a.abs_diff_eq(b, 1e-3 * (1.0 + b.translation.abs().max_element())),
            "{}: world of {e}: {a:?} vs {b:?}",
            forest.name
        );
    }
}
