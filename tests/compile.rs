//! `litmus compile` and `check --compile`: C tests compiled through the shipped mappings
//! give the hand-compiled tests' answers, print in herd syntax that parses back, and a
//! deliberately broken mapping shows up as unsound against the LKMM.

mod common;

use common::{root, shipped};
use litmus::compile::{self, Compiled, compare, mapping::Mapping};
use litmus::litmus::{ast::Test, parse, parse_file};
use litmus::model;
use litmus::outcome::{self, Judgement, Options};
use std::path::Path;

fn load(rel: &str) -> Test {
    parse_file(&root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn judge(t: &Test, model_name: &str) -> Judgement {
    let m = shipped(model_name);
    outcome::judge(t, &m.model, m.macros.as_ref(), &Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", t.name))
}

fn compiled(t: &Test, mapping: &str) -> Compiled {
    let m = Mapping::load(mapping).unwrap_or_else(|e| panic!("{e}"));
    compile::compile(t, &m).unwrap_or_else(|e| panic!("{}: {mapping}: {e}", t.name))
}

fn hw(m: &Mapping) -> &'static str {
    model::default_for(m.arch)
}

/// The LKMM's and each mapping's judgement, compared state by state.
fn comparison(t: &Test, maps: &[Mapping]) -> compare::Comparison {
    let lk = judge(t, "lkmm");
    let judged: Vec<(String, Compiled, Judgement)> = maps
        .iter()
        .map(|m| {
            let c = compile::compile(t, m).unwrap_or_else(|e| panic!("{e}"));
            let j = judge(&c.test, hw(m));
            (m.name.clone(), c, j)
        })
        .collect();
    let cols: Vec<(String, &Compiled, &Judgement)> =
        judged.iter().map(|(n, c, j)| (n.clone(), c, j)).collect();
    compare::compare(&lk, &cols).expect("comparable")
}

#[test]
fn hand_compiled_lock_tests_are_matched_by_the_kernel_mappings() {
    // (C test, mapping, hand-compiled test of litmus/locks)
    let pairs = [
        (
            "C/SB+unlock-lock+mb",
            "ppc-lwsync",
            "PPC/SB+unlock-lock-lwsync+sync",
        ),
        (
            "C/SB+unlock-lock+mb",
            "ppc-sync",
            "PPC/SB+unlock-lock-sync+sync",
        ),
        (
            "C/MP+unlock-lock+rmb",
            "ppc-lwsync",
            "PPC/MP+unlock-lock-lwsync+sync",
        ),
        ("C/spinlock-mutex", "ppc-lwsync", "PPC/spinlock-mutex"),
        (
            "C/SB+unlock-lock+mb",
            "aarch64-lse",
            "AArch64/SB+unlock-lock+dmb.ish",
        ),
        ("C/SB+unlock-lock+mb", "x86", "X86/SB+unlock-lock+mfence"),
        ("C/spinlock-mutex", "x86", "X86/spinlock-mutex+xchg"),
    ];
    for (c, m, hand) in pairs {
        let t = load(&format!("litmus/locks/{c}.litmus"));
        let comp = compiled(&t, m);
        let mine = judge(&comp.test, hw(&Mapping::load(m).unwrap()));
        let h = load(&format!("litmus/locks/{hand}.litmus"));
        let theirs = judge(&h, model::default_for(h.arch));
        assert_eq!(
            mine.observation(),
            theirs.observation(),
            "{c} with {m} vs {hand}\n{}",
            comp.text
        );
    }
}

#[test]
fn the_unlock_barrier_separates_lwsync_from_sync_on_power() {
    let t = load("litmus/locks/C/SB+unlock-lock+mb.litmus");
    let maps = [
        Mapping::load("ppc-lwsync").unwrap(),
        Mapping::load("ppc-sync").unwrap(),
    ];
    let c = comparison(&t, &maps);
    assert!(c.unsound().is_empty());
    // Both reads 0: the LKMM (RCtso) and lwsync allow it, sync does not.
    let both_zero = c
        .rows
        .iter()
        .position(|r| r.values.iter().all(|v| v == "0"))
        .expect("the state 0,0");
    assert!(c.rows[both_zero].lkmm);
    assert_eq!(c.rows[both_zero].hw, vec![true, false]);
    assert_eq!(c.weaker_than(1), vec![both_zero]);
    assert!(c.weaker_than(0).is_empty());
}

fn write_map(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("litmus-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_store_release_without_its_barrier_is_caught_on_power() {
    let broken = write_map(
        "ppc-broken.map",
        "include ppc-lwsync\narch PPC\n\
         smp_store_release(p, v)  @ deliberately broken: no lwsync\n    stw {v},0({p})\n",
    );
    let t = load("litmus/classic/C/MP+rel+acq.litmus");
    let good = comparison(&t, &[Mapping::load("ppc-lwsync").unwrap()]);
    assert!(
        good.unsound().is_empty(),
        "the kernel's mapping is sound here"
    );
    let bad = comparison(&t, &[Mapping::load(broken.to_str().unwrap()).unwrap()]);
    let u = bad.unsound();
    assert_eq!(u.len(), 1, "{:?}", bad.rows);
    // The message-passing failure: the flag seen, the data not.
    assert_eq!(bad.state_text(u[0].0), "1:r0=1; 1:r1=0;");
}

#[test]
fn a_plain_store_unlock_is_caught_on_arm64() {
    let broken = write_map(
        "arm64-broken.map",
        "include aarch64-lse\narch AArch64\n\
         spin_unlock(l)  @ deliberately broken: a plain store, no release\n    STR XZR,[{l}]\n",
    );
    let t = load("litmus/locks/C/MP+unlock-lock+rmb.litmus");
    let bad = comparison(&t, &[Mapping::load(broken.to_str().unwrap()).unwrap()]);
    assert!(!bad.unsound().is_empty(), "{:?}", bad.rows);
}

#[test]
fn compiled_tests_print_in_syntax_our_parser_reads_back() {
    let mut n = 0;
    for dir in ["litmus/locks/C", "litmus/primitives/C", "litmus/classic/C"] {
        for f in common::suite_files() {
            if !f.starts_with(root().join(dir)) {
                continue;
            }
            let t = parse_file(&f).unwrap();
            for m in [
                "ppc-lwsync",
                "ppc-sync",
                "aarch64-llsc",
                "aarch64-lse",
                "x86",
            ] {
                let map = Mapping::load(m).unwrap();
                let Ok(c) = compile::compile(&t, &map) else {
                    continue;
                };
                let back = parse(&c.text)
                    .unwrap_or_else(|e| panic!("{}: {m}: {e}\n{}", f.display(), c.text));
                assert_eq!(back, c.test, "{}: {m}", f.display());
                assert!(c.text.contains(&format!("mapping {m}")));
                n += 1;
            }
        }
    }
    assert!(n > 100, "only {n} compiled tests");
}

#[test]
fn mapping_and_compile_errors_are_located() {
    let no_cite = write_map("nocite.map", "arch PPC\n\nsmp_mb()\n    sync\n");
    let e = Mapping::load(no_cite.to_str().unwrap()).unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.msg.contains("cite"), "{e}");
    let bad_asm = write_map(
        "badasm.map",
        "include ppc-lwsync\narch PPC\nsmp_mb()  @ x\n    frobnicate r1\n",
    );
    let t = load("litmus/classic/C/SB+mbs.litmus");
    let e = compile::compile(&t, &Mapping::load(bad_asm.to_str().unwrap()).unwrap()).unwrap_err();
    assert!(e.msg.contains("badasm.map:4"), "{e}");
    let t = load("litmus/classic/C/SB+mbs.litmus");
    let empty = write_map("empty.map", "arch X86\n");
    let e = compile::compile(&t, &Mapping::load(empty.to_str().unwrap()).unwrap()).unwrap_err();
    assert!(e.msg.contains("`WRITE_ONCE` has no entry"), "{e}");
    // herd's X86 has no ordered conditional jump: a loop bound `i < 2` is a located error
    // there, and compiles on PPC.
    let t = litmus::litmus::parse(
        "C lt\n{}\nP0(int *x) {\n  int i;\n  for (i = 0; i < 2; i++) WRITE_ONCE(*x, i);\n}\n\
         P1(int *x) { int r0 = READ_ONCE(*x); }\nexists (1:r0=1)\n",
    )
    .unwrap();
    let e = compile::compile(&t, &Mapping::load("x86").unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("line 5:3") && e.msg.contains("no conditional jump"),
        "{e}"
    );
    assert!(compile::compile(&t, &Mapping::load("ppc-lwsync").unwrap()).is_ok());
}

#[test]
fn the_kernel_fallbacks_build_orderings_from_relaxed_forms() {
    let ppc = Mapping::load("ppc-lwsync").unwrap();
    let r = ppc.resolve("atomic_add_return_acquire").unwrap();
    assert_eq!(r.entry.name, "atomic_add_return_relaxed");
    assert_eq!(r.after, Some("__atomic_acquire_fence"));
    let r = ppc.resolve("xchg").unwrap();
    assert_eq!(r.entry.name, "xchg_relaxed");
    assert_eq!(
        (r.before, r.after),
        (
            Some("__atomic_pre_full_fence"),
            Some("__atomic_post_full_fence")
        )
    );
    // x86 has only fully ordered atomics: the other orderings are those.
    let x86 = Mapping::load("x86").unwrap();
    let r = x86.resolve("atomic_fetch_add_relaxed").unwrap();
    assert_eq!(
        (r.entry.name.as_str(), r.before, r.after),
        ("atomic_fetch_add", None, None)
    );
    // arm64 defines each ordering itself.
    let arm = Mapping::load("aarch64-lse").unwrap();
    assert!(
        arm.resolve("atomic_fetch_or_release")
            .unwrap()
            .entry
            .cite
            .contains("ldSET")
    );
    for m in [
        "ppc-lwsync",
        "ppc-sync",
        "aarch64-llsc",
        "aarch64-lse",
        "x86",
    ] {
        let map = Mapping::load(m).unwrap();
        assert!(map.entries().all(|e| !e.cite.is_empty()));
        for name in [
            "READ_ONCE",
            "smp_load_acquire",
            "smp_mb",
            "smp_rmb",
            "smp_wmb",
            "smp_mb__before_atomic",
            "smp_mb__after_atomic",
            "smp_mb__after_spinlock",
            "smp_mb__after_unlock_lock",
            "spin_lock",
            "spin_unlock",
            "spin_trylock",
            "spin_is_locked",
            "xchg_acquire",
            "cmpxchg_release",
            "atomic_fetch_andnot_acquire",
            "atomic_dec_return_release",
            "try_cmpxchg_relaxed",
            "atomic_add_unless",
        ] {
            assert!(map.resolve(name).is_some(), "{m}: {name}");
        }
    }
}

#[test]
fn herd7_agrees_on_compiled_tests_when_present() {
    let herd = Path::new("/work/herd/bin/herd7");
    if !herd.exists() {
        eprintln!(
            "SKIPPED: no herd7 at {}: compiled tests not checked against it",
            herd.display()
        );
        return;
    }
    for (c, m, cat) in [
        (
            "litmus/primitives/C/SB+xchg_relaxeds.litmus",
            "ppc-sync",
            "ppc.cat",
        ),
        (
            "litmus/classic/C/MP+rel+acq.litmus",
            "aarch64-llsc",
            "aarch64.cat",
        ),
        ("litmus/primitives/C/SB+xchgs.litmus", "x86", "x86tso.cat"),
    ] {
        let comp = compiled(&load(c), m);
        let p = std::env::temp_dir().join(format!("litmus-herd-{}-{m}.litmus", std::process::id()));
        std::fs::write(&p, &comp.text).unwrap();
        let out = std::process::Command::new(herd)
            .arg("-model")
            .arg(cat)
            .arg(&p)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let mine = judge(&comp.test, hw(&Mapping::load(m).unwrap()));
        let obs = format!("Observation {} {}", mine.name, mine.observation());
        assert!(
            text.contains(&obs),
            "{c} with {m}: herd7 says\n{text}\nwe say {obs}"
        );
    }
}

/// Every primitive the checker accepts in C (cat/lkmm.def) compiles in every shipped
/// mapping: an entry for it (or for the name it stands for), or a refusal saying why.
#[test]
fn every_primitive_the_checker_accepts_has_an_entry_in_every_mapping() {
    let def = std::fs::read_to_string(root().join("cat/lkmm.def")).unwrap();
    let names: std::collections::BTreeSet<&str> = def
        .lines()
        .filter_map(|l| l.split_once('(').map(|(n, _)| n.trim()))
        .filter(|n| compile::mapping::is_ident(n) && !n.starts_with("__"))
        .collect();
    assert!(names.len() > 300, "{} names", names.len());
    let mut missing = Vec::new();
    for m in [
        "ppc-lwsync",
        "ppc-sync",
        "aarch64-llsc",
        "aarch64-lse",
        "x86",
    ] {
        let map = Mapping::load(m).unwrap();
        for n in &names {
            // `likely()`/`unlikely()` are the compiler's `!!(x)`, no table entry.
            if !matches!(*n, "likely" | "unlikely") && map.resolve(n).is_none() {
                missing.push(format!("{m}: {n}"));
            }
        }
    }
    assert!(missing.is_empty(), "no entry for:\n{}", missing.join("\n"));
}
