//! Noticing that another program changed the document's file (the Decentraland Inspector
//! autosaving the same main.composite, a text editor, `git checkout`), and Reload from Disk.
//!
//! The editor does not reload by itself: a save of the Inspector's older state over the file
//! would then silently replace the scene on screen too, with no undo to bring it back. It shows
//! a bar instead ("changed on disk: Reload / Keep this version"); Reload with unsaved changes
//! asks first, and a save over the changed file asks as well (`saving.rs`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread::Thread;
use std::time::Duration;

use super::{Pending, ScenetreeApp};
use crate::ui::action::Severity;
use scenetree_dcl::io::{FileLook, FileStamp, FileVersion};

/// How often the watcher looks at the file, unless told otherwise
/// ([`ScenetreeApp::set_disk_watch_interval`]).
const POLL: Duration = Duration::from_secs(1);

/// Looks at one file's length and modification time once a second on its own thread and
/// wakes the window when they change; the window also looks when it gets the focus back.
///
/// Polling one file is one `stat` a second. A notification crate (notify) would have to watch
/// the whole folder to survive the atomic renames that editors, scenetree included, save with,
/// and would wake on every file written beside it.
pub(super) struct DiskWatch {
    shared: Arc<Shared>,
    /// The watching thread, woken when the interval changes (`None`: the system gave none).
    thread: Option<Thread>,
}

struct Shared {
    /// The file to watch and how the document last saw it (`None`: nothing to watch).
    watched: Mutex<Option<(PathBuf, FileStamp)>>,
    /// Set by the thread when the file no longer looks as the document saw it; taken by the
    /// window.
    changed: AtomicBool,
    /// How long the thread waits between two looks.
    interval: Mutex<Duration>,
    /// How many times the thread has looked at a watched file (tests wait on it).
    looks: AtomicU64,
}

impl DiskWatch {
    /// Starts the watching thread; `wake` asks the window for a frame. The thread ends within
    /// an interval of the watch being dropped. Without a thread (the system refused one) only
    /// focus changes are noticed.
    pub(super) fn start(wake: impl Fn() + Send + 'static) -> DiskWatch {
        let shared = Arc::new(Shared {
            watched: Mutex::new(None),
            changed: AtomicBool::new(false),
            interval: Mutex::new(POLL),
            looks: AtomicU64::new(0),
        });
        let weak = Arc::downgrade(&shared);
        let spawned = std::thread::Builder::new()
            .name("disk-watch".into())
            .spawn(move || watch_loop(&weak, &wake));
        // Detached: it ends on its own once `shared` is gone.
        let thread = spawned.ok().map(|handle| handle.thread().clone());
        DiskWatch { shared, thread }
    }

    /// Looks every `every` from now on (the next look comes at once).
    pub(super) fn set_interval(&self, every: Duration) {
        *lock(&self.shared.interval) = every;
        if let Some(thread) = &self.thread {
            thread.unpark();
        }
    }

    /// How many times the thread has looked at a watched file.
    pub(super) fn looks(&self) -> u64 {
        self.shared.looks.load(Ordering::Acquire)
    }

    /// Watches `path`, which the document read or last saved when it looked like `known`
    /// (`None`: nothing to watch).
    pub(super) fn watch(&self, watched: Option<(&Path, FileStamp)>) {
        let mut current = lock(&self.shared.watched);
        let same = match (&*current, watched) {
            (Some((path, stamp)), Some((new_path, new_stamp))) => {
                path == new_path && *stamp == new_stamp
            }
            (None, None) => true,
            _ => false,
        };
        if !same {
            *current = watched.map(|(p, s)| (p.to_path_buf(), s));
        }
    }

    /// True once after the thread saw the watched file change.
    pub(super) fn take_changed(&self) -> bool {
        self.shared.changed.swap(false, Ordering::AcqRel)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The value is always whole: a panic elsewhere while holding the lock leaves it usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Once an interval: when the file no longer looks as the document saw it, wakes the window,
/// once per new look (not every second while the user decides).
fn watch_loop(shared: &Weak<Shared>, wake: &dyn Fn()) {
    // The watched file, what the document knows of it, and what the thread last saw: the
    // window is woken when the file looks different from what the document knows and that
    // look was not reported yet for this document's knowledge (a recovered document knows an
    // older look than the thread saw before it).
    let mut reported: Option<(PathBuf, FileStamp, Option<FileStamp>)> = None;
    loop {
        let Some(interval) = shared.upgrade().map(|s| *lock(&s.interval)) else {
            return;
        };
        // Woken early by a new interval (or spuriously): one more look, no harm.
        std::thread::park_timeout(interval);
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let Some((path, known)) = lock(&shared.watched).clone() else {
            continue;
        };
        let now = FileStamp::of(&path);
        let seen = Some((path, known, now));
        if now != Some(known) && reported != seen {
            shared.changed.store(true, Ordering::Release);
            wake();
        }
        reported = seen;
        shared.looks.fetch_add(1, Ordering::AcqRel);
    }
}

/// What the bar under the menu says about the document's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum DiskNotice {
    /// Another program rewrote the file; it now looks like this.
    Changed(PathBuf, FileStamp),
    /// The file is gone (deleted, moved, or its folder renamed).
    Gone(PathBuf),
}

/// The version of the document's file the user chose to keep the open scene over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeptOver {
    /// Another program's version, as it looked then: *Keep this version*.
    Changed(FileStamp),
    /// The file being gone: *Dismiss*.
    Gone,
}

/// What the app knows about the document's file on disk: the watcher, the bar it shows, the
/// version the user chose to ignore, and a Reload from Disk in progress.
pub(super) struct DiskState {
    watch: DiskWatch,
    /// The bar saying the document's file changed on disk or is gone.
    pub(super) notice: Option<DiskNotice>,
    kept_over: Option<KeptOver>,
    /// The file or project being read again by Reload from Disk.
    pub(super) reloading: Option<PathBuf>,
}

impl DiskState {
    /// Starts the watcher; `wake` wakes the window when the file changes.
    pub(super) fn start(wake: impl Fn() + Send + 'static) -> Self {
        DiskState {
            watch: DiskWatch::start(wake),
            notice: None,
            kept_over: None,
            reloading: None,
        }
    }

    /// The document's file was saved, read again or replaced: nothing to tell about it.
    pub(super) fn forget(&mut self) {
        self.notice = None;
        self.kept_over = None;
    }

    /// Compares the document's file (`path`, as the document last read or saved it:
    /// `known`) with the disk when the watcher saw a change or `look_now` says so, and sets
    /// the bar; not while `busy` loading a document (which replaces what the bar would be
    /// about) or saving it (which rewrites the file). Returns the file's version to remember
    /// when it was rewritten with the same bytes (not a change: no bar).
    fn check(
        &mut self,
        watched: Option<(&Path, FileVersion)>,
        look_now: bool,
        busy: bool,
    ) -> Option<FileVersion> {
        self.watch
            .watch(watched.map(|(path, known)| (path, known.stamp)));
        // `|` on purpose: the watcher's flag is taken in any case.
        if !(self.watch.take_changed() | look_now) || busy {
            return None;
        }
        let (path, known) = watched?;
        let (notice, same_bytes) = match known.look(path) {
            FileLook::Unchanged => (None, None),
            FileLook::SameContent(now) => (None, Some(now)),
            FileLook::Changed(now) if self.kept_over == Some(KeptOver::Changed(now)) => {
                (None, None)
            }
            FileLook::Changed(now) => (Some(DiskNotice::Changed(path.to_path_buf(), now)), None),
            FileLook::Gone if self.kept_over == Some(KeptOver::Gone) => (None, None),
            FileLook::Gone => (Some(DiskNotice::Gone(path.to_path_buf())), None),
        };
        self.notice = notice;
        same_bytes
    }
}

impl ScenetreeApp {
    /// How often the open file is looked at for other programs' changes (1 s); tests make it
    /// quick. The next look comes at once.
    pub fn set_disk_watch_interval(&mut self, every: Duration) {
        self.disk.watch.set_interval(every);
    }

    /// How many times the open file has been looked at for other programs' changes: tests wait
    /// for looks instead of the clock.
    pub fn disk_watch_looks(&self) -> u64 {
        self.disk.watch.looks()
    }

    /// Once a frame: when the watcher saw the document's file change, or the window got the
    /// focus back, compares the file with what the document read or last saved.
    pub(super) fn check_disk(&mut self, ctx: &egui::Context) {
        let doc = &self.bench.doc;
        let watched = (doc.file.as_ref().map(|f| f.path.as_path())).zip(doc.disk_version);
        let focused = crate::ui::command::window_got_focus(ctx);
        // Not while a load replaces the document, nor while a save rewrites its file.
        let busy = self.jobs.loading.is_some() || self.saving.job.is_some();
        if let Some(same_bytes) = self.disk.check(watched, focused, busy) {
            self.bench.doc.disk_version = Some(same_bytes);
        }
    }

    /// The bar under the menu while the document's file changed on disk or is gone.
    pub(super) fn disk_notice_ui(&mut self, ui: &mut egui::Ui) {
        let Some(notice) = self.disk.notice.clone() else {
            return;
        };
        let (DiskNotice::Changed(path, _) | DiskNotice::Gone(path)) = &notice;
        if (self.bench.doc.file.as_ref()).is_none_or(|f| f.path != *path) {
            self.disk.notice = None; // about a file the document no longer is
            return;
        }
        let warning = ui.visuals().warn_fg_color;
        egui::Panel::top("disk-notice").show(ui, |ui| {
            ui.horizontal_wrapped(|ui| match &notice {
                DiskNotice::Changed(path, now) => {
                    ui.colored_label(
                        warning,
                        format!(
                            "△ {} was changed on disk by another program.",
                            path.display()
                        ),
                    );
                    if ui
                        .button("Reload")
                        .on_hover_text(if self.bench.doc.is_modified() {
                            "Read the file again (asks first: your changes are not saved)"
                        } else {
                            "Read the file again"
                        })
                        .clicked()
                    {
                        self.request(Pending::Reload);
                    }
                    if ui
                        .button("Keep this version")
                        .on_hover_text("Hide this; a save over the file still asks first")
                        .clicked()
                    {
                        self.disk.kept_over = Some(KeptOver::Changed(*now));
                        self.disk.notice = None;
                    }
                }
                DiskNotice::Gone(path) => {
                    // Saving cannot make the folder again: then only Save As helps.
                    let folder_there = path.parent().is_some_and(Path::is_dir);
                    ui.colored_label(
                        warning,
                        format!(
                            "△ {} is no longer on disk (deleted or moved). {}",
                            path.display(),
                            if folder_there {
                                "Save writes it again."
                            } else {
                                "Its folder is gone too: use Save As… to keep the scene."
                            }
                        ),
                    );
                    if ui.button("Dismiss").clicked() {
                        self.disk.kept_over = Some(KeptOver::Gone);
                        self.disk.notice = None;
                    }
                }
            });
        });
    }

    /// What Reload from Disk reads: the project folder for a project's scene, else the file.
    pub(super) fn reload_target(&self) -> Option<PathBuf> {
        let doc = &self.bench.doc;
        match (&doc.project, &doc.file) {
            (Some(project), Some(_)) if doc.saves_as_project => Some(project.root.clone()),
            (_, Some(file)) => Some(file.path.clone()),
            _ => None,
        }
    }

    /// Reads the document's file again (the user agreed to drop unsaved changes, or had none).
    pub(super) fn reload(&mut self) {
        match self.reload_target() {
            Some(path) => {
                self.disk.reloading = Some(path.clone());
                self.jobs.load(path);
            }
            None => {
                self.bench.status = Some((
                    "Nothing to reload: the scene has not been saved to a file".into(),
                    Severity::Info,
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_tells_a_change_and_a_removal_and_stays_away_for_the_version_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scene.json");
        std::fs::write(&path, "one").unwrap();
        let known = FileVersion::of_bytes(&path, b"one").unwrap();
        let mut disk = DiskState::start(|| {});
        disk.check(Some((&path, known)), true, false);
        assert_eq!(disk.notice, None, "unchanged");

        std::fs::write(&path, "another program's").unwrap();
        let theirs = FileStamp::of(&path).unwrap();
        disk.check(Some((&path, known)), true, true);
        assert_eq!(disk.notice, None, "not while a document loads");
        disk.check(Some((&path, known)), true, false);
        assert_eq!(disk.notice, Some(DiskNotice::Changed(path.clone(), theirs)));

        // Keep this version: that version is not told again, a later one is.
        disk.kept_over = Some(KeptOver::Changed(theirs));
        disk.notice = None;
        disk.check(Some((&path, known)), true, false);
        assert_eq!(disk.notice, None);
        std::fs::remove_file(&path).unwrap();
        disk.check(Some((&path, known)), true, false);
        assert_eq!(disk.notice, Some(DiskNotice::Gone(path.clone())));

        disk.forget();
        assert_eq!((disk.notice.clone(), disk.kept_over), (None, None));
    }

    #[test]
    fn a_rewrite_with_the_same_bytes_shows_no_bar_and_its_stamp_is_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("main.composite");
        std::fs::write(&path, "the scene").unwrap();
        let known = FileVersion::of_bytes(&path, b"the scene").unwrap();
        let mut disk = DiskState::start(|| {});
        // Copied over with the same bytes (`cp`, `git checkout`): a new stamp, no change.
        let later = std::time::SystemTime::now() + Duration::from_secs(5);
        std::fs::write(&path, "the scene").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(later).unwrap();
        let remembered = disk.check(Some((&path, known)), true, false);
        assert_eq!(disk.notice, None);
        let remembered = remembered.expect("the new stamp, to remember");
        assert_ne!(remembered.stamp, known.stamp);
        assert_eq!(disk.check(Some((&path, remembered)), true, false), None);
        // Other bytes of the same length are a change.
        std::fs::write(&path, "the other").unwrap();
        assert_eq!(disk.check(Some((&path, remembered)), true, false), None);
        assert!(matches!(disk.notice, Some(DiskNotice::Changed(..))));
    }
}
