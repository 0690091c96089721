//! The app's modal dialogs: unsaved changes (and reloading over them), a file changed on disk,
//! lossy save, a read-only file, errors, crash recovery, loading progress, and the keyboard-shortcuts window.

use std::sync::atomic::Ordering;
use std::time::Duration;

use egui::{Key, Modifiers, RichText};

use super::saving::SaveQuestion;
use super::{Pending, ScenetreeApp};
use crate::ui::command::shortcut_rows;

impl ScenetreeApp {
    pub(super) fn dialogs_ui(&mut self, ctx: &egui::Context) {
        if self.pending == Some(Pending::Reload) {
            let mut text = format!(
                "Reading {} again from disk drops the changes made since it was last saved",
                self.document_name()
            );
            text.push_str(match self.bench.doc.simulation() {
                Some(_) => ", and ends the simulation: its peers and the messages in flight.",
                None => ".",
            });
            let buttons = ["Discard changes and reload", "Cancel"];
            let asked = question(
                ctx,
                "Reload and lose your changes?",
                &text,
                &buttons,
                Some(1),
            );
            if let Some(answer) = asked {
                self.pending = None;
                if answer == 0 {
                    self.reload();
                }
            }
        } else if let Some(pending) = self.pending.clone() {
            let text = format!("Save the changes to {} first?", self.document_name());
            let buttons = ["Save", "Don't save", "Cancel"];
            match question(ctx, "Unsaved changes", &text, &buttons, Some(2)) {
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
        if let Some(asked) = self.save_question.clone() {
            self.save_question_ui(ctx, asked);
        }
        if let Some(message) = self.error.clone() {
            let offer = self.open_offer.clone();
            let salvage_label = (self.salvage_offer.as_ref())
                .map(|s| format!("Open the {} readable message(s)", s.damage.messages));
            let mut salvage_chosen = false;
            let shown = egui::Modal::new(egui::Id::new("error")).show(ctx, |ui| {
                ui.heading("△ Problem");
                ui.label(message);
                ui.horizontal(|ui| {
                    // A folder that is not a project but holds a scene: open that file.
                    let open = offer.as_ref().and_then(|file| {
                        let name = file.file_name()?.to_string_lossy().into_owned();
                        ui.button(format!("Open {name}")).clicked().then_some(file)
                    });
                    if let Some(file) = open {
                        self.pending_offer = Some(file.clone());
                    }
                    // A damaged main.crdt: its messages before the damage.
                    if let Some(label) = &salvage_label {
                        salvage_chosen = ui.button(label).clicked();
                    }
                    ui.button("OK").clicked() || open.is_some() || salvage_chosen
                })
                .inner
            });
            // Not Enter: the error may come from an Enter pressed this very frame (a file
            // dialog's), which would close it unseen.
            let escape = shown.is_top_modal
                && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Escape));
            if shown.inner || escape {
                self.error = None;
                self.open_offer = None;
                if let Some(file) = self.pending_offer.take() {
                    self.request(Pending::Open(file));
                }
                match self.salvage_offer.take() {
                    Some(salvage) if salvage_chosen => self.open_salvage(salvage),
                    _ => {}
                }
            }
        }
        if let Some(work) = &self.recovery_offer {
            let what = match (work.original(), work.unplaced_name()) {
                (Some(path), _) => path.display().to_string(),
                (None, Some(name)) => format!(
                    "{} (in a folder an older scenetree did not record: it opens untitled)",
                    name.display()
                ),
                (None, None) => match &work.info.project {
                    Some(root) => format!("an untitled scene of the project {}", root.display()),
                    None => "an untitled scene".to_string(),
                },
            };
            let mut text = format!(
                "scenetree kept unsaved changes to {what} from a session that did not end cleanly."
            );
            if let Some(live) = self.bench.doc.live() {
                text.push_str(&format!(
                    "\n\nRecover opens it in place of the live session with {}: this window \
                     leaves the session (the host keeps every edit it acknowledged).",
                    live.host_label()
                ));
            }
            if self.more_recovery_offers > 0 {
                text.push_str(&format!(
                    "\n\n{} more from other sessions will be offered at the next start.",
                    self.more_recovery_offers
                ));
            }
            let buttons = ["Recover", "Discard"];
            // No answer on Escape: both lose something (the autosave, or the open scene).
            if let Some(answer) = question(ctx, "Recover unsaved work?", &text, &buttons, None)
                && let Some(work) = self.recovery_offer.take()
            {
                if answer == 0 {
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

    /// Asks `asked`; an answer goes on with the save (with the user's consent), turns it into
    /// Save As, or abandons it.
    fn save_question_ui(&mut self, ctx: &egui::Context, asked: SaveQuestion) {
        let (heading, text, buttons): (&str, String, &[&str]) = match &asked {
            SaveQuestion::Overwrite { path, .. } => (
                "The file changed on disk",
                format!(
                    "{} was changed by another program after scenetree read it. Saving now \
                     replaces those changes with this scene.",
                    path.display()
                ),
                &["Save anyway", "Save As…", "Cancel"],
            ),
            SaveQuestion::Lossy { path, lost, .. } => {
                let mut text = format!(
                    "{} cannot hold everything in this scene. Saving would drop:",
                    path.display()
                );
                for item in lost {
                    text.push_str(&format!("\n• {item}"));
                }
                ("Save would lose data", text, &["Save anyway", "Cancel"])
            }
            SaveQuestion::ReadOnly { read_only, .. } => (
                "The file is read-only",
                format!(
                    "{} is read-only: you have no permission to write it. Replacing it anyway \
                     keeps its permissions, so it stays read-only.",
                    read_only.display()
                ),
                &["Replace anyway", "Save As…", "Cancel"],
            ),
        };
        let cancel = buttons.len() - 1;
        let Some(answer) = question(ctx, heading, &text, buttons, Some(cancel)) else {
            return;
        };
        self.save_question = None;
        match answer {
            0 => {
                let (path, consent) = asked.agreed();
                self.save_to_confirmed(path, consent);
            }
            // Keeps both: a request waiting for the save goes on once it is made.
            a if a != cancel => self.save_as(),
            _ => self.save_abandoned(),
        }
    }
}

/// A modal question: its heading, its text, and a row of buttons. Returns the index of the
/// button clicked this frame, or `on_escape` when Escape was pressed (the top dialog only, as
/// in other editors, where Escape is Cancel; a click outside does nothing).
pub(super) fn question(
    ctx: &egui::Context,
    heading: &str,
    text: &str,
    buttons: &[&str],
    on_escape: Option<usize>,
) -> Option<usize> {
    let mut answer = None;
    let shown = egui::Modal::new(egui::Id::new(heading)).show(ctx, |ui| {
        ui.heading(heading);
        ui.label(text);
        ui.horizontal(|ui| {
            for (i, label) in buttons.iter().enumerate() {
                if ui.button(*label).clicked() {
                    answer = Some(i);
                }
            }
        });
    });
    if answer.is_none()
        && on_escape.is_some()
        && shown.is_top_modal
        && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Escape))
    {
        answer = on_escape;
    }
    answer
}
