//! Files that include others by path: `include_str!("…")` and `include_bytes!("…")` name files
//! that exist (a moved file breaks the build of whatever includes it, and some includers, the
//! fuzz targets, are built by no test), and no module is included by `#[path = "…"]`: a module
//! lives where Rust looks for it, and what tests share is in `crates/test-support`.

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use scenetree_test_support::files;

use files::root;

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    files::files_under(dir, Some("rs"))
}

/// The non-comment lines of `text`.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim_start().starts_with("//"))
}

/// The relative paths `text` includes with `include_str!` or `include_bytes!`, as written.
fn included_paths(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in code_lines(text) {
        for marker in ["include_str!(\"", "include_bytes!(\""] {
            let mut rest = line;
            while let Some(start) = rest.find(marker) {
                let after = &rest[start + marker.len()..];
                let Some(end) = after.find('"') else { break };
                out.push(&after[..end]);
                rest = &after[end..];
            }
        }
    }
    out
}

/// Includes in `files` that name no file, as "file: path" (paths are relative to the
/// including file's folder).
fn missing_includes(files: &[PathBuf]) -> Vec<String> {
    let mut missing = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let dir = file.parent().unwrap();
        for path in included_paths(&text) {
            // `concat!(env!(…))` and other built paths are not literal includes.
            if path.contains('{') || path.starts_with('/') {
                continue;
            }
            if !dir.join(path).exists() {
                missing.push(format!("{}: {path}", file.display()));
            }
        }
    }
    missing
}

/// The `#[path = "…"]` attributes in `files`, as "file:line: attribute".
fn path_attributes(files: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if !code.starts_with("//") && code.replace(' ', "").contains("#[path=") {
                found.push(format!("{}:{}: {}", file.display(), n + 1, code.trim_end()));
            }
        }
    }
    found
}

#[test]
fn every_file_included_by_path_exists() {
    let files = rust_files(&root());
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("fuzz/fuzz_targets/components.rs")),
        "the fuzz targets were not found"
    );
    let missing = missing_includes(&files);
    assert!(
        missing.is_empty(),
        "included files that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_module_is_included_by_path() {
    // This file spells the attribute out in its own checks.
    let files: Vec<PathBuf> = (rust_files(&root()).into_iter())
        .filter(|f| !f.ends_with("tests/includes.rs"))
        .collect();
    let found = path_attributes(&files);
    assert!(
        found.is_empty(),
        "modules included by #[path]; make each an ordinary child module (`mod tests;` in \
         `<module>/tests.rs`), or share it through crates/test-support:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_include_checks_can_fail() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("here.md"), "").unwrap();
    let file = dir.path().join("main.rs");
    std::fs::write(
        &file,
        "#[path = \"here.rs\"]\nmod a;\n// #[path = \"commented.rs\"]\n\
         const H: &str = include_str!(\"here.md\");\n\
         const T: &str = include_str!(\"gone.md\");\n",
    )
    .unwrap();
    let files = std::slice::from_ref(&file);
    assert_eq!(
        missing_includes(files),
        vec![format!("{}: gone.md", file.display())]
    );
    assert_eq!(
        path_attributes(files),
        vec![format!("{}:1: #[path = \"here.rs\"]", file.display())]
    );
}
