//! scenetree's `SceneView` against bevy's transform propagation (`bevy_transform` 0.20.1) on
//! the same five shuffled forests (`crates/core/benches/support/forest.rs`), in one process.
//!
//! ```sh
//! cd bench/vs-bevy
//! taskset -c 0 cargo run --release            # one core (the headline comparison)
//! cargo run --release                         # every core bevy's task pool gets
//! cargo run --release -- forest chain         # only some forests
//! taskset -c 0 cargo run --release --no-default-features   # bevy's serial propagation
//! ```
//!
//! For each forest and case, both sides get the same changes (written untimed), then one
//! timed propagation: `SceneView::update` for scenetree, the `TransformSystems::Propagate`
//! systems (`mark_dirty_trees`, `propagate_parent_transforms`, `sync_simple_transforms`, with
//! bevy's default static-scene optimization) run as a schedule for bevy. Each case reports the
//! median of its samples in ns per entity of the forest, and bevy / scenetree (> 1 means
//! scenetree is faster). After each case both sides' world matrices are compared entity by
//! entity, so both really computed the same thing.
//!
//! By default bevy is built with its `multi_threaded` feature, as a default bevy app has it:
//! that selects the current propagation code (iterative, work-sharing, with the static-scene
//! skip). Its task pool gets `available_parallelism` threads; pin the process (`taskset -c 0`)
//! to compare on one core. `--no-default-features` builds bevy's serial propagation instead
//! (recursive, and it visits every entity every frame); the chain then needs a big stack, so
//! everything runs on a thread with 1 GiB of stack.

use scenetree_test_support::forest;

use std::time::{Duration, Instant};

use bevy_ecs::entity::Entity as BevyEntity;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::schedule::{IntoScheduleConfigs, Schedule, SingleThreadedExecutor};
use bevy_ecs::world::World;
use bevy_tasks::{ComputeTaskPool, TaskPoolBuilder};
use bevy_transform::components::{GlobalTransform, Transform as BevyTransform};
use bevy_transform::systems::{
    StaticTransformOptimizations, mark_dirty_trees, propagate_parent_transforms,
    sync_simple_transforms,
};
use forest::{ChangeSet, Forest};
use scenetree_core::model::Transform;
use scenetree_core::scene::{SceneView, TransformTable};

/// Minimum measured time per case and side, and the sample count bounds.
const TARGET_TIME: Duration = Duration::from_millis(800);
const MIN_SAMPLES: usize = 5;
const MAX_SAMPLES: usize = 201;

fn main() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(threads).build());
    let filter: Vec<String> = std::env::args().skip(1).collect();
    let makers = forest::BY_NAME;
    let variant = if cfg!(feature = "multi_threaded") {
        "multi_threaded propagation"
    } else {
        "serial propagation"
    };
    println!(
        "scenetree SceneView vs bevy_transform 0.20.1, {variant} ({} thread(s) in bevy's pool; {} core(s) usable)",
        threads,
        usable_cores()
    );
    println!("median ns per entity of the forest; ratio = bevy / scenetree\n");
    println!(
        "{:<10} {:>9} {:<22} {:>13} {:>13} {:>9}",
        "forest", "entities", "case", "scenetree", "bevy", "ratio"
    );
    // bevy's serial propagation recurses once per level: 100,000 levels need a big stack.
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || {
            for (name, make) in makers {
                if filter.is_empty() || filter.iter().any(|f| f == name) {
                    // A tenth of the nodes scaled non-uniformly, so the entity-by-entity check
                    // covers T·R·S under rotated, scaled parents; not along the chain, where
                    // 100,000 products of scales overflow.
                    let forest = match name {
                        "chain" => make(),
                        _ => make().with_non_uniform_scale(0.1, 34),
                    };
                    compare(&forest);
                }
            }
        })
        .expect("spawn the benchmark thread")
        .join()
        .expect("benchmark thread");
}

/// CPUs this process may run on (what `taskset` allows).
fn usable_cores() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Cpus_allowed_list:"))
                .map(|l| count_cpu_list(l.split(':').nth(1).unwrap_or("").trim()))
        })
        .unwrap_or(1)
}

fn count_cpu_list(list: &str) -> usize {
    list.split(',')
        .filter(|r| !r.is_empty())
        .map(|r| match r.split_once('-') {
            Some((a, b)) => b.parse::<usize>().unwrap_or(0) + 1 - a.parse::<usize>().unwrap_or(0),
            None => 1,
        })
        .sum()
}

fn compare(forest: &Forest) {
    let n = forest.len();
    let setup = Instant::now();
    let mut ours = Ours::new(forest);
    let ours_setup = setup.elapsed();
    let mut bevy = Bevy::new(forest);
    eprintln!(
        "{}: set up in {:.2} s (scenetree) and {:.2} s (bevy)",
        forest.name,
        ours_setup.as_secs_f64(),
        (setup.elapsed() - ours_setup).as_secs_f64()
    );
    bevy.check_against(&ours.view, forest, "initial build");

    let cases = [
        ("all_locals_changed", forest.all_changed()),
        ("one_percent_locals", forest.random_changes(1.0, None, 7)),
        ("one_percent_reparent", forest.random_changes(1.0, Some(10), 8)),
        (
            "nothing_changed",
            ChangeSet {
                indices: Vec::new(),
                changed: Vec::new(),
                reparented: 0,
            },
        ),
    ];
    for (case, set) in &cases {
        // Each side alternates between the changed and the original values on its own; an
        // odd number of applications leaves it in the changed state.
        let mut ours_applied = 0usize;
        let ours_ns = measure(|| {
            ours_applied += 1;
            forest.apply(set, ours_applied % 2 == 1, &mut ours.table);
            let start = Instant::now();
            ours.view.update(&ours.table);
            let t = start.elapsed();
            ours.table.forget_history();
            t
        });
        let mut bevy_applied = 0usize;
        let bevy_ns = measure(|| {
            bevy_applied += 1;
            bevy.apply(forest, set, bevy_applied % 2 == 1);
            bevy.propagate()
        });
        if ours_applied % 2 != bevy_applied % 2 {
            forest.apply(set, bevy_applied % 2 == 1, &mut ours.table);
            ours.view.update(&ours.table);
            ours.table.forget_history();
        }
        bevy.check_against(&ours.view, forest, case);
        let (a, b) = (median(ours_ns) / n as f64, median(bevy_ns) / n as f64);
        println!(
            "{:<10} {:>9} {:<22} {:>13} {:>13} {:>8.1}x",
            forest.name,
            n,
            case,
            format_ns(a),
            format_ns(b),
            b / a
        );
    }
    println!();
}

fn format_ns(ns: f64) -> String {
    if ns >= 0.1 {
        format!("{ns:.2} ns")
    } else {
        format!("{:.2} ps", ns * 1000.0)
    }
}

/// Runs `sample` (which returns its own timed part) until `TARGET_TIME` of timed work or
/// `MAX_SAMPLES`, after one warm-up; returns the timed nanoseconds of each sample.
fn measure(mut sample: impl FnMut() -> Duration) -> Vec<f64> {
    sample(); // warm-up (and the first application of the changes)
    let mut out = Vec::new();
    let mut total = Duration::ZERO;
    while out.len() < MAX_SAMPLES && (out.len() < MIN_SAMPLES || total < TARGET_TIME) {
        let t = sample();
        total += t;
        out.push(t.as_secs_f64() * 1e9);
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// scenetree's side: the forest in a `TransformTable`, and the view derived from it.
struct Ours {
    table: TransformTable,
    view: SceneView,
}

impl Ours {
    fn new(forest: &Forest) -> Ours {
        let mut table = forest.table();
        table.forget_history();
        let view = SceneView::from_source(&table);
        Ours { table, view }
    }
}

/// bevy's side: one world with the forest spawned in id order, and the propagation schedule.
struct Bevy {
    world: World,
    ids: Vec<BevyEntity>,
    schedule: Schedule,
}

fn to_bevy(t: &Transform) -> BevyTransform {
    BevyTransform {
        translation: bevy_math::Vec3::from_array(t.position.to_array()),
        rotation: bevy_math::Quat::from_array(t.rotation.to_array()),
        scale: bevy_math::Vec3::from_array(t.scale.to_array()),
    }
}

impl Bevy {
    fn new(forest: &Forest) -> Bevy {
        let mut world = World::new();
        world.init_resource::<StaticTransformOptimizations>();
        let ids: Vec<BevyEntity> = world
            .spawn_batch(forest.transforms.iter().map(to_bevy))
            .collect();
        let index = |e: scenetree_core::model::Entity| (e.0 - forest::FIRST_ID) as usize;
        let links: Vec<(BevyEntity, ChildOf)> = forest
            .transforms
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.parent.is_root())
            .map(|(i, t)| (ids[i], ChildOf(ids[index(t.parent)])))
            .collect();
        world.insert_batch(links);
        let mut schedule = Schedule::default();
        schedule.set_executor(SingleThreadedExecutor::new());
        schedule.add_systems(
            (
                mark_dirty_trees,
                propagate_parent_transforms,
                sync_simple_transforms,
            )
                .chain(),
        );
        let mut bevy = Bevy {
            world,
            ids,
            schedule,
        };
        bevy.propagate();
        bevy
    }

    /// Writes the change set (or the originals) as bevy components: Transform, and ChildOf
    /// where the parent changes.
    fn apply(&mut self, forest: &Forest, set: &ChangeSet, forward: bool) {
        for (j, &i) in set.indices.iter().enumerate() {
            let i = i as usize;
            let (old, new) = if forward {
                (&forest.transforms[i], &set.changed[j])
            } else {
                (&set.changed[j], &forest.transforms[i])
            };
            let id = self.ids[i];
            *self.world.get_mut::<BevyTransform>(id).expect("spawned") = to_bevy(new);
            if old.parent != new.parent {
                let mut entity = self.world.entity_mut(id);
                if new.parent.is_root() {
                    entity.remove::<ChildOf>();
                } else {
                    let parent = self.ids[(new.parent.0 - forest::FIRST_ID) as usize];
                    entity.insert(ChildOf(parent));
                }
            }
        }
    }

    /// One timed propagation, then the per-frame bookkeeping an `App` does (untimed).
    fn propagate(&mut self) -> Duration {
        let start = Instant::now();
        self.schedule.run(&mut self.world);
        let t = start.elapsed();
        self.world.clear_trackers();
        t
    }

    fn check_against(&self, view: &SceneView, forest: &Forest, case: &str) {
        for (i, e) in forest.entities.iter().enumerate() {
            let ours = view.world_affine(*e).expect("in the view");
            let theirs = self
                .world
                .get::<GlobalTransform>(self.ids[i])
                .expect("spawned")
                .affine();
            let a: [f32; 12] = ours.to_cols_array();
            let b: [f32; 12] = theirs.to_cols_array();
            let scale = 1.0 + a[9..].iter().fold(0f32, |m, x| m.max(x.abs()));
            let close = a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= 1e-3 * scale);
            assert!(
                close,
                "{} / {case}: world of {e} differs: scenetree {a:?} vs bevy {b:?}",
                forest.name
            );
        }
    }
}
