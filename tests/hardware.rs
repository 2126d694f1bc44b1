//! `check --model power|armv8|x86tso` on C tests: every C test of `litmus/` under every
//! hardware model, compiled through each of its architecture's kernel mappings by the
//! batch, gives the answer that compiling it by hand and judging the compiled test gives,
//! or a cell that says why there is none (not compiled, with the mapping's reason; out of
//! its budget). Never "model power covers PPC, but test is C".
//!
//! Judged at `--unroll 1` with 2 s per test and mapping, so the whole suite takes well
//! under a minute on two cores; a test out of its budget is a reasoned cell, not a failure.

mod common;

use common::{answer, root};
use litmus::batch::{self, Choice, Models, Record, Run, Settings, Status};
use litmus::compile::{self, mapping::Mapping};
use litmus::judge::{self, Options};
use litmus::litmus::{ast::Arch, ast::Test, parse_file};
use litmus::model::{self, Request};
use litmus::report::diag::Diagnostic;
use std::path::{Path, PathBuf};
use std::time::Duration;

const HARDWARE: [&str; 3] = ["x86tso", "armv8", "power"];
const BUDGET: Duration = Duration::from_secs(2);
const UNROLL: u32 = 1;

/// Every `.litmus` file under `litmus/`, sorted.
fn all_files() -> Vec<PathBuf> {
    common::litmus_files("litmus", &[])
}

fn load(p: &Path) -> Result<Test, Diagnostic> {
    parse_file(p).map_err(|e| Diagnostic::error(p.display().to_string(), None, e.to_string()))
}

fn options() -> Options {
    Options {
        unroll: UNROLL,
        ..Options::default()
    }
}

/// The C tests of `litmus/` under the hardware models, through the batch as `check` runs
/// it (the kernel's mappings).
fn batch_records(files: &[PathBuf]) -> Vec<Record> {
    let models = Models::load(Choice::named(HARDWARE.to_vec()), &Request::default())
        .expect("shipped models")
        .compiling(compile::mapping::kernel().expect("shipped mappings"));
    let settings = Settings {
        options: options(),
        timeout: Some(BUDGET),
        max_memory: None,
    };
    let run = Run {
        parallel: true,
        shuffled: false,
        done: &|| {},
    };
    batch::run(files, &load, &models, &settings, run)
}

/// The compiled test judged by hand: `litmus compile` then `litmus check`; `None` when
/// it runs out of the same budget.
fn by_hand(t: &Test, mapping: &str) -> Option<Result<litmus::judge::Judgement, String>> {
    let map = Mapping::load(mapping).expect("shipped mapping");
    let c = match compile::compile(t, &map) {
        Ok(c) => c,
        Err(e) => return Some(Err(e.to_string())),
    };
    let m = model::load_shipped(model::default_for(map.arch), &Request::default()).unwrap();
    let mut o = options();
    o.budget = litmus::budget::Budget::new(Some(BUDGET), None);
    match judge::run(&c.test, &m.model, m.macros.as_ref(), &o) {
        Ok(j) => Some(Ok(j)),
        Err(e) if e.exhausted.is_some() => None,
        Err(e) => panic!("{}@{mapping} by hand: {e}", t.name),
    }
}

#[test]
fn every_c_test_under_every_hardware_model_is_answered_as_compiled_by_hand() {
    let files: Vec<PathBuf> = all_files()
        .into_iter()
        .filter(|f| load(f).is_ok_and(|t| t.arch == Arch::C))
        .collect();
    assert!(files.len() > 100, "the suite's C tests: {}", files.len());
    let records = batch_records(&files);
    let (mut answered, mut reasoned) = (0, 0);
    for f in &files {
        let mine: Vec<&Record> = records.iter().filter(|r| &r.file == f).collect();
        let maps: Vec<&str> = mine.iter().filter_map(|r| r.mapping.as_deref()).collect();
        assert_eq!(
            maps,
            [
                "x86",
                "aarch64-llsc",
                "aarch64-lse",
                "ppc-lwsync",
                "ppc-sync"
            ],
            "{}: one record per mapping, the kernel's default first",
            f.display()
        );
        for r in mine {
            let t = r.test.as_deref().expect("parsed");
            let mapping = r.mapping.as_deref().expect("compiled");
            let at = format!("{}@{mapping}", f.display());
            match (&r.status, by_hand(t, mapping)) {
                (Status::Judged(j), Some(Ok(h))) => {
                    assert_eq!(answer(j), answer(&h), "{at}: batch vs by hand");
                    answered += 1;
                }
                (Status::Judged(_), None) => answered += 1,
                (Status::NotCompiled(why), Some(Err(e))) => {
                    assert_eq!(why, &e, "{at}");
                    assert!(!why.is_empty(), "{at}: a reason");
                    reasoned += 1;
                }
                (Status::Undetermined(..), _) => reasoned += 1,
                (Status::Error(e), _) => panic!("{at}: error {}", e.msg),
                (Status::NotApplicable, _) => panic!("{at}: refused"),
                (s, h) => panic!(
                    "{at}: batch {} vs by hand {:?}",
                    match s {
                        Status::Judged(_) => "judged",
                        Status::NotCompiled(_) => "not compiled",
                        _ => "other",
                    },
                    h.map(|h| h.map(|_| "judged"))
                ),
            }
        }
    }
    // The suite's C tests nearly all compile and are answered at this budget.
    assert!(
        answered > 10 * reasoned,
        "{answered} answered, {reasoned} not"
    );
}

/// A C test under a hardware model alone (herd's blocks) names each mapping's block; with
/// `--mapping none`, the model refuses C tests as herd does.
#[test]
fn a_c_test_under_power_is_a_block_per_mapping_and_none_refuses() {
    use common::process::{bin, run, text};
    let f = root().join("litmus/locks/C/SB+unlock-lock-same+mb.litmus");
    let mut c = bin();
    c.args(["check", "--model", "ppc"]).arg(&f);
    let o = run(c);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        out.contains("Observation SB+unlock-lock-same+mb@ppc-lwsync Sometimes")
            && out.contains("Observation SB+unlock-lock-same+mb@ppc-sync Never"),
        "{out}"
    );
    assert!(
        out.find("@ppc-lwsync").unwrap() < out.find("@ppc-sync").unwrap(),
        "the kernel's default first: {out}"
    );
    let mut c = bin();
    c.args(["check", "--model", "power", "--mapping", "none"])
        .arg(&f);
    let o = run(c);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("model power covers PPC, but test SB+unlock-lock-same+mb is C"),
        "{}",
        text(&o.stderr)
    );
}

/// JSON records of compiled tests carry their mapping; a test a mapping cannot compile is
/// `not-compiled` with the mapping's reason, and no error.
#[test]
fn json_records_carry_the_mapping_and_not_compiled_says_why() {
    use common::process::{bin, run, text};
    let f = root().join("litmus/kernel/constructs/MP+expressions.litmus");
    let mut c = bin();
    c.args(["check", "--model", "x86", "--format", "json"])
        .arg(&f);
    let o = run(c);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let recs: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["mapping"], "x86");
    assert_eq!(recs[0]["status"], "not-compiled");
    assert!(
        recs[0]["message"]
            .as_str()
            .unwrap()
            .contains("no X86_64 instruction"),
        "{}",
        recs[0]
    );
}

/// The architecture names every command takes: one table.
#[test]
fn architecture_names_are_one_table() {
    for (name, arch) in [
        ("power", Arch::PPC),
        ("ppc", Arch::PPC),
        ("armv8", Arch::AArch64),
        ("arm64", Arch::AArch64),
        ("aarch64", Arch::AArch64),
        ("x86", Arch::X86_64),
        ("x86_64", Arch::X86_64),
        ("x86tso", Arch::X86_64),
    ] {
        assert_eq!(model::target_arch(name), Some(arch), "{name}");
        assert!(model::canonical(name).is_some(), "{name}");
    }
    assert_eq!(model::target_arch("lkmm"), None);
}

/// Runs the binary in the crate's root with `args`; its status and standard output.
fn in_root(args: &[&str]) -> (Option<i32>, String, String) {
    use common::process::{bin, run, text};
    let mut c = bin();
    c.current_dir(root()).args(args);
    let o = run(c);
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

/// The lock code under every model: the LKMM, and each hardware model on the C tests
/// compiled through the kernel's mappings beside the hand-written assembly tests (at
/// `--unroll 1`: the compiled test-and-set loops take 40 s each on AArch64 at 2).
#[test]
fn table_of_the_lock_code_under_every_model_snapshot() {
    let (code, out, err) = in_root(&[
        "check",
        "--model",
        "all",
        "--unroll",
        "1",
        "--format",
        "table",
        "litmus/locks",
    ]);
    assert_eq!(code, Some(0), "{err}");
    insta::assert_snapshot!("table_locks_all", out);
}

/// `check --compile` as a soundness report: each column's answer to the condition, the
/// condition's states marked `*`, `Loop` where runs were cut, the unsound states with the
/// LKMM's reason, and the batch's summary.
#[test]
fn compile_report_snapshot() {
    let (code, out, err) = in_root(&[
        "check",
        "--compile",
        "--unroll",
        "1",
        "litmus/locks/C/tas-lock.litmus",
        "litmus/locks/C/SB+unlock-lock-same+mb.litmus",
        "litmus/locks/C/MP+rel-acq+rmb.litmus",
    ]);
    // tas-lock's xchg_acquire on POWER is unsound under herd's ppc.cat (herd7 agrees).
    assert_eq!(code, Some(1), "{err}");
    insta::assert_snapshot!("compile_report_locks", out);
}

/// `compile --arch` takes the same names as `--model`: `power` is PPC, `arm64` AArch64,
/// `x86tso` X86_64.
#[test]
fn compile_takes_every_architecture_name() {
    for (name, first) in [
        ("power", "PPC "),
        ("ppc", "PPC "),
        ("armv8", "AArch64 "),
        ("arm64", "AArch64 "),
        ("aarch64", "AArch64 "),
        ("x86", "X86_64 "),
        ("x86_64", "X86_64 "),
        ("x86tso", "X86_64 "),
    ] {
        let (code, out, err) = in_root(&[
            "compile",
            "--arch",
            name,
            "litmus/locks/C/SB+unlock-lock-same+mb.litmus",
        ]);
        assert_eq!(code, Some(0), "{name}: {err}");
        assert!(out.starts_with(first), "{name}: {out}");
    }
    let (code, _, err) = in_root(&[
        "compile",
        "--arch",
        "sparc",
        "litmus/locks/C/tas-lock.litmus",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown target `sparc`"), "{err}");
}

/// A 64-bit location compiles to PPC64's doubleword forms; a 32-bit one keeps the word
/// forms.
#[test]
fn u64_locations_take_doubleword_instructions_on_ppc() {
    let (code, out, err) = in_root(&[
        "compile",
        "--arch",
        "ppc",
        "litmus/kernel/primitives/SB+cmpxchg64s.litmus",
    ]);
    assert_eq!(code, Some(0), "{err}");
    // The code, past the header comment (whose citations name the word forms).
    let out = &out[out.find("\n{").expect("an init block")..];
    for i in ["ldarx", "stdcx.", "cmpd", "ld "] {
        assert!(out.contains(i), "{i}: {out}");
    }
    assert!(!out.contains("lwarx") && !out.contains("lwz"), "{out}");
    let (_, out, _) = in_root(&["compile", "--arch", "ppc", "litmus/locks/C/tas-lock.litmus"]);
    let out = &out[out.find("\n{").expect("an init block")..];
    assert!(out.contains("lwarx") && !out.contains("ldarx"), "{out}");
}

/// Compiled tests whose answer differs from herd7's, and why. `atomic_add_negative(-1, c)`
/// on `int c = -1` through the AArch64 tables, which use X registers for `atomic_t` where
/// the kernel uses its `%w` forms: herd7 reads the 32-bit -1 into an X register as
/// 0xffffffff, so the sum is not negative; our values have no width. The AArch64 tables'
/// `atomic_t` entries want W registers (`{r:w}`) for herd7 to agree.
const KNOWN_DIFFERENCES: &[&str] = &[
    "litmus/kernel/primitives/MP+dec_and_test-family.herd.litmus@aarch64-lse",
    "litmus/kernel/primitives/MP+dec_and_test-family.litmus@aarch64-lse",
];

/// herd7 7.58's answers on the compiled C tests of `litmus/` (recorded by
/// `bench/compiled_herd7.py record` in `litmus/compiled/herd7-answers.jsonl`): where herd7
/// finished, compiling and judging gives its final states and observation. herd7 accepts
/// every compiled test (no `error` record).
#[test]
fn compiled_tests_agree_with_herd7_where_it_finishes() {
    let path = root().join("litmus/compiled/herd7-answers.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let (mut same, mut unanswered) = (0, 0);
    let mut differ: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let h: serde_json::Value = serde_json::from_str(line).unwrap();
        let at = format!(
            "{}@{}",
            h["file"].as_str().unwrap_or(""),
            h["mapping"].as_str().unwrap_or("")
        );
        assert_ne!(
            h["status"], "error",
            "{at}: herd7 refused it: {}",
            h["message"]
        );
        if h["status"] != "ok" {
            continue;
        }
        let t = parse_file(&root().join(h["file"].as_str().unwrap())).unwrap();
        let map = Mapping::load(h["mapping"].as_str().unwrap()).unwrap();
        let c = compile::compile(&t, &map).unwrap_or_else(|e| panic!("{at}: {e}"));
        let m = model::load_shipped(model::default_for(map.arch), &Request::default()).unwrap();
        let o = Options {
            unroll: h["unroll"].as_u64().unwrap() as u32,
            budget: litmus::budget::Budget::new(Some(BUDGET), None),
            ..Options::default()
        };
        let Ok(j) = judge::run(&c.test, &m.model, m.macros.as_ref(), &o) else {
            unanswered += 1;
            continue;
        };
        let mut ours: Vec<String> = answer(&j).0.iter().map(|s| common::norm(s)).collect();
        let mut theirs: Vec<String> = h["states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| common::norm(s.as_str().unwrap()))
            .collect();
        ours.sort();
        theirs.sort();
        if ours == theirs && j.observation() == h["observation"] {
            same += 1;
        } else {
            differ.push(at);
        }
    }
    assert_eq!(differ, KNOWN_DIFFERENCES, "{same} agree");
    assert!(
        same > 10 * (unanswered + 1),
        "{same} agree, {unanswered} over budget"
    );
}

/// `litmus report` merges compiled records as `check` printed them: one per mapping, a
/// shard given twice counted once.
#[test]
fn report_keeps_one_record_per_mapping() {
    let (code, jsonl, err) = in_root(&[
        "check",
        "--model",
        "lkmm,power",
        "--format",
        "jsonl",
        "litmus/locks/C/SB+unlock-lock-same+mb.litmus",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let path = std::env::temp_dir().join(format!("litmus-hw-{}.jsonl", std::process::id()));
    std::fs::write(&path, &jsonl).unwrap();
    let p = path.to_str().unwrap();
    let (code, table, err) = in_root(&["report", "--format", "table", p, p]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(0), "{err}");
    let row = table.lines().nth(2).unwrap();
    assert!(
        row.ends_with("ppc-lwsync: allowed (4 states); ppc-sync: forbidden (3 states)"),
        "{table}"
    );
}
