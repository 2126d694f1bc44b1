//! The documentation a user reads: the README stays a front page (its two set-up
//! commands, usage, and where the rest is), the manual in `docs/` is a whole mdBook (every
//! chapter its summary names exists, and every chapter is named), and no relative link of
//! either points at a file that is not there.

mod common;

use common::root;
use std::path::{Path, PathBuf};

/// The README's most lines: a front page, not the manual.
const README_MAX_LINES: usize = 300;

/// The relative link targets of a Markdown text (`[text](target)`), anchors dropped.
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = &rest[..end];
        let external =
            target.contains("://") || target.starts_with('#') || target.starts_with("mailto:");
        if !external && !target.contains(' ') {
            out.push(target.split('#').next().unwrap_or("").to_string());
        }
    }
    out.retain(|t| !t.is_empty());
    out
}

fn broken_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let dir = file.parent().unwrap();
    relative_links(&text)
        .into_iter()
        .filter(|t| !dir.join(t).exists())
        .map(|t| format!("{}: {t}", file.display()))
        .collect()
}

fn chapters() -> Vec<PathBuf> {
    let src = root().join("docs/src");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    v.sort();
    v
}

#[test]
fn the_readme_is_a_front_page() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(lines <= README_MAX_LINES, "README.md has {lines} lines");
    for command in ["cargo run --release -- check", "cargo test --release"] {
        assert!(text.contains(command), "README.md lacks `{command}`");
    }
}

#[test]
fn every_chapter_is_in_the_summary_and_exists() {
    let summary = std::fs::read_to_string(root().join("docs/src/SUMMARY.md")).unwrap();
    let named = relative_links(&summary);
    assert!(named.len() >= 5, "the summary names {named:?}");
    for n in &named {
        assert!(
            root().join("docs/src").join(n).is_file(),
            "SUMMARY.md names {n}, missing"
        );
    }
    for c in chapters() {
        let name = c.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            name == "SUMMARY.md" || named.contains(&name),
            "docs/src/{name} is not in SUMMARY.md"
        );
    }
    assert!(root().join("docs/book.toml").is_file());
}

#[test]
fn no_relative_link_is_broken() {
    let mut files = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    files.extend(chapters());
    let broken: Vec<String> = files.iter().flat_map(|f| broken_links(f)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
