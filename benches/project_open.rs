//! Opening a real Decentraland project: the bundled Cozy House (`scenes/Cozy-House-Template`:
//! 36 entities, 26 glTF models and textures, 17 MB on disk), on Mesa's software OpenGL through
//! surfaceless EGL (no GPU on this machine).
//!
//! - `open_to_full_frame`: from nothing to the first image with every model drawn: read and
//!   parse the scene, load the models on the library's worker threads, upload them to the GPU
//!   (time-boxed slices, as the app does frame by frame), render 800×520 with 4× multisampling
//!   and read the pixels back. Every iteration starts with a new GL renderer (shaders compiled
//!   again; Mesa's own shader cache stays warm, as it is for a user's second start).
//! - `ui_frame_while_loading`: one frame of the whole workbench (hierarchy, inspector, status,
//!   the viewport on the real renderer, egui's layout) while the models load and upload in the
//!   background. Frames that draw the finished scene are not counted (that is the previous
//!   benchmark's last step). egui's clock is the real one, as in the app (kittest's own
//!   advances a quarter second a step, which would make time-based throttles fire far too
//!   often). The median, 90th percentile and worst single frame are printed at the end.
//!
//! Run: `cargo bench --bench project_open`.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use egui_kittest::Harness;
use scenetree::ui::Workbench;
use scenetree::ui::files::load_document;
use scenetree::ui::viewport_tab::ViewportTab;
use scenetree_editor::Document;
use scenetree_viewport::{GlowViewportRenderer, RenderRequest, ViewportRenderer};

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

use scenetree_viewport::headless as egl;

fn cozy_house() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/Cozy-House-Template")
}

/// Open the project and draw it with every model; returns the time it took.
fn open_to_full_frame(gl: &egl::Headless) -> Duration {
    let started = Instant::now();
    let doc = load_document(&cozy_house(), &AtomicU32::new(0)).expect("the project opens");
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    let mut tab = ViewportTab::default();
    tab.assets.set_project(doc.project.clone());
    let none = HashSet::new();
    tab.update_scene(&doc, &none, &none, 0.0);
    assert!(tab.assets.wait_until_loaded(Duration::from_secs(60)));
    let scene = tab.update_scene(&doc, &none, &none, 0.0).clone();
    while renderer.prepare(&scene) {}
    let request = RenderRequest {
        scene: &scene,
        camera: &tab.viewport.camera,
        size_px: [800, 520],
        background: egui::Color32::BLACK,
        multisample: true,
    };
    renderer.render_offscreen(&request).expect("render");
    let pixels = renderer.read_pixels();
    let elapsed = started.elapsed();
    assert_eq!(renderer.stats().models_uploaded, scene.assets.models.len());
    assert!(scene.assets.models.len() >= 25);
    std::hint::black_box(pixels);
    elapsed
}

struct Window {
    bench: Workbench,
    renderer: GlowViewportRenderer,
}

impl Window {
    /// Models still loading or uploading.
    fn loading(&self) -> bool {
        self.bench.viewport.assets.progress().pending() > 0 || self.renderer.models_waiting()
    }
}

fn open_in(window: &mut Window, doc: Document) {
    window.bench = Workbench::new(Document::default());
    window.bench.set_document(doc);
}

fn bench(c: &mut Criterion) {
    let gl = egl::headless_gl().expect("surfaceless EGL (Mesa)");
    let mut group = c.benchmark_group("cozy_house");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(30));
    group.bench_function("open_to_full_frame", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| open_to_full_frame(&gl)).sum())
    });

    let doc = || load_document(&cozy_house(), &AtomicU32::new(0)).expect("the project opens");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, w: &mut Window| w.bench.ui(ui, &mut w.renderer),
            Window {
                bench: Workbench::new(Document::default()),
                renderer: GlowViewportRenderer::new(gl.gl.clone()).expect("renderer"),
            },
        );
    let mut frames: Vec<Duration> = Vec::new();
    let clock = Instant::now();
    let step = |h: &mut Harness<'_, Window>| {
        h.input_mut().time = Some(clock.elapsed().as_secs_f64());
        h.step();
    };
    group.sample_size(30);
    group.bench_function("ui_frame_while_loading", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut counted = 0;
            while counted < iters {
                if !h.state().loading() {
                    // Start again: a new workbench (and library) opens the project; its first
                    // frames draw the placeholders, then the models load.
                    open_in(h.state_mut(), doc());
                    step(&mut h);
                    continue;
                }
                let renders = h.state().renderer.stats().frames;
                let started = Instant::now();
                step(&mut h);
                let took = started.elapsed();
                let drew_the_finished_scene =
                    h.state().renderer.stats().frames > renders && !h.state().loading();
                if !drew_the_finished_scene {
                    total += took;
                    counted += 1;
                    frames.push(took);
                }
                // Frames come about 60 times a second in the window; the loads go on meanwhile.
                std::thread::sleep(Duration::from_millis(4));
            }
            total
        })
    });
    group.finish();
    frames.sort();
    let at = |q: f64| frames[((frames.len() - 1) as f64 * q) as usize];
    eprintln!(
        "cozy_house/ui_frame_while_loading: {} frames; median {:?}, 90th percentile {:?}, worst {:?}",
        frames.len(),
        at(0.5),
        at(0.9),
        at(1.0)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
