//! Walking the repository for the repository-wide checks (`tests/repository.rs`,
//! `tests/docs.rs`, `tests/includes.rs`).

use std::path::{Path, PathBuf};

/// Folders no check reads: build output, installed packages, git's own.
const SKIPPED: [&str; 3] = ["target", "node_modules", ".git"];

/// The repository's root.
pub fn root() -> PathBuf {
    crate::repo_root()
}

/// Every file under `dir` (recursively, without [`SKIPPED`] folders) whose extension is
/// `extension`, or every file when `None`; sorted, as full paths.
pub fn files_under(dir: &Path, extension: Option<&str>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                if !SKIPPED.iter().any(|n| name == *n) {
                    stack.push(path);
                }
            } else if extension.is_none_or(|x| path.extension().is_some_and(|e| e == x)) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
