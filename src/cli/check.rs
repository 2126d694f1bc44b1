//! `litmus check`: judge a batch of tests under one or more models.

use super::{CheckArgs, diag, litmus_files};
use litmus::batch::{self, Choice, Models, Settings, Status};
use litmus::litmus::ast::Test;
use litmus::model as models;
use litmus::outcome::{Judgement, Options};
use litmus::report;
use litmus::report::table::{Row, TableCell};
use std::io::IsTerminal;

use litmus::WORKER_STACK as STACK;

pub fn run(a: &CheckArgs) -> i32 {
    // Models recurse (herd's cat library builds coherence orders recursively): give workers
    // deep stacks rather than abort on a large test.
    let mut pool = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK)
        .start_handler(|_| litmus::crash::guard_this_thread());
    if let Some(j) = a.jobs {
        pool = pool.num_threads(j.max(1));
    }
    let (files, problems) = litmus_files(&a.paths);
    if files.is_empty() {
        return 2;
    }
    // One test needs no pool up front: starting worker threads would cost more than a small
    // test takes. A big one is judged in parallel parts (outcome::judge), which start the
    // pool then; `--jobs` bounds that too, so it is built here when given.
    let parallel = files.len() > 1 && a.jobs != Some(1);
    if (parallel || a.jobs.is_some())
        && let Err(e) = pool.build_global()
    {
        say!("error: cannot start the worker threads: {e}");
        return 2;
    }
    let request = a.m.request();
    let choice = match models::load_files(&request) {
        Err(e) => {
            say!("error: {e}");
            return 2;
        }
        Ok(Some(m)) => Choice::Files(Box::new(m)),
        Ok(None) => match &a.m.model {
            None => Choice::ByArch,
            Some(m) if m == "all" => Choice::Named(models::all_names()),
            Some(m) if m.split(',').all(|n| n.trim().is_empty()) => {
                say!(
                    "error: --model names no model (known: {}, or `all`)",
                    models::all_names().join(", ")
                );
                return 2;
            }
            Some(m) => {
                let mut names = Vec::new();
                for n in m.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    match models::canonical(n) {
                        Some(c) => names.push(c),
                        None => {
                            say!(
                                "error: unknown model `{n}` (known: {}, or a cat file with --cat)",
                                models::all_names().join(", ")
                            );
                            return 2;
                        }
                    }
                }
                Choice::Named(names)
            }
        },
    };
    let models = match Models::load(choice, &request) {
        Ok(m) => m,
        Err(e) => {
            say!("{e}");
            return 2;
        }
    };
    let columns = models.columns();

    let mut options = Options {
        unroll: a.unroll,
        speedcheck: super::speed(&a.speedcheck),
        ..Options::default()
    };
    if a.no_bound {
        options.bound_min = 0;
        options.cut_min = 0;
        options.symmetry = false;
        options.plans = false;
    }
    let settings = Settings {
        options,
        timeout: a.timeout,
        max_memory: a.max_memory.or_else(super::values::default_memory),
    };
    // A progress bar for long batches, on a terminal only (never in piped or CI output).
    let bar = (files.len() > 20 && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} tests, {elapsed} elapsed, ~{eta} left",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let done = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let records = batch::run(
        &files,
        &diag::load_test,
        &models,
        &settings,
        parallel,
        &done,
    );
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if a.verbose {
        for m in models.loaded() {
            for s in &m.sources {
                say!("model {}: {s}", m.label);
            }
        }
    }

    // Exit status: 2 when some input could not be judged, else 3 when a test hit a limit.
    let mut status = if problems { 2 } else { 0 };
    let mut limited = false;
    // Each file's parse error once, whatever the number of models.
    for r in records.iter().filter(|r| r.test.is_some() || r.column == 0) {
        match &r.status {
            Status::Error(e) if r.test.is_none() => {
                say!("{e}");
                status = 2;
            }
            Status::Error(e) => {
                say!("error: {}: {e}", r.file.display());
                status = 2;
            }
            Status::Undetermined(e, _) => {
                say!("warning: {}: undetermined, {e}", r.file.display());
                limited = true;
            }
            Status::Judged(j) => {
                if j.cut {
                    say!(
                        "warning: {}: unrolling limit exceeded (--unroll {}), legal outcomes may be missing",
                        r.file.display(),
                        a.unroll
                    );
                }
                let drawn = match (&a.show, &a.graph, &r.test) {
                    (Some(show), Some(dir), Some(t)) => models
                        .model_for(t)
                        .and_then(|m| super::herd::write_shown(dir, &r.file, t, &m, show, a.nshow)),
                    (None, Some(dir), Some(t)) => write_graph(dir, t, j, a.svg),
                    _ => Ok(()),
                };
                if let Err(e) = drawn {
                    say!("error: {}: {e}", r.file.display());
                    status = 2;
                }
            }
            Status::NotApplicable => {}
        }
    }
    let format = match a.format.as_str() {
        "auto" if columns.len() > 1 => "table",
        "auto" => "herd",
        f => f,
    };
    if status == 0 && limited {
        status = 3;
    }
    let mut out = String::new();
    if a.judge {
        let rows: Vec<report::judge::Row> = records
            .iter()
            .filter(|r| !matches!(r.status, Status::NotApplicable))
            .map(|r| report::judge::Row {
                file: r.file.display().to_string(),
                expected: litmus::litmus::read_source(&r.file)
                    .ok()
                    .and_then(|src| litmus::litmus::expect::expectation(&src)),
                judged: match &r.status {
                    Status::Judged(j) => Ok(j.as_ref()),
                    Status::Undetermined(x, _) => Err(format!("undetermined, {x}")),
                    Status::Error(_) | Status::NotApplicable => {
                        Err("not judged (see above)".into())
                    }
                },
            })
            .collect();
        let (text, mismatch) = report::judge::render(&rows);
        if let Err(e) = super::write_stdout(&text) {
            say!("error: cannot write the output: {e}");
            return 2;
        }
        return if status == 0 && mismatch { 1 } else { status };
    }
    match format {
        "herd" => {
            for r in &records {
                let Some(t) = &r.test else { continue };
                match &r.status {
                    Status::Judged(j) => {
                        out += &report::herd::block(t, j);
                        if a.explain {
                            out += &report::explain(t, j);
                        }
                    }
                    Status::Undetermined(why, explored) => {
                        out += &report::herd::undetermined(t, why, explored)
                    }
                    Status::Error(_) | Status::NotApplicable => continue,
                }
                out.push('\n');
            }
        }
        "table" => {
            // Tests of one family (a `Family=` header line) share a row.
            let mut rows: Vec<Row> = Vec::new();
            for r in &records {
                let Some(t) = &r.test else { continue };
                let family = t
                    .info
                    .iter()
                    .find(|(k, _)| k == "Family")
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| t.name.clone());
                let k = match rows.iter().position(|row| row.name == family) {
                    Some(k) => k,
                    None => {
                        rows.push(Row {
                            name: family,
                            cells: (0..columns.len()).map(|_| Vec::new()).collect(),
                        });
                        rows.len() - 1
                    }
                };
                let cell = match &r.status {
                    Status::Judged(j) => TableCell::Judged(j.as_ref()),
                    Status::Undetermined(why, _) => TableCell::Undetermined(why),
                    Status::Error(_) => TableCell::Failed,
                    Status::NotApplicable => continue,
                };
                rows[k].cells[r.column].push((t.name.clone(), cell));
            }
            out += &report::table::render(&columns, &rows);
        }
        "json" => {
            for r in &records {
                let file = r.file.display().to_string();
                let line = match (&r.status, &r.test) {
                    (Status::Judged(j), Some(t)) => report::json::line(&file, t, j),
                    (Status::NotApplicable, _) => continue,
                    (status, t) => report::json::unanswered(&file, t.as_deref(), &r.model, status),
                };
                out += &line;
                out.push('\n');
            }
        }
        other => {
            say!("error: unknown format `{other}` (herd, table, json)");
            return 2;
        }
    }
    if let Err(e) = super::write_stdout(&out) {
        say!("error: cannot write the output: {e}");
        return 2;
    }
    status
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
