//! Autosave of unsaved work every 30 s to the recovery folder, and recovering it after a
//! session that did not end cleanly.

use std::time::Instant;

use super::{AUTOSAVE_EVERY, ScenetreeApp};
use crate::editor::{Document, SceneFile};
use crate::io::{SceneFormat, recovery};
use crate::ui::workbench::Severity;

impl ScenetreeApp {
    pub(super) fn clear_recovery(&mut self) {
        if let Some(dir) = &self.recovery_dir {
            recovery::clear_recovery(dir);
        }
    }

    pub(super) fn autosave(&mut self) {
        let Some(dir) = self.recovery_dir.clone() else {
            return;
        };
        let version = self.bench.doc.replica().version();
        let due = Instant::now() >= self.last_autosave + AUTOSAVE_EVERY;
        if !self.bench.doc.is_modified() || self.autosaved == Some(version) || !due {
            return;
        }
        self.last_autosave = Instant::now();
        self.autosaved = Some(version);
        let original = self.bench.doc.file.as_ref().map(|f| f.path.clone());
        if let Err(e) =
            recovery::write_recovery(&dir, self.bench.doc.replica(), original.as_deref())
        {
            self.bench.status = Some((format!("Autosave failed: {e}"), Severity::Error));
        }
    }

    pub(super) fn recover(&mut self, info: &recovery::RecoveryInfo) {
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
}
