//! `litmus` as a drop-in for herd7 (issue #22): each test is named after a problem the
//! issue lists. The binary runs as users run it, as `litmus herd7 ARGS`, as a link named
//! `herd7`, or with herd7's options and no subcommand; every test works in a scratch folder
//! of its own. Those that need herd's library folders or the kernel's memory-model folder
//! say loudly when these are missing and skip; each feature is checked without them too.

mod common;
use common::root;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_litmus"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A folder of its own for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("litmus-herd-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `litmus ARGS` run in `dir`.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .current_dir(dir)
        .env_remove("HERDLIB")
        .args(args)
        .output()
        .expect("the binary starts")
}

/// `litmus herd7 ARGS` run in `dir`.
fn herd(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["herd7"];
    all.extend_from_slice(args);
    run_in(dir, &all)
}

fn observation(o: &Output) -> String {
    text(&o.stdout)
        .lines()
        .find(|l| l.starts_with("Observation "))
        .unwrap_or_else(|| panic!("no Observation: {}{}", text(&o.stdout), text(&o.stderr)))
        .to_string()
}

const SB_C: &str = "C SB\n{}\nP0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }\n\
P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }\nexists (0:r0=0 /\\ 1:r0=0)\n";

const SB_X86: &str = "X86 SB\n{ x=0; y=0; }\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n \
MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";

/// Sequential consistency for X86 tests, a model of the user's own.
const SC_CAT: &str = "X86 mysc\ninclude \"cos.cat\"\nacyclic po | rf | co | fr as sc\n";

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(&p, body).unwrap();
    p
}

// Model files are looked up in herd's order.

#[test]
fn model_in_the_current_folder_is_found_by_name_and_by_dot_path() {
    let d = scratch("cwd-model");
    write(&d, "mytso.cat", SC_CAT);
    write(&d, "SB.litmus", SB_X86);
    for name in ["mytso.cat", "./mytso.cat"] {
        let o = herd(&d, &["-model", name, "SB.litmus"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o.stderr));
        // Under SC the store buffering outcome is forbidden; x86-TSO allows it.
        assert_eq!(observation(&o), "Observation SB Never 0 3", "{name}");
    }
    let o = herd(&d, &["SB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
}

#[test]
fn a_local_lkmm_cat_is_not_replaced_by_the_shipped_one() {
    let d = scratch("local-lkmm");
    write(&d, "SB.litmus", SB_C);
    // An experiment: every execution forbidden.
    write(&d, "lkmm.cat", "\"an edited lkmm\"\nempty rf as no-rf\n");
    let o = herd(&d, &["-model", "lkmm.cat", "-v", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(observation(&o), "Observation SB Never 0 0");
    assert!(
        text(&o.stderr).contains("Found and opened: './lkmm.cat'"),
        "{}",
        text(&o.stderr)
    );
    // The same under `check`.
    let o = run_in(&d, &["check", "-model", "lkmm.cat", "SB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Never 0 0");
    // With no such file, the shipped model.
    std::fs::remove_file(d.join("lkmm.cat")).unwrap();
    let o = herd(
        &d,
        &["-model", "lkmm.cat", "-bell", "lkmm.bell", "SB.litmus"],
    );
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
}

#[test]
fn lookup_order_is_current_folder_then_include_folders_then_library() {
    let d = scratch("order");
    write(&d, "SB.litmus", SB_X86);
    // Three files of one name: SC in the library, x86-TSO (allowing SB) in an -I folder.
    write(&d, "lib/m.cat", SC_CAT);
    write(
        &d,
        "inc/m.cat",
        "X86 tso\ninclude \"cos.cat\"\nacyclic po \\ (W*R) | rf | co | fr as tso\n",
    );
    let used = |o: &Output| {
        text(&o.stderr)
            .lines()
            .find(|l| l.contains("m.cat"))
            .unwrap_or("")
            .to_string()
    };
    let o = herd(
        &d,
        &["-set-libdir", "lib", "-v", "-model", "m.cat", "SB.litmus"],
    );
    assert!(used(&o).contains("lib/m.cat"), "{}", text(&o.stderr));
    assert_eq!(observation(&o), "Observation SB Never 0 3");
    let o = herd(
        &d,
        &[
            "-set-libdir",
            "lib",
            "-I",
            "inc",
            "-v",
            "-model",
            "m.cat",
            "SB.litmus",
        ],
    );
    assert!(used(&o).contains("inc/m.cat"), "{}", text(&o.stderr));
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
    write(&d, "m.cat", SC_CAT);
    let o = herd(
        &d,
        &[
            "-set-libdir",
            "lib",
            "-I",
            "inc",
            "-v",
            "-model",
            "m.cat",
            "SB.litmus",
        ],
    );
    assert!(used(&o).contains("./m.cat"), "{}", text(&o.stderr));
    assert_eq!(observation(&o), "Observation SB Never 0 3");
    // $HERDLIB comes after -I and before the library.
    let o = Command::new(bin())
        .current_dir(d.join("inc"))
        .env("HERDLIB", d.join("lib"))
        .args(["herd7", "-v", "-model", "m.cat", "../SB.litmus"])
        .output()
        .unwrap();
    assert!(used(&o).contains("./m.cat"), "{}", text(&o.stderr));
}

#[test]
fn missing_model_files_are_named_in_herds_words() {
    let d = scratch("missing");
    write(&d, "SB.litmus", SB_X86);
    let o = herd(&d, &["-model", "./nope.cat", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("Cannot find file ./nope.cat"));
    let o = run_in(&d, &["check", "-model", "./nope.cat", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("cannot find model file ./nope.cat"));
    assert!(!text(&o.stderr).contains(":0:0"), "{}", text(&o.stderr));
}

#[test]
fn herds_standard_names_resolve_to_shipped_models_only_without_a_file() {
    let d = scratch("standard");
    write(&d, "SB.litmus", SB_X86);
    write(
        &d,
        "PPC.litmus",
        "PPC SBppc\n{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }\n P0 | P1 ;\n li r1,1 | li r1,1 ;\n \
         stw r1,0(r2) | stw r1,0(r2) ;\n lwz r3,0(r4) | lwz r3,0(r4) ;\nexists (0:r3=0 /\\ 1:r3=0)\n",
    );
    let o = herd(&d, &["-model", "x86tso.cat", "SB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
    let o = herd(&d, &["-model", "ppc.cat", "PPC.litmus"]);
    assert_eq!(observation(&o), "Observation SBppc Sometimes 1 3");
    // herd's defaults per architecture.
    let o = herd(&d, &["PPC.litmus"]);
    assert_eq!(observation(&o), "Observation SBppc Sometimes 1 3");
    // A file of that name in the current folder wins.
    write(&d, "x86tso.cat", SC_CAT);
    let o = herd(&d, &["-model", "x86tso.cat", "SB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Never 0 3");
    // herd's default lookup as well.
    let o = herd(&d, &["SB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Never 0 3");
}

// Options are honoured or refused, never dropped.

#[test]
fn macros_and_bell_files_that_do_not_exist_are_errors() {
    let d = scratch("macros");
    write(&d, "SB.litmus", SB_C);
    for args in [
        &["check", "--macros", "/nonexistent.def", "SB.litmus"][..],
        &["check", "-bell", "/nonexistent.bell", "SB.litmus"],
    ] {
        let o = run_in(&d, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(text(&o.stderr).contains("nonexistent"), "{args:?}");
    }
    // herd7 warns about each test it cannot judge, and goes on.
    let o = herd(&d, &["-macros", "/nonexistent.def", "SB.litmus"]);
    assert!(text(&o.stderr).starts_with("Warning: File \"SB.litmus\": "));
    assert!(text(&o.stderr).contains("/nonexistent.def"));
    assert!(!text(&o.stdout).contains("Observation"));
    // A macro file of one's own is used: here `smp_mb()` is defined away.
    write(
        &d,
        "my.def",
        "READ_ONCE(X) __load{once}(X)\nWRITE_ONCE(X,V) { __store{once}(X,V); }\nsmp_mb() { }\n",
    );
    let mb = SB_C
        .replace("WRITE_ONCE(*x, 1);", "WRITE_ONCE(*x, 1); smp_mb();")
        .replace("WRITE_ONCE(*y, 1);", "WRITE_ONCE(*y, 1); smp_mb();");
    write(&d, "MB.litmus", &mb);
    let o = run_in(&d, &["check", "MB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Never 0 3");
    let o = run_in(&d, &["check", "--macros", "my.def", "MB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
}

#[test]
fn unknown_variants_are_refused_with_herds_usage() {
    let d = scratch("variant");
    write(&d, "SB.litmus", SB_C);
    let o = herd(&d, &["-variant", "bogus", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.starts_with("herd7: tag bogus for -variant is wrong, allowed tags are success,"));
    assert!(err.contains("Usage herd7 [options] [test]*"));
    let o = run_in(&d, &["check", "--variant", "bogus", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unknown variant `bogus`"));
}

#[test]
fn speedcheck_takes_herds_tags() {
    let d = scratch("speedcheck");
    write(&d, "SB.litmus", SB_X86);
    for args in [
        &["herd7", "-speedcheck", "true", "SB.litmus"][..],
        &["check", "-speedcheck", "true", "SB.litmus"],
        &["-speedcheck", "fast", "SB.litmus"],
    ] {
        let o = run_in(&d, args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        // herd7 counts only the executions that settle the condition.
        assert_eq!(observation(&o), "Observation SB Always 1 0", "{args:?}");
    }
    let o = herd(&d, &["-speedcheck", "maybe", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("bad tag for -speedcheck, allowed tag are false,true,fast"));
}

#[test]
fn show_and_o_write_the_pictures_herd_writes() {
    let d = scratch("show");
    write(&d, "SB.litmus", SB_X86);
    let o = herd(&d, &["-show", "prop", "-o", "pics", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let dot = std::fs::read_to_string(d.join("pics/SB.dot")).expect("pics/SB.dot");
    // One execution satisfies the condition.
    assert_eq!(dot.matches("digraph").count(), 1, "{dot}");
    let o = herd(
        &d,
        &["-show", "all", "-nshow", "2", "-o", "all", "SB.litmus"],
    );
    assert_eq!(o.status.code(), Some(0));
    let dot = std::fs::read_to_string(d.join("all/SB.dot")).unwrap();
    assert_eq!(dot.matches("digraph").count(), 2);
    let o = run_in(&d, &["check", "-show", "prop", "-o", "cpics", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(d.join("cpics/SB.dot").is_file());
}

#[test]
fn herds_shape_without_a_subcommand_is_herds_command_line() {
    let d = scratch("shape");
    write(&d, "SB.litmus", SB_C);
    // No linux-kernel.cfg here: the shipped configuration stands in for it.
    let o = run_in(&d, &["-conf", "linux-kernel.cfg", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
    let o = run_in(&d, &["SB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
}

#[test]
fn a_link_named_herd7_is_herd7() {
    let d = scratch("argv0");
    write(&d, "SB.litmus", SB_X86);
    let link = d.join("herd7");
    std::os::unix::fs::symlink(bin(), &link).unwrap();
    let o = Command::new(&link)
        .current_dir(&d)
        .args(["-model", "x86tso.cat", "SB.litmus"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
    let o = Command::new(&link).arg("-version").output().unwrap();
    assert!(text(&o.stdout).starts_with("7.58"), "{}", text(&o.stdout));
    // herd's usage for an option it does not know, status 2.
    let o = Command::new(&link).arg("-frobnicate").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("herd7: unknown option '-frobnicate'."),
        "{err}"
    );
    assert!(
        err.contains("Usage ") && err.contains("-conf <name>"),
        "{err}"
    );
}

#[test]
fn bad_option_arguments_are_refused_in_ocamls_words() {
    let d = scratch("args");
    let o = herd(&d, &["-unroll", "two"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr)
            .contains("herd7: wrong argument 'two'; option '-unroll' expects an integer.")
    );
    let o = herd(&d, &["-conf"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("option '-conf' needs an argument"));
    // Options that only style herd's pictures are accepted; viewers get a note.
    write(&d, "SB.litmus", SB_X86);
    let o = herd(
        &d,
        &["-mono", "true", "-gv", "-through", "none", "SB.litmus"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("-gv"));
    let o = herd(&d, &["-q", "-gv", "SB.litmus"]);
    assert_eq!(text(&o.stderr), "");
}

#[test]
fn skipchecks_and_through_let_executions_through() {
    let d = scratch("skip");
    write(&d, "SB.litmus", SB_X86);
    write(&d, "sc.cat", SC_CAT);
    let o = herd(&d, &["-model", "sc.cat", "-skipchecks", "sc", "SB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
    let o = herd(&d, &["-model", "sc.cat", "-through", "all", "SB.litmus"]);
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
    let o = herd(
        &d,
        &["-model", "sc.cat", "-skipchecks", "other", "SB.litmus"],
    );
    assert_eq!(observation(&o), "Observation SB Never 0 3");
}

// herd's error wording, which the kernel's scripts read.

#[test]
fn parse_errors_are_worded_as_herds() {
    let d = scratch("parse");
    write(
        &d,
        "bad.litmus",
        "C bad\n{}\nP0(int *x) { WRITE_ONCE(*x, 1) }\nexists (x=1)\n",
    );
    let o = herd(&d, &["bad.litmus"]);
    // herd7 warns and goes on: status 0, or 1 with -exit true.
    assert_eq!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("Warning: File \"bad.litmus\", line 3, characters "),
        "{err}"
    );
    assert!(err.trim_end().ends_with("(User error)"), "{err}");
    let o = herd(&d, &["-exit", "true", "bad.litmus"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn unknown_macros_are_reported_as_judgelitmus_greps_them() {
    let d = scratch("macro");
    write(
        &d,
        "M.litmus",
        &SB_C
            .replace("WRITE_ONCE(*x, 1)", "smp_frob(*x)")
            .replace("C SB", "C M"),
    );
    write(&d, "SB.litmus", SB_C);
    let o = herd(&d, &["-conf", "linux-kernel.cfg", "M.litmus", "SB.litmus"]);
    assert_eq!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    assert!(
        err.contains("Warning: File \"M.litmus\": Unknown macro smp_frob (User error)"),
        "{err}"
    );
    // The batch goes on.
    assert_eq!(observation(&o), "Observation SB Sometimes 1 3");
}

/// Five threads of five accesses to two locations: many seconds of work.
fn big_test() -> String {
    let mut big = String::from("C BIG\n{}\n");
    for i in 0..5 {
        big += &format!(
            "P{i}(int *x, int *y) {{ int r0; int r1; int r2; WRITE_ONCE(*x, {v}); r0 = READ_ONCE(*y); \
             WRITE_ONCE(*y, {v}); r1 = READ_ONCE(*x); r2 = READ_ONCE(*y); }}\n",
            v = i + 1
        );
    }
    big + "exists (0:r0=0)\n"
}

#[test]
fn a_test_out_of_time_exits_124_as_timeout_would() {
    let d = scratch("timeout");
    write(&d, "BIG.litmus", &big_test());
    let o = herd(&d, &["-timeout", "0.3", "BIG.litmus"]);
    assert_eq!(o.status.code(), Some(124), "{}", text(&o.stderr));
    assert!(!text(&o.stdout).contains("Observation"));
}

// `--judge`: a test's `Result:` comment.

#[test]
fn judge_compares_with_result_comments_and_exits_1_on_a_mismatch() {
    let d = scratch("judge");
    let with =
        |result: &str| SB_C.replacen("{}", &format!("(*\n * Result: {result}\n *)\n{{}}"), 1);
    write(&d, "ok/SB.litmus", &with("Sometimes"));
    write(&d, "ok/SBm.litmus", &with("Maybe"));
    write(&d, "bad/SB.litmus", &with("Never"));
    let o = run_in(&d, &["check", "--judge", "ok"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).contains("2 tests: 2 agree"),
        "{}",
        text(&o.stdout)
    );
    let o = run_in(&d, &["check", "--judge", "ok", "bad"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(
        out.contains("MISMATCH  bad/SB.litmus")
            && out.contains("Unexpected non-Never verification"),
        "{out}"
    );
    // `parse` prints the comment back.
    let o = run_in(&d, &["parse", "bad/SB.litmus"]);
    assert!(
        text(&o.stdout).contains(" * Result: Never"),
        "{}",
        text(&o.stdout)
    );
}

// herd's predefined sets and relations, as older model files name them.

#[test]
fn herds_amo_and_exec_sets_exist_for_models_that_name_them() {
    let d = scratch("amo");
    write(
        &d,
        "SWP.litmus",
        "AArch64 SWP\n{ 0:X2=x; 1:X2=x; }\n P0 | P1 ;\n MOV W0,#1 | MOV W0,#2 ;\n \
         SWP W0,W1,[X2] | STR W0,[X2] ;\nexists (x=1)\n",
    );
    write(
        &d,
        "uses.cat",
        "AArch64 uses\nflag ~empty amo as amo-present\n\
         flag ~empty (NExp | EXEC) as exec-present\n",
    );
    let o = herd(&d, &["-model", "uses.cat", "SWP.litmus"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for f in ["Flag amo-present", "Flag exec-present"] {
        assert!(out.contains(f), "{f}: {out}");
    }
}

/// herd's library folders: herd7's own (`herd7 -libdir`), and those of other releases
/// listed in `HERD_LIBDIRS` (`:`-separated), each named by its release (`libdir-7.56`).
fn herd_libdirs(test: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("HERD_LIBDIRS")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    dirs.extend(common::skip::herd_libdir(test));
    dirs.retain(|p| p.join("aarch64.cat").is_file());
    dirs
}

#[test]
fn official_model_files_of_herd_releases_run_unmodified() {
    let d = scratch("official");
    write(
        &d,
        "CAS.litmus",
        "AArch64 CAS\n{ 0:X1=x; 0:X0=0; 0:X2=1; 1:X1=x; }\n P0 | P1 ;\n CASAL X0,X2,[X1] | \
         MOV W3,#2 ;\n | STLR W3,[X1] ;\nexists (0:X0=0 /\\ x=2)\n",
    );
    write(&d, "SB.litmus", SB_X86);
    for lib in herd_libdirs("official_model_files_of_herd_releases_run_unmodified") {
        let l = lib.to_str().unwrap();
        let o = herd(
            &d,
            &["-set-libdir", l, "-model", "aarch64.cat", "CAS.litmus"],
        );
        assert_eq!(o.status.code(), Some(0), "{l}: {}", text(&o.stderr));
        assert_eq!(text(&o.stderr), "", "{l}");
        assert!(
            observation(&o).starts_with("Observation CAS Sometimes"),
            "{l}"
        );
        let o = herd(&d, &["-set-libdir", l, "-model", "x86tso.cat", "SB.litmus"]);
        assert_eq!(observation(&o), "Observation SB Sometimes 1 3", "{l}");
    }
}

// The kernel's own scripts, with `litmus` as herd7 on PATH.

/// herd7's path, resolved on `PATH` when only its name was given (to link to it).
fn herd_path(herd7: &Path) -> PathBuf {
    if herd7.components().count() > 1 {
        return herd7.to_path_buf();
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(herd7))
        .find(|c| c.is_file())
        .unwrap_or_else(|| herd7.to_path_buf())
}

/// A copy of the kernel's tools/memory-model folder, with a `herd7` link to our binary in
/// `bin/`, or `None` (said loudly) when the folder is not there.
fn kernel_copy(name: &str) -> Option<(PathBuf, PathBuf)> {
    let src = common::skip::shared(name, "kernel-memory-model", "scripts/checkalllitmus.sh")?;
    let d = scratch(name);
    let k = d.join("memory-model");
    let ok = Command::new("cp")
        .args(["-r", src.to_str().unwrap(), k.to_str().unwrap()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let b = d.join("bin");
    std::fs::create_dir_all(&b).unwrap();
    std::os::unix::fs::symlink(bin(), b.join("herd7")).unwrap();
    Some((k, b))
}

fn script(k: &Path, b: &Path, args: &[&str]) -> Output {
    let path = format!(
        "{}:{}",
        b.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .current_dir(k)
        .env("PATH", path)
        // What scripts/parseargs.sh exports for checklitmus.sh when run by a batch script.
        .env("LKMM_DESTDIR", ".")
        .env("LKMM_TIMEOUT_CMD", "")
        .env_remove("HERDLIB")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn checkalllitmus_verifies_every_kernel_test_with_litmus_as_herd7() {
    let Some((k, b)) = kernel_copy("checkall") else {
        return;
    };
    let o = script(&k, &b, &["scripts/checkalllitmus.sh"]);
    let out = text(&o.stdout) + &text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("All litmus tests verified as was expected."),
        "{out}"
    );
    let tests = std::fs::read_dir(k.join("litmus-tests"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "litmus")
        })
        .count();
    assert_eq!(out.matches("Observation ").count(), tests, "{out}");
}

#[test]
fn checklitmus_exit_statuses_match_herd7s() {
    let Some((k, b)) = kernel_copy("checklitmus") else {
        return;
    };
    let t = std::fs::read_to_string(k.join("litmus-tests/SB+fencembonceonces.litmus")).unwrap();
    assert!(t.contains("Result: Never"));
    write(&k, "litmus-tests/mine/pass.litmus", &t);
    write(
        &k,
        "litmus-tests/mine/fail.litmus",
        &t.replace("Result: Never", "Result: Sometimes"),
    );
    write(
        &k,
        "litmus-tests/mine/macro.litmus",
        &t.replace("smp_mb();", "smp_frob();"),
    );
    let status = |f: &str| {
        script(
            &k,
            &b,
            &["scripts/checklitmus.sh", &format!("litmus-tests/mine/{f}")],
        )
        .status
        .code()
    };
    assert_eq!(status("pass.litmus"), Some(0));
    assert_eq!(status("fail.litmus"), Some(1));
    assert_eq!(status("macro.litmus"), Some(254));
    let out = std::fs::read_to_string(k.join("litmus-tests/mine/macro.litmus.out")).unwrap();
    assert!(out.contains(": Unknown macro smp_frob"), "{out}");
    // A file herd7 cannot find: judgelitmus.sh says 255.
    assert_eq!(status("none.litmus"), Some(255));
    // A test out of herd7's -timeout: 124, as under timeout(1).
    write(&k, "litmus-tests/mine/big.litmus", &big_test());
    let o = Command::new("sh")
        .current_dir(&k)
        .env(
            "PATH",
            format!(
                "{}:{}",
                b.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("LKMM_DESTDIR", ".")
        .env("LKMM_TIMEOUT_CMD", "")
        .env("LKMM_HERD_OPTIONS", "-conf linux-kernel.cfg -timeout 0.3")
        .args(["scripts/checklitmus.sh", "litmus-tests/mine/big.litmus"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(124), "{}", text(&o.stdout));
}

#[test]
fn variants_a_test_declares_reach_herds_model_files() {
    let d = scratch("declared");
    let mp = |header: &str| {
        format!(
            "AArch64 MP\n{header}{{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }}\n P0 | P1 ;\n \
             MOV W0,#1 | LDR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3] ;\n STR W0,[X3] | ;\n\
             exists (1:X0=1 /\\ 1:X2=0)\n"
        )
    };
    write(&d, "plain.litmus", &mp(""));
    write(&d, "declared.litmus", &mp("Variant=telechat\n"));
    write(
        &d,
        "v.cat",
        "AArch64 v\nflag ~empty (if \"telechat\" then _ else 0) as telechat-on\n",
    );
    let plain = herd(&d, &["-model", "v.cat", "plain.litmus"]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    assert!(!text(&plain.stdout).contains("Flag telechat-on"));
    let declared = herd(&d, &["-model", "v.cat", "declared.litmus"]);
    assert!(
        text(&declared.stdout).contains("Flag telechat-on"),
        "{}{}",
        text(&declared.stdout),
        text(&declared.stderr)
    );
    // Given on the command line, the same.
    let given = herd(
        &d,
        &["-model", "v.cat", "-variant", "telechat", "plain.litmus"],
    );
    assert!(text(&given.stdout).contains("Flag telechat-on"));
}

// herd7's `Hash=` line, and its order of registers in final states: logs that tools such
// as mcompare7 compare line by line are the same as herd7's but for `Time`.

/// The value of the `Hash=` line that follows the `Time` line.
fn hash_line(o: &Output) -> String {
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    let t = lines
        .iter()
        .position(|l| l.starts_with("Time "))
        .unwrap_or_else(|| panic!("no Time line: {out}{}", text(&o.stderr)));
    lines
        .get(t + 1)
        .and_then(|l| l.strip_prefix("Hash="))
        .unwrap_or_else(|| panic!("no Hash= after Time: {out}"))
        .to_string()
}

#[test]
fn herd7s_hash_line_is_printed_as_herd7_prints_it() {
    // herd7 7.58's hashes of these tests (its mshowhashes7 gives the same).
    let cases = [
        (
            "C/MP+wmb+rmb",
            "classic",
            "d40203e2f128ffe7892de49382b22e96",
        ),
        ("X86/SB", "classic", "edd4722437d708675ed921e7607e77f0"),
        // X86_64, with `lock` prefixes.
        (
            "X86/SB+lock-cmpxchgs",
            "primitives",
            "a8160b500b3257ff580634c51d332c50",
        ),
        (
            "AArch64/MP+dmb.ish+addr",
            "classic",
            "144208262fd26cd049b905fc80585778",
        ),
        // Labels and branches (renamed L00, L01, ... in the digest).
        (
            "AArch64/spinlock-mutex+ldaxr-stxr",
            "locks",
            "40546b9d5da5f98f02308c20ecf65cd3",
        ),
        (
            "PPC/MP+lwsync+addr",
            "classic",
            "bd80d6f10d992b70af471096e9b57002",
        ),
        (
            "PPC/spinlock-mutex",
            "locks",
            "e5c6e5dcdffd3974841e5e21fa2aeace",
        ),
    ];
    for (name, suite, want) in cases {
        let f = root().join(format!("litmus/{suite}/{name}.litmus"));
        let o = herd(&root(), &[f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o.stderr));
        assert_eq!(hash_line(&o), want, "{name}");
    }
    // A test whose header gives its hash keeps it, once.
    let d = scratch("given-hash");
    write(
        &d,
        "SB.litmus",
        &SB_X86.replace("{ x=0;", "Hash=0123456789abcdef\n{ x=0;"),
    );
    let o = herd(&d, &["SB.litmus"]);
    assert_eq!(hash_line(&o), "0123456789abcdef");
    assert_eq!(text(&o.stdout).matches("Hash=").count(), 1);
    // The same test met twice (the same hash, whatever the spacing of its code) is judged
    // once, as herd does; with other code, herd refuses it.
    let d = scratch("same-hash");
    write(&d, "SB.litmus", SB_X86);
    write(
        &d,
        "again/SB.litmus",
        &SB_X86.replace("MOV EAX,[y]", "MOV EAX , [y]"),
    );
    write(
        &d,
        "other/SB.litmus",
        &SB_X86.replace("MOV EAX,[y]", "MOV EBX,[y]"),
    );
    let o = herd(&d, &["SB.litmus", "again/SB.litmus"]);
    assert_eq!(text(&o.stdout).matches("Observation ").count(), 1);
    assert_eq!(text(&o.stderr), "");
    let o = herd(&d, &["SB.litmus", "other/SB.litmus"]);
    assert!(
        text(&o.stderr).contains("Different hashes for test SB"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn hashes_are_mshowhashes7s_on_the_corpus() {
    let test = "hashes_are_mshowhashes7s_on_the_corpus";
    let Some(corpus) = common::skip::shared(test, "corpus", "expected") else {
        return;
    };
    let Some(tool) = common::skip::herd_tool(test, "mshowhashes7") else {
        return;
    };
    // Every 25th test of every source: all five architectures, labels, symbolic registers,
    // page-table entries; one mshowhashes7 run per test (it stops at a file it refuses).
    let mut files = Vec::new();
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let mut es: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        es.sort();
        for p in es {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    walk(&corpus, &mut files);
    let (mut same, mut bad) = (0, Vec::new());
    for f in files.iter().step_by(25) {
        let o = Command::new(&tool).arg(f).output().unwrap();
        let Some(theirs) = text(&o.stdout).split_whitespace().nth(1).map(String::from) else {
            continue;
        };
        let src = litmus::litmus::read_source(f).unwrap();
        let Ok(t) = litmus::litmus::parse(&src) else {
            continue;
        };
        if litmus::litmus::hash::herd_hash(&src, &t) == theirs {
            same += 1;
        } else {
            bad.push(f.display().to_string());
        }
    }
    assert!(
        bad.is_empty(),
        "hashes differ from mshowhashes7's: {bad:#?}"
    );
    assert!(same >= 200, "only {same} tests compared");
}

#[test]
fn final_states_list_registers_in_herds_order() {
    let d = scratch("reg-order");
    // AArch64 and PPC registers by number (X7 before X10), X86's in herd's order
    // (EAX EBX ECX EDX ESI EDI), C's by name.
    write(
        &d,
        "A.litmus",
        "AArch64 A\n{ 0:X1=x; }\n P0 ;\n LDR W10,[X1] ;\n LDR W7,[X1] ;\n\
         exists (0:X10=0 /\\ 0:X7=0)\n",
    );
    write(
        &d,
        "P.litmus",
        "PPC P\n{ 0:r1=x; }\n P0 ;\n lwz r10,0(r1) ;\n lwz r9,0(r1) ;\n\
         exists (0:r10=0 /\\ 0:r9=0)\n",
    );
    write(
        &d,
        "X.litmus",
        "X86 X\n{ }\n P0 ;\n MOV EDI,[x] ;\n MOV EDX,[x] ;\nexists (0:EDI=0 /\\ 0:EDX=0)\n",
    );
    write(
        &d,
        "C.litmus",
        "C C\n{}\nP0(int *x) { int r10; int r9; r10 = READ_ONCE(*x); r9 = READ_ONCE(*x); }\n\
         exists (0:r9=0 /\\ 0:r10=0)\n",
    );
    for (f, state) in [
        ("A.litmus", "0:X7=0; 0:X10=0;"),
        ("P.litmus", "0:r9=0; 0:r10=0;"),
        ("X.litmus", "0:EDX=0; 0:EDI=0;"),
        ("C.litmus", "0:r10=0; 0:r9=0;"),
    ] {
        let o = herd(&d, &[f]);
        assert!(
            text(&o.stdout).lines().any(|l| l == state),
            "{f}: {}{}",
            text(&o.stdout),
            text(&o.stderr)
        );
    }
}

// Virtual memory (`Variant=vmsa`) and instruction fetch (`CacheType=`) under herd's own
// model files.

/// An AArch64 test in the shape of herd's readers-guide `coRR-pte9-mod`: P0 breaks x's
/// entry, invalidates the TLB and remaps x to y; can P1 read x through the new entry and
/// then, without a fault, through the old one?
const PTE_CORR: &str = "AArch64 pte-coRR\nVariant=vmsa\n{\n [PTE(x)]=(oa:PA(x), valid:1);\n \
[y]=1;\n 0:X1=x; pteval_t 0:X0=(valid:0); 0:X3=PTE(x); pteval_t 0:X4=(oa:PA(y), valid:1);\n \
1:X1=x;\n}\n P0 | P1 ;\n STR X0,[X3] | L1: LDR W2,[X1] ;\n DSB ISH | L0: LDR W4,[X1] ;\n \
LSR X9,X1,#12 | ;\n TLBI VAAE1IS,X9 | ;\n DSB ISH | ;\n STR X4,[X3] | ;\n\
exists (1:X2=1 /\\ 1:X4=0 /\\ not (fault(P1:L0,x)))\n";

#[test]
fn herds_page_table_sets_and_relations_exist_with_herds_meaning() {
    let d = scratch("vmsa-prims");
    write(&d, "T.litmus", PTE_CORR);
    // Each of herd's vmsa names, non-empty on this test.
    write(
        &d,
        "v.cat",
        "AArch64 v\n\
         flag ~empty (inv-domain & (TLBI * (PTE & Imp & R))) as inv-domain-tlbi-entry-read\n\
         flag ~empty (inv-domain & ((PTE & W) * TLBI)) as inv-domain-write-tlbi\n\
         flag ~empty (PTE & Exp & W) as explicit-entry-writes\n\
         flag ~empty (PTEV & IW) as valid-initial-entry\n\
         flag ~empty (PTEINV & Exp & W) as invalidating-write\n\
         flag ~empty same-oa(PTE * PTE) as same-oa\n\
         flag ~empty alias as alias\n\
         flag ~empty oa-changes(PTE, (PTE * PTE) \\ id) as oa-changes\n\
         flag ~empty at-least-one-writable(PTE * PTE) as writable\n\
         flag ~empty (same-low-order-bits & (M * M)) as same-low-order-bits\n",
    );
    let o = herd(&d, &["-model", "v.cat", "T.litmus"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    for f in [
        "inv-domain-tlbi-entry-read",
        "inv-domain-write-tlbi",
        "explicit-entry-writes",
        "valid-initial-entry",
        "invalidating-write",
        "same-oa",
        "alias",
        "writable",
        "same-low-order-bits",
    ] {
        assert!(out.contains(&format!("Flag {f}\n")), "{f}: {out}");
    }
}

#[test]
fn herds_aarch64_cat_judges_virtual_memory_and_cache_type_tests() {
    let Some(lib) =
        common::skip::herd_libdir("herds_aarch64_cat_judges_virtual_memory_and_cache_type_tests")
    else {
        return;
    };
    let lib = &lib;
    let d = scratch("vmsa-herd");
    write(&d, "T.litmus", PTE_CORR);
    // herd7 7.58: Never 0 8 (the TLBI orders the reads; our own armv8 says the same).
    let o = herd(
        &d,
        &[
            "-set-libdir",
            lib.to_str().unwrap(),
            "-model",
            "aarch64.cat",
            "T.litmus",
        ],
    );
    assert_eq!(text(&o.stderr), "");
    assert_eq!(observation(&o), "Observation pte-coRR Never 0 8");
    // CacheType=DIC sets herd's DIC and IDC variants: herd7 7.58 says Never 0 3.
    write(
        &d,
        "D.litmus",
        "AArch64 dic\nVariant=ifetch\nCacheType=DIC\n{\n ins_t 0:X0=NOP; 0:X1=1:Lself00; \
         0:X2=1:Lself01;\n 1:X1=1:Lself00;\n}\n P0 | P1 ;\n STR W0,[X1] | Lself01: ;\n \
         DMB ST | B Lself00 ;\n STR W0,[X2] | MOV W10,#1 ;\n | Lself00: ;\n | B L01 ;\n \
         | MOV W11,#1 ;\n | L01: ;\n\nexists (1:X10=1 /\\ 1:X11=0)\n",
    );
    let o = herd(
        &d,
        &[
            "-set-libdir",
            lib.to_str().unwrap(),
            "-model",
            "aarch64.cat",
            "D.litmus",
        ],
    );
    assert_eq!(
        observation(&o),
        "Observation dic Never 0 3",
        "{}",
        text(&o.stderr)
    );
}

// The rest of the kernel's scripts: checktheselitmus.sh, judgelitmus.sh directly, and the
// *litmushist.sh family (which needs herd's mselect7).

fn kernel_tests(k: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(k.join("litmus-tests"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .map(|p| format!("litmus-tests/{}", p.file_name().unwrap().to_str().unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn checktheselitmus_verifies_every_kernel_test_with_litmus_as_herd7() {
    let Some((k, b)) = kernel_copy("checkthese") else {
        return;
    };
    let tests = kernel_tests(&k);
    assert_eq!(tests.len(), 35, "{tests:?}");
    // The script's usage: `checktheselitmus.sh [ options ] -- test...`.
    let mut args = vec!["scripts/checktheselitmus.sh", "--"];
    args.extend(tests.iter().map(String::as_str));
    let o = script(&k, &b, &args);
    let out = text(&o.stdout) + &text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("All litmus tests verified as was expected."),
        "{out}"
    );
    assert_eq!(out.matches("Observation ").count(), 35, "{out}");
    // One test whose Result: is wrong: the script says so and exits 1.
    let t = std::fs::read_to_string(k.join("litmus-tests/SB+poonceonces.litmus")).unwrap();
    write(
        &k,
        "mine/bad.litmus",
        &t.replace("Result: Sometimes", "Result: Never"),
    );
    let o = script(
        &k,
        &b,
        &[
            "scripts/checktheselitmus.sh",
            "--",
            "mine/bad.litmus",
            &tests[0],
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("^^^ VERIFICATION MISMATCHES"));
}

/// `judgelitmus.sh TEST` on the `TEST.out` that `herd7` (the first of `bins` on PATH) wrote.
fn judge_status(k: &Path, b: &Path, test: &str, herd_args: &[&str]) -> Option<i32> {
    let path = format!(
        "{}:{}",
        b.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::fs::File::create(k.join(format!("{test}.out"))).unwrap();
    let err = out.try_clone().unwrap();
    Command::new("herd7")
        .current_dir(k)
        .env("PATH", &path)
        .args(["-conf", "linux-kernel.cfg"])
        .args(herd_args)
        .arg(test)
        .stdout(out)
        .stderr(err)
        .status()
        .unwrap();
    script(k, b, &["scripts/judgelitmus.sh", test])
        .status
        .code()
}

#[test]
fn judgelitmus_exit_statuses_match_herd7s() {
    let Some((k, b)) = kernel_copy("judgelitmus") else {
        return;
    };
    let sb = std::fs::read_to_string(k.join("litmus-tests/SB+fencembonceonces.litmus")).unwrap();
    assert!(sb.contains("Result: Never"));
    // Plain accesses racing: herd's `Flag data-race`.
    let racy = "C racy\n(*\n * Result: Sometimes\n *)\n{}\nP0(int *x) { *x = 1; }\n\
                P1(int *x) { int r0; r0 = *x; }\nexists (1:r0=1)\n";
    let cases: [(&str, String, Option<i32>); 6] = [
        ("pass", sb.clone(), Some(0)),
        (
            "fail",
            sb.replace("Result: Never", "Result: Sometimes"),
            Some(1),
        ),
        ("macro", sb.replace("smp_mb();", "smp_frob();"), Some(254)),
        ("racy", racy.to_string(), Some(253)),
        (
            "race-predicted",
            sb.replace("Result: Never", "Result: Never DATARACE"),
            Some(252),
        ),
        (
            "racy-predicted",
            racy.replace("Sometimes", "Sometimes DATARACE"),
            Some(0),
        ),
    ];
    let real = common::skip::herd7("judgelitmus_statuses_against_herd7").map(|herd7| {
        let d = k.parent().unwrap().join("real-herd");
        std::fs::create_dir_all(&d).unwrap();
        std::os::unix::fs::symlink(herd_path(&herd7), d.join("herd7")).unwrap();
        d
    });
    for (name, body, want) in &cases {
        let t = format!("mine/{name}.litmus");
        write(&k, &t, body);
        assert_eq!(judge_status(&k, &b, &t, &[]), *want, "{name}");
        if let Some(r) = &real {
            assert_eq!(judge_status(&k, r, &t, &[]), *want, "herd7 7.58 on {name}");
        }
    }
    // No .out at all: 255.
    write(&k, "mine/none.litmus", &sb);
    assert_eq!(
        script(&k, &b, &["scripts/judgelitmus.sh", "mine/none.litmus"])
            .status
            .code(),
        Some(255)
    );
    // A run that timed out, as runlitmus.sh records it under /usr/bin/time: 124.
    write(&k, "mine/big.litmus", &big_test());
    write(
        &k,
        "mine/big.litmus.out",
        "Herd options: -conf linux-kernel.cfg\nCommand exited with non-zero status 124\n",
    );
    assert_eq!(
        script(&k, &b, &["scripts/judgelitmus.sh", "mine/big.litmus"])
            .status
            .code(),
        Some(124)
    );
}

/// A `litmus/` history folder in `k` (what the scripts would clone from
/// github.com/paulmckrcu/litmus): four kernel tests, a four-thread one (left out by the
/// scripts' default `--procs 3`), and one with a macro the LKMM lacks.
fn history(k: &Path) {
    for t in [
        "SB+fencembonceonces",
        "MP+polocks",
        "CoWW+poonceonce",
        "LB+poonceonces",
        "IRIW+fencembonceonces+OnceOnce",
    ] {
        let body = std::fs::read_to_string(k.join(format!("litmus-tests/{t}.litmus"))).unwrap();
        write(k, &format!("litmus/a/{t}.litmus"), &body);
    }
    let r = std::fs::read_to_string(k.join("litmus-tests/R+fencembonceonces.litmus")).unwrap();
    write(
        k,
        "litmus/b/R+frob.litmus",
        &r.replace("smp_mb();", "smp_frob();"),
    );
}

/// Runs a history script with `herd7` and `mselect7` from `bin`, one job.
fn hist(k: &Path, bin: &Path, name: &str) -> (Option<i32>, String, String) {
    let o = Command::new("sh")
        .current_dir(k)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("LKMM_JOBS", "1")
        .env_remove("LKMM_DESTDIR")
        .env_remove("HERDLIB")
        .arg(format!("scripts/{name}"))
        .output()
        .unwrap();
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

#[test]
fn litmushist_scripts_report_what_they_report_with_herd7() {
    let Some(mselect) = common::skip::herd_tool(
        "litmushist_scripts_report_what_they_report_with_herd7",
        "mselect7",
    ) else {
        return;
    };
    let Some((k, b)) = kernel_copy("hist") else {
        return;
    };
    std::os::unix::fs::symlink(&mselect, b.join("mselect7")).unwrap();
    history(&k);
    let frob = " !!! Herd failed, no Observation: litmus/b/R+frob.litmus";
    // initlitmushist.sh runs every test of at most three threads.
    let (st, out, err) = hist(&k, &b, "initlitmushist.sh");
    assert_eq!(st, Some(0), "{out}{err}");
    assert_eq!(out.trim_end(), frob, "{out}");
    assert!(
        err.contains("Number of failed herd7 runs (e.g., timeout):  1"),
        "{err}"
    );
    for t in [
        "SB+fencembonceonces",
        "MP+polocks",
        "CoWW+poonceonce",
        "LB+poonceonces",
    ] {
        assert!(k.join(format!("litmus/a/{t}.litmus.out")).is_file(), "{t}");
    }
    assert!(
        !k.join("litmus/a/IRIW+fencembonceonces+OnceOnce.litmus.out")
            .exists()
    );
    // newlitmushist.sh runs only what is new or newer than its output.
    write(
        &k,
        "litmus/c/CoRR.litmus",
        &std::fs::read_to_string(k.join("litmus-tests/CoRR+poonceonce+Once.litmus")).unwrap(),
    );
    let (st, out, err) = hist(&k, &b, "newlitmushist.sh");
    assert_eq!((st, out.as_str()), (Some(0), ""), "{err}");
    assert!(err.contains("All runs completed successfully."), "{err}");
    assert!(k.join("litmus/c/CoRR.litmus.out").is_file());
    // checklitmushist.sh runs them all again and compares: the same output but for Time.
    let (st, out, err) = hist(&k, &b, "checklitmushist.sh");
    assert_eq!(st, Some(0), "{out}{err}");
    assert_eq!(out.matches("Exact output match: ").count(), 5, "{out}");
    assert!(
        err.contains("Exact output matches: 5") && err.contains("!!! Unknown primitive: 1"),
        "{err}"
    );
    // checkghlitmus.sh judges those with a Result: comment.
    let (st, out, err) = hist(&k, &b, "checkghlitmus.sh");
    assert_eq!(st, Some(0), "{err}");
    assert_eq!(
        out.trim_end(),
        "!!! Current LKMM version does not know \"smp_frob\" litmus/b/R+frob.litmus"
    );

    // With herd7 7.58 writing the history, litmus as herd7 checks it: every output the
    // same as herd7's, Hash= line included, but for Time.
    let Some(herd7) = common::skip::herd7("litmushist_scripts_report_what_they_report_with_herd7")
    else {
        return;
    };
    let herd7 = herd_path(&herd7);
    let Some((k2, b2)) = kernel_copy("hist-herd") else {
        return;
    };
    let real = k2.parent().unwrap().join("real-herd");
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(&herd7, real.join("herd7")).unwrap();
    std::os::unix::fs::symlink(&mselect, real.join("mselect7")).unwrap();
    std::os::unix::fs::symlink(&mselect, b2.join("mselect7")).unwrap();
    history(&k2);
    let theirs = hist(&k2, &real, "initlitmushist.sh");
    assert_eq!(theirs.1.trim_end(), frob);
    let (st, out, err) = hist(&k2, &b2, "checklitmushist.sh");
    assert_eq!(st, Some(0), "{out}{err}");
    assert!(err.contains("Exact output matches: 4"), "{out}{err}");
    let ours = hist(&k2, &b2, "checkghlitmus.sh");
    let theirs = hist(&k2, &real, "checkghlitmus.sh");
    assert_eq!(ours.1, theirs.1);
}
