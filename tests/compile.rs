//! `litmus compile` and `check --compile`: C tests compiled through the shipped mappings
//! give the hand-compiled tests' answers, print in herd syntax that parses back and that
//! herd7 answers as we do, compile every construct the checker takes (or say why not), and
//! a deliberately broken mapping shows up as unsound against the LKMM.
//!
//! Compiled lock loops multiply executions (a 2-thread LSE mutex takes minutes at the
//! default `--unroll 2`): the tests judge those at `--unroll 0`, where each lock, LL/SC
//! and CAS loop succeeds at its first attempt, so every test here runs in well under a
//! second without herd7.

mod common;

use common::{answer, norm, root, shipped};
use litmus::compile::{self, Compiled, compare, mapping::Mapping};
use litmus::judge::{self, Judgement, Options};
use litmus::litmus::{ast::Test, parse, parse_file};
use litmus::model;
use std::path::Path;

const MAPPINGS: [&str; 5] = [
    "ppc-lwsync",
    "ppc-sync",
    "aarch64-llsc",
    "aarch64-lse",
    "x86",
];

fn load(rel: &str) -> Test {
    parse_file(&root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn judge_at(t: &Test, model_name: &str, unroll: u32) -> Judgement {
    let m = shipped(model_name);
    let opts = Options {
        unroll,
        ..Options::default()
    };
    judge::run(t, &m.model, m.macros.as_ref(), &opts).unwrap_or_else(|e| panic!("{}: {e}", t.name))
}

fn judge(t: &Test, model_name: &str) -> Judgement {
    judge_at(t, model_name, Options::default().unroll)
}

fn compiled(t: &Test, mapping: &str) -> Compiled {
    let m = Mapping::load(mapping).unwrap_or_else(|e| panic!("{e}"));
    compile::compile(t, &m).unwrap_or_else(|e| panic!("{}: {mapping}: {e}", t.name))
}

fn hw(m: &Mapping) -> &'static str {
    model::default_for(m.arch)
}

/// `t` compiled with the shipped `mapping`, and the compiled test judged under its
/// architecture's model at `unroll`.
fn compiled_judged(t: &Test, mapping: &str, unroll: u32) -> (Compiled, Judgement) {
    let c = compiled(t, mapping);
    let j = judge_at(&c.test, model::default_for(c.test.arch), unroll);
    (c, j)
}

/// The LKMM's and each mapping's judgement, compared state by state.
fn comparison_at(t: &Test, maps: &[Mapping], unroll: u32) -> compare::Comparison {
    let lk = judge_at(t, "lkmm", unroll);
    let judged: Vec<(String, Compiled, Judgement)> = maps
        .iter()
        .map(|m| {
            let c = compile::compile(t, m).unwrap_or_else(|e| panic!("{e}"));
            let j = judge_at(&c.test, hw(m), unroll);
            (m.name.clone(), c, j)
        })
        .collect();
    let cols: Vec<(String, &Compiled, &Judgement)> =
        judged.iter().map(|(n, c, j)| (n.clone(), c, j)).collect();
    compare::compare(&lk, &cols).expect("comparable")
}

fn comparison(t: &Test, maps: &[Mapping]) -> compare::Comparison {
    comparison_at(t, maps, Options::default().unroll)
}

#[test]
fn hand_compiled_lock_tests_are_matched_by_the_kernel_mappings() {
    // (C test, mapping, hand-compiled test of litmus/locks, --unroll for the compiled one)
    let pairs = [
        (
            "C/SB+unlock-lock+mb",
            "ppc-lwsync",
            "PPC/SB+unlock-lock-lwsync+sync",
            2,
        ),
        (
            "C/SB+unlock-lock+mb",
            "ppc-sync",
            "PPC/SB+unlock-lock-sync+sync",
            2,
        ),
        (
            "C/MP+unlock-lock+rmb",
            "ppc-lwsync",
            "PPC/MP+unlock-lock-lwsync+sync",
            2,
        ),
        ("C/spinlock-mutex", "ppc-lwsync", "PPC/spinlock-mutex", 2),
        (
            "C/SB+unlock-lock+mb",
            "aarch64-llsc",
            "AArch64/SB+unlock-lock+dmb.ish",
            2,
        ),
        (
            "C/SB+unlock-lock+mb",
            "aarch64-lse",
            "AArch64/SB+unlock-lock+dmb.ish",
            0,
        ),
        (
            "C/spinlock-mutex",
            "aarch64-llsc",
            "AArch64/spinlock-mutex+ldaxr-stxr",
            0,
        ),
        (
            "C/spinlock-mutex",
            "aarch64-lse",
            "AArch64/spinlock-mutex+casa",
            0,
        ),
        ("C/SB+unlock-lock+mb", "x86", "X86/SB+unlock-lock+mfence", 2),
        ("C/spinlock-mutex", "x86", "X86/spinlock-mutex+xchg", 2),
    ];
    // AArch64/spinlock-mutex+swpa (a SWPA lock) has no kernel mapping to compare with;
    // X86/SB+unlock-lock-mov+mfence is a broken lock, caught below as a broken mapping.
    for (c, m, hand, unroll) in pairs {
        let t = load(&format!("litmus/locks/{c}.litmus"));
        let comp = compiled(&t, m);
        let mine = judge_at(&comp.test, hw(&Mapping::load(m).unwrap()), unroll);
        let h = load(&format!("litmus/locks/{hand}.litmus"));
        let theirs = judge(&h, model::default_for(h.arch));
        assert_eq!(
            mine.observation(),
            theirs.observation(),
            "{c} with {m} vs {hand}\n{}",
            comp.text
        );
        // The C test's own answer is the LKMM's, whatever the unrolling bound.
        assert_eq!(
            judge_at(&t, "lkmm", unroll).observation(),
            judge(&t, "lkmm").observation()
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
    let broken = |base: &str| {
        write_map(
            &format!("arm64-broken-{base}.map"),
            &format!(
                "include {base}\narch AArch64\n\
                 spin_unlock(l)  @ deliberately broken: a plain store, no release\n    STR XZR,[{{l}}]\n"
            ),
        )
    };
    let t = load("litmus/locks/C/MP+unlock-lock+rmb.litmus");
    // The unlock's writes before it are no longer ordered: the reader sees the unlock
    // (it takes the lock) but not the data written in the critical section.
    for (base, unroll) in [("aarch64-llsc", 2), ("aarch64-lse", 0)] {
        let good = comparison_at(&t, &[Mapping::load(base).unwrap()], unroll);
        assert!(good.unsound().is_empty(), "{base}: {:?}", good.rows);
        let p = broken(base);
        let bad = comparison_at(&t, &[Mapping::load(p.to_str().unwrap()).unwrap()], unroll);
        assert!(!bad.unsound().is_empty(), "{base}: {:?}", bad.rows);
    }
}

#[test]
fn a_lock_without_an_atomic_is_caught_on_x86() {
    // The lock taken with a plain read and a plain write (litmus/locks/X86's
    // SB+unlock-lock-mov+mfence): two CPUs may both take it.
    let broken = write_map(
        "x86-broken.map",
        "include x86\narch X86_64\n\
         spin_lock(l)  @ deliberately broken: no lock prefix, no xchg\n\
         \x20 {L1}: movq ({l}),{t}\n    cmpq $0,{t}\n    jne {L1}\n    movq $1,({l})\n",
    );
    let t = load("litmus/locks/C/spinlock-mutex.litmus");
    let good = comparison(&t, &[Mapping::load("x86").unwrap()]);
    assert!(good.unsound().is_empty(), "{:?}", good.rows);
    let bad = comparison(&t, &[Mapping::load(broken.to_str().unwrap()).unwrap()]);
    let u = bad.unsound();
    assert_eq!(u.len(), 1, "{:?}", bad.rows);
    // An increment lost: both critical sections read 0.
    assert_eq!(bad.state_text(u[0].0), "n=1;");
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
            for m in MAPPINGS {
                let map = Mapping::load(m).unwrap();
                let c = compile::compile(&t, &map)
                    .unwrap_or_else(|e| panic!("{}: {m}: {e}", f.display()));
                let back = parse(&c.text)
                    .unwrap_or_else(|e| panic!("{}: {m}: {e}\n{}", f.display(), c.text));
                assert_eq!(back, c.test, "{}: {m}", f.display());
                assert!(c.text.contains(&format!("mapping {m}")));
                n += 1;
            }
        }
    }
    assert!(n > 300, "only {n} compiled tests");
}

/// A pointer held in memory (`int *p = &y;` in C) starts as herd's assembly writes it,
/// `p=y;` (herd rejects `&` there), and the compiled test follows it as the C test does.
#[test]
fn a_pointer_in_memory_is_initialised_in_herds_syntax() {
    let t = parse(
        "C ptr\n{\nint y=1;\nint *p = &y;\n}\n\
         P0(int *x, int **p) {\n  WRITE_ONCE(*x, 2);\n  smp_wmb();\n  WRITE_ONCE(*p, x);\n}\n\
         P1(int **p) {\n  int *r2;\n  int r3;\n  r2 = READ_ONCE(*p);\n  r3 = READ_ONCE(*r2);\n}\n\
         exists (1:r2=x /\\ 1:r3=1)\n",
    )
    .unwrap();
    let c_states = judge(&t, "lkmm").states.len();
    for m in MAPPINGS {
        let (c, j) = compiled_judged(&t, m, Options::default().unroll);
        let init = &c.text[c.text.find("\n{").unwrap()..c.text.find("\n}").unwrap()];
        assert!(
            init.contains(" p=y;") && !init.contains('&'),
            "{m}:\n{}",
            c.text
        );
        assert_eq!(j.states.len(), c_states, "{m}:\n{}", c.text);
    }
}

/// A local the condition shows but only one path assigns (undeclared, as herd's C allows)
/// keeps 0 on the other paths: its register is never a scratch register, such as the one
/// holding a cmpxchg's expected value (corpus: `C-zx2c4-atomic`, unsound everywhere).
#[test]
fn a_shown_local_is_never_a_scratch_register() {
    let t = parse(
        "C zx2c4\n{\nint a=1;\n}\n\
         P0(int *a, int *b) {\n  if (atomic_cmpxchg(a, 1, 0) == 1) {\n    r1 = READ_ONCE(*b);\n  }\n}\n\
         P1(int *a) {\n  WRITE_ONCE(*a, 2);\n}\n\
         exists (0:r1=1)\n",
    )
    .unwrap();
    assert_eq!(judge(&t, "lkmm").observation(), "Never");
    for m in MAPPINGS {
        let (c, j) = compiled_judged(&t, m, Options::default().unroll);
        assert_eq!(j.observation(), "Never", "{m}:\n{}", c.text);
    }
}

/// Small C tests of every construct the compiler takes, with the constructs' effect on
/// the final state only (one thread decides, another writes once): under every
/// hardware model the compiled test has the C test's states, witness counts and
/// unrolling cut-off, at every bound.
const CONSTRUCTS: &[(&str, &str)] = &[
    (
        "return",
        "P0(int *x, int *y) {\n  int r0 = READ_ONCE(*x);\n  if (r0 == 0)\n    return;\n  \
         WRITE_ONCE(*y, 1);\n  r0 = 2;\n}\n",
    ),
    (
        "return-value-in-loop",
        "P0(int *x, int *y) {\n  int r0;\n  int i;\n  for (i = 0; i < 3; i++) {\n    \
         r0 = READ_ONCE(*x);\n    if (r0 == 1)\n      return i + 5;\n  }\n  WRITE_ONCE(*y, 1);\n}\n",
    ),
    (
        "local-array",
        "P0(int *x, int *y) {\n  int t[3];\n  int r0 = READ_ONCE(*x);\n  t[r0] = 4;\n  \
         t[2] = t[r0] + 1;\n  int r1 = t[1];\n  int r2 = t[0] + t[2];\n  WRITE_ONCE(*y, t[1]);\n}\n",
    ),
    (
        "loops",
        "P0(int *x, int *y) {\n  int r0 = 0;\n  int i;\n  int k = 0;\n  do {\n    \
         r0 = READ_ONCE(*x);\n    k++;\n    if (k == 2)\n      continue;\n  } while (r0 == 0);\n  \
         for (i = 0; i < 5; i++) {\n    if (READ_ONCE(*y) == 1)\n      break;\n  }\n  \
         while (1) {\n    if (READ_ONCE(*x) == 1)\n      break;\n  }\n}\n",
    ),
    (
        "expressions",
        "P0(int *x, int *y) {\n  int r0 = READ_ONCE(*x);\n  int r1;\n  int r2;\n  \
         r1 = r0++;\n  r2 = (r1 = r1 + 3) - 1;\n  if (likely(r1 > 3) && !unlikely(r0 < 1))\n    \
         r2 = -r2 ^ 5;\n  WRITE_ONCE(*y, r2 & 6);\n}\n",
    ),
    (
        "cond-load",
        "P0(int *x, int *y) {\n  int r0 = smp_cond_load_acquire(x, VAL != 0);\n  \
         int r1 = atomic_cond_read_relaxed(y, VAL == r0 - 1);\n}\n",
    ),
    (
        "pointers",
        "P0(int **x, int *y, int *z) {\n  int *r0 = READ_ONCE(*x);\n  int r1 = READ_ONCE(*r0);\n  \
         if (r1 == 0)\n    WRITE_ONCE(*z, 3);\n}\n",
    ),
];

fn construct_test(name: &str, p0: &str) -> Test {
    // P1 writes x (and y) once, after its initial value; the condition names P0's locals.
    let locals: Vec<String> = p0
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() == 2 && w.starts_with('r') && w.as_bytes()[1].is_ascii_digit())
        .map(|w| format!("0:{w}"))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let (init, p1) = if name == "pointers" {
        (
            "{ x = w; }",
            "P1(int **x, int *y) {\n  WRITE_ONCE(*x, y);\n}\n",
        )
    } else {
        (
            "{}",
            "P1(int *x, int *y) {\n  WRITE_ONCE(*x, 1);\n  WRITE_ONCE(*y, 1);\n}\n",
        )
    };
    let text = format!(
        "C {name}\n{init}\n{p0}\n{p1}\nlocations [{}]\nexists (x=1)\n",
        locals.join("; ")
    );
    parse(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"))
}

#[test]
fn every_construct_compiles_to_the_c_tests_answers() {
    for (name, p0) in CONSTRUCTS {
        let t = construct_test(name, p0);
        for unroll in [1, 2] {
            let lk = judge_at(&t, "lkmm", unroll);
            for m in MAPPINGS {
                let (c, j) = compiled_judged(&t, m, unroll);
                let cmp = compare::compare(&lk, &[(m.to_string(), &c, &j)]).unwrap();
                assert!(
                    cmp.rows.iter().all(|r| r.lkmm == r.hw[0]),
                    "{name} with {m} at --unroll {unroll}: {:?}\n{}",
                    cmp.rows,
                    c.text
                );
                assert_eq!(
                    (lk.witnesses(), lk.cut),
                    (j.witnesses(), j.cut),
                    "{name} with {m} at --unroll {unroll}\n{}",
                    c.text
                );
            }
        }
    }
}

fn c_test(body: &str) -> Test {
    parse(&format!("C t\n{{}}\n{body}\nexists (x=1)\n")).unwrap()
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
    let empty = write_map("empty.map", "arch X86_64\n");
    let e = compile::compile(&t, &Mapping::load(empty.to_str().unwrap()).unwrap()).unwrap_err();
    assert!(e.msg.contains("`WRITE_ONCE` has no entry"), "{e}");
    // herd's 32-bit X86 has no CMPXCHG: tables are written for X86_64.
    let x86 = write_map("x86-32.map", "arch X86\n");
    let e = Mapping::load(x86.to_str().unwrap()).unwrap_err();
    assert!(e.line == 1 && e.msg.contains("X86_64"), "{e}");
    // A grace period has no instruction sequence: the reason, at the call.
    let t = c_test(
        "P0(int *x) {\n  WRITE_ONCE(*x, 1);\n  synchronize_rcu();\n}\n\
         P1(int *x) {\n  rcu_read_lock();\n  int r0 = READ_ONCE(*x);\n  rcu_read_unlock();\n}\n",
    );
    for m in MAPPINGS {
        let e = compile::compile(&t, &Mapping::load(m).unwrap()).unwrap_err();
        assert!(
            e.to_string().contains("P0, line 5:3")
                && e.msg
                    .contains("`synchronize_rcu` has no instruction sequence: a grace period"),
            "{m}: {e}"
        );
    }
    // A constant index out of a local array's bounds; an unknown primitive.
    let t = c_test("P0(int *x) {\n  int t[2];\n  t[1] = 1;\n  WRITE_ONCE(*x, t[2]);\n}\n");
    let e = compile::compile(&t, &Mapping::load("ppc-lwsync").unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("line 6:3") && e.msg.contains("index 2 out of the bounds of `t`"),
        "{e}"
    );
    let t = c_test("P0(int *x) {\n  frob(x);\n}\n");
    let e = compile::compile(&t, &Mapping::load("x86").unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("line 4:3") && e.msg.contains("`frob` has no entry"),
        "{e}"
    );
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
    for m in MAPPINGS {
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

/// herd7's answer: states (normalised), witnesses, Loop, observation.
fn herd_answer(
    herd: &Path,
    file: &Path,
    m: &Mapping,
) -> (Vec<String>, (usize, usize), bool, String) {
    let mut cmd = std::process::Command::new(herd);
    match m.arch {
        litmus::litmus::ast::Arch::PPC => {
            cmd.args(["-model", "ppc.cat"]);
        }
        litmus::litmus::ast::Arch::AArch64 => {
            cmd.args(["-model", "aarch64.cat"]);
        }
        // X86_64: herd's own default, x86tso-mixed.cat (x86tso.cat is for 32-bit X86).
        _ => {}
    }
    let out = cmd.arg(file).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    let at = |p: &str| lines.iter().position(|l| l.starts_with(p));
    let (Some(s), Some(o)) = (at("States "), at("Observation ")) else {
        panic!(
            "{}: herd7 gives no answer:\n{text}{}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let mut states: Vec<String> = lines[s + 1..]
        .iter()
        .take_while(|l| !matches!(**l, "Ok" | "No" | "Loop Ok" | "Loop No"))
        .map(|l| norm(l))
        .collect();
    states.sort();
    let looped = lines.iter().any(|l| l.starts_with("Loop "));
    let w: Vec<&str> = lines[o].split_whitespace().collect();
    (
        states,
        (w[3].parse().unwrap(), w[4].parse().unwrap()),
        looped,
        w[2].to_string(),
    )
}

/// herd7 on our compiled tests gives our answers: states, witness counts, Loop and the
/// observation. (The whole corpus is bench/compile_corpus.py's.) Lock tests are left to
/// that run: herd7 takes minutes on a compiled lock loop.
#[test]
fn herd7_agrees_on_compiled_tests_when_present() {
    let Some(herd) = common::skip::herd7("herd7_agrees_on_compiled_tests_when_present") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("litmus-herd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut tests: Vec<Test> = CONSTRUCTS
        .iter()
        .map(|(n, p0)| construct_test(n, p0))
        .collect();
    for f in [
        "litmus/classic/C/MP+rel+acq.litmus",
        "litmus/classic/C/WRC+wmb+rmb.litmus",
        "litmus/classic/C/LB+ctrl+data.litmus",
        "litmus/primitives/C/SB+xchg_relaxeds.litmus",
        "litmus/primitives/C/SB+cmpxchg-failure+mb.litmus",
        "litmus/primitives/C/SB+atomic_incs.litmus",
    ] {
        tests.push(load(f));
    }
    let mut n = 0;
    for t in &tests {
        for m in MAPPINGS {
            let map = Mapping::load(m).unwrap();
            let c = compiled(t, m);
            let p = dir.join(format!("{}.{m}.litmus", t.name));
            std::fs::write(&p, &c.text).unwrap();
            let j = judge(&c.test, hw(&map));
            let (states, w, looped) = {
                let (mut s, w, _, l) = answer(&j);
                s = s.iter().map(|x| norm(x)).collect();
                s.sort();
                (s, w, l)
            };
            let mine = (states, w, looped, j.observation().to_string());
            let theirs = herd_answer(&herd, &p, &map);
            assert_eq!(
                mine, theirs,
                "{} with {m}: ours, herd7's\n{}",
                t.name, c.text
            );
            n += 1;
        }
    }
    assert!(n >= 60);
    let _ = std::fs::remove_dir_all(&dir);
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
    for m in MAPPINGS {
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
