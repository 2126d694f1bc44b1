//! `litmus compile`: C tests to an architecture's assembly through a mapping table.

use super::{diag, litmus_files};
use clap::Args;
use litmus::compile::{self, mapping::Mapping};
use litmus::litmus::ast::Arch;
use std::fmt::Write;
use std::path::PathBuf;

#[derive(Args, Clone, Debug, PartialEq)]
pub struct CompileArgs {
    /// C litmus files, or folders searched for `*.litmus`.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Target: power (ppc), armv8 (arm64, aarch64), x86tso (x86, x86_64); default: the
    /// mapping's architecture.
    #[arg(long)]
    pub arch: Option<String>,
    /// Mapping table: a shipped name (ppc-lwsync, ppc-sync, aarch64-llsc, aarch64-lse, x86)
    /// or a file. Default: the architecture's kernel mapping.
    #[arg(long)]
    pub mapping: Option<String>,
    /// Write each compiled test to DIR/NAME.litmus instead of standard output.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the table's entries (name, parameters, citation) and stop.
    #[arg(long)]
    pub list: bool,
}

/// The names `--arch` takes (those of [`models::target_arch`]).
const TARGETS: &str = "power, ppc, armv8, arm64, aarch64, x86tso, x86, x86_64";

/// The mapping a `--arch`/`--mapping` pair asks for.
pub fn mapping_for(arch: Option<&str>, mapping: Option<&str>) -> Result<Mapping, String> {
    let arch = match arch {
        None => None,
        Some(a) => Some(
            models::target_arch(a).ok_or_else(|| format!("unknown target `{a}` ({TARGETS})"))?,
        ),
    };
    let name = match (mapping, arch) {
        (Some(m), _) => m.to_string(),
        (None, Some(a)) => compile::mapping::variants(a)[0].to_string(),
        (None, None) => return Err(format!("give --arch ({TARGETS}) or --mapping")),
    };
    let m = Mapping::load(&name).map_err(|e| format!("mapping: {e}"))?;
    if let Some(a) = arch
        && a != m.arch
    {
        return Err(format!(
            "mapping {} is for {}, not {}",
            m.name,
            m.arch.name(),
            a.name()
        ));
    }
    Ok(m)
}

/// The mappings `check --mapping` names (names or files): the kernel's for every
/// architecture when none, nothing for `none` (C tests then refused by hardware models).
pub fn mappings(names: &[String]) -> Result<Vec<Mapping>, String> {
    let error = |e: compile::mapping::MapError| format!("error: mapping: {e}");
    match names {
        [] => compile::mapping::kernel().map_err(error),
        [n] if n == "none" => Ok(Vec::new()),
        _ => names
            .iter()
            .map(|n| Mapping::load(n).map_err(error))
            .collect(),
    }
}

pub fn run(a: &CompileArgs) -> i32 {
    let map = match mapping_for(a.arch.as_deref(), a.mapping.as_deref()) {
        Ok(m) => m,
        Err(e) => {
            say!("error: {e}");
            return 2;
        }
    };
    let mut out = String::new();
    if a.list {
        for e in map.entries() {
            let ps: Vec<String> = e.params.iter().map(|p| p.name.clone()).collect();
            let res = e
                .result
                .as_ref()
                .map(|r| format!(" -> {r}"))
                .unwrap_or_default();
            let _ = writeln!(out, "{}({}){res}  @ {}", e.name, ps.join(", "), e.cite);
        }
        return emit(&out, 0);
    }
    if let Some(d) = &a.out
        && let Err(e) = std::fs::create_dir_all(d)
    {
        say!("{}: error: {e}", d.display());
        return 2;
    }
    let (files, problems) = litmus_files(&a.paths);
    let mut status = if problems { 2 } else { 0 };
    let mut first = true;
    for f in files {
        let t = match diag::load_test(&f) {
            Ok(t) => t,
            Err(e) => {
                say!("{e}");
                status = 2;
                continue;
            }
        };
        match compile::compile(&t, &map) {
            Ok(c) => match &a.out {
                Some(d) => {
                    let p = d.join(format!("{}.litmus", t.name.replace(['/', ' '], "_")));
                    if let Err(e) = std::fs::write(&p, &c.text) {
                        say!("{}: error: {e}", p.display());
                        status = 2;
                    }
                }
                None => {
                    if !first {
                        out.push('\n');
                    }
                    first = false;
                    out.push_str(&c.text);
                }
            },
            Err(e) => {
                say!(
                    "{}: error: does not compile with {}: {e}",
                    f.display(),
                    map.name
                );
                status = 2;
            }
        }
    }
    emit(&out, status)
}

/// Writes the output built for the run; a write error is reported and fails the run.
fn emit(out: &str, status: i32) -> i32 {
    match super::write_stdout(out) {
        Ok(()) => status,
        Err(e) => {
            say!("error: standard output: {e}");
            2
        }
    }
}

// ------------------------------------------------------------------ check --compile

use super::CheckArgs;
use litmus::compile::Compiled;
use litmus::compile::compare::{self, Comparison};
use litmus::judge::{self, Judgement, Options};
use litmus::litmus::ast::{Condition, Quantifier, Test};
use litmus::model::{self as models, Loaded};
use serde_json::json;

/// One hardware column: a mapping and the model that judges what it produces.
struct Column {
    map: Mapping,
    model: Loaded,
}

/// Why a column (or the LKMM) has no judgement.
#[derive(Clone, Debug)]
enum Missing {
    NotCompiled(String),
    /// Over `--timeout` or `--max-memory`: undetermined.
    Exhausted(String),
    Error(String),
}

impl Missing {
    fn status(&self) -> &'static str {
        match self {
            Missing::NotCompiled(_) => "not-compiled",
            Missing::Exhausted(_) => "timeout",
            Missing::Error(_) => "error",
        }
    }
    fn message(&self) -> &str {
        match self {
            Missing::NotCompiled(m) | Missing::Exhausted(m) | Missing::Error(m) => m,
        }
    }
}

/// What one C test gave.
struct Report {
    file: String,
    test: Test,
    lkmm: Result<Judgement, Missing>,
    /// Per column: the compiled test and its judgement, or why there is none.
    hw: Vec<Result<(Compiled, Judgement), Missing>>,
}

/// `litmus check --compile`: each C test under the LKMM and, compiled with each mapping
/// of each hardware model asked for, under that model; the final states compared.
pub fn check(a: &CheckArgs) -> i32 {
    let names: Vec<&'static str> = match a.m.model.as_deref() {
        None | Some("all") => models::all_names(),
        Some(m) => {
            let mut v = Vec::new();
            for n in m.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                match models::canonical(n) {
                    Some(c) => v.push(c),
                    None => {
                        say!("error: unknown model `{n}`");
                        return 2;
                    }
                }
            }
            v
        }
    };
    let load = |n: &str| models::load_shipped(n, &a.m.request());
    let lkmm = match load("lkmm") {
        Ok(m) => m,
        Err(e) => {
            say!("error: model lkmm: {e}");
            return 2;
        }
    };
    // The mappings: those given, else every variant of each hardware model's architecture.
    let mut cols = Vec::new();
    let wanted: Vec<String> = if a.mapping.is_empty() {
        names
            .iter()
            .filter_map(|n| models::target_arch(n))
            .flat_map(|arch| {
                compile::mapping::variants(arch)
                    .iter()
                    .map(|s| s.to_string())
            })
            .collect()
    } else {
        a.mapping.clone()
    };
    for w in wanted {
        let map = match Mapping::load(&w) {
            Ok(m) => m,
            Err(e) => {
                say!("error: mapping: {e}");
                return 2;
            }
        };
        let model_name = models::default_for(map.arch);
        let model = match load(model_name) {
            Ok(m) => m,
            Err(e) => {
                say!("error: model {model_name}: {e}");
                return 2;
            }
        };
        cols.push(Column { map, model });
    }
    if cols.is_empty() {
        say!("error: --compile needs a hardware model (power, armv8, x86tso) or --mapping");
        return 2;
    }
    let opts = Options {
        unroll: a.unroll,
        ..Options::default()
    };
    let judge_full = |t: &Test, m: &Loaded| -> Result<Judgement, Missing> {
        let mut o = opts.clone();
        o.budget = a.limits.test.budget();
        let mut j = judge::run(t, &m.model, m.macros.as_ref(), &o).map_err(|e| {
            if e.exhausted.is_some() {
                Missing::Exhausted(e.to_string())
            } else {
                Missing::Error(e.to_string())
            }
        })?;
        j.model = m.label.clone();
        Ok(j)
    };
    // The reasons and graphs of unsound states: judged again with their evidence.
    let judge = |t: &Test, m: &Loaded| -> Result<Judgement, String> {
        let mut o = opts.clone();
        o.budget = a.limits.test.budget();
        o.evidence = true;
        let mut j = judge::run(t, &m.model, m.macros.as_ref(), &o).map_err(|e| e.to_string())?;
        j.model = m.label.clone();
        Ok(j)
    };
    let (files, problems) = litmus_files(&a.paths);
    let mut status = if problems { 2 } else { 0 };
    let mut unsound_any = false;
    let mut tally = Tally::default();
    let mut out = String::new();
    for f in files {
        let t = match diag::load_test(&f) {
            Ok(t) => t,
            Err(e) => {
                say!("{e}");
                status = 2;
                continue;
            }
        };
        let file = f.display().to_string();
        if t.arch != Arch::C {
            say!("warning: {file}: not a C test, nothing to compile");
            continue;
        }
        let lk = judge_full(&t, &lkmm);
        let hw: Vec<Result<(Compiled, Judgement), Missing>> = cols
            .iter()
            .map(|c| {
                let comp = compile::compile(&t, &c.map)
                    .map_err(|e| Missing::NotCompiled(e.to_string()))?;
                let j = judge_full(&comp.test, &c.model)?;
                Ok((comp, j))
            })
            .collect();
        for m in std::iter::once(lk.as_ref().err())
            .chain(hw.iter().map(|h| h.as_ref().err()))
            .flatten()
        {
            status = status.max(match m {
                Missing::NotCompiled(_) => 0,
                Missing::Exhausted(_) => 3,
                Missing::Error(_) => 2,
            });
        }
        let r = Report {
            file,
            test: t,
            lkmm: lk,
            hw,
        };
        let cmp = match comparison(&r, &cols) {
            Ok(c) => c,
            Err(e) => {
                say!("{}: error: {e}", r.file);
                status = 2;
                continue;
            }
        };
        unsound_any |= cmp.as_ref().is_some_and(|c| !c.unsound().is_empty());
        tally.add(cmp.as_ref());
        if a.format == "json" {
            let _ = writeln!(out, "{}", json_line(&r, &cols, cmp.as_ref(), &lkmm, &judge));
        } else {
            out.push_str(&text(&r, &cols, cmp.as_ref(), &lkmm, &judge, a));
        }
    }
    if a.format == "json" {
        say!("{}", tally.line().trim_end());
    } else {
        out.push_str(&tally.line());
    }
    emit(
        &out,
        if status == 0 && unsound_any {
            1
        } else {
            status
        },
    )
}

/// The comparison over the columns that compiled and were judged (none when the LKMM
/// has no answer).
fn comparison(r: &Report, cols: &[Column]) -> Result<Option<Comparison>, String> {
    let Ok(lkmm) = &r.lkmm else {
        return Ok(None);
    };
    let hw: Vec<(String, &Compiled, &Judgement)> =
        r.hw.iter()
            .zip(cols)
            .filter_map(|(h, c)| {
                h.as_ref()
                    .ok()
                    .map(|(comp, j)| (c.map.name.clone(), comp, j))
            })
            .collect();
    compare::compare(lkmm, &hw).map(Some)
}

/// The test with its condition replaced by "this final state".
fn at_state(t: &Test, prop: litmus::litmus::ast::Prop) -> Test {
    let mut t = t.clone();
    t.condition = Condition {
        quant: Quantifier::Exists,
        prop,
    };
    t.filter = None;
    t
}

/// Why the LKMM forbids a state: its first rejected candidate reaching it.
fn lkmm_reason(
    r: &Report,
    cmp: &Comparison,
    row: usize,
    lkmm: &Loaded,
    judge: &dyn Fn(&Test, &Loaded) -> Result<Judgement, String>,
) -> String {
    let t = at_state(&r.test, cmp.state_prop(row));
    match judge(&t, lkmm) {
        Ok(j) if j.forbidden_by.is_some() => litmus::report::explain(&t, &j),
        Ok(_) => "no candidate execution of the C test reaches this state".into(),
        Err(e) => format!("(could not judge: {e})"),
    }
}

fn text(
    r: &Report,
    cols: &[Column],
    cmp: Option<&Comparison>,
    lkmm: &Loaded,
    judge: &dyn Fn(&Test, &Loaded) -> Result<Judgement, String>,
    a: &CheckArgs,
) -> String {
    let mut out = format!("Test {} ({})\n", r.test.name, r.file);
    let says = |m: &Missing| match m {
        Missing::NotCompiled(e) => format!("does not compile: {e}"),
        Missing::Exhausted(e) => format!("undetermined: {e}"),
        Missing::Error(e) => format!("error: {e}"),
    };
    if let Err(e) = &r.lkmm {
        let _ = writeln!(out, "  lkmm: {}", says(e));
    }
    for (h, c) in r.hw.iter().zip(cols) {
        if let Err(e) = h {
            let _ = writeln!(out, "  {}: {}", c.map.name, says(e));
        }
    }
    out.push_str(&condition_line(r, cols));
    out.push_str(&loop_line(r, cols, a.unroll));
    let Some(cmp) = cmp else {
        out.push('\n');
        return out;
    };
    let prop = &r.test.condition.prop;
    let states: Vec<String> = (0..cmp.rows.len()).map(|k| cmp.state_text(k)).collect();
    // The condition's states marked, as herd's `exists` asks for them.
    let marked: Vec<String> = (0..cmp.rows.len())
        .map(|k| match cmp.holds(k, prop) {
            Some(true) => format!("*{}", states[k]),
            _ => format!(" {}", states[k]),
        })
        .collect();
    let w = marked.iter().map(String::len).max().unwrap_or(5).max(6);
    let _ = write!(out, "  {:w$}  lkmm", " state");
    for c in &cmp.columns {
        let _ = write!(out, "  {c}");
    }
    out.push('\n');
    for (k, row) in cmp.rows.iter().enumerate() {
        let yn = |b: bool| if b { "yes" } else { "-" };
        let _ = write!(out, "  {:w$}  {:4}", marked[k], yn(row.lkmm));
        for (c, h) in cmp.columns.iter().zip(&row.hw) {
            let _ = write!(out, "  {:width$}", yn(*h), width = c.len());
        }
        out.truncate(out.trim_end_matches(' ').len());
        out.push('\n');
    }
    for (row, col) in cmp.unsound() {
        let _ = writeln!(
            out,
            "  UNSOUND {}: {} reaches {}, which the LKMM forbids",
            cmp.columns[col], cmp.columns[col], states[row]
        );
        for l in lkmm_reason(r, cmp, row, lkmm, judge).lines() {
            let _ = writeln!(out, "    {l}");
        }
        if let Some(dir) = &a.graph
            && let Some((comp, _)) =
                r.hw.iter()
                    .zip(cols)
                    .filter_map(|(h, c)| h.as_ref().ok().map(|x| (x, c)))
                    .find(|(_, c)| c.map.name == cmp.columns[col])
                    .map(|(x, c)| (x.0.clone(), c))
        {
            let prop = compare::state_prop(
                &cmp.shown.iter().map(|l| comp.rename(l)).collect::<Vec<_>>(),
                &cmp.rows[row].values,
            );
            let ht = at_state(&comp.test, prop);
            let model = &cols
                .iter()
                .find(|c| c.map.name == cmp.columns[col])
                .expect("column")
                .model;
            if let Ok(j) = judge(&ht, model)
                && let Some(dot) = litmus::report::graph(&ht, &j)
            {
                let p = dir.join(format!("{}.{}.unsound.dot", r.test.name, cmp.columns[col]));
                let _ = std::fs::create_dir_all(dir);
                if std::fs::write(&p, dot).is_ok() {
                    let _ = writeln!(out, "    hardware execution: {}", p.display());
                }
            }
        }
    }
    let weaker = cmp.lkmm_weaker();
    if !weaker.is_empty() {
        let _ = writeln!(
            out,
            "  LKMM weaker than every compiled form: {}",
            weaker
                .iter()
                .map(|k| states[*k].clone())
                .collect::<Vec<_>>()
                .join("  ")
        );
    }
    out.push('\n');
    out
}

/// Each column's answer to the test's condition (herd's Observation word), or why it
/// has none: `exists (...)`: lkmm Never, ppc-lwsync Sometimes, ...
fn condition_line(r: &Report, cols: &[Column]) -> String {
    let word = |j: &Result<&Judgement, &Missing>| match j {
        Ok(j) => j.observation().to_string(),
        Err(m) => m.status().to_string(),
    };
    let mut cells = vec![format!("lkmm {}", word(&r.lkmm.as_ref()))];
    for (h, c) in r.hw.iter().zip(cols) {
        cells.push(format!(
            "{} {}",
            c.map.name,
            word(&h.as_ref().map(|(_, j)| j))
        ));
    }
    format!(
        "  {}: {}\n",
        litmus::judge::cond::show_condition(&r.test.condition),
        cells.join(", ")
    )
}

/// The columns some of whose runs the unrolling bound cut (herd's `Loop`), if any.
fn loop_line(r: &Report, cols: &[Column], unroll: u32) -> String {
    let cut: Vec<&str> = std::iter::once(("lkmm", r.lkmm.as_ref().ok()))
        .chain(
            r.hw.iter()
                .zip(cols)
                .map(|(h, c)| (c.map.name.as_str(), h.as_ref().ok().map(|(_, j)| j))),
        )
        .filter(|(_, j)| j.is_some_and(|j| j.cut))
        .map(|(n, _)| n)
        .collect();
    if cut.is_empty() {
        return String::new();
    }
    format!(
        "  Loop (runs cut by --unroll {unroll}: states may be missing): {}\n",
        cut.join(", ")
    )
}

/// What a `--compile` batch found, for its last line.
#[derive(Default)]
struct Tally {
    tests: usize,
    unsound_states: usize,
    unsound_tests: usize,
    weaker_tests: usize,
}

impl Tally {
    fn add(&mut self, cmp: Option<&Comparison>) {
        self.tests += 1;
        let Some(cmp) = cmp else { return };
        let unsound = cmp.unsound().len();
        self.unsound_states += unsound;
        self.unsound_tests += usize::from(unsound > 0);
        self.weaker_tests += usize::from(!cmp.lkmm_weaker().is_empty());
    }

    /// `12 tests: 2 unsound states (in 1 test), the LKMM weaker than every compiled form in 3 tests`
    fn line(&self) -> String {
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        format!(
            "{}: {} (in {}: states a hardware model allows and the LKMM forbids), the LKMM weaker than every compiled form in {}\n",
            n(self.tests, "test", "tests"),
            n(self.unsound_states, "unsound state", "unsound states"),
            n(self.unsound_tests, "test", "tests"),
            n(self.weaker_tests, "test", "tests"),
        )
    }
}

fn json_line(
    r: &Report,
    cols: &[Column],
    cmp: Option<&Comparison>,
    lkmm: &Loaded,
    judge: &dyn Fn(&Test, &Loaded) -> Result<Judgement, String>,
) -> String {
    // Each judgement as herd7 would print it (the compiled test's own names), so that
    // herd7's answer on the compiled test can be compared with ours.
    let answer = |j: &Judgement| {
        let (pos, neg) = j.witnesses();
        json!({
            "status": "ok",
            "observation": j.observation(),
            "loop": j.cut,
            "states": j.states.iter().map(|s| litmus::report::herd::show_state(j, s)).collect::<Vec<_>>(),
            "pos": pos,
            "neg": neg,
        })
    };
    let missing = |m: &Missing| json!({"status": m.status(), "message": m.message()});
    let columns: Vec<serde_json::Value> =
        r.hw.iter()
            .zip(cols)
            .map(|(h, c)| {
                let mut v = match h {
                    Ok((_, j)) => answer(j),
                    Err(e) => missing(e),
                };
                v["mapping"] = json!(c.map.name);
                v["model"] = json!(c.model.label);
                v
            })
            .collect();
    let lk = match &r.lkmm {
        Ok(j) => answer(j),
        Err(e) => missing(e),
    };
    let Some(cmp) = cmp else {
        return json!({
            "file": r.file,
            "test": r.test.name,
            "lkmm": lk,
            "columns": columns,
        })
        .to_string();
    };
    let states: Vec<serde_json::Value> = cmp
        .rows
        .iter()
        .enumerate()
        .map(|(k, row)| {
            let hw: serde_json::Map<String, serde_json::Value> = cmp
                .columns
                .iter()
                .zip(&row.hw)
                .map(|(c, h)| (c.clone(), json!(h)))
                .collect();
            json!({"state": cmp.state_text(k), "lkmm": row.lkmm, "hw": hw})
        })
        .collect();
    let unsound: Vec<serde_json::Value> = cmp
        .unsound()
        .into_iter()
        .map(|(row, col)| {
            json!({
                "mapping": cmp.columns[col],
                "state": cmp.state_text(row),
                "lkmm_reason": lkmm_reason(r, cmp, row, lkmm, judge),
            })
        })
        .collect();
    let weaker: serde_json::Map<String, serde_json::Value> = (0..cmp.columns.len())
        .map(|c| {
            (
                cmp.columns[c].clone(),
                json!(
                    cmp.weaker_than(c)
                        .iter()
                        .map(|k| cmp.state_text(*k))
                        .collect::<Vec<_>>()
                ),
            )
        })
        .collect();
    json!({
        "file": r.file,
        "test": r.test.name,
        "lkmm": lk,
        "columns": columns,
        "states": states,
        "unsound": unsound,
        "lkmm_weaker_than": weaker,
        "lkmm_weaker_than_all": cmp.lkmm_weaker().iter().map(|k| cmp.state_text(*k)).collect::<Vec<_>>(),
    })
    .to_string()
}
