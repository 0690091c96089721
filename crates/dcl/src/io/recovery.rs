//! Crash recovery. Every running editor keeps its unsaved work in a folder of its own under the
//! recovery root, beside a lock file that it holds locked (an OS file lock) for as long as it
//! runs and that names its process id. At start, an editor offers back the work in folders
//! whose lock nobody holds: the editor that wrote it ended without cleaning up (a crash). The
//! work of an editor that is still running is never offered, and never deleted.
//!
//! In a folder, the autosave is named after the document it belongs to (its path, or
//! "untitled"), with a small JSON file beside it that says which document and when.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{ContentHash, FileStamp, FileVersion, LoadError, native, write_atomic};
use scenetree_core::crdt::Replica;

const LOCK: &str = "lock";
const SCENE_SUFFIX: &str = ".autosave.json";
const META_SUFFIX: &str = ".autosave.meta.json";
/// An unlocked folder with no work in it is left by an editor that crashed before its first
/// autosave; it is removed once it is this old (a younger one may belong to an editor that is
/// starting and has not taken its lock yet).
const STALE_EMPTY_FOLDER: Duration = Duration::from_secs(3600);

/// What a recovery folder says about the work in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryInfo {
    /// The file the work belonged to, if it had one.
    pub original: Option<PathBuf>,
    /// When it was written (seconds since the Unix epoch).
    pub saved_at_unix: u64,
    /// How `original` looked on disk when the editor last read or saved it: a save of the
    /// recovered work asks first if another program changed the file since. Absent in work
    /// older editors left.
    #[serde(default)]
    pub original_stamp: Option<FileStamp>,
    /// A hash of `original`'s bytes then, so that a copy of the same bytes over it is not taken
    /// for a change. Absent in work older editors left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_content: Option<ContentHash>,
    /// The root of the Decentraland project an untitled document belonged to (the bundled
    /// example, a damaged file's readable part), so that its models draw again once the work
    /// is recovered. Absent in work older editors left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<PathBuf>,
}

impl RecoveryInfo {
    /// How `original` looked when the editor last read or saved it.
    pub fn original_version(&self) -> Option<FileVersion> {
        self.original_stamp.map(|stamp| FileVersion {
            stamp,
            content: self.original_content,
        })
    }
}

/// Where a document's unsaved work comes from, recorded beside it for the next start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkOrigin {
    /// The file the work belongs to, if it has one.
    pub file: Option<PathBuf>,
    /// How `file` looked on disk when the editor last read or saved it.
    pub version: Option<FileVersion>,
    /// The root of the Decentraland project the document belongs to, if any.
    pub project: Option<PathBuf>,
}

/// This editor's recovery folder, locked while the editor runs. Dropping it (as a crash does)
/// releases the lock and leaves the work for the next start; [`Self::end`] removes it.
#[derive(Debug)]
pub struct RecoverySession {
    dir: PathBuf,
    /// Held locked for the session's lifetime; the OS releases it if the process dies.
    _lock: File,
}

impl RecoverySession {
    /// Creates and locks a folder for this editor under `root`.
    pub fn start(root: &Path) -> std::io::Result<Self> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = root.join(format!("{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let mut lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK))?;
        // Blocking: another editor looking for orphaned work may hold it for a moment.
        lock.lock()?;
        lock.set_len(0)?;
        writeln!(lock, "pid {}", std::process::id())?;
        Ok(RecoverySession { dir, _lock: lock })
    }

    /// The folder this editor writes to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the current state of `original` (or of an untitled document) for recovery,
    /// atomically, replacing the work of any other document this editor kept before.
    pub fn write(&self, replica: &Replica, origin: &WorkOrigin) -> std::io::Result<()> {
        // The next start may run in another folder: a relative path would name another file.
        let original = origin.file.as_deref().map(super::whole_path);
        let original = original.as_deref();
        let key = document_key(original);
        write_atomic(
            &self.dir.join(format!("{key}{SCENE_SUFFIX}")),
            native::to_native_json(replica).as_bytes(),
        )?;
        let info = RecoveryInfo {
            original: original.map(Path::to_path_buf),
            saved_at_unix: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            original_stamp: origin.version.map(|v| v.stamp),
            original_content: origin.version.and_then(|v| v.content),
            project: origin.project.as_deref().map(super::whole_path),
        };
        let meta = serde_json::to_vec_pretty(&info).map_err(std::io::Error::other)?;
        write_atomic(&self.dir.join(format!("{key}{META_SUFFIX}")), &meta)?;
        for (other, _) in autosaves(&self.dir) {
            if other != key {
                remove_autosave(&self.dir, &other);
            }
        }
        Ok(())
    }

    /// Forgets this editor's unsaved work (it was saved, or the user chose not to keep it).
    pub fn clear(&self) {
        for (key, _) in autosaves(&self.dir) {
            remove_autosave(&self.dir, &key);
        }
    }

    /// Ends the session cleanly: the folder and everything in it go.
    pub fn end(self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

/// Work left by an editor that is no longer running. Its folder stays locked by this editor
/// while the offer stands, so no other editor offers (or deletes) it too.
#[derive(Debug)]
pub struct OrphanedWork {
    /// Which document and when.
    pub info: RecoveryInfo,
    dir: PathBuf,
    scene: PathBuf,
    _lock: File,
}

impl OrphanedWork {
    /// The file the work belongs to, if its whole path is known. Work that older editors left
    /// may name a file relative to a folder nobody recorded: that work is offered as untitled
    /// (see [`Self::unplaced_name`]), so a save never writes to a same-named file elsewhere.
    pub fn original(&self) -> Option<&Path> {
        self.info.original.as_deref().filter(|p| p.is_absolute())
    }

    /// The name of the file the work belonged to when its folder is unknown (see
    /// [`Self::original`]).
    pub fn unplaced_name(&self) -> Option<&Path> {
        self.info.original.as_deref().filter(|p| !p.is_absolute())
    }

    /// Reads the work back.
    pub fn read(&self) -> Result<Replica, LoadError> {
        native::read_native(&self.scene)
    }

    /// Deletes it (recovered into a running editor, or declined).
    pub fn discard(self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

/// The work under `root` whose editors are no longer running, newest first. Folders of running
/// editors are skipped; old empty ones are removed.
pub fn find_orphaned_work(root: &Path) -> Vec<OrphanedWork> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for dir in entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        let Ok(lock) = OpenOptions::new().write(true).open(dir.join(LOCK)) else {
            continue; // not a session folder (or one being created)
        };
        if lock.try_lock().is_err() {
            continue; // its editor is running
        }
        let mut works: Vec<(String, RecoveryInfo)> = autosaves(&dir);
        if works.is_empty() {
            let age = lock
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok());
            if age.is_some_and(|age| age > STALE_EMPTY_FOLDER) {
                std::fs::remove_dir_all(&dir).ok();
            }
            continue;
        }
        // One editor keeps one document's work; should there be more, offer the newest.
        works.sort_by_key(|(_, info)| std::cmp::Reverse(info.saved_at_unix));
        let (key, info) = works.swap_remove(0);
        found.push(OrphanedWork {
            info,
            scene: dir.join(format!("{key}{SCENE_SUFFIX}")),
            dir,
            _lock: lock,
        });
    }
    found.sort_by_key(|w| std::cmp::Reverse(w.info.saved_at_unix));
    found
}

/// The autosaves in a session folder: (document key, what its meta file says). A scene without
/// a readable meta file is skipped.
fn autosaves(dir: &Path) -> Vec<(String, RecoveryInfo)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let key = name.strip_suffix(META_SUFFIX)?.to_string();
            if !dir.join(format!("{key}{SCENE_SUFFIX}")).exists() {
                return None;
            }
            let info = serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok()?;
            Some((key, info))
        })
        .collect()
}

fn remove_autosave(dir: &Path, key: &str) {
    std::fs::remove_file(dir.join(format!("{key}{SCENE_SUFFIX}"))).ok();
    std::fs::remove_file(dir.join(format!("{key}{META_SUFFIX}"))).ok();
}

/// A file-name-safe key per document: its name and a hash of its whole path ("untitled").
fn document_key(original: Option<&Path>) -> String {
    match original {
        None => "untitled".into(),
        Some(path) => {
            let stem: String = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .take(40)
                .collect();
            let hash = xxhash_rust::xxh3::xxh3_64(path.as_os_str().as_encoded_bytes());
            format!("{stem}-{hash:016x}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::model::{Entity, encode_name, ids};

    fn on_file(path: &str) -> WorkOrigin {
        WorkOrigin {
            file: Some(PathBuf::from(path)),
            ..WorkOrigin::default()
        }
    }

    fn unsaved() -> Replica {
        let mut r = Replica::new();
        r.put(Entity(512), ids::NAME, encode_name("Unsaved"))
            .unwrap();
        r
    }

    #[test]
    fn a_running_editors_work_is_not_offered_and_a_crashed_ones_is() {
        let root = tempfile::tempdir().unwrap();
        let running = RecoverySession::start(root.path()).unwrap();
        running
            .write(&unsaved(), &on_file("/scenes/room.json"))
            .unwrap();
        assert!(
            find_orphaned_work(root.path()).is_empty(),
            "its editor holds the lock"
        );
        drop(running); // the editor crashed: the OS released its lock
        let found = find_orphaned_work(root.path());
        assert_eq!(found.len(), 1);
        let work = found.into_iter().next().unwrap();
        assert_eq!(
            work.info.original.as_deref(),
            Some(Path::new("/scenes/room.json"))
        );
        assert!(work.info.saved_at_unix > 0);
        assert_eq!(work.read().unwrap().digest(), unsaved().digest());
        assert!(
            find_orphaned_work(root.path()).is_empty(),
            "an offer in progress is not made twice"
        );
        work.discard();
        assert!(find_orphaned_work(root.path()).is_empty());
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_files_version_then_comes_back_with_the_work() {
        let root = tempfile::tempdir().unwrap();
        let scene = root.path().join("room.json");
        std::fs::write(&scene, "{}").unwrap();
        let version = FileVersion::of_bytes(&scene, b"{}");
        assert!(version.is_some_and(|v| v.content.is_some()));
        let session = RecoverySession::start(&root.path().join("recovery")).unwrap();
        let origin = WorkOrigin {
            version,
            ..on_file(scene.to_str().unwrap())
        };
        session.write(&unsaved(), &origin).unwrap();
        drop(session);
        let found = find_orphaned_work(&root.path().join("recovery"));
        assert_eq!(found[0].info.original_version(), version);
    }

    #[test]
    fn work_on_a_file_named_relatively_records_its_whole_path() {
        let root = tempfile::tempdir().unwrap();
        let session = RecoverySession::start(root.path()).unwrap();
        session
            .write(&unsaved(), &on_file("scenes/room.json"))
            .unwrap();
        drop(session);
        let work = find_orphaned_work(root.path()).pop().unwrap();
        let recorded = work.info.original.clone().unwrap();
        let here = std::env::current_dir().unwrap();
        assert_eq!(recorded, here.join("scenes/room.json"));
        assert_eq!(work.original(), Some(recorded.as_path()));
        assert_eq!(work.unplaced_name(), None);
        work.discard();
    }

    #[test]
    fn work_an_older_editor_left_under_a_relative_path_belongs_to_no_file() {
        let root = tempfile::tempdir().unwrap();
        let session = RecoverySession::start(root.path()).unwrap();
        session.write(&unsaved(), &WorkOrigin::default()).unwrap();
        let key = document_key(Some(Path::new("large.json")));
        std::fs::rename(
            session.dir().join(format!("untitled{SCENE_SUFFIX}")),
            session.dir().join(format!("{key}{SCENE_SUFFIX}")),
        )
        .unwrap();
        std::fs::remove_file(session.dir().join(format!("untitled{META_SUFFIX}"))).unwrap();
        let meta = r#"{"original": "large.json", "saved_at_unix": 1795776989}"#;
        std::fs::write(session.dir().join(format!("{key}{META_SUFFIX}")), meta).unwrap();
        drop(session);
        let work = find_orphaned_work(root.path()).pop().unwrap();
        assert_eq!(work.original(), None, "the folder it was in is unknown");
        assert_eq!(work.unplaced_name(), Some(Path::new("large.json")));
        assert_eq!(work.read().unwrap().digest(), unsaved().digest());
        work.discard();
    }

    #[test]
    fn one_editor_keeps_one_documents_work_and_clear_or_end_forgets_it() {
        let root = tempfile::tempdir().unwrap();
        let session = RecoverySession::start(root.path()).unwrap();
        let lock = std::fs::read_to_string(session.dir().join(LOCK)).unwrap();
        assert_eq!(lock.trim(), format!("pid {}", std::process::id()));
        session.write(&unsaved(), &WorkOrigin::default()).unwrap();
        session
            .write(&unsaved(), &on_file("/scenes/a.json"))
            .unwrap();
        let kept = autosaves(session.dir());
        assert_eq!(kept.len(), 1, "the untitled work was replaced: {kept:?}");
        assert!(kept[0].0.starts_with("a_json-"), "{}", kept[0].0);
        session.clear();
        assert!(autosaves(session.dir()).is_empty());
        let dir = session.dir().to_path_buf();
        session.end();
        assert!(!dir.exists());
    }
}
