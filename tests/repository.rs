//! Rules about the repository itself, checked on every `cargo test`:
//!
//! - **Layers.** Imports only point down: `model` < `crdt` < `scene` < `io` < `editor` < `ui`
//!   < `cli`. The pure layers never name egui, eframe, three-d (or its asset loader), glow or
//!   rfd, so they build and test without a window.
//! - **Named colours.** The UI's colours are named constants in `src/ui/style.rs`; panels and
//!   the viewport use them instead of colour literals (one meaning, one colour).
//! - **No exits in the library.** Only `src/main.rs` ends the process; the library returns
//!   errors, so a caller (a test, the binary) decides.
//! - **Unsafe is explained.** Every `unsafe` block, function or impl has a `// SAFETY:` comment
//!   on the lines just before it saying why it is sound.
//! - **Self-contained.** Nothing under `src/`, `tests/`, `benches/`, `fuzz/` or `build.rs` reads a
//!   path outside the repository: a fresh clone has nothing beside it.
//! - **The bevy comparison builds `--locked`.** `bench/vs-bevy` is a workspace of its own with
//!   its own Cargo.lock, which nothing else updates: it must resolve scenetree's dependencies
//!   as the root Cargo.lock does.
//!
//! This binary does not link scenetree; it only reads source files.

use std::path::{Component, Path, PathBuf};

/// The layers from the bottom up; a layer may name only those before it.
const LAYERS: [&str; 7] = ["model", "crdt", "scene", "io", "editor", "ui", "cli"];

/// Crates only the `ui` (and the binary) may name.
const WINDOW_CRATES: [&str; 7] = [
    "egui",
    "eframe",
    "egui_dock",
    "three_d",
    "three_d_asset",
    "glow",
    "rfd",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, recursively (without `target/` or `node_modules/`).
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                if name != "target" && name != "node_modules" {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The code of a line: what comes before a `//` comment (doc comments included), trimmed.
/// A `//` inside a string literal cuts the line short, which can only hide a match, never
/// invent one.
fn code_of(line: &str) -> &str {
    line.split("//").next().unwrap_or("").trim()
}

/// Whether `code` names the identifier path `word` (`egui`, `crate::ui`) as a whole word.
fn names(code: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + word.len()..].chars().next();
        !before.is_some_and(|c| is_ident(c) || c == ':') && !after.is_some_and(is_ident)
    })
}

#[test]
fn pure_layers_import_only_layers_below_them_and_no_window_crates() {
    let mut problems = Vec::new();
    for (rank, layer) in LAYERS.iter().enumerate().take(5) {
        for file in rust_files(&root().join("src").join(layer)) {
            let text = std::fs::read_to_string(&file).expect("readable source");
            for (n, line) in text.lines().enumerate() {
                let code = code_of(line);
                let at = format!("{}:{}", file.strip_prefix(root()).unwrap().display(), n + 1);
                for krate in WINDOW_CRATES {
                    if names(code, krate) {
                        problems.push(format!("{at}: the {layer} layer names `{krate}`: {code}"));
                    }
                }
                for upper in &LAYERS[rank + 1..] {
                    if names(code, &format!("crate::{upper}")) {
                        problems.push(format!("{at}: the {layer} layer imports `{upper}`: {code}"));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layer violations:\n{}",
        problems.join("\n")
    );
}

/// `path` with `.` and `..` resolved lexically; None when `..` climbs above `path`'s start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// The string literals of one line of code (no escapes handled: paths have none).
fn string_literals(code: &str) -> Vec<&str> {
    code.split('"').skip(1).step_by(2).collect()
}

#[test]
fn nothing_reads_outside_the_repository() {
    let root = root();
    let mut files: Vec<PathBuf> = ["src", "tests", "benches", "fuzz"]
        .iter()
        .flat_map(|dir| rust_files(&root.join(dir)))
        .collect();
    files.push(root.join("build.rs"));
    // This file spells out the forbidden paths in its own checks.
    files.retain(|f| !f.ends_with("tests/repository.rs"));
    let mut problems = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        let dir = file
            .parent()
            .unwrap()
            .strip_prefix(&root)
            .unwrap()
            .to_path_buf();
        let mut previous = "";
        for (n, line) in text.lines().enumerate() {
            let code = code_of(line);
            // include_str!, include_bytes! (whose argument may be on the next line) and #[path]
            // resolve against the file's folder; every other path is joined to the manifest
            // folder (the repository root).
            let file_relative = code.contains("include_")
                || previous.ends_with("include_bytes!(")
                || previous.ends_with("include_str!(")
                || code.starts_with("#[path");
            previous = code;
            let base = if file_relative {
                dir.clone()
            } else {
                PathBuf::new()
            };
            for literal in string_literals(code) {
                let escapes = literal.contains("..")
                    && normalize(&base.join(literal.trim_start_matches('/'))).is_none();
                if escapes || literal.contains("shared/fixtures") || literal.starts_with("/work/") {
                    let at = file.strip_prefix(&root).unwrap().display();
                    problems.push(format!(
                        "{at}:{}: a path outside the repository: {literal:?}",
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "copy what a test needs into tests/fixtures/:\n{}",
        problems.join("\n")
    );
}

/// Whether `code` builds a colour from numbers (`Color32::from_rgb(…)`, `from_gray(…)`, …).
fn makes_a_colour(code: &str) -> bool {
    [
        "from_rgb",
        "from_rgba",
        "from_gray",
        "from_black_alpha",
        "from_white_alpha",
    ]
    .iter()
    .any(|f| code.contains(&format!("{f}(")))
}

#[test]
fn ui_colours_are_named_in_style() {
    let ui = root().join("src").join("ui");
    // The demo scene's entity colours are content, not look.
    let exempt = [ui.join("style.rs"), ui.join("viewport").join("demo.rs")];
    let mut problems = Vec::new();
    for file in rust_files(&ui) {
        if exempt.contains(&file) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            if makes_a_colour(code_of(line)) {
                let at = file.strip_prefix(root()).unwrap_or(&file).display();
                problems.push(format!("{at}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "name these colours in src/ui/style.rs:\n{}",
        problems.join("\n")
    );
}

/// Whether `code` opens an unsafe block, function or impl.
fn is_unsafe(code: &str) -> bool {
    names(code, "unsafe")
}

/// Lines of `text` (1-based) holding `unsafe` without a `SAFETY:` comment on that line or the
/// three lines before it.
fn unexplained_unsafe(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    (0..lines.len())
        .filter(|&i| is_unsafe(code_of(lines[i])))
        .filter(|&i| {
            !lines[i.saturating_sub(3)..=i]
                .iter()
                .any(|l| l.contains("SAFETY:"))
        })
        .map(|i| i + 1)
        .collect()
}

#[test]
fn every_unsafe_says_why_it_is_sound() {
    let mut problems = Vec::new();
    for dir in ["src", "tests", "benches", "fuzz"] {
        // This file names `unsafe` only in its checks.
        for file in rust_files(&root().join(dir)) {
            if file.ends_with("tests/repository.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("readable source");
            let at = file
                .strip_prefix(root())
                .unwrap_or(&file)
                .display()
                .to_string();
            problems.extend(
                unexplained_unsafe(&text)
                    .into_iter()
                    .map(|n| format!("{at}:{n}")),
            );
        }
    }
    assert!(
        problems.is_empty(),
        "add a `// SAFETY:` comment before:\n{}",
        problems.join("\n")
    );
}

/// Whether `code` ends the process (`std::process::exit(1)`, `process::abort()`).
fn ends_the_process(code: &str) -> bool {
    code.contains("process::exit") || code.contains("process::abort")
}

#[test]
fn only_the_binary_ends_the_process() {
    let src = root().join("src");
    let mut problems = Vec::new();
    for file in rust_files(&src) {
        if file == src.join("main.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            if ends_the_process(code_of(line)) {
                let at = file.strip_prefix(root()).unwrap_or(&file).display();
                problems.push(format!("{at}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "return an error instead of ending the process:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checks_can_fail() {
    assert!(makes_a_colour("let c = Color32::from_rgb(1, 2, 3);"));
    assert!(makes_a_colour("egui::Color32::from_gray(9)"));
    assert!(!makes_a_colour("let c = style::ERROR;"));
    assert!(ends_the_process("std::process::exit(1);"));
    assert_eq!(
        unexplained_unsafe("let a = 1;\nlet b = unsafe { f() };"),
        vec![2]
    );
    assert!(unexplained_unsafe("// SAFETY: f is sound here.\nlet b = unsafe { f() };").is_empty());
    assert!(!ends_the_process(
        "ctx.send_viewport_cmd(ViewportCommand::Close);"
    ));
    assert!(names("use egui::Ui;", "egui"));
    assert!(names("fn f(ui: &mut eframe::Frame)", "eframe"));
    assert!(
        !names("use egui_dock::Tree;", "egui"),
        "a longer crate name is not egui"
    );
    assert!(!names("let my_egui = 1;", "egui"));
    assert!(names("use crate::ui::Action;", "crate::ui"));
    assert!(!names("use crate::uix;", "crate::ui"));
    assert_eq!(code_of("let a = 1; // egui"), "let a = 1;");
    assert!(normalize(Path::new("../elsewhere/fixtures")).is_none());
    assert!(normalize(Path::new("tests/../../x")).is_none());
    assert_eq!(
        normalize(Path::new("tests/editor/../common/egl.rs")),
        Some(PathBuf::from("tests/common/egl.rs"))
    );
    assert_eq!(
        string_literals(r#"a.join("../x").join("y")"#),
        vec!["../x", "y"]
    );
}

/// scenetree's direct dependencies as `lock` resolves them: (name, version) pairs.
fn locked_dependencies_of_scenetree(lock: &str) -> std::collections::BTreeSet<(String, String)> {
    let lock: toml::Table = toml::from_str(lock).expect("a Cargo.lock is TOML");
    let packages = lock["package"].as_array().expect("a lock lists packages");
    let field = |p: &toml::Value, key: &str| p.get(key).and_then(|v| v.as_str()).map(String::from);
    let scenetree = (packages.iter())
        .find(|p| field(p, "name").as_deref() == Some("scenetree"))
        .expect("scenetree is in the lock");
    let entries = scenetree.get("dependencies").and_then(|d| d.as_array());
    (entries.into_iter().flatten())
        .filter_map(|d| d.as_str())
        .map(|entry| {
            // "name", or "name version" when the lock holds several versions of it.
            let mut words = entry.split(' ');
            let name = words.next().unwrap_or_default().to_string();
            let version = words.next().map(String::from).unwrap_or_else(|| {
                (packages.iter())
                    .find(|p| field(p, "name").as_deref() == Some(name.as_str()))
                    .and_then(|p| field(p, "version"))
                    .unwrap_or_default()
            });
            (name, version)
        })
        .collect()
}

#[test]
fn the_bevy_comparison_and_the_fuzz_targets_resolve_scenetrees_dependencies_as_the_root_lock_does()
{
    let read = |path: &str| std::fs::read_to_string(root().join(path)).unwrap();
    let manifest: toml::Table = toml::from_str(&read("Cargo.toml")).unwrap();
    let dev_only: Vec<&String> = manifest["dev-dependencies"]
        .as_table()
        .map(|t| t.keys().collect())
        .unwrap_or_default();
    let mut wanted = locked_dependencies_of_scenetree(&read("Cargo.lock"));
    wanted.retain(|(name, _)| !dev_only.contains(&name));
    for package in ["bench/vs-bevy", "fuzz"] {
        let locked = locked_dependencies_of_scenetree(&read(&format!("{package}/Cargo.lock")));
        assert_eq!(
            locked, wanted,
            "{package}/Cargo.lock is behind the root Cargo.lock, so `cargo build --locked` \
             fails there: run `cargo metadata --offline --format-version 1 > /dev/null` in \
             {package} and commit its Cargo.lock"
        );
    }
}
