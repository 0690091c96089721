//! Atomic file replacement: the previous file survives any crash during a save, and a save
//! keeps what the user set on the file: its permission mode, its owner and group (where the
//! system allows), and a symbolic link stays a link, with the file it names replaced. A target
//! the saving user may not write (mode 0444, another user's file) is refused unless the caller
//! has the user's consent. Temporary files that killed saves left behind are removed at the
//! next save into their folder (`stale.rs`). How a file on disk compares with the version the
//! editor read or wrote is `version.rs`.

mod stale;
mod version;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub use stale::remove_stale_temporaries;
pub use version::{ContentHash, FileLook, FileStamp, FileVersion};

/// Symbolic links followed in a row before a save gives up (Linux's own limit).
const MAX_LINKS: usize = 40;

/// What the user agreed to before a file is replaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteConsent {
    /// Replace a target the saving user has no write permission for (mode 0444, a file of
    /// another user in a folder the user may write); its mode is kept.
    pub overwrite_read_only: bool,
}

/// Why a file was not replaced. Either way the file on disk is as it was.
#[derive(Debug)]
pub enum WriteError {
    /// The target is read-only for the saving user and the caller had no consent to replace it.
    ReadOnly {
        /// The file as the caller named it.
        path: PathBuf,
    },
    /// The file system refused a step of the save.
    Io {
        /// The file as the caller named it.
        path: PathBuf,
        /// What was being done: "write the new contents beside it", "rename …".
        step: &'static str,
        /// What the system said.
        error: io::Error,
        /// Whether a file was there to replace (else the save was to make a new one, and
        /// nothing is in its place).
        replacing: bool,
    },
}

impl WriteError {
    /// True for the refusal of a read-only target (the user may consent and save again).
    pub fn is_read_only(&self) -> bool {
        matches!(self, WriteError::ReadOnly { .. })
    }

    /// The file as the caller named it.
    pub fn path(&self) -> &Path {
        match self {
            WriteError::ReadOnly { path } | WriteError::Io { path, .. } => path,
        }
    }

    /// The operating system's error number (28: no space left, 30: read-only file system, 13:
    /// permission denied), when the system refused.
    pub fn os_error(&self) -> Option<i32> {
        match self {
            WriteError::ReadOnly { .. } => None,
            WriteError::Io { error, .. } => error.raw_os_error(),
        }
    }

    /// The message without the path: what failed, and what is on disk now (the old file,
    /// intact; or, for a file that did not exist, still no file).
    pub fn reason(&self) -> String {
        match self {
            WriteError::ReadOnly { .. } => "the file is read-only (you have no write permission \
                 for it), so nothing was written; the old file is intact"
                .to_owned(),
            WriteError::Io {
                step,
                error,
                replacing: true,
                ..
            } => format!("cannot {step}: {error}; the old file is intact"),
            WriteError::Io {
                step,
                error,
                replacing: false,
                ..
            } => format!("cannot {step}: {error}; no file was created"),
        }
    }
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path().display(), self.reason())
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::ReadOnly { .. } => None,
            WriteError::Io { error, .. } => Some(error),
        }
    }
}

impl From<WriteError> for io::Error {
    fn from(e: WriteError) -> io::Error {
        let kind = match &e {
            WriteError::ReadOnly { .. } => io::ErrorKind::PermissionDenied,
            WriteError::Io { error, .. } => error.kind(),
        };
        io::Error::new(kind, e)
    }
}

/// Writes `bytes` to `path` atomically: into a temporary file beside the real target (through
/// any symbolic links), flushed to disk with fsync, then renamed over the target (and the
/// directory synced), so a reader sees either the old file or the new one, never half of one.
/// The target's mode, owner and group are kept; a read-only target is refused.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_atomic_with(path, bytes, WriteConsent::default())
}

/// [`write_atomic`] with what the user agreed to (replacing a read-only target).
pub fn write_atomic_with(
    path: &Path,
    bytes: &[u8],
    consent: WriteConsent,
) -> Result<(), WriteError> {
    PreparedFile::write_with(path, bytes, consent)?.commit()
}

/// True when `path` (through its links) is a file the saving user may not write, which
/// [`write_atomic`] refuses without consent. False for a missing file.
pub fn is_read_only(path: &Path) -> bool {
    resolve_links(path)
        .ok()
        .and_then(|target| fs::metadata(&target).ok().map(|m| (target, m)))
        .is_some_and(|(target, meta)| meta.is_file() && read_only(&target, &meta))
}

/// A file whose new contents are written beside it over as long as the writer needs (a
/// session recording as the session goes): [`Self::create_with`] opens the temporary, the
/// caller writes into [`Self::file`], [`Self::finish`] syncs it and hands back the
/// [`PreparedFile`] to commit. Dropped unfinished, the temporary is removed.
#[derive(Debug)]
pub struct StreamedFile {
    prepared: PreparedFile,
    file: File,
    /// The target's metadata when it exists (its mode and owner go to the new file).
    existing: Option<fs::Metadata>,
}

impl StreamedFile {
    /// Creates the temporary file beside the file `path` names (through its links), refusing
    /// a read-only target without consent. Stale temporaries of killed saves in that folder
    /// are removed first.
    pub fn create_with(path: &Path, consent: WriteConsent) -> Result<StreamedFile, WriteError> {
        // Until the file is looked at, whether there is one to replace is unknown: then the
        // message says the old file is intact, which is true of whatever is there.
        let fail_replacing = |replacing| {
            move |step, error| WriteError::Io {
                path: path.to_path_buf(),
                step,
                error,
                replacing,
            }
        };
        let target =
            resolve_links(path).map_err(|e| fail_replacing(true)("follow its symbolic link", e))?;
        let existing = match fs::metadata(&target) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(fail_replacing(true)("look at the file", e)),
        };
        let fail = fail_replacing(existing.is_some());
        if let Some(meta) = &existing
            && meta.is_file()
            && !consent.overwrite_read_only
            && read_only(&target, meta)
        {
            return Err(WriteError::ReadOnly {
                path: path.to_path_buf(),
            });
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target.file_name().ok_or_else(|| {
            let e = io::Error::new(io::ErrorKind::InvalidInput, "not a file path");
            fail("name the file", e)
        })?;
        remove_stale_temporaries(&dir);
        let temp = dir.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        // A temporary of this name is this process's own (a save another thread abandoned).
        fs::remove_file(&temp).ok();
        let file = create_temporary(&temp, existing.is_some())
            .map_err(|e| fail("create a file beside it", e))?;
        Ok(StreamedFile {
            // From here on, an early return drops `prepared`, which removes the temporary.
            prepared: PreparedFile {
                path: path.to_path_buf(),
                target,
                dir,
                temp: Some(temp),
                replacing: existing.is_some(),
            },
            file,
            existing,
        })
    }

    /// The temporary file, to write the new contents into.
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// The error of a failed `step` of writing this file.
    pub fn error(&self, step: &'static str, error: io::Error) -> WriteError {
        WriteError::Io {
            path: self.prepared.path.clone(),
            step,
            error,
            replacing: self.prepared.replacing,
        }
    }

    /// Gives the new file its target's mode, owner and group and syncs it to disk: it is
    /// ready to [`PreparedFile::commit`].
    pub fn finish(self) -> Result<PreparedFile, WriteError> {
        if let Some(meta) = &self.existing {
            keep_owner_and_mode(&self.file, meta)
                .map_err(|e| self.error("give the new file its mode", e))?;
        }
        self.file
            .sync_all()
            .map_err(|e| self.error("flush the new contents to disk", e))?;
        Ok(self.prepared)
    }
}

/// A file's new contents written and synced beside it, not yet in its place: [`Self::commit`]
/// renames it over the target. Dropped uncommitted, the temporary file is removed and the
/// target is untouched. Saves of several files prepare them all first, so that a full disk or
/// a folder that refuses writes stops the save before any file is replaced.
#[derive(Debug)]
pub struct PreparedFile {
    /// The file as the caller named it (perhaps a link).
    path: PathBuf,
    /// The file the rename replaces: `path` with its links followed.
    target: PathBuf,
    dir: PathBuf,
    temp: Option<PathBuf>,
    /// Whether a file was at the target when this was prepared.
    replacing: bool,
}

impl PreparedFile {
    /// Writes `bytes` into a temporary file beside `path` and syncs it to disk, refusing a
    /// read-only target.
    pub fn write(path: &Path, bytes: &[u8]) -> Result<PreparedFile, WriteError> {
        Self::write_with(path, bytes, WriteConsent::default())
    }

    /// Writes `bytes` into a temporary file beside the file `path` names (through its links),
    /// with that file's mode, owner and group, and syncs it to disk. Stale temporaries of
    /// killed saves in that folder are removed first.
    pub fn write_with(
        path: &Path,
        bytes: &[u8],
        consent: WriteConsent,
    ) -> Result<PreparedFile, WriteError> {
        let mut streamed = StreamedFile::create_with(path, consent)?;
        streamed
            .file()
            .write_all(bytes)
            .map_err(|e| streamed.error("write the new contents beside it", e))?;
        streamed.finish()
    }

    /// The file this will replace, as the caller named it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the temporary file over the target (a link's final target) and syncs the folder.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let temp = self.temp.take().expect("a prepared file commits once");
        if let Err(error) = fs::rename(&temp, &self.target) {
            fs::remove_file(&temp).ok();
            return Err(WriteError::Io {
                path: self.path.clone(),
                step: "put the new file in place",
                error,
                replacing: self.replacing,
            });
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

/// The file `path` names once every symbolic link is followed (the link itself stays); `path`
/// itself when it is no link or names nothing yet. A relative link is read from its folder.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links in a row (a loop?)"
    )))
}

/// Creates the temporary file, new (never through a link someone put there). Replacing an
/// existing file, it starts readable by its owner only and gets the old file's mode once
/// written; a new file gets the usual mode for new files (0666 less the umask).
fn create_temporary(temp: &Path, replacing: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if replacing { 0o600 } else { 0o666 });
    }
    #[cfg(not(unix))]
    let _ = replacing;
    options.open(temp)
}

/// Gives the new file the old one's owner and group where the system allows it (only root may
/// give a file away; a user may still set a group they belong to), then its mode. Refusals of
/// the owner or group change are not errors: the file is then the saving user's.
#[cfg(unix)]
fn keep_owner_and_mode(file: &File, old: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt, fchown};
    // Owner before mode: changing the owner clears set-user-id and set-group-id bits.
    if fchown(file, Some(old.uid()), Some(old.gid())).is_err() {
        fchown(file, None, Some(old.gid())).ok();
    }
    file.set_permissions(fs::Permissions::from_mode(old.mode() & 0o7777))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(file: &File, old: &fs::Metadata) -> io::Result<()> {
    file.set_permissions(old.permissions())
}

/// Whether the saving user may not write `target`: no write permission bit at all (which even
/// root respects here, as the owner's wish), or the system says this user may not write it
/// (the owner's, group's or others' bits that apply, or an ACL). A read-only file system is
/// not this: the save then fails and says so.
#[cfg(unix)]
fn read_only(target: &Path, meta: &fs::Metadata) -> bool {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o222 == 0 {
        return true;
    }
    let Ok(c_path) = std::ffi::CString::new(target.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c_path` is a valid NUL-terminated string that outlives the call.
    let refused = unsafe { libc::access(c_path.as_ptr(), libc::W_OK) } != 0;
    refused && io::Error::last_os_error().raw_os_error() == Some(libc::EACCES)
}

#[cfg(not(unix))]
fn read_only(_target: &Path, meta: &fs::Metadata) -> bool {
    meta.permissions().readonly()
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
    fn a_streamed_file_replaces_the_target_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.scenario.json");
        fs::write(&path, b"old").unwrap();
        let mut streamed = StreamedFile::create_with(&path, WriteConsent::default()).unwrap();
        for piece in [&b"one "[..], b"piece ", b"at a time"] {
            streamed.file().write_all(piece).unwrap();
            assert_eq!(fs::read(&path).unwrap(), b"old", "untouched while written");
        }
        streamed.finish().unwrap().commit().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one piece at a time");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        // Dropped unfinished (a recording that failed): the old file and no temporary.
        let mut abandoned = StreamedFile::create_with(&path, WriteConsent::default()).unwrap();
        abandoned.file().write_all(b"half").unwrap();
        drop(abandoned);
        assert_eq!(fs::read(&path).unwrap(), b"one piece at a time");
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

    #[test]
    fn a_failed_save_of_a_new_file_does_not_speak_of_an_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no-such-folder/scene.json");
        let error = write_atomic(&path, b"new").unwrap_err();
        let reason = error.reason();
        assert!(reason.contains("no file was created"), "{reason}");
        assert!(!reason.contains("old file"), "{reason}");
        assert!(!path.exists());
        // Replacing a file that is there, the same failure keeps it and says so.
        let blocked = dir.path().join("blocked");
        fs::create_dir_all(blocked.join("sub")).unwrap();
        let reason = write_atomic(&blocked, b"x").unwrap_err().reason();
        assert!(reason.contains("the old file is intact"), "{reason}");
    }

    #[test]
    fn messages_have_no_runs_of_spaces() {
        let dir = tempfile::tempdir().unwrap();
        let io_error = |replacing| WriteError::Io {
            path: dir.path().join("scene.json"),
            step: "write the new contents beside it",
            error: io::Error::other("disk full"),
            replacing,
        };
        let read_only = WriteError::ReadOnly {
            path: dir.path().join("scene.json"),
        };
        for error in [read_only, io_error(true), io_error(false)] {
            let text = error.to_string();
            assert!(!text.contains("  "), "a run of spaces in {text:?}");
            assert!(!text.contains(['\n', '\t']), "{text:?}");
        }
    }
}
