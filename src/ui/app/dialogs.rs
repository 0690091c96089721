//! The app's modal dialogs: unsaved changes (and reloading over them), a file changed on disk,
//! lossy save, a read-only file, errors, crash recovery, loading progress, and the keyboard-shortcuts window.

use std::sync::atomic::Ordering;
use std::time::Duration;

use egui::{Key, Modifiers, RichText};

use super::modal::Modal;
use super::saving::SaveQuestion;
use super::{Pending, ScenetreeApp};
use crate::ui::command::shortcut_rows;

impl ScenetreeApp {
    pub(super) fn dialogs_ui(&mut self, ctx: &egui::Context) {
        match self.modals.front() {
            Some(Modal::Unsaved(Pending::Reload)) => self.reload_question_ui(ctx),
            Some(Modal::Unsaved(pending)) => {
                let pending = pending.clone();
                self.unsaved_question_ui(ctx, pending);
            }
            Some(Modal::Problem(_)) => self.problem_ui(ctx),
            Some(Modal::Recovery(_)) => self.recovery_ui(ctx),
            None => {}
        }
        if let Some(asked) = self.saving.question.clone() {
            self.save_question_ui(ctx, asked);
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

    /// Reload from Disk over unsaved changes.
    fn reload_question_ui(&mut self, ctx: &egui::Context) {
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
            self.modals.answered();
            if answer == 0 {
                self.reload();
            }
        }
    }

    /// A request that replaces the document (or closes the window) over unsaved changes.
    fn unsaved_question_ui(&mut self, ctx: &egui::Context, pending: Pending) {
        let text = format!("Save the changes to {} first?", self.document_name());
        let buttons = ["Save", "Don't save", "Cancel"];
        let Some(answer) = question(ctx, "Unsaved changes", &text, &buttons, Some(2)) else {
            return;
        };
        self.modals.answered();
        match answer {
            0 => {
                // Saving may need a dialog or a confirmation first: the request waits for
                // the save to complete (see `save_to_confirmed`).
                self.saving.then = Some(pending);
                self.save();
            }
            1 => self.carry_out(pending),
            _ => {}
        }
    }

    /// A problem, with the file or the readable messages it offers instead.
    fn problem_ui(&mut self, ctx: &egui::Context) {
        let Some(Modal::Problem(problem)) = self.modals.front() else {
            return;
        };
        let offer = problem.open_offer.clone();
        let salvage_label = (problem.salvage.as_ref())
            .map(|s| format!("Open the {} readable message(s)", s.damage.messages));
        let message = problem.message.clone();
        let mut open_chosen = false;
        let mut salvage_chosen = false;
        let shown = egui::Modal::new(egui::Id::new("error")).show(ctx, |ui| {
            ui.heading("△ Problem");
            ui.label(message);
            ui.horizontal(|ui| {
                // A folder that is not a project but holds a scene: open that file.
                if let Some(name) = offer.as_ref().and_then(|file| file.file_name()) {
                    let name = name.to_string_lossy();
                    open_chosen = ui.button(format!("Open {name}")).clicked();
                }
                // A damaged main.crdt: its messages before the damage.
                if let Some(label) = &salvage_label {
                    salvage_chosen = ui.button(label).clicked();
                }
                ui.button("OK").clicked() || open_chosen || salvage_chosen
            })
            .inner
        });
        // Not Enter: the problem may come from an Enter pressed this very frame (a file
        // dialog's), which would close it unseen.
        let escape =
            shown.is_top_modal && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Escape));
        if !(shown.inner || escape) {
            return;
        }
        let Some(Modal::Problem(problem)) = self.modals.answered() else {
            return;
        };
        match (problem.open_offer, problem.salvage) {
            (Some(file), _) if open_chosen => self.request(Pending::Open(file)),
            (_, Some(salvage)) if salvage_chosen => self.open_salvage(salvage),
            _ => {}
        }
    }

    /// Unsaved work a session that did not end cleanly left.
    fn recovery_ui(&mut self, ctx: &egui::Context) {
        let Some(Modal::Recovery(offer)) = self.modals.front() else {
            return;
        };
        let work = &offer.work;
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
                "\n\nRecover opens it in place of the live session with {}: this window leaves \
                 the session (the host keeps every edit it acknowledged).",
                live.host_label()
            ));
        }
        if offer.more > 0 {
            text.push_str(&format!(
                "\n\n{} more from other sessions will be offered at the next start.",
                offer.more
            ));
        }
        let buttons = ["Recover", "Discard"];
        // No answer on Escape: both lose something (the autosave, or the open scene).
        if let Some(answer) = question(ctx, "Recover unsaved work?", &text, &buttons, None)
            && let Some(Modal::Recovery(offer)) = self.modals.answered()
        {
            if answer == 0 {
                self.recover(offer.work);
            } else {
                offer.work.discard();
            }
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
        self.saving.question = None;
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
