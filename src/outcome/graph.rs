//! Execution graphs: the events of one candidate and the relations that explain it, kept
//! for the report (DOT/SVG) and for naming the edges of a forbidding cycle.

use crate::cat::Verdict;
use crate::exec::Candidate;
use crate::rel::{Rel, Set};
use crate::sem::Kind;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct GraphEvent {
    /// Thread, or `None` for an initial write.
    pub proc: Option<u32>,
    /// `W[ONCE] x=1`, `R y=0`, `F[MB]`.
    pub label: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub rel: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ExecGraph {
    pub events: Vec<GraphEvent>,
    pub edges: Vec<Edge>,
}

/// Relations drawn, in legend order; communication relations come from the verdict.
const DRAWN: [&str; 5] = ["addr", "data", "ctrl", "rmw", "po"];

/// `r` without the edges implied by transitivity (`r \ (r;r)`), for readable drawings.
fn immediate(r: &Rel) -> Rel {
    r.diff(&r.compose(r))
}

impl ExecGraph {
    pub fn of(c: &Candidate, v: &Verdict) -> ExecGraph {
        let p = &c.prims;
        let events = p
            .events
            .iter()
            .map(|e| GraphEvent {
                proc: e.proc,
                label: label(c, e),
            })
            .collect();
        let mut g = ExecGraph {
            events,
            edges: Vec::new(),
        };
        let rf = v.rf.as_ref().or_else(|| p.rels.get("rf"));
        let co = v.co.as_ref();
        for name in DRAWN {
            if let Some(r) = p.rels.get(name) {
                let r = if name == "po" {
                    immediate(r)
                } else {
                    r.clone()
                };
                g.add(&r, name);
            }
        }
        if let Some(rf) = rf {
            g.add(rf, "rf");
        }
        if let Some(co) = co {
            let co = immediate(co);
            // Initial writes are co-before every write: leave those implied edges out.
            let shown = match p.sets.get("IW") {
                Some(iw) => co.diff(&co.restrict_domain(iw)),
                None => co.clone(),
            };
            g.add(&shown, "co");
            if let Some(rf) = rf {
                let fr = rf
                    .inverse()
                    .compose(&co)
                    .diff(&Rel::identity(&Set::full(p.n)));
                g.add(&fr, "fr");
            }
        }
        g
    }

    fn add(&mut self, r: &Rel, name: &str) {
        for (a, b) in r.pairs() {
            self.edges.push(Edge {
                from: a,
                to: b,
                rel: name.to_string(),
            });
        }
    }

    /// The shortest path of edges from `a` to `b`: each step's source event and the
    /// relations it follows (`po|ctrl`).
    pub fn path(&self, a: usize, b: usize) -> Option<Vec<(usize, String)>> {
        let n = self.events.len();
        let mut prev: Vec<Option<usize>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::from([a]);
        seen[a] = true;
        while let Some(x) = queue.pop_front() {
            for e in self.edges.iter().filter(|e| e.from == x) {
                if e.to == b || !seen[e.to] {
                    if e.to == b {
                        let mut hops = vec![x];
                        let mut y = x;
                        while let Some(p) = prev[y] {
                            hops.push(p);
                            y = p;
                        }
                        hops.reverse();
                        hops.push(b);
                        let steps = hops
                            .windows(2)
                            .map(|w| (w[0], self.between(w[0], w[1]).join("|")))
                            .collect();
                        return Some(steps);
                    }
                    seen[e.to] = true;
                    prev[e.to] = Some(x);
                    queue.push_back(e.to);
                }
            }
        }
        None
    }

    /// The relations of this graph that hold between `a` and `b`.
    pub fn between(&self, a: usize, b: usize) -> Vec<&str> {
        self.edges
            .iter()
            .filter(|e| e.from == a && e.to == b)
            .map(|e| e.rel.as_str())
            .collect()
    }
}

/// A short label: `W[ONCE] x=1`.
pub fn label(c: &Candidate, e: &crate::cat::EventInfo) -> String {
    let what = match e.kind {
        Kind::Read => "R",
        Kind::Write => "W",
        Kind::Fence => "F",
        Kind::Branch => "B",
        Kind::Special => "M",
    };
    let tags: Vec<&str> = e
        .tags
        .iter()
        .map(String::as_str)
        .filter(|t| !matches!(*t, "annot" | "NA" | "Exp"))
        .collect();
    let tags = if tags.is_empty() {
        String::new()
    } else {
        format!("[{}]", tags.join(","))
    };
    let loc = e.loc.map(|v| c.prims.symbols.show(v)).unwrap_or_default();
    let val = e
        .val
        .map(|v| format!("={}", c.prims.symbols.show(v)))
        .unwrap_or_default();
    format!("{what}{tags} {loc}{val}").trim_end().to_string()
}
