//! The editor window: what the app owns beside the workbench (pending requests, jobs, recent
//! files, recovery), the frame loop, the window title, and eframe glue. The requests that
//! replace the document or close the window, the menus, dialogs, saving, autosave, live
//! sessions and screenshot mode live in the submodules.

mod autosave;
mod dialogs;
mod disk_watch;
mod files;
mod live;
mod menu;
mod modal;
mod requests;
mod save_job;
mod saving;
mod screenshot;
mod signals;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::action::Severity;
use super::file_dialog::DialogPurpose;
use super::file_dialog::InAppDialog;
use super::files::Jobs;
use super::workbench::{AppRequest, Workbench};
use autosave::Autosave;
use disk_watch::DiskState;
use modal::{Modal, Modals, RecoveryOffer};
use requests::{Example, Pending};
use saving::Saving;
use scenetree_core::examples;
use scenetree_dcl::io::project::Project;
use scenetree_dcl::io::recovery::{self, RecoverySession};
use scenetree_editor::Document;
use scenetree_viewport::{GlowViewportRenderer, NullRenderer, ViewportRenderer};
use screenshot::Screenshot;

const RECENT_MAX: usize = 10;

/// How the app was started.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// A scene to open; the bundled showroom when `None`.
    pub file: Option<PathBuf>,
    /// Save a PNG of the window here after a few frames, then exit.
    pub screenshot: Option<PathBuf>,
    /// Entities to select once the scene is open.
    pub select: Vec<scenetree_core::model::Entity>,
    /// Lesson steps to play once a lesson file is open.
    pub lesson_steps: usize,
    /// The window's inner size in points (default 1280×800).
    pub window_size: Option<[f32; 2]>,
    /// Join this data layer (`--connect URL`) instead of opening a file.
    pub connect: Option<String>,
    /// `--connect` may reach a host on another machine (`--allow-remote`).
    pub allow_remote: bool,
    /// A multiplayer capture to open in the Peers workspace (`scenetree net replay CAPTURE`),
    /// already read: its file and contents (replayed in the background).
    pub capture: Option<(PathBuf, scenetree_core::net::capture::Capture)>,
}

/// The bundled example of a real Decentraland project (scenes/Cozy-House-Template in
/// scenetree's source): 29 glTF models, textures, a Material, hidden entities.
pub fn cozy_house_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/Cozy-House-Template")
}

/// What is being opened, beside the load job itself.
#[derive(Debug, Default)]
struct Opening {
    /// The file given on the command line, while it loads: if it cannot be opened, the
    /// window starts untitled instead of on the showroom.
    launch_file: Option<PathBuf>,
    /// The bundled project example being loaded: it opens without its file, so a save asks
    /// where instead of changing the bundled copy.
    example: Option<PathBuf>,
    /// Applied to the first document shown (the bundled one or the launch file).
    initial_selection: Vec<scenetree_core::model::Entity>,
    /// Lesson steps played once the first document (a lesson) is shown.
    initial_lesson_steps: usize,
}

/// scenetree's own file dialog, used when the system shows none.
#[derive(Default)]
struct FileDialogs {
    /// scenetree's own file dialog, while open.
    in_app: Option<InAppDialog>,
    /// The system could not show a file dialog: use scenetree's own from then on.
    system_unavailable: bool,
}

/// Whether the window may close, and how it came to.
#[derive(Debug, Default)]
struct Closing {
    /// The user agreed to quit (or there was nothing to ask): the window closes.
    allowed: bool,
    /// The close command was sent once `allowed` was set.
    sent: bool,
    /// Set by a termination signal (see `signals.rs`).
    signal: Arc<AtomicBool>,
    /// The editor is closing on a signal: the unsaved work stays for the next start.
    on_signal: bool,
}

/// The eframe application.
pub struct ScenetreeApp {
    bench: Workbench,
    jobs: Jobs,
    recent: Vec<PathBuf>,
    /// The modal prompts waiting: unsaved changes, problems, recovered work.
    modals: Modals,
    /// What the scene being opened is, and what applies once it is shown.
    opening: Opening,
    /// The save being written, the question it stopped to ask, what waits for it.
    saving: Saving,
    /// Other programs' changes to the document's file (see `disk_watch.rs`).
    disk: DiskState,
    /// This editor's crash recovery (see `autosave.rs`).
    autosave: Autosave,
    screenshot: Option<Screenshot>,
    /// scenetree's own file dialog, and whether the system's can be shown.
    dialogs: FileDialogs,
    /// Whether and why the window closes.
    closing: Closing,
    title: String,
    show_shortcuts: bool,
    /// The 3D renderer on the window's GL context (created on the first frame).
    renderer: Option<Result<GlowViewportRenderer, String>>,
    /// Live sessions: the Connect dialog, a connection being made (see `live.rs`).
    live: live::LiveUi,
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

    /// Builds the app without eframe: settings from `storage` (if any), crash recovery under
    /// `recovery_root` (if any; each running editor has its own folder there). Tests drive it
    /// through [`Self::draw`].
    pub fn with_storage(
        ctx: &egui::Context,
        launch: Launch,
        storage: Option<&dyn eframe::Storage>,
        recovery_root: Option<PathBuf>,
    ) -> Self {
        super::style::install_fonts(ctx);
        let mut bench = Workbench::new(showroom_document());
        let mut recent = Vec::new();
        if let Some(storage) = storage {
            if let Some(dock) = eframe::get_value(storage, "dock") {
                bench.layout.dock = dock;
            }
            if let Some(dock) = eframe::get_value(storage, "peers_dock") {
                bench.layout.peers_dock = dock;
            }
            if let Some(sizes) = eframe::get_value(storage, "panel_sizes") {
                bench.layout.panel_sizes = sizes;
            }
            recent = eframe::get_value(storage, "recent_files").unwrap_or_default();
        }
        let mut startup_error = None;
        let recovery = recovery_root.as_deref().and_then(|root| {
            RecoverySession::start(root)
                .map_err(|e| {
                    startup_error = Some(format!(
                        "Autosave is off: cannot use {}: {e}",
                        root.display()
                    ))
                })
                .ok()
        });
        let mut orphans = recovery_root
            .as_deref()
            .map(recovery::find_orphaned_work)
            .unwrap_or_default()
            .into_iter();
        let mut modals = Modals::default();
        if let Some(work) = orphans.next() {
            // The others are released (their folders unlocked) and offered at a later start.
            let more = orphans.count();
            modals.show(Modal::Recovery(RecoveryOffer { work, more }));
        }
        let launch_file = launch.file.as_deref().map(scenetree_dcl::io::whole_path);
        let mut jobs = Jobs::default();
        jobs.set_repaint_context(ctx);
        let mut app = ScenetreeApp {
            bench,
            jobs,
            recent,
            modals,
            opening: Opening {
                launch_file: launch_file.clone(),
                example: None,
                initial_selection: launch.select,
                initial_lesson_steps: launch.lesson_steps,
            },
            saving: Saving::default(),
            disk: DiskState::start({
                let ctx = ctx.clone();
                move || ctx.request_repaint()
            }),
            autosave: Autosave::new(recovery),
            screenshot: launch.screenshot.map(Screenshot::new),
            dialogs: FileDialogs::default(),
            closing: Closing::default(),
            title: String::new(),
            show_shortcuts: false,
            renderer: None,
            live: live::LiveUi::new(ctx),
        };
        app.bench.status = startup_error.map(|e| (e, Severity::Error));
        match (launch_file, launch.connect) {
            (file, Some(url)) => {
                app.live
                    .set_project(file.as_deref().and_then(Project::containing));
                app.connect_live(url, launch.allow_remote);
            }
            (Some(file), None) => app.jobs.load(file),
            (None, None) => app.apply_initial_selection(),
        }
        if let Some((path, capture)) = launch.capture {
            app.jobs.replay(path, capture);
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

    /// The window title as last set ("Art Gallery Template • — scenetree").
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The recent files and projects, newest first (projects by their folder).
    pub fn recent(&self) -> &[PathBuf] {
        &self.recent
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

    /// Quits as the window's close button does: asks about unsaved changes first.
    pub fn request_quit(&mut self) {
        self.request(Pending::Quit);
    }

    /// True once the user agreed to quit (the window is closing).
    pub fn is_quitting(&self) -> bool {
        self.closing.allowed
    }

    /// How often unsaved work is written for crash recovery while editing goes on (30 s), and
    /// how long after the last change once it stops (2 s); tests change them.
    pub fn set_autosave_timing(&mut self, every: Duration, after_last_change: Duration) {
        self.autosave.set_timing(every, after_last_change);
    }

    /// Draws one frame of the whole window; `renderer` draws the 3D view.
    pub fn draw(&mut self, ui: &mut egui::Ui, renderer: &mut dyn ViewportRenderer) {
        let ctx = ui.ctx().clone();
        self.end_on_signal();
        self.handle_jobs();
        self.poll_save(Duration::ZERO);
        self.saving_status();
        self.check_disk(&ctx);
        self.handle_close_request(&ctx);
        self.handle_dropped_files(&ctx);
        self.bench.modal_open = self.modals.any()
            || self.live.asking_about_host()
            || self.saving.question.is_some()
            || self.jobs.loading.is_some()
            || self.dialogs.in_app.is_some()
            || self.live.dialog_open()
            || self.bench.held_cycle.is_some();
        self.close_shortcuts_on_escape(&ctx);
        self.live_frame(&ctx);
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        self.disk_notice_ui(ui);
        self.live_bar_ui(ui);
        self.live_cycle_bar_ui(ui);
        self.bench.ui(ui, renderer);
        // From the menus and the keyboard (the workbench's dispatcher) alike.
        for request in self.bench.take_app_requests() {
            match request {
                AppRequest::Command(command) => self.run_app_command(command),
                AppRequest::ExportPeer(peer) => self.pick(DialogPurpose::ExportPeer(peer), None),
                AppRequest::SaveRun => self.pick(DialogPurpose::SaveRun, None),
                AppRequest::OpenLesson(index) => self.request(Pending::OpenLesson(index)),
            }
        }
        self.dialogs_ui(&ctx);
        self.connect_dialog_ui(&ctx);
        self.connecting_ui(&ctx);
        self.host_wait_ui(&ctx);
        self.held_cycle_ui(&ctx);
        self.in_app_dialog_ui(&ctx);
        if self.closing.allowed && !std::mem::replace(&mut self.closing.sent, true) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        self.update_title(&ctx);
        self.autosave(&ctx);
        self.screenshot_step(&ctx);
    }

    fn apply_initial_selection(&mut self) {
        for _ in 0..std::mem::take(&mut self.opening.initial_lesson_steps) {
            self.bench.doc.next_lesson_step();
        }
        let wanted = std::mem::take(&mut self.opening.initial_selection);
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

    /// The document's name for the title and prompts: a project's title (scene.json's
    /// `display.title`, else its folder's name), else the file's name.
    fn document_name(&self) -> String {
        if let Some(live) = self.live_title() {
            return live;
        }
        let doc = &self.bench.doc;
        let file = doc
            .file
            .as_ref()
            .and_then(|f| f.path.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        match (&doc.project, file) {
            (Some(project), _) if doc.saves_as_project => project.display_name(),
            (Some(project), Some(file)) => format!("{file} ({})", project.display_name()),
            (Some(project), None) => format!("Untitled ({})", project.display_name()),
            (None, Some(file)) => file,
            (None, None) => "Untitled".to_string(),
        }
    }

    /// Escape closes the Keyboard Shortcuts window first, as it would a popup, when nothing
    /// else has a use for the key (a text field, a gizmo drag, a menu, a dialog): the
    /// selection is cleared only by the next Escape.
    fn close_shortcuts_on_escape(&mut self, ctx: &egui::Context) {
        if !self.show_shortcuts {
            return;
        }
        let c = self.bench.command_context(ctx);
        if !(c.typing || c.gizmo_dragging || c.popup_open || c.modal)
            && ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape))
        {
            self.show_shortcuts = false;
        }
    }

    /// Whether the Keyboard Shortcuts window (Help menu) is open.
    pub fn is_showing_shortcuts(&self) -> bool {
        self.show_shortcuts
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
}

impl eframe::App for ScenetreeApp {
    /// Before every frame, and also while the window is covered or minimized, when eframe
    /// draws none: a termination signal must not wait for the window to be shown again.
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.logic_without_ui(ctx);
    }

    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        // The GL renderer needs the window's context, which only exists here; created once.
        let mut renderer = self
            .renderer
            .take()
            .unwrap_or_else(|| GlowViewportRenderer::from_frame(frame).map_err(|e| e.to_string()));
        match &mut renderer {
            Ok(gl) => {
                // One view per simulated peer in the Peers workspace.
                let doc = &self.bench.doc;
                let peers = (doc.simulation().map(|(sim, _)| sim.network()))
                    .or(doc.live().map(|l| l.network()))
                    .map_or(0, |network| network.peer_count());
                gl.ensure_extras(peers, frame);
                self.draw(ui, gl)
            }
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
        eframe::set_value(storage, "dock", &self.bench.layout.dock);
        eframe::set_value(storage, "peers_dock", &self.bench.layout.peers_dock);
        eframe::set_value(storage, "panel_sizes", &self.bench.layout.panel_sizes);
        eframe::set_value(storage, "recent_files", &self.recent);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        // A save in flight ends first: what it wrote decides whether work is left unsaved.
        self.finish_save();
        // A clean exit: the user answered about unsaved changes (or had none). Otherwise (a
        // termination signal, or a close that did not ask) the work stays for the next start.
        let answered = self.closing.allowed && !self.closing.on_signal;
        let keep_work = !answered && self.bench.doc.is_modified();
        if let Err(e) = self.autosave.end(keep_work) {
            log::error!("the last autosave failed: {e}");
        }
    }
}

/// Why the editor window ended in failure.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// No window could be opened (no display, no OpenGL).
    #[error("cannot open the editor window: {0}")]
    Window(#[from] eframe::Error),
    /// `--screenshot` could not save its picture.
    #[error("{0}")]
    Screenshot(String),
}

/// Opens the editor window; returns when it closes.
pub fn run(launch: Launch) -> Result<(), RunError> {
    let failure = std::rc::Rc::default();
    let app_failure = std::rc::Rc::clone(&failure);
    let asked_size = launch.window_size;
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
        Box::new(move |cc| {
            // eframe restores the last session's window size over `with_inner_size`; a size
            // asked for on the command line wins.
            if let Some([w, h]) = asked_size {
                cc.egui_ctx
                    .send_viewport_cmd(egui::ViewportCommand::InnerSize(egui::vec2(w, h)));
            }
            let mut app = ScenetreeApp::new(cc, launch);
            signals::watch_termination_signals(app.termination_flag(), cc.egui_ctx.clone());
            if let Some(shot) = &mut app.screenshot {
                shot.failure = app_failure;
            }
            Ok(Box::new(app))
        }),
    )?;
    match failure.take() {
        Some(why) => Err(RunError::Screenshot(why)),
        None => Ok(()),
    }
}

impl Drop for ScenetreeApp {
    /// A save or an autosave being written is finished, not cut off: the window closed, or (in
    /// tests) the app was dropped the way a crash drops it, after its last autosave began.
    fn drop(&mut self) {
        self.finish_save();
        if let Err(e) = self.autosave.finish() {
            log::error!("the last autosave failed: {e}");
        }
    }
}
