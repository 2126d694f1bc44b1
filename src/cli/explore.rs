//! `litmus explore FILE`: browse a test's candidate executions in the terminal, to see why
//! an outcome is forbidden (the check and cycle that reject it) or how it is reached.

mod app;
mod view;

use super::diag;
use app::{App, Effect, Header};
use clap::Args;
use crossterm::event::{self, Event, KeyEventKind};
use litmus::judge::explore::{ExecRecord, Exploration, Listed};
use litmus::judge::{self, Options, Progress};
use litmus::litmus::ast::Test;
use litmus::model::{self as models, Loaded};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(Args, Clone)]
#[command(mut_arg("model", |a| a.help(
    "The model: lkmm, x86tso, armv8, power (aliases: linux-kernel, tso, aarch64, arm64, ppc, \
     powerpc), or a `.cat` or `.cfg` file. One model: the explorer shows one model's \
     verdicts. Default: the test's architecture picks"
)))]
pub struct ExploreArgs {
    /// A litmus file.
    pub file: PathBuf,
    #[command(flatten)]
    pub m: super::ModelArgs,
    /// Loop unrolling bound.
    #[arg(long, default_value_t = 2)]
    pub unroll: u32,
    /// Most executions listed.
    #[arg(long, default_value_t = 5000)]
    pub limit: usize,
    /// Folder where `d` writes the selected execution's DOT file.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dot_dir: PathBuf,
    /// For judging the test and listing its executions, together.
    #[command(flatten)]
    pub limits: super::TestLimits,
}

/// Why the explorer did not start, with its exit status.
struct Failure {
    status: i32,
    msg: String,
}

impl From<String> for Failure {
    fn from(msg: String) -> Failure {
        Failure { status: 2, msg }
    }
}

use litmus::WORKER_STACK as STACK;

pub fn run(a: &ExploreArgs) -> i32 {
    match explore(a) {
        Ok(()) => 0,
        Err(f) => {
            say!("{}", f.msg);
            f.status
        }
    }
}

fn explore(a: &ExploreArgs) -> Result<(), Failure> {
    let test = std::sync::Arc::new(diag::load_test(&a.file)?);
    let model = std::sync::Arc::new(load_model(a, &test)?);
    // Raw mode needs a terminal on both ends; say so rather than fail inside crossterm.
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(
            "error: `litmus explore` is interactive and needs a terminal on stdin and stdout; \
             for scripts use `litmus check --explain --graph DIR`"
                .to_string()
                .into(),
        );
    }
    // The test is judged and its executions listed on a worker of its own while the
    // terminal shows how far it got; quitting leaves the worker behind (the process ends).
    let (tx, rx) = std::sync::mpsc::channel();
    let judging = Progress::default();
    let listing = Progress::default();
    let work = Work {
        file: a.file.clone(),
        unroll: a.unroll,
        limit: a.limit,
        budget: a.limits.budget(),
        judging: judging.clone(),
        listing: listing.clone(),
    };
    let (t, m) = (test.clone(), model.clone());
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            litmus::crash::guard_this_thread();
            work.run(&t, &m, &tx)
        })
        .map_err(|e| format!("error: cannot start a worker thread: {e}"))?;
    let header = Header {
        test: test.name.clone(),
        model: model.label.clone(),
        condition: judge::cond::show_condition(&test.condition),
        summary: "judging…".into(),
    };
    let x = Exploration {
        records: Vec::new(),
        complete: false,
        cut: 0,
        symbols: Default::default(),
        shown: judge::shown_locations(&test),
    };
    let mut app = App::new(header, x, a.dot_dir.clone());
    let mut watch = Watch {
        rx,
        judging,
        listing,
        limit: a.limit,
        start: std::time::Instant::now(),
        phase: Phase::Judging,
        limited: None,
    };
    watch.update(&mut app)?;
    let mut term = ratatui::try_init().map_err(|e| {
        ratatui::restore();
        format!("error: cannot set up the terminal: {e}")
    })?;
    let res = event_loop(&mut term, &mut app, &mut watch);
    ratatui::restore();
    match res {
        Ok(()) => match watch.limited.take() {
            Some(msg) => Err(Failure { status: 3, msg }),
            None => Ok(()),
        },
        Err(Stop::Io(e)) => Err(format!("error: terminal: {e}").into()),
        Err(Stop::Failed(f)) => Err(f),
    }
}

/// What the worker does: judge the test (for herd's summary and the judge's own
/// execution), then list its executions.
struct Work {
    file: PathBuf,
    unroll: u32,
    limit: usize,
    budget: litmus::budget::Budget,
    judging: Progress,
    listing: Progress,
}

/// What the worker says, in this order: the judgement, executions one by one, the end.
enum Msg {
    Judged(Box<Judged>),
    Record(Box<ExecRecord>),
    Listed(Box<Result<Listed, Failure>>),
}

/// A judgement as the explorer shows it.
struct Judged {
    summary: String,
    symbols: litmus::sem::Symbols,
    /// The judge's witness, or the execution whose rejection explains a forbidden outcome.
    answer: Option<ExecRecord>,
    /// Whether some execution satisfies the condition: worth searching for past the cap.
    reachable: bool,
    /// The judgement failed (undetermined, or an error): nothing to list.
    failed: Option<Failure>,
}

impl Work {
    fn run(self, test: &Test, m: &Loaded, tx: &std::sync::mpsc::Sender<Msg>) {
        let opts = Options {
            unroll: self.unroll,
            budget: self.budget.clone(),
            explainer: m.explainer(),
            progress: Some(self.judging.clone()),
            evidence: true,
            ..Options::default()
        };
        let fail = |e: litmus::exec::EngineError| {
            if e.exhausted.is_some() {
                return Failure {
                    status: 3,
                    msg: format!(
                        "{}: undetermined: {e} ({} candidates judged); nothing to explore",
                        self.file.display(),
                        e.explored.candidates
                    ),
                };
            }
            litmus::report::diag::Diagnostic::error(self.file.display().to_string(), e.at, e.msg)
                .render_file()
                .into()
        };
        let j = match judge::run(test, &m.model, m.macros.as_ref(), &opts) {
            Ok(j) => j,
            Err(e) => {
                let _ = tx.send(Msg::Judged(Box::new(Judged {
                    summary: String::new(),
                    symbols: Default::default(),
                    answer: None,
                    reachable: false,
                    failed: Some(fail(e)),
                })));
                return;
            }
        };
        let (pos, neg) = j.witnesses();
        let summary = format!(
            "States {} · {}{} · Positive: {pos} Negative: {neg} · Observation {} {} {} {}",
            j.states.len(),
            if j.cut { "Loop " } else { "" },
            if j.ok() { "Ok" } else { "No" },
            j.name,
            j.observation(),
            j.sat,
            j.unsat
        );
        let judged = Judged {
            summary,
            symbols: j.symbols.clone(),
            answer: ExecRecord::of_judgement(&j),
            reachable: j.sat > 0 || j.forbidden_by.is_some(),
            failed: None,
        };
        let reachable = judged.reachable;
        if tx.send(Msg::Judged(Box::new(judged))).is_err() {
            return;
        }
        let opts = Options {
            progress: Some(self.listing.clone()),
            ..opts
        };
        let listed = judge::explore::listing(
            test,
            &m.model,
            m.macros.as_ref(),
            &opts,
            self.limit,
            reachable,
            &mut |r| tx.send(Msg::Record(Box::new(r))).is_ok(),
        );
        let _ = tx.send(Msg::Listed(Box::new(listed.map_err(fail))));
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Judging,
    Listing,
    Done,
}

/// The worker's messages and counters, turned into the app's state.
struct Watch {
    rx: std::sync::mpsc::Receiver<Msg>,
    judging: Progress,
    listing: Progress,
    limit: usize,
    start: std::time::Instant,
    phase: Phase,
    /// The listing ran out of the test's budget: the explorer exits with status 3, saying so.
    limited: Option<String>,
}

/// Why the event loop ended other than by a key.
enum Stop {
    Io(std::io::Error),
    Failed(Failure),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        Stop::Io(e)
    }
}

impl Watch {
    /// Takes what the worker said since the last call; the judgement's failure ends the
    /// explorer.
    fn update(&mut self, app: &mut App) -> Result<(), Failure> {
        while let Ok(msg) = self.rx.try_recv() {
            match msg {
                Msg::Judged(j) => {
                    if let Some(f) = j.failed {
                        return Err(f);
                    }
                    app.header.summary = j.summary;
                    app.exploration.symbols = j.symbols;
                    if let Some(r) = j.answer {
                        app.push(r);
                    }
                    self.phase = Phase::Listing;
                    app.searching = j.reachable;
                }
                Msg::Record(r) => app.push(*r),
                Msg::Listed(l) => {
                    self.phase = Phase::Done;
                    match *l {
                        Ok(l) => {
                            app.exploration.complete = l.complete;
                            app.exploration.cut = l.cut;
                            app.searched = Some((l.searched, l.found));
                        }
                        Err(f) if f.status == 3 => {
                            app.status = f.msg.clone();
                            self.limited = Some(f.msg);
                        }
                        Err(f) => return Err(f),
                    }
                }
            }
        }
        let secs = self.start.elapsed().as_secs_f64();
        app.activity = match self.phase {
            Phase::Judging => format!(
                "judging: {} candidates so far ({secs:.1} s)",
                thousands(self.judging.get())
            ),
            Phase::Listing => {
                let n = thousands(self.listing.get());
                let listed = app.exploration.records.iter().filter(|r| !r.from_judge());
                let (listed, sat) = listed.fold((0, false), |(n, s), r| (n + 1, s || r.sat));
                if app.searching && listed >= self.limit && !sat {
                    format!(
                        "none of the first {} satisfies the condition; looking further: \
                         {n} candidates visited ({secs:.1} s)",
                        self.limit
                    )
                } else {
                    format!("listing: {n} candidates visited ({secs:.1} s)")
                }
            }
            Phase::Done => {
                let n = thousands(self.listing.get());
                let listed = app.exploration.records.iter().filter(|r| !r.from_judge());
                // Past the cap only when the listing reached it.
                let capped = listed.count() >= self.limit;
                match app.searched {
                    Some((k, true)) if k > 0 => format!(
                        "{n} candidates visited: the first satisfying the condition lies {} \
                         past the first {} executions (listed last)",
                        thousands(k),
                        self.limit
                    ),
                    Some((_, false)) if app.searching && capped => format!(
                        "{n} candidates visited: none past the first {} satisfies the condition",
                        self.limit
                    ),
                    _ if app.exploration.complete => {
                        format!("{n} candidates visited, every execution listed")
                    }
                    _ => format!("{n} candidates visited"),
                }
            }
        };
        Ok(())
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The model the test is judged under, as `check` picks it.
fn load_model(a: &ExploreArgs, test: &Test) -> Result<Loaded, String> {
    let req = a.m.request();
    if let Some(m) = models::load_files(&req).map_err(|e| format!("error: {e}"))? {
        return Ok(m);
    }
    let m = match a.m.model.as_deref() {
        None => {
            let name = models::default_for(test.arch);
            models::load_shipped(name, &req).map_err(|e| format!("error: model {name}: {e}"))?
        }
        Some(n) if n == "all" || n.contains(',') => {
            return Err(format!(
                "error: explore shows one model at a time; name one of {} (or a cat file)",
                models::all_names().join(", ")
            ));
        }
        Some(n) => models::Spec::parse(n, &req)?.load(&req)?,
    };
    m.covers(test).map_err(|e| format!("error: {e}"))?;
    Ok(m)
}

fn event_loop(
    term: &mut ratatui::DefaultTerminal,
    app: &mut App,
    watch: &mut Watch,
) -> Result<(), Stop> {
    // Redrawn at least this often while the worker works, so its progress shows.
    const TICK: std::time::Duration = std::time::Duration::from_millis(100);
    loop {
        watch.update(app).map_err(Stop::Failed)?;
        term.draw(|f| view::draw(f, app))?;
        if !event::poll(TICK)? {
            continue;
        }
        let Event::Key(k) = event::read()? else {
            continue;
        };
        if k.kind != KeyEventKind::Press {
            continue;
        }
        match app.key(k) {
            Effect::None => {}
            Effect::Quit => return Ok(()),
            Effect::WriteFile { path, text } => {
                app.status = match write(&path, &text) {
                    Ok(()) => format!("wrote {}", path.display()),
                    Err(e) => format!("cannot write {}: {e}", path.display()),
                };
            }
        }
    }
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}
