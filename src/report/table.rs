//! Tests × models: which of each test's outcomes every model allows.
//!
//! Tests that ask the same question in different languages (a `Family=` header line, e.g. the
//! C, X86, AArch64 and PPC versions of one lock idiom) share a row, so one line compares the
//! LKMM with each architecture.

use crate::budget::Exhausted;
use crate::outcome::Judgement;

/// What one model says of one test.
pub enum TableCell<'a> {
    Judged(&'a Judgement),
    Failed,
    /// Ran out of its budget.
    Undetermined(&'a Exhausted),
    /// The model does not cover the test's architecture.
    NotApplicable,
}

/// One row: a test, or a family of tests; per column, the members that model judged.
pub struct Row<'a> {
    pub name: String,
    pub cells: Vec<Vec<(String, TableCell<'a>)>>,
}

fn verdict(j: &Judgement) -> String {
    let v = if j.sat > 0 { "allowed" } else { "forbidden" };
    format!("{v} ({} states)", j.states.len())
}

/// A cell: whether the condition's outcome is reachable, and how many final states exist;
/// several members list their names unless they all agree.
fn cell(members: &[(String, TableCell)]) -> String {
    let judged: Vec<(&str, &Judgement)> = members
        .iter()
        .filter_map(|(n, c)| match c {
            TableCell::Judged(j) => Some((n.as_str(), *j)),
            _ => None,
        })
        .collect();
    let failed = members.iter().any(|(_, c)| matches!(c, TableCell::Failed));
    let undetermined = members.iter().find_map(|(_, c)| match c {
        TableCell::Undetermined(e) => Some(match e {
            Exhausted::Time { .. } => "timeout",
            Exhausted::Memory { .. } => "out of memory",
            Exhausted::Size(_) => "too big",
        }),
        _ => None,
    });
    let mut out = match judged.as_slice() {
        [] if failed => return "error".into(),
        [] if undetermined.is_some() => return undetermined.unwrap_or_default().into(),
        [] => return "-".into(),
        [(_, j)] => verdict(j),
        many => {
            let first = many[0].1.sat > 0;
            if many.iter().all(|(_, j)| (j.sat > 0) == first) {
                let v = if first { "allowed" } else { "forbidden" };
                format!("{v} (all {} versions)", many.len())
            } else {
                many.iter()
                    .map(|(n, j)| {
                        format!("{n}: {}", if j.sat > 0 { "allowed" } else { "forbidden" })
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            }
        }
    };
    if failed {
        out.push_str(" + error");
    }
    if let Some(u) = undetermined {
        out.push_str(" + ");
        out.push_str(u);
    }
    out
}

pub fn render(columns: &[String], rows: &[Row]) -> String {
    let head = if rows.iter().any(|r| r.cells.iter().any(|c| c.len() > 1)) {
        "test (family)"
    } else {
        "test"
    };
    let mut grid: Vec<Vec<String>> = vec![
        std::iter::once(head.to_string())
            .chain(columns.iter().cloned())
            .collect(),
    ];
    for r in rows {
        grid.push(
            std::iter::once(r.name.clone())
                .chain(r.cells.iter().map(|c| cell(c)))
                .collect(),
        );
    }
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|k| grid.iter().map(|r| r[k].len()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, r) in grid.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&rule.join("  "));
            out.push('\n');
        }
    }
    out
}
