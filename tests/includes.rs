//! Files that include others by path (`#[path = "…"]`, `include_str!("…")`,
//! `include_bytes!("…")`) name files that exist: a moved file breaks the build of whatever
//! includes it, and some includers (the bevy comparison, the fuzz targets) are built by no test.

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use scenetree_test_support::files;

use files::root;

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    files::files_under(dir, Some("rs"))
}

/// The relative paths `text` includes, as written (comment lines left out).
fn included_paths(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let code = text.lines().filter(|l| !l.trim_start().starts_with("//"));
    for line in code {
        for marker in ["#[path = \"", "include_str!(\"", "include_bytes!(\""] {
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

/// Includes in `files` that name no file, as "file: path". Paths are relative to the including
/// file's folder, except `#[path]` on a module declared in a file that is not a module root,
/// which Rust resolves from that file's own module folder; both are tried.
fn missing_includes(files: &[PathBuf]) -> Vec<String> {
    let mut missing = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let dir = file.parent().unwrap();
        let own_folder = file.with_extension("");
        for path in included_paths(&text) {
            // `concat!(env!(…))` and other built paths are not literal includes.
            if path.contains('{') || path.starts_with('/') {
                continue;
            }
            if !dir.join(path).exists() && !own_folder.join(path).exists() {
                missing.push(format!("{}: {path}", file.display()));
            }
        }
    }
    missing
}

#[test]
fn every_file_included_by_path_exists() {
    let files = rust_files(&root());
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("bench/vs-bevy/src/main.rs")),
        "the bevy comparison was not found"
    );
    let missing = missing_includes(&files);
    assert!(
        missing.is_empty(),
        "included files that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_include_check_can_fail() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("here.rs"), "").unwrap();
    let file = dir.path().join("main.rs");
    std::fs::write(
        &file,
        "#[path = \"here.rs\"]\nmod a;\n#[path = \"../benches/support/forest.rs\"]\nmod b;\n\
         const T: &str = include_str!(\"gone.md\");\n",
    )
    .unwrap();
    assert_eq!(
        missing_includes(std::slice::from_ref(&file)),
        vec![
            format!("{}: ../benches/support/forest.rs", file.display()),
            format!("{}: gone.md", file.display()),
        ]
    );
}
