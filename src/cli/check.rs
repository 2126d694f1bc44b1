//! `litmus check`: judge a batch of tests under one or more models.

use super::{CheckArgs, diag, litmus_files};
use litmus::litmus::ast::Test;
use litmus::model::{self as models, Loaded};
use litmus::outcome::{self, Judgement, Options};
use litmus::report;
use litmus::report::table::{Row, TableCell};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use litmus::WORKER_STACK as STACK;

/// Which models a run uses.
enum Choice {
    /// The test's architecture picks a shipped model.
    ByArch,
    /// These shipped models, by name.
    Named(Vec<&'static str>),
    /// A user model from files.
    Files,
}

/// One test's result under one model.
enum Cell {
    Done(Box<Judgement>),
    Failed(String),
    NotApplicable,
}

pub fn run(a: &CheckArgs) -> i32 {
    if a.compile {
        return super::compile::check(a);
    }
    // Models recurse (herd's cat library builds coherence orders recursively): give workers
    // deep stacks rather than abort on a large test.
    let mut pool = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK)
        .start_handler(|_| litmus::crash::guard_this_thread());
    if let Some(j) = a.jobs {
        pool = pool.num_threads(j.max(1));
    }
    let files = litmus_files(&a.paths);
    // One test needs no pool up front: starting worker threads would cost more than a small
    // test takes. A big one is judged in parallel parts (outcome::judge), which start the
    // pool then; `--jobs` bounds that too, so it is built here when given.
    let parallel = files.len() > 1 && a.jobs != Some(1);
    if parallel || a.jobs.is_some() {
        let _ = pool.build_global();
    }
    let mut status = 0;
    // Models.
    let user = match models::load_files(&a.m.request()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let choice = match (&user, &a.m.model) {
        (Some(_), _) => Choice::Files,
        (None, None) => Choice::ByArch,
        (None, Some(m)) if m == "all" => Choice::Named(models::all_names()),
        (None, Some(m)) => {
            let mut names = Vec::new();
            for n in m.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                match models::canonical(n) {
                    Some(c) => names.push(c),
                    None => {
                        eprintln!(
                            "error: unknown model `{n}` (known: {}, or a cat file with --cat)",
                            models::all_names().join(", ")
                        );
                        return 2;
                    }
                }
            }
            Choice::Named(names)
        }
    };

    // Tests.
    let parsed: Vec<(PathBuf, Result<Test, String>)> =
        map(&files, parallel, |f| (f.clone(), diag::load_test(f)));
    let mut tests = Vec::new();
    for (f, r) in parsed {
        match r {
            Ok(t) => tests.push((f, t)),
            Err(e) => {
                eprintln!("{e}");
                status = 2;
            }
        }
    }

    // Load every shipped model the batch needs, once.
    let needed: Vec<&'static str> = match &choice {
        Choice::Named(n) => n.clone(),
        Choice::ByArch => {
            let mut v: Vec<&'static str> = tests
                .iter()
                .map(|(_, t)| models::default_for(t.arch))
                .collect();
            v.sort();
            v.dedup();
            v
        }
        Choice::Files => Vec::new(),
    };
    let mut loaded: BTreeMap<&'static str, Loaded> = BTreeMap::new();
    for n in needed {
        match models::load_shipped(n, &a.m.request()) {
            Ok(m) => {
                loaded.insert(n, m);
            }
            Err(e) => {
                eprintln!("error: model {n}: {e}");
                return 2;
            }
        }
    }
    let columns: Vec<String> = match &choice {
        Choice::Named(n) => n.iter().map(|s| s.to_string()).collect(),
        Choice::ByArch => vec!["default".into()],
        Choice::Files => vec![user.as_ref().map(|u| u.label.clone()).unwrap_or_default()],
    };

    let mut opts = Options {
        unroll: a.unroll,
        speedcheck: a.speedcheck,
        ..Options::default()
    };
    if a.no_bound {
        opts.bound_min = 0;
        opts.cut_min = 0;
        opts.symmetry = false;
        opts.plans = false;
    }
    let timeout = a.timeout.map(Duration::from_secs_f64);
    // A progress bar for long batches, on a terminal only (never in piped or CI output).
    let bar = (tests.len() > 20 && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(tests.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} tests, {elapsed} elapsed, ~{eta} left",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let results: Vec<Vec<Cell>> = map(&tests, parallel, |(_, t)| {
        if let Some(b) = &bar {
            b.inc(1);
        }
        let models: Vec<&Loaded> = match &choice {
            Choice::Named(n) => n.iter().map(|k| &loaded[k]).collect(),
            Choice::ByArch => vec![&loaded[models::default_for(t.arch)]],
            Choice::Files => vec![user.as_ref().expect("files model")],
        };
        let several = models.len() > 1;
        models
            .into_iter()
            .map(|m| match &m.arches {
                // In a table across models, a model that does not speak the test's
                // language has nothing to say about it.
                Some(a) if several && !a.contains(&t.arch) => Cell::NotApplicable,
                _ => judge_one(t, m, &opts, timeout),
            })
            .collect()
    });

    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let format = match a.format.as_str() {
        "auto" if columns.len() > 1 => "table",
        "auto" => "herd",
        f => f,
    };
    for ((f, t), row) in tests.iter().zip(&results) {
        for c in row {
            match c {
                Cell::Failed(e) => {
                    eprintln!("error: {}: {e}", f.display());
                    status = 2;
                }
                Cell::Done(j) => {
                    if j.cut {
                        eprintln!(
                            "warning: {}: unrolling limit exceeded (--unroll {}), legal outcomes may be missing",
                            f.display(),
                            a.unroll
                        );
                    }
                    if let Some(dir) = &a.graph
                        && let Err(e) = write_graph(dir, t, j, a.svg)
                    {
                        eprintln!("error: {}: {e}", f.display());
                        status = 2;
                    }
                }
                Cell::NotApplicable => {}
            }
        }
    }
    match format {
        "herd" => {
            for ((_, t), row) in tests.iter().zip(&results) {
                for c in row {
                    if let Cell::Done(j) = c {
                        print!("{}", report::herd::block(t, j));
                        if a.explain {
                            print!("{}", report::explain(t, j));
                        }
                        println!();
                    }
                }
            }
        }
        "table" => {
            // Tests of one family (a `Family=` header line) share a row.
            let mut rows: Vec<Row> = Vec::new();
            for ((_, t), row) in tests.iter().zip(&results) {
                let family = t
                    .info
                    .iter()
                    .find(|(k, _)| k == "Family")
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| t.name.clone());
                let k = match rows.iter().position(|r| r.name == family) {
                    Some(k) => k,
                    None => {
                        rows.push(Row {
                            name: family,
                            cells: (0..columns.len()).map(|_| Vec::new()).collect(),
                        });
                        rows.len() - 1
                    }
                };
                for (col, c) in row.iter().enumerate() {
                    let cell = match c {
                        Cell::Done(j) => TableCell::Judged(j.as_ref()),
                        Cell::Failed(_) => TableCell::Failed,
                        Cell::NotApplicable => continue,
                    };
                    rows[k].cells[col].push((t.name.clone(), cell));
                }
            }
            print!("{}", report::table::render(&columns, &rows));
        }
        "json" => {
            for ((f, t), row) in tests.iter().zip(&results) {
                for c in row {
                    if let Cell::Done(j) = c {
                        println!("{}", report::json::line(&f.display().to_string(), t, j));
                    }
                }
            }
        }
        other => {
            eprintln!("error: unknown format `{other}` (herd, table, json)");
            return 2;
        }
    }
    // The process ends on return: freeing the models' trees, the tests and the judgements
    // block by block would be a tenth of a small run's work for nothing.
    std::mem::forget((loaded, user, tests, results));
    status
}

fn judge_one(t: &Test, m: &Loaded, opts: &Options, timeout: Option<Duration>) -> Cell {
    if let Err(e) = m.covers(t) {
        return Cell::Failed(e);
    }
    let mut o = opts.clone();
    o.deadline = timeout.map(|d| Instant::now() + d);
    match outcome::judge(t, &m.model, m.macros.as_ref(), &o) {
        Ok(mut j) => {
            j.model = m.label.clone();
            Cell::Done(Box::new(j))
        }
        Err(e) => Cell::Failed(e.to_string()),
    }
}

/// `items.map(f)`, on the worker pool when `parallel`, keeping the order.
fn map<T: Sync, R: Send>(items: &[T], parallel: bool, f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    if parallel {
        items.par_iter().map(f).collect()
    } else {
        items.iter().map(f).collect()
    }
}

/// Write `DIR/TEST.MODEL.dot` (and `.svg` with Graphviz when asked).
fn write_graph(dir: &std::path::Path, t: &Test, j: &Judgement, svg: bool) -> Result<(), String> {
    let Some(dot) = report::graph(t, j) else {
        return Ok(());
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let stem = format!("{}.{}", t.name.replace(['/', ' '], "_"), j.model);
    let path = dir.join(format!("{stem}.dot"));
    std::fs::write(&path, &dot).map_err(|e| format!("{}: {e}", path.display()))?;
    if svg {
        let out = dir.join(format!("{stem}.svg"));
        let status = std::process::Command::new("dot")
            .arg("-Tsvg")
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .status()
            .map_err(|e| format!("cannot run Graphviz `dot` for --svg: {e}"))?;
        if !status.success() {
            return Err(format!("`dot -Tsvg {}` failed", path.display()));
        }
    }
    Ok(())
}
