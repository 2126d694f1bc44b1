//! Stage 1: litmus-test parsing (herd's format, every dialect) and canonical printing.
//!
//! A test has four sections, each with its own parser: the header
//! ([`common::header`]), the initial state ([`common::init_block`]), the code
//! (C functions in [`c`], or the `P0 | P1 ;` columns of [`asm`]), and the final
//! `locations` / `filter` / condition block ([`common::constraints`]).

mod asm;
pub mod ast;
mod c;
mod common;
pub mod cpp;
mod error;
pub mod expect;
pub mod hash;
mod lex;
mod print;

pub use c::MAX_EXPR_DEPTH;
pub use error::ParseError;
pub use print::{expr as print_expr, instr as print_instr};

use error::{In, finish};
use std::path::{Path, PathBuf};

/// Parse one litmus test.
pub fn parse(src: &str) -> Result<ast::Test, ParseError> {
    let Some(x) = expanded(src)? else {
        return parse_spans(src).map_err(|e| e.resolve(src));
    };
    let mut t = parse_spans(&x.text).map_err(|e| {
        let e = e.resolve(&x.text);
        let (col, msg) = x.relocate(e.line, e.col, &e.msg);
        cpp::error_at(src, e.line, col, msg)
    })?;
    t.macros = ast::MacroMap(Some(std::sync::Arc::new(x)));
    Ok(t)
}

/// A C test's text with its preprocessor directives applied ([`cpp`]), when it has any.
pub fn expanded(src: &str) -> Result<Option<cpp::Expanded>, ParseError> {
    let c = src
        .trim_start()
        .strip_prefix('C')
        .is_some_and(|r| r.starts_with(char::is_whitespace));
    if c { cpp::preprocess(src) } else { Ok(None) }
}

/// Most brackets open at once: the parsers recurse on each, and no test needs more.
pub const MAX_NESTING: usize = 256;

/// The first bracket that opens more than [`MAX_NESTING`] at once, as an error.
fn too_deep(src: &str) -> Option<ParseError> {
    let mut depth = 0usize;
    // `k` counts characters, as nom's `take` does.
    for (k, c) in src.chars().enumerate() {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    let i = In::new(src);
                    let at = nom::bytes::complete::take::<_, _, error::ParseError>(k)(i)
                        .map(|(r, _)| r)
                        .unwrap_or(i);
                    return Some(ParseError::at(
                        at,
                        format!("more than {MAX_NESTING} brackets open at once"),
                    ));
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

fn parse_spans(src: &str) -> Result<ast::Test, ParseError> {
    if let Some(e) = too_deep(src) {
        return Err(e);
    }
    let i = In::new(src);
    let (i, h) = finish(common::header(i))?;
    let (i, init) = finish(common::init_block(i))?;
    let (i, functions, threads) = if h.arch == ast::Arch::C {
        let (i, (fs, ts)) = finish(c::program(i))?;
        (i, fs, ts.into_iter().map(ast::Thread::C).collect())
    } else {
        let (i, ts) = finish(asm::program(i, h.arch))?;
        let ts = ts.into_iter().map(ast::Thread::Asm).collect::<Vec<_>>();
        (i, Vec::new(), ts)
    };
    if threads.is_empty() {
        return Err(ParseError::at(i, "expected at least one thread"));
    }
    let (_, (locations, filter, condition)) = finish(common::constraints(i))?;
    Ok(ast::Test {
        arch: h.arch,
        name: h.name,
        doc: h.doc,
        info: h.info,
        comments: h.comments,
        init,
        functions,
        threads,
        locations,
        filter,
        condition,
        macros: ast::MacroMap::default(),
    })
}

/// Whether herd's X86_64 front end reads `word` (lower case) as a mnemonic, so that it
/// cannot name a location there.
pub fn x86_64_mnemonic(word: &str) -> bool {
    asm::x86_64_mnemonic(word)
}

/// Parse one instruction of `arch` from its text (`NOP`, `B .+8`).
pub fn parse_instr(text: &str, arch: ast::Arch) -> Result<ast::Instr, ParseError> {
    asm::instr_text(text, arch)
}

/// Print a test back in canonical herd syntax; [`parse`] reads it back to an equal AST.
pub fn print(t: &ast::Test) -> String {
    print::print(t)
}

/// Why a test file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{0}")]
    Source(#[from] crate::source::SourceError),
    #[error("{}:{err}", path.display())]
    Parse {
        path: PathBuf,
        src: String,
        err: Box<ParseError>,
    },
}

impl LoadError {
    /// A miette diagnostic (with the source excerpt for parse errors).
    pub fn report(&self) -> miette::Report {
        match self {
            LoadError::Parse { path, src, err } => err.report(&path.display().to_string(), src),
            e => miette::miette!("{e}"),
        }
    }
}

/// Read a test's source. A file whose whole content is a relative path to another
/// `.litmus` file (a git symbolic link checked out as text) is followed.
pub fn read_source(path: &Path) -> Result<String, LoadError> {
    let src = crate::source::read_text(path)?;
    let t = src.trim();
    if t.ends_with(".litmus") && !t.contains(char::is_whitespace) && !t.contains('{') {
        let target = path.parent().unwrap_or(Path::new(".")).join(t);
        if target.is_file() {
            return Ok(crate::source::read_text(&target)?);
        }
    }
    Ok(src)
}

/// Read and parse a test file.
pub fn parse_file(path: &Path) -> Result<ast::Test, LoadError> {
    let src = read_source(path)?;
    parse(&src).map_err(|err| LoadError::Parse {
        path: path.to_path_buf(),
        src,
        err: Box::new(err),
    })
}

#[cfg(test)]
mod tests;
