//! Parse errors: the public [`ParseError`] and the nom error type the parsers thread through.

use nom::error::ErrorKind;
use nom_locate::LocatedSpan;
use std::fmt;

/// Parser input: the source text with its position.
pub(crate) type In<'a> = LocatedSpan<&'a str>;

/// A parse error with its 1-based position and the byte range of the offending text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub msg: String,
    /// Byte offset of the offending text in the source.
    pub offset: usize,
    /// Byte length of the offending text (at least 0; 0 means "at this point").
    pub len: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.msg)
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    pub(crate) fn at(i: In, msg: impl Into<String>) -> ParseError {
        ParseError {
            line: i.location_line(),
            col: i.get_utf8_column() as u32,
            msg: msg.into(),
            offset: i.location_offset(),
            len: token_len(i.fragment()),
        }
    }

    /// A miette diagnostic pointing at the offending text, e.g. for the CLI:
    /// `eprintln!("{:?}", err.report("t.litmus", &src))`.
    pub fn report(&self, file_name: &str, src: &str) -> miette::Report {
        let offset = self.offset.min(src.len());
        let len = self.len.min(src.len() - offset);
        let diag = miette::MietteDiagnostic::new(format!(
            "{}:{}:{}: {}",
            file_name, self.line, self.col, self.msg
        ))
        .with_label(miette::LabeledSpan::at(
            offset..offset + len,
            self.msg.clone(),
        ));
        miette::Report::new(diag)
            .with_source_code(miette::NamedSource::new(file_name, src.to_string()))
    }
}

/// Length of the "token" at the start of `s`, to underline in diagnostics.
fn token_len(s: &str) -> usize {
    let word: usize = s
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
        .map(char::len_utf8)
        .sum();
    if word > 0 {
        word
    } else {
        s.chars()
            .next()
            .map_or(0, |c| if c == '\n' { 0 } else { c.len_utf8() })
    }
}

/// A short description of what the parser found at `i`, for "expected X, found Y" messages.
pub(crate) fn found(i: In) -> String {
    let s = i.fragment();
    match s.chars().next() {
        None => "end of file".into(),
        Some('\n') => "end of line".into(),
        Some(c) if c.is_control() => format!("byte {:#04x}", c as u32),
        Some(_) => format!("`{}`", &s[..token_len(s).max(1).min(s.len())]),
    }
}

impl<'a> nom::error::ParseError<In<'a>> for ParseError {
    fn from_error_kind(i: In<'a>, _kind: ErrorKind) -> Self {
        ParseError::at(i, format!("unexpected {}", found(i)))
    }
    fn append(_: In<'a>, _: ErrorKind, other: Self) -> Self {
        other
    }
    /// Of two failed alternatives, report the one that got further.
    fn or(self, other: Self) -> Self {
        if other.offset >= self.offset {
            other
        } else {
            self
        }
    }
}

pub(crate) type PResult<'a, T> = nom::IResult<In<'a>, T, ParseError>;

/// A recoverable failure at `i` (another alternative may still match).
pub(crate) fn soft<T>(i: In, msg: impl Into<String>) -> PResult<T> {
    Err(nom::Err::Error(ParseError::at(i, msg)))
}

/// An unrecoverable failure at `i`.
pub(crate) fn hard<T>(i: In, msg: impl Into<String>) -> PResult<T> {
    Err(nom::Err::Failure(ParseError::at(i, msg)))
}

/// Turn a recoverable failure into an unrecoverable one, with an "expected ..." message.
pub(crate) fn expect<'a, T>(
    what: &'static str,
    mut p: impl FnMut(In<'a>) -> PResult<'a, T>,
) -> impl FnMut(In<'a>) -> PResult<'a, T> {
    move |i| match p(i) {
        Err(nom::Err::Error(e)) if e.offset <= i.location_offset() => {
            hard(i, format!("expected {what}, found {}", found(i)))
        }
        Err(nom::Err::Error(e)) => Err(nom::Err::Failure(e)),
        r => r,
    }
}

/// Unwrap a nom result into the public error.
pub(crate) fn finish<T>(r: PResult<T>) -> Result<(In, T), ParseError> {
    match r {
        Ok(v) => Ok(v),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(e),
        Err(nom::Err::Incomplete(_)) => Err(ParseError {
            line: 0,
            col: 0,
            msg: "unexpected end of input".into(),
            offset: 0,
            len: 0,
        }),
    }
}
