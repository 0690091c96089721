//! The menu bar and the file shortcuts (Ctrl+N/O/S/Shift+S/Q).

use egui::{Key, KeyboardShortcut, Modifiers};

use super::{Example, Pending, ScenetreeApp};
use crate::ui::Action;
use crate::ui::files::DialogPurpose;
use crate::ui::workbench::default_dock;

impl ScenetreeApp {
    pub(super) fn file_shortcuts(&mut self, ctx: &egui::Context) {
        let ctrl = Modifiers::COMMAND;
        // Ctrl+Shift+S before Ctrl+S, so the longer combination wins.
        let (new, open, save_as, save, quit) = ctx.input_mut(|i| {
            (
                i.consume_shortcut(&KeyboardShortcut::new(ctrl, Key::N)),
                i.consume_shortcut(&KeyboardShortcut::new(ctrl, Key::O)),
                i.consume_shortcut(&KeyboardShortcut::new(ctrl | Modifiers::SHIFT, Key::S)),
                i.consume_shortcut(&KeyboardShortcut::new(ctrl, Key::S)),
                i.consume_shortcut(&KeyboardShortcut::new(ctrl, Key::Q)),
            )
        });
        if new {
            self.request(Pending::New);
        }
        if open {
            self.request(Pending::OpenDialog);
        }
        if save_as {
            self.jobs.pick(
                DialogPurpose::SaveAs,
                self.bench.doc.file.as_ref().map(|f| f.path.as_path()),
            );
        }
        if save {
            self.save();
        }
        if quit {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui
                    .add(egui::Button::new("New").shortcut_text("Ctrl+N"))
                    .clicked()
                {
                    self.request(Pending::New);
                    ui.close();
                }
                if ui
                    .add(egui::Button::new("Open…").shortcut_text("Ctrl+O"))
                    .clicked()
                {
                    self.request(Pending::OpenDialog);
                    ui.close();
                }
                ui.menu_button("Open Recent", |ui| {
                    if self.recent.is_empty() {
                        ui.weak("No recent files");
                    }
                    for path in self.recent.clone() {
                        if ui.button(path.display().to_string()).clicked() {
                            self.request(Pending::Open(path));
                            ui.close();
                        }
                    }
                });
                ui.menu_button("Open Example", |ui| {
                    if ui.button("Showroom (17 entities)").clicked() {
                        self.request(Pending::OpenExample(Example::Showroom));
                        ui.close();
                    }
                    if ui.button("Large (65,024 entities)").clicked() {
                        self.request(Pending::OpenExample(Example::Large));
                        ui.close();
                    }
                });
                ui.separator();
                if ui
                    .add(egui::Button::new("Save").shortcut_text("Ctrl+S"))
                    .clicked()
                {
                    self.save();
                    ui.close();
                }
                if ui
                    .add(egui::Button::new("Save As…").shortcut_text("Ctrl+Shift+S"))
                    .clicked()
                {
                    self.jobs.pick(
                        DialogPurpose::SaveAs,
                        self.bench.doc.file.as_ref().map(|f| f.path.as_path()),
                    );
                    ui.close();
                }
                ui.separator();
                if ui
                    .add(egui::Button::new("Quit").shortcut_text("Ctrl+Q"))
                    .clicked()
                {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                    ui.close();
                }
            });
            ui.menu_button("Edit", |ui| {
                let mut actions = Vec::new();
                let undo = self
                    .bench
                    .doc
                    .history()
                    .undo_label()
                    .map(|l| format!("Undo {l}"));
                if ui
                    .add_enabled(
                        undo.is_some(),
                        egui::Button::new(undo.unwrap_or_else(|| "Undo".into()))
                            .shortcut_text("Ctrl+Z"),
                    )
                    .clicked()
                {
                    actions.push(Action::Undo);
                }
                let redo = self
                    .bench
                    .doc
                    .history()
                    .redo_label()
                    .map(|l| format!("Redo {l}"));
                if ui
                    .add_enabled(
                        redo.is_some(),
                        egui::Button::new(redo.unwrap_or_else(|| "Redo".into()))
                            .shortcut_text("Ctrl+Shift+Z"),
                    )
                    .clicked()
                {
                    actions.push(Action::Redo);
                }
                ui.separator();
                let selected = self.bench.doc.selection.entities().to_vec();
                let any = !selected.is_empty();
                if ui
                    .add_enabled(any, egui::Button::new("Duplicate").shortcut_text("Ctrl+D"))
                    .clicked()
                {
                    actions.push(Action::Edit(crate::editor::Command::Duplicate {
                        entities: selected.clone(),
                    }));
                }
                if ui
                    .add_enabled(any, egui::Button::new("Delete").shortcut_text("Del"))
                    .clicked()
                {
                    actions.push(Action::Edit(crate::editor::Command::Delete {
                        entities: selected.clone(),
                    }));
                }
                if ui
                    .add_enabled(any, egui::Button::new("Rename").shortcut_text("F2"))
                    .clicked()
                {
                    actions.extend(selected.last().map(|&e| Action::BeginRename(e)));
                }
                ui.separator();
                if ui
                    .add_enabled(
                        any,
                        egui::Button::new("Copy Transform").shortcut_text("Ctrl+Shift+C"),
                    )
                    .clicked()
                {
                    actions.push(Action::CopyTransform);
                }
                if ui
                    .add_enabled(
                        any,
                        egui::Button::new("Paste Transform").shortcut_text("Ctrl+Shift+V"),
                    )
                    .clicked()
                {
                    actions.push(Action::PasteTransform);
                }
                if !actions.is_empty() {
                    ui.close();
                }
                self.bench.apply_actions(actions);
            });
            ui.menu_button("View", |ui| {
                if ui
                    .add(egui::Button::new("Frame Selection").shortcut_text("F"))
                    .clicked()
                {
                    self.bench.frame_request = true;
                    ui.close();
                }
                ui.checkbox(
                    &mut self.bench.viewport.animate_remote_changes,
                    "Animate deliveries in the viewport",
                );
                if ui.button("Reset Layout").clicked() {
                    self.bench.dock = default_dock();
                    ui.close();
                }
            });
            ui.menu_button("Help", |ui| {
                if ui.button("Keyboard Shortcuts").clicked() {
                    self.show_shortcuts = true;
                    ui.close();
                }
                ui.label(format!("scenetree {}", env!("CARGO_PKG_VERSION")));
            });
        });
    }
}

/// The keyboard shortcuts, as the Help window and the README list them.
pub const SHORTCUTS: &[(&str, &str)] = &[
    ("Ctrl+N / Ctrl+O / Ctrl+S", "New, open, save"),
    ("Ctrl+Shift+S", "Save as"),
    ("Ctrl+Z", "Undo"),
    ("Ctrl+Shift+Z, Ctrl+Y", "Redo"),
    (
        "Click / Ctrl+click / Shift+click",
        "Select, add to selection, select range",
    ),
    ("F2, double-click", "Rename"),
    ("Ctrl+D", "Duplicate with children"),
    ("Del, Backspace", "Delete with children"),
    ("Ctrl+Shift+C / Ctrl+Shift+V", "Copy / paste a transform"),
    (
        "Drag a row onto a row",
        "Reparent, keeping the world position",
    ),
    ("Shift while dropping", "Reparent, keeping the local values"),
    ("F", "Frame the selection in the viewport"),
    ("W / E / R", "Gizmo: translate / rotate / scale"),
    ("Esc", "Clear the selection"),
];
