//! The status bar: the last message, the scene's counts, model loading.

use egui::RichText;

use super::{Severity, Workbench};
use crate::ui::style;

impl Workbench {
    pub(super) fn status_ui(&self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            match &self.status {
                Some((text, Severity::Error)) => {
                    ui.label(RichText::new(format!("△ {text}")).color(style::ERROR));
                }
                Some((text, Severity::Info)) => {
                    ui.label(text);
                }
                None => {
                    ui.weak("Ready");
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let view = self.doc.view();
                let cycles = view.cycles().len();
                ui.weak(format!(
                    "{} entities · {} selected",
                    self.doc.scene_entity_count(),
                    self.doc.selection.len()
                ));
                self.assets_status_ui(ui);
                if cycles > 0 {
                    ui.label(
                        RichText::new(format!("⟲ {cycles} parenting cycle(s)")).color(style::CYCLE),
                    );
                }
            });
        });
    }

    /// Model loading in the status bar: a progress bar while files load, then how many
    /// loaded and failed.
    fn assets_status_ui(&self, ui: &mut egui::Ui) {
        let progress = self.viewport.assets.progress();
        if progress.total + progress.missing == 0 {
            return;
        }
        let done = progress.ready + progress.failed;
        let problems = progress.failed + progress.missing;
        if progress.pending() > 0 {
            ui.add(
                egui::ProgressBar::new(done as f32 / progress.total as f32)
                    // Wide enough for the text at any count ("3/26" was cut to "3/2").
                    .desired_width(170.0)
                    .text(format!("Loading models {done}/{}", progress.total)),
            );
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        } else if problems > 0 {
            ui.label(
                RichText::new(format!(
                    "△ {problems} model or texture file(s) missing or unreadable (see the inspector) · {} loaded",
                    progress.ready
                ))
                .color(style::WARNING),
            );
        } else {
            ui.weak(format!("{} model and texture files loaded", progress.ready));
        }
    }
}
