//! The multi-threaded sweeps (a rebuild's world computation, an update that changed most of the
//! scene) against the one-thread path on every benchmark forest shape, scaled down: every world
//! matrix must be bit-identical, before and after all-changed, local-only, reparenting and
//! removal updates.

use scenetree_test_support::forest;

use forest::{ChangeSet, Forest};
use scenetree_core::scene::{SceneView, TransformTable};

/// The five shapes of `benches/support/forest.rs`, small enough for a debug build.
fn small_forests() -> Vec<Forest> {
    let tree = |n: u32, parent: &dyn Fn(u32) -> Option<u32>| (0..n).map(parent).collect::<Vec<_>>();
    let wide = tree(1 + 9 + 81 + 729, &|i| (i > 0).then(|| (i - 1) / 9));
    let deep = tree((1 << 10) - 1, &|i| (i > 0).then(|| (i - 1) / 2));
    let chain = tree(700, &|i| i.checked_sub(1));
    // 12 random recursive trees of 60 (deterministic "random": a fixed multiplier).
    let forest = tree(12 * 60, &|i| {
        let j = i % 60;
        (j > 0).then(|| i - j + (j * 7919 + 13) % j)
    });
    let rigs = 25u32;
    let bones = forest::HUMANOID_RIG.len() as u32;
    let humanoids: Vec<Option<u32>> = (0..rigs)
        .flat_map(|r| {
            forest::HUMANOID_RIG
                .iter()
                .map(move |p| p.map(|b| r * bones + b))
        })
        .collect();
    // Non-uniform scales under rotated parents, except along the chain.
    let scaled = |f: Forest| f.with_non_uniform_scale(0.2, 6);
    vec![
        scaled(Forest::from_tree_order("wide", "", &wide, 4.0, 1)),
        scaled(Forest::from_tree_order("deep", "", &deep, 4.0, 2)),
        Forest::from_tree_order("chain", "", &chain, 4.0, 3),
        scaled(Forest::from_tree_order("forest", "", &forest, 100.0, 4)),
        scaled(Forest::from_tree_order(
            "humanoids",
            "",
            &humanoids,
            250.0,
            5,
        )),
    ]
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// Every world matrix of `a` and `b`, compared bit for bit.
fn assert_bit_identical(a: &SceneView, b: &SceneView, forest: &Forest, context: &str) {
    assert_eq!(a.len(), b.len(), "{} / {context}: node count", forest.name);
    for e in &forest.entities {
        let (x, y) = (a.world_affine(*e), b.world_affine(*e));
        let bits = |m: Option<glam::Affine3A>| m.map(|m| m.to_cols_array().map(f32::to_bits));
        assert_eq!(
            bits(x),
            bits(y),
            "{} / {context}: world of {e}",
            forest.name
        );
    }
}

#[test]
fn parallel_sweeps_are_bit_identical_to_one_thread_on_every_forest() {
    let threads = pool(4);
    for forest in small_forests() {
        let mut table: TransformTable = forest.table();
        table.forget_history();
        let mut serial = SceneView::new();
        serial.set_parallel_grain(usize::MAX, 1);
        serial.update(&table);
        let mut parallel = SceneView::new();
        // Tiny chunks: every band of two or more nodes is split across the threads.
        parallel.set_parallel_grain(0, 1);
        threads.install(|| parallel.update(&table));
        assert_bit_identical(&serial, &parallel, &forest, "built");

        let mut removed = forest.random_changes(2.0, None, 9);
        removed.indices.truncate(3);
        let cases: [(&str, ChangeSet); 3] = [
            ("all locals changed", forest.all_changed()),
            ("5% changed", forest.random_changes(5.0, None, 7)),
            ("5% with reparents", forest.random_changes(5.0, Some(3), 8)),
        ];
        for (name, set) in &cases {
            for forward in [true, false] {
                forest.apply(set, forward, &mut table);
                serial.update(&table);
                threads.install(|| parallel.update(&table));
                assert_bit_identical(&serial, &parallel, &forest, name);
                assert_bit_identical(&SceneView::from_source(&table), &parallel, &forest, name);
            }
        }
        // Everything changes and a few entities leave: the bulk pass defers them.
        forest.apply(&cases[0].1, true, &mut table);
        for &i in &removed.indices {
            table.remove(forest.entities[i as usize]);
        }
        serial.update(&table);
        threads.install(|| parallel.update(&table));
        let stats = parallel.last_update_stats();
        assert!(
            !stats.rebuilt && stats.entities_read >= forest.len() - 3,
            "{}: bulk",
            forest.name
        );
        assert_bit_identical(&serial, &parallel, &forest, "all changed, some removed");
        assert_bit_identical(
            &SceneView::from_source(&table),
            &parallel,
            &forest,
            "removed",
        );
    }
}
