//! herd7's output block, line for line, so that herd's scripts and `mcompare7` read ours.

use crate::budget::{Exhausted, Explored};
use crate::judge::{Judgement, State, cond};
use crate::litmus::ast::{LocRef, Quantifier, Test};
use crate::sem::{Symbols, Value};
use std::fmt::Write;

/// One final state: `0:r0=1; [x]=2;`.
pub fn show_state(j: &Judgement, s: &State) -> String {
    show_values(&j.shown, &j.symbols, s)
}

/// The values `s` of the locations `shown`, as herd prints a final state.
pub fn show_values(shown: &[LocRef], symbols: &Symbols, s: &[Value]) -> String {
    let mut out = String::new();
    StatePrinter::new(shown).write(&mut out, symbols, s);
    out
}

/// Prints final states over the same locations: their labels made once (a test can have
/// half a million states).
pub struct StatePrinter<'a> {
    shown: &'a [LocRef],
    labels: Vec<String>,
}

impl<'a> StatePrinter<'a> {
    pub fn new(shown: &'a [LocRef]) -> Self {
        let labels = shown.iter().map(cond::show_loc).collect();
        StatePrinter { shown, labels }
    }

    /// Appends the state `s` to `out`.
    pub fn write(&self, out: &mut String, symbols: &Symbols, s: &[Value]) {
        for (k, (l, v)) in self.shown.iter().zip(s).enumerate() {
            if k > 0 {
                out.push(' ');
            }
            match (l, v) {
                (LocRef::Global(g), v) if g.starts_with("fault(") => {
                    let at = match v {
                        Value::Addr(x) => Some(symbols.name(*x)),
                        Value::Int(_) => None,
                    };
                    let _ = write!(out, "{};", crate::sem::vmsa::show_fault(g, at));
                }
                (_, v) => {
                    out.push_str(&self.labels[k]);
                    out.push('=');
                    symbols.write(out, *v);
                    out.push(';');
                }
            }
        }
    }
}

/// The final states in herd's order: value by value, integers before addresses, which
/// compare by name (ours compare by symbol number). States without addresses are in it
/// already.
fn herd_order(j: &Judgement) -> Vec<&State> {
    let mut states: Vec<&State> = j.states.iter().collect();
    let addr = |v: &Value| matches!(v, Value::Addr(_));
    if states.iter().any(|s| s.iter().any(addr)) {
        let key = |v: &Value| match v {
            Value::Int(i) => (0, *i, ""),
            Value::Addr(x) => (1, 0, j.symbols.name(*x)),
        };
        states.sort_by(|a, b| a.iter().map(key).cmp(b.iter().map(key)));
    }
    states
}

/// The whole block herd7 prints for a test.
pub fn block(test: &Test, j: &Judgement) -> String {
    let mut o = String::new();
    let kind = match j.quant {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    };
    let _ = writeln!(o, "Test {} {}", j.name, kind);
    let _ = writeln!(o, "States {}", j.states.len());
    let printer = StatePrinter::new(&j.shown);
    for s in herd_order(j) {
        printer.write(&mut o, &j.symbols, s);
        o.push('\n');
    }
    let _ = writeln!(
        o,
        "{}{}",
        if j.cut { "Loop " } else { "" },
        if j.ok() { "Ok" } else { "No" }
    );
    let _ = writeln!(o, "Witnesses");
    let (pos, neg) = j.witnesses();
    let _ = writeln!(o, "Positive: {pos} Negative: {neg}");
    for f in &j.flags {
        let _ = writeln!(o, "Flag {f}");
    }
    let _ = writeln!(o, "Condition {}", cond::show_condition(&test.condition));
    let _ = writeln!(
        o,
        "Observation {} {} {} {}",
        j.name,
        j.observation(),
        j.sat,
        j.unsat
    );
    let _ = writeln!(o, "Time {} {:.2}", j.name, j.stats.elapsed.as_secs_f64());
    for (k, v) in &test.info {
        if k == "Hash" {
            let _ = writeln!(o, "Hash={v}");
        }
    }
    o
}

/// The block for a test that ran out of its budget: herd's header and condition, no
/// states, witnesses or `Observation` (readers that look for one find no answer), and an
/// `Undetermined` line that says why and how far it got.
pub fn undetermined(test: &Test, why: &Exhausted, explored: &Explored) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Test {} Undetermined", test.name);
    let _ = writeln!(o, "Condition {}", cond::show_condition(&test.condition));
    let _ = writeln!(
        o,
        "Undetermined {}: {why} ({} candidates judged, {} final states found so far)",
        test.name, explored.candidates, explored.states
    );
    o
}
