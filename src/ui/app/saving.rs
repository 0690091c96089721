//! Saving: to the document's file or a new one, the lossy-save check, exporting a peer and
//! saving a peers run, and the recent-files list.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::save_job::{SaveConsent, SaveJob, SaveOutcome, SaveStage, SaveTarget};
use super::{RECENT_MAX, ScenetreeApp};
use crate::ui::action::Severity;
use scenetree_dcl::io::project::ProjectWriteError;
use scenetree_dcl::io::{self, SceneFormat};
use scenetree_editor::SceneFile;

/// How long the window waits for a save it just started before showing its progress instead:
/// a small scene's save (milliseconds) ends within the frame, with no progress flashing by.
const QUICK_SAVE: Duration = Duration::from_millis(100);

/// The state of saving: the save being written, the question one stopped to ask, and what
/// waits for them.
#[derive(Default)]
pub(super) struct Saving {
    /// The save being written on a worker thread (see `save_job.rs`).
    pub job: Option<SaveJob>,
    /// A save waiting for the user's answer (one save at a time asks one question).
    pub question: Option<SaveQuestion>,
    /// A save asked for while one was running: it starts when that one ends.
    pub after_this: Option<(PathBuf, SaveConsent)>,
    /// What waits for the save: the request the user answered Save to in the unsaved-changes
    /// prompt, or one made while a save was running. It goes on once the save completes
    /// (which may need a file dialog or a confirmation first), and is dropped if it does not.
    pub then: Option<super::Pending>,
    /// Holds the next save before it writes (see [`ScenetreeApp::hold_next_save`]).
    pub gate: Option<std::sync::mpsc::Receiver<()>>,
}

/// A save that stopped to ask the user first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SaveQuestion {
    /// The document's file was changed by another program since scenetree read or saved it.
    Overwrite { path: PathBuf, consent: SaveConsent },
    /// The target format cannot hold everything: `lost` lists what would be dropped.
    Lossy {
        path: PathBuf,
        lost: Vec<String>,
        consent: SaveConsent,
    },
    /// `read_only`, a file the save replaces, is read-only for the user.
    ReadOnly {
        path: PathBuf,
        read_only: PathBuf,
        consent: SaveConsent,
    },
}

impl SaveQuestion {
    /// The save to make once the user agreed: its target, and the consent with this answer.
    pub(super) fn agreed(self) -> (PathBuf, SaveConsent) {
        match self {
            SaveQuestion::Overwrite { path, consent } => (
                path,
                SaveConsent {
                    overwrite: true,
                    ..consent
                },
            ),
            SaveQuestion::Lossy { path, consent, .. } => (
                path,
                SaveConsent {
                    loss: true,
                    ..consent
                },
            ),
            SaveQuestion::ReadOnly { path, consent, .. } => (
                path,
                SaveConsent {
                    read_only: true,
                    ..consent
                },
            ),
        }
    }
}

impl ScenetreeApp {
    /// Saves to the document's file, or asks where when it has none. A request waiting for
    /// this save (`after_save`) goes on when it completes and is dropped if it does not.
    pub(super) fn save(&mut self) {
        if self.bench.doc.live().is_some() {
            // The host owns main.composite while clients are connected.
            return self.save_live();
        }
        match self.bench.doc.file.clone() {
            Some(file) => self.save_to(file.path),
            None => self.save_as(),
        }
    }

    pub(super) fn save_to(&mut self, path: PathBuf) {
        self.save_to_confirmed(path, SaveConsent::default());
    }

    /// Saves atomically, on a worker thread from a copy of the document taken now (see
    /// `save_job.rs`); the window waits a moment for it, so a small scene is saved before the
    /// frame ends, and shows its progress otherwise. Nothing is written until the user confirms
    /// when the document's own file changed on disk since it was read or saved (another
    /// program's changes would be replaced), when the target format cannot hold everything (a
    /// composite's Material JSON in a main.crdt, …), or when a file it replaces is read-only for
    /// the user. A save asked for while one runs follows it.
    pub(super) fn save_to_confirmed(&mut self, path: PathBuf, consent: SaveConsent) {
        if self.saving.job.is_some() {
            self.saving.after_this = Some((path, consent));
            return;
        }
        if !consent.overwrite && self.changed_on_disk(&path) {
            self.saving.question = Some(SaveQuestion::Overwrite { path, consent });
            return;
        }
        let Some(format) = SceneFormat::from_path(&path) else {
            self.save_abandoned();
            self.modals.problem(format!(
                "{}: save as .json (scenetree), .crdt (main.crdt) or .composite (main.composite)",
                path.display()
            ));
            return;
        };
        let doc = &self.bench.doc;
        // Saving a project's own scene writes its main.composite and the matching main.crdt.
        let project = doc
            .project
            .clone()
            .filter(|_| doc.saves_as_project && doc.file.as_ref().is_some_and(|f| f.path == path));
        let target = SaveTarget {
            path,
            format,
            project,
            consent,
        };
        self.saving.job = Some(SaveJob::start(
            doc.replica().version(),
            doc.replica().clone(),
            doc.save_context.clone(),
            target,
            self.jobs.repaint_context(),
            self.saving.gate.take(),
        ));
        self.poll_save(QUICK_SAVE);
    }

    /// What a saved scene's parenting cycles mean to whoever runs it, when it holds any:
    /// the runtime draws their members at the root.
    fn saved_cycles_note(&self) -> Option<String> {
        let doc = &self.bench.doc;
        let cycles = doc.view().cycles();
        let first = cycles.first()?;
        let more = match cycles.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        Some(format!(
            "It holds a parenting cycle ({}{more}): the runtime draws its members at the root \
             until a write breaks it",
            doc.cycle_ring(first)
        ))
    }

    /// True while a save is being written.
    pub fn is_saving(&self) -> bool {
        self.saving.job.is_some()
    }

    /// Holds the next save before it writes anything until the returned sender sends or is
    /// dropped, so a test can look at the window while a save is in flight.
    pub fn hold_next_save(&mut self) -> std::sync::mpsc::Sender<()> {
        let (release, gate) = std::sync::mpsc::channel();
        self.saving.gate = Some(gate);
        release
    }

    /// Once a frame (and when a save starts, up to `wait`): takes the outcome of a finished
    /// save and acts on it.
    pub(super) fn poll_save(&mut self, wait: Duration) {
        let Some(outcome) = self.saving.job.as_ref().and_then(|job| job.poll(wait)) else {
            return;
        };
        let job = self.saving.job.take().expect("polled above");
        self.bench.saving = None;
        self.save_finished(job, outcome);
        if self.saving.question.is_some() {
            // It stopped to ask; the answer saves again, so a second save would ask the same.
            self.saving.after_this = None;
        }
        if let Some((path, consent)) = self.saving.after_this.take() {
            self.save_to_confirmed(path, consent);
        }
    }

    /// Waits for the save in flight, if any, and records its outcome, before the document is
    /// replaced or the window closes; what waited for that save is dropped, as that replaces it.
    pub(super) fn finish_save(&mut self) {
        if let Some(job) = self.saving.job.take() {
            let outcome = job.wait();
            self.bench.saving = None;
            self.saving.after_this = None;
            self.saving.then = None;
            self.save_finished(job, outcome);
            // Nothing was written if it stopped to ask; the question is about what is going.
            self.saving.question = None;
        }
    }

    /// What the status bar says while a save runs (the spinner beside it is the workbench's).
    pub(super) fn saving_status(&mut self) {
        let Some(job) = &self.saving.job else {
            return;
        };
        let what = match &job.target.project {
            Some(p) => format!("the project {}", p.display_name()),
            None => (job.target.path.file_name()).map_or_else(
                || job.target.path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
        };
        let doing = match job.stage() {
            SaveStage::Encoding => "encoding",
            SaveStage::Writing => "writing",
        };
        self.bench.saving = Some(format!(
            "Saving {what}… ({doing}, {:.1} s)",
            job.started.elapsed().as_secs_f32()
        ));
    }

    /// Acts on a finished save: the document is saved as of when the save began (an edit made
    /// while it ran stays unsaved), or the user is asked or told why not.
    fn save_finished(&mut self, job: SaveJob, outcome: SaveOutcome) {
        let SaveJob {
            target, version, ..
        } = job;
        let SaveTarget {
            path,
            format,
            project,
            consent,
        } = target;
        match outcome {
            SaveOutcome::WouldLose(lost) => {
                self.saving.question = Some(SaveQuestion::Lossy {
                    path,
                    lost,
                    consent,
                });
            }
            SaveOutcome::Written { .. } if self.bench.doc.live().is_some() => {
                // A copy: the document stays the host's scene.
                self.bench.status = Some((
                    format!("Saved a copy of the live scene to {}", path.display()),
                    Severity::Info,
                ));
                self.go_on_after_save(false);
            }
            SaveOutcome::Written {
                names,
                digest,
                content,
            } => {
                if project.is_none() {
                    // Saved elsewhere: from now on the document is that file, not the project's
                    // scene (the project still resolves its models).
                    self.bench.doc.saves_as_project = false;
                }
                let file = SceneFile {
                    path: path.clone(),
                    format,
                };
                self.bench.doc.mark_saved_at(file, version, digest);
                self.bench.doc.disk_version =
                    io::FileStamp::of(&path).map(|stamp| io::FileVersion { stamp, content });
                self.disk.forget();
                let modified = self.bench.doc.is_modified();
                // The document moved on while the save ran (an edit, a delivery): not on disk.
                let changed_since = self.bench.doc.replica().version() != version;
                let status = match self.bench.doc.simulation() {
                    Some((_, active)) if modified => format!(
                        "Saved {active}'s state to {}; the other peers' states still differ from it",
                        path.display()
                    ),
                    _ => {
                        let saved = match &project {
                            Some(p) => format!("Saved the project {} ({names})", p.display_name()),
                            None => format!("Saved {}", path.display()),
                        };
                        if changed_since {
                            format!("{saved}; changes made while it was saving are not saved yet")
                        } else {
                            saved
                        }
                    }
                };
                let status = match self.saved_cycles_note() {
                    Some(note) => format!("{status}. {note}"),
                    None => status,
                };
                self.bench.status = Some((status, Severity::Info));
                self.remember_recent(project.as_ref().map_or(&path, |p| &p.root));
                if !modified {
                    self.clear_recovery();
                }
                self.go_on_after_save(changed_since);
            }
            // The writer refused before replacing anything: ask, as for the questions above.
            SaveOutcome::Failed(failure) if failure.error.kind == io::SaveErrorKind::ReadOnly => {
                self.saving.question = Some(SaveQuestion::ReadOnly {
                    path,
                    read_only: failure.error.path,
                    consent,
                });
            }
            SaveOutcome::Failed(failure) => {
                self.save_abandoned();
                let message = self.save_failed(&path, &failure, project.is_some());
                self.modals.problem(message);
            }
        }
    }

    /// The request waiting for a save that succeeded goes on; asked again instead when the
    /// document `changed_since` the save began (what it has now is not on disk). With another
    /// save asked for meanwhile, it waits for that one.
    fn go_on_after_save(&mut self, changed_since: bool) {
        if self.saving.after_this.is_some() {
            return;
        }
        if let Some(next) = self.saving.then.take() {
            if changed_since {
                self.request(next);
            } else {
                self.carry_out(next);
            }
        }
    }

    /// The message for a save that failed. Files it did replace (a project save whose last
    /// renames failed) are named, and their new stamps kept: the editor wrote them, so the
    /// disk watcher must not report them as changed by another program.
    fn save_failed(&mut self, path: &Path, failure: &ProjectWriteError, project: bool) -> String {
        let ProjectWriteError {
            error,
            written,
            not_written,
        } = failure;
        if written.is_empty() {
            let unchanged = if project {
                "The project's files on disk are unchanged."
            } else {
                "The file on disk is unchanged."
            };
            return format!("Could not save. {unchanged}\n\n{error}");
        }
        if written.iter().any(|w| w == path) {
            // Written, but which bytes ended where is not followed: only the stamp tells.
            self.bench.doc.disk_version = io::FileStamp::of(path).map(|stamp| io::FileVersion {
                stamp,
                content: None,
            });
            self.disk.notice = None;
        }
        let names = |paths: &[PathBuf]| {
            (paths.iter())
                .map(|p| {
                    p.file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let hold = |paths: &[PathBuf]| if paths.len() == 1 { "holds" } else { "hold" };
        format!(
            "Could not save everything. {} now {} this scene; {} still {} the previous save, \
             so the project's files disagree until a save succeeds. The scene stays \
             unsaved.\n\n{error}",
            names(written),
            hold(written),
            names(not_written),
            hold(not_written),
        )
    }

    /// True when `path` is the document's own file and something else changed its bytes since
    /// the document read or saved it. A file that is gone is not asked about: saving loses
    /// nothing.
    fn changed_on_disk(&self, path: &Path) -> bool {
        let doc = &self.bench.doc;
        let own = doc.file.as_ref().is_some_and(|f| f.path == path);
        match (own, doc.disk_version) {
            (true, Some(known)) => matches!(known.look(path), io::FileLook::Changed(_)),
            _ => false,
        }
    }

    /// The save the user chose in the unsaved-changes prompt did not happen (cancelled or
    /// failed): the request that waited for it is dropped, and the user is told.
    pub(super) fn save_abandoned(&mut self) {
        if let Some(next) = self.saving.then.take() {
            self.bench.status = Some((
                format!("Not saved, so {} did not happen", next.describe()),
                Severity::Info,
            ));
        }
    }

    pub(super) fn export_peer(&mut self, peer: scenetree_core::crdt::network::PeerId, path: &Path) {
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
            Err(e) => self.modals.problem(format!(
                "Could not export {peer}.\n\n{}: {e}",
                path.display()
            )),
        }
    }

    pub(super) fn save_run(&mut self, path: &Path) {
        let Some((sim, _)) = self.bench.doc.simulation() else {
            return;
        };
        let scenario = sim.history();
        match io::scenario::save_scenario(&scenario, path) {
            Ok(()) => {
                self.bench.status = Some((
                    format!("Saved the run to {}", path.display()),
                    Severity::Info,
                ))
            }
            Err(e) => self
                .modals
                .problem(format!("Could not save the run.\n\n{e}")),
        }
    }

    pub(super) fn remember_recent(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(RECENT_MAX);
    }
}
