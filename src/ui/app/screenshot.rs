//! `--screenshot`: render the window for a few frames, save a PNG, exit.

use std::path::{Path, PathBuf};

use super::ScenetreeApp;

pub(super) struct Screenshot {
    pub(super) path: PathBuf,
    pub(super) frame: u32,
    pub(super) requested: bool,
}

impl ScenetreeApp {
    pub(super) fn screenshot_step(&mut self, ctx: &egui::Context) {
        let loading = self.jobs.loading.is_some();
        let Some(shot) = &mut self.screenshot else {
            return;
        };
        ctx.request_repaint();
        if loading {
            return; // capture the scene that was asked for, not the one before it
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
            if let Err(e) = save_png(&path, &image) {
                eprintln!("error: {}: cannot save the screenshot: {e}", path.display());
                std::process::exit(1);
            }
            eprintln!("saved {}", path.display());
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
