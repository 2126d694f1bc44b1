//! Diagnostics for the terminal: `file:line:col: message`, the source line, a caret.

use litmus::litmus::{self as lit, ast::Test};
use std::path::Path;

/// Render an error at `line:col` of `src` (1-based).
pub fn render(file: &str, src: &str, line: u32, col: u32, msg: &str) -> String {
    let mut out = format!("error: {file}:{line}:{col}: {msg}");
    if let Some(text) = src.lines().nth(line.saturating_sub(1) as usize) {
        let text = text.replace('\t', " ");
        let lno = line.to_string();
        let pad = " ".repeat(lno.len());
        let caret = " ".repeat(col.saturating_sub(1) as usize);
        out.push_str(&format!("\n {pad} |\n {lno} | {text}\n {pad} | {caret}^"));
    }
    out
}

/// Read and parse a litmus file; the error is ready to print.
pub fn load_test(path: &Path) -> Result<Test, String> {
    lit::parse_file(path).map_err(|e| match &e {
        lit::LoadError::Parse { path, src, err } => render(
            &path.display().to_string(),
            src,
            err.line,
            err.col,
            &err.msg,
        ),
        lit::LoadError::Io { .. } => format!("error: {e}"),
    })
}
