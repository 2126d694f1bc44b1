//! Every test of the shared corpus parses, and printing then re-parsing gives the same AST.
//! The corpus lives outside the repository (`../shared/corpus`); without it this test
//! skips loudly (a failure under `LITMUS_REQUIRE_CORPUS`, which CI sets).

mod common;
use std::path::{Path, PathBuf};

fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let mut jsonl: Vec<PathBuf> = std::fs::read_dir(root.join("expected"))
        .expect("read expected/")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    jsonl.sort();
    let mut files = Vec::new();
    for j in jsonl {
        for line in std::fs::read_to_string(&j).expect("read jsonl").lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("jsonl line");
            files.push(root.join(v["file"].as_str().expect("file field")));
        }
    }
    files
}

#[test]
fn corpus_parses_and_round_trips() {
    let Some(root) = common::skip::shared("corpus_parses_and_round_trips", "corpus", "expected")
    else {
        return;
    };
    let files = corpus_files(&root);
    let (mut parse_failures, mut trip_failures) = (Vec::new(), Vec::new());
    for f in &files {
        let t = match litmus::litmus::parse_file(f) {
            Ok(t) => t,
            Err(e) => {
                parse_failures.push(e.to_string());
                continue;
            }
        };
        let printed = litmus::litmus::print(&t);
        match litmus::litmus::parse(&printed) {
            Ok(t2) if t2 == t => {}
            Ok(_) => trip_failures.push(format!("{}: reparsed print differs", f.display())),
            Err(e) => trip_failures.push(format!(
                "{}: print does not parse: {e}\n{printed}",
                f.display()
            )),
        }
    }
    println!(
        "parsed {} of {} corpus tests",
        files.len() - parse_failures.len(),
        files.len()
    );
    for e in parse_failures.iter().take(30) {
        println!("PARSE {e}");
    }
    for e in trip_failures.iter().take(10) {
        println!("TRIP {e}");
    }
    assert!(
        parse_failures.is_empty(),
        "{} corpus tests do not parse",
        parse_failures.len()
    );
    assert!(
        trip_failures.is_empty(),
        "{} corpus tests do not round-trip",
        trip_failures.len()
    );
}
