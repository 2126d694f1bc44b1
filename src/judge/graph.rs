//! Execution graphs: the events of one candidate and the relations that explain it, as a
//! petgraph graph (events as nodes, base relations — `po`, `rf`, `co`, `fr`, dependencies,
//! `rmw` — as labelled edges), kept for the report (DOT/SVG, JSON, words) and for
//! expanding what a failed check names (a cycle, a pair) into paths of those edges.
//!
//! Only the executions explained or drawn become graphs: judging stays on bit matrices
//! (`crate::rel`), and a graph is built from one candidate's matrices once it is chosen.

use crate::cat::Verdict;
use crate::exec::Candidate;
use crate::rel::{Rel, Set};
use crate::sem::Kind;
use petgraph::algo::astar;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{EdgeFiltered, EdgeRef};

/// An event as drawn and described.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphEvent {
    /// Thread, or `None` for an initial write.
    pub proc: Option<u32>,
    /// `W[ONCE] x=1`, `R y=0`, `F[MB]`.
    pub label: String,
    pub kind: Kind,
    /// The location accessed and the value read or written, as herd prints them.
    pub loc: Option<String>,
    pub val: Option<String>,
}

impl GraphEvent {
    /// `P1: R[ONCE] x=0`, `init: W x=0`.
    pub fn full(&self) -> String {
        format!("{}: {}", self.who(), self.label)
    }

    /// `P1`, or `init` for an initial write.
    pub fn who(&self) -> String {
        self.proc
            .map(|p| format!("P{p}"))
            .unwrap_or_else(|| "init".into())
    }

    /// `x=1` for a memory access.
    pub fn access(&self) -> String {
        match (&self.loc, &self.val) {
            (Some(l), Some(v)) => format!("{l}={v}"),
            (Some(l), None) => l.clone(),
            _ => self.label.clone(),
        }
    }
}

/// One edge of a graph: `from` is related to `to` by `rel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge<'a> {
    pub from: usize,
    pub to: usize,
    pub rel: &'a str,
}

/// A labelled edge: the relation, and whether it is drawn (listed by
/// [`ExecGraph::edges`]) or only there for paths to take (`po` and `co` are drawn
/// immediate only, but a step of a cycle may jump along them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub rel: String,
    pub drawn: bool,
    /// The fences and other events that are no memory access (lock, unlock, RCU
    /// markers) a `po` edge jumps over: a path takes it only when that is shorter than
    /// going through them (a fence or an unlock-lock pair is what orders an MP, worth
    /// showing; ten reads in a row are not).
    pub skips: u32,
}

impl Label {
    /// What a path pays to take this edge.
    fn cost(&self) -> u32 {
        2 + 10 * self.skips
    }
}

/// One execution as a graph: node `i` is event `i` of the candidate.
#[derive(Clone, Debug, Default)]
pub struct ExecGraph {
    graph: DiGraph<GraphEvent, Label>,
}

/// Relations drawn from the candidate, in legend order; communication relations come from
/// the verdict.
const DRAWN: [&str; 5] = ["addr", "data", "ctrl", "rmw", "po"];

/// `r` without the edges implied by transitivity (`r \ (r;r)`), for readable drawings.
fn immediate(r: &Rel) -> Rel {
    r.diff(&r.compose(r))
}

impl ExecGraph {
    /// The graph of candidate `c` under the branch `v` of the model: its dependencies,
    /// `rmw`, immediate `po`, and `rf`, immediate `co` (initial writes' implied edges left
    /// out) and `fr` (whole) when the branch has them.
    pub fn of(c: &Candidate, v: &Verdict) -> ExecGraph {
        let p = &c.prims;
        let mut g = ExecGraph::default();
        for e in p.events {
            g.graph.add_node(GraphEvent {
                proc: e.proc,
                label: label(c, e),
                kind: e.kind,
                loc: e.loc.map(|v| c.prims.symbols.show(v)),
                val: e.val.map(|v| c.prims.symbols.show(v)),
            });
        }
        let rf = v.rf.as_ref().or_else(|| p.rels.get("rf"));
        let co = v.co.as_ref();
        for name in DRAWN {
            if let Some(r) = p.rels.get(name) {
                if name == "po" {
                    let imm = immediate(r);
                    g.add(&imm, name, true);
                    let marks = |e: usize| matches!(p.events[e].kind, Kind::Fence | Kind::Special);
                    for (a, b) in r.diff(&imm).pairs() {
                        // What lies between a and b along po that is worth showing.
                        let skips = r.succs(a).filter(|&m| r.contains(m, b) && marks(m)).count();
                        g.graph.add_edge(
                            NodeIndex::new(a),
                            NodeIndex::new(b),
                            Label {
                                rel: name.to_string(),
                                drawn: false,
                                skips: skips as u32,
                            },
                        );
                    }
                } else {
                    g.add(r, name, true);
                }
            }
        }
        if let Some(rf) = rf {
            g.add(rf, "rf", true);
        }
        if let Some(co) = co {
            let imm = immediate(co);
            // Initial writes are co-before every write: leave those implied edges out.
            let shown = match p.sets.get("IW") {
                Some(iw) => imm.diff(&imm.restrict_domain(iw)),
                None => imm.clone(),
            };
            g.add(&shown, "co", true);
            g.add(&co.diff(&shown), "co", false);
            // herd's `fr`, `rf^-1; co`: a read to every write after the one it reads.
            if let Some(rf) = rf {
                let fr = rf
                    .inverse()
                    .compose(co)
                    .diff(&Rel::identity(&Set::full(p.n)));
                g.add(&fr, "fr", true);
            }
        }
        g
    }

    /// A graph of these events and edges (for tests and for graphs read back).
    pub fn from_parts(events: Vec<GraphEvent>, edges: &[(usize, usize, &str)]) -> ExecGraph {
        let mut g = ExecGraph::default();
        for e in events {
            g.graph.add_node(e);
        }
        for &(a, b, rel) in edges {
            if a.max(b) < g.len() {
                let label = Label {
                    rel: rel.to_string(),
                    drawn: true,
                    skips: 0,
                };
                g.graph
                    .add_edge(NodeIndex::new(a), NodeIndex::new(b), label);
            }
        }
        g
    }

    fn add(&mut self, r: &Rel, name: &str, drawn: bool) {
        for (a, b) in r.pairs() {
            let label = Label {
                rel: name.to_string(),
                drawn,
                skips: 0,
            };
            self.graph
                .add_edge(NodeIndex::new(a), NodeIndex::new(b), label);
        }
    }

    /// The petgraph graph itself.
    pub fn graph(&self) -> &DiGraph<GraphEvent, Label> {
        &self.graph
    }

    /// How many events.
    pub fn len(&self) -> usize {
        self.graph.node_count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Event `i`.
    pub fn event(&self, i: usize) -> &GraphEvent {
        &self.graph[NodeIndex::new(i)]
    }

    /// The events, in order.
    pub fn events(&self) -> impl Iterator<Item = &GraphEvent> {
        self.graph.node_weights()
    }

    /// The edges drawn, in the order they were added (relation by relation).
    pub fn edges(&self) -> impl Iterator<Item = Edge<'_>> {
        self.graph
            .edge_references()
            .filter(|e| e.weight().drawn)
            .map(|e| Edge {
                from: e.source().index(),
                to: e.target().index(),
                rel: e.weight().rel.as_str(),
            })
    }

    /// Drops the edges of the relations `keep` says no to, drawn or not.
    pub fn retain_edges(&mut self, keep: impl Fn(&str) -> bool) {
        self.graph.retain_edges(|g, e| keep(&g[e].rel));
    }

    /// The relations of this graph that hold between `a` and `b` (drawn or not), in
    /// legend order.
    pub fn between(&self, a: usize, b: usize) -> Vec<&str> {
        let mut rels: Vec<&str> = self
            .graph
            .edges_connecting(NodeIndex::new(a), NodeIndex::new(b))
            .map(|e| e.weight().rel.as_str())
            .collect();
        rels.sort_by_key(|r| legend_rank(r));
        rels.dedup();
        rels
    }

    /// Each event of `hops` with the relations that lead to the next one.
    fn steps(&self, hops: &[usize]) -> Vec<(usize, String)> {
        hops.windows(2)
            .map(|w| (w[0], self.between(w[0], w[1]).join("|")))
            .collect()
    }

    /// The shortest path of edges from `a` to `b` (A*; a `po` edge jumping over fences
    /// or locks costs more than the path through them, see [`Label`]): each step's source
    /// event and the relations it follows (`po|ctrl`); from `a` to itself, the shortest
    /// cycle through it.
    pub fn path(&self, a: usize, b: usize) -> Option<Vec<(usize, String)>> {
        if a.max(b) >= self.len() {
            return None;
        }
        let hops = if a == b {
            self.shortest_cycle(a)?
        } else {
            let (_, nodes) = astar(
                &self.graph,
                NodeIndex::new(a),
                |n| n.index() == b,
                |e| e.weight().cost(),
                |_| 0,
            )?;
            nodes.into_iter().map(|n| n.index()).collect()
        };
        Some(self.steps(&hops))
    }

    /// The shortest path from `a` to `b` through at least one other event (the direct
    /// edges between them left out): what lies between the two events of a pair.
    pub fn path_between(&self, a: usize, b: usize) -> Option<Vec<(usize, String)>> {
        if a == b || a.max(b) >= self.len() {
            return None;
        }
        let (na, nb) = (NodeIndex::new(a), NodeIndex::new(b));
        let indirect =
            EdgeFiltered::from_fn(&self.graph, |e| !(e.source() == na && e.target() == nb));
        let (_, nodes) = astar(&indirect, na, |n| n == nb, |e| e.weight().cost(), |_| 0)?;
        let hops: Vec<usize> = nodes.into_iter().map(|n| n.index()).collect();
        Some(self.steps(&hops))
    }

    /// The events of the shortest cycle through `a`, `a` first and last.
    fn shortest_cycle(&self, a: usize) -> Option<Vec<usize>> {
        let na = NodeIndex::new(a);
        if self.graph.contains_edge(na, na) {
            return Some(vec![a, a]);
        }
        let mut succs: Vec<NodeIndex> = self.graph.neighbors(na).collect();
        succs.sort();
        succs.dedup();
        succs
            .into_iter()
            .filter_map(|s| {
                let first = self
                    .graph
                    .edges_connecting(na, s)
                    .map(|e| e.weight().cost())
                    .min()?;
                let (cost, nodes) =
                    astar(&self.graph, s, |n| n == na, |e| e.weight().cost(), |_| 0)?;
                Some((first + cost, nodes))
            })
            .min_by_key(|(cost, _)| *cost)
            .map(|(_, nodes)| {
                std::iter::once(a)
                    .chain(nodes.into_iter().map(|n| n.index()))
                    .collect()
            })
    }

    /// Expands a cycle of events, each related to the next by a check's relation, into
    /// base edges: each step becomes the shortest path of edges between its ends (A*), or
    /// stays one step named `(fallback)` when no edges join them. A one-event cycle (an
    /// irreflexive check's event) becomes the shortest cycle through it.
    pub fn expand_cycle(&self, cycle: &[usize], fallback: &str) -> Vec<(usize, String)> {
        let mut steps = Vec::new();
        for (k, &e) in cycle.iter().enumerate() {
            let next = cycle[(k + 1) % cycle.len()];
            match self.path(e, next) {
                Some(path) => steps.extend(path),
                None => steps.push((e, format!("({fallback})"))),
            }
        }
        steps
    }

    /// The events of `steps` (a closed cycle) as consecutive (from, to) pairs.
    pub fn cycle_edges(steps: &[(usize, String)]) -> Vec<(usize, usize)> {
        (0..steps.len())
            .map(|k| (steps[k].0, steps[(k + 1) % steps.len()].0))
            .collect()
    }

    /// The reads of the graph with the write each reads from, in event order.
    pub fn reads_from(&self) -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> = self
            .edges()
            .filter(|e| e.rel == "rf")
            .map(|e| (e.to, e.from))
            .collect();
        v.sort();
        v
    }

    /// The `co` edges drawn (immediate, initial writes' left out), in event order.
    pub fn coherence(&self) -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> = self
            .edges()
            .filter(|e| e.rel == "co")
            .map(|e| (e.from, e.to))
            .collect();
        v.sort();
        v
    }
}

/// Where a relation comes in a legend: dependencies and `rmw`, `po`, then communication.
fn legend_rank(rel: &str) -> usize {
    const ORDER: [&str; 8] = ["addr", "data", "ctrl", "rmw", "po", "rf", "co", "fr"];
    ORDER.iter().position(|r| *r == rel).unwrap_or(ORDER.len())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(proc: Option<u32>, kind: Kind, loc: &str, val: &str) -> GraphEvent {
        let k = match kind {
            Kind::Read => "R",
            _ => "W",
        };
        GraphEvent {
            proc,
            label: format!("{k} {loc}={val}"),
            kind,
            loc: Some(loc.into()),
            val: Some(val.into()),
        }
    }

    /// An rmw (1 → 2) of P1 reading the initial write 0, P0's write 3 co-between.
    fn atomicity() -> ExecGraph {
        ExecGraph::from_parts(
            vec![
                ev(None, Kind::Write, "x", "0"),
                ev(Some(1), Kind::Read, "x", "0"),
                ev(Some(1), Kind::Write, "x", "2"),
                ev(Some(0), Kind::Write, "x", "1"),
            ],
            &[
                (1, 2, "rmw"),
                (1, 2, "po"),
                (0, 1, "rf"),
                (3, 2, "co"),
                (1, 3, "fr"),
                (1, 2, "fr"),
            ],
        )
    }

    #[test]
    fn relations_between_come_in_legend_order() {
        let g = atomicity();
        assert_eq!(g.between(1, 2), ["rmw", "po", "fr"]);
        assert_eq!(g.path(1, 2).unwrap(), [(1, "rmw|po|fr".to_string())]);
    }

    #[test]
    fn the_events_between_a_pair_skip_its_direct_edges() {
        let g = atomicity();
        let p = g.path_between(1, 2).expect("a path through another event");
        assert_eq!(p, [(1, "fr".to_string()), (3, "co".to_string())]);
        assert_eq!(g.path_between(2, 1), None);
    }

    #[test]
    fn a_reflexive_event_expands_into_the_shortest_cycle_through_it() {
        // 0 → 1 → 2 → 0 and 0 → 3 → 4 → 5 → 0: the shorter one is taken.
        let events = (0..6)
            .map(|i| ev(Some(0), Kind::Write, "x", &i.to_string()))
            .collect();
        let g = ExecGraph::from_parts(
            events,
            &[
                (0, 3, "po"),
                (3, 4, "po"),
                (4, 5, "po"),
                (5, 0, "rf"),
                (0, 1, "co"),
                (1, 2, "co"),
                (2, 0, "fr"),
            ],
        );
        let c = g.expand_cycle(&[0], "check");
        assert_eq!(
            c,
            [
                (0, "co".to_string()),
                (1, "co".to_string()),
                (2, "fr".to_string())
            ]
        );
        assert_eq!(ExecGraph::cycle_edges(&c), [(0, 1), (1, 2), (2, 0)]);
    }

    #[test]
    fn a_step_no_edges_explain_stays_named_by_the_check() {
        let g = atomicity();
        let c = g.expand_cycle(&[2, 3], "atomic");
        assert_eq!(c[0], (2, "(atomic)".to_string()));
        assert_eq!(g.reads_from(), [(1, 0)]);
        assert_eq!(g.coherence(), [(3, 2)]);
    }

    #[test]
    fn a_step_goes_through_a_fence_and_jumps_over_plain_events() {
        // P0: W x=1; F; W y=1 — and P1: four reads in a row.
        let mut events = vec![
            ev(Some(0), Kind::Write, "x", "1"),
            ev(Some(0), Kind::Fence, "-", "-"),
            ev(Some(0), Kind::Write, "y", "1"),
        ];
        events.extend((0..4).map(|_| ev(Some(1), Kind::Read, "x", "1")));
        let mut g = ExecGraph::from_parts(
            events,
            &[
                (0, 1, "po"),
                (1, 2, "po"),
                (3, 4, "po"),
                (4, 5, "po"),
                (5, 6, "po"),
            ],
        );
        let mut jump = |a: usize, b: usize, skips: u32| {
            let label = Label {
                rel: "po".into(),
                drawn: false,
                skips,
            };
            g.graph
                .add_edge(NodeIndex::new(a), NodeIndex::new(b), label);
        };
        jump(0, 2, 1);
        jump(3, 6, 0);
        let via = |p: Vec<(usize, String)>| p.into_iter().map(|(e, _)| e).collect::<Vec<_>>();
        assert_eq!(via(g.path(0, 2).unwrap()), [0, 1]);
        assert_eq!(via(g.path(3, 6).unwrap()), [3]);
        // Undrawn, the jumps are no edges of the drawing.
        assert_eq!(g.edges().count(), 5);
    }

    #[test]
    fn hidden_relations_leave_the_graph() {
        let mut g = atomicity();
        g.retain_edges(|r| r != "fr");
        assert!(g.edges().all(|e| e.rel != "fr"));
        assert_eq!(g.path_between(1, 2), None);
        assert_eq!(g.len(), 4);
    }
}
