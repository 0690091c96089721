//! A gizmo drag in the large generated scene (65,024 entities, entity 600 selected: a building
//! with a subtree of about 360 entities), with the real renderer: three-d on a surfaceless EGL
//! context on Mesa's software OpenGL (llvmpipe; no GPU on the benchmark machine), or on a
//! GPU's with `SCENETREE_HEADLESS_GPU=1` (`bench/device/viewport.sh`).
//!
//! - `static_frame`: one whole-window frame (tree, inspector, status, viewport) when nothing
//!   changed: the viewport renders nothing.
//! - `drag_frame`: one whole-window frame of dragging the gizmo's X arrow with the pointer:
//!   the pointer moves, the viewport reports the entity's new local Transform, the workbench
//!   applies it after the frame (replica write, render-tree update) and the next frame updates
//!   the viewport's items, rewrites the changed instances and renders the scene (without
//!   multisampling, as during any drag), then `glFinish`, so the software rasterization is
//!   included. In steady state each frame does one of each.
//! - `drag_frame_null_renderer`: the same with the viewport's renderer stubbed: everything but
//!   the GL work.
//! - `tab_update_incremental` / `tab_update_full`: only the edit and the Viewport tab's update
//!   of its items after it (`ViewportTab::update_scene`), incremental, and with every item
//!   built again (`ViewportTab::rebuild_next`).
//! - `gpu_update`: the renderer's side of a drag step alone: the edit, the tab's update, and
//!   the instance writes (`GlowViewportRenderer::upload`), no draw.
//! - `tab_update_n_leaves_incremental/N` / `tab_update_n_leaves_full/N`: the tab's update
//!   alone (not the edit before it) after one edit moved N leaves spread over the scene, for
//!   where updating only the changed items stops paying (`MAX_INCREMENTAL_ENTITIES`: above
//!   it, the first is a full build too).
//!
//! `cargo bench --bench viewport_drag`

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use egui_kittest::Harness;
use scenetree::ui::viewport_tab::ViewportTab;
use scenetree::ui::{Action, Workbench};
use scenetree_core::examples;
use scenetree_core::model::Entity;
use scenetree_editor::{Command, Document};
use scenetree_viewport::headless::headless_gl;
use scenetree_viewport::{GlowViewportRenderer, NullRenderer, ViewportRenderer};

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

/// The dragged entity: selected, with children.
const DRAGGED: Entity = Entity(600);

fn large_workbench() -> Workbench {
    let doc = Document::new(examples::large(usize::MAX), None);
    let mut bench = Workbench::new(doc);
    bench.doc.selection.select_only(DRAGGED);
    bench
}

/// The whole window over the large scene, drawing its viewport with `renderer`, after its
/// first frames.
fn large_window(renderer: impl ViewportRenderer + 'static) -> Harness<'static, Workbench> {
    let mut renderer = renderer;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            move |ui, bench: &mut Workbench| bench.ui(ui, &mut renderer),
            large_workbench(),
        );
    h.run();
    h
}

/// Presses the pointer on the gizmo's X arrow (the selection's) and moves it a first time:
/// returns where it was pressed. Panics unless a gizmo drag is under way.
fn grab_x_arrow(h: &mut Harness<'static, Workbench>) -> egui::Pos2 {
    let bench = h.state();
    let rect = bench.viewport.rect().expect("the viewport was laid out");
    let camera = &bench.viewport.viewport.camera;
    let size = glam::Vec2::new(rect.width(), rect.height());
    let origin = bench.viewport.scene().gizmo_targets[0]
        .world()
        .w_axis
        .truncate();
    let length =
        camera.meters_per_pixel(origin, size.y) * bench.viewport.viewport.gizmo.size_points;
    let at = camera
        .project(origin + glam::Vec3::X * length * 0.6, size)
        .expect("the arrow is in front of the camera");
    let grab = rect.min + egui::vec2(at.x, at.y);
    assert!(rect.contains(grab), "the X arrow is on screen");
    h.hover_at(grab);
    h.run();
    h.drag_at(grab);
    h.run();
    h.hover_at(grab + egui::vec2(4.0, 0.0));
    h.run();
    assert!(
        h.state().viewport.viewport.is_dragging_gizmo(),
        "the pointer holds the gizmo"
    );
    grab
}

/// One frame of the drag: the pointer moves to alternate sides of where it was pressed.
fn drag_frame(h: &mut Harness<'static, Workbench>, grab: egui::Pos2, step: &mut u32) {
    *step += 1;
    let dx = if step.is_multiple_of(2) { 8.0 } else { 16.0 };
    h.hover_at(grab + egui::vec2(dx, 0.0));
    h.step();
}

/// One step of a gizmo drag of [`DRAGGED`] along X, as the viewport reports it.
fn drag_step(doc: &Document, x: &mut f32) -> Action {
    *x += 0.01;
    let mut t = doc.local_transform(DRAGGED);
    t.position.x = *x;
    Action::EditCoalesced(Command::SetTransforms(vec![(DRAGGED, t)]), 0x5ce7)
}

fn frames(c: &mut Criterion) {
    let gl = headless_gl().expect("surfaceless EGL");
    eprintln!("OpenGL: {}", gl.renderer_name());
    let mut group = c.benchmark_group("viewport_drag_65024_entities");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(10));
    let mut x = 0.0f32;

    let mut h = large_window(GlowViewportRenderer::new(gl.gl.clone()).expect("renderer"));
    group.bench_function("static_frame", |b| b.iter(|| h.step()));
    let before = h.state().doc.local_transform(DRAGGED);
    let (grab, mut step) = (grab_x_arrow(&mut h), 0);
    group.bench_function("drag_frame", |b| {
        b.iter(|| {
            drag_frame(&mut h, grab, &mut step);
            // SAFETY: the context made above is current on this thread.
            unsafe { eframe::glow::HasContext::finish(&*gl.gl) };
        })
    });
    let moved = h.state().doc.local_transform(DRAGGED);
    assert_ne!(moved.position.x, before.position.x, "the drag moved it");
    drop(h);

    let mut h = large_window(NullRenderer::default());
    let (grab, mut step) = (grab_x_arrow(&mut h), 0);
    group.bench_function("drag_frame_null_renderer", |b| {
        b.iter(|| drag_frame(&mut h, grab, &mut step))
    });
    assert!(h.state().viewport.viewport.is_dragging_gizmo());
    drop(h);

    let mut doc = large_workbench().doc;
    let mut tab = ViewportTab::default();
    let none = HashSet::new();
    tab.update_scene(&doc, &none, &none, 0.0);
    let mut apply = |doc: &mut Document| {
        let Action::EditCoalesced(command, key) = drag_step(doc, &mut x) else {
            unreachable!()
        };
        doc.apply_coalesced(command, key).expect("a move applies");
    };
    apply(&mut doc);
    let taken = tab.incremental_updates();
    tab.update_scene(&doc, &none, &none, 0.0);
    assert_eq!(
        tab.incremental_updates(),
        taken + 1,
        "a drag step is taken incrementally"
    );
    group.bench_function("tab_update_incremental", |b| {
        b.iter(|| {
            apply(&mut doc);
            tab.update_scene(&doc, &none, &none, 0.0).generation
        })
    });
    group.bench_function("tab_update_full", |b| {
        b.iter(|| {
            apply(&mut doc);
            tab.rebuild_next();
            tab.update_scene(&doc, &none, &none, 0.0).generation
        })
    });
    for n in [1usize, 64, 512, 4096] {
        let id = |name| criterion::BenchmarkId::new(name, n);
        let mut y = 0.0f32;
        let mut move_leaves = |doc: &mut Document| {
            y = if y > 0.5 { 0.0 } else { 1.0 };
            let moves = (0..n)
                .map(|k| {
                    // Entities from 22,300 on have no children (a ternary tree below 64 roots).
                    let e = Entity(22_300 + (k * 10) as u32);
                    let mut t = doc.local_transform(e);
                    t.position.y = y;
                    (e, t)
                })
                .collect();
            // One history step for all (a drag), or history would grow by N per iteration.
            doc.apply_coalesced(Command::SetTransforms(moves), 0x1eaf)
                .expect("a move applies");
        };
        tab.update_scene(&doc, &none, &none, 0.0);
        for (name, full) in [
            ("tab_update_n_leaves_incremental", false),
            ("tab_update_n_leaves_full", true),
        ] {
            group.bench_function(id(name), |b| {
                // Only the tab's update is timed, not the edit before it.
                b.iter_custom(|iters| {
                    let mut spent = Duration::ZERO;
                    for _ in 0..iters {
                        move_leaves(&mut doc);
                        if full {
                            tab.rebuild_next();
                        }
                        let start = Instant::now();
                        black_box(tab.update_scene(&doc, &none, &none, 0.0).generation);
                        spent += start.elapsed();
                    }
                    spent
                })
            });
        }
    }
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    renderer.upload(tab.scene());
    let before = renderer.stats();
    group.bench_function("gpu_update", |b| {
        b.iter(|| {
            apply(&mut doc);
            renderer.upload(tab.update_scene(&doc, &none, &none, 0.0));
        })
    });
    let after = renderer.stats();
    assert_eq!(
        after.uploads, before.uploads,
        "every step was written in place"
    );
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
