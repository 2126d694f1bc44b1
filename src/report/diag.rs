//! Diagnostics in the one format editors jump to: `file:line:col: error: message`, then
//! the source line and a caret; `file: error: message` when there is no position.
//! Errors and warnings of every stage (litmus, cat and cfg files, the engine) print here.

use std::fmt;
use std::path::Path;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// A message about a file, at a 1-based line and column when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub file: String,
    pub at: Option<(u32, u32)>,
    pub msg: String,
}

impl Diagnostic {
    pub fn error(file: impl Into<String>, at: Option<(u32, u32)>, msg: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            file: file.into(),
            at: at.filter(|&(l, _)| l > 0),
            msg: msg.into(),
        }
    }

    pub fn warning(
        file: impl Into<String>,
        at: Option<(u32, u32)>,
        msg: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, at, msg)
        }
    }

    /// The first line with the source line and caret under it, `src` being the file's text.
    pub fn render(&self, src: &str) -> String {
        let mut out = self.to_string();
        if let Some((line, col)) = self.at {
            out.push_str(&snippet(src, line, col));
        }
        out
    }

    /// [`Diagnostic::render`] with the text read from the file itself (when it can be:
    /// without it the first line stands alone).
    pub fn render_file(&self) -> String {
        match self.at {
            Some(_) => {
                let bytes = std::fs::read(Path::new(&self.file)).unwrap_or_default();
                self.render(&String::from_utf8_lossy(&bytes))
            }
            None => self.to_string(),
        }
    }
}

/// The first line alone: `file:line:col: error: message`.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.at {
            Some((line, col)) => write!(
                f,
                "{}:{line}:{col}: {}: {}",
                self.file, self.severity, self.msg
            ),
            None => write!(f, "{}: {}: {}", self.file, self.severity, self.msg),
        }
    }
}

/// Render an error at `line:col` of `src` (1-based).
pub fn render(file: &str, src: &str, line: u32, col: u32, msg: &str) -> String {
    Diagnostic::error(file, Some((line, col)), msg).render(src)
}

/// Line `line` of `src` with a caret under column `col`, or nothing when there is no
/// such line.
fn snippet(src: &str, line: u32, col: u32) -> String {
    let Some(text) = src.lines().nth(line.saturating_sub(1) as usize) else {
        return String::new();
    };
    let (text, at) = clip(&text.replace('\t', " "), col.saturating_sub(1) as usize);
    let lno = line.to_string();
    let pad = " ".repeat(lno.len());
    let caret = " ".repeat(at);
    format!("\n {pad} |\n {lno} | {text}\n {pad} | {caret}^")
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
    let col = col.min(chars.len());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn located_errors_put_the_position_first_and_show_the_line() {
        let d = Diagnostic::error("t.litmus", Some((2, 3)), "expected `;`");
        assert_eq!(
            d.render("one\nabcdef\n"),
            "t.litmus:2:3: error: expected `;`\n   |\n 2 | abcdef\n   |   ^"
        );
        let w = Diagnostic::warning("t.litmus", None, "no tests");
        assert_eq!(w.render(""), "t.litmus: warning: no tests");
        // Line 0 is no position (a file that could not be read).
        assert_eq!(
            Diagnostic::error("m.cat", Some((0, 0)), "gone").to_string(),
            "m.cat: error: gone"
        );
    }

    #[test]
    fn long_lines_are_clipped_around_the_caret() {
        let line = "x".repeat(300);
        let (text, at) = clip(&line, 150);
        assert!(text.starts_with("...") && text.ends_with("..."));
        assert_eq!(at, 53);
    }
}
