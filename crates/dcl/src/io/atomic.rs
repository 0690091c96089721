//! Atomic file replacement: the previous file survives any crash during a save.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: into a temporary file beside it, flushed to disk with
/// fsync, then renamed over the target (and the directory synced), so a reader sees either
/// the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    PreparedFile::write(path, bytes)?.commit()
}

/// A file's new contents written and synced beside it, not yet in its place: [`Self::commit`]
/// renames it over the target. Dropped uncommitted, the temporary file is removed and the
/// target is untouched. Saves of several files prepare them all first, so that a full disk or
/// a folder that refuses writes stops the save before any file is replaced.
#[derive(Debug)]
pub struct PreparedFile {
    path: PathBuf,
    dir: PathBuf,
    temp: Option<PathBuf>,
}

impl PreparedFile {
    /// Writes `bytes` into a temporary file beside `path` and syncs it to disk.
    pub fn write(path: &Path, bytes: &[u8]) -> io::Result<PreparedFile> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a file path", path.display()),
            )
        })?;
        let temp = dir.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let prepared = PreparedFile {
            path: path.to_path_buf(),
            dir,
            temp: Some(temp.clone()),
        };
        // From here on, an early return drops `prepared`, which removes the temporary.
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        Ok(prepared)
    }

    /// The file this will replace.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the temporary file over the target and syncs the folder.
    pub fn commit(mut self) -> io::Result<()> {
        let temp = self.temp.take().expect("a prepared file commits once");
        if let Err(e) = fs::rename(&temp, &self.path) {
            fs::remove_file(&temp).ok();
            return Err(e);
        }
        // Persist the rename itself (best effort: not every platform can open a directory).
        if let Ok(d) = File::open(&self.dir) {
            d.sync_all().ok();
        }
        Ok(())
    }
}

impl Drop for PreparedFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            fs::remove_file(temp).ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scene.json");
        fs::write(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_prepared_file_dropped_uncommitted_leaves_the_target_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("main.crdt");
        fs::write(&path, b"old").unwrap();
        let prepared = PreparedFile::write(&path, b"new").unwrap();
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            2,
            "the temporary is there"
        );
        drop(prepared);
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scene.json");
        fs::write(&path, b"old").unwrap();
        // Renaming a file over a directory fails after the temporary was written.
        let blocked = dir.path().join("blocked");
        fs::create_dir(blocked.join("sub"))
            .unwrap_or_else(|_| fs::create_dir_all(blocked.join("sub")).unwrap());
        assert!(write_atomic(&blocked, b"x").is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert!(
            fs::read_dir(dir.path()).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".tmp"))
        );
    }
}

/// What a file looked like on disk: its length and modification time. Two stamps of one path
/// differ when something rewrote the file in between, which is how an editor notices that
/// another program (the Decentraland Inspector autosaving the same main.composite, a text
/// editor, `git checkout`) changed the file it is about to save over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileStamp {
    /// The stamp of a file already opened or inspected.
    pub fn of_metadata(metadata: &fs::Metadata) -> FileStamp {
        FileStamp {
            len: metadata.len(),
            modified: metadata.modified().ok(),
        }
    }

    /// The stamp of the file at `path`; `None` when there is none (missing, unreadable).
    pub fn of(path: &Path) -> Option<FileStamp> {
        fs::metadata(path).ok().map(|m| FileStamp::of_metadata(&m))
    }
}
