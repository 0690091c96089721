//! Scene shapes that used to cost the square of their size (issue 29): one parenting cycle
//! through every entity number (65,535 entities, ids 1 to 65,535, all re-rooted), and a chain
//! 100,000 deep (ids 512 to 100,511 as a generator writes them, so the ids above 65,535 are
//! newer versions of numbers 0 to 34,975 and retire 34,464 older ones, which the editor still
//! shows). For each, from a main.crdt's bytes:
//!
//! - `open`: the bytes read into a replica (`io::open_scene_bytes`, load notes included), the
//!   document and its render tree built (`Document::new`), and the hierarchy's rows as the
//!   first frame builds them.
//! - `open_to_first_frame`: `open`, then the window's first frames (the whole workbench with
//!   `NullRenderer`: hierarchy rows and badges, the inspector's scene summary, the viewport's
//!   items), what the user waits for until the scene shows.
//! - `click`: what a click on a row makes the editor do before anything is rendered: the
//!   selection changes and one frame of the whole workbench runs (the hierarchy's rows and
//!   badges, the inspector, the viewport's items rebuilt for the new selection; the viewport
//!   itself is `NullRenderer`, so no software rendering is counted).
//! - `tree_text`, `tree_json`: what `scenetree tree [--json]` prints, written to a sink
//!   (throughput = the output's bytes).
//!
//! Targets on the 2-core development machine: open under 0.5 s, a click under 16 ms, output
//! linear in the scene (`tests/cli/file_safety_cli.rs` checks the sizes).
//! Run: `cargo bench --bench large_cycles`.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use egui_kittest::Harness;
use scenetree::ui::Workbench;
use scenetree::ui::hierarchy::HierarchyPanel;
use scenetree_core::crdt::{CrdtMessage, encode_stream};
use scenetree_core::model::{Entity, Transform};
use scenetree_editor::Document;
use scenetree_viewport::NullRenderer;

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

fn put(entity: u32, parent: u32) -> CrdtMessage {
    let t = Transform {
        parent: Entity(parent),
        ..Transform::IDENTITY
    };
    CrdtMessage::put_transform(Entity(entity), 1, &t)
}

/// main.crdt bytes of one cycle through ids 1 to 65,535 (each under the next).
fn cycle_crdt() -> Vec<u8> {
    let last = u32::from(u16::MAX);
    encode_stream(&(1..=last).map(|n| put(n, n % last + 1)).collect::<Vec<_>>())
}

/// main.crdt bytes of a chain 100,000 deep: 512 at the root, each next id under the last.
fn chain_crdt() -> Vec<u8> {
    let ids = 512..512 + 100_000u32;
    encode_stream(
        &ids.map(|id| put(id, if id == 512 { 0 } else { id - 1 }))
            .collect::<Vec<_>>(),
    )
}

fn open(bytes: &[u8]) -> Document {
    let opened = scenetree_dcl::io::open_scene_bytes(Path::new("main.crdt"), bytes).expect("reads");
    Document::new(opened.replica, None)
}

fn window(doc: Document) -> Harness<'static, Workbench> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, bench: &mut Workbench| bench.ui(ui, &mut NullRenderer::default()),
            Workbench::new(doc),
        );
    h.run();
    h
}

fn shapes(c: &mut Criterion) {
    for (name, bytes) in [
        ("cycle_65535", cycle_crdt()),
        ("chain_100000", chain_crdt()),
    ] {
        let mut group = c.benchmark_group(format!("large_cycles/{name}"));
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(4));
        group.bench_function("open", |b| {
            b.iter(|| {
                let doc = open(black_box(&bytes));
                let rows = HierarchyPanel::default().visible_entities(&doc);
                (doc, rows)
            })
        });

        group.bench_function("open_to_first_frame", |b| {
            b.iter(|| window(open(black_box(&bytes))))
        });

        let mut h = window(open(&bytes));
        let bench = h.state_mut();
        let rows = bench.hierarchy.visible_entities(&bench.doc);
        let (a, b_) = (rows[0], rows[1]);
        let mut flip = false;
        group.bench_function("click", |b| {
            b.iter(|| {
                flip = !flip;
                let row = if flip { a } else { b_ };
                h.state_mut().doc.selection.select_only(row);
                h.step();
            })
        });

        let doc = open(&bytes);
        for (label, json) in [("tree_text", false), ("tree_json", true)] {
            let mut out = Vec::new();
            scenetree::cli::write_tree(doc.replica(), doc.view(), json, &mut out).unwrap();
            eprintln!("{name}/{label}: {} bytes", out.len());
            group.throughput(Throughput::Bytes(out.len() as u64));
            group.bench_function(label, |b| {
                b.iter(|| {
                    out.clear();
                    scenetree::cli::write_tree(doc.replica(), doc.view(), json, &mut out).unwrap();
                    out.len()
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, shapes);
criterion_main!(benches);
