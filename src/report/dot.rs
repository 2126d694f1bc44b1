//! Execution graphs in Graphviz DOT: one cluster per thread, initial writes on top,
//! edges coloured by relation as herd draws them.

use crate::outcome::graph::ExecGraph;
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
    let mut o = String::new();
    let _ = writeln!(o, "digraph \"{}\" {{", escape(title));
    let _ = writeln!(o, "  label=\"{}\"; labelloc=t; fontsize=14;", escape(title));
    let _ = writeln!(o, "  node [shape=box, style=rounded, fontsize=11];");
    let mut procs: Vec<Option<u32>> = g.events.iter().map(|e| e.proc).collect();
    procs.sort();
    procs.dedup();
    for p in procs {
        let members: Vec<usize> = (0..g.events.len())
            .filter(|&i| g.events[i].proc == p)
            .collect();
        match p {
            Some(p) => {
                let _ = writeln!(o, "  subgraph cluster_p{p} {{ label=\"P{p}\";");
                for i in members {
                    let _ = writeln!(o, "    e{i} [label=\"{}\"];", escape(&g.events[i].label));
                }
                let _ = writeln!(o, "  }}");
            }
            None => {
                for i in members {
                    let _ = writeln!(
                        o,
                        "  e{i} [label=\"init: {}\", style=dashed];",
                        escape(&g.events[i].label)
                    );
                }
            }
        }
    }
    for e in &g.edges {
        let bold = if highlight.contains(&(e.from, e.to)) {
            ", penwidth=3"
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "  e{} -> e{} [label=\"{}\", color={}, fontcolor={}{bold}];",
            e.from,
            e.to,
            e.rel,
            colour(&e.rel),
            colour(&e.rel)
        );
    }
    o.push_str("}\n");
    o
}
