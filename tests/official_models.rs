//! herd7's OFFICIAL model files, run unmodified by our engine, give herd7's answers on our
//! suite (`litmus/`, answers in `litmus/herd7-answers.jsonl`).
//!
//! The files are not ours and are not in the repository: set `HERDTOOLS7` to a herdtools7
//! tree (a clone of github.com/herd/herdtools7) to run this test; without it the test
//! skips loudly (a failure under `LITMUS_REQUIRE_HERD`). The model per architecture is the one herd7 uses:
//! `catalogue/linux/cfgs/linux-kernel.cfg` for C (its `lock.cat` includes herd's
//! library files `cross.cat` and `cos-opt.cat`, which we provide), and
//! `herd/libdir/{x86tso,x86tso-mixed,aarch64,ppc}.cat` for the machine dialects
//! (`aarch64.cat` computes its own dependencies from register events: `catdep`).

mod common;
use common::{norm, root};

use litmus::judge::{self, Options};
use litmus::litmus::ast::Arch;
use litmus::litmus::parse_file;
use litmus::model::{Loaded, Request, load_files};
use litmus::report::herd;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The official files herd7 would use for `arch`, as a request.
fn request(tree: &Path, arch: Arch) -> Request {
    let lib = tree.join("herd/libdir");
    let cat = |name: &str| Request {
        cat: Some(lib.join(name)),
        ..Request::default()
    };
    match arch {
        Arch::C => Request {
            conf: Some(tree.join("catalogue/linux/cfgs/linux-kernel.cfg")),
            ..Request::default()
        },
        Arch::X86 => cat("x86tso.cat"),
        // herd7's default model for X86_64.
        Arch::X86_64 => cat("x86tso-mixed.cat"),
        Arch::AArch64 => cat("aarch64.cat"),
        Arch::PPC => cat("ppc.cat"),
    }
}

#[test]
fn official_model_files_give_herd7_answers() {
    let Some(tree) = std::env::var_os("HERDTOOLS7").map(PathBuf::from) else {
        common::skip::skip(
            common::skip::Need::Herd,
            "official_model_files_give_herd7_answers",
            "HERDTOOLS7 is not set (a herdtools7 source tree, for its model files)",
        );
        return;
    };
    assert!(
        tree.join("herd/libdir/stdlib.cat").is_file(),
        "HERDTOOLS7={} is not a herdtools7 tree",
        tree.display()
    );
    let answers = std::fs::read_to_string(root().join("litmus/herd7-answers.jsonl")).unwrap();
    let mut models: BTreeMap<String, Loaded> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut checked = 0;
    // A sample: every other recorded test, which covers every architecture.
    for line in answers.lines().filter(|l| !l.trim().is_empty()).step_by(2) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let rel = v["file"].as_str().unwrap();
        let t = parse_file(&root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let key = format!("{:?}", t.arch);
        let m = models.entry(key).or_insert_with(|| {
            load_files(&request(&tree, t.arch))
                .unwrap_or_else(|e| panic!("{rel}: loading the official model: {e}"))
                .expect("a model file was named")
        });
        let j = match judge::run(&t, &m.model, m.macros.as_ref(), &Options::default()) {
            Ok(j) => j,
            // Our extensions (cpu_relax, try_cmpxchg) are unknown to the kernel's own
            // macro file, exactly as herd7 reports them.
            Err(e) if e.to_string().contains("unknown macro") => continue,
            Err(e) => panic!("{rel}: {e}"),
        };
        let ours: BTreeSet<String> = j
            .states
            .iter()
            .map(|s| norm(&herd::show_state(&j, s)))
            .collect();
        let theirs: BTreeSet<String> = v["states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| norm(s.as_str().unwrap()))
            .collect();
        let observation = v["observation"].as_str().unwrap();
        if ours != theirs || j.observation() != observation {
            disagreements.push(format!(
                "{rel}: herd7 {observation} {theirs:?}, ours {} {ours:?}",
                j.observation()
            ));
        }
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} tests checked");
    assert!(
        disagreements.is_empty(),
        "official models disagree with herd7:\n{}",
        disagreements.join("\n")
    );
}
