//! `litmus explore FILE`: browse a test's candidate executions in the terminal, to see why
//! an outcome is forbidden (the check and cycle that reject it) or how it is reached.

mod app;
mod view;

use super::diag;
use app::{App, Effect, Header};
use clap::Args;
use crossterm::event::{self, Event, KeyEventKind};
use litmus::litmus::ast::Test;
use litmus::model::{self as models, Loaded};
use litmus::outcome::{self, Options, explore::Exploration};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(Args, Clone)]
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
    let test = diag::load_test(&a.file)?;
    let model = load_model(a, &test)?;
    // Raw mode needs a terminal on both ends; say so rather than fail inside crossterm.
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(
            "error: `litmus explore` is interactive and needs a terminal on stdin and stdout; \
             for scripts use `litmus check --explain --graph DIR`"
                .to_string()
                .into(),
        );
    }
    let mut app = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, || {
                litmus::crash::guard_this_thread();
                compute(a, &test, &model)
            })
            .map_err(|e| format!("error: cannot start a worker thread: {e}"))?
            .join()
            .map_err(|_| Failure::from("error: the model crashed".to_string()))?
    })?;
    let mut term = ratatui::try_init().map_err(|e| {
        ratatui::restore();
        format!("error: cannot set up the terminal: {e}")
    })?;
    let res = event_loop(&mut term, &mut app);
    ratatui::restore();
    res.map_err(|e| format!("error: terminal: {e}").into())
}

/// The model the test is judged under, as `check` picks it.
fn load_model(a: &ExploreArgs, test: &Test) -> Result<Loaded, String> {
    let req = a.m.request();
    if let Some(m) = models::load_files(&req).map_err(|e| format!("error: {e}"))? {
        return Ok(m);
    }
    let name = match &a.m.model {
        None => models::default_for(test.arch),
        Some(n) => models::canonical(n).ok_or_else(|| {
            format!(
                "error: unknown model `{n}` (explore takes one of: {}, or a cat file with --cat)",
                models::all_names().join(", ")
            )
        })?,
    };
    let m = models::load_shipped(name, &req).map_err(|e| format!("error: model {name}: {e}"))?;
    m.covers(test).map_err(|e| format!("error: {e}"))?;
    Ok(m)
}

/// herd's summary for the header, and the executions for the list, both within one
/// budget: a test over it is undetermined (exit status 3), as in `check`.
fn compute(a: &ExploreArgs, test: &Test, m: &Loaded) -> Result<App, Failure> {
    let opts = Options {
        unroll: a.unroll,
        budget: a.limits.budget(),
        ..Options::default()
    };
    let fail = |e: litmus::exec::EngineError| {
        if e.exhausted.is_some() {
            return Failure {
                status: 3,
                msg: format!(
                    "{}: undetermined: {e} ({} candidates judged); nothing to explore",
                    a.file.display(),
                    e.explored.candidates
                ),
            };
        }
        litmus::report::diag::Diagnostic::error(a.file.display().to_string(), e.at, e.msg)
            .render_file()
            .into()
    };
    let j = outcome::judge(test, &m.model, m.macros.as_ref(), &opts).map_err(fail)?;
    let x: Exploration =
        outcome::explore::executions(test, &m.model, m.macros.as_ref(), &opts, a.limit)
            .map_err(fail)?;
    let (pos, neg) = j.witnesses();
    let header = Header {
        test: test.name.clone(),
        model: m.label.clone(),
        condition: outcome::cond::show_condition(&test.condition),
        summary: format!(
            "States {} · {}{} · Positive: {pos} Negative: {neg} · Observation {} {} {} {}",
            j.states.len(),
            if j.cut { "Loop " } else { "" },
            if j.ok() { "Ok" } else { "No" },
            j.name,
            j.observation(),
            j.sat,
            j.unsat
        ),
    };
    Ok(App::new(header, x, a.dot_dir.clone()))
}

fn event_loop(term: &mut ratatui::DefaultTerminal, app: &mut App) -> std::io::Result<()> {
    loop {
        term.draw(|f| view::draw(f, app))?;
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
