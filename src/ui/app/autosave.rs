//! Autosave of unsaved work to this editor's recovery folder (2 s after the last change, at
//! least every 30 s while editing), and recovering the work an editor that did not end
//! cleanly left behind.
//!
//! The autosave is written on a worker thread from a copy of the replica, so writing a large
//! scene (31 MB of JSON for the 65,024-entity example) never freezes the window. One autosave is written at a time; anything that replaces or
//! forgets the autosave first waits for the one in flight, so it can never land afterwards.

use std::sync::Arc;
use std::time::{Duration, Instant};

use std::thread::JoinHandle;

use super::ScenetreeApp;
use crate::ui::action::Severity;
use scenetree_core::crdt::ReplicaVersion;
use scenetree_dcl::io::SceneFormat;
use scenetree_dcl::io::project::{Project, is_project_manifest};
use scenetree_dcl::io::recovery::{OrphanedWork, RecoveryInfo, RecoverySession, WorkOrigin};
use scenetree_editor::{Document, SceneFile};

pub(super) const AUTOSAVE_EVERY: Duration = Duration::from_secs(30);
pub(super) const AUTOSAVE_IDLE: Duration = Duration::from_secs(2);

/// This editor's crash recovery: its folder, the autosave being written, and when the next is
/// due. The app asks it once a frame ([`Autosave::tick`]); nothing else writes recovery files.
pub(super) struct Autosave {
    /// This editor's recovery folder (none in screenshot mode, or if it cannot be made);
    /// shared with the autosave being written, if any.
    session: Option<Arc<RecoverySession>>,
    /// The autosave being written on a worker thread.
    job: Option<JoinHandle<std::io::Result<()>>>,
    /// When the last autosave began.
    last_write: Instant,
    /// The longest time between autosaves while editing goes on (30 s).
    every: Duration,
    /// How long the scene rests after a change before it is written (2 s).
    idle: Duration,
    /// The replica version last seen, and when it was first seen.
    changed_at: Option<(ReplicaVersion, Instant)>,
    /// The replica state last written for recovery.
    written: Option<ReplicaVersion>,
}

impl Autosave {
    /// Autosaves into `session` (none: autosave is off) at the default timing.
    pub(super) fn new(session: Option<RecoverySession>) -> Self {
        Autosave {
            session: session.map(Arc::new),
            job: None,
            last_write: Instant::now(),
            every: AUTOSAVE_EVERY,
            idle: AUTOSAVE_IDLE,
            changed_at: None,
            written: None,
        }
    }

    /// Writes at least every `every` while editing goes on, and `after_last_change` after the
    /// scene rests.
    pub(super) fn set_timing(&mut self, every: Duration, after_last_change: Duration) {
        self.every = every;
        self.idle = after_last_change;
    }

    /// Whether the unsaved state `version` is already in the recovery folder.
    pub(super) fn holds(&self, version: ReplicaVersion) -> bool {
        self.written == Some(version)
    }

    /// Waits for the autosave being written, if any; its failure, if it failed.
    pub(super) fn finish(&mut self) -> std::io::Result<()> {
        match self.job.take().map(JoinHandle::join) {
            None | Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(e),
            Some(Err(_)) => Err(std::io::Error::other("the autosave thread panicked")),
        }
    }

    /// Forgets the autosave (the work was saved, or the user chose not to keep it), after
    /// waiting for the one in flight so it cannot land afterwards.
    pub(super) fn clear(&mut self) -> std::io::Result<()> {
        let finished = self.finish();
        if let Some(session) = &self.session {
            session.clear();
        }
        self.written = None;
        finished
    }

    /// Once a frame: writes `doc`'s unsaved work on a worker thread when it is due (rested for
    /// `idle` after a change, or `every` since the last write). Returns how long until the
    /// next check matters (the window must wake then: an idle window draws no frames), and the
    /// failure of a write that ended.
    pub(super) fn tick(&mut self, doc: &Document) -> (Option<Duration>, std::io::Result<()>) {
        let ended = match &self.job {
            Some(job) if job.is_finished() => self.finish(),
            _ => Ok(()),
        };
        if self.session.is_none() {
            return (None, ended);
        }
        let version = doc.replica().version();
        let now = Instant::now();
        if self.changed_at.is_none_or(|(seen, _)| seen != version) {
            self.changed_at = Some((version, now));
        }
        if !doc.is_modified() || self.written == Some(version) {
            return (None, ended);
        }
        let rested_at = self.changed_at.map_or(now, |(_, at)| at) + self.idle;
        let due_at = rested_at.min(self.last_write + self.every);
        if now < due_at || self.job.is_some() {
            // A write in flight is checked again soon; it takes well under a second.
            let wait = due_at.saturating_duration_since(now);
            return (Some(wait.max(Duration::from_millis(100))), ended);
        }
        let Some(session) = &self.session else {
            return (None, ended);
        };
        self.last_write = now;
        self.written = Some(version);
        let session = Arc::clone(session);
        let replica = doc.replica().clone();
        let origin = work_origin(doc);
        let spawned = std::thread::Builder::new()
            .name("autosave".into())
            .spawn(move || session.write(&replica, &origin));
        match spawned {
            Ok(job) => {
                self.job = Some(job);
                (None, ended)
            }
            Err(e) => (None, ended.and(Err(e))),
        }
    }

    /// Writes `doc`'s state for recovery now, on this thread (a recovered document, a
    /// termination signal), as work of `origin`.
    pub(super) fn write_now(&mut self, doc: &Document, origin: &WorkOrigin) -> std::io::Result<()> {
        let finished = self.finish();
        if let Some(session) = &self.session {
            session.write(doc.replica(), origin)?;
            self.written = Some(doc.replica().version());
        }
        finished
    }

    /// At exit: ends the session (its folder deleted) when `keep_work` is false; the work
    /// stays for the next start otherwise.
    pub(super) fn end(&mut self, keep_work: bool) -> std::io::Result<()> {
        let finished = self.finish();
        if !keep_work && let Some(session) = self.session.take().and_then(Arc::into_inner) {
            session.end();
        }
        finished
    }
}

impl ScenetreeApp {
    /// Forgets this editor's autosave: the work was saved, or the user chose not to keep it.
    pub(super) fn clear_recovery(&mut self) {
        let cleared = self.autosave.clear();
        self.report_autosave(cleared);
    }

    /// Writes the unsaved work for recovery when it is due (see [`Autosave::tick`]).
    pub(super) fn autosave(&mut self, ctx: &egui::Context) {
        // Quitting: the user answered about unsaved changes, so nothing may be written again
        // in the frames before the window closes.
        if self.closing.allowed {
            let finished = self.autosave.finish();
            return self.report_autosave(finished);
        }
        let (wake_in, ended) = self.autosave.tick(&self.bench.doc);
        if let Some(wait) = wake_in {
            ctx.request_repaint_after(wait);
        }
        self.report_autosave(ended);
    }

    /// Says in the status bar that an autosave failed.
    pub(super) fn report_autosave(&mut self, result: std::io::Result<()>) {
        if let Err(e) = result {
            self.bench.status = Some((format!("Autosave failed: {e}"), Severity::Error));
        }
    }

    /// Opens the work a crashed editor left as the document. It is written to this editor's
    /// recovery folder before the crashed one's is deleted, so a crash now loses nothing.
    pub(super) fn recover(&mut self, work: OrphanedWork) {
        let finished = self.autosave.finish();
        self.report_autosave(finished);
        match work.read() {
            Ok(replica) => {
                let doc = recovered_document(replica, work.original(), &work.info);
                let left = (self.bench.doc.live()).map(|live| live.host_label().to_owned());
                self.replace_document(doc);
                let origin = WorkOrigin {
                    file: work.original().map(std::path::Path::to_path_buf),
                    version: work.info.original_version(),
                    ..work_origin(&self.bench.doc)
                };
                let kept = self.autosave.write_now(&self.bench.doc, &origin);
                match kept {
                    Ok(()) => {
                        work.discard();
                        let left = left
                            .map(|host| format!("; this window left the live session with {host}"))
                            .unwrap_or_default();
                        self.bench.status = Some((
                            format!("Recovered unsaved work — save it to keep it{left}"),
                            Severity::Info,
                        ));
                    }
                    // The crashed editor's copy stays until this one could write its own.
                    Err(e) => {
                        self.bench.status = Some((
                            format!("Recovered unsaved work, but autosave failed: {e}"),
                            Severity::Error,
                        ))
                    }
                }
            }
            Err(err) => self
                .modals
                .problem(format!("The recovery file could not be read.\n\n{err}")),
        }
    }
}

/// The recovered `replica` as a document of the file it belonged to (`original`, a whole path;
/// untitled when none). When that file can still
/// be read, the work goes into it as read now: a project's scene stays the project's (its
/// models drawn, a save writing main.composite, main.crdt and entity-names.ts), and a save
/// keeps the file's own layout. The document remembers the file as it was when the work was
/// last saved, so a save asks first if another program changed it since.
fn recovered_document(
    replica: scenetree_core::crdt::Replica,
    original: Option<&std::path::Path>,
    info: &RecoveryInfo,
) -> Document {
    let Some(original) = original else {
        let mut doc = Document::recovered(replica, None);
        // An untitled document of a project (the bundled example, a damaged file's readable
        // part) draws the project's models again, if the project is still there.
        doc.project = (info.project.as_deref())
            .filter(|root| is_project_manifest(&root.join("scene.json")))
            .map(Project::at_root);
        return doc;
    };
    let progress = std::sync::atomic::AtomicU32::new(0);
    let mut doc = match crate::ui::files::load_document(original, &progress) {
        Ok(base) => base.with_recovered_work(replica),
        // Gone or unreadable: the work alone, to be saved where it was.
        Err(_) => {
            let file = SceneFormat::from_path(original).map(|format| SceneFile {
                path: original.to_path_buf(),
                format,
            });
            Document::recovered(replica, file)
        }
    };
    doc.disk_version = info.original_version();
    doc
}

/// Where `doc`'s unsaved work comes from: its file as last seen on disk, and its project.
pub(super) fn work_origin(doc: &Document) -> WorkOrigin {
    WorkOrigin {
        file: doc.file.as_ref().map(|f| f.path.clone()),
        version: doc.disk_version,
        project: doc.project.as_ref().map(|p| p.root.clone()),
    }
}
