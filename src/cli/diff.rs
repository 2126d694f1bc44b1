//! `litmus diff`: what one model allows that another forbids, test by test, and why; or
//! how two herd-format logs differ, as herdtools7's `mcompare7` compares them.

use clap::Args;
use litmus::batch::{Choice, Column, Models, Record, Status};
use litmus::budget::Budget;
use litmus::judge::{Options, explore};
use litmus::litmus::ast::Test;
use litmus::model::{self, Request, Spec};
use litmus::snapshot::{Delta, Outcome, herd_log};
use rayon::prelude::*;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct DiffArgs {
    /// Litmus files or folders (searched for `*.litmus`) to judge under the two models; or,
    /// without --model, two herd-format logs (herd7's output, ours, or litmus7's).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The two models, each a shipped name (lkmm, x86tso, armv8, power), a `.cat` file or a
    /// herd7 `.cfg` file: `--model A --model B` (or `--model A,B`).
    #[arg(long, short = 'm')]
    model: Vec<String>,
    /// A bell file for a `.cat` model (herd7's `-bell`).
    #[arg(long)]
    bell: Option<PathBuf>,
    /// A macro file for C tests under a `.cat` model (herd7's `-macros`).
    #[arg(long)]
    macros: Option<PathBuf>,
    /// Variants for the models from files (herd7's `-variant`).
    #[arg(long)]
    variant: Vec<String>,
    /// Folders searched for included cat files.
    #[arg(short = 'I', long = "include")]
    include: Vec<PathBuf>,
    /// Loop unrolling bound.
    #[arg(long, default_value_t = 2)]
    unroll: u32,
    #[command(flatten)]
    limits: super::Limits,
    /// Output: text, or json (one document).
    #[arg(long, default_value = "text")]
    format: String,
}

/// Why one side has no such final state (no entry: no candidate execution reaches it),
/// or why that could not be said.
type Why = Result<Option<explore::Rejected>, String>;

/// One test whose outcomes differ.
struct Difference {
    /// The test file (none for logs).
    file: Option<PathBuf>,
    test: String,
    delta: Delta,
    /// For each state only the second side has, why the first forbids it; and the reverse.
    why_added: BTreeMap<String, Why>,
    why_removed: BTreeMap<String, Why>,
}

/// What a diff found, whichever its sides.
struct Found {
    /// The names of the two sides.
    sides: [String; 2],
    differences: Vec<Difference>,
    /// Tests both sides answered.
    compared: usize,
    /// Tests only one side answered (by name), per side.
    only: [Vec<String>; 2],
    errors: usize,
    /// Tests not compared: a model does not speak their language.
    skipped: usize,
}

pub fn run(a: &DiffArgs) -> i32 {
    if !matches!(a.format.as_str(), "text" | "json") {
        say!("error: unknown format `{}` (text, json)", a.format);
        return 2;
    }
    let found = if a.model.is_empty() {
        logs(a)
    } else {
        models(a)
    };
    let found = match found {
        Ok(f) => f,
        Err(e) => {
            say!("{e}");
            return 2;
        }
    };
    let out = match a.format.as_str() {
        "json" => format!("{:#}\n", as_json(&found)),
        _ => as_text(&found),
    };
    if let Err(e) = super::write_stdout(&out) {
        say!("error: cannot write the output: {e}");
        return 2;
    }
    if found.errors > 0 {
        2
    } else if found.differences.is_empty() && found.only.iter().all(Vec::is_empty) {
        0
    } else {
        1
    }
}

/// Two logs: each test of either, by name.
fn logs(a: &DiffArgs) -> Result<Found, String> {
    let [one, two] = &a.paths[..] else {
        return Err("error: `litmus diff` takes two logs, or tests with two --model".into());
    };
    let read = |p: &PathBuf| -> Result<BTreeMap<String, Outcome>, String> {
        let text =
            std::fs::read_to_string(p).map_err(|e| format!("{}: error: {e}", p.display()))?;
        let blocks = herd_log::parse(&text)
            .map_err(|e| format!("{}:{}: error: {}", p.display(), e.line, e.msg))?;
        if blocks.is_empty() {
            return Err(format!(
                "{}: error: no test block (`Test NAME ...`)",
                p.display()
            ));
        }
        // A test run twice: its last block counts, as in mcompare7.
        Ok(blocks.into_iter().map(|o| (o.test.clone(), o)).collect())
    };
    let (x, y) = (read(one)?, read(two)?);
    let mut found = Found {
        sides: [one.display().to_string(), two.display().to_string()],
        differences: Vec::new(),
        compared: 0,
        only: [Vec::new(), Vec::new()],
        errors: 0,
        skipped: 0,
    };
    for (name, o) in &x {
        match y.get(name) {
            None => found.only[0].push(name.clone()),
            Some(p) => {
                found.compared += 1;
                let delta = Delta::between(o, p);
                if !delta.is_empty() {
                    found.differences.push(Difference {
                        file: None,
                        test: name.clone(),
                        delta,
                        why_added: BTreeMap::new(),
                        why_removed: BTreeMap::new(),
                    });
                }
            }
        }
    }
    found.only[1] = y.keys().filter(|n| !x.contains_key(*n)).cloned().collect();
    Ok(found)
}

/// How the two models are named in the output: shipped names and file names, or the
/// paths as given when their file names are the same.
fn side_names(specs: &[Spec]) -> [String; 2] {
    let short = |s: &Spec| match s {
        Spec::Shipped(n) => n.to_string(),
        Spec::Files(_) => Path::new(&s.name())
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| s.name()),
    };
    let (a, b) = (short(&specs[0]), short(&specs[1]));
    if a == b {
        [specs[0].name(), specs[1].name()]
    } else {
        [a, b]
    }
}

/// Two models over the tests.
fn models(a: &DiffArgs) -> Result<Found, String> {
    let words: Vec<&str> = a
        .model
        .iter()
        .flat_map(|m| m.split(','))
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    let base = Request {
        bell: a.bell.clone(),
        macros: a.macros.clone(),
        variants: a.variant.clone(),
        include: a.include.clone(),
        ..Default::default()
    };
    let specs = words
        .iter()
        .map(|w| Spec::parse(w, &base))
        .collect::<Result<Vec<_>, _>>()?;
    if specs.len() != 2 {
        return Err(format!(
            "error: `litmus diff` compares two models; {} given",
            specs.len()
        ));
    }
    let columns = specs
        .iter()
        .map(|s| match s {
            Spec::Shipped(n) => Ok(Column::Shipped(n)),
            Spec::Files(_) => s.load(&base).map(|m| Column::Files(Box::new(m))),
        })
        .collect::<Result<Vec<_>, String>>()?;
    // A test is compared when both models speak its language: a shipped model says which
    // it speaks, and a model from files is taken at its word.
    let spoken: Vec<&'static [litmus::litmus::ast::Arch]> = specs
        .iter()
        .filter_map(|s| match s {
            Spec::Shipped(n) => Some(model::arches(n)),
            Spec::Files(_) => None,
        })
        .collect();
    let select = move |_: &Path, t: &Test, _: usize| spoken.iter().all(|a| a.contains(&t.arch));
    let models = Models::load(Choice::Columns(columns), &base)?.select(Box::new(select));
    let Some(super::Batch {
        files,
        problems,
        parallel,
    }) = super::batch(&a.paths, a.limits.jobs)
    else {
        return Err("error: no workers to run the tests".into());
    };
    let settings = a.limits.settings(Options {
        unroll: a.unroll,
        ..Options::default()
    });
    let records = super::run_batch(&files, &models, &settings, parallel);
    let mut found = Found {
        sides: side_names(&specs),
        differences: Vec::new(),
        compared: 0,
        only: [Vec::new(), Vec::new()],
        errors: usize::from(problems),
        skipped: 0,
    };
    // The two records of each file, in order.
    let mut by_file: BTreeMap<&PathBuf, [Option<&Record>; 2]> = BTreeMap::new();
    for r in &records {
        by_file.entry(&r.file).or_default()[r.column.min(1)] = Some(r);
    }
    found.skipped = files.len() - by_file.len();
    let mut todo: Vec<(&Test, PathBuf, Delta)> = Vec::new();
    for (file, pair) in &by_file {
        let outcome = |k: usize| -> Option<Result<(&Test, Outcome), String>> {
            let r = pair[k]?;
            match (&r.status, &r.test) {
                (Status::Judged(j), Some(t)) => Some(Ok((t.as_ref(), Outcome::of(t, j)))),
                (Status::NotApplicable | Status::NotCompiled(_), _) => None,
                (Status::Error(e), _) => Some(Err(e.render_file())),
                (Status::Undetermined(e, _), _) => {
                    Some(Err(format!("{}: undetermined: {e}", file.display())))
                }
                (Status::Judged(_), None) => None,
            }
        };
        match (outcome(0), outcome(1)) {
            (Some(Err(e)), _) | (_, Some(Err(e))) => {
                say!("{e}");
                found.errors += 1;
            }
            (Some(Ok((t, x))), Some(Ok((_, y)))) => {
                found.compared += 1;
                let delta = Delta::between(&x, &y);
                if !delta.is_empty() {
                    todo.push((t, (*file).clone(), delta));
                }
            }
            (Some(Ok((t, _))), None) => found.only[0].push(t.name.clone()),
            (None, Some(Ok((t, _)))) => found.only[1].push(t.name.clone()),
            (None, None) => found.skipped += 1,
        }
    }
    // Why each state one model allows is forbidden by the other: a run over every
    // candidate, for the tests that differ only.
    let why = |t: &Test, column: usize, states: &[String]| -> BTreeMap<String, Why> {
        if states.is_empty() {
            return BTreeMap::new();
        }
        let asked: BTreeSet<String> = states.iter().cloned().collect();
        let result = models.get(column, t).and_then(|m| {
            let other = models.get(1 - column, t)?;
            let opts = Options {
                budget: Budget::new(settings.timeout, settings.max_memory),
                ..settings.options.clone()
            };
            let allowing = explore::Allowing {
                model: &other.model,
                macros: other.macros.as_ref(),
            };
            explore::rejections(
                t,
                &m.model,
                m.macros.as_ref(),
                &opts,
                &asked,
                Some(allowing),
            )
            .map_err(|e| e.to_string())
        });
        states
            .iter()
            .map(|s| {
                let w = match &result {
                    Ok(map) => Ok(map.get(s).cloned()),
                    Err(e) => Err(e.clone()),
                };
                (s.clone(), w)
            })
            .collect()
    };
    found.differences = todo
        .into_par_iter()
        .map(|(t, file, delta)| Difference {
            why_added: why(t, 0, &delta.added),
            why_removed: why(t, 1, &delta.removed),
            file: Some(file),
            test: t.name.clone(),
            delta,
        })
        .collect();
    Ok(found)
}

/// `lkmm forbids it by happens-before (2 executions), propagation (1)`.
fn why_text(forbids: &str, w: &Why) -> String {
    match w {
        Ok(None) => format!("no candidate execution reaches it under {forbids}"),
        Ok(Some(r)) => {
            let list: Vec<String> = r
                .checks
                .iter()
                .enumerate()
                .map(|(k, (c, n))| match (k, n) {
                    (0, 1) => format!("{c} (1 execution)"),
                    (0, n) => format!("{c} ({n} executions)"),
                    (_, n) => format!("{c} ({n})"),
                })
                .collect();
            let whose = if r.matched {
                ""
            } else {
                " (each execution reaching it; the other model's are other candidates)"
            };
            format!("{forbids} forbids it by {}{whose}", list.join(", "))
        }
        Err(e) => format!("{forbids} forbids it (not explained: {e})"),
    }
}

fn as_text(f: &Found) -> String {
    let [a, b] = &f.sides;
    let mut o = format!("--- {a}\n+++ {b}\n");
    for d in &f.differences {
        match &d.file {
            Some(p) => o += &format!("{} ({})\n", p.display(), d.test),
            None => o += &format!("{}\n", d.test),
        }
        let x = &d.delta;
        if let Some((p, q)) = &x.verdict {
            o += &format!("    verdict {p} under {a}, {q} under {b}\n");
        }
        for s in &x.removed {
            o += &format!("    - {s}");
            if let Some(w) = d.why_removed.get(s) {
                o += &format!("  {}", why_text(b, w));
            }
            o.push('\n');
        }
        for s in &x.added {
            o += &format!("    + {s}");
            if let Some(w) = d.why_added.get(s) {
                o += &format!("  {}", why_text(a, w));
            }
            o.push('\n');
        }
        // The rest as a change from the first side to the second.
        let rest = Delta {
            verdict: None,
            added: Vec::new(),
            removed: Vec::new(),
            ..x.clone()
        };
        for l in rest.lines() {
            o += &format!("    {l}\n");
        }
    }
    for (k, side) in f.sides.iter().enumerate() {
        if !f.only[k].is_empty() {
            o += &format!("only {side} answers: {}\n", f.only[k].join(" "));
        }
    }
    let n = |p: &dyn Fn(&Delta) -> bool| f.differences.iter().filter(|d| p(&d.delta)).count();
    o += &format!(
        "diff: {} tests answered by both, {} differ ({} in verdict, {} in final states, {} in \
         flags, {} in witness counts only); {} answered by one side only; {} errors{}\n",
        f.compared,
        f.differences.len(),
        n(&|d| d.verdict.is_some()),
        n(&|d| !d.added.is_empty() || !d.removed.is_empty()),
        n(&|d| !d.flags_added.is_empty() || !d.flags_removed.is_empty()),
        n(&|d| !d.answers()),
        f.only[0].len() + f.only[1].len(),
        f.errors,
        match f.skipped {
            0 => String::new(),
            n => format!("; {n} tests in a language one model does not speak"),
        }
    );
    o
}

fn as_json(f: &Found) -> serde_json::Value {
    let why = |m: &BTreeMap<String, Why>| -> serde_json::Value {
        m.iter()
            .map(|(s, w)| {
                let v = match w {
                    Ok(None) => json!({ "unreachable": true }),
                    Ok(Some(r)) => json!({
                        "checks": r
                            .checks
                            .iter()
                            .map(|(c, n)| json!({"check": c, "executions": n}))
                            .collect::<Vec<_>>(),
                        "same_executions": r.matched,
                    }),
                    Err(e) => json!({ "error": e }),
                };
                (s.clone(), v)
            })
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    json!({
        "sides": f.sides,
        "tests": f.differences.iter().map(|d| json!({
            "file": d.file.as_ref().map(|p| p.display().to_string()),
            "test": d.test,
            "delta": d.delta,
            "forbidden_by_first": why(&d.why_added),
            "forbidden_by_second": why(&d.why_removed),
        })).collect::<Vec<_>>(),
        "only_first": f.only[0],
        "only_second": f.only[1],
        "summary": {
            "compared": f.compared, "differ": f.differences.len(), "errors": f.errors,
            "skipped": f.skipped,
        },
    })
}
