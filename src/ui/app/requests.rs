//! What the user asks for that replaces the document or closes the window (Open, New, an
//! example or lesson, Reload, Connect, Quit), and what must come first: the answer about
//! unsaved changes, a save in progress, the host's acknowledgement of live edits.

use std::path::PathBuf;

use super::{ScenetreeApp, cozy_house_dir, showroom_document};
use crate::ui::action::Severity;
use crate::ui::file_dialog::DialogPurpose;
use crate::ui::lessons::BundledLesson;
use crate::ui::multiplayer::Multiplayer;
use scenetree_core::examples;
use scenetree_editor::Document;

/// Something the user asked for that must wait for an answer about unsaved changes.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Pending {
    Open(PathBuf),
    OpenDialog,
    OpenProjectDialog,
    New,
    OpenExample(Example),
    /// A bundled lesson (by index): it replaces the scene with its own untitled document.
    OpenLesson(usize),
    /// Read the document's file again (Reload from Disk).
    Reload,
    /// Join a data layer: the live scene replaces the document.
    Connect {
        url: String,
        allow_remote: bool,
    },
    Quit,
}

impl Pending {
    /// True when carrying it out ends a live session (the document is replaced, or the window
    /// closes); a file dialog only opens, and Reload has nothing to read while live.
    pub(super) fn ends_live_session(&self) -> bool {
        !matches!(
            self,
            Pending::OpenDialog | Pending::OpenProjectDialog | Pending::Reload
        )
    }

    /// What the user asked for, for messages ("Quit did not happen").
    pub(super) fn describe(&self) -> &'static str {
        match self {
            Pending::Open(_) | Pending::OpenDialog | Pending::OpenProjectDialog => "Open",
            Pending::New => "New",
            Pending::OpenExample(_) => "opening the example",
            Pending::OpenLesson(_) => "opening the lesson",
            Pending::Reload => "Reload",
            Pending::Connect { .. } => "connecting to the data layer",
            Pending::Quit => "Quit",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Example {
    Showroom,
    Large,
    CozyHouse,
}

impl ScenetreeApp {
    pub(super) fn request(&mut self, what: Pending) {
        if self.saving.job.is_some() {
            self.bench.status = Some((
                format!("{} follows once the save in progress ends", what.describe()),
                Severity::Info,
            ));
            self.saving.then = Some(what);
        } else if self.bench.doc.is_modified() {
            self.modals.ask_about_unsaved(what);
        } else {
            self.carry_out(what);
        }
    }

    /// Does what was asked (any question about unsaved changes answered); what ends a live
    /// session first waits for the host's acknowledgements ([`Self::hold_for_host`]).
    pub(super) fn carry_out(&mut self, what: Pending) {
        if what.ends_live_session() && self.hold_for_host(&what) {
            return;
        }
        self.carry_out_now(what);
    }

    /// [`Self::carry_out`] without waiting for the live host (the user chose not to).
    pub(super) fn carry_out_now(&mut self, what: Pending) {
        match what {
            Pending::Open(path) => self.jobs.load(path),
            Pending::OpenDialog => self.pick(
                DialogPurpose::Open,
                self.bench.doc.file.as_ref().map(|f| f.path.clone()),
            ),
            Pending::OpenProjectDialog => self.pick(
                DialogPurpose::OpenProject,
                self.bench.doc.project.as_ref().map(|p| p.root.clone()),
            ),
            Pending::New => self.replace_document(Document::default()),
            Pending::OpenExample(Example::Showroom) => self.replace_document(showroom_document()),
            Pending::OpenExample(Example::Large) => {
                self.replace_document(Document::new(examples::large(usize::MAX), None));
            }
            Pending::OpenExample(Example::CozyHouse) => {
                let dir = cozy_house_dir();
                self.opening.example = Some(dir.clone());
                self.jobs.load(dir);
            }
            Pending::OpenLesson(index) => match crate::ui::lessons::open_lesson(index) {
                Ok(BundledLesson::Peers(doc, title)) => {
                    self.replace_document(*doc);
                    self.bench.status = Some((format!("Lesson: {title}"), Severity::Info));
                }
                Ok(BundledLesson::Multiplayer(lesson)) => {
                    self.finish_save();
                    let multiplayer = Multiplayer::from_lesson(*lesson);
                    let title = multiplayer.title.clone();
                    self.bench.open_multiplayer(multiplayer);
                    self.document_replaced();
                    self.bench.status = Some((format!("Lesson: {title}"), Severity::Info));
                }
                Err(e) => self
                    .modals
                    .problem(format!("Could not open the lesson.\n\n{e}")),
            },
            Pending::Reload => self.reload(),
            Pending::Connect { url, allow_remote } => self.start_connecting(url, allow_remote),
            Pending::Quit => {
                self.closing.allowed = true;
                self.clear_recovery();
            }
        }
    }

    /// Shows another document. The user already answered about the old one's unsaved changes
    /// (or there were none), so its autosave goes.
    pub(super) fn replace_document(&mut self, doc: Document) {
        self.finish_save();
        self.bench.set_document(doc);
        self.document_replaced();
    }

    /// What showing another document (or the same one read again) resets beside the workbench.
    pub(super) fn document_replaced(&mut self) {
        self.disk.forget();
        self.clear_recovery();
    }

    pub(super) fn handle_close_request(&mut self, ctx: &egui::Context) {
        if ctx.input(|i| i.viewport().close_requested())
            && !self.closing.allowed
            && self.screenshot.is_none()
        {
            if self.saving.job.is_some() {
                // Closing now would leave the user unsure what was saved: quit once it ends.
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                self.request(Pending::Quit);
            } else if self.bench.doc.is_modified() {
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                self.modals.ask_about_unsaved(Pending::Quit);
            } else if self.host_lacks_edits() {
                // The host has not acknowledged every edit yet: quit once it has.
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                self.carry_out(Pending::Quit);
            } else {
                // Closing as asked: the window goes away after this frame.
                self.closing.allowed = true;
                self.closing.sent = true;
                self.clear_recovery();
            }
        }
    }
}
