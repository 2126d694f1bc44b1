//! Helpers shared by the integration tests (each test binary uses some of them).
#![allow(dead_code)]

use litmus::judge::{self, Judgement, Options};
use litmus::litmus::{ast::Test, parse};
use litmus::model::{self, Loaded, Request};
use litmus::report;
use std::path::{Path, PathBuf};

pub mod process;
pub mod skip;
pub mod terminal;

/// A shipped model by name.
pub fn shipped(name: &str) -> Loaded {
    model::load_shipped(name, &Request::default()).unwrap()
}

/// `t` judged under `m` with `opts`.
pub fn judged_with_options(t: &Test, m: &Loaded, opts: Options) -> Judgement {
    judge::run(t, &m.model, m.macros.as_ref(), &opts).unwrap()
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

/// Every `.litmus` file under `dir` (relative to the crate's root), sorted; folders named
/// in `skip` are not entered.
pub fn litmus_files(dir: &str, skip: &[&str]) -> Vec<PathBuf> {
    fn walk(d: &Path, skip: &[&str], out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            let skipped = p.file_name().is_some_and(|n| skip.iter().any(|s| n == *s));
            if p.is_dir() && !skipped {
                walk(&p, skip, out);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&root().join(dir), skip, &mut v);
    v.sort();
    v
}

/// Every `.litmus` file of our suite (`litmus/`), in order; `litmus/kernel/`, whose
/// kernel-style tests herd7 cannot read, is checked through its pairs (tests/kernel_pairs.rs).
pub fn suite_files() -> Vec<PathBuf> {
    litmus_files("litmus", &["kernel"])
}

/// Each test of our suite with its architecture's model.
pub fn suite() -> impl Iterator<Item = (PathBuf, Test, Loaded)> {
    suite_files().into_iter().map(|f| {
        let t = parse(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let m = shipped(model::default_for(t.arch));
        (f, t, m)
    })
}

/// A lock emulated with `lock` (taking `sl`) and `smp_store_release(sl, 0)` around store
/// buffering on `n` threads, the condition naming the lock's old values too (perfbook's
/// `-CE`/`-XE` tests).
pub fn lock_emulation(lock: &str, n: usize) -> Test {
    parse(&lock_emulation_text(lock, n)).unwrap()
}

/// The text of [`lock_emulation`].
pub fn lock_emulation_text(lock: &str, n: usize) -> String {
    let mut s = String::from("C SB-lock\n{\n}\n");
    for i in 0..n {
        let (x, y) = (i, (i + 1) % n);
        s += &format!("P{i}(int *sl, int *x{x}, int *x{y})\n{{\n\tint r1;\n\tint r2;\n");
        s += &format!("\tr2 = {lock};\n\tWRITE_ONCE(*x{x}, 1);\n");
        s += &format!("\tr1 = READ_ONCE(*x{y});\n\tsmp_store_release(sl, 0);\n}}\n");
    }
    let regs: Vec<String> = (0..n).map(|i| format!("{i}:r1=0 /\\ {i}:r2=0")).collect();
    s + &format!("exists ({})\n", regs.join(" /\\ "))
}
