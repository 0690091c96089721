//! What the editor knows of a file it read or wrote, to tell another program's change from a
//! rewrite with the same bytes: its stamp (length, modification time) and a hash of its bytes.

use std::fs;
use std::path::Path;

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

/// What the editor knows of a file it read or wrote: its [`FileStamp`] and, when known, a hash
/// of its bytes. A file whose stamp changed while its bytes hash the same was rewritten with the
/// same content (copied over, checked out again, saved unchanged by another program), which
/// is not a change worth a warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileVersion {
    /// Its length and modification time then.
    pub stamp: FileStamp,
    /// A hash of its bytes then (`None`: not known, so only the stamp tells).
    pub content: Option<ContentHash>,
}

/// A 128-bit hash (XXH3) of a file's bytes: equal hashes mean equal content, for telling a
/// rewrite with the same bytes from a change (not a defence against a crafted collision).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContentHash(u128);

impl ContentHash {
    /// The hash of `bytes`.
    pub fn of_bytes(bytes: &[u8]) -> ContentHash {
        ContentHash(xxhash_rust::xxh3::xxh3_128(bytes))
    }

    /// The hash of the file at `path`, read in chunks; `None` when it cannot be read.
    pub fn of_file(path: &Path) -> Option<ContentHash> {
        use std::io::Read as _;
        let mut file = fs::File::open(path).ok()?;
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        let mut chunk = vec![0; 1 << 20];
        loop {
            match file.read(&mut chunk) {
                Ok(0) => return Some(ContentHash(hasher.digest128())),
                Ok(n) => hasher.update(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    }
}

/// How a file looks now against a [`FileVersion`] of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileLook {
    /// The same stamp.
    Unchanged,
    /// Rewritten with the same bytes: this is its version now.
    SameContent(FileVersion),
    /// Other bytes (or bytes not known then), with this stamp.
    Changed(FileStamp),
    /// Missing or unreadable.
    Gone,
}

impl FileVersion {
    /// The version of the file at `path` that holds `bytes` (just read from it or written to
    /// it); `None` when it has no stamp.
    pub fn of_bytes(path: &Path, bytes: &[u8]) -> Option<FileVersion> {
        Some(FileVersion {
            stamp: FileStamp::of(path)?,
            content: Some(ContentHash::of_bytes(bytes)),
        })
    }

    /// How the file at `path` looks now. Reads it only when its stamp differs from this
    /// version's and this version's bytes are known (a file of another length cannot match).
    pub fn look(&self, path: &Path) -> FileLook {
        let Some(stamp) = FileStamp::of(path) else {
            return FileLook::Gone;
        };
        if stamp == self.stamp {
            return FileLook::Unchanged;
        }
        let same = self.content.is_some()
            && stamp.len == self.stamp.len
            && ContentHash::of_file(path) == self.content;
        if same {
            FileLook::SameContent(FileVersion {
                stamp,
                content: self.content,
            })
        } else {
            FileLook::Changed(stamp)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `bytes` to `path` and dates the file `modified`.
    fn write_dated(path: &Path, bytes: &[u8], modified: std::time::SystemTime) {
        fs::write(path, bytes).unwrap();
        let file = fs::File::options().write(true).open(path).unwrap();
        file.set_modified(modified).unwrap();
    }

    #[test]
    fn a_file_rewritten_with_the_same_bytes_is_not_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("main.composite");
        fs::write(&path, b"one version").unwrap();
        let read = FileVersion::of_bytes(&path, b"one version").unwrap();
        assert_eq!(read.look(&path), FileLook::Unchanged);
        // A copy of the same bytes over it (a later time, so a new stamp).
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        write_dated(&path, b"one version", later);
        let FileLook::SameContent(now) = read.look(&path) else {
            panic!("same bytes: {:?}", read.look(&path));
        };
        let known_now = now.look(&path);
        assert_eq!(known_now, FileLook::Unchanged, "the new stamp is known now");
        assert_eq!(now.content, read.content);
        // Other bytes of the same length.
        fs::write(&path, b"two version").unwrap();
        assert!(matches!(read.look(&path), FileLook::Changed(_)));
        // Without the bytes known, only the stamp tells.
        let stamp_only = FileVersion {
            content: None,
            ..now
        };
        write_dated(&path, b"one version", later);
        assert_eq!(stamp_only.look(&path), FileLook::Unchanged);
        let even_later = later + std::time::Duration::from_secs(1);
        write_dated(&path, b"one version", even_later);
        assert!(matches!(stamp_only.look(&path), FileLook::Changed(_)));
        fs::remove_file(&path).unwrap();
        assert_eq!(read.look(&path), FileLook::Gone);
    }
}
