//! Viewport costs for a scene at the protocol's limit of 65,535 entities:
//! - `build_batches`: grouping items into per-mesh instance lists (CPU only);
//! - `upload`: that plus filling the instance buffers on a real GL context (Mesa llvmpipe via
//!   surfaceless EGL, or a GPU with `SCENETREE_HEADLESS_GPU=1`), paid on a scene generation
//!   change the renderer cannot take in place;
//! - `move_one_full` / `move_one_incremental`: the update after moving one entity, without
//!   and with `ViewportScene::changes` naming it (the full rebuild against rewriting its
//!   instance in place);
//! - `move_n_full/N` / `move_n_incremental/N`: the same after moving N items at once (spread
//!   over the scene), for where naming the changes stops paying (the app's cut-off);
//! - `item_changes`: the app's side of that, comparing the items before and after;
//! - `pick`: one click's ray against every item's exact shape;
//! - `static_frame`: one egui frame of the viewport widget when nothing changed (no render);
//! - `render_320x240`: a full software render on llvmpipe (a GPU is far faster).
//!
//! Run: `cargo bench --bench viewport`.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use eframe::egui;
use scenetree_viewport::{
    GlowViewportRenderer, ItemChanges, NullRenderer, OrbitCamera, RenderRequest, Viewport,
    ViewportScene, demo, gpu_scene::build_batches, picking,
};

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

use scenetree_viewport::headless as egl;

const N: usize = 65_535;

/// The entity the move benches move (not selected: no outline copy).
const MOVED: usize = 12_345;

/// Moves [`MOVED`] up and back down on alternate calls, as one scene generation, naming it in
/// `changes` when `incremental`.
fn move_one(scene: &mut ViewportScene, incremental: bool) {
    let item = &mut scene.items[MOVED];
    let step = if item.world.w_axis.y > 2.0 { -3.0 } else { 3.0 };
    item.world.w_axis.y += step;
    scene.changes = incremental.then(|| ItemChanges {
        since: scene.generation,
        items: vec![MOVED as u32],
    });
    scene.generation += 1;
}

/// Moves `n` items spread over the scene up and back down on alternate calls, as one scene
/// generation, naming them in `changes` when `incremental`.
fn move_n(scene: &mut ViewportScene, n: usize, incremental: bool) {
    let stride = scene.items.len() / n;
    let moved: Vec<u32> = (0..n).map(|k| (k * stride) as u32).collect();
    for &i in &moved {
        let item = &mut scene.items[i as usize];
        let step = if item.world.w_axis.y > 2.0 { -3.0 } else { 3.0 };
        item.world.w_axis.y += step;
    }
    scene.changes = incremental.then_some(ItemChanges {
        since: scene.generation,
        items: moved,
    });
    scene.generation += 1;
}

/// Times an edit (`edit(scene, incremental)`) followed by an upload, once as a full upload
/// (benchmark `id("full")`) and once with the edit's changes named (`id("incremental")`), and
/// checks that every timed update of the second kind was taken in place.
fn full_and_in_place(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    renderer: &mut GlowViewportRenderer,
    scene: &mut ViewportScene,
    id: impl Fn(&str) -> String,
    mut edit: impl FnMut(&mut ViewportScene, bool),
) {
    group.bench_function(id("full"), |b| {
        b.iter(|| {
            edit(scene, false);
            renderer.upload(scene);
        })
    });
    let (before, mut moves) = (renderer.stats(), 0);
    group.bench_function(id("incremental"), |b| {
        b.iter(|| {
            edit(scene, true);
            renderer.upload(scene);
            moves += 1;
        })
    });
    let after = renderer.stats();
    assert_eq!(
        (after.uploads, after.incremental_updates),
        (before.uploads, before.incremental_updates + moves),
        "every {} was taken in place",
        id("incremental")
    );
}

fn bench(c: &mut Criterion) {
    let mut scene = demo::stress(N);
    let mut group = c.benchmark_group("viewport_65535");
    group.sample_size(20);

    group.bench_function("build_batches", |b| {
        b.iter(|| build_batches(std::hint::black_box(&scene.items)))
    });

    let camera = OrbitCamera::default();
    let ray = camera.ray(
        glam::Vec2::new(640.0, 400.0),
        glam::Vec2::new(1280.0, 800.0),
    );
    group.bench_function("pick", |b| {
        b.iter(|| {
            let ray = std::hint::black_box(&ray);
            picking::pick(ray, &scene.items, &scene.assets, camera.marker_scale())
        })
    });

    let gl = egl::headless_gl().expect("surfaceless EGL");
    eprintln!("OpenGL: {}", gl.renderer_name());
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    group.bench_function("upload", |b| {
        b.iter(|| {
            scene.generation += 1;
            renderer.upload(&scene);
        })
    });

    let one = |kind: &str| format!("move_one_{kind}");
    full_and_in_place(&mut group, &mut renderer, &mut scene, one, move_one);
    for n in [1, 64, 512, 4096] {
        let id = |kind: &str| format!("move_n_{kind}/{n}");
        full_and_in_place(&mut group, &mut renderer, &mut scene, id, |scene, inc| {
            move_n(scene, n, inc)
        });
    }
    let old = scene.items.clone();
    move_one(&mut scene, false);
    group.bench_function("item_changes", |b| {
        b.iter(|| ItemChanges::between(0, std::hint::black_box(&old), &scene.items, 512))
    });

    let ctx = egui::Context::default();
    let mut viewport = Viewport::default();
    let mut null = NullRenderer::default();
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        ..Default::default()
    };
    let _ = ctx.run_ui(input(), |ui| {
        viewport.ui(ui, &scene, &mut null);
    });
    group.bench_function("static_frame", |b| {
        b.iter(|| {
            ctx.run_ui(input(), |ui| {
                viewport.ui(ui, &scene, &mut null);
            })
        })
    });
    assert_eq!(null.renders, 1, "static frames must not render");

    let mut camera = OrbitCamera::default();
    let bounds = scene.focus_bounds().unwrap();
    camera.frame_bounds(bounds.min, bounds.max, 320.0 / 240.0);
    group.sample_size(10);
    group.bench_function("render_320x240", |b| {
        b.iter(|| {
            let request = RenderRequest {
                scene: &scene,
                camera: &camera,
                size_px: [320, 240],
                background: egui::Color32::BLACK,
                multisample: true,
            };
            renderer.render_offscreen(&request).unwrap();
            renderer.read_pixels() // waits for the GPU (here: llvmpipe) to finish
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
