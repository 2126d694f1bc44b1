//! The fuzz targets' saved inputs, replayed under `cargo test` with the targets' own
//! properties (`fuzz/props.rs`): every input in `fuzz/corpus/TARGET/` (what coverage-guided
//! runs kept) and `fuzz/regressions/TARGET/` (inputs that once failed, kept whole). The
//! `check` target's inputs are kept as the litmus tests they decode to. `.ci/run` runs the
//! targets themselves with `cargo fuzz`.

#[path = "../fuzz/props.rs"]
mod props;

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files: Vec<PathBuf> = ["corpus", "regressions"]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(root.join(d).join(target))
                .into_iter()
                .flatten()
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no saved inputs for fuzz target {target} under {}",
        root.display()
    );
    files
}

fn replay(target: &str, property: fn(&[u8])) {
    let files = inputs(target);
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let run = std::panic::catch_unwind(|| property(&data));
        assert!(run.is_ok(), "{target}: {} fails its property", f.display());
    }
    println!("{target}: {} saved inputs hold", files.len());
}

#[test]
fn litmus_parse_inputs_hold() {
    replay("litmus_parse", props::litmus_text);
}

#[test]
fn cat_parse_inputs_hold() {
    replay("cat_parse", props::cat_text);
}

#[test]
fn herd_cfg_inputs_hold() {
    replay("herd_cfg", props::cfg_text);
}

#[test]
fn check_inputs_hold() {
    replay("check", |data| {
        props::check_test(std::str::from_utf8(data).expect("a saved test is text"))
    });
}
