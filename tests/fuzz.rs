//! The fuzz targets' saved inputs, replayed under `cargo test` with the targets' own
//! properties (`fuzz/props.rs`): every input in `fuzz/corpus/TARGET/` (what coverage-guided
//! runs kept, minimised) and in `fuzz/regressions/TARGET/` (inputs that once failed, kept
//! whole; the `check` target's as the litmus tests they decode to). `.ci/run` runs the
//! targets themselves with `cargo fuzz` (`fuzz/run`).

#[path = "../fuzz/gen.rs"]
mod generate;
#[path = "../fuzz/props.rs"]
mod props;

use std::path::{Path, PathBuf};

fn files(dir: &str, target: &str) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(dir)
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `property` on every saved input of `target` in `dir`; the corpus must not be empty.
fn replay(dir: &str, target: &str, property: &dyn Fn(&[u8])) {
    let files = files(dir, target);
    assert!(
        dir != "corpus" || !files.is_empty(),
        "no saved corpus for fuzz target {target} (fuzz/corpus/{target})"
    );
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| property(&data)));
        assert!(run.is_ok(), "{target}: {} fails its property", f.display());
    }
    println!("{target}: {} inputs of {dir} hold", files.len());
}

fn replay_both(target: &str, property: fn(&[u8])) {
    replay("corpus", target, &property);
    replay("regressions", target, &property);
}

#[test]
fn litmus_parse_inputs_hold() {
    replay_both("litmus_parse", props::litmus_text);
}

#[test]
fn cat_parse_inputs_hold() {
    replay_both("cat_parse", props::cat_text);
}

#[test]
fn herd_cfg_inputs_hold() {
    replay_both("herd_cfg", props::cfg_text);
}

#[test]
fn check_inputs_hold() {
    replay("corpus", "check", &|data| {
        if let Some(test) = generate::decode(data) {
            props::check_test(&test)
        }
    });
    replay("regressions", "check", &|data| {
        props::check_test(std::str::from_utf8(data).expect("a saved test is text"))
    });
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 64,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// 64 small litmus tests per run, generated as the fuzz target generates them (2–4
    /// threads of up to 4 operations, in C, X86, AArch64 or PPC) from bytes proptest
    /// draws and shrinks: under every shipped model of their architecture, every fast
    /// path forced on gives the reference's answer (the `check` target's property).
    #[test]
    fn generated_tests_agree_with_the_reference(
        data in proptest::collection::vec(proptest::prelude::any::<u8>(), 16..512)
    ) {
        if let Some(test) = generate::decode(&data) {
            props::check_test(&test);
        }
    }
}

/// How we know the generated tests exercise every fast path: the saved inputs of the
/// `check` target, judged with every fast path forced on (`Tuning::eager`), make plans,
/// bound subtrees from above, cut partial choices of `rf` from below, drop coherence
/// orders before their branches, and use symmetries (the counters of `Judgement`).
#[test]
fn every_fast_path_is_taken_on_the_generated_tests() {
    use litmus::judge::{self, Options};
    use litmus::model::{self, Request};
    let models: Vec<_> = model::all_names()
        .into_iter()
        .map(|n| model::load_shipped(n, &Request::default()).expect("a shipped model loads"))
        .collect();
    let opts = Options {
        tuning: litmus::tuning::Tuning::eager(),
        budget: litmus::budget::Budget::new(Some(std::time::Duration::from_secs(2)), None),
        ..Options::default()
    };
    let (mut stats, mut bounded, mut left_out, mut symmetric) =
        (litmus::cat::Stats::default(), 0, 0, 0);
    for f in files("corpus", "check") {
        let Some(src) = generate::decode(&std::fs::read(&f).unwrap()) else {
            continue;
        };
        let t = litmus::litmus::parse(&src).expect("a generated test parses");
        for m in models
            .iter()
            .filter(|m| m.arches.as_ref().is_some_and(|a| a.contains(&t.arch)))
        {
            let Ok(j) = judge::run(&t, &m.model, m.macros.as_ref(), &opts) else {
                continue;
            };
            stats += j.stats.cat;
            bounded += j.stats.bounded;
            left_out += j.stats.left_out;
            symmetric += (j.stats.symmetries > 1) as usize;
        }
    }
    println!("{stats:?}, {bounded} candidates bounded, {left_out} left out, {symmetric} symmetric");
    assert!(stats.plans > 0 && stats.planned > 0, "{stats:?}");
    assert!(stats.bounds_held > 0 && bounded > 0, "{stats:?}");
    assert!(stats.doomed > 0 && left_out > 0, "{stats:?}");
    assert!(stats.pruned > 0, "{stats:?}");
    assert!(symmetric > 0, "no generated test had a symmetry");
    assert_eq!(
        stats.given_up, 0,
        "a shipped model did not compile: {stats:?}"
    );
}
