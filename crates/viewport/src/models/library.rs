//! The asset library: one background load per distinct file, shared by every entity that
//! names it, on a few worker threads, with the results polled by the UI thread each frame.
//! A file changed on disk since it was read (a model exported again from Blender) is read
//! again when asked ([`AssetLibrary::reload_changed`]); the old one is drawn meanwhile.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap as HashMap;

use super::load::{
    AssetLoadError, LoadedModel, LoadedTexture, is_model_path, load_model, load_texture,
    model_dependencies,
};
use scenetree_dcl::io::FileStamp;
use scenetree_dcl::io::project::{AssetPathError, Project};

/// Names one file of the library (stable while the library lives).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AssetId(pub u32);

/// A loaded file.
#[derive(Clone, Debug)]
pub enum Loaded {
    /// A glTF model.
    Model(Arc<LoadedModel>),
    /// A texture image.
    Texture(Arc<LoadedTexture>),
}

/// Where one file is.
#[derive(Clone, Debug)]
pub enum AssetStatus {
    /// Waiting for or being read by a worker.
    Loading,
    /// Ready.
    Ready(Loaded),
    /// Could not be loaded, and why.
    Failed(AssetLoadError),
}

/// How far loading has come, for the status bar.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadProgress {
    /// Files asked for.
    pub total: usize,
    /// Files loaded.
    pub ready: usize,
    /// Files that failed.
    pub failed: usize,
    /// Paths the scene names that are not files of the project (missing, or outside it);
    /// URLs, which scenetree does not download, are not counted.
    pub missing: usize,
}

impl LoadProgress {
    /// Files still loading.
    pub fn pending(&self) -> usize {
        self.total - self.ready - self.failed
    }
}

struct Entry {
    path: PathBuf,
    status: AssetStatus,
    /// Asked for since the project last changed (what the progress counts: loaded files stay
    /// cached across projects).
    asked: bool,
    /// How the file looked when it was last read (`None`: unknown, or not there).
    stamp: Option<FileStamp>,
    /// The other files a model was read from (a .gltf's buffers and images), and how each
    /// looked then: a change to any of them reads the model again.
    dependencies: Vec<(PathBuf, Option<FileStamp>)>,
    /// Being read again because it changed; `status` holds the last result meanwhile.
    reloading: bool,
}

type Job = (AssetId, PathBuf);
/// A finished load.
struct Done {
    id: AssetId,
    result: Result<Loaded, AssetLoadError>,
    /// How the file looked just before it was read.
    stamp: Option<FileStamp>,
    /// The files a model names, and how each looked just after the model was read (they are
    /// known only then: a change to one during the read is seen at its next change).
    dependencies: Vec<(PathBuf, Option<FileStamp>)>,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    shutdown: bool,
}

/// Loads models and textures on worker threads, once per distinct path, and keeps them.
pub struct AssetLibrary {
    project: Option<Project>,
    /// What each component `src` resolved to, per project (resolving touches the disk).
    resolved: HashMap<String, Result<AssetId, AssetPathError>>,
    entries: Vec<Entry>,
    by_path: HashMap<PathBuf, AssetId>,
    queue: Arc<(Mutex<Queue>, Condvar)>,
    done_tx: Sender<Done>,
    done_rx: Receiver<Done>,
    workers: Vec<std::thread::JoinHandle<()>>,
    worker_count: usize,
    repaint: Option<egui::Context>,
    generation: u64,
}

impl Default for AssetLibrary {
    fn default() -> Self {
        Self::new()
    }
}

impl AssetLibrary {
    /// An empty library; its workers start with the first request. It uses one worker per
    /// core, leaving one core to the UI when there are more than two.
    pub fn new() -> AssetLibrary {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let (done_tx, done_rx) = channel();
        AssetLibrary {
            project: None,
            resolved: HashMap::default(),
            entries: Vec::new(),
            by_path: HashMap::default(),
            queue: Arc::default(),
            done_tx,
            done_rx,
            workers: Vec::new(),
            worker_count: if cores > 2 { cores - 1 } else { cores }.clamp(1, 8),
            repaint: None,
            generation: 0,
        }
    }

    /// Lets finished loads wake the UI.
    pub fn set_repaint_context(&mut self, ctx: &egui::Context) {
        self.repaint = Some(ctx.clone());
    }

    /// The project whose folder component paths are relative to (`None`: paths cannot be
    /// resolved). Loaded files stay cached across projects.
    pub fn set_project(&mut self, project: Option<Project>) {
        if self.project != project {
            self.project = project;
            self.resolved.clear();
            for entry in &mut self.entries {
                entry.asked = false;
            }
            self.generation += 1;
        }
    }

    /// A new document is shown: what the last one asked for is forgotten, so the counts of
    /// [`Self::progress`] are the new scene's alone (a scene without models shows none, even
    /// in the same project or with none), while loaded files stay cached. `project` is the new
    /// document's.
    pub fn start_document(&mut self, project: Option<Project>) {
        self.project = project;
        self.resolved.clear();
        for entry in &mut self.entries {
            entry.asked = false;
        }
        self.generation += 1;
    }

    /// The project paths resolve against.
    pub fn project(&self) -> Option<&Project> {
        self.project.as_ref()
    }

    /// Changes whenever a status or the project changes (for rebuilding what depends on them).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The asset a component's `src` names, starting its load the first time; `Err` when the
    /// path does not name a file of the project.
    pub fn request_src(&mut self, src: &str) -> Result<AssetId, AssetPathError> {
        if let Some(known) = self.resolved.get(src) {
            return known.clone();
        }
        let result = match &self.project {
            None => Err(AssetPathError::NoProject(src.to_string())),
            Some(project) => project
                .resolve_asset(src)
                .map(|path| self.request_path(&path)),
        };
        if result.is_err() {
            // A problem [`Self::progress`] now counts (a load bumps the generation itself):
            // what shows problems (the hierarchy's badges) must look again.
            self.generation += 1;
        }
        self.resolved.insert(src.to_string(), result.clone());
        result
    }

    /// The asset for a file path, starting its load the first time.
    pub fn request_path(&mut self, path: &Path) -> AssetId {
        if let Some(&id) = self.by_path.get(path) {
            self.entries[id.0 as usize].asked = true;
            return id;
        }
        let id = AssetId(self.entries.len() as u32);
        self.entries.push(Entry {
            path: path.to_path_buf(),
            status: AssetStatus::Loading,
            asked: true,
            stamp: None,
            dependencies: Vec::new(),
            reloading: false,
        });
        self.by_path.insert(path.to_path_buf(), id);
        self.enqueue(id, path);
        self.generation += 1;
        id
    }

    /// Reads again every file that changed on disk since it was read (length or modification
    /// time), keeping the last result on show until the new one is in, and looks again for
    /// the files that were missing. Returns how many files are read again.
    /// One `stat` per file: the app calls it when the window gets the focus back, as Godot
    /// and JetBrains editors look for changed files.
    pub fn reload_changed(&mut self) -> usize {
        // Paths that named no file are looked up again: the file may have been added since.
        let before = self.resolved.len();
        (self.resolved).retain(|_, r| !matches!(r, Err(AssetPathError::Missing { .. })));
        if self.resolved.len() != before {
            self.generation += 1;
        }
        let changed: Vec<AssetId> = (self.entries.iter().enumerate())
            .filter(|(_, e)| !matches!(e.status, AssetStatus::Loading) && !e.reloading)
            .filter(|(_, e)| {
                FileStamp::of(&e.path) != e.stamp
                    || (e.dependencies.iter()).any(|(file, stamp)| FileStamp::of(file) != *stamp)
            })
            .map(|(i, _)| AssetId(i as u32))
            .collect();
        for &id in &changed {
            let entry = &mut self.entries[id.0 as usize];
            entry.reloading = true;
            let path = entry.path.clone();
            self.enqueue(id, &path);
        }
        changed.len()
    }

    /// True while a changed file is being read again.
    pub fn is_reloading(&self) -> bool {
        self.entries.iter().any(|e| e.reloading)
    }

    /// Hands a file to the workers.
    fn enqueue(&mut self, id: AssetId, path: &Path) {
        self.start_workers();
        let (lock, ready) = &*self.queue;
        lock.lock()
            .expect("the queue lock is never poisoned: workers do not panic holding it")
            .jobs
            .push_back((id, path.to_path_buf()));
        ready.notify_one();
    }

    /// Records a finished load.
    fn finished(
        &mut self,
        Done {
            id,
            result,
            stamp,
            dependencies,
        }: Done,
    ) {
        let entry = &mut self.entries[id.0 as usize];
        entry.status = match result {
            Ok(loaded) => AssetStatus::Ready(loaded),
            Err(why) => AssetStatus::Failed(why),
        };
        entry.stamp = stamp;
        entry.dependencies = dependencies;
        entry.reloading = false;
        self.generation += 1;
    }

    /// The status of an asset.
    pub fn status(&self, id: AssetId) -> &AssetStatus {
        &self.entries[id.0 as usize].status
    }

    /// The file of an asset.
    pub fn path(&self, id: AssetId) -> &Path {
        &self.entries[id.0 as usize].path
    }

    /// The model, once loaded.
    pub fn model(&self, id: AssetId) -> Option<&Arc<LoadedModel>> {
        match self.status(id) {
            AssetStatus::Ready(Loaded::Model(m)) => Some(m),
            _ => None,
        }
    }

    /// The texture, once loaded.
    pub fn texture(&self, id: AssetId) -> Option<&Arc<LoadedTexture>> {
        match self.status(id) {
            AssetStatus::Ready(Loaded::Texture(t)) => Some(t),
            _ => None,
        }
    }

    /// Whether a component's `src`, already asked for, is one of the problems
    /// [`Self::progress`] counts: not a file of the project, or a file that failed to load.
    /// URLs are not problems (scenetree does not download them).
    pub fn src_has_problem(&self, src: &str) -> bool {
        match self.resolved.get(src) {
            Some(Err(error)) => is_counted_missing(error),
            Some(Ok(id)) => matches!(self.status(*id), AssetStatus::Failed(_)),
            None => false,
        }
    }

    /// Counts over the files the current project asked for.
    pub fn progress(&self) -> LoadProgress {
        let missing = (self.resolved.values())
            .filter(|r| r.as_ref().is_err_and(is_counted_missing))
            .count();
        let mut p = LoadProgress {
            missing,
            ..Default::default()
        };
        for e in self.entries.iter().filter(|e| e.asked) {
            p.total += 1;
            match e.status {
                AssetStatus::Loading => {}
                AssetStatus::Ready(_) => p.ready += 1,
                AssetStatus::Failed(_) => p.failed += 1,
            }
        }
        p
    }

    /// Takes the loads that finished since the last call; true when any status changed.
    pub fn poll(&mut self) -> bool {
        let mut changed = false;
        while let Ok(done) = self.done_rx.try_recv() {
            self.finished(done);
            changed = true;
        }
        changed
    }

    /// Polls until nothing is loading (or being read again) or `timeout` passes; true when
    /// everything finished. For the screenshot mode and tests, which want the finished scene.
    pub fn wait_until_loaded(&mut self, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        loop {
            self.poll();
            if self.progress().pending() == 0 && !self.is_reloading() {
                return true;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            if let Ok(done) = self.done_rx.recv_timeout(left) {
                self.finished(done);
            }
        }
    }

    fn start_workers(&mut self) {
        if !self.workers.is_empty() {
            return;
        }
        for n in 0..self.worker_count {
            let queue = self.queue.clone();
            let done = self.done_tx.clone();
            let repaint = self.repaint.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("scenetree-assets-{n}"))
                .spawn(move || worker(&queue, &done, repaint.as_ref()));
            match spawned {
                Ok(handle) => self.workers.push(handle),
                // Without threads nothing would ever load: fail the requests instead.
                Err(e) if self.workers.is_empty() => {
                    let mut q = self.queue.0.lock().expect("queue lock");
                    for (id, _) in q.jobs.drain(..) {
                        let why = format!("cannot start a loader thread: {e}");
                        let failed = Done {
                            id,
                            result: Err(AssetLoadError::Unreadable(why)),
                            stamp: None,
                            dependencies: Vec::new(),
                        };
                        self.done_tx.send(failed).ok();
                    }
                    return;
                }
                Err(_) => break,
            }
        }
    }
}

fn worker(queue: &(Mutex<Queue>, Condvar), done: &Sender<Done>, repaint: Option<&egui::Context>) {
    let (lock, ready) = queue;
    loop {
        let job = {
            let mut q = lock.lock().expect("queue lock");
            loop {
                if q.shutdown {
                    return;
                }
                if let Some(job) = q.jobs.pop_front() {
                    break job;
                }
                q = ready.wait(q).expect("queue lock");
            }
        };
        let (id, path) = job;
        // Before reading: a change made while reading is then seen by the next check.
        let stamp = FileStamp::of(&path);
        let result = if is_model_path(&path) {
            load_model(&path).map(|m| Loaded::Model(Arc::new(m)))
        } else {
            load_texture(&path).map(|t| Loaded::Texture(Arc::new(t)))
        };
        let files = match &result {
            Ok(Loaded::Model(model)) => model.dependencies.clone(),
            Err(_) if is_model_path(&path) => model_dependencies(&path),
            _ => Vec::new(),
        };
        let dependencies = files
            .into_iter()
            .map(|file| {
                let stamp = FileStamp::of(&file);
                (file, stamp)
            })
            .collect();
        let finished = Done {
            id,
            result,
            stamp,
            dependencies,
        };
        if done.send(finished).is_err() {
            return; // the library is gone
        }
        if let Some(ctx) = repaint {
            ctx.request_repaint();
        }
    }
}

impl Drop for AssetLibrary {
    fn drop(&mut self) {
        let (lock, ready) = &*self.queue;
        if let Ok(mut q) = lock.lock() {
            q.shutdown = true;
            q.jobs.clear();
        }
        ready.notify_all();
        // Workers finish the file in hand and exit; not joined, so closing never waits on
        // a large model.
    }
}

/// A `src` that names no file of the project (a URL is not counted: it is not downloaded).
fn is_counted_missing(error: &AssetPathError) -> bool {
    matches!(
        error,
        AssetPathError::Missing { .. }
            | AssetPathError::OutsideProject(_)
            | AssetPathError::NoProject(_)
    )
}
