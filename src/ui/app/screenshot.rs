//! `--screenshot`: render the window until the scene and its models are loaded and drawn, save
//! a PNG, exit.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::ScenetreeApp;

/// How long a screenshot waits for a scene's models before it is taken anyway (with a note on
/// stderr): a model that neither loads nor fails must not hang a script.
const MODEL_WAIT_LIMIT: Duration = Duration::from_secs(180);

pub(super) struct Screenshot {
    pub(super) path: PathBuf,
    pub(super) frame: u32,
    pub(super) requested: bool,
    /// Why the capture failed, shared with [`super::run`], which outlives the app and turns it
    /// into the process's exit status.
    pub(super) failure: Rc<RefCell<Option<String>>>,
    /// When the app started waiting for the scene.
    pub(super) started: Instant,
}

impl Screenshot {
    pub(super) fn new(path: PathBuf) -> Screenshot {
        Screenshot {
            path,
            frame: 0,
            requested: false,
            failure: Rc::default(),
            started: Instant::now(),
        }
    }
}

impl ScenetreeApp {
    /// Why `--screenshot` could not save its picture, once it failed (the window then closes).
    pub fn screenshot_failure(&self) -> Option<String> {
        self.screenshot.as_ref()?.failure.borrow().clone()
    }

    pub(super) fn screenshot_step(&mut self, ctx: &egui::Context) {
        let loading = self.jobs.loading.is_some();
        let settled = self.bench.viewport.is_settled();
        let Some(shot) = &mut self.screenshot else {
            return;
        };
        ctx.request_repaint();
        if loading {
            return; // capture the scene that was asked for, not the one before it
        }
        if !settled && !shot.requested {
            if shot.started.elapsed() < MODEL_WAIT_LIMIT {
                shot.frame = 0; // the models are loading: wait, then let the view settle
                return;
            }
            if shot.frame == 0 {
                eprintln!(
                    "note: some models were still loading after {} s; taking the screenshot anyway",
                    MODEL_WAIT_LIMIT.as_secs()
                );
            }
        }
        shot.frame += 1;
        // A few frames let the dock settle and the viewport render before the capture.
        if shot.frame >= 8 && !shot.requested {
            shot.requested = true;
            ctx.send_viewport_cmd(egui::ViewportCommand::Screenshot(Default::default()));
        }
        let image = ctx.input(|i| {
            i.events.iter().find_map(|e| match e {
                egui::Event::Screenshot { image, .. } => Some(image.clone()),
                _ => None,
            })
        });
        if let Some(image) = image {
            let path = shot.path.clone();
            match save_png(&path, &image) {
                Ok(()) => eprintln!("saved {}", path.display()),
                Err(e) => {
                    *shot.failure.borrow_mut() = Some(format!(
                        "{}: cannot save the screenshot: {e}",
                        path.display()
                    ));
                }
            }
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}

fn save_png(path: &Path, image: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = image.size;
    let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    let buffer = image::RgbaImage::from_raw(w as u32, h as u32, bytes).ok_or("bad image size")?;
    buffer.save(path).map_err(|e| e.to_string())
}
