//! Autosave of unsaved work to this editor's recovery folder (2 s after the last change, at
//! least every 30 s while editing), and recovering the work an editor that did not end
//! cleanly left behind.
//!
//! The autosave is written on a worker thread from a copy of the replica, so writing a large
//! scene (31 MB of JSON for the 65,024-entity example) never freezes the window. One autosave is written at a time; anything that replaces or
//! forgets the autosave first waits for the one in flight, so it can never land afterwards.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ScenetreeApp;
use crate::editor::{Document, SceneFile};
use crate::ui::action::Severity;
use scenetree_dcl::io::SceneFormat;
use scenetree_dcl::io::recovery::{OrphanedWork, RecoveryInfo};

impl ScenetreeApp {
    /// Forgets this editor's autosave: the work was saved, or the user chose not to keep it.
    pub(super) fn clear_recovery(&mut self) {
        self.finish_autosave();
        if let Some(session) = &self.recovery {
            session.clear();
        }
        self.autosaved = None;
    }

    /// Writes the unsaved work for recovery once the scene has rested for `autosave_idle`
    /// after a change (2 s: the work lost to a crash is what was done in the last moments),
    /// or every `autosave_every` during continuous editing (30 s), and wakes the window when
    /// one is due, since an idle window draws no frames.
    pub(super) fn autosave(&mut self, ctx: &egui::Context) {
        if self
            .autosave_job
            .as_ref()
            .is_some_and(|job| job.is_finished())
        {
            self.finish_autosave();
        }
        // Quitting: the user answered about unsaved changes, so nothing may be written again
        // in the frames before the window closes.
        if self.allow_close || self.recovery.is_none() {
            return;
        }
        let version = self.bench.doc.replica().version();
        let now = Instant::now();
        if self.changed_at.is_none_or(|(seen, _)| seen != version) {
            self.changed_at = Some((version, now));
        }
        if !self.bench.doc.is_modified() || self.autosaved == Some(version) {
            return;
        }
        let rested_at = self.changed_at.map_or(now, |(_, at)| at) + self.autosave_idle;
        let due_at = rested_at.min(self.last_autosave + self.autosave_every);
        if now < due_at || self.autosave_job.is_some() {
            // A write in flight is checked again soon; it takes well under a second.
            let wait = due_at.saturating_duration_since(now);
            ctx.request_repaint_after(wait.max(Duration::from_millis(100)));
            return;
        }
        let Some(session) = &self.recovery else {
            return;
        };
        self.last_autosave = now;
        self.autosaved = Some(version);
        let session = Arc::clone(session);
        let replica = self.bench.doc.replica().clone();
        let original = self.bench.doc.file.as_ref().map(|f| f.path.clone());
        let stamp = self.bench.doc.disk_stamp;
        let spawned = std::thread::Builder::new()
            .name("autosave".into())
            .spawn(move || session.write(&replica, original.as_deref(), stamp));
        match spawned {
            Ok(job) => self.autosave_job = Some(job),
            Err(e) => self.autosave_failed(e),
        }
    }

    /// Waits for the autosave being written, if any, and reports a failure.
    pub(super) fn finish_autosave(&mut self) {
        let Some(job) = self.autosave_job.take() else {
            return;
        };
        match job.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.autosave_failed(e),
            Err(_) => self.autosave_failed(std::io::Error::other("the autosave thread panicked")),
        }
    }

    fn autosave_failed(&mut self, e: std::io::Error) {
        self.bench.status = Some((format!("Autosave failed: {e}"), Severity::Error));
    }

    /// Opens the work a crashed editor left as the document. It is written to this editor's
    /// recovery folder before the crashed one's is deleted, so a crash now loses nothing.
    pub(super) fn recover(&mut self, work: OrphanedWork) {
        self.finish_autosave();
        match work.read() {
            Ok(replica) => {
                let doc = recovered_document(replica, &work.info);
                self.replace_document(doc);
                let kept = match &self.recovery {
                    Some(session) => session.write(
                        self.bench.doc.replica(),
                        work.info.original.as_deref(),
                        work.info.original_stamp,
                    ),
                    None => Ok(()),
                };
                match kept {
                    Ok(()) => {
                        self.autosaved = Some(self.bench.doc.replica().version());
                        work.discard();
                        self.bench.status = Some((
                            "Recovered unsaved work — save it to keep it".into(),
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
            Err(err) => self.error = Some(format!("The recovery file could not be read.\n\n{err}")),
        }
    }
}

/// The recovered `replica` as a document of the file it belonged to. When that file can still
/// be read, the work goes into it as read now: a project's scene stays the project's (its
/// models drawn, a save writing main.composite, main.crdt and entity-names.ts), and a save
/// keeps the file's own layout. The document remembers the file as it was when the work was
/// last saved, so a save asks first if another program changed it since.
fn recovered_document(replica: scenetree_core::crdt::Replica, info: &RecoveryInfo) -> Document {
    let Some(original) = &info.original else {
        return Document::recovered(replica, None);
    };
    let progress = std::sync::atomic::AtomicU32::new(0);
    let mut doc = match crate::ui::files::load_document(original, &progress) {
        Ok(base) => base.with_recovered_work(replica),
        // Gone or unreadable: the work alone, to be saved where it was.
        Err(_) => {
            let file = SceneFormat::from_path(original).map(|format| SceneFile {
                path: original.clone(),
                format,
            });
            Document::recovered(replica, file)
        }
    };
    doc.disk_stamp = info.original_stamp;
    doc
}
