//! File work off the UI thread: system file dialogs (see `file_dialog`) and loading with
//! progress, so the window never freezes. Results come back over a channel polled every frame.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};

use super::file_dialog::{
    DialogPurpose, FilePick, NativeOutcome, NativePicker, pick_natively, rfd_picker,
};
use super::multiplayer::Multiplayer;
use scenetree_core::net::capture::Capture;
use scenetree_core::net::lesson::NetLesson;
use scenetree_dcl::io::project::OpenTarget;
use scenetree_dcl::io::{self, LoadError, SceneFormat};
use scenetree_editor::{Document, SceneFile};

/// What a background job produced.
pub enum JobResult {
    /// A dialog closed: the chosen path, or `None` if cancelled.
    Picked(DialogPurpose, Option<PathBuf>),
    /// The system could not show a file dialog for this pick.
    NoSystemDialog(FilePick),
    /// A scene finished loading (or failed, with the reason and what can still be read).
    Loaded(PathBuf, Box<Result<Document, NotOpened>>),
    /// A multiplayer capture or lesson finished loading (or failed).
    LoadedRun(PathBuf, Box<Result<Multiplayer, LoadError>>),
}

/// A load in progress.
pub struct Loading {
    /// The file being read.
    pub path: PathBuf,
    /// Progress in thousandths.
    pub permille: Arc<AtomicU32>,
}

/// The background jobs of the app.
pub struct Jobs {
    tx: Sender<JobResult>,
    rx: Receiver<JobResult>,
    /// True while a dialog is open (only one at a time).
    pub dialog_open: bool,
    /// The load in progress, if any.
    pub loading: Option<Loading>,
    repaint: Option<egui::Context>,
    /// Shows system dialogs (rfd; tests put a stand-in here).
    pub native_picker: NativePicker,
}

impl Default for Jobs {
    fn default() -> Self {
        let (tx, rx) = channel();
        Jobs {
            tx,
            rx,
            dialog_open: false,
            loading: None,
            repaint: None,
            native_picker: rfd_picker,
        }
    }
}

impl Jobs {
    /// Lets finished jobs wake the UI.
    pub fn set_repaint_context(&mut self, ctx: &egui::Context) {
        self.repaint = Some(ctx.clone());
    }

    /// The context that finished jobs wake.
    pub fn repaint_context(&self) -> Option<egui::Context> {
        self.repaint.clone()
    }

    /// Opens a system file dialog on a worker thread. If none can be shown, the result is
    /// [`JobResult::NoSystemDialog`] (the app then shows its own).
    pub fn pick(&mut self, pick: FilePick) {
        if self.dialog_open {
            return;
        }
        self.dialog_open = true;
        let tx = self.tx.clone();
        let repaint = self.repaint.clone();
        let picker = self.native_picker;
        let job = move || {
            let result = match pick_natively(picker, &pick) {
                NativeOutcome::Picked(path) => JobResult::Picked(pick.purpose, path),
                NativeOutcome::Unavailable => JobResult::NoSystemDialog(pick),
            };
            tx.send(result).ok();
            if let Some(ctx) = repaint {
                ctx.request_repaint();
            }
        };
        std::thread::Builder::new()
            .name("file-dialog".into())
            .spawn(job)
            .expect("the system gives a thread for the file dialog");
    }

    /// Loads a scene on a worker thread, reporting progress. A relative `path` is made whole
    /// first (see [`io::whole_path`]).
    pub fn load(&mut self, path: PathBuf) {
        let path = io::whole_path(&path);
        let permille = Arc::new(AtomicU32::new(0));
        self.loading = Some(Loading {
            path: path.clone(),
            permille: permille.clone(),
        });
        let tx = self.tx.clone();
        let repaint = self.repaint.clone();
        let job = move || {
            let result = if is_multiplayer_file(&path) {
                JobResult::LoadedRun(path.clone(), Box::new(load_multiplayer(&path)))
            } else {
                JobResult::Loaded(path.clone(), Box::new(load_or_salvage(&path, &permille)))
            };
            tx.send(result).ok();
            if let Some(ctx) = repaint {
                ctx.request_repaint();
            }
        };
        std::thread::Builder::new()
            .name("load".into())
            .spawn(job)
            .expect("the system gives a thread for loading");
    }

    /// Replays a capture already read (from `path`) on a worker thread, as a run to show.
    pub fn replay(&mut self, path: PathBuf, capture: Capture) {
        self.loading = Some(Loading {
            path: path.clone(),
            permille: Arc::new(AtomicU32::new(0)),
        });
        let tx = self.tx.clone();
        let repaint = self.repaint.clone();
        let job = move || {
            let title = file_title(&path);
            let run = Multiplayer::from_capture(&capture, title);
            tx.send(JobResult::LoadedRun(path, Box::new(Ok(run)))).ok();
            if let Some(ctx) = repaint {
                ctx.request_repaint();
            }
        };
        std::thread::Builder::new()
            .name("replay".into())
            .spawn(job)
            .expect("the system gives a thread for replaying");
    }

    /// The results that arrived since the last poll.
    pub fn poll(&mut self) -> Vec<JobResult> {
        let results: Vec<JobResult> = self.rx.try_iter().collect();
        for r in &results {
            match r {
                JobResult::Picked(..) | JobResult::NoSystemDialog(_) => self.dialog_open = false,
                JobResult::Loaded(..) | JobResult::LoadedRun(..) => self.loading = None,
            }
        }
        results
    }
}

/// True for scenario files (`*.scenario.json`), which open as simulated peers.
pub fn is_scenario(path: &Path) -> bool {
    path.file_name().is_some_and(|n| {
        n.to_string_lossy()
            .to_ascii_lowercase()
            .ends_with(".scenario.json")
    })
}

/// True for what opens as a multiplayer run: a capture (`*.jsonl`, `scenetree-net-capture/1`)
/// or a multiplayer lesson (a `*.scenario.json` of `scenetree-net-scenario/1`).
pub fn is_multiplayer_file(path: &Path) -> bool {
    let capture = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
    capture || (is_scenario(path) && io::scenario::is_net_scenario_file(path))
}

/// Reads a capture (replaying it) or a multiplayer lesson as a run to show.
pub fn load_multiplayer(path: &Path) -> Result<Multiplayer, LoadError> {
    if is_scenario(path) {
        let scenario = io::scenario::read_net_scenario(path)?;
        let lesson = NetLesson::new(scenario).map_err(|e| LoadError::file(path, e.to_string()))?;
        return Ok(Multiplayer::from_lesson(lesson));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    let capture = Capture::parse(&text).map_err(|e| LoadError::file(path, e.to_string()))?;
    Ok(Multiplayer::from_capture(&capture, file_title(path)))
}

/// A file's name, for a title.
fn file_title(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A file that could not be opened, and what of it still can be.
pub struct NotOpened {
    /// Why the file cannot be opened as it is.
    pub error: LoadError,
    /// The readable start of a damaged main.crdt, for the user to open instead.
    pub salvage: Option<Box<Salvage>>,
}

impl From<LoadError> for NotOpened {
    fn from(error: LoadError) -> Self {
        NotOpened {
            error,
            salvage: None,
        }
    }
}

/// The messages of a damaged main.crdt before the damage, as an untitled document: the file
/// itself is never written by opening them (a save asks where), so its damaged bytes stay for
/// whoever can repair them.
pub struct Salvage {
    /// The scene of the readable messages, reporting itself unsaved.
    pub document: Document,
    /// The damaged file.
    pub file: PathBuf,
    /// Where the damage is and how many messages precede it.
    pub damage: io::Damage,
}

/// Reads, parses and derives a document, reporting progress (see [`load_or_salvage`]).
pub fn load_document(path: &Path, permille: &AtomicU32) -> Result<Document, LoadError> {
    load_or_salvage(path, permille).map_err(|not| not.error)
}

/// Reads, parses and derives a document, reporting progress: reading is the first half,
/// parsing and building the replica the next 40%, deriving the tree the rest. A damaged
/// main.crdt fails with the messages before the damage offered as a [`Salvage`].
pub fn load_or_salvage(path: &Path, permille: &AtomicU32) -> Result<Document, NotOpened> {
    use std::io::Read as _;
    if is_scenario(path) {
        // A lesson or a saved run: its peers become the document.
        let scenario = io::scenario::read_scenario(path)?;
        let mut doc = Document::default();
        doc.open_lesson(scenario)
            .map_err(|e| LoadError::file(path, e.message))?;
        permille.store(1000, Ordering::Relaxed);
        return Ok(doc);
    }
    // A folder or a file inside a Decentraland project opens the project's scene.
    let target = io::project::resolve_open(path)?;
    let path = target.scene_path();
    let format = SceneFormat::of_file_to_open(path)?;
    let mut file = std::fs::File::open(path)
        .map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    let metadata = file.metadata().ok();
    let stamp = metadata.as_ref().map(io::FileStamp::of_metadata);
    let total = metadata.map_or(0, |m| m.len()).max(1);
    let mut bytes = Vec::with_capacity(total as usize);
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let n = file
            .read(&mut chunk)
            .map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..n]);
        permille.store(
            (bytes.len() as u64 * 500 / total).min(500) as u32,
            Ordering::Relaxed,
        );
    }
    let mut opened = match io::open_scene_bytes(path, &bytes) {
        Ok(opened) => opened,
        Err(error) => {
            return Err(NotOpened {
                error,
                salvage: salvage(path, &bytes, &target),
            });
        }
    };
    let saves_as_project = matches!(target, OpenTarget::Project { .. });
    match target.project() {
        Some(project) if saves_as_project => io::project::attach_crdt_layout(project, &mut opened),
        Some(project) => opened.notes.extend(project.notes.iter().cloned()),
        None => {}
    }
    permille.store(900, Ordering::Relaxed);
    let mut doc = Document::new(
        opened.replica,
        Some(SceneFile {
            path: path.to_path_buf(),
            format,
        }),
    );
    doc.save_context = opened.context;
    doc.load_notes = opened.notes;
    doc.project = target.project().cloned();
    doc.saves_as_project = saves_as_project;
    // The stamp from before the read, with the bytes read: a change while reading shows as one.
    doc.disk_version = stamp.map(|stamp| io::FileVersion {
        stamp,
        content: Some(io::ContentHash::of_bytes(&bytes)),
    });
    permille.store(1000, Ordering::Relaxed);
    Ok(doc)
}

/// The readable start of the damaged scene file `path` (its `bytes`), as an untitled document
/// of the same project, if any: the models still draw, and saving asks where.
fn salvage(path: &Path, bytes: &[u8], target: &OpenTarget) -> Option<Box<Salvage>> {
    let salvaged = io::salvage_scene_bytes(path, bytes)?;
    let mut document = Document::recovered(salvaged.opened.replica, None);
    document.save_context = salvaged.opened.context;
    document.load_notes = salvaged.opened.notes;
    document.project = target.project().cloned();
    document.save_as_suggestion = Some(beside(path, "recovered"));
    Some(Box::new(Salvage {
        document,
        file: path.to_path_buf(),
        damage: salvaged.damage,
    }))
}

/// `path` with `-{tag}` after its stem: `main.crdt` → `main-recovered.crdt` in the same folder.
fn beside(path: &Path, tag: &str) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{tag}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{tag}"),
    };
    path.with_file_name(name)
}
