//! Rules about the repository itself, checked on every `cargo test`:
//!
//! - **Layers.** Between crates the compiler enforces the direction (core < dcl < viewport <
//!   app). Inside a crate, modules import only those below them: `model` < `crdt` < `scene` <
//!   `net` in scenetree-core, `editor` < `ui` < `cli` in the app. The editor never names egui,
//!   eframe, three-d (or its asset loader), glow or rfd, so it builds and tests without a
//!   window (core and dcl do not even depend on them).
//! - **Self-contained.** Nothing under `src/`, `crates/`, `tests/`, `benches/` or `fuzz/` reads
//!   a path outside the repository: a fresh clone has nothing beside it.
//! - **The bevy comparison builds `--locked`.** `bench/vs-bevy` is a workspace of its own with
//!   its own Cargo.lock, which nothing else updates: it must resolve scenetree's dependencies
//!   as the root Cargo.lock does.
//! - **clippy enforces the rest, and each rule can fail.** Named colours (made only in the
//!   style modules), no exits in the libraries, named threads, no bare `unwrap()` in library
//!   code, a `// SAFETY:` comment on every unsafe block: denied lints in Cargo.toml's
//!   `[workspace.lints.clippy]` and `clippy.toml`. `each_denied_lint_fails_on_its_canary`
//!   runs clippy with that configuration on `tests/fixtures/lint-canaries/` and checks it
//!   reports each broken rule there, and nothing else.
//!
//! This binary does not link scenetree; it reads source files, and runs clippy on the
//! canaries.

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use scenetree_test_support::files;

use files::root;

/// Each crate's layered modules from the bottom up (folder, modules): a module may name only
/// those before it.
const LAYERS: [(&str, &[&str]); 2] = [
    (
        "crates/core/src",
        &["model", "crdt", "scene", "net", "examples"],
    ),
    ("src", &["ui", "cli"]),
];

/// Packages that open or draw a window: the editor crate builds on none of them.
const WINDOW_PACKAGES: [&str; 10] = [
    "egui",
    "eframe",
    "egui_dock",
    "egui_kittest",
    "three-d",
    "three-d-asset",
    "glow",
    "glutin",
    "winit",
    "rfd",
];

/// The folders that hold the workspace's Rust code.
const SOURCE_FOLDERS: [&str; 5] = ["src", "crates", "tests", "benches", "fuzz"];

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    files::files_under(dir, Some("rs"))
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

/// The `.rs` files of module `name` in `folder`: `name.rs` and everything under `name/`.
fn module_files(folder: &Path, name: &str) -> Vec<PathBuf> {
    let mut files = rust_files(&folder.join(name));
    let single = folder.join(format!("{name}.rs"));
    if single.exists() {
        files.push(single);
    }
    files
}

#[test]
fn modules_import_only_modules_below_them() {
    let mut problems = Vec::new();
    for (folder, layers) in LAYERS {
        for (rank, layer) in layers.iter().enumerate() {
            for file in module_files(&root().join(folder), layer) {
                let text = std::fs::read_to_string(&file).expect("readable source");
                for (n, line) in text.lines().enumerate() {
                    let code = code_of(line);
                    if let Some(upper) = (layers[rank + 1..].iter())
                        .find(|upper| names(code, &format!("crate::{upper}")))
                    {
                        let at = file.strip_prefix(root()).unwrap().display();
                        problems.push(format!(
                            "{at}:{}: `{layer}` imports `{upper}`: {code}",
                            n + 1
                        ));
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

/// Every package `package` builds on according to `lock` (its dependencies, theirs, and so
/// on, dev-dependencies included), by name.
fn locked_closure(lock: &str, package: &str) -> std::collections::BTreeSet<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![package.to_string()];
    while let Some(next) = stack.pop() {
        for (name, _) in locked_dependencies(lock, &next) {
            if seen.insert(name.clone()) {
                stack.push(name);
            }
        }
    }
    seen
}

#[test]
fn the_editor_crate_builds_on_no_window_package() {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let closure = locked_closure(&lock, "scenetree-editor");
    assert!(closure.contains("scenetree-core"), "the closure is read");
    let window: Vec<&&str> = (WINDOW_PACKAGES.iter())
        .filter(|p| closure.contains(**p))
        .collect();
    assert!(
        window.is_empty(),
        "scenetree-editor builds on {window:?}: the editor must be usable (and testable) \
         without a window"
    );
    // The app does build on them: the check reads the lock right.
    assert!(locked_closure(&lock, "scenetree").contains("egui"));
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
    let files: Vec<PathBuf> = SOURCE_FOLDERS
        .iter()
        .flat_map(|dir| rust_files(&root.join(dir)))
        .collect();
    // This file spells out the forbidden paths in its own checks.
    let files = files
        .into_iter()
        .filter(|f| !f.ends_with("tests/repository.rs"));
    let mut problems = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        let dir = file
            .parent()
            .unwrap()
            .strip_prefix(&root)
            .unwrap()
            .to_path_buf();
        let manifest_dir: PathBuf = match dir.strip_prefix("crates") {
            Ok(inside) => Path::new("crates").join(inside.iter().next().unwrap_or_default()),
            Err(_) => PathBuf::new(),
        };
        let mut previous = "";
        for (n, line) in text.lines().enumerate() {
            let code = code_of(line);
            // include_str!, include_bytes! (whose argument may be on the next line) and #[path]
            // resolve against the file's folder; every other path is joined to the manifest
            // folder (the file's crate: `crates/<name>`, or the repository root).
            let file_relative = code.contains("include_")
                || previous.ends_with("include_bytes!(")
                || previous.ends_with("include_str!(")
                || code.starts_with("#[path");
            previous = code;
            let base = if file_relative {
                dir.clone()
            } else {
                manifest_dir.clone()
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

#[test]
fn the_checks_can_fail() {
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

/// Copies `from` into `to` (files and folders), creating `to`.
fn copy_tree(from: &Path, to: &Path) {
    for file in files::files_under(from, None) {
        let relative = file.strip_prefix(from).expect("under the folder");
        let target = to.join(relative);
        std::fs::create_dir_all(target.parent().expect("a file has a folder")).expect("mkdir");
        std::fs::copy(&file, &target).expect("copy a canary file");
    }
}

/// The lints `// expect: clippy::LINT` marks in the canaries' Rust files: (file relative to
/// the canaries' folder, 1-based line, lint).
fn expected_lints(canaries: &Path) -> BTreeSet<(String, usize, String)> {
    let mut expected = BTreeSet::new();
    for file in rust_files(canaries) {
        let text = std::fs::read_to_string(&file).expect("readable canary");
        let relative = file.strip_prefix(canaries).expect("under the folder");
        for (n, line) in text.lines().enumerate() {
            if let Some((_, lint)) = line.split_once("// expect: ") {
                let name = relative.display().to_string();
                expected.insert((name, n + 1, lint.trim().to_owned()));
            }
        }
    }
    expected
}

/// The errors in `cargo clippy --message-format=json` output: (file, line, lint).
fn reported_errors(json_lines: &str) -> BTreeSet<(String, usize, String)> {
    let mut reported = BTreeSet::new();
    for line in json_lines.lines() {
        let Ok(record) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let message = &record["message"];
        if record["reason"] != "compiler-message" || message["level"] != "error" {
            continue;
        }
        let Some(code) = message["code"]["code"].as_str() else {
            continue;
        };
        let spans = message["spans"].as_array().into_iter().flatten();
        for span in spans.filter(|s| s["is_primary"] == true) {
            let file = span["file_name"].as_str().unwrap_or_default().to_owned();
            let line = span["line_start"].as_u64().unwrap_or_default() as usize;
            reported.insert((file, line, code.to_owned()));
        }
    }
    reported
}

#[test]
fn each_denied_lint_fails_on_its_canary() {
    let cargo = env!("CARGO");
    let has_clippy = std::process::Command::new(cargo)
        .args(["clippy", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_clippy {
        eprintln!("clippy is not installed (rustup component add clippy): canaries not run");
        return;
    }
    let canaries = root().join("tests/fixtures/lint-canaries");
    // A fresh folder each run (about a second to check): nothing cached from an older run.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a temporary folder");
    let work = dir.path();
    copy_tree(&canaries, work);
    // The workspace's own lint configuration: its [workspace.lints] and clippy.toml.
    let manifest: toml::Table = toml::from_str(
        &std::fs::read_to_string(root().join("Cargo.toml")).expect("the root manifest"),
    )
    .expect("the root manifest is TOML");
    let lints = manifest["workspace"]["lints"].clone();
    let mut workspace = toml::Table::new();
    workspace.insert("members".into(), vec!["canary", "clean", "egui"].into());
    workspace.insert("resolver".into(), "3".into());
    workspace.insert("lints".into(), lints);
    let mut fixture = toml::Table::new();
    fixture.insert("workspace".into(), workspace.into());
    let write = |path: &str, text: &str| std::fs::write(work.join(path), text).expect("write");
    write("Cargo.toml", &toml::to_string(&fixture).expect("a table"));
    write(
        "canary/Cargo.toml",
        "[package]\nname = \"canary\"\nedition = \"2024\"\n\n[lints]\nworkspace = true\n\n\
         [dependencies]\negui = { path = \"../egui\" }\n",
    );
    write(
        "clean/Cargo.toml",
        "[package]\nname = \"clean\"\nedition = \"2024\"\n\n[lints]\nworkspace = true\n",
    );
    write(
        "egui/Cargo.toml",
        "[package]\nname = \"egui\"\nedition = \"2024\"\n",
    );
    std::fs::copy(root().join("clippy.toml"), work.join("clippy.toml")).expect("clippy.toml");
    let output = std::process::Command::new(cargo)
        .args([
            "clippy",
            "--all-targets",
            "--offline",
            "--message-format=json",
        ])
        .arg("--manifest-path")
        .arg(work.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(work.join("target"))
        .output()
        .expect("run cargo clippy");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !output.status.success(),
        "clippy must fail on the canaries:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected = expected_lints(&canaries);
    // Every denied lint of the workspace has a canary.
    let denied = (manifest["workspace"]["lints"]["clippy"]
        .as_table()
        .into_iter()
        .flatten())
    .filter(|(_, level)| level.as_str() == Some("deny"))
    .map(|(lint, _)| format!("clippy::{lint}"));
    for lint in denied {
        assert!(
            expected.iter().any(|(_, _, l)| *l == lint),
            "{lint} is denied in Cargo.toml: add a canary that breaks it"
        );
    }
    assert_eq!(
        reported_errors(&stdout),
        expected,
        "clippy's errors on tests/fixtures/lint-canaries (left) are the lines marked \
         `// expect:` (right)\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `package`'s direct dependencies as `lock` resolves them: (name, version) pairs.
fn locked_dependencies(lock: &str, package: &str) -> std::collections::BTreeSet<(String, String)> {
    let lock: toml::Table = toml::from_str(lock).expect("a Cargo.lock is TOML");
    let packages = lock["package"].as_array().expect("a lock lists packages");
    let field = |p: &toml::Value, key: &str| p.get(key).and_then(|v| v.as_str()).map(String::from);
    let Some(found) = (packages.iter()).find(|p| field(p, "name").as_deref() == Some(package))
    else {
        panic!("{package} is not in the lock");
    };
    let entries = found.get("dependencies").and_then(|d| d.as_array());
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
    let root_lock = read("Cargo.lock");
    // The workspace crates each one builds on; their dev-dependencies are not built there.
    let uses: [(&str, &[&str]); 2] = [
        ("bench/vs-bevy", &["scenetree-core"]),
        ("fuzz", &["scenetree-core", "scenetree-dcl"]),
    ];
    for (folder, crates) in uses {
        let lock = read(&format!("{folder}/Cargo.lock"));
        for krate in crates {
            let manifest: toml::Table = toml::from_str(&read(&format!(
                "crates/{}/Cargo.toml",
                krate.trim_start_matches("scenetree-")
            )))
            .unwrap();
            let dev_only: Vec<&String> = (manifest.get("dev-dependencies"))
                .and_then(|d| d.as_table())
                .map(|t| t.keys().collect())
                .unwrap_or_default();
            let mut wanted = locked_dependencies(&root_lock, krate);
            wanted.retain(|(name, _)| !dev_only.contains(&name));
            assert_eq!(
                locked_dependencies(&lock, krate),
                wanted,
                "{folder}/Cargo.lock is behind the root Cargo.lock for {krate}, so `cargo build \
                 --locked` fails there: run `cargo metadata --format-version 1 > /dev/null` in \
                 {folder} and commit its Cargo.lock"
            );
        }
    }
}

/// Every file under `dir`, relative to it (without `target/`, `node_modules/` or `.git/`).
fn all_files(dir: &Path) -> Vec<PathBuf> {
    (files::files_under(dir, None).into_iter())
        .map(|f| f.strip_prefix(dir).unwrap().to_path_buf())
        .collect()
}

/// Saved proptest seeds that proptest never reads. proptest looks for the seeds of a test in
/// `src/foo.rs` of a test binary whose root (`main.rs` or `lib.rs`) sits in `B/` at
/// `B/../proptest-regressions/foo.txt`; a seed file anywhere else (the `*.proptest-regressions`
/// of older layouts, or one whose test moved) is never replayed.
fn unread_seed_files(files: &[PathBuf]) -> Vec<PathBuf> {
    let has = |p: &Path| files.iter().any(|f| f == p);
    files
        .iter()
        .filter(|f| {
            let in_seed_folder = f
                .components()
                .any(|c| c.as_os_str() == "proptest-regressions");
            let is_seed = f.extension().is_some_and(|e| e == "proptest-regressions")
                || (in_seed_folder && f.extension().is_some_and(|e| e == "txt"));
            is_seed
                && !{
                    // `D/proptest-regressions/rel.txt` is read for `D/B/rel.rs` with `D/B/main.rs`
                    // or `D/B/lib.rs`.
                    let text = f.to_string_lossy();
                    text.split_once("proptest-regressions/")
                        .is_some_and(|(d, rel)| {
                            let rel = Path::new(rel).with_extension("rs");
                            let parent = Path::new(d);
                            files.iter().any(|root| {
                                let is_binary_root =
                                    root.parent().is_some_and(|b| b.parent() == Some(parent))
                                        && (root.ends_with("main.rs") || root.ends_with("lib.rs"));
                                is_binary_root && has(&root.parent().unwrap().join(&rel))
                            })
                        })
                }
        })
        .cloned()
        .collect()
}

#[test]
fn saved_proptest_seeds_sit_where_proptest_reads_them() {
    let unread = unread_seed_files(&all_files(&root()));
    assert!(
        unread.is_empty(),
        "proptest never replays these seed files; move each beside its test's binary as \
         `<tests folder>/proptest-regressions/<test file>.txt`: {unread:?}"
    );
}

#[test]
fn the_seed_check_can_fail() {
    let files = |names: &[&str]| names.iter().map(PathBuf::from).collect::<Vec<_>>();
    let read = files(&[
        "crates/core/tests/crdt/main.rs",
        "crates/core/tests/crdt/network.rs",
        "crates/core/tests/proptest-regressions/network.txt",
    ]);
    assert!(unread_seed_files(&read).is_empty());
    let old_layout = files(&[
        "crates/core/tests/crdt/main.rs",
        "crates/core/tests/crdt/network.rs",
        "crates/core/tests/crdt/network.proptest-regressions",
    ]);
    assert_eq!(unread_seed_files(&old_layout).len(), 1);
    let test_moved = files(&[
        "crates/core/tests/crdt/main.rs",
        "crates/core/tests/proptest-regressions/network.txt",
    ]);
    assert_eq!(unread_seed_files(&test_moved).len(), 1);
}

/// Module import cycles that are allowed, each with why: (folder, members). Anything else
/// that forms a cycle fails the test below.
const ALLOWED_IMPORT_CYCLES: [(&str, &[&str], &str); 2] = [
    (
        "crates/core/src/scene",
        &["hierarchy", "sweep"],
        "SceneView is defined in hierarchy; sweep is its whole-view pass, split out by \
         concern, which reads its fields, and the view keeps the sweep's plan and defaults",
    ),
    (
        "src/editor",
        &["document", "peers"],
        "peers is Document's simulated-peers backend: it implements Document's methods for \
         that backend and is called from them",
    ),
];

/// The module a source file is, as a path from its crate's root: `ui/a/b.rs` → `ui::a::b`,
/// `ui/a/mod.rs` → `ui::a`.
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = (relative.with_extension("").iter())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

/// A `use` tree spelled out: `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand_use(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let (prefix, inner) = (
        &tree[..open],
        tree[open + 1..].trim_end().trim_end_matches('}'),
    );
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    (parts.into_iter())
        .filter(|p| !p.trim().is_empty())
        .flat_map(|p| {
            expand_use(p)
                .into_iter()
                .map(move |e| format!("{prefix}{e}"))
        })
        .collect()
}

/// The module paths `text` (the source of `module`) names through `crate::`, `super::` and
/// `self::`, in `use` statements and in code, as paths from the crate's root.
fn named_modules(module: &[String], text: &str) -> Vec<Vec<String>> {
    let code: String = text.lines().map(|l| format!("{}\n", code_of(l))).collect();
    let mut paths = Vec::new();
    for statement in code.split(';') {
        if let Some(tree) = statement.trim().strip_prefix("use ").or_else(|| {
            (statement.trim().strip_prefix("pub use "))
                .or(statement.trim().strip_prefix("pub(crate) use "))
        }) {
            paths.extend(expand_use(tree));
        }
    }
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            if code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !is_ident(c))
                .map_or(code.len(), |e| at + e);
            paths.push(code[at..end].to_string());
        }
    }
    (paths.iter())
        .filter_map(|path| {
            let segments: Vec<&str> = path.split("::").map(str::trim).collect();
            let mut resolved: Vec<String> = match segments.first() {
                Some(&"crate") => Vec::new(),
                Some(&"super") | Some(&"self") => module.to_vec(),
                _ => return None,
            };
            let mut rest = &segments[usize::from(segments[0] == "crate")..];
            while let Some((first, tail)) = rest.split_first() {
                match *first {
                    "super" => {
                        resolved.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = tail;
            }
            resolved.extend(rest.iter().filter(|s| !s.is_empty()).map(|s| s.to_string()));
            Some(resolved)
        })
        .fold(Vec::new(), |mut unique, path| {
            if !unique.contains(&path) {
                unique.push(path);
            }
            unique
        })
}

/// The import cycles among sibling modules, at every folder of one crate: (folder's module
/// path, the cycle's members, sorted). A module's imports are those of every file below it.
fn import_cycles(files: &[(Vec<String>, String)]) -> Vec<(Vec<String>, Vec<String>)> {
    use std::collections::{BTreeMap, BTreeSet};
    let edges: Vec<(&Vec<String>, Vec<Vec<String>>)> = (files.iter())
        .map(|(module, text)| (module, named_modules(module, text)))
        .collect();
    let folders: BTreeSet<&[String]> = (files.iter())
        .flat_map(|(m, _)| (0..m.len()).map(move |k| &m[..k]))
        .collect();
    let mut cycles = Vec::new();
    for folder in folders {
        let depth = folder.len();
        let child =
            |m: &[String]| (m.len() > depth && m[..depth] == *folder).then(|| m[depth].clone());
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (module, _) in files {
            if let Some(c) = child(module) {
                graph.entry(c).or_default();
            }
        }
        for (module, named) in &edges {
            let Some(from) = child(module) else { continue };
            for to in named.iter().filter_map(|n| child(n)) {
                if to != from && graph.contains_key(&to) {
                    graph.get_mut(&from).unwrap().insert(to);
                }
            }
        }
        // Members of one cycle reach each other: a small graph, so reachability by search.
        let reach = |from: &String| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![from.clone()];
            while let Some(m) = stack.pop() {
                for next in &graph[&m] {
                    if seen.insert(next.clone()) {
                        stack.push(next.clone());
                    }
                }
            }
            seen
        };
        let reaches: BTreeMap<&String, BTreeSet<String>> =
            graph.keys().map(|k| (k, reach(k))).collect();
        let mut done = BTreeSet::new();
        for module in graph.keys() {
            if done.contains(module) || !reaches[module].contains(module) {
                continue;
            }
            let members: Vec<String> = (reaches[module].iter())
                .filter(|other| reaches[*other].contains(module))
                .cloned()
                .collect();
            done.extend(members.iter().cloned());
            cycles.push((folder.to_vec(), members));
        }
    }
    cycles
}

#[test]
fn modules_import_one_another_in_one_direction() {
    let mut problems = Vec::new();
    let crates = [
        "src",
        "crates/core/src",
        "crates/dcl/src",
        "crates/viewport/src",
        "crates/live/src",
    ];
    for krate in crates {
        let dir = root().join(krate);
        let files: Vec<(Vec<String>, String)> = (rust_files(&dir).into_iter())
            .map(|f| {
                let text = std::fs::read_to_string(&f).expect("readable source");
                (module_of(f.strip_prefix(&dir).unwrap()), text)
            })
            .collect();
        for (folder, members) in import_cycles(&files) {
            let folder_path = [krate.to_string()]
                .into_iter()
                .chain(folder)
                .collect::<Vec<_>>()
                .join("/");
            let allowed = ALLOWED_IMPORT_CYCLES
                .iter()
                .any(|(f, m, _)| *f == folder_path && m.iter().eq(members.iter()));
            if !allowed {
                problems.push(format!("{folder_path}: {}", members.join(" ⇄ ")));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "these modules import each other; move what both need into one of them or below \
         both (or name the cycle, with why, in ALLOWED_IMPORT_CYCLES):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_cycle_check_can_fail() {
    assert_eq!(
        expand_use("super::{a::{B, C}, d::E}"),
        vec!["super::a::B", "super::a::C", "super::d::E"]
    );
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(
        module_of(Path::new("ui/hierarchy/mod.rs")),
        m("ui::hierarchy")
    );
    assert_eq!(
        named_modules(
            &m("ui::hierarchy::drop"),
            "use super::super::style;\nlet x = crate::ui::action::Severity::Info;"
        ),
        vec![m("ui::style"), m("ui::action::Severity::Info")]
    );
    let file = |module: &str, text: &str| (m(module), text.to_string());
    let circle = [
        file("ui::action", "use crate::ui::workbench::Severity;"),
        file("ui::workbench", "use super::action::Action;"),
        file("ui::style", ""),
    ];
    assert_eq!(
        import_cycles(&circle),
        vec![(m("ui"), vec!["action".to_string(), "workbench".to_string()])]
    );
    let one_way = [
        file("ui::action", "use crate::ui::style::ERROR;"),
        file("ui::workbench", "use super::action::{Action, Severity};"),
        file("ui::style", ""),
    ];
    assert!(import_cycles(&one_way).is_empty());
}
