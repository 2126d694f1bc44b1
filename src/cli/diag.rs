//! Diagnostics for the terminal (see [`litmus::report::diag`]): litmus files that do not
//! load, and models that do not.

use litmus::litmus::{self as lit, ast::Test};
use litmus::model::LoadError;
use litmus::report::diag::Diagnostic;
use std::path::Path;

/// Read and parse a litmus file; the error is ready to print.
pub fn load_test(path: &Path) -> Result<Test, String> {
    lit::parse_file(path).map_err(|e| match &e {
        lit::LoadError::Parse { src, .. } => load_error(path, &e).render(src),
        lit::LoadError::Source(_) => load_error(path, &e).to_string(),
    })
}

/// [`load_test`] for a batch, whose records keep the error to render later.
pub fn load_record(path: &Path) -> Result<Test, Diagnostic> {
    lit::parse_file(path).map_err(|e| load_error(path, &e))
}

fn load_error(path: &Path, e: &lit::LoadError) -> Diagnostic {
    match e {
        lit::LoadError::Parse { path, err, .. } => Diagnostic::error(
            path.display().to_string(),
            Some((err.line, err.col)),
            err.msg.clone(),
        ),
        lit::LoadError::Source(s) => source_error(path, s),
    }
}

/// A file that cannot be read as text, at its first bad byte when it is not UTF-8.
pub fn source_error(path: &Path, e: &litmus::source::SourceError) -> Diagnostic {
    use litmus::source::SourceError as S;
    let file = path.display().to_string();
    match e {
        S::Io(_, io) => Diagnostic::error(file, None, io.to_string()),
        S::NotAFile(_, what) => {
            Diagnostic::error(file, None, format!("is {what}, not a regular file"))
        }
        S::TooLarge(..) => {
            let full = e.to_string();
            let msg = full.strip_prefix(&format!("{file}: ")).unwrap_or(&full);
            Diagnostic::error(file, None, msg)
        }
        S::NotUtf8 {
            line, col, byte, ..
        } => Diagnostic::error(
            file,
            Some((*line, *col)),
            format!("not UTF-8 text (byte 0x{byte:02x})"),
        ),
    }
}

/// A model that cannot be loaded, ready to print: at the cat or cfg line at fault (a
/// missing file at the `.cfg` line that names it), with that line shown.
pub fn model_error(e: &LoadError) -> String {
    match e {
        LoadError::Cat(c) if c.fatal.is_none() => {
            Diagnostic::error(&c.file, Some((c.line, c.col)), &c.msg).render_file()
        }
        LoadError::NotFound(what, name, Some(at)) => Diagnostic::error(
            &at.file,
            Some((at.line, at.col)),
            format!("cannot find {what} {name}"),
        )
        .render_file(),
        e => format!("error: {e}"),
    }
}

/// A warning about the test in `file`, ready to print: at its place, or at the last place
/// the file writes its token (the condition comes last).
pub fn warning(file: &Path, w: &litmus::judge::lint::Warning) -> String {
    let src = std::fs::read(file)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let at =
        w.at.or_else(|| w.token.as_deref().and_then(|t| last_place(&src, t)));
    Diagnostic::warning(file.display().to_string(), at, &w.msg).render(&src)
}

/// The 1-based line and column of the last `token` in `src` that is not part of a longer
/// name (`1:r2`, not `1:r22`).
fn last_place(src: &str, token: &str) -> Option<(u32, u32)> {
    let name = |c: char| c.is_alphanumeric() || c == '_';
    let k = src.rmatch_indices(token).map(|(k, _)| k).find(|&k| {
        let before = src[..k].chars().next_back();
        let after = src[k + token.len()..].chars().next();
        !before.is_some_and(name) && !after.is_some_and(name)
    })?;
    let line = src[..k].matches('\n').count() as u32 + 1;
    let start = src[..k].rfind('\n').map_or(0, |n| n + 1);
    Some((line, src[start..k].chars().count() as u32 + 1))
}
