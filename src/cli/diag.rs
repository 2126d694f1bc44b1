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
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("error: {name}: {e}"))?;
    let src = String::from_utf8_lossy(&bytes);
    lit::parse(&src).map_err(|e| render(&name, &src, e.line, e.col, &e.msg))
}
