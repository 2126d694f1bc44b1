//! Stage 6: reporting judgements (herd7's text format, tables across models, JSON,
//! explanations of answers, execution graphs).

pub mod diag;
pub mod dot;
pub mod expected;
pub mod herd;
pub mod record;
pub mod table;

use crate::cat::CheckKind;
use crate::judge::graph::ExecGraph;
use crate::judge::{Explanation, Judgement};
use crate::litmus::ast::Test;

/// Why the answer is what it is. For a forbidden outcome: the check that rejects the first
/// execution reaching it and what breaks it — a cycle of its relation, or the pair an
/// `empty` check finds and the events between — in base edges, then that execution's `rf`
/// and `co` in words. For an allowed one: the first execution found that reaches it, its
/// `rf` and `co` in words.
pub fn explain(_t: &Test, j: &Judgement) -> String {
    if j.sat > 0 {
        return match &j.witness {
            Some(w) => {
                let mut s = "Allowed: the first execution found that reaches it has\n".to_string();
                for l in words(w) {
                    s += &format!("  {l}\n");
                }
                s
            }
            None => String::new(),
        };
    }
    match &j.forbidden_by {
        None if j.stats.why_left_out => {
            "No consistent execution satisfies the condition. The candidates that would were \
             left out as incoherent before they were complete, and none was rebuilt within \
             the search's limit to show why.\n"
                .into()
        }
        None => {
            "No candidate execution satisfies the condition: it is impossible before any axiom.\n"
                .into()
        }
        Some(e) => {
            let mut s = reason(e).join("\n") + "\n";
            let w = words(&e.graph);
            if !w.is_empty() {
                s += "in the execution where\n";
                for l in w {
                    s += &format!("  {l}\n");
                }
            }
            s
        }
    }
}

/// The check of `e` and what breaks it, line by line.
pub fn reason(e: &Explanation) -> Vec<String> {
    let g = &e.graph;
    let ev = |i: usize| g.event(i).full();
    let steps = |out: &mut Vec<String>, steps: &[(usize, String)], last: usize| {
        for (a, via) in steps {
            out.push(format!("  {}", ev(*a)));
            out.push(format!("    --{via}-->"));
        }
        out.push(format!("  {}", ev(last)));
    };
    let mut out = Vec::new();
    match (e.kind, e.pair) {
        (CheckKind::Empty, Some((a, b))) if a == b => {
            out.push(format!(
                "Forbidden by {}, which must be empty and holds of",
                e.check
            ));
            out.push(format!("  {}", ev(a)));
        }
        (CheckKind::Empty, Some((a, b))) => {
            let direct = g.between(a, b).join("|");
            let direct = if direct.is_empty() {
                String::new()
            } else {
                format!(" ({direct})")
            };
            out.push(format!(
                "Forbidden by {}, whose relation must be empty and relates",
                e.check
            ));
            out.push(format!("  {}", ev(a)));
            out.push(format!("  to {}{direct}", ev(b)));
            if !e.between.is_empty() {
                out.push("with, between them:".into());
                steps(&mut out, &e.between, b);
            }
        }
        (_, _) if e.cycle.is_empty() => out.push(format!("Forbidden by {}", e.check)),
        (CheckKind::Irreflexive, Some((a, _))) => {
            out.push(format!(
                "Forbidden by {}, whose relation must be irreflexive and relates {} to itself, through the cycle:",
                e.check,
                ev(a)
            ));
            steps(&mut out, &e.cycle, e.cycle[0].0);
        }
        _ => {
            out.push(format!(
                "Forbidden by {}, whose relation has the cycle:",
                e.check
            ));
            steps(&mut out, &e.cycle, e.cycle[0].0);
        }
    }
    out
}

/// An execution's `rf` and `co` in words: `rf: P1's R[ONCE] x=0 reads from the initial
/// write`, `co: x=1 (P0) before x=2 (P1)`.
pub fn words(g: &ExecGraph) -> Vec<String> {
    let mut out = Vec::new();
    for (k, (r, w)) in g.reads_from().into_iter().enumerate() {
        let (r, w) = (g.event(r), g.event(w));
        let from = match w.proc {
            None => "the initial write".to_string(),
            Some(p) if Some(p) == r.proc => format!("its own {}", w.label),
            Some(p) => format!("P{p}'s {}", w.label),
        };
        let head = if k == 0 { "rf:" } else { "   " };
        out.push(format!(
            "{head} {}'s {} reads from {from}",
            r.who(),
            r.label
        ));
    }
    // A write is `x=1`; an event with no value (a lock's) by its label.
    let name = |e: &crate::judge::graph::GraphEvent| match e.val {
        Some(_) => e.access(),
        None => e.label.clone(),
    };
    for (k, (a, b)) in g.coherence().into_iter().enumerate() {
        let (a, b) = (g.event(a), g.event(b));
        let head = if k == 0 { "co:" } else { "   " };
        out.push(format!(
            "{head} {} ({}) before {} ({})",
            name(a),
            a.who(),
            name(b),
            b.who()
        ));
    }
    out
}

/// The graph worth drawing for a judgement: the forbidding cycle's candidate when the
/// condition is never met (what breaks the check in bold, the reason in words), else the
/// first execution that meets it (its `rf` and `co` in bold and in words).
pub fn graph(t: &Test, j: &Judgement) -> Option<String> {
    match (&j.forbidden_by, &j.witness) {
        (Some(e), _) if j.sat == 0 => {
            let mut bold = ExecGraph::cycle_edges(&e.cycle);
            if let Some((a, b)) = e.pair.filter(|(a, b)| a != b) {
                bold.push((a, b));
                let hops: Vec<usize> = e.between.iter().map(|s| s.0).chain([b]).collect();
                bold.extend(hops.windows(2).map(|w| (w[0], w[1])));
            }
            let title = format!("{}: forbidden by {} ({})", t.name, e.check, j.model);
            let mut notes = reason(e);
            notes.extend(words(&e.graph));
            Some(dot::render_noted(&title, &e.graph, &bold, &notes))
        }
        (_, Some(w)) => {
            let bold: Vec<(usize, usize)> = w
                .edges()
                .filter(|e| e.rel == "rf" || e.rel == "co")
                .map(|e| (e.from, e.to))
                .collect();
            Some(dot::render_noted(
                &format!("{}: allowed ({})", t.name, j.model),
                w,
                &bold,
                &words(w),
            ))
        }
        _ => None,
    }
}
