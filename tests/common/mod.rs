//! Helpers shared by the integration tests (each test binary uses some of them).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The crate's root folder.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A final state with its items sorted and spaces dropped, so that states compare as sets of
/// `location=value` items, as herd's own comparisons (and `conform`) do.
pub fn norm(s: &str) -> String {
    let mut items: Vec<String> = s
        .split(';')
        .map(|x| x.replace(' ', ""))
        .filter(|x| !x.is_empty())
        .collect();
    items.sort();
    items.join(";")
}

/// Every `.litmus` file of our suite (`litmus/`), in order.
pub fn suite_files() -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&root().join("litmus"), &mut v);
    v.sort();
    v
}
