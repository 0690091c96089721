//! Noticing that another program changed the document's file (the Decentraland Inspector
//! autosaving the same main.composite, a text editor, `git checkout`), and Reload from Disk.
//!
//! The editor does not reload by itself: a save of the Inspector's older state over the file
//! would then silently replace the scene on screen too, with no undo to bring it back. It shows
//! a bar instead ("changed on disk: Reload / Keep this version"); Reload with unsaved changes
//! asks first, and a save over the changed file asks as well (`saving.rs`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use super::{Pending, ScenetreeApp};
use crate::ui::action::Severity;
use scenetree_dcl::io::FileStamp;

/// How often the watcher looks at the file.
const POLL: Duration = Duration::from_secs(1);

/// Looks at one file's length and modification time once a second on its own thread and
/// wakes the window when they change; the window also looks when it gets the focus back.
///
/// Polling one file is one `stat` a second. A notification crate (notify) would have to watch
/// the whole folder to survive the atomic renames that editors, scenetree included, save with,
/// and would wake on every file written beside it.
pub(super) struct DiskWatch {
    shared: Arc<Shared>,
}

struct Shared {
    /// The file to watch and how the document last saw it (`None`: nothing to watch).
    watched: Mutex<Option<(PathBuf, FileStamp)>>,
    /// Set by the thread when the file no longer looks as the document saw it; taken by the
    /// window.
    changed: AtomicBool,
}

impl DiskWatch {
    /// Starts the watching thread; `wake` asks the window for a frame. The thread ends within
    /// a second of the watch being dropped. Without a thread (the system refused one) only
    /// focus changes are noticed.
    pub(super) fn start(wake: impl Fn() + Send + 'static) -> DiskWatch {
        let shared = Arc::new(Shared {
            watched: Mutex::new(None),
            changed: AtomicBool::new(false),
        });
        let weak = Arc::downgrade(&shared);
        let spawned = std::thread::Builder::new()
            .name("disk-watch".into())
            .spawn(move || watch_loop(&weak, &wake));
        drop(spawned); // detached: it ends on its own once `shared` is gone
        DiskWatch { shared }
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

/// Once a second: when the file no longer looks as the document saw it, wakes the window,
/// once per new look (not every second while the user decides).
fn watch_loop(shared: &Weak<Shared>, wake: &dyn Fn()) {
    // The watched file, what the document knows of it, and what the thread last saw: the
    // window is woken when the file looks different from what the document knows and that
    // look was not reported yet for this document's knowledge (a recovered document knows an
    // older look than the thread saw before it).
    let mut reported: Option<(PathBuf, FileStamp, Option<FileStamp>)> = None;
    loop {
        std::thread::sleep(POLL);
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

impl ScenetreeApp {
    /// Once a frame: when the watcher saw the document's file change, or the window got the
    /// focus back, compares the file with what the document read or last saved.
    pub(super) fn check_disk(&mut self, ctx: &egui::Context) {
        let doc = &self.bench.doc;
        let watched = (doc.file.as_ref().map(|f| f.path.as_path())).zip(doc.disk_stamp);
        self.disk_watch.watch(watched);
        let focused = crate::ui::command::window_got_focus(ctx);
        // `|` on purpose: the watcher's flag is taken in any case.
        if !(self.disk_watch.take_changed() | focused) || self.jobs.loading.is_some() {
            return;
        }
        let Some((path, known)) = watched.map(|(p, k)| (p.to_path_buf(), k)) else {
            return;
        };
        let now = FileStamp::of(&path);
        self.disk_notice = match now {
            _ if now == Some(known) || self.disk_kept == Some(now) => None,
            Some(now) => Some(DiskNotice::Changed(path, now)),
            None => Some(DiskNotice::Gone(path)),
        };
    }

    /// The bar under the menu while the document's file changed on disk or is gone.
    pub(super) fn disk_notice_ui(&mut self, ui: &mut egui::Ui) {
        let Some(notice) = self.disk_notice.clone() else {
            return;
        };
        let (DiskNotice::Changed(path, _) | DiskNotice::Gone(path)) = &notice;
        if (self.bench.doc.file.as_ref()).is_none_or(|f| f.path != *path) {
            self.disk_notice = None; // about a file the document no longer is
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
                        self.disk_kept = Some(Some(*now));
                        self.disk_notice = None;
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
                        self.disk_kept = Some(None);
                        self.disk_notice = None;
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
                self.reloading = Some(path.clone());
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
