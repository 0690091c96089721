//! The documentation a newcomer reads: README and ARCHITECTURE stay short enough to read in one
//! sitting, every relative link in the repository's Markdown leads to a file that exists, and
//! every repository path and module path the docs name in backticks exists (docs move; their
//! links and names must follow). What counts as a name is in [`stale_names`].

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest README.md and ARCHITECTURE.md may be, in lines.
const MAX_OVERVIEW_LINES: usize = 250;

use scenetree_test_support::files;

use files::root;

/// The repository's Markdown, without the vendored fixtures' own documents.
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    (files::files_under(dir, Some("md")).into_iter())
        .filter(|f| !f.components().any(|c| c.as_os_str() == "fixtures"))
        .collect()
}

/// The lines of `text` outside fenced code blocks, with their 1-based number.
fn prose_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut in_code_block = false;
    (text.lines().enumerate()).filter_map(move |(n, line)| {
        if line.trim_start().starts_with("```") {
            in_code_block = !in_code_block;
            return None;
        }
        (!in_code_block).then_some((n + 1, line))
    })
}

/// The targets of the inline links and images in `text` (`[x](target)`, `![x](target "t")`),
/// without their `#anchor`; web addresses, mail addresses and bare anchors are left out.
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (_, line) in prose_lines(text) {
        let mut rest = line;
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            let target = target.split('#').next().unwrap_or("");
            let external = target.contains("://") || target.starts_with("mailto:");
            if !target.is_empty() && !external {
                out.push(target.to_string());
            }
            rest = &after[end..];
        }
    }
    out
}

/// Links in `files` whose target does not exist, as "file: target".
fn broken_links(files: &[PathBuf]) -> Vec<String> {
    let mut broken = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let dir = file.parent().unwrap();
        for target in relative_links(&text) {
            if !dir.join(&target).exists() {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_in_the_docs_leads_to_a_file() {
    let files = markdown_files(&root());
    assert!(
        files.iter().any(|f| f.ends_with("docs/performance.md")),
        "the docs were not found: {files:?}"
    );
    let broken = broken_links(&files);
    assert!(
        broken.is_empty(),
        "links to nothing:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_readme_and_the_architecture_read_in_one_sitting() {
    for name in ["README.md", "ARCHITECTURE.md"] {
        let lines = std::fs::read_to_string(root().join(name))
            .unwrap()
            .lines()
            .count();
        assert!(
            lines <= MAX_OVERVIEW_LINES,
            "{name} has {lines} lines; move details to docs/ (at most {MAX_OVERVIEW_LINES})"
        );
    }
}

#[test]
fn the_link_check_can_fail() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/shot.png"), b"").unwrap();
    let page = dir.path().join("docs/page.md");
    std::fs::write(
        &page,
        "![a shot](shot.png) [the overview](../README.md#top) [web](https://example.com)\n\
         [gone](moved.md) [anchor](#here)\n```\n[in code](nowhere.md)\n```\n",
    )
    .unwrap();
    let broken = broken_links(std::slice::from_ref(&page));
    assert_eq!(
        broken,
        vec![
            format!("{}: ../README.md", page.display()),
            format!("{}: moved.md", page.display()),
        ]
    );
}

/// The top folders of the repository a backticked path may start with. `assets/` is left out:
/// `assets/scene/main.composite` is also the layout of every Decentraland project.
const PATH_ROOTS: [&str; 12] = [
    "src",
    "crates",
    "tests",
    "benches",
    "bench",
    "scenes",
    "docs",
    "oracle",
    "oracle-live",
    "oracle-net",
    "fuzz",
    "scripts",
];

/// First segments that are Decentraland's component namespaces (`core::Transform`,
/// `inspector::Nodes`), never read as our module paths even where a module has that name.
const COMPONENT_NAMESPACES: [&str; 2] = ["core", "inspector"];

/// A Rust module of ours: its own file and the folder its submodules live in (both relative to
/// the repository root, `/`-separated; the folder ends in `/`).
#[derive(Clone, Debug)]
struct Module {
    file: String,
    folder: String,
}

/// What the docs' names are looked up in: the repository's files and folders and its Rust code.
struct Repository {
    /// Every file, and every folder with a trailing `/`, relative to the root.
    paths: BTreeSet<String>,
    /// The rooted entries of `.gitignore` (build outputs a doc may name), without the `/`.
    ignored: Vec<String>,
    /// Every Rust file's code without its `//` comments, by relative path.
    code: BTreeMap<String, String>,
    /// The files that define a type (`struct`, `enum`, `trait`, `type`, `union`) or implement
    /// something for it, by the type's name.
    type_files: BTreeMap<String, BTreeSet<String>>,
    /// The modules a checked Rust path may start with, by that first segment: crate names
    /// (`scenetree_core`), crate folder names (`viewport`) and every module's own name
    /// (`model`, `network`), less [`COMPONENT_NAMESPACES`].
    roots: BTreeMap<String, Vec<Module>>,
}

/// Whether `text` contains `word` with no identifier character just before or after it.
fn contains_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(is_ident)
            && !text[at + word.len()..].chars().next().is_some_and(is_ident)
    })
}

fn is_identifier(s: &str) -> bool {
    s.starts_with(is_identifier_start) && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `path` matches `pattern`, where `*` stands for any characters but `/`.
fn glob_matches(pattern: &str, path: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == path,
        Some((head, tail)) => {
            let Some(rest) = path.strip_prefix(head) else {
                return false;
            };
            let mut at = 0;
            loop {
                if glob_matches(tail, &rest[at..]) {
                    return true;
                }
                match rest[at..].chars().next() {
                    Some(c) if c != '/' => at += c.len_utf8(),
                    _ => return false,
                }
            }
        }
    }
}

impl Repository {
    fn read(root: &Path) -> Repository {
        let relative = |p: &Path| {
            let p = p.strip_prefix(root).unwrap_or(p);
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        };
        let mut paths = BTreeSet::new();
        let mut code = BTreeMap::new();
        for file in files::files_under(root, None) {
            let rel = relative(&file);
            let mut folder = rel.as_str();
            while let Some((parent, _)) = folder.rsplit_once('/') {
                paths.insert(format!("{parent}/"));
                folder = parent;
            }
            // This file's examples name stale items on purpose; they are not code.
            if rel.ends_with(".rs") && rel != file!() {
                let text = std::fs::read_to_string(&file).unwrap_or_default();
                let without_comments: Vec<&str> = text
                    .lines()
                    .map(|l| l.split("//").next().unwrap_or(""))
                    .collect();
                code.insert(rel.clone(), without_comments.join("\n"));
            }
            paths.insert(rel);
        }
        let ignored = std::fs::read_to_string(root.join(".gitignore"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().strip_prefix('/'))
            .map(|l| l.trim_end_matches('/').to_string())
            .collect();
        let mut type_files: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (file, text) in &code {
            for line in text.lines() {
                let words: Vec<&str> = line
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty())
                    .collect();
                let defined = words.windows(2).filter_map(|pair| {
                    let keyword = ["struct", "enum", "trait", "type", "union"];
                    keyword.contains(&pair[0]).then_some(pair[1])
                });
                let implemented = (line.trim_start().starts_with("impl"))
                    .then(|| words.iter().copied())
                    .into_iter()
                    .flatten();
                for name in defined.chain(implemented) {
                    let entry = type_files.entry(name.to_string()).or_default();
                    entry.insert(file.clone());
                }
            }
        }
        let mut repo = Repository {
            paths,
            ignored,
            code,
            type_files,
            roots: BTreeMap::new(),
        };
        repo.roots = repo.module_roots(root);
        repo
    }

    /// The crates (`src/` is the app `scenetree`, `crates/<folder>/src/` is the crate its
    /// Cargo.toml names) and their top-level modules, by the names a Rust path may start with.
    fn module_roots(&self, root: &Path) -> BTreeMap<String, Vec<Module>> {
        let mut crates = vec![("scenetree".to_string(), None, "src/".to_string())];
        let crate_folders = self.paths.iter().filter_map(|p| {
            let folder = p.strip_prefix("crates/")?.strip_suffix("/src/lib.rs")?;
            (!folder.contains('/')).then_some(folder)
        });
        for folder in crate_folders {
            let manifest =
                std::fs::read_to_string(root.join("crates").join(folder).join("Cargo.toml"))
                    .unwrap_or_default();
            let name = manifest
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .map(|n| n.trim_end_matches('"').replace('-', "_"))
                .unwrap_or_else(|| format!("scenetree_{folder}"));
            let short = folder.replace('-', "_");
            crates.push((name, Some(short), format!("crates/{folder}/src/")));
        }
        let mut roots: BTreeMap<String, Vec<Module>> = BTreeMap::new();
        for (name, short, src) in crates {
            if !self.paths.contains(&format!("{src}lib.rs")) {
                continue;
            }
            let crate_root = Module {
                file: format!("{src}lib.rs"),
                folder: src.clone(),
            };
            // Every module of the crate, by its own name: `model` (top level) as well as
            // `network` (`crdt::network`), the way the docs shorten paths.
            let modules = self.paths.iter().filter_map(|p| {
                let stem = p.strip_prefix(&src)?.strip_suffix(".rs")?;
                let stem = stem.strip_suffix("/mod").unwrap_or(stem);
                let name = stem.rsplit('/').next()?;
                let top = ["lib", "main"].contains(&stem);
                (is_identifier(name) && !top).then(|| {
                    let module = Module {
                        file: p.clone(),
                        folder: format!("{src}{stem}/"),
                    };
                    (name.to_string(), module)
                })
            });
            for (name, module) in modules {
                roots.entry(name).or_default().push(module);
            }
            roots.entry(name).or_default().push(crate_root.clone());
            if let Some(short) = short {
                roots.entry(short).or_default().push(crate_root);
            }
        }
        for namespace in COMPONENT_NAMESPACES {
            roots.remove(namespace);
        }
        roots
    }

    /// Submodule `name` of `module`: `name.rs` or `name/mod.rs` in its folder.
    fn child(&self, module: &Module, name: &str) -> Option<Module> {
        let folder = format!("{}{name}/", module.folder);
        [
            format!("{}{name}.rs", module.folder),
            format!("{folder}mod.rs"),
        ]
        .into_iter()
        .find(|file| self.paths.contains(file))
        .map(|file| Module { file, folder })
    }

    /// Whether the code of `module` or of any module below it names `word`.
    fn module_names(&self, module: &Module, word: &str) -> bool {
        let below = self.code.range(module.folder.clone()..);
        let below = below.take_while(|(file, _)| file.starts_with(&module.folder));
        let own = self.code.get(&module.file).into_iter();
        (own.chain(below.map(|(_, text)| text))).any(|text| contains_word(text, word))
    }

    /// Whether `path` (relative to the root; `*` as in [`glob_matches`]) names a file or a
    /// folder, or lies in a build output `.gitignore` names.
    fn exists(&self, path: &str) -> bool {
        let bare = path.trim_end_matches('/');
        let as_folder = format!("{bare}/");
        let found = if bare.contains('*') {
            (self.paths.iter()).any(|p| glob_matches(bare, p) || glob_matches(&as_folder, p))
        } else {
            self.paths.contains(bare) || self.paths.contains(&as_folder)
        };
        found || (self.ignored.iter()).any(|i| bare == i || bare.starts_with(&format!("{i}/")))
    }

    /// Why the path-like `word` of a doc in `doc_folder` is stale, if it is (see [`stale_names`]).
    fn stale_path(&self, doc_folder: &str, word: &str) -> Option<String> {
        let path = match word.find(':') {
            None => word,
            Some(at) => {
                let rest = &word[at + 1..];
                let item = rest
                    .strip_prefix(':')
                    .is_some_and(|i| i.starts_with(is_identifier_start));
                let line = rest.starts_with(|c: char| c.is_ascii_digit());
                if !(item || line) {
                    return None;
                }
                &word[..at]
            }
        };
        let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        let plain = |s: &&str| {
            // Not empty, and not `.` or `..` (a segment of dots only).
            !s.chars().all(|c| c == '.')
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.*-".contains(c))
        };
        if segments.len() < 2
            || !segments.iter().all(plain)
            || !word.starts_with(is_identifier_start)
        {
            return None;
        }
        if PATH_ROOTS.contains(&segments[0]) {
            let crate_relative =
                doc_folder.starts_with("crates/") && self.exists(&format!("{doc_folder}{path}"));
            return (!self.exists(path) && !crate_relative)
                .then(|| "no such file or folder".to_string());
        }
        if path.ends_with(".rs") {
            let suffix = format!("/{path}");
            let found = self.paths.iter().any(|p| p.ends_with(&suffix));
            return (!found).then(|| "no Rust file has this path's end".to_string());
        }
        if path.ends_with('/') && segments.iter().all(|s| is_identifier(s)) {
            let suffix = format!("/{path}");
            let found = self.paths.iter().any(|p| p.ends_with(&suffix));
            return (!found).then(|| "no folder has this path's end".to_string());
        }
        None
    }

    /// Why the Rust path starting `word` is stale, if it is ours and stale (see [`stale_names`]).
    fn stale_rust_path(&self, word: &str) -> Option<String> {
        let end = word
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(word.len());
        let segments: Vec<&str> = word[..end].split("::").collect();
        if segments.len() < 2 || !segments.iter().all(|s| is_identifier(s)) {
            return None;
        }
        let (first, rest) = (segments[0], &segments[1..]);
        if first.starts_with(|c: char| c.is_ascii_uppercase()) {
            let files = self.type_files.get(first)?;
            let named = |member: &&str| files.iter().any(|f| contains_word(&self.code[f], member));
            return rest
                .iter()
                .find(|member| !named(member))
                .map(|member| format!("`{member}` is in none of the files that define `{first}`"));
        }
        let candidates = self.roots.get(first)?;
        let mut why = None;
        for module in candidates {
            match self.resolve(module.clone(), rest) {
                Ok(()) => return None,
                Err(e) => why = why.or(Some(e)),
            }
        }
        why
    }

    /// Walks `segments` down from `module`: lower-case segments are submodules (the last may
    /// also be a function or constant the module names); from the first other one on, each
    /// segment (a type, then its members) must be named in the module's code.
    fn resolve(&self, mut module: Module, segments: &[&str]) -> Result<(), String> {
        for (at, segment) in segments.iter().enumerate() {
            let is_last = at + 1 == segments.len();
            if segment.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
                if let Some(child) = self.child(&module, segment) {
                    module = child;
                    continue;
                }
                if is_last && self.module_names(&module, segment) {
                    return Ok(());
                }
                return Err(format!("no module or item `{segment}` in {}", module.file));
            }
            return match segments[at..]
                .iter()
                .find(|s| !self.module_names(&module, s))
            {
                Some(missing) => Err(format!("`{missing}` is named nowhere in {}", module.file)),
                None => Ok(()),
            };
        }
        Ok(())
    }
}

fn is_identifier_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// The inline code spans of `text` outside fenced code blocks, with their 1-based line.
fn code_spans(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(text) {
        let mut rest = line;
        while let Some(open) = rest.find('`') {
            let ticks = rest[open..].len() - rest[open..].trim_start_matches('`').len();
            let fence = &rest[open..open + ticks];
            let after = &rest[open + ticks..];
            let Some(close) = after.find(fence) else {
                break;
            };
            out.push((n, after[..close].trim()));
            rest = &after[close + ticks..];
        }
    }
    out
}

/// The stale names in the backticked code spans of `doc` (outside fenced code blocks), as
/// "doc:line: `word`: why". Each whitespace-separated word of a span is read as:
///
/// - **A repository path** when it is `/`-separated segments of letters, digits, `_`, `-`, `.`
///   and `*`, starts with a letter or `_`, and has at least two segments; a trailing `:line`
///   (`:12`, `:12:4`) or `::item` is left off. One starting with a top folder of
///   [`PATH_ROOTS`] (`src/…`, `crates/…`, `oracle-live/…`) must exist from the repository's
///   root (from the crate's folder too, in `crates/<name>/` docs); `*` matches any characters
///   but `/`, and a path under a build output rooted in `.gitignore` counts as existing. One
///   starting elsewhere is checked only when it ends in `.rs` (`ui/hierarchy/drop.rs`: some
///   file's path must end with it) or is a folder of identifiers ending in `/` (`crdt/network/`:
///   some folder's must).
/// - **A Rust path** when it starts with `a::b` made of identifiers (what follows the last
///   identifier, like `(…)` or ` { … }`, is left off). It is ours, and checked, when its first
///   segment is a crate's name (`scenetree_core`), a crate's folder name (`viewport`) or the
///   name of any module of a crate (`model`; `network` for `crdt::network`, as the docs shorten
///   paths), except the Decentraland component namespaces of [`COMPONENT_NAMESPACES`]; it
///   passes when it resolves from one of the modules of that name. Its lower-case segments must
///   be modules (`x.rs` or `x/mod.rs` below the previous one), except that the last may be a
///   function or constant the module's code names; from its first other segment on (a type,
///   its members) each must be named in the code of that module or those below it. A path
///   starting with an upper-case segment (`Document::apply`) is checked when our code defines
///   or implements that type: each later segment must be named in a file that does.
///
/// Anything else (`@dcl/ecs`, `ws://…`, `serde_json::Value`, `core::Transform`, plain words) is
/// not a name of ours and is not checked. "Named in code" means as a whole word outside `//`
/// comments, so a name kept alive only by a comment is still stale.
fn stale_names(repo: &Repository, root: &Path, doc: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(doc).unwrap_or_default();
    let shown = doc.strip_prefix(root).unwrap_or(doc);
    let doc_folder = shown
        .parent()
        .map(|p| p.to_string_lossy().replace('\\', "/") + "/")
        .unwrap_or_default();
    let mut stale = Vec::new();
    for (line, span) in code_spans(&text) {
        for word in span.split_whitespace() {
            let why = (repo.stale_path(&doc_folder, word)).or_else(|| repo.stale_rust_path(word));
            if let Some(why) = why {
                stale.push(format!("{}:{line}: `{word}`: {why}", shown.display()));
            }
        }
    }
    stale
}

/// The documents whose backticked names are checked: README.md, ARCHITECTURE.md, everything
/// under docs/ and each crate's README.md.
fn reference_docs(root: &Path) -> Vec<PathBuf> {
    let mut docs = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    docs.extend(markdown_files(&root.join("docs")));
    let crates = std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten();
    let mut readmes: Vec<PathBuf> = crates
        .map(|c| c.path().join("README.md"))
        .filter(|r| r.exists())
        .collect();
    readmes.sort();
    docs.extend(readmes);
    docs
}

#[test]
fn every_backticked_path_and_module_in_the_docs_exists() {
    let root = root();
    let repo = Repository::read(&root);
    let docs = reference_docs(&root);
    assert!(
        docs.iter().any(|d| d.ends_with("docs/design/io.md")),
        "the docs were not found: {docs:?}"
    );
    let stale: Vec<String> = docs
        .iter()
        .flat_map(|d| stale_names(&repo, &root, d))
        .collect();
    assert!(
        stale.is_empty(),
        "the docs name what does not exist (rules: tests/docs.rs, stale_names):\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_name_check_can_fail() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(".gitignore", "/target\n/bench/out\n");
    write("src/lib.rs", "pub mod editor;\n");
    write("src/editor/mod.rs", "mod document;\npub use document::*;\n");
    write(
        "src/editor/document.rs",
        "pub struct Document {\n    stamp: u64,\n}\nimpl Document {\n    pub fn apply(&self) {} // disk_stamp went\n}\n",
    );
    write(
        "crates/core/Cargo.toml",
        "[package]\nname = \"scenetree-core\"\n",
    );
    write("crates/core/src/lib.rs", "pub mod model;\n");
    write(
        "crates/core/src/model/mod.rs",
        "pub mod present;\npub struct Entity;\n",
    );
    write("crates/core/src/model/present.rs", "pub fn fixed() {}\n");
    write("crates/core/tests/real.rs", "");
    write(
        "crates/core/README.md",
        "`tests/real.rs` `src/model/present.rs` `tests/unreal.rs`\n",
    );
    write(
        "docs/page.md",
        "Fine: `src/editor/document.rs:4` `crates/*/src/model/` `editor/document.rs` `model/` \
         `crates/core/src/model/present.rs::fixed` `bash crates/core/Cargo.toml` \
         `bench/out/speed.bin` `assets/scene/main.composite` `@dcl/ecs` `ws://127.0.0.1:8000/x` \
         `editor::Document::apply` `editor::Document { stamp }` `model::present::fixed` \
         `scenetree_core::model::Entity` `present::fixed` `core::model` `Document::apply(&self)` \
         `Matrix::new` \
         `core::Transform` `inspector::Nodes` `serde_json::Value` `a/b` `Vec` `x: y`.\n\
         ```\n`src/in_a_code_block.rs`\n```\n\
         Stale: `src/editor/gone.rs` `ui/component_fields.rs` `docs/moved.md:3` \
         `model::dcl::codec` `editor::Dokument` `Document::disk_stamp` `model::gone` \
         `scenes/NN-*.json` `crdt/network/` `scenetree_core::model::present::round` \
         `present::round`\n",
    );
    let repo = Repository::read(root);
    let mut stale = stale_names(&repo, root, &root.join("docs/page.md"));
    stale.extend(stale_names(
        &repo,
        root,
        &root.join("crates/core/README.md"),
    ));
    let words: Vec<&str> = stale.iter().map(|s| s.split('`').nth(1).unwrap()).collect();
    assert_eq!(
        words,
        [
            "src/editor/gone.rs",
            "ui/component_fields.rs",
            "docs/moved.md:3",
            "model::dcl::codec",
            "editor::Dokument",
            "Document::disk_stamp",
            "model::gone",
            "scenes/NN-*.json",
            "crdt/network/",
            "scenetree_core::model::present::round",
            "present::round",
            "tests/unreal.rs",
        ],
        "{stale:#?}"
    );
    assert!(stale[0].starts_with("docs/page.md:5: "), "{}", stale[0]);
}
