//! Stage 6: reporting judgements (herd7's text format, tables across models, JSON,
//! explanations of forbidden outcomes).

pub mod diag;
pub mod dot;
pub mod herd;
pub mod judge;
pub mod record;
pub mod table;

use crate::litmus::ast::Test;
use crate::outcome::Judgement;

/// Why the condition's outcome is forbidden, when it is: the check and its cycle.
pub fn explain(_t: &Test, j: &Judgement) -> String {
    if j.sat > 0 {
        return String::new();
    }
    match &j.forbidden_by {
        None => {
            "No candidate execution satisfies the condition: it is impossible before any axiom.\n"
                .into()
        }
        Some(e) if e.cycle.is_empty() => format!("Forbidden by {}\n", e.check),
        Some(e) => {
            let mut s = format!("Forbidden by {}, whose relation has the cycle:\n", e.check);
            let label = |i: usize| {
                let ev = &e.graph.events[i];
                let who = ev
                    .proc
                    .map(|p| format!("P{p}"))
                    .unwrap_or_else(|| "init".into());
                format!("{who}: {}", ev.label)
            };
            for (ev, via) in &e.cycle {
                s.push_str(&format!("  {}\n    --{via}-->\n", label(*ev)));
            }
            if let Some((first, _)) = e.cycle.first() {
                s.push_str(&format!("  {}\n", label(*first)));
            }
            s
        }
    }
}

/// The graph worth drawing for a judgement: the forbidding cycle's candidate when the
/// condition is never met, else the first execution that meets it.
pub fn graph(t: &Test, j: &Judgement) -> Option<String> {
    match (&j.forbidden_by, &j.witness) {
        (Some(e), _) if j.sat == 0 => {
            let steps: Vec<(usize, usize)> = e
                .cycle
                .iter()
                .enumerate()
                .map(|(k, (a, _))| (*a, e.cycle[(k + 1) % e.cycle.len()].0))
                .collect();
            let title = format!("{}: forbidden by {} ({})", t.name, e.check, j.model);
            Some(dot::render(&title, &e.graph, &steps))
        }
        (_, Some(w)) => Some(dot::render(
            &format!("{}: allowed ({})", t.name, j.model),
            w,
            &[],
        )),
        _ => None,
    }
}
