//! Likely mistakes in a test that change its answer without an error: a condition naming
//! a register its thread never sets or a location no thread touches (both read as 0, so a
//! typo turns Never into Sometimes), and a test whose every execution is lost to
//! undefined behaviour (herd's `Never 0 0`, which the kernel's scripts read as DEADLOCK).
//! Warnings never change an answer.

use crate::exec::{Program, grow, threads::ThreadRuns};
use crate::litmus::ast::{LocRef, Thread};
use crate::sem::{LocId, SemError, Value};

/// What the runs of a test's threads did, as far as the warnings need to know.
pub trait Ran {
    /// Whether some run of thread `t` sets `reg` (`None`: the thread has no run).
    fn sets(&self, t: usize, reg: &str) -> Option<bool>;
    /// Whether some run accesses `loc`.
    fn touches(&self, loc: LocId) -> bool;
    /// The first run dropped for undefined behaviour: its thread's proc, and why.
    fn undefined(&self) -> Option<&(u32, SemError)>;
}

impl Ran for ThreadRuns {
    fn sets(&self, t: usize, reg: &str) -> Option<bool> {
        let rs = &self.runs[t];
        (!rs.is_empty()).then(|| rs.iter().any(|r| r.regs.contains_key(reg)))
    }
    fn touches(&self, loc: LocId) -> bool {
        self.runs
            .iter()
            .flatten()
            .flat_map(|r| &r.events)
            .any(|e| e.loc == Some(Value::Addr(loc)))
    }
    fn undefined(&self) -> Option<&(u32, SemError)> {
        self.undefined.as_ref()
    }
}

impl Ran for grow::Seen {
    fn sets(&self, t: usize, reg: &str) -> Option<bool> {
        let regs = self.regs.get(t)?;
        (!regs.is_empty() || self.ran.get(t) == Some(&true)).then(|| regs.contains(reg))
    }
    fn touches(&self, loc: LocId) -> bool {
        self.touched.contains(&loc)
    }
    fn undefined(&self) -> Option<&(u32, SemError)> {
        self.undefined.as_ref()
    }
}

/// A warning about the test: where (line, column) when known, else the text in the test
/// it is about (`token`, e.g. `1:r2` of the condition), and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub at: Option<(u32, u32)>,
    pub token: Option<String>,
    pub msg: String,
}

/// The warnings for a judged test with `executions` executions (satisfying or not).
pub fn warnings(p: &Program, runs: &dyn Ran, executions: usize) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut names = Vec::new();
    crate::exec::program::prop_locs(&p.test.condition.prop, &mut |l| {
        if !names.contains(l) {
            names.push(l.clone())
        }
    });
    for l in &names {
        if let Some(msg) = undefined_name(p, runs, l) {
            out.push(Warning {
                at: None,
                token: Some(written(l)),
                msg,
            });
        }
    }
    if executions == 0
        && let Some((proc, e)) = runs.undefined()
    {
        out.push(Warning {
            at: e.span.map(|s| (s.line, s.col)),
            token: None,
            msg: format!(
                "no execution is left: runs are dropped for undefined behaviour (P{proc}: {}), \
                 so the answer is `Never 0 0`",
                e.msg
            ),
        });
    }
    out
}

/// `l` as a condition writes it: `1:r2`, `x`.
fn written(l: &LocRef) -> String {
    match l {
        LocRef::Global(g) => g.clone(),
        l => super::cond::show_loc(l),
    }
}

/// Why the condition's `l` is likely a mistake, if it is.
fn undefined_name(p: &Program, runs: &dyn Ran, l: &LocRef) -> Option<String> {
    let shown = written(l);
    match l {
        LocRef::Reg { proc, reg } => {
            let Some(t) = p.test.threads.iter().position(|t| t.proc() == *proc) else {
                return Some(format!(
                    "the condition names `{shown}`, but there is no thread P{proc}"
                ));
            };
            // No run to look at (every one dropped): nothing to say of its registers.
            let sets = runs.sets(t, reg)?;
            let set = p.thread_regs[t].contains_key(reg) || sets;
            (!set).then(|| {
                format!("the condition reads `{shown}`, which P{proc} never sets (it reads as 0)")
            })
        }
        LocRef::Global(g) if g.starts_with("fault(") => None,
        LocRef::Global(g) => {
            let declared = p.test.init.iter().any(|e| &e.loc == l)
                || p.test.threads.iter().any(|t| match t {
                    Thread::C(c) => c.params.iter().any(|x| &x.name == g),
                    _ => false,
                });
            // Only an undeclared name is looked for among the events (big tests have
            // hundreds of thousands of runs).
            let touched = declared || p.symbols.get(g).is_some_and(|id| runs.touches(id));
            (!declared && !touched).then(|| {
                format!(
                    "the condition reads location `{shown}`, which no thread accesses and the \
                     initial state does not declare (it reads as 0)"
                )
            })
        }
    }
}
