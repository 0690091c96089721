//! Atomic file replacement: the previous file survives any crash during a save.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: into a temporary file beside it, flushed to disk with
/// fsync, then renamed over the target (and the directory synced), so a reader sees either
/// the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
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
    let result = (|| {
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)?;
        // Persist the rename itself (best effort: not every platform can open a directory).
        if let Ok(d) = File::open(&dir) {
            d.sync_all().ok();
        }
        Ok(())
    })();
    if result.is_err() {
        fs::remove_file(&temp).ok();
    }
    result
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
