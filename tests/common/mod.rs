//! Helpers shared by the integration tests (each test binary uses some of them).
#![allow(dead_code)]

use litmus::litmus::ast::Test;
use litmus::model::{self, Loaded, Request};
use litmus::outcome::{Judgement, Options, judge};
use litmus::report;
use std::path::{Path, PathBuf};

/// A shipped model by name.
pub fn shipped(name: &str) -> Loaded {
    model::load_shipped(name, &Request::default()).unwrap()
}

/// `t` judged under `m` with `opts`.
pub fn judged_with_options(t: &Test, m: &Loaded, opts: Options) -> Judgement {
    judge(t, &m.model, m.macros.as_ref(), &opts).unwrap()
}

/// What a judgement answers, in herd's words: states, witness counts, flags, loop cut.
pub fn answer(j: &Judgement) -> (Vec<String>, (usize, usize), Vec<String>, bool) {
    let states = j
        .states
        .iter()
        .map(|s| report::herd::show_state(j, s))
        .collect();
    (
        states,
        j.witnesses(),
        j.flags.iter().cloned().collect(),
        j.cut,
    )
}

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
