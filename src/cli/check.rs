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
    let models = match Models::load(choice, &request)
        .and_then(|m| super::compile::mappings(&a.mapping).map(|maps| m.compiling(maps)))
    {
        Ok(m) => m,
        Err(e) => {
            say!("{e}");
            return 2;
        }
    };
    let columns = models.columns();

    let format = match a.format.as_str() {
        "auto" if columns.len() > 1 => "table",
        "auto" => "herd",
        f @ ("herd" | "table" | "json" | "jsonl") => f,
        other => {
            say!("error: unknown format `{other}` (herd, table, json, jsonl)");
            return 2;
        }
    };
    let mut options = Options {
        unroll: a.unroll,
        speedcheck: super::speed(&a.speedcheck),
        // Records carry the witness and the reason; herd's blocks and tables show
        // them only when asked.
        evidence: a.explain || a.graph.is_some() || matches!(format, "json" | "jsonl"),
        ..Options::default()
    };
    if a.no_bound {
        options.tuning.bound_min = 0;
        options.tuning.doomed_min = 0;
        options.tuning.symmetry = false;
    }
    options.tuning.exploration = super::exploration(&a.exploration);
    if a.reference {
        options = options.reference();
    }
    let settings = a.limits.settings(options);
    let out = Outputs {
        a,
        models: &models,
        columns: &columns,
        place: &place,
        format,
    };
    // herd's blocks and JSON lines go out as each file is done, in the files' order; a
    // table waits for its last row.
    let mut kept: Vec<Kept> = Vec::new();
    let mut failed_write = None;
    // A file's records under several models say its warnings once.
    let mut said: std::collections::HashSet<String> = Default::default();
    super::stream_batch(
        &files,
        &models,
        &settings,
        parallel,
        &|r| out.keep(r),
        &mut |mut k| {
            if kept.last().is_none_or(|l| l.file != k.file) {
                said.clear();
            }
            for line in &k.said {
                if said.insert(line.clone()) {
                    say!("{line}");
                }
            }
            if failed_write.is_none()
                && !k.text.is_empty()
                && let Err(e) = super::write_stdout(&k.text)
            {
                failed_write = Some(e);
            }
            k.text = String::new();
            k.said.clear();
            kept.push(k);
        },
    );
    if let Some(e) = failed_write {
        say!("error: cannot write the output: {e}");
        return 2;
    }
    if a.verbose {
        for m in models.loaded() {
            for s in &m.files {
                say!("model {}: {s}", m.label);
            }
        }
    }
    finish(a, files.len(), problems, format, &columns, kept)
}

/// What a check prints, made of each record on the worker that judged it.
struct Outputs<'a> {
    a: &'a CheckArgs,
    models: &'a Models,
    columns: &'a [String],
    place: &'a std::collections::HashMap<&'a std::path::Path, usize>,
    format: &'a str,
}

/// What `check` keeps of one record once its outputs are made: its text, its lines for
/// stderr and a record without the final states (for the table and the summary). The
/// judgement itself is dropped by the worker that made it.
struct Kept {
    file: std::path::PathBuf,
    /// Lines for stderr: the errors and warnings of this record.
    said: Vec<String>,
    error: bool,
    limited: bool,
    cut: bool,
    unwritten: usize,
    /// herd's block (with `--explain`'s reason), or the JSON line.
    text: String,
    rec: Record,
    /// Under `--judge`, the record whole (its line needs the judgement).
    whole: Option<litmus::batch::Record>,
}

impl Outputs<'_> {
    fn keep(&self, r: litmus::batch::Record) -> Kept {
        let a = self.a;
        let index = self.place[r.file.as_path()];
        let column = &self.columns[r.column];
        let mut k = Kept {
            file: r.file.clone(),
            said: Vec::new(),
            error: false,
            limited: false,
            cut: false,
            unwritten: 0,
            text: String::new(),
            rec: match self.format {
                "table" => record::table_row(&r, column, index),
                "json" | "jsonl" => record::of(&r, column, index),
                _ => record::status(&r, column, index),
            },
            whole: None,
        };
        // Each file's parse error once, whatever the number of models.
        let first = r.test.is_some() || r.column == 0;
        match (&r.status, r.judged_test()) {
            (Status::NotCompiled(why), _) => k.said.push(format!(
                "{}: warning: not compiled for {}/{}: {why}",
                r.file.display(),
                r.model,
                r.mapping.as_deref().unwrap_or("")
            )),
            (Status::Error(e), _) if first => {
                k.said.push(e.render_file());
                k.error = true;
            }
            (Status::Undetermined(e, explored), Some(t)) => {
                k.said
                    .push(format!("{}: warning: undetermined, {e}", r.file.display()));
                k.limited = true;
                if self.format == "herd" {
                    k.text = report::herd::undetermined(t, e, explored) + "\n";
                }
            }
            (Status::Judged(j), Some(t)) => {
                k.said.extend(
                    j.warnings
                        .iter()
                        .map(|w| super::diag::warning(&r.file, w).to_string()),
                );
                k.cut = j.cut;
                if let Err(e) = self.draw(&r, t, j) {
                    k.said.push(format!("{}: error: {e}", r.file.display()));
                    k.unwritten += 1;
                }
                if self.format == "herd" {
                    k.text = report::herd::block(t, j);
                    if a.explain {
                        k.text += &report::explain(t, j);
                    }
                    k.text.push('\n');
                }
            }
            _ => {}
        }
        if matches!(self.format, "json" | "jsonl") {
            k.text = k.rec.to_line() + "\n";
        }
        if a.judge {
            // A line per test instead, once all are judged.
            k.text.clear();
            k.whole = Some(r);
        }
        k
    }

    /// The graphs `--graph` (and `--show`) ask for.
    fn draw(&self, r: &litmus::batch::Record, t: &Test, j: &Judgement) -> Result<(), String> {
        let a = self.a;
        match (&a.show, &a.graph) {
            (Some(show), Some(dir)) => self
                .models
                .model_for(t)
                .and_then(|m| super::herd::write_shown(dir, &r.file, t, &m, show, a.nshow)),
            (None, Some(dir)) => write_graph(dir, t, j, a.svg),
            _ => Ok(()),
        }
    }
}

/// Prints what was kept, in the files' order, then the summary; the exit status: 2 when
/// some input could not be judged (or an output not made), else 3 when a test hit a
/// limit, else 1 for a `--judge` mismatch.
fn finish(
    a: &CheckArgs,
    files: usize,
    problems: bool,
    format: &str,
    columns: &[String],
    kept: Vec<Kept>,
) -> i32 {
    let mut status = if problems { 2 } else { 0 };
    let mut limited = false;
    let mut unwritten = 0;
    // The files some of whose runs the unrolling bound cut.
    let mut cut: Vec<&std::path::PathBuf> = Vec::new();
    for k in &kept {
        if k.error || k.unwritten > 0 {
            status = 2;
        }
        limited |= k.limited;
        unwritten += k.unwritten;
        if k.cut && !cut.contains(&&k.file) {
            cut.push(&k.file);
        }
    }
    warn_cut(&cut, files, a.unroll, a.verbose);
    if status == 0 && limited {
        status = 3;
    }
    if a.judge {
        return judged_lines(&kept, status);
    }
    let recs: Vec<Record> = kept.into_iter().map(|k| k.rec).collect();
    if format == "table" {
        let table = report::table::render(columns, &recs, unwritten);
        if let Err(e) = super::write_stdout(&table) {
            say!("error: cannot write the output: {e}");
            return 2;
        }
    } else {
        super::summary_to_stderr(files, &recs, unwritten);
    }
    status
}

/// `--judge`: a line per test against its `Result:` comment, as the kernel's
/// `judgelitmus.sh` judges it, and a summary.
fn judged_lines(kept: &[Kept], status: i32) -> i32 {
    let rows: Vec<report::expected::Row> = kept
        .iter()
        .filter_map(|k| k.whole.as_ref())
        // A C test's `Result:` comment is the LKMM's answer, not its compiled forms'.
        .filter(|r| !matches!(r.status, Status::NotApplicable) && r.compiled.is_none())
        .map(|r| report::expected::Row {
            file: r.file.display().to_string(),
            expected: litmus::litmus::read_source(&r.file)
                .ok()
                .and_then(|src| litmus::litmus::expect::expectation(&src)),
            judged: match &r.status {
                Status::Judged(j) => Ok(j.as_ref()),
                Status::Undetermined(x, _) => Err(format!("undetermined, {x}")),
                Status::Error(_) | Status::NotApplicable | Status::NotCompiled(_) => {
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
    if status == 0 && mismatch { 1 } else { status }
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

/// The runs the unrolling bound cut: one warning per test when one test was checked (or
/// with `-v`), else one line for the batch, whose own tests are often loops meant to be
/// cut (a warning on every line teaches users to ignore warnings).
fn warn_cut(cut: &[&std::path::PathBuf], files: usize, unroll: u32, verbose: bool) {
    let what =
        format!("unrolling limit exceeded (--unroll {unroll}), legal outcomes may be missing");
    if files == 1 || verbose {
        for f in cut {
            say!("{}: warning: {what}", f.display());
        }
    } else if !cut.is_empty() {
        let n = cut.len();
        say!(
            "warning: {n} {} cut by --unroll {unroll}, legal outcomes may be missing (-v lists them)",
            if n == 1 { "test" } else { "tests" }
        );
    }
}
