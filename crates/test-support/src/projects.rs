//! The vendored Decentraland projects, and writable copies of them for tests that edit files.

use std::path::{Path, PathBuf};

pub use crate::repo_root;

/// The art gallery project (one model missing, as in its source snapshot).
pub fn gallery() -> PathBuf {
    repo_root().join("tests/fixtures/dcl-projects/art-gallery-template")
}

/// The Cozy House project (scenetree's bundled example of a real scene).
pub fn cozy_house() -> PathBuf {
    repo_root().join("scenes/Cozy-House-Template")
}

/// A writable copy of the art gallery project, at `<temp dir>/gallery`.
pub fn gallery_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("gallery");
    copy_dir(&gallery(), &root);
    (dir, root)
}

/// Copies a folder with everything in it.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
