//! The menu bar, made from the command table (`ui::command`), and the commands only the app
//! can run (files, quitting, the Help window).

use super::{Example, Pending, ScenetreeApp, cozy_house_dir};
use crate::ui::command::{CommandContext, Menu, UiCommand};
use crate::ui::file_dialog::DialogPurpose;

impl ScenetreeApp {
    /// Runs a command the workbench handed over (from the keyboard or a menu).
    pub(super) fn run_app_command(&mut self, command: UiCommand) {
        match command {
            UiCommand::New => self.request(Pending::New),
            UiCommand::Open => self.request(Pending::OpenDialog),
            UiCommand::OpenProject => self.request(Pending::OpenProjectDialog),
            UiCommand::Save => self.save(),
            UiCommand::SaveAs => self.save_as(),
            UiCommand::Reload => self.request(Pending::Reload),
            UiCommand::AddModel => {
                // The dialogs start in the folder of the file they suggest: the project's
                // assets folder (where the Inspector keeps models) if there is one.
                let start = (self.bench.doc.project.as_ref()).map(|p| {
                    let assets = p.root.join("assets");
                    let folder = if assets.is_dir() {
                        assets
                    } else {
                        p.root.clone()
                    };
                    folder.join("model.glb")
                });
                self.pick(DialogPurpose::AddModel, start)
            }
            UiCommand::Quit => self.request(Pending::Quit),
            UiCommand::ShowShortcuts => self.show_shortcuts = true,
            other => self.bench.run_command(other),
        }
    }

    /// Asks where to save the document.
    pub(super) fn save_as(&mut self) {
        let doc = &self.bench.doc;
        let suggestion =
            (doc.file.as_ref().map(|f| f.path.clone())).or_else(|| doc.save_as_suggestion.clone());
        self.pick(DialogPurpose::SaveAs, suggestion);
    }

    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) {
        let context = self.bench.command_context(ui.ctx());
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                self.menu_items(
                    ui,
                    &context,
                    Menu::File,
                    &[UiCommand::Save, UiCommand::Quit],
                );
            });
            ui.menu_button("Edit", |ui| self.menu_items(ui, &context, Menu::Edit, &[]));
            ui.menu_button("View", |ui| {
                self.menu_items(ui, &context, Menu::View, &[]);
                ui.checkbox(
                    &mut self.bench.viewport.animate_remote_changes,
                    "Animate deliveries in the viewport",
                );
            });
            ui.menu_button("Help", |ui| {
                self.menu_items(ui, &context, Menu::Help, &[]);
                // The lessons, reachable without starting a simulation first (found by hand:
                // they were only on the Peers panel's start page).
                ui.menu_button("Lessons", |ui| {
                    for (i, title) in crate::ui::lessons::titles().into_iter().enumerate() {
                        if ui.button(format!("{}. {title}", i + 1)).clicked() {
                            self.request(Pending::OpenLesson(i));
                            ui.close();
                        }
                    }
                });
                ui.label(format!("scenetree {}", env!("CARGO_PKG_VERSION")));
            });
        });
    }

    /// The menu's commands in table order; File puts its submenus after Open Project and a separator
    /// before each command in `separate_before`.
    fn menu_items(
        &mut self,
        ui: &mut egui::Ui,
        context: &CommandContext,
        menu: Menu,
        separate_before: &[UiCommand],
    ) {
        let history = self.bench.doc.history();
        let undo = history.undo_label().map(|l| format!("Undo {l}"));
        let redo = history.redo_label().map(|l| format!("Redo {l}"));
        for command in (UiCommand::all().iter().copied()).filter(|c| c.menu() == Some(menu)) {
            if command == UiCommand::Quit {
                // The live session's items go with the file commands, Quit stays last.
                self.live_menu_items(ui);
            }
            if separate_before.contains(&command) {
                ui.separator();
            }
            let label = match command {
                UiCommand::Undo => undo.as_deref(),
                UiCommand::Redo => redo.as_deref(),
                _ => None,
            };
            if command.menu_item(ui, context, label) {
                self.bench.run_command(command);
                ui.close();
            }
            if command == UiCommand::OpenProject {
                self.open_submenus(ui);
            }
        }
    }

    fn open_submenus(&mut self, ui: &mut egui::Ui) {
        ui.menu_button("Open Recent", |ui| {
            if self.recent.is_empty() {
                ui.weak("No recent files or projects");
            }
            for path in self.recent.clone() {
                // Projects are remembered by their folder.
                let label = if path.is_dir() {
                    format!("{} (project)", path.display())
                } else {
                    path.display().to_string()
                };
                if ui.button(label).clicked() {
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
            let cozy = cozy_house_dir();
            let button = ui
                .add_enabled(
                    cozy.is_dir(),
                    egui::Button::new("Cozy House (a real project, 29 glTF models)"),
                )
                .on_disabled_hover_text(format!(
                    "Not found at {}: it ships with scenetree's source, not the binary",
                    cozy.display()
                ));
            if button.clicked() {
                self.request(Pending::OpenExample(Example::CozyHouse));
                ui.close();
            }
        });
    }
}
