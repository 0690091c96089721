//! The app's modal dialogs: unsaved changes (and reloading over them), a file changed on disk,
//! lossy save, errors, crash recovery, loading progress, and the keyboard-shortcuts window.

use std::sync::atomic::Ordering;
use std::time::Duration;

use egui::RichText;

use super::saving::SaveConsent;
use super::{Pending, ScenetreeApp};
use crate::ui::command::shortcut_rows;

impl ScenetreeApp {
    pub(super) fn dialogs_ui(&mut self, ctx: &egui::Context) {
        if self.pending == Some(Pending::Reload) {
            let mut answer = None;
            egui::Modal::new(egui::Id::new("reload")).show(ctx, |ui| {
                ui.heading("Reload and lose your changes?");
                ui.label(format!(
                    "Reading {} again from disk drops the changes made since it was last saved.",
                    self.document_name()
                ));
                ui.horizontal(|ui| {
                    if ui.button("Discard changes and reload").clicked() {
                        answer = Some(true);
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(false);
                    }
                });
            });
            if let Some(reload) = answer {
                self.pending = None;
                if reload {
                    self.reload();
                }
            }
        } else if let Some(pending) = self.pending.clone() {
            let mut answer = None;
            egui::Modal::new(egui::Id::new("unsaved")).show(ctx, |ui| {
                ui.heading("Unsaved changes");
                ui.label(format!(
                    "Save the changes to {} first?",
                    self.document_name()
                ));
                ui.horizontal(|ui| {
                    if ui.button("Save").clicked() {
                        answer = Some(0);
                    }
                    if ui.button("Don't save").clicked() {
                        answer = Some(1);
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(2);
                    }
                });
            });
            match answer {
                Some(0) => {
                    // Saving may need a dialog or a confirmation first: the request waits
                    // for the save to complete (see `save_to_confirmed`).
                    self.pending = None;
                    self.after_save = Some(pending);
                    self.save();
                }
                Some(1) => {
                    self.pending = None;
                    self.carry_out(pending);
                }
                Some(_) => self.pending = None,
                None => {}
            }
        }
        if let Some((path, consent)) = self.overwrite_prompt.clone() {
            let mut answer = None;
            egui::Modal::new(egui::Id::new("changed-on-disk")).show(ctx, |ui| {
                ui.heading("The file changed on disk");
                ui.label(format!(
                    "{} was changed by another program after scenetree read it. Saving now \
                     replaces those changes with this scene.",
                    path.display()
                ));
                ui.horizontal(|ui| {
                    if ui.button("Save anyway").clicked() {
                        answer = Some(Some(true));
                    }
                    if ui.button("Save As…").clicked() {
                        answer = Some(None);
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(Some(false));
                    }
                });
            });
            if let Some(answer) = answer {
                self.overwrite_prompt = None;
                match answer {
                    Some(true) => self.save_to_confirmed(
                        path,
                        SaveConsent {
                            overwrite: true,
                            ..consent
                        },
                    ),
                    // Keeps both: a request waiting for the save goes on once it is made.
                    None => self.save_as(),
                    Some(false) => self.save_abandoned(),
                }
            }
        }
        if let Some((path, lost, consent)) = self.lossy_save.clone() {
            let mut answer = None;
            egui::Modal::new(egui::Id::new("lossy-save")).show(ctx, |ui| {
                ui.heading("Save would lose data");
                ui.label(format!(
                    "{} cannot hold everything in this scene. Saving would drop:",
                    path.display()
                ));
                for item in &lost {
                    ui.label(format!("• {item}"));
                }
                ui.horizontal(|ui| {
                    if ui.button("Save anyway").clicked() {
                        answer = Some(true);
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(false);
                    }
                });
            });
            if let Some(save) = answer {
                self.lossy_save = None;
                if save {
                    self.save_to_confirmed(
                        path,
                        SaveConsent {
                            loss: true,
                            ..consent
                        },
                    );
                } else {
                    self.save_abandoned();
                }
            }
        }
        if let Some(message) = self.error.clone() {
            egui::Modal::new(egui::Id::new("error")).show(ctx, |ui| {
                ui.heading("△ Problem");
                ui.label(message);
                if ui.button("OK").clicked() {
                    self.error = None;
                }
            });
        }
        if let Some(work) = &self.recovery_offer {
            let mut answer = None;
            egui::Modal::new(egui::Id::new("recovery")).show(ctx, |ui| {
                ui.heading("Recover unsaved work?");
                let what = work
                    .info
                    .original
                    .as_ref()
                    .map_or("an untitled scene".to_string(), |p| p.display().to_string());
                ui.label(format!(
                    "scenetree kept unsaved changes to {what} from a session that did not end \
                     cleanly."
                ));
                if self.more_recovery_offers > 0 {
                    ui.weak(format!(
                        "{} more from other sessions will be offered at the next start.",
                        self.more_recovery_offers
                    ));
                }
                ui.horizontal(|ui| {
                    if ui.button("Recover").clicked() {
                        answer = Some(true);
                    }
                    if ui.button("Discard").clicked() {
                        answer = Some(false);
                    }
                });
            });
            if let Some(recover) = answer
                && let Some(work) = self.recovery_offer.take()
            {
                if recover {
                    self.recover(work);
                } else {
                    work.discard();
                }
            }
        }
        if let Some(loading) = &self.jobs.loading {
            let permille = loading.permille.load(Ordering::Relaxed);
            let path = loading.path.display().to_string();
            egui::Modal::new(egui::Id::new("loading")).show(ctx, |ui| {
                ui.label(format!("Opening {path}…"));
                ui.add(egui::ProgressBar::new(permille as f32 / 1000.0).show_percentage());
            });
            ctx.request_repaint_after(Duration::from_millis(50));
        }
        if self.show_shortcuts {
            egui::Window::new("Keyboard shortcuts")
                .open(&mut self.show_shortcuts)
                .show(ctx, |ui| {
                    egui::Grid::new("keys").striped(true).show(ui, |ui| {
                        for (keys, what) in shortcut_rows() {
                            ui.label(RichText::new(keys).monospace());
                            ui.label(what);
                            ui.end_row();
                        }
                    });
                });
        }
    }
}
