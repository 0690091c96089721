//! The editor window: menus, file handling (open, save, recent, drop, unsaved-changes prompt,
//! autosave and recovery), the window title, and the screenshot mode used by docs and CI.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use egui::{Key, KeyboardShortcut, Modifiers, RichText};

use super::Action;
use super::files::{DialogPurpose, JobResult, Jobs};
use super::viewport::{GlowViewportRenderer, NullRenderer, ViewportRenderer};
use super::workbench::{FileRequest, Severity, Workbench, default_dock};
use crate::editor::{Document, SceneFile, examples};
use crate::io::{self, SceneFormat, recovery};

const RECENT_MAX: usize = 10;
const AUTOSAVE_EVERY: Duration = Duration::from_secs(30);

/// How the app was started.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// A scene to open; the bundled showroom when `None`.
    pub file: Option<PathBuf>,
    /// Save a PNG of the window here after a few frames, then exit.
    pub screenshot: Option<PathBuf>,
    /// Entities to select once the scene is open.
    pub select: Vec<crate::model::Entity>,
    /// Lesson steps to play once a lesson file is open.
    pub lesson_steps: usize,
    /// The window's inner size in points (default 1280×800).
    pub window_size: Option<[f32; 2]>,
}

/// Something the user asked for that must wait for an answer about unsaved changes.
#[derive(Clone, Debug, PartialEq)]
enum Pending {
    Open(PathBuf),
    OpenDialog,
    New,
    OpenExample(Example),
    Quit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Example {
    Showroom,
    Large,
}

/// The eframe application.
pub struct ScenetreeApp {
    bench: Workbench,
    jobs: Jobs,
    recent: Vec<PathBuf>,
    pending: Option<Pending>,
    error: Option<String>,
    /// A save that would lose data the target format cannot hold, waiting for confirmation.
    lossy_save: Option<(PathBuf, Vec<String>)>,
    recovery_dir: Option<PathBuf>,
    recovery_offer: Option<recovery::RecoveryInfo>,
    last_autosave: Instant,
    autosaved_position: u64,
    screenshot: Option<Screenshot>,
    allow_close: bool,
    title: String,
    show_shortcuts: bool,
    /// The 3D renderer on the window's GL context (created on the first frame).
    renderer: Option<Result<GlowViewportRenderer, String>>,
    /// Applied to the first document shown (the bundled one or the launch file).
    initial_selection: Vec<crate::model::Entity>,
    initial_lesson_steps: usize,
}

struct Screenshot {
    path: PathBuf,
    frame: u32,
    requested: bool,
}

/// The bundled example, shown when the app starts without a file.
pub fn showroom_document() -> Document {
    Document::new(examples::showroom(), None)
}

impl ScenetreeApp {
    /// Builds the app; restores layout and recent files unless taking a screenshot.
    pub fn new(cc: &eframe::CreationContext<'_>, launch: Launch) -> Self {
        let screenshot_mode = launch.screenshot.is_some();
        let storage = cc.storage.filter(|_| !screenshot_mode);
        let recovery_dir = (!screenshot_mode)
            .then(|| eframe::storage_dir("scenetree").map(|d| d.join("recovery")))
            .flatten();
        Self::with_storage(&cc.egui_ctx, launch, storage, recovery_dir)
    }

    /// Builds the app without eframe: settings from `storage` (if any), crash-recovery files in
    /// `recovery_dir` (if any). Tests drive it through [`Self::draw`].
    pub fn with_storage(
        ctx: &egui::Context,
        launch: Launch,
        storage: Option<&dyn eframe::Storage>,
        recovery_dir: Option<PathBuf>,
    ) -> Self {
        super::style::install_fonts(ctx);
        let mut bench = Workbench::new(showroom_document());
        let mut recent = Vec::new();
        if let Some(storage) = storage {
            if let Some(dock) = eframe::get_value(storage, "dock") {
                bench.dock = dock;
            }
            recent = eframe::get_value(storage, "recent_files").unwrap_or_default();
        }
        let recovery_offer = recovery_dir.as_deref().and_then(recovery::find_recovery);
        let mut jobs = Jobs::default();
        jobs.set_repaint_context(ctx);
        let mut app = ScenetreeApp {
            bench,
            jobs,
            recent,
            pending: None,
            error: None,
            lossy_save: None,
            recovery_dir,
            recovery_offer,
            last_autosave: Instant::now(),
            autosaved_position: 0,
            screenshot: launch.screenshot.map(|path| Screenshot {
                path,
                frame: 0,
                requested: false,
            }),
            allow_close: false,
            title: String::new(),
            show_shortcuts: false,
            renderer: None,
            initial_selection: launch.select,
            initial_lesson_steps: launch.lesson_steps,
        };
        match launch.file {
            Some(file) => app.jobs.load(file),
            None => app.apply_initial_selection(),
        }
        app
    }

    /// The workbench (document, panels).
    pub fn workbench(&self) -> &Workbench {
        &self.bench
    }

    /// The workbench, mutably (tests use it to make edits).
    pub fn workbench_mut(&mut self) -> &mut Workbench {
        &mut self.bench
    }

    /// True while a scene is loading in the background.
    pub fn is_loading(&self) -> bool {
        self.jobs.loading.is_some()
    }

    /// Opens a file, asking about unsaved changes first (what dropping a file on the window does).
    pub fn open(&mut self, path: PathBuf) {
        self.request(Pending::Open(path));
    }

    /// Starts a new empty scene, asking about unsaved changes first.
    pub fn new_scene(&mut self) {
        self.request(Pending::New);
    }

    /// Draws one frame of the whole window; `renderer` draws the 3D view.
    pub fn draw(&mut self, ui: &mut egui::Ui, renderer: &mut dyn ViewportRenderer) {
        let ctx = ui.ctx().clone();
        self.handle_jobs();
        self.handle_close_request(&ctx);
        self.handle_dropped_files(&ctx);
        if self.pending.is_none() && self.error.is_none() && self.jobs.loading.is_none() {
            self.file_shortcuts(&ctx);
        }
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        self.bench.ui(ui, renderer);
        for request in std::mem::take(&mut self.bench.file_requests) {
            match request {
                FileRequest::ExportPeer(peer) => {
                    self.jobs.pick(DialogPurpose::ExportPeer(peer), None)
                }
                FileRequest::SaveRun => self.jobs.pick(DialogPurpose::SaveRun, None),
            }
        }
        self.dialogs_ui(&ctx);
        self.update_title(&ctx);
        self.autosave();
        self.screenshot_step(&ctx);
    }

    fn apply_initial_selection(&mut self) {
        for _ in 0..std::mem::take(&mut self.initial_lesson_steps) {
            self.bench.doc.next_lesson_step();
        }
        let wanted = std::mem::take(&mut self.initial_selection);
        let present: Vec<_> = wanted
            .into_iter()
            .filter(|&e| self.bench.doc.view().contains(e))
            .collect();
        if !present.is_empty() {
            self.bench.doc.selection.set(present.iter().copied());
            for &e in &present {
                self.bench.hierarchy.reveal(&self.bench.doc, e);
            }
        }
    }

    fn request(&mut self, what: Pending) {
        if self.bench.doc.is_modified() {
            self.pending = Some(what);
        } else {
            self.carry_out(what);
        }
    }

    fn carry_out(&mut self, what: Pending) {
        match what {
            Pending::Open(path) => self.jobs.load(path),
            Pending::OpenDialog => self.jobs.pick(
                DialogPurpose::Open,
                self.bench.doc.file.as_ref().map(|f| f.path.as_path()),
            ),
            Pending::New => self.bench.set_document(Document::default()),
            Pending::OpenExample(Example::Showroom) => self.bench.set_document(showroom_document()),
            Pending::OpenExample(Example::Large) => {
                self.bench
                    .set_document(Document::new(examples::large(usize::MAX), None));
            }
            Pending::Quit => {
                self.allow_close = true;
                self.clear_recovery();
            }
        }
    }

    /// Saves to the document's file, or asks where when it has none.
    fn save(&mut self) {
        match self.bench.doc.file.clone() {
            Some(file) => self.save_to(file.path),
            None => self.jobs.pick(DialogPurpose::SaveAs, None),
        }
    }

    fn save_to(&mut self, path: PathBuf) {
        self.save_to_confirmed(path, false);
    }

    /// Saves atomically. When the target format cannot hold everything (a composite's
    /// Material JSON in a main.crdt, …) nothing is written until the user confirms the loss.
    fn save_to_confirmed(&mut self, path: PathBuf, allow_loss: bool) {
        let Some(format) = SceneFormat::from_path(&path) else {
            self.error = Some(format!(
                "{}: save as .json (scenetree), .crdt (main.crdt) or .composite (main.composite)",
                path.display()
            ));
            return;
        };
        let doc = &self.bench.doc;
        if !allow_loss {
            let lost = io::encode_scene(doc.replica(), format, &doc.save_context).lost;
            if !lost.is_empty() {
                self.lossy_save = Some((path, lost));
                return;
            }
        }
        match io::save_scene_with(doc.replica(), &doc.save_context, &path, true) {
            Ok(_) => {
                self.bench.doc.mark_saved(SceneFile {
                    path: path.clone(),
                    format,
                });
                self.bench.status = Some((format!("Saved {}", path.display()), Severity::Info));
                self.remember_recent(&path);
                self.clear_recovery();
            }
            Err(err) => {
                self.error = Some(format!(
                    "Could not save. The file on disk is unchanged.\n\n{err}"
                ))
            }
        }
    }

    fn export_peer(&mut self, peer: crate::crdt::network::PeerId, path: &Path) {
        let Some((sim, _)) = self.bench.doc.simulation() else {
            return;
        };
        let result = sim
            .network()
            .export_crdt(peer)
            .map_err(|e| e.to_string())
            .and_then(|bytes| io::write_atomic(path, &bytes).map_err(|e| e.to_string()));
        match result {
            Ok(()) => {
                self.bench.status = Some((
                    format!("Saved {peer}'s state to {}", path.display()),
                    Severity::Info,
                ))
            }
            Err(e) => {
                self.error = Some(format!(
                    "Could not export {peer}.\n\n{}: {e}",
                    path.display()
                ))
            }
        }
    }

    fn save_run(&mut self, path: &Path) {
        let Some((sim, _)) = self.bench.doc.simulation() else {
            return;
        };
        let (title, explanation) = match sim.lesson() {
            Some(player) => (
                player.scenario().title.clone(),
                player.scenario().explanation.clone(),
            ),
            None => (
                "A recorded run".to_string(),
                "Peers edited and delivered by hand in scenetree.".to_string(),
            ),
        };
        let scenario = sim.network().to_scenario(&title, &explanation);
        match io::scenario::save_scenario(&scenario, path) {
            Ok(()) => {
                self.bench.status = Some((
                    format!("Saved the run to {}", path.display()),
                    Severity::Info,
                ))
            }
            Err(e) => self.error = Some(format!("Could not save the run.\n\n{e}")),
        }
    }

    fn remember_recent(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(RECENT_MAX);
    }

    fn clear_recovery(&mut self) {
        if let Some(dir) = &self.recovery_dir {
            recovery::clear_recovery(dir);
        }
    }

    fn autosave(&mut self) {
        let Some(dir) = self.recovery_dir.clone() else {
            return;
        };
        let position = self.bench.doc.replica().changes_since(0).next_cursor;
        let due = Instant::now() >= self.last_autosave + AUTOSAVE_EVERY;
        if !self.bench.doc.is_modified() || position == self.autosaved_position || !due {
            return;
        }
        self.last_autosave = Instant::now();
        self.autosaved_position = position;
        let original = self.bench.doc.file.as_ref().map(|f| f.path.clone());
        if let Err(e) =
            recovery::write_recovery(&dir, self.bench.doc.replica(), original.as_deref())
        {
            self.bench.status = Some((format!("Autosave failed: {e}"), Severity::Error));
        }
    }

    fn handle_jobs(&mut self) {
        for result in self.jobs.poll() {
            match result {
                JobResult::Picked(DialogPurpose::Open, Some(path)) => self.jobs.load(path),
                JobResult::Picked(DialogPurpose::SaveAs, Some(path)) => self.save_to(path),
                JobResult::Picked(DialogPurpose::ExportPeer(peer), Some(path)) => {
                    self.export_peer(peer, &path)
                }
                JobResult::Picked(DialogPurpose::SaveRun, Some(path)) => self.save_run(&path),
                JobResult::Picked(_, None) => {}
                JobResult::Loaded(path, result) => match *result {
                    Ok(doc) => {
                        self.bench.set_document(doc);
                        self.apply_initial_selection();
                        self.bench.status =
                            Some((format!("Opened {}", path.display()), Severity::Info));
                        self.remember_recent(&path);
                    }
                    // The open document stays untouched.
                    Err(err) => {
                        self.error = Some(format!(
                            "Could not open the scene. Nothing was changed.\n\n{err}"
                        ))
                    }
                },
            }
        }
    }

    fn file_shortcuts(&mut self, ctx: &egui::Context) {
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

    fn menu_ui(&mut self, ui: &mut egui::Ui) {
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

    fn dialogs_ui(&mut self, ctx: &egui::Context) {
        if let Some(pending) = self.pending.clone() {
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
                    self.pending = None;
                    self.save();
                    if !self.bench.doc.is_modified() {
                        self.carry_out(pending);
                        self.after_carry_out(ctx);
                    }
                }
                Some(1) => {
                    self.pending = None;
                    self.carry_out(pending);
                    self.after_carry_out(ctx);
                }
                Some(_) => self.pending = None,
                None => {}
            }
        }
        if let Some((path, lost)) = self.lossy_save.clone() {
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
                    self.save_to_confirmed(path, true);
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
        if let Some(info) = self.recovery_offer.clone() {
            egui::Modal::new(egui::Id::new("recovery")).show(ctx, |ui| {
                ui.heading("Recover unsaved work?");
                let what = info.original.as_ref().map_or("an untitled scene".to_string(), |p| p.display().to_string());
                ui.label(format!("scenetree kept unsaved changes to {what} from a session that did not end cleanly."));
                ui.horizontal(|ui| {
                    if ui.button("Recover").clicked() {
                        self.recover(&info);
                        self.recovery_offer = None;
                    }
                    if ui.button("Discard").clicked() {
                        self.clear_recovery();
                        self.recovery_offer = None;
                    }
                });
            });
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
                        for (keys, what) in SHORTCUTS {
                            ui.label(RichText::new(*keys).monospace());
                            ui.label(*what);
                            ui.end_row();
                        }
                    });
                });
        }
    }

    fn after_carry_out(&mut self, ctx: &egui::Context) {
        if self.allow_close {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    fn recover(&mut self, info: &recovery::RecoveryInfo) {
        let Some(dir) = &self.recovery_dir else {
            return;
        };
        match recovery::read_recovery(dir) {
            Ok(replica) => {
                let file = info.original.as_ref().and_then(|p| {
                    SceneFormat::from_path(p).map(|format| SceneFile {
                        path: p.clone(),
                        format,
                    })
                });
                self.bench.set_document(Document::recovered(replica, file));
                self.bench.status = Some((
                    "Recovered unsaved work — save it to keep it".into(),
                    Severity::Info,
                ));
            }
            Err(err) => self.error = Some(format!("The recovery file could not be read.\n\n{err}")),
        }
    }

    fn document_name(&self) -> String {
        self.bench
            .doc
            .file
            .as_ref()
            .and_then(|f| f.path.file_name())
            .map_or_else(
                || "Untitled".to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
    }

    fn update_title(&mut self, ctx: &egui::Context) {
        let title = format!(
            "{}{} — scenetree",
            self.document_name(),
            if self.bench.doc.is_modified() {
                " •"
            } else {
                ""
            }
        );
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    fn handle_close_request(&mut self, ctx: &egui::Context) {
        if ctx.input(|i| i.viewport().close_requested())
            && !self.allow_close
            && self.screenshot.is_none()
        {
            if self.bench.doc.is_modified() {
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                self.pending = Some(Pending::Quit);
            } else {
                self.clear_recovery();
            }
        }
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        if let Some(path) = dropped.into_iter().next() {
            self.request(Pending::Open(path));
        }
    }

    fn screenshot_step(&mut self, ctx: &egui::Context) {
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

fn save_png(path: &Path, image: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = image.size;
    let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    let buffer = image::RgbaImage::from_raw(w as u32, h as u32, bytes).ok_or("bad image size")?;
    buffer.save(path).map_err(|e| e.to_string())
}

impl eframe::App for ScenetreeApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        // The GL renderer needs the window's context, which only exists here; created once.
        let mut renderer = self
            .renderer
            .take()
            .unwrap_or_else(|| GlowViewportRenderer::from_frame(frame).map_err(|e| e.to_string()));
        match &mut renderer {
            Ok(gl) => self.draw(ui, gl),
            Err(err) => {
                self.bench.status = Some((format!("No 3D view: {err}"), Severity::Error));
                self.draw(ui, &mut NullRenderer::default());
            }
        }
        self.renderer = Some(renderer);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.screenshot.is_some() {
            return;
        }
        eframe::set_value(storage, "dock", &self.bench.dock);
        eframe::set_value(storage, "recent_files", &self.recent);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        if !self.bench.doc.is_modified() {
            self.clear_recovery();
        }
    }
}

/// Opens the editor window; returns when it closes.
pub fn run(launch: Launch) -> eframe::Result<()> {
    let options = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        depth_buffer: 24,
        viewport: egui::ViewportBuilder::default()
            .with_title("scenetree")
            .with_inner_size(launch.window_size.unwrap_or([1280.0, 800.0]))
            .with_min_inner_size([640.0, 400.0])
            .with_drag_and_drop(true),
        persist_window: launch.screenshot.is_none(),
        ..Default::default()
    };
    eframe::run_native(
        "scenetree",
        options,
        Box::new(move |cc| Ok(Box::new(ScenetreeApp::new(cc, launch)))),
    )
}
