//! CPU cost of the editor with the large generated scene (65,024 entities): one static frame of
//! the whole workbench (tree, inspector, status; the viewport stubbed), a frame right after an
//! edit, and the edit itself (replica write + incremental render-tree update); then the same
//! window with 10,000 entities selected (a Shift-click range): a static frame, a frame after the
//! selection changed, a frame while the selection is dragged over a row, and duplicating a
//! district with its subtree.
//!
//! `cargo bench --bench editor_frame`

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::ui::Workbench;
use scenetree::ui::hierarchy::DraggedEntities;
use scenetree_core::examples;
use scenetree_core::model::Entity;
use scenetree_editor::{Command, Document};
use scenetree_viewport::NullRenderer;

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

fn large_workbench() -> Workbench {
    let doc = Document::new(examples::large(usize::MAX), None);
    let mut bench = Workbench::new(doc);
    bench.doc.selection.select_only(Entity(600));
    bench
}

fn frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("editor_frame_65024_entities");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(8));
    let mut h = large_window();
    group.bench_function("static_frame", |b| b.iter(|| h.step()));
    let mut x = 0.0f32;
    group.bench_function("frame_after_moving_one_entity", |b| {
        b.iter(|| {
            x += 0.01;
            let doc = &mut h.state_mut().doc;
            let mut t = doc.local_transform(Entity(600));
            t.position.x = x;
            doc.apply(Command::SetTransforms(vec![(Entity(600), t)]))
                .unwrap();
            h.step();
        })
    });
    group.finish();

    let mut group = c.benchmark_group("editor_edit_65024_entities");
    group.sample_size(50);
    let mut doc = Document::new(examples::large(usize::MAX), None);
    let mut y = 0.0f32;
    group.bench_function("move_a_district_with_its_subtree", |b| {
        b.iter(|| {
            y += 0.01;
            let mut t = doc.local_transform(Entity(512));
            t.position.y = y;
            black_box(
                doc.apply(Command::SetTransforms(vec![(Entity(512), t)]))
                    .unwrap(),
            );
        })
    });
    group.bench_function("move_a_leaf", |b| {
        b.iter(|| {
            y += 0.01;
            let mut t = doc.local_transform(Entity(65_000));
            t.position.y = y;
            black_box(
                doc.apply(Command::SetTransforms(vec![(Entity(65_000), t)]))
                    .unwrap(),
            );
        })
    });
    group.finish();
}

/// The whole window over the large scene, after its first frames.
fn large_window() -> Harness<'static, Workbench> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, bench: &mut Workbench| bench.ui(ui, &mut NullRenderer::default()),
            large_workbench(),
        );
    h.run();
    h
}

/// Selects `count` tree rows from row `first` on, as a Shift-click does.
fn select_rows(bench: &mut Workbench, first: usize, count: usize) {
    let rows = bench.hierarchy.visible_entities(&bench.doc);
    bench.doc.selection.select_only(rows[first]);
    bench
        .doc
        .selection
        .select_range(rows[first + count - 1], &rows);
}

const SELECTED: usize = 10_000;

fn large_selections(c: &mut Criterion) {
    let mut group = c.benchmark_group("editor_frame_65024_entities_10000_selected");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(8));
    let mut h = large_window();
    select_rows(h.state_mut(), 0, SELECTED);
    h.run();
    assert_eq!(h.state().doc.selection.len(), SELECTED);
    group.bench_function("static_frame", |b| b.iter(|| h.step()));
    let mut first = 0;
    group.bench_function("frame_after_the_selection_changed", |b| {
        b.iter(|| {
            first = (first + 1) % 2;
            select_rows(h.state_mut(), first, SELECTED);
            h.step();
        })
    });
    // Dragging the selected rows: every frame asks where they may be dropped.
    let dragged = h.state().doc.selection.entities().to_vec();
    egui::DragAndDrop::set_payload(&h.ctx, DraggedEntities(dragged));
    h.get_by_label_contains("Node 0  ").hover();
    h.step();
    group.bench_function("frame_dragging_the_selection_over_a_row", |b| {
        b.iter(|| h.step())
    });
    group.finish();

    let mut group = c.benchmark_group("editor_edit_65024_entities");
    group.sample_size(20);
    // 64 districts of about 1,000 entities; a duplicate and its undo leave the ids free again.
    let mut doc = Document::new(examples::large(40_000), None);
    group.bench_function("duplicate_a_district_with_its_subtree_then_undo", |b| {
        b.iter(|| {
            black_box(
                doc.apply(Command::Duplicate {
                    entities: vec![Entity(512)],
                })
                .unwrap(),
            );
            doc.undo().unwrap();
        })
    });
    group.finish();
}

criterion_group!(benches, frames, large_selections);
criterion_main!(benches);
