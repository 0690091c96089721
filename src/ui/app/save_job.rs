//! A save encoded and written on a worker thread from a copy of the replica, so that saving a
//! large project (about 1.5 s for the 65,024-entity example's main.composite, main.crdt and
//! entity-names.ts on the development machine) never freezes the window, and editing goes on
//! meanwhile. One save runs at a time; what it wrote is the state when it began.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use scenetree_core::crdt::{Replica, ReplicaVersion};
use scenetree_dcl::io::project::{self, Project, ProjectWriteError};
use scenetree_dcl::io::{
    self, ContentHash, SaveContext, SaveError, SaveErrorKind, SceneFormat, WriteConsent,
};

/// What the user already agreed to for one save, so that answering one question does not
/// ask it again when the next one comes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct SaveConsent {
    /// Write even what the format cannot hold.
    pub loss: bool,
    /// Replace the file although another program changed it.
    pub overwrite: bool,
    /// Replace files that are read-only for the user (their mode is kept).
    pub read_only: bool,
}

impl SaveConsent {
    /// What the atomic writer may do for this save.
    pub(super) fn write(self) -> WriteConsent {
        WriteConsent {
            overwrite_read_only: self.read_only,
        }
    }
}

/// Where a save goes and what the user agreed to for it.
#[derive(Clone, Debug)]
pub(super) struct SaveTarget {
    /// The file named (a project's: its main.composite).
    pub path: PathBuf,
    pub format: SceneFormat,
    /// The project whose files the save writes (main.composite, main.crdt, entity-names.ts);
    /// `None` for one file.
    pub project: Option<Project>,
    /// What the user already agreed to for this save.
    pub consent: SaveConsent,
}

/// What a finished save did.
#[derive(Debug)]
pub(super) enum SaveOutcome {
    /// Every file was replaced. `names`: a project's files as a phrase ("main.composite,
    /// main.crdt and entity-names.ts"), empty for one file; `digest`: the saved state's, to
    /// tell other replica instances holding it (simulated peers) from ones that differ;
    /// `content`: the hash of the bytes written to the file named (`None`: a project's save
    /// that did not write it).
    Written {
        names: String,
        digest: u128,
        content: Option<ContentHash>,
    },
    /// Nothing was written: the format cannot hold these (the user has not agreed yet).
    WouldLose(Vec<String>),
    /// Nothing, or not everything, was replaced (see [`ProjectWriteError`]).
    Failed(ProjectWriteError),
}

/// What the worker is doing, for the status bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SaveStage {
    /// Turning the scene into the files' bytes.
    Encoding,
    /// Writing each file beside its target, syncing it, and renaming it into place.
    Writing,
}

/// A save running on its worker thread.
pub(super) struct SaveJob {
    pub target: SaveTarget,
    /// The state being written: once written, a replica still at this version is saved.
    pub version: ReplicaVersion,
    pub started: Instant,
    stage: Arc<AtomicU8>,
    outcome: Receiver<SaveOutcome>,
}

impl SaveJob {
    /// Starts writing the document's replica, at `version`, to `target`: `replica` is a copy
    /// of it taken now (another instance, so its own version names nothing of the document's).
    /// `gate`, when given, holds the worker before it writes anything until a message arrives
    /// or its sender is dropped (tests use it to look at the window while a save is in flight).
    pub fn start(
        version: ReplicaVersion,
        replica: Replica,
        context: SaveContext,
        target: SaveTarget,
        wake: Option<egui::Context>,
        gate: Option<Receiver<()>>,
    ) -> SaveJob {
        let stage = Arc::new(AtomicU8::new(SaveStage::Encoding as u8));
        let (send, outcome) = channel();
        let job_target = target.clone();
        let job_stage = Arc::clone(&stage);
        // The copy is freed when the worker ends, off the window's thread (tens of milliseconds
        // for a large scene). Without a thread (the system refused one) the sender is dropped
        // here and the outcome says the save did not run.
        let work = move || {
            let outcome = encode_and_write(&replica, &context, &job_target, &job_stage, gate);
            send.send(outcome).ok();
            if let Some(ctx) = wake {
                ctx.request_repaint();
            }
        };
        if let Err(e) = std::thread::Builder::new().name("save".into()).spawn(work) {
            log::error!("cannot start a thread for the save: {e}");
        }
        SaveJob {
            target,
            version,
            started: Instant::now(),
            stage,
            outcome,
        }
    }

    /// The outcome once the save has finished, waiting up to `wait` for it; `None` while it is
    /// still running.
    pub fn poll(&self, wait: Duration) -> Option<SaveOutcome> {
        match self.outcome.recv_timeout(wait) {
            Ok(outcome) => Some(outcome),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(self.worker_gone()),
        }
    }

    /// Waits for the outcome, however long the save takes.
    pub fn wait(&self) -> SaveOutcome {
        self.outcome.recv().unwrap_or_else(|_| self.worker_gone())
    }

    /// The outcome of a worker that ended without one: it could not start, or it panicked.
    /// The atomic writer replaces a file only by renaming a complete copy, so whatever it had
    /// not renamed is intact.
    fn worker_gone(&self) -> SaveOutcome {
        let error = SaveError::new(
            &self.target.path,
            SaveErrorKind::Io { os_error: None },
            "the save could not run to its end (no thread for it, or an internal error); files \
             it had not finished are unchanged",
        );
        SaveOutcome::Failed(unwritten(&self.target, error))
    }

    pub fn stage(&self) -> SaveStage {
        match self.stage.load(Ordering::Acquire) {
            s if s == SaveStage::Writing as u8 => SaveStage::Writing,
            _ => SaveStage::Encoding,
        }
    }
}

/// A failure before any file was replaced.
fn unwritten(target: &SaveTarget, error: SaveError) -> ProjectWriteError {
    let not_written = match &target.project {
        Some(p) => vec![p.composite_path(), p.crdt_path()],
        None => vec![target.path.clone()],
    };
    ProjectWriteError {
        error,
        written: Vec::new(),
        not_written,
    }
}

/// The worker's part: encode, stop if the user must first agree to a loss, write.
fn encode_and_write(
    replica: &Replica,
    context: &SaveContext,
    target: &SaveTarget,
    stage: &AtomicU8,
    gate: Option<Receiver<()>>,
) -> SaveOutcome {
    let written = match &target.project {
        Some(project) => {
            let files = project::encode_project(replica, context, project);
            let lost = files.lost();
            if !target.consent.loss && !lost.is_empty() {
                return SaveOutcome::WouldLose(lost);
            }
            let named = (files.files.iter())
                .find(|(path, _)| *path == target.path)
                .map(|(_, encoded)| ContentHash::of_bytes(&encoded.bytes));
            stage.store(SaveStage::Writing as u8, Ordering::Release);
            wait_for_gate(gate);
            project::write_project_consenting(&files, target.consent.write())
                .map(|()| (files.names(), named))
        }
        None => {
            // Encoded once: what it would lose is asked about before anything is written.
            let encoded = io::encode_scene(replica, target.format, context);
            if !target.consent.loss && !encoded.lost.is_empty() {
                return SaveOutcome::WouldLose(encoded.lost);
            }
            let named = ContentHash::of_bytes(&encoded.bytes);
            stage.store(SaveStage::Writing as u8, Ordering::Release);
            wait_for_gate(gate);
            io::write_encoded(&target.path, encoded, target.consent.write())
                .map(|_| (String::new(), Some(named)))
                .map_err(|error| unwritten(target, error))
        }
    };
    match written {
        Ok((names, content)) => SaveOutcome::Written {
            names,
            digest: replica.digest(),
            content,
        },
        Err(failure) => SaveOutcome::Failed(failure),
    }
}

fn wait_for_gate(gate: Option<Receiver<()>>) {
    if let Some(gate) = gate {
        gate.recv().ok();
    }
}
