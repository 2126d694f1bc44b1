//! Tests × models: which of each test's outcomes every model allows.

use crate::outcome::Judgement;

/// A cell: whether the condition's outcome is reachable, and how many final states exist.
fn cell(j: Option<&Judgement>) -> String {
    match j {
        None => "error".into(),
        Some(j) => {
            let verdict = if j.sat > 0 { "allowed" } else { "forbidden" };
            format!("{verdict} ({} states)", j.states.len())
        }
    }
}

pub fn render(columns: &[String], rows: &[(String, Vec<Option<&Judgement>>)]) -> String {
    let mut grid: Vec<Vec<String>> = vec![
        std::iter::once("test".to_string())
            .chain(columns.iter().cloned())
            .collect(),
    ];
    for (name, cells) in rows {
        grid.push(
            std::iter::once(name.clone())
                .chain(cells.iter().map(|c| cell(*c)))
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
