//! The status bar: the last message, the scene's counts, model loading.

use egui::RichText;

use super::Workbench;
use crate::ui::action::Severity;
use crate::ui::action::{Action, SelectAction};
use crate::ui::style;
use scenetree_core::model::{Entity, present};

impl Workbench {
    /// Draws the status bar; returns what the user asked of it (a click on the model
    /// warning selects the entities it is about).
    pub(super) fn status_ui(&mut self, ui: &mut egui::Ui) -> Vec<Action> {
        let mut actions = Vec::new();
        ui.horizontal(|ui| {
            // The counts first, from the right, so a long message is cut short rather than
            // drawn over them in a narrow window.
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let view = self.doc.view();
                let cycles = view.cycles().len();
                ui.weak(format!(
                    "{} · {} selected",
                    present::entity_count(self.doc.scene_entity_count()),
                    self.doc.selection.len()
                ));
                if self.assets_status_ui(ui) {
                    actions = self.select_asset_problems();
                }
                if cycles > 0 {
                    ui.label(
                        RichText::new(format!("⟲ {cycles} parenting cycle(s)")).color(style::CYCLE),
                    );
                }
                self.live_status_ui(ui);
                if let Some(saving) = &self.saving {
                    ui.label(saving);
                    ui.spinner();
                }
                ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                    let (text, color) = match &self.status {
                        Some((text, Severity::Error)) => (format!("△ {text}"), Some(style::ERROR)),
                        Some((text, Severity::Info)) => (text.clone(), None),
                        None => ("Ready".to_owned(), Some(ui.visuals().weak_text_color())),
                    };
                    let mut rich = RichText::new(&text);
                    if let Some(color) = color {
                        rich = rich.color(color);
                    }
                    // A truncated label shows its whole text on hover.
                    ui.add(egui::Label::new(rich).truncate());
                });
            });
        });
        actions
    }

    /// A live document: live or offline, to which host, and how many of this editor's
    /// messages wait for the host's acknowledgement.
    fn live_status_ui(&self, ui: &mut egui::Ui) {
        let Some(live) = self.doc.live() else {
            return;
        };
        let connected = live.state() == scenetree_editor::LinkState::Connected;
        let (mark, color) = match connected {
            true => ("● live", style::SUCCESS),
            false => ("○ offline", style::WARNING),
        };
        // Short, so the counts beside it fit a window half a screen wide.
        let text = format!(
            "{mark} {} · {} unacknowledged",
            live.host_label(),
            live.waiting()
        );
        ui.label(RichText::new(text).color(color))
            .on_hover_text(format!(
                "Connected to Decentraland's data layer at {} (connection {} of this session): \
             every edit goes to the host, other editors' edits arrive here. {} of your \
             messages wait for the host's acknowledgement.",
                live.url(),
                live.connection_number(),
                live.waiting()
            ));
    }

    /// Finds again which rows get the `△ file` badge, when the model files or the scene
    /// changed. Nothing is looked at while no file failed (every frame of a scene without
    /// problems costs one count).
    pub(super) fn refresh_file_problems(&mut self) {
        let progress = self.viewport.assets.progress();
        if progress.failed + progress.missing == 0 {
            if !self.hierarchy.file_problems.is_empty() {
                self.hierarchy.file_problems.clear();
            }
            self.hierarchy.file_problems_key = None;
            return;
        }
        let key = (
            self.viewport.assets.generation(),
            self.doc.replica().version(),
        );
        if self.hierarchy.file_problems_key == Some(key) {
            return;
        }
        let live = self.doc.replica().live_entities().collect::<Vec<_>>();
        let found = self.viewport.entities_with_asset_problems(&self.doc, live);
        self.hierarchy.file_problems = found.into_iter().collect();
        self.hierarchy.file_problems_key = Some(key);
    }

    /// Selects (and reveals) the entities whose model or texture did not load, saying how
    /// many; the message says so when none is left (the file came back since, say).
    fn select_asset_problems(&mut self) -> Vec<Action> {
        // The badges' set is current: it is refreshed before the status bar is drawn.
        let found: Vec<Entity> = (self.hierarchy.all_entities(&self.doc).into_iter())
            .filter(|e| self.hierarchy.file_problems.contains(e))
            .collect();
        if found.is_empty() {
            let text = "No entity of the scene names a missing or unreadable file any more";
            return vec![Action::Status(text.into(), Severity::Info)];
        }
        let text = format!(
            "Selected {} whose model or texture did not load; the inspector says why",
            match found.len() {
                1 => "the entity".to_string(),
                n => format!("the {n} entities"),
            }
        );
        let mut actions: Vec<Action> = found.iter().map(|&e| Action::Reveal(e)).collect();
        actions.push(Action::Select(SelectAction::Many(found)));
        actions.push(Action::Status(text, Severity::Info));
        actions
    }

    /// Model loading in the status bar: a progress bar while files load, then how many
    /// loaded and failed. True when the user clicked the warning about failed files.
    fn assets_status_ui(&self, ui: &mut egui::Ui) -> bool {
        let progress = self.viewport.assets.progress();
        if progress.total + progress.missing == 0 {
            return false;
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
            let text = RichText::new(format!(
                "△ {problems} model or texture file(s) missing or unreadable · {} loaded",
                progress.ready
            ))
            .color(style::WARNING);
            return ui
                .add(egui::Label::new(text).sense(egui::Sense::click()))
                .on_hover_text("Click to select the entities they belong to; the inspector says what went wrong")
                .on_hover_cursor(egui::CursorIcon::PointingHand)
                .clicked();
        } else {
            ui.weak(format!("{} model and texture files loaded", progress.ready));
        }
        false
    }
}
