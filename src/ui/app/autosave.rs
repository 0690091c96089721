//! Autosave of unsaved work every 30 s to this editor's recovery folder, and recovering the
//! work an editor that did not end cleanly left behind.

use std::time::Instant;

use super::ScenetreeApp;
use crate::editor::{Document, SceneFile};
use crate::io::SceneFormat;
use crate::io::recovery::OrphanedWork;
use crate::ui::workbench::Severity;

impl ScenetreeApp {
    /// Forgets this editor's autosave: the work was saved, or the user chose not to keep it.
    pub(super) fn clear_recovery(&mut self) {
        if let Some(session) = &self.recovery {
            session.clear();
        }
        self.autosaved = None;
    }

    pub(super) fn autosave(&mut self) {
        // Quitting: the user answered about unsaved changes, so nothing may be written again
        // in the frames before the window closes.
        if self.allow_close {
            return;
        }
        let Some(session) = &self.recovery else {
            return;
        };
        let version = self.bench.doc.replica().version();
        let due = Instant::now() >= self.last_autosave + self.autosave_every;
        if !self.bench.doc.is_modified() || self.autosaved == Some(version) || !due {
            return;
        }
        self.last_autosave = Instant::now();
        self.autosaved = Some(version);
        let original = self.bench.doc.file.as_ref().map(|f| f.path.as_path());
        if let Err(e) = session.write(self.bench.doc.replica(), original) {
            self.bench.status = Some((format!("Autosave failed: {e}"), Severity::Error));
        }
    }

    /// Opens the work a crashed editor left as the document. It is written to this editor's
    /// recovery folder before the crashed one's is deleted, so a crash now loses nothing.
    pub(super) fn recover(&mut self, work: OrphanedWork) {
        match work.read() {
            Ok(replica) => {
                let file = work.info.original.as_ref().and_then(|p| {
                    SceneFormat::from_path(p).map(|format| SceneFile {
                        path: p.clone(),
                        format,
                    })
                });
                self.replace_document(Document::recovered(replica, file));
                let kept = match &self.recovery {
                    Some(session) => {
                        session.write(self.bench.doc.replica(), work.info.original.as_deref())
                    }
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
