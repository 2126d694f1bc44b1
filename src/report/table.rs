//! Tests × models: which of each test's outcomes every model allows.

use crate::outcome::Judgement;

/// What one model says of one test.
pub enum TableCell<'a> {
    Judged(&'a Judgement),
    Failed,
    /// The model does not cover the test's architecture.
    NotApplicable,
}

/// A cell: whether the condition's outcome is reachable, and how many final states exist.
fn cell(c: &TableCell) -> String {
    match c {
        TableCell::Failed => "error".into(),
        TableCell::NotApplicable => "-".into(),
        TableCell::Judged(j) => {
            let verdict = if j.sat > 0 { "allowed" } else { "forbidden" };
            format!("{verdict} ({} states)", j.states.len())
        }
    }
}

pub fn render(columns: &[String], rows: &[(String, Vec<TableCell>)]) -> String {
    let mut grid: Vec<Vec<String>> = vec![
        std::iter::once("test".to_string())
            .chain(columns.iter().cloned())
            .collect(),
    ];
    for (name, cells) in rows {
        grid.push(
            std::iter::once(name.clone())
                .chain(cells.iter().map(cell))
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
