//! CPU cost of the editor with the large generated scene (65,024 entities): one static frame of
//! the whole workbench (tree, inspector, status; the viewport stubbed), a frame right after an
//! edit, and the edit itself (replica write + incremental render-tree update).
//!
//! `cargo bench --bench editor_frame`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use egui_kittest::Harness;
use scenetree::editor::{Command, Document, examples};
use scenetree::model::Entity;
use scenetree::ui::Workbench;
use scenetree::ui::viewport::NullRenderer;

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
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, bench: &mut Workbench| bench.ui(ui, &mut NullRenderer::default()),
            large_workbench(),
        );
    h.run();
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

criterion_group!(benches, frames);
criterion_main!(benches);
