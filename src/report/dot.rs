//! Execution graphs in Graphviz DOT, written from the execution's petgraph graph: one
//! cluster per thread, initial writes on top, edges coloured by relation as herd draws
//! them, what explains the answer in bold, and the explanation in words as a note.

use crate::judge::graph::ExecGraph;
use petgraph::visit::EdgeRef;
use std::fmt::Write;

fn colour(rel: &str) -> &'static str {
    match rel {
        "po" => "black",
        "rf" => "red",
        "co" => "blue",
        "fr" => "orange",
        "addr" | "data" | "ctrl" => "darkgreen",
        "rmw" => "purple",
        _ => "gray40",
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The graph `g` titled `title`; `highlight` lists (from, to) steps drawn bold (a cycle).
pub fn render(title: &str, g: &ExecGraph, highlight: &[(usize, usize)]) -> String {
    render_noted(title, g, highlight, &[])
}

/// [`render`], with `notes` (lines of words) in a box of their own under the graph.
pub fn render_noted(
    title: &str,
    g: &ExecGraph,
    highlight: &[(usize, usize)],
    notes: &[String],
) -> String {
    let pg = g.graph();
    let mut o = String::new();
    let _ = writeln!(o, "digraph \"{}\" {{", escape(title));
    let _ = writeln!(o, "  label=\"{}\"; labelloc=t; fontsize=14;", escape(title));
    let _ = writeln!(o, "  node [shape=box, style=rounded, fontsize=11];");
    let mut procs: Vec<Option<u32>> = pg.node_weights().map(|e| e.proc).collect();
    procs.sort();
    procs.dedup();
    for p in procs {
        let members = pg.node_indices().filter(|&n| pg[n].proc == p);
        match p {
            Some(p) => {
                let _ = writeln!(o, "  subgraph cluster_p{p} {{ label=\"P{p}\";");
                for n in members {
                    let label = escape(&pg[n].label);
                    let _ = writeln!(o, "    e{} [label=\"{label}\"];", n.index());
                }
                let _ = writeln!(o, "  }}");
            }
            None => {
                for n in members {
                    let label = escape(&pg[n].label);
                    let _ = writeln!(
                        o,
                        "  e{} [label=\"init: {label}\", style=dashed];",
                        n.index()
                    );
                }
            }
        }
    }
    for e in pg.edge_references() {
        let (a, b) = (e.source().index(), e.target().index());
        let rel = e.weight().rel.as_str();
        let on_path = highlight.contains(&(a, b));
        // `po` and `co` are drawn immediate; a longer one is drawn only on the path.
        if !e.weight().drawn && !on_path {
            continue;
        }
        let bold = if on_path { ", penwidth=3" } else { "" };
        let c = colour(rel);
        let _ = writeln!(
            o,
            "  e{a} -> e{b} [label=\"{}\", color={c}, fontcolor={c}{bold}];",
            escape(rel)
        );
    }
    if !notes.is_empty() {
        // `\l` ends a left-justified line in a DOT label.
        let text: String = notes.iter().map(|l| escape(l) + "\\l").collect();
        let _ = writeln!(
            o,
            "  note [shape=note, style=\"\", fontsize=10, label=\"{text}\"];"
        );
    }
    o.push_str("}\n");
    o
}
