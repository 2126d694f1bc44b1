//! `litmus check`: judge a batch of tests under one or more models.

use super::CheckArgs;
use litmus::batch::{Models, Status};
use litmus::judge::{Judgement, Options};
use litmus::litmus::ast::Test;
use litmus::report;
use litmus::report::record::{self, Record};

pub fn run(a: &CheckArgs) -> i32 {
    if a.compile {
        return super::compile::check(a);
    }
    let Some(super::Batch {
        files,
        problems,
        parallel,
    }) = super::batch(&a.paths, a.limits.jobs)
    else {
        return 2;
    };
    if files.is_empty() {
        return 2;
    }
    // Each file's place in the whole batch, which a shard's records keep.
    let (files, index): (Vec<std::path::PathBuf>, Vec<usize>) = match a.shard {
        Some((k, n)) => litmus::batch::shard(&files, k, n)
            .into_iter()
            .map(|i| (files[i].clone(), i))
            .unzip(),
        None => files.iter().cloned().zip(0..).unzip(),
    };
    let place: std::collections::HashMap<&std::path::Path, usize> =
        files.iter().map(|f| f.as_path()).zip(index).collect();
    let request = a.m.request();
    let choice = match super::choice(&a.m) {
        Ok(c) => c,
        Err(e) => {
            say!("{e}");
            return 2;
        }
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
        options.tuning.bound_min = 0;
        options.tuning.doomed_min = 0;
        options.tuning.symmetry = false;
    }
    if a.reference {
        options = options.reference();
    }
    let settings = a.limits.settings(options);
    let records = super::run_batch(&files, &models, &settings, parallel);
    if a.verbose {
        for m in models.loaded() {
            for s in &m.files {
                say!("model {}: {s}", m.label);
            }
        }
    }

    // Exit status: 2 when some input could not be judged, else 3 when a test hit a limit.
    let mut status = if problems { 2 } else { 0 };
    let mut limited = false;
    let mut warned = std::collections::BTreeSet::new();
    // Each file's parse error once, whatever the number of models.
    for r in records.iter().filter(|r| r.test.is_some() || r.column == 0) {
        match &r.status {
            Status::Error(e) => {
                say!("{}", e.render_file());
                status = 2;
            }
            Status::Undetermined(e, _) => {
                say!("{}: warning: undetermined, {e}", r.file.display());
                limited = true;
            }
            Status::Judged(j) => {
                for w in &j.warnings {
                    if warned.insert((&r.file, &w.msg)) {
                        say!("{}", super::diag::warning(&r.file, w));
                    }
                }
                if j.cut {
                    say!(
                        "{}: warning: unrolling limit exceeded (--unroll {}), legal outcomes may be missing",
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
                    say!("{}: error: {e}", r.file.display());
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
        let rows: Vec<report::expected::Row> = records
            .iter()
            .filter(|r| !matches!(r.status, Status::NotApplicable))
            .map(|r| report::expected::Row {
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
        let (text, mismatch) = report::expected::render(&rows);
        if let Err(e) = super::write_stdout(&text) {
            say!("error: cannot write the output: {e}");
            return 2;
        }
        return if status == 0 && mismatch { 1 } else { status };
    }
    // Whole records (with every final state) only where they are printed.
    let record = match format {
        "table" | "json" | "jsonl" => record::of,
        _ => record::status,
    };
    let recs: Vec<Record> = records
        .iter()
        .map(|r| record(r, &columns[r.column], place[r.file.as_path()]))
        .collect();
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
        "table" | "json" | "jsonl" => {
            out += &match format {
                "table" => report::table::render(&columns, &recs),
                _ => record::lines(&recs),
            };
        }
        other => {
            say!("error: unknown format `{other}` (herd, table, json, jsonl)");
            return 2;
        }
    }
    if let Err(e) = super::write_stdout(&out) {
        say!("error: cannot write the output: {e}");
        return 2;
    }
    if format != "table" {
        super::summary_to_stderr(files.len(), &recs);
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
