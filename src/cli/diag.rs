//! Diagnostics for the terminal: `file:line:col: message`, the source line, a caret.

use litmus::litmus::{self as lit, ast::Test};
use std::path::Path;

/// Render an error at `line:col` of `src` (1-based).
pub fn render(file: &str, src: &str, line: u32, col: u32, msg: &str) -> String {
    let mut out = format!("error: {file}:{line}:{col}: {msg}");
    if let Some(text) = src.lines().nth(line.saturating_sub(1) as usize) {
        let (text, at) = clip(&text.replace('\t', " "), col.saturating_sub(1) as usize);
        let lno = line.to_string();
        let pad = " ".repeat(lno.len());
        let caret = " ".repeat(at);
        out.push_str(&format!("\n {pad} |\n {lno} | {text}\n {pad} | {caret}^"));
    }
    out
}

/// Most characters of a source line shown around the error.
const SNIPPET: usize = 100;

/// `line` cut to at most [`SNIPPET`] characters around character `col`, with `...` where
/// it was cut, and where `col` falls in what is left.
fn clip(line: &str, col: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= SNIPPET {
        return (line.to_string(), col);
    }
    let start = col.saturating_sub(SNIPPET / 2).min(chars.len() - SNIPPET);
    let end = start + SNIPPET;
    let mut text: String = chars[start..end].iter().collect();
    let mut at = col - start;
    if start > 0 {
        text.insert_str(0, "...");
        at += 3;
    }
    if end < chars.len() {
        text.push_str("...");
    }
    (text, at)
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
        lit::LoadError::Source(_) => format!("error: {e}"),
    })
}
