//! The window's side of a live session: File ▸ Connect to Data Layer… (a dialog with the URL
//! and, for a host on another machine, the warning that the data layer has no
//! authentication), connecting on a thread, following the session every frame (what arrives,
//! the reconnect timer), the offline bar, the title, and Save / Save As while live.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Pending, ScenetreeApp};
use crate::ui::action::{Action, Severity};
use crate::ui::file_dialog::DialogPurpose;
use crate::ui::style;
use scenetree_dcl::io::project::Project;
use scenetree_editor::{Attempt, Document, LinkState, LiveNote, LiveSettings};
use scenetree_live::{ConnectError, ConnectProgress};

/// The URL the dialog offers first: `sdk-commands start --data-layer`'s default port.
pub const DEFAULT_URL: &str = "ws://127.0.0.1:8000/data-layer";

/// What the window keeps about live sessions beside the document.
pub(super) struct LiveUi {
    /// Wakes the window when a session has news (from the connection's threads).
    ctx: egui::Context,
    /// The Connect dialog, while open.
    dialog: Option<ConnectDialog>,
    /// A connection being made on its own thread, and how far it got.
    connecting: Option<(String, bool, Attempt, ConnectProgress)>,
    /// The URL last connected to (the dialog offers it again).
    last_url: Option<String>,
    /// The project whose models a live scene shows (`--connect URL PROJECT`); else the open
    /// document's project when connecting.
    project: Option<Project>,
    /// Whether the offline bar is up: it only comes or goes while no pointer button is held,
    /// since it moves everything below it (a drag would drop on another row).
    offline_bar: bool,
    /// A request that ends the session, waiting for the host to acknowledge this editor's
    /// edits (see [`ScenetreeApp::hold_for_host`]).
    host_wait: Option<HostWait>,
    /// How long such a request waits before the user is asked ([`HOST_GRACE`]).
    host_grace: Duration,
}

/// A request held until the host has acknowledged every edit of this editor.
struct HostWait {
    what: Pending,
    /// When it began waiting, or when the user chose to keep waiting.
    since: Instant,
    /// How long it waits before the user is asked.
    grace: Duration,
}

impl HostWait {
    /// Past its grace: the user is asked whether to go on without the acknowledgements.
    fn asking(&self) -> bool {
        self.since.elapsed() >= self.grace
    }
}

/// How long a request that ends the session waits for the host's acknowledgements before the
/// user is asked (a host on this machine answers within milliseconds).
const HOST_GRACE: Duration = Duration::from_secs(3);

impl LiveUi {
    /// Nothing live yet; `ctx` is the window's.
    pub(super) fn new(ctx: &egui::Context) -> LiveUi {
        LiveUi {
            ctx: ctx.clone(),
            dialog: None,
            connecting: None,
            last_url: None,
            project: None,
            offline_bar: false,
            host_wait: None,
            host_grace: HOST_GRACE,
        }
    }

    /// True while the user is asked whether to end the session without the host's
    /// acknowledgements.
    pub(super) fn asking_about_host(&self) -> bool {
        self.host_wait.as_ref().is_some_and(HostWait::asking)
    }

    /// The project whose models the next live scene shows.
    pub(super) fn set_project(&mut self, project: Option<Project>) {
        self.project = project;
    }

    /// True while the Connect dialog is open, or a connection is being made (its own modal
    /// says so: the scene it replaces must not change meanwhile).
    pub(super) fn dialog_open(&self) -> bool {
        self.dialog.is_some() || self.connecting.is_some()
    }
}

/// The Connect dialog's fields.
#[derive(Clone, Debug)]
struct ConnectDialog {
    url: String,
    /// The user confirmed connecting to a host that is not this machine.
    allow_remote: bool,
    /// The last attempt's error, shown in the dialog.
    error: Option<String>,
    /// The last attempt was refused because the host is not this machine: the warning and
    /// the checkbox are shown.
    remote_refused: bool,
}

impl ScenetreeApp {
    /// Opens the Connect dialog (File ▸ Connect to Data Layer…), or connects at once to a URL
    /// given on the command line.
    pub(super) fn open_connect_dialog(&mut self, url: Option<String>, allow_remote: bool) {
        let url = url
            .or_else(|| self.live.last_url.clone())
            .unwrap_or_else(|| DEFAULT_URL.to_owned());
        self.live.dialog = Some(ConnectDialog {
            url,
            allow_remote,
            error: None,
            remote_refused: allow_remote,
        });
    }

    /// Connects to `url` once the user answered about unsaved changes (`--connect` too).
    pub(super) fn connect_live(&mut self, url: String, allow_remote: bool) {
        self.request(Pending::Connect { url, allow_remote });
    }

    /// Starts connecting (on its own thread; the window keeps drawing).
    pub(super) fn start_connecting(&mut self, url: String, allow_remote: bool) {
        let progress = ConnectProgress::new();
        let settings = LiveSettings {
            progress: Some(progress.clone()),
            ..live_settings(allow_remote, &self.live.ctx)
        };
        let attempt = Attempt::start(&url, &settings);
        self.bench.status = Some((format!("Connecting to {url}…"), Severity::Info));
        self.live.connecting = Some((url, allow_remote, attempt, progress));
    }

    /// Every frame: a connection that finished, what the session reports, the next wake-up.
    pub(super) fn live_frame(&mut self, ctx: &egui::Context) {
        if let Some((url, allow_remote, attempt, _)) = &self.live.connecting
            && let Some(result) = attempt.poll(None)
        {
            let (url, allow_remote) = (url.clone(), *allow_remote);
            self.live.connecting = None;
            self.connected(url, allow_remote, result);
        }
        for note in self.bench.doc.poll_live(None) {
            self.bench.status = Some(match note {
                LiveNote::Saved => ("The host saved main.composite".to_owned(), Severity::Info),
                LiveNote::SaveFailed(why) => {
                    (format!("The host could not save: {why}"), Severity::Error)
                }
                LiveNote::Disconnected(why) => (
                    format!("Offline: {why}. Edits go on here and are sent when the host is back"),
                    Severity::Error,
                ),
                LiveNote::Reconnected { resent, .. } => (
                    format!(
                        "Connected again; {resent} of your writes the host lacked were sent again"
                    ),
                    Severity::Info,
                ),
                LiveNote::GaveUp(why) => (format!("Not reconnecting: {why}"), Severity::Error),
                LiveNote::Problem(what) => (what, Severity::Error),
                LiveNote::Refused(what) => (capitalized(&what), Severity::Error),
                LiveNote::RecordingStopped(why) => (why, Severity::Error),
            });
        }
        if let Some(wait) = self.bench.doc.live().and_then(|l| l.next_wake()) {
            ctx.request_repaint_after(wait + Duration::from_millis(5));
        }
    }

    fn connected(
        &mut self,
        url: String,
        allow_remote: bool,
        result: Result<scenetree_live::LiveConnection, ConnectError>,
    ) {
        let settings = live_settings(allow_remote, &self.live.ctx);
        let failed = |app: &mut Self, error: String, remote_refused: bool| {
            app.bench.status = Some((format!("Could not connect to {url}"), Severity::Error));
            app.live.dialog = Some(ConnectDialog {
                url: url.clone(),
                allow_remote,
                error: Some(error),
                remote_refused,
            });
        };
        match result {
            Ok(connection) => match Document::from_live(&url, connection, settings) {
                Ok(mut doc) => {
                    // The host's scene names its models by project paths: they are read from
                    // the local copy named with `--connect URL PROJECT` (for the first join),
                    // else from the project open when joining.
                    doc.project =
                        (self.live.project.take()).or_else(|| self.bench.doc.project.clone());
                    let entities = doc.scene_entity_count();
                    self.replace_document(doc);
                    self.live.last_url = Some(url.clone());
                    self.bench.status = Some((
                        format!("Live: joined {url} ({entities} entities)"),
                        Severity::Info,
                    ));
                }
                Err(e) => failed(self, e.to_string(), false),
            },
            Err(e @ ConnectError::RemoteNotAllowed { .. }) => failed(self, e.to_string(), true),
            Err(e) => failed(self, e.to_string(), false),
        }
    }

    /// While a connection is being made: a modal saying so, with Cancel. The window keeps
    /// drawing, but the scene cannot change under it: the live scene replaces it once joined,
    /// and an edit (or recovered work) made meanwhile would go without a question.
    pub(super) fn connecting_ui(&mut self, ctx: &egui::Context) {
        let Some((url, _, _, progress)) = &self.live.connecting else {
            return;
        };
        let mut cancel = false;
        egui::Modal::new(egui::Id::new("connecting-data-layer")).show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("Connecting to {url}…"));
            });
            // A large scene's snapshot takes seconds: what has arrived shows it is coming.
            if let Some(status) = progress.status() {
                ui.label(capitalized(&status.to_string()));
                // The quiet time and the seconds count on without a byte arriving.
                ctx.request_repaint_after(Duration::from_millis(250));
            }
            cancel = ui.button("Cancel").clicked();
        });
        let escape = ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape));
        if cancel || escape {
            // Dropping the attempt drops the connection its thread may still make.
            let (url, _, _, _) = self.live.connecting.take().expect("shown above");
            self.bench.status = Some((format!("Did not connect to {url}"), Severity::Info));
        }
    }

    /// True while connected with edits of this editor the host has not acknowledged. (Offline,
    /// such edits make the document modified, which the unsaved-changes prompt covers.)
    pub(super) fn host_lacks_edits(&self) -> bool {
        (self.bench.doc.live())
            .is_some_and(|live| live.state() == LinkState::Connected && live.waiting() > 0)
    }

    /// Holds `what`, which ends the live session, while the host lacks some of this editor's
    /// edits: they are on their way, and ending the session now could lose them (a connection
    /// that dropped without the socket noticing yet). It goes on once the host acknowledged
    /// them; after [`HOST_GRACE`] the user is asked. Returns true when held.
    pub(super) fn hold_for_host(&mut self, what: &Pending) -> bool {
        if !self.host_lacks_edits() {
            return false;
        }
        if let Some(wait) = self.live.host_wait.as_mut() {
            wait.what = what.clone(); // the latest request waits in its place
            return true;
        }
        let (host, waiting) = match self.bench.doc.live() {
            Some(live) => (live.host_label().to_owned(), live.waiting()),
            None => return false,
        };
        self.bench.status = Some((
            format!(
                "{} follows once {host} has acknowledged your {waiting} edit(s)…",
                capitalized(what.describe())
            ),
            Severity::Info,
        ));
        self.live.host_wait = Some(HostWait {
            what: what.clone(),
            since: Instant::now(),
            grace: self.live.host_grace,
        });
        true
    }

    /// How long a request that ends a live session (Quit, Open, …) waits for the host's
    /// acknowledgements before the user is asked (3 s); tests shorten it.
    pub fn set_host_grace(&mut self, grace: Duration) {
        self.live.host_grace = grace;
    }

    /// Every frame while a request waits for the host: it goes on once the host acknowledged
    /// everything (or asks about unsaved changes, when the connection dropped meanwhile); past
    /// [`HOST_GRACE`] a question offers to keep waiting, go on anyway, or cancel.
    pub(super) fn host_wait_ui(&mut self, ctx: &egui::Context) {
        let Some(wait) = &self.live.host_wait else {
            return;
        };
        let live = self.bench.doc.live();
        let connected = live.is_some_and(|l| l.state() == LinkState::Connected);
        if !self.host_lacks_edits() {
            let wait = self.live.host_wait.take().expect("checked above");
            if connected || live.is_none() {
                self.carry_out(wait.what);
            } else {
                // Offline with edits waiting: the document is modified, so this asks first.
                self.request(wait.what);
            }
            return;
        }
        ctx.request_repaint_after(Duration::from_millis(100));
        if !wait.asking() {
            return;
        }
        let (host, waiting) = live.map_or((String::new(), 0), |l| {
            (l.host_label().to_owned(), l.waiting())
        });
        let what = wait.what.describe();
        let text = format!(
            "{host} has not acknowledged {waiting} of your edits for {} s. {} now and they may \
             never reach it (the connection may have dropped without the system noticing yet).",
            wait.since.elapsed().as_secs(),
            capitalized(what)
        );
        let anyway = format!("{} anyway", capitalized(what));
        let buttons = ["Keep waiting", anyway.as_str(), "Cancel"];
        let answer =
            super::dialogs::question(ctx, "Edits not on the host yet", &text, &buttons, Some(2));
        match answer {
            Some(0) => {
                if let Some(wait) = self.live.host_wait.as_mut() {
                    wait.since = Instant::now();
                }
            }
            Some(1) => {
                if let Some(wait) = self.live.host_wait.take() {
                    self.carry_out_now(wait.what);
                }
            }
            Some(_) => {
                self.live.host_wait = None;
                self.bench.status = Some((
                    format!("Cancelled: {what} did not happen; your edits still wait for {host}"),
                    Severity::Info,
                ));
            }
            None => {}
        }
    }

    /// The Connect dialog.
    pub(super) fn connect_dialog_ui(&mut self, ctx: &egui::Context) {
        let Some(dialog) = &mut self.live.dialog else {
            return;
        };
        let mut answer = None;
        egui::Modal::new(egui::Id::new("connect-data-layer")).show(ctx, |ui| {
            ui.heading("Connect to a data layer");
            ui.label(
                "Join the scene that `sdk-commands start --data-layer` serves (the server the \
                 web Inspector and Creator Hub use) as one more editor. Every edit is sent to \
                 the host; other editors' edits appear here as they happen.",
            );
            ui.horizontal(|ui| {
                ui.label("URL");
                let field = ui.add(
                    egui::TextEdit::singleline(&mut dialog.url)
                        .desired_width(360.0)
                        .hint_text(DEFAULT_URL),
                );
                if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    answer = Some(true);
                }
            });
            if dialog.remote_refused {
                ui.colored_label(
                    style::WARNING,
                    "△ This host is not this machine. The data layer has no authentication: \
                     anyone who can reach it can read and change the scene and the files of \
                     its project, and so can the host's owner with yours.",
                );
                ui.checkbox(
                    &mut dialog.allow_remote,
                    "I trust this host and the network between us: connect anyway",
                );
            }
            if let Some(error) = &dialog.error {
                ui.colored_label(style::ERROR, error);
            }
            ui.horizontal(|ui| {
                if ui.button("Connect").clicked() {
                    answer = Some(true);
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                    answer = Some(false);
                }
            });
        });
        match answer {
            Some(true) => {
                let (url, allow) = (dialog.url.trim().to_owned(), dialog.allow_remote);
                self.live.dialog = None;
                self.connect_live(url, allow);
            }
            Some(false) => self.live.dialog = None,
            None => {}
        }
    }

    /// The bar under the menu while the connection is down: why, the next try, and buttons.
    /// One line whatever the window's width (the message is cut, whole on hover), so that its
    /// countdown never changes its height.
    pub(super) fn live_bar_ui(&mut self, ui: &mut egui::Ui) {
        let state = self.bench.doc.live().map(|live| live.state());
        let offline = state.is_some_and(|s| s != LinkState::Connected);
        if !ui.ctx().input(|i| i.pointer.any_down()) {
            self.live.offline_bar = offline;
        }
        let (Some(live), Some(state), true) = (self.bench.doc.live(), state, self.live.offline_bar)
        else {
            return;
        };
        let waiting = live.waiting();
        let host = live.host_label().to_owned();
        let reason = live.offline_reason().unwrap_or("").to_owned();
        let mut reconnect = false;
        let mut leave = false;
        egui::Panel::top("live-offline").show(ui, |ui| {
            ui.horizontal(|ui| {
                reconnect = ui.button("Reconnect now").clicked();
                leave = ui
                    .button("Disconnect")
                    .on_hover_text(
                        "Stop the live session and keep the scene as an untitled document",
                    )
                    .clicked();
                let when = match state {
                    LinkState::Connected => None,
                    LinkState::Connecting => Some("reconnecting now…".to_owned()),
                    LinkState::Offline {
                        next_try: Some(wait),
                    } => Some(format!("next try in {} s", wait.as_secs() + 1)),
                    LinkState::Offline { next_try: None } => Some("not retrying".to_owned()),
                };
                let message = match when {
                    // Back while a button was held: the bar waits for its release to go.
                    None => format!("Back online with {host}."),
                    Some(when) => format!(
                        "△ Offline from {host}: {reason}. Edits go on here; {waiting} \
                         message(s) wait for the host ({when})."
                    ),
                };
                ui.add(
                    egui::Label::new(egui::RichText::new(&message).color(style::WARNING))
                        .truncate(),
                )
                .on_hover_text(message);
            });
        });
        if reconnect {
            self.bench.doc.reconnect_live();
        }
        if leave {
            self.disconnect_live();
        }
    }

    /// While the live scene holds a parenting cycle (made by edits at once, each valid where
    /// it was made): a bar that says so and offers the one write that breaks it.
    pub(super) fn live_cycle_bar_ui(&mut self, ui: &mut egui::Ui) {
        let cycles = self.bench.doc.live_cycles();
        let Some(first) = cycles.first() else {
            return;
        };
        let ring = self.bench.doc.cycle_ring(first);
        let more = match cycles.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        let message = format!(
            "⟲ The live scene holds a parenting cycle: {ring}{more}. scenetree draws its members \
             at the root; web Inspectors on this session freeze on it."
        );
        let mut break_it = false;
        egui::Panel::top("live-cycle").show(ui, |ui| {
            ui.horizontal(|ui| {
                break_it = ui
                    .button("Break the cycle")
                    .on_hover_text(
                        "One write: the cycle's smallest entity moves to the root where it is \
                         drawn now (every scenetree window picks the same one, so two windows \
                         never fight); undoable",
                    )
                    .clicked();
                ui.add(
                    egui::Label::new(egui::RichText::new(&message).color(style::CYCLE)).truncate(),
                )
                .on_hover_text(message);
            });
        });
        if break_it && let Some(command) = self.bench.doc.cycle_breaker(first) {
            self.bench.apply_actions(vec![Action::Edit(command)]);
        }
    }

    /// The question about a live write held back because it would make a parenting cycle.
    pub(super) fn held_cycle_ui(&mut self, ctx: &egui::Context) {
        let Some((heading, text)) = self.bench.held_cycle_question() else {
            return;
        };
        let buttons = ["Make the cycle", "Cancel"];
        match super::dialogs::question(ctx, &heading, &text, &buttons, Some(1)) {
            Some(0) => self.bench.make_held_cycle(),
            Some(_) => self.bench.drop_held_cycle(),
            None => {}
        }
    }

    /// Ends the live session; the scene stays open as an untitled document.
    pub(super) fn disconnect_live(&mut self) {
        let host = self.bench.doc.live().map(|l| l.host_label().to_owned());
        if self.bench.doc.end_live() {
            self.bench.status = Some((
                format!(
                    "Disconnected from {}; the scene stays open here (not saved to a file)",
                    host.unwrap_or_default()
                ),
                Severity::Info,
            ));
        }
    }

    /// The File menu's live items.
    pub(super) fn live_menu_items(&mut self, ui: &mut egui::Ui) {
        ui.separator();
        let live = self.bench.doc.live().is_some();
        if ui
            .add_enabled(
                self.live.connecting.is_none(),
                egui::Button::new("Connect to Data Layer…"),
            )
            .on_hover_text(
                "Join a scene served by `sdk-commands start --data-layer` as one more editor",
            )
            .clicked()
        {
            self.open_connect_dialog(None, false);
            ui.close();
        }
        if ui
            .add_enabled(live, egui::Button::new("Disconnect from Data Layer"))
            .clicked()
        {
            self.disconnect_live();
            ui.close();
        }
        if ui
            .add_enabled(live, egui::Button::new("Save Session Recording…"))
            .on_hover_text("Every message of this session, in and out, as a scenario the Peers workspace replays")
            .clicked()
        {
            self.pick(DialogPurpose::SaveRecording, None);
            ui.close();
        }
    }

    /// The title's name for a live document: `Live: 127.0.0.1:8000`, and what waits.
    pub(super) fn live_title(&self) -> Option<String> {
        let live = self.bench.doc.live()?;
        let state = match live.state() {
            LinkState::Connected => String::new(),
            _ => " (offline)".to_owned(),
        };
        let waiting = match live.waiting() {
            0 => String::new(),
            n => format!(" · {n} waiting for the host"),
        };
        Some(format!("Live: {}{state}{waiting}", live.host_label()))
    }

    /// Save while live: the host writes main.composite (it owns the file).
    pub(super) fn save_live(&mut self) {
        match self.bench.doc.save_live() {
            Ok(()) => {
                self.bench.status = Some((
                    "Asked the host to save main.composite…".to_owned(),
                    Severity::Info,
                ));
                if let Some(next) = self.saving.then.take() {
                    self.carry_out(next);
                }
            }
            Err(e) => {
                self.saving.then = None;
                self.modals.problem(format!("Could not save.\n\n{e}"));
            }
        }
    }

    /// Writes the session recording to `path` (nothing once the session has ended): a copy
    /// of what the session wrote to its temporary file so far.
    pub(super) fn save_recording(&mut self, path: &std::path::Path) {
        if self.bench.doc.live().is_none() {
            return;
        }
        match self.bench.doc.save_live_recording(path) {
            Ok(summary) => {
                let stopped = summary
                    .stopped
                    .map(|why| format!(" (it stopped early: {why})"))
                    .unwrap_or_default();
                self.bench.status = Some((
                    format!(
                        "Saved the session recording ({} steps) to {}{stopped}",
                        summary.steps,
                        path.display()
                    ),
                    Severity::Info,
                ))
            }
            Err(e) => self
                .modals
                .problem(format!("Could not save the recording.\n\n{e}")),
        }
    }
}

/// The settings of a session the window runs: what arrives wakes the window.
fn live_settings(allow_remote: bool, ctx: &egui::Context) -> LiveSettings {
    let ctx = ctx.clone();
    LiveSettings {
        allow_remote,
        connect_timeout: None,
        notify: Some(Arc::new(move || ctx.request_repaint())),
        progress: None,
        record: scenetree_editor::RecordTo::default(),
    }
}

/// `text` with its first letter in capitals ("opening the example" → "Opening the example").
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}
