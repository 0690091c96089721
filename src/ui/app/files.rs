//! Asking for files and reading them in the background: the system's file dialog, or
//! scenetree's own when the system cannot show one (said once), and loads with progress;
//! files dropped on the window (a project's model is added to the scene, anything else opened).

use std::path::PathBuf;

use super::modal::{Modal, Problem};
use super::{Pending, ScenetreeApp};
use crate::ui::action::{Action, MultiplayerAction, Severity};
use crate::ui::file_dialog::DialogPurpose;
use crate::ui::file_dialog::{FilePick, InAppDialog, NativePicker};
use crate::ui::files::{JobResult, Salvage};

impl ScenetreeApp {
    /// Asks for a file, starting at `suggested`: the system's dialog on a worker thread, or
    /// scenetree's own once the system could not show one.
    pub(super) fn pick(&mut self, purpose: DialogPurpose, suggested: Option<PathBuf>) {
        let pick = FilePick { purpose, suggested };
        if !self.dialogs.system_unavailable {
            self.jobs.pick(pick);
        } else if self.dialogs.in_app.is_none() {
            self.dialogs.in_app = Some(InAppDialog::open(&pick, self.last_dir()));
        }
    }

    /// A file dialog closed with `path` (`None`: cancelled).
    pub(super) fn picked(&mut self, purpose: DialogPurpose, path: Option<PathBuf>) {
        match (purpose, path) {
            (DialogPurpose::Open | DialogPurpose::OpenProject, Some(path)) => {
                self.carry_out(Pending::Open(path))
            }
            (DialogPurpose::SaveAs, Some(path)) => self.save_to(path),
            (DialogPurpose::SaveAs, None) => self.save_abandoned(),
            (DialogPurpose::ExportPeer(peer), Some(path)) => self.export_peer(peer, &path),
            (DialogPurpose::SaveRun, Some(path)) => self.save_run(&path),
            (DialogPurpose::SaveRecording, Some(path)) => self.save_recording(&path),
            (DialogPurpose::AddModel, Some(path)) => self.add_models(&[path]),
            (_, None) => {}
        }
    }

    /// Shows a multiplayer run (a capture or a multiplayer lesson) read from `path`.
    fn opened_run(
        &mut self,
        path: &std::path::Path,
        multiplayer: crate::ui::multiplayer::Multiplayer,
    ) {
        self.finish_save();
        let title = multiplayer.title.clone();
        self.bench.open_multiplayer(multiplayer);
        self.document_replaced();
        // `--steps N` plays a lesson's first steps, as for the peers' lessons.
        let steps = std::mem::take(&mut self.opening.initial_lesson_steps);
        let next = Action::Multiplayer(MultiplayerAction::NextStep);
        self.bench.apply_actions(vec![next; steps]);
        self.bench.status = Some((
            format!("Opened {title} in the Peers workspace"),
            Severity::Info,
        ));
        self.remember_recent(path);
    }

    /// Shows a document that finished loading from `path` (a file or a project folder). The
    /// bundled example opens without its file, so a save asks where instead of changing it.
    fn opened(&mut self, path: PathBuf, mut doc: scenetree_editor::Document) {
        if self.disk.reloading.take().is_some_and(|p| p == path) {
            self.bench.reload_document(doc);
            self.document_replaced();
            self.bench.status = Some((
                format!("Reloaded {} from disk", self.document_name()),
                Severity::Info,
            ));
            return;
        }
        let example = self.opening.example.take().is_some_and(|e| e == path);
        if example {
            doc.file = None;
            doc.saves_as_project = false;
        }
        let what = match &doc.project {
            Some(p) if doc.saves_as_project || example => {
                format!("the project {}", p.display_name())
            }
            _ => path.display().to_string(),
        };
        self.replace_document(doc);
        self.apply_initial_selection();
        let empty = (self.bench.doc.load_notes.iter())
            .any(|n| n.starts_with(scenetree_dcl::io::EMPTY_FILE_NOTE));
        let status = if example {
            format!("Opened {what} (an example: Save asks where to keep a copy)")
        } else if empty {
            // Found by hand: a 0-byte main.crdt opened as an empty scene without a word.
            format!("Opened {what}: the file is empty (0 bytes), so the scene has no entities")
        } else {
            format!("Opened {what}")
        };
        self.bench.status = Some((status, Severity::Info));
        if !example {
            self.remember_recent(&path);
        }
    }

    /// Where the in-app dialog starts without a suggestion: the last file's folder.
    pub(super) fn last_dir(&self) -> Option<&std::path::Path> {
        self.recent.first().and_then(|p| p.parent())
    }

    /// Draws scenetree's own file dialog while it is open.
    pub(super) fn in_app_dialog_ui(&mut self, ctx: &egui::Context) {
        if let Some(dialog) = &mut self.dialogs.in_app
            && let Some(path) = dialog.update(ctx)
        {
            let purpose = dialog.purpose();
            self.dialogs.in_app = None;
            self.picked(purpose, path);
        }
    }

    /// Replaces the system file dialog (tests use a stand-in that behaves like rfd).
    pub fn set_native_file_picker(&mut self, picker: NativePicker) {
        self.jobs.native_picker = picker;
    }

    pub(super) fn handle_jobs(&mut self) {
        for result in self.jobs.poll() {
            match result {
                JobResult::Picked(purpose, path) => self.picked(purpose, path),
                JobResult::NoSystemDialog(pick) => {
                    self.dialogs.system_unavailable = true;
                    self.bench.status = Some((
                        "No system file dialog could be shown (it needs an XDG desktop portal \
                         or zenity): scenetree uses its own from now on"
                            .into(),
                        Severity::Info,
                    ));
                    self.dialogs.in_app = Some(InAppDialog::open(&pick, self.last_dir()));
                }
                JobResult::LoadedRun(path, result) => {
                    let launched = self.opening.launch_file.take().is_some_and(|l| l == path);
                    match *result {
                        Ok(multiplayer) => self.opened_run(&path, multiplayer),
                        Err(e) => self.not_opened(&path, &e.to_string(), launched, None),
                    }
                }
                JobResult::Loaded(path, result) => {
                    let launched = self.opening.launch_file.take().is_some_and(|l| l == path);
                    match *result {
                        Ok(doc) => self.opened(path, doc),
                        Err(not) => {
                            self.not_opened(&path, &not.error.to_string(), launched, not.salvage)
                        }
                    }
                }
            }
        }
    }

    /// `path` could not be read (`why`). The open document stays untouched, except at start
    /// (`launched`: the file named on the command line), where the window starts untitled
    /// rather than on the bundled showroom, which the user did not ask for. A folder that is
    /// not a project but holds a scene file offers to open that file; a damaged main.crdt
    /// offers its readable start (`salvage`).
    fn not_opened(
        &mut self,
        path: &std::path::Path,
        why: &str,
        launched: bool,
        salvage: Option<Box<Salvage>>,
    ) {
        self.opening.example = None;
        self.disk.reloading = None;
        // A project's own scene failing would fail again opened alone: no offer there.
        let not_a_project = || scenetree_dcl::io::project::Project::find_root(path).is_none();
        let open_offer = (path.is_dir() && not_a_project())
            .then(|| scenetree_dcl::io::project::scene_file_in(path))
            .flatten();
        let mut text = if launched {
            self.replace_document(scenetree_editor::Document::default());
            format!(
                "Could not open {}: scenetree started with a new, empty scene instead.\n\n{why}",
                path.display()
            )
        } else {
            format!("Could not open the scene. Nothing was changed.\n\n{why}")
        };
        if let Some(file) = &open_offer {
            text.push_str(&format!(
                "\n\nThe folder holds {}: it opens as a scene of its own (without a project's \
                 models and title).",
                file.display()
            ));
        }
        if let Some(salvage) = &salvage {
            let name = salvage
                .file
                .file_name()
                .unwrap_or_default()
                .to_string_lossy();
            text.push_str(&format!(
                "\n\nThe {} message(s) before byte {} of {} can still be read. They open as an \
                 untitled scene (Save asks where); {name} itself is left as it is.",
                salvage.damage.messages, salvage.damage.at, salvage.damage.len
            ));
        }
        self.modals.show(Modal::Problem(Problem {
            message: text,
            open_offer,
            salvage,
        }));
    }

    /// Shows the readable start of a damaged main.crdt the user chose to open.
    pub(super) fn open_salvage(&mut self, salvage: Box<Salvage>) {
        self.replace_document(salvage.document);
        self.bench.status = Some((
            format!(
                "Opened the {} message(s) of {} before the damage at byte {}: save them under \
                 a new name to keep them",
                salvage.damage.messages,
                salvage.file.display(),
                salvage.damage.at
            ),
            Severity::Info,
        ));
    }

    pub(super) fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        // A glTF model goes into the scene, as in the Decentraland Inspector, Unity or Godot;
        // anything else is opened.
        let (models, others): (Vec<PathBuf>, Vec<PathBuf>) =
            (dropped.into_iter()).partition(|p| scenetree_dcl::io::project::is_model_file(p));
        if !models.is_empty() {
            self.add_models(&models);
        } else if let Some(path) = others.into_iter().next() {
            self.request(Pending::Open(path));
        }
    }

    /// Adds each model file (a `.glb` or `.gltf` of the open project) as an entity where the
    /// centre of the view meets the scene or the ground: what the user is looking at.
    pub(super) fn add_models(&mut self, files: &[PathBuf]) {
        let Some(project) = self.bench.doc.project.clone() else {
            self.modals.problem(
                "Models can be added to a Decentraland project's scene only: a scene names its \
                 models by their path in the project (File ▸ Open Project…).",
            );
            return;
        };
        let at = self.bench.viewport.placement_point();
        for file in files {
            match scenetree_editor::add_model(&project, file, at) {
                Ok(command) => self
                    .bench
                    .apply_actions(vec![crate::ui::action::Action::Edit(command)]),
                Err(e) => {
                    self.modals.problem(format!(
                        "Could not add {}: {e}.\n\nA scene names its models by their path in \
                         the project: copy the file into {} first.",
                        file.display(),
                        project.root.display()
                    ));
                    return;
                }
            }
        }
    }
}
