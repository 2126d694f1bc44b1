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
