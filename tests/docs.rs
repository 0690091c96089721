//! The documentation a newcomer reads: README and ARCHITECTURE stay short enough to read in one
//! sitting, and every relative link in the repository's Markdown leads to a file that exists
//! (docs move; their links must follow).

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

/// The targets of the inline links and images in `text` (`[x](target)`, `![x](target "t")`),
/// without their `#anchor`; web addresses, mail addresses and bare anchors are left out.
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code_block = !in_code_block;
            continue;
        }
        if in_code_block {
            continue;
        }
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
