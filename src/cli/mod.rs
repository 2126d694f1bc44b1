//! Command-line front end: argument parsing (herd7's single-dash options accepted), file
//! walking, and dispatch to the subcommands.

/// `eprintln!` that cannot panic (see [`stderr_line`]); defined before the submodules so
/// that they all see it.
macro_rules! say {
    ($($t:tt)*) => { $crate::cli::stderr_line(format_args!($($t)*)) };
}

mod bench;
mod check;
mod compile;
mod diag;
mod diff;
mod explore;
mod herd;
mod report;
mod snapshot;
mod values;

use clap::{Args, Parser, Subcommand};
use litmus::batch::{Choice, Column};
use litmus::model::{self, Spec};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Parser)]
#[command(
    name = "litmus",
    version,
    about = "Can this outcome happen? Judge litmus tests under memory models, as herd7 does."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Judge tests under one or more models and report which final states each allows.
    Check(Box<CheckArgs>),
    /// Browse a test's candidate executions interactively: why an outcome is forbidden,
    /// how it is reached.
    Explore(Box<explore::ExploreArgs>),
    /// Time batches and hard tests, with throughput and herd7 comparisons.
    Bench(bench::BenchArgs),
    /// herd7's command line, whole (also what `litmus` does when run as `herd7`, or given
    /// herd7's options without a subcommand): see `litmus herd7 -help`.
    #[command(name = "herd7")]
    Herd7 {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Compile C tests to PPC, AArch64 or X86 through a mapping of the kernel's primitives.
    Compile(compile::CompileArgs),
    /// Snapshot tests of expected outcomes: record each test's outcome per model beside it,
    /// check that a new run (or an edited model) gives the same, review the changes.
    Snapshot(Box<snapshot::SnapshotArgs>),
    /// What one model allows that another forbids, test by test, and the axiom that forbids
    /// it (`--model A --model B PATHS`); or how two herd-format logs differ (`LOG1 LOG2`).
    Diff(Box<diff::DiffArgs>),
    /// Merge `check --format jsonl` records (of shards of one run) into that run's output:
    /// herd7's blocks, the table, or the records in order.
    Report(Box<report::ReportArgs>),
    /// Parse tests and print them back in canonical herd syntax (with their header
    /// comments).
    Parse {
        /// Litmus files, or folders searched for `*.litmus`.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
}

/// Which model judges the tests, in herd7's terms (shared by `check` and `explore`).
#[derive(Args, Clone, Debug, PartialEq)]
pub struct ModelArgs {
    /// Model(s): lkmm, x86tso, armv8, power (aliases: linux-kernel, tso, aarch64, arm64, ppc,
    /// powerpc), a `.cat` or `.cfg` file, a comma-separated list, or `all`. Default: the
    /// test's architecture picks.
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// A herd7 configuration file (`-conf linux-kernel.cfg`).
    #[arg(long)]
    pub conf: Option<PathBuf>,
    /// A cat model file (herd7's `-model`).
    #[arg(long = "cat")]
    pub cat: Option<PathBuf>,
    /// A bell file (herd7's `-bell`).
    #[arg(long)]
    pub bell: Option<PathBuf>,
    /// A macro file for C tests (herd7's `-macros`).
    #[arg(long)]
    pub macros: Option<PathBuf>,
    /// Model variants (herd7's `-variant`), comma-separated.
    #[arg(long)]
    pub variant: Vec<String>,
    /// Folders searched for model files, after the current folder and before `$HERDLIB`
    /// and the library folder (herd7's `-I`).
    #[arg(short = 'I', long = "include")]
    pub include: Vec<PathBuf>,
    /// herd's library folder (herd7's `-set-libdir`): its files come before the shipped
    /// models standing in for herd's standard names (`ppc.cat`, `aarch64.cat`, ...).
    #[arg(long = "set-libdir", value_name = "DIR")]
    pub libdir: Option<PathBuf>,
    /// Checks that pass without being evaluated (herd7's `-skipchecks`), comma-separated.
    #[arg(long = "skipchecks", value_name = "NAME,...")]
    pub skipchecks: Vec<String>,
    /// What herd7's `-through` lets through besides valid executions: none, invalid, all
    /// (invalid and all: every check passes).
    #[arg(long, value_parser = ["none", "invalid", "all"], default_value = "none")]
    pub through: String,
}

impl ModelArgs {
    pub fn request(&self) -> litmus::model::Request {
        litmus::model::Request {
            conf: self.conf.clone(),
            cat: self.cat.clone(),
            bell: self.bell.clone(),
            macros: self.macros.clone(),
            variants: self.variant.clone(),
            include: self.include.clone(),
            herdlib: herdlib(),
            libdir: self.libdir.clone(),
            skip: litmus::cat::SkipChecks {
                names: self
                    .skipchecks
                    .iter()
                    .flat_map(|s| s.split(','))
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
                all: self.through != "none",
            },
        }
    }
}

/// `$HERDLIB`, where herd7 looks for its files after the `-I` folders.
pub fn herdlib() -> Option<PathBuf> {
    std::env::var_os("HERDLIB")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// What a batch may use: its workers, and each test's time and memory.
#[derive(Args, Clone, Debug, PartialEq)]
pub struct Limits {
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_parser = values::jobs)]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub test: TestLimits,
}

/// What one test may use.
#[derive(Args, Clone, Debug, PartialEq)]
pub struct TestLimits {
    /// Seconds allowed per test; a test over it is reported as undetermined.
    #[arg(long, value_parser = values::seconds)]
    pub timeout: Option<std::time::Duration>,
    /// Most memory the process may hold (512M, 2G, ...; default: three quarters of the
    /// machine's); a test that reaches it is reported as undetermined.
    #[arg(long, value_name = "SIZE", value_parser = values::bytes)]
    pub max_memory: Option<u64>,
}

impl TestLimits {
    /// The memory limit, defaulted.
    fn max_memory(&self) -> Option<u64> {
        self.max_memory.or_else(values::default_memory)
    }

    /// A budget that starts now.
    pub fn budget(&self) -> litmus::budget::Budget {
        litmus::budget::Budget::new(self.timeout, self.max_memory())
    }
}

impl Limits {
    /// The batch settings for `options` under these limits (memory defaulted).
    pub fn settings(&self, options: litmus::judge::Options) -> litmus::batch::Settings {
        litmus::batch::Settings {
            options,
            timeout: self.test.timeout,
            max_memory: self.test.max_memory(),
        }
    }
}

#[derive(Args, Clone, Debug, PartialEq)]
pub struct CheckArgs {
    /// Litmus files, or folders searched for `*.litmus`.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub m: ModelArgs,
    /// Loop unrolling bound.
    #[arg(long, default_value_t = 2)]
    pub unroll: u32,
    /// Output: herd (herd7's blocks), table (tests × models), json or jsonl (one JSON
    /// record per file and model, which `litmus report` merges).
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Judge only shard K of N of the files (`--shard 2/4`): the files, sorted by path,
    /// whose rank is K-1 modulo N, whatever order they were given in. `litmus report`
    /// merges the shards' `--format jsonl` records into the whole run's output.
    #[arg(long, value_name = "K/N", value_parser = values::shard)]
    pub shard: Option<(usize, usize)>,
    #[command(flatten)]
    pub limits: Limits,
    /// herd7's `-speedcheck`: `true` counts only the executions that settle the condition,
    /// `fast` stops at the first of them (`--speedcheck` alone: `true`).
    #[arg(long, value_name = "false|true|fast", num_args = 0..=1, require_equals = true,
          default_missing_value = "true", default_value = "false",
          value_parser = ["false", "true", "fast"])]
    pub speedcheck: String,
    /// Judge every candidate on its own, never a whole subtree of them at once by a bound
    /// of the model, nor leave out those below a partial rf that already fails a check,
    /// nor count renamings of symmetric threads' executions without judging them (the
    /// model still runs from its plans; the answers are the same; for comparisons).
    #[arg(long)]
    pub no_bound: bool,
    /// Judge with every fast path off: the reference evaluator of the cat language on
    /// every candidate, enumerated with no symmetry, cut or bound (slow; the same answers,
    /// within the same limits).
    #[arg(long)]
    pub reference: bool,
    /// How candidates are enumerated: `domains` (every run of each thread over the
    /// values its reads may take, then their combinations), `grow` (executions grown read
    /// by read, each read taking its value from the write it reads from), or `auto`
    /// (domains unless a thread has too many runs). The same answers.
    #[arg(long, value_parser = ["auto", "domains", "grow"], default_value = "auto")]
    pub exploration: String,
    /// Explain forbidden outcomes: the axiom and the cycle that rule them out.
    #[arg(long)]
    pub explain: bool,
    /// Write each test's execution graph (Graphviz DOT) into this folder: the forbidding
    /// cycle when the condition is never met, else an execution that meets it.
    #[arg(long, value_name = "DIR")]
    pub graph: Option<PathBuf>,
    /// With --graph, also render SVG with Graphviz's `dot`.
    #[arg(long)]
    pub svg: bool,
    /// With --graph, draw the executions herd7's `-show` selects instead (prop, neg, cond,
    /// wit, all), at most --nshow of them, into `DIR/FILE.dot` as herd7 does with `-o DIR`.
    #[arg(long, value_parser = ["prop", "neg", "cond", "wit", "all", "none"])]
    pub show: Option<String>,
    /// With --show: at most this many executions (herd7's `-nshow`).
    #[arg(long)]
    pub nshow: Option<usize>,
    /// Compare each test's answer with its `Result:` comment (Never, Sometimes, Always,
    /// Maybe, DEADLOCK, with DATARACE) as the kernel's `judgelitmus.sh` does: one line per
    /// test and a summary instead of herd7's blocks; exit status 1 on a mismatch.
    #[arg(long)]
    pub judge: bool,
    /// Say which files each model was made from (herd7's `-v`).
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Also compile each C test to every hardware model asked for (power, armv8, x86tso,
    /// with each of its architecture's mappings) and compare final states with the LKMM's:
    /// states a hardware reaches and the LKMM forbids are unsound mappings (exit status 1).
    #[arg(long)]
    pub compile: bool,
    /// The mappings (names or files) a C test is compiled through under a hardware model
    /// (power, armv8, x86tso), and with --compile; default: every shipped one (the
    /// kernel's default first), `none`: hardware models refuse C tests, as herd7 does.
    #[arg(long)]
    pub mapping: Vec<String>,
}

/// herd7's `-speedcheck` tag.
pub fn speed(tag: &str) -> litmus::judge::Speed {
    match tag {
        "true" => litmus::judge::Speed::True,
        "fast" => litmus::judge::Speed::Fast,
        _ => litmus::judge::Speed::False,
    }
}

/// herd7 spells long options with one dash: accept `-conf x`, `-model x`, ... under `check`.
fn herd_style(args: Vec<OsString>) -> Vec<OsString> {
    // `compile` has none of herd7's options, and its `-o DIR` is its own.
    if args.get(1).is_some_and(|a| a == "compile") {
        return args;
    }
    let mut out = Vec::with_capacity(args.len());
    let mut it = args.into_iter().peekable();
    while let Some(a) = it.next() {
        let Some(s) = a.to_str() else {
            out.push(a);
            continue;
        };
        match s {
            "-conf" | "-bell" | "-macros" | "-variant" | "-unroll" | "-set-libdir"
            | "-skipchecks" | "-through" | "-show" | "-nshow" | "-timeout" => {
                out.push(format!("-{s}").into())
            }
            "-skipcheck" => out.push("--skipchecks".into()),
            "-model" | "-cat" => out.push("--cat".into()),
            "-o" => out.push("--graph".into()),
            // `-speedcheck true`: the tag is the option's value, not a test.
            "-speedcheck" | "--speedcheck" => match it.peek().and_then(|t| t.to_str()) {
                Some(t @ ("false" | "true" | "fast")) => {
                    out.push(format!("--speedcheck={t}").into());
                    it.next();
                }
                _ => out.push("--speedcheck".into()),
            },
            _ => out.push(a),
        }
    }
    out
}

/// herd7's command line when `litmus` runs as `herd7` (a link of that name), as
/// `litmus herd7 ...`, or with herd7's options or a test and no subcommand
/// (`litmus -conf linux-kernel.cfg X.litmus`): the program's name and herd7's arguments
/// (herd7 reads them as text: a name that is not UTF-8 is taken lossily).
fn herd_invocation(args: &[OsString]) -> Option<(String, Vec<String>)> {
    let text = |a: &OsString| a.to_string_lossy().into_owned();
    let prog = args.first()?;
    let rest = |from: usize| args[from..].iter().map(text).collect();
    let invoked = std::path::Path::new(prog)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if invoked.starts_with("herd7") {
        return Some((text(prog), rest(1)));
    }
    let first = args.get(1)?.to_str()?;
    if first == "herd7" {
        return Some(("herd7".into(), rest(2)));
    }
    let ours = ["-h", "--help", "-V", "--version"];
    let herd_shaped =
        (first.starts_with('-') && !first.starts_with("--") && !ours.contains(&first))
            || first.ends_with(".litmus")
            || first.starts_with('@');
    herd_shaped.then(|| (text(prog), rest(1)))
}

/// Whether a message to stderr could not be written (a closed stream, a full disk).
static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

/// One line to stderr, as `eprintln!` but never a panic: a line that cannot be written is
/// dropped, and [`main`] then ends with a failure status.
pub fn stderr_line(args: std::fmt::Arguments) {
    use std::io::Write;
    if writeln!(std::io::stderr(), "{args}").is_err() {
        STDERR_FAILED.store(true, Ordering::Relaxed);
    }
}

/// Runs the command line; the process's exit status.
pub fn main(args: Vec<OsString>) -> i32 {
    let code = dispatch(args);
    if STDERR_FAILED.load(Ordering::Relaxed) && code == 0 {
        return 2;
    }
    code
}

fn dispatch(args: Vec<OsString>) -> i32 {
    if let Some((prog, rest)) = herd_invocation(&args) {
        return herd::main(&prog, &rest);
    }
    let cli = match Cli::try_parse_from(herd_style(args)) {
        Ok(c) => c,
        Err(e) => {
            if e.print().is_err() {
                return 2;
            }
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.cmd {
        Cmd::Check(a) => check::run(&a),
        Cmd::Bench(a) => bench::run(&a),
        Cmd::Explore(a) => explore::run(&a),
        Cmd::Herd7 { args } => herd::main("herd7", &args),
        Cmd::Compile(a) => compile::run(&a),
        Cmd::Snapshot(a) => snapshot::run(&a),
        Cmd::Diff(a) => diff::run(&a),
        Cmd::Report(a) => report::run(&a),
        Cmd::Parse { paths } => parse_cmd(&paths),
    }
}

/// Writes `text` to stdout at once (a batch's output is built whole: one write, not one
/// per line) and flushes it, so that a full disk is an error here and not a panic later.
pub fn write_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Builds the worker pool for a batch of `files` tests, unless one test needs none;
/// whether the batch runs in parallel.
fn start_pool(jobs: Option<usize>, files: usize) -> Result<bool, String> {
    // Models recurse (herd's cat library builds coherence orders recursively): give workers
    // deep stacks rather than abort on a large test.
    let mut pool = rayon::ThreadPoolBuilder::new()
        .stack_size(litmus::WORKER_STACK)
        .start_handler(|_| litmus::crash::guard_this_thread());
    if let Some(j) = jobs {
        pool = pool.num_threads(j.max(1));
    }
    // One test needs no pool up front: starting worker threads would cost more than a small
    // test takes. A big one is judged in parallel parts (judge::run), which start the
    // pool then; `--jobs` bounds that too, so it is built here when given.
    let parallel = files > 1 && jobs != Some(1);
    if parallel || jobs.is_some() {
        pool.build_global()
            .map_err(|e| format!("error: cannot start the worker threads: {e}"))?;
    }
    Ok(parallel)
}

/// The tests a batch command runs, found in `paths` (what could not be walked is printed,
/// and `problems` says so), and whether they run in parallel.
pub struct Batch {
    pub files: Vec<PathBuf>,
    pub problems: bool,
    pub parallel: bool,
}

/// Finds a batch's tests and starts its workers; `None` (reported) when the workers
/// cannot start.
pub fn batch(paths: &[PathBuf], jobs: Option<usize>) -> Option<Batch> {
    let (files, problems) = litmus_files(paths);
    match start_pool(jobs, files.len()) {
        Ok(parallel) => Some(Batch {
            files,
            problems,
            parallel,
        }),
        Err(e) => {
            say!("{e}");
            None
        }
    }
}

/// The models `m` names: `--conf`/`--cat` files, else `--model`'s list (shipped names,
/// `.cat` and `.cfg` files) or `all`, else each test's architecture picks.
pub fn choice(m: &ModelArgs) -> Result<Choice, String> {
    let request = m.request();
    if let Some(loaded) = model::load_files(&request).map_err(|e| diag::model_error(&e))? {
        return Ok(Choice::files(loaded));
    }
    match &m.model {
        None => Ok(Choice::ByArch),
        Some(x) if x == "all" => Ok(Choice::named(model::all_names())),
        Some(x) if x.split(',').all(|n| n.trim().is_empty()) => Err(format!(
            "error: --model names no model (known: {}, or `all`)",
            model::all_names().join(", ")
        )),
        Some(x) => x
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| match Spec::parse(n, &request)? {
                Spec::Shipped(n) => Ok(Column::Shipped(n)),
                spec => Ok(Column::Files(Box::new(spec.load(&request)?))),
            })
            .collect::<Result<_, String>>()
            .map(Choice::Columns),
    }
}

/// `--exploration`'s value (clap admits only these).
pub fn exploration(name: &str) -> litmus::tuning::Exploration {
    use litmus::tuning::Exploration;
    match name {
        "domains" => Exploration::Domains,
        "grow" => Exploration::Grow,
        _ => Exploration::Auto,
    }
}

/// Judges a batch (see [`litmus::batch::run`]) with a progress bar on a terminal.
pub fn run_batch(
    files: &[PathBuf],
    models: &litmus::batch::Models,
    settings: &litmus::batch::Settings,
    parallel: bool,
) -> Vec<litmus::batch::Record> {
    let mut all = Vec::new();
    stream_batch(files, models, settings, parallel, &|r| r, &mut |r| {
        all.push(r)
    });
    all
}

/// Judges a batch with a progress bar on a terminal, each record made into what `keep`
/// keeps of it and handed to `sink` in the files' order (see [`litmus::batch::stream`]).
/// The files are judged in a shuffled order only under a progress bar, whose estimate
/// needs it; otherwise in order, so that each file's output goes out as soon as it is
/// made.
pub fn stream_batch<K: Send>(
    files: &[PathBuf],
    models: &litmus::batch::Models,
    settings: &litmus::batch::Settings,
    parallel: bool,
    keep: &(dyn Fn(litmus::batch::Record) -> K + Sync),
    sink: &mut (dyn FnMut(K) + Send),
) {
    let bar = progress(files.len());
    let done = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let run = litmus::batch::Run {
        parallel,
        shuffled: bar.is_some(),
        done: &done,
    };
    litmus::batch::stream(files, &diag::load_record, models, settings, run, keep, sink);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

/// A progress bar for a long batch, on a terminal only (never in piped or CI output): its
/// length is the number of files, its position the files judged (under every model of
/// the batch: one step per file), and the time left is [`eta`]'s.
pub fn progress(files: usize) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    (files > 20 && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(files as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} tests, {elapsed} elapsed, {left}",
            )
            .map(|s| {
                s.with_key(
                    "left",
                    |st: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let left = eta(st.pos(), st.len().unwrap_or(0), st.elapsed());
                        let _ = w.write_str(&left_text(left));
                    },
                )
            })
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        // Redrawn every second, so that the clock and the estimate move while a long
        // test holds every worker.
        b.enable_steady_tick(std::time::Duration::from_secs(1));
        b
    })
}

/// The time a batch has left, when `done` of its `len` files took `elapsed`: the mean
/// time per file so far, times the files left. indicatif's own estimate is a rate over
/// the last 15 seconds, which the batch's bursts defeat: two workers finish hundreds of
/// small tests in a second, then none for ten while a big test holds both (it is judged
/// in parallel parts), and the bar said ~8s left with 55 to go, then ~2m with 26 to go.
/// The mean over the whole run is a fair estimate because the batch judges its files in a
/// shuffled order (`litmus::batch::schedule`), in which any prefix samples the whole.
/// `None` before the first file is done.
pub fn eta(done: u64, len: u64, elapsed: std::time::Duration) -> Option<std::time::Duration> {
    if done == 0 {
        return None;
    }
    let left = len.saturating_sub(done);
    Some(elapsed.mul_f64(left as f64 / done as f64))
}

/// `~3m 20s left`, `~12s left`; `estimating…` before there is anything to go by.
pub fn left_text(left: Option<std::time::Duration>) -> String {
    let Some(d) = left else {
        return "estimating time left…".into();
    };
    let s = d.as_secs_f64().round() as u64;
    let text = match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    };
    format!("~{text} left")
}

/// The batch's summary line (`212 files: 212 judged, 0 errors, 0 timeouts, 0
/// mismatches`) for the formats whose stdout has no room for it: herd7's blocks, which
/// the kernel's scripts parse byte for byte, and JSON records. On stderr, when more than
/// one file was checked or stderr is a terminal: a script checking one file at a time
/// (the kernel's `checklitmus.sh` keeps herd7's stderr with its output) sees nothing new.
pub fn summary_to_stderr(
    files: usize,
    records: &[litmus::report::record::Record],
    unwritten: usize,
) {
    use std::io::IsTerminal;
    if files > 1 || unwritten > 0 || std::io::stderr().is_terminal() {
        let line = litmus::report::table::summary(records, unwritten);
        say!("{}", line.trim_end());
    }
}

/// Expands folders into their `*.litmus` files (see [`litmus::source::walk`]), printing
/// what could not be walked and the folders with no test (an error when nothing else
/// has one, else a warning); the flag says whether anything could not be walked.
pub fn litmus_files(paths: &[PathBuf]) -> (Vec<PathBuf>, bool) {
    let w = litmus::source::walk(paths, "litmus");
    for p in w.problems.iter().chain(&w.warnings) {
        say!("{p}");
    }
    (w.files, !w.problems.is_empty())
}

fn parse_cmd(paths: &[PathBuf]) -> i32 {
    let (files, problems) = litmus_files(paths);
    let (mut ok, mut bad) = (0usize, usize::from(problems));
    for f in &files {
        match diag::load_test(f) {
            Ok(t) => {
                ok += 1;
                print!("{}", litmus::litmus::print(&t));
                println!();
            }
            Err(msg) => {
                bad += 1;
                say!("{msg}");
            }
        }
    }
    say!("parsed {ok} of {} files, {bad} failed", files.len());
    if bad > 0 { 2 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::{eta, left_text};
    use std::time::Duration;

    #[test]
    fn the_time_left_is_the_mean_time_per_file_so_far_times_the_files_left() {
        assert_eq!(eta(0, 100, Duration::from_secs(5)), None);
        // 25 files in 10 s: 75 more take 30 s, whatever the rate of the last few.
        assert_eq!(
            eta(25, 100, Duration::from_secs(10)),
            Some(Duration::from_secs(30))
        );
        assert_eq!(eta(100, 100, Duration::from_secs(10)), Some(Duration::ZERO));
        assert_eq!(eta(120, 100, Duration::from_secs(10)), Some(Duration::ZERO));
    }

    #[test]
    fn the_time_left_reads_in_seconds_minutes_and_hours() {
        assert_eq!(left_text(None), "estimating time left…");
        assert_eq!(left_text(Some(Duration::from_millis(12_400))), "~12s left");
        assert_eq!(left_text(Some(Duration::from_secs(200))), "~3m 20s left");
        assert_eq!(left_text(Some(Duration::from_secs(3900))), "~1h 05m left");
    }
}
