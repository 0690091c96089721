//! The viewport alone in a window, on a generated scene, with a minimal "editor" behind it:
//! clicks select (Ctrl toggles, Shift adds), gizmo drags write the entities' local Transforms.
//!
//! ```sh
//! cargo run -p scenetree-viewport --example viewport_demo                 # the showroom
//! cargo run -p scenetree-viewport --example viewport_demo -- 65535        # a stress field of 65,535 entities
//! SCENETREE_SCREENSHOT=out.png cargo run -p scenetree-viewport --example viewport_demo   # save a frame and quit
//! ```

// An example: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;

use eframe::egui;
use scenetree_core::model::{Entity, Transform};
use scenetree_viewport::{
    DragPhase, DrawItem, GizmoMode, GizmoTarget, GlowViewportRenderer, Orientation, Shape,
    Viewport, ViewportScene, demo,
};

struct Entry {
    entity: Entity,
    local: Transform,
    shape: Shape,
    color: egui::Color32,
}

struct DemoApp {
    entries: Vec<Entry>,
    selection: HashSet<Entity>,
    scene: ViewportScene,
    dirty: bool,
    viewport: Viewport,
    renderer: Option<Result<GlowViewportRenderer, String>>,
    screenshot: Option<String>,
    frames: u32,
    screenshot_sent: bool,
    status: String,
}

impl DemoApp {
    fn new(count: Option<usize>) -> DemoApp {
        let source = count.map_or_else(demo::showroom, demo::stress);
        let entries = source
            .items
            .iter()
            .map(|i| {
                let (scale, rotation, position) = i.world.to_scale_rotation_translation();
                Entry {
                    entity: i.entity,
                    local: Transform {
                        position,
                        rotation,
                        scale,
                        parent: Entity::ROOT,
                    },
                    shape: i.shape,
                    color: i.color,
                }
            })
            .collect();
        let selection = source
            .items
            .iter()
            .filter(|i| i.selected)
            .map(|i| i.entity)
            .collect();
        let mut viewport = Viewport::default();
        // For screenshots of the other gizmo modes: SCENETREE_DEMO_GIZMO=rotate|scale|local.
        match std::env::var("SCENETREE_DEMO_GIZMO").as_deref() {
            Ok("rotate") => viewport.gizmo.mode = GizmoMode::Rotate,
            Ok("scale") => viewport.gizmo.mode = GizmoMode::Scale,
            Ok("local") => viewport.gizmo.orientation = Orientation::Local,
            _ => {}
        }
        if count.is_some()
            && let Some(b) = source.focus_bounds()
        {
            viewport.camera.frame_bounds(b.min, b.max, 1.5);
        }
        DemoApp {
            entries,
            selection,
            scene: ViewportScene::default(),
            dirty: true,
            viewport,
            renderer: None,
            screenshot: std::env::var("SCENETREE_SCREENSHOT").ok(),
            frames: 0,
            screenshot_sent: false,
            status: String::new(),
        }
    }

    /// Rebuilds the viewport's items from the "document" when it changed.
    fn sync_scene(&mut self) {
        if !self.dirty {
            return;
        }
        self.scene.items = self
            .entries
            .iter()
            .map(|e| DrawItem {
                entity: e.entity,
                world: e.local.local_matrix(),
                shape: e.shape,
                color: e.color,
                selected: self.selection.contains(&e.entity),
                below_selected: false, // a flat list: nothing is below anything
                texture: None,
            })
            .collect();
        self.scene.gizmo_targets = self
            .entries
            .iter()
            .filter(|e| self.selection.contains(&e.entity))
            .map(|e| GizmoTarget {
                entity: e.entity,
                local: e.local,
                parent_world: glam::Mat4::IDENTITY,
            })
            .collect();
        self.scene.generation += 1;
        self.dirty = false;
    }
}

impl eframe::App for DemoApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        self.sync_scene();
        let renderer = self.renderer.get_or_insert_with(|| {
            GlowViewportRenderer::from_frame(frame).map_err(|e| e.to_string())
        });
        egui::Panel::top("status").show(ui, |ui| {
            ui.label(format!(
                "{} entities, {} selected. {}",
                self.entries.len(),
                self.selection.len(),
                self.status
            ));
        });
        egui::CentralPanel::default().show(ui, |ui| match renderer {
            Err(e) => {
                ui.label(format!("No 3D view: {e}"));
            }
            Ok(renderer) => {
                let r = self.viewport.ui(ui, &self.scene, renderer);
                if let Some(pick) = r.pick {
                    match pick.entity {
                        Some(e) if pick.ctrl => {
                            if !self.selection.remove(&e) {
                                self.selection.insert(e);
                            }
                        }
                        Some(e) if pick.shift => {
                            self.selection.insert(e);
                        }
                        Some(e) => self.selection = HashSet::from([e]),
                        None if pick.ctrl || pick.shift => {}
                        None => self.selection.clear(),
                    }
                    self.dirty = true;
                }
                if let Some(event) = r.gizmo {
                    for t in &event.targets {
                        if let Some(entry) = self.entries.iter_mut().find(|e| e.entity == t.entity)
                        {
                            entry.local = t.local;
                        }
                    }
                    self.status = format!("{:?} {:?}", event.mode, event.phase);
                    if event.phase == DragPhase::End {
                        self.status.push_str(" (one undo step)");
                    }
                    self.dirty = true;
                }
            }
        });

        // Screenshot mode: ask for a frame once things settled, save it, quit.
        self.frames += 1;
        if let Some(path) = self.screenshot.clone() {
            let ctx = ui.ctx().clone();
            // SCENETREE_SCREENSHOT_DELAY=seconds waits (e.g. for xdotool to drag something).
            let delay: f64 = std::env::var("SCENETREE_SCREENSHOT_DELAY")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0.0);
            if self.frames > 3 && ctx.input(|i| i.time) >= delay && !self.screenshot_sent {
                self.screenshot_sent = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Screenshot(Default::default()));
            }
            let shot = ctx.input(|i| {
                i.events.iter().find_map(|e| match e {
                    egui::Event::Screenshot { image, .. } => Some(image.clone()),
                    _ => None,
                })
            });
            if let Some(image) = shot {
                let [w, h] = image.size;
                let bytes: Vec<u8> = image.pixels.iter().flat_map(|p| p.to_array()).collect();
                image::save_buffer(
                    &path,
                    &bytes,
                    w as u32,
                    h as u32,
                    image::ExtendedColorType::Rgba8,
                )
                .expect("write the screenshot");
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ctx.request_repaint();
        }
    }
}

fn main() -> eframe::Result {
    let count = std::env::args().nth(1).and_then(|a| a.parse().ok());
    let options = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        viewport: egui::ViewportBuilder::default().with_inner_size([1100.0, 720.0]),
        ..Default::default()
    };
    eframe::run_native(
        "scenetree viewport demo",
        options,
        Box::new(move |_cc| Ok(Box::new(DemoApp::new(count)))),
    )
}
