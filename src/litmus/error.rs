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
    /// While parsing, an error is little more than a position: the parsers try many
    /// alternatives and drop most failures, so the column, length and message are spelled
    /// out by [`ParseError::resolve`] only for the one that reaches the user.
    pending: Option<Pending>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    /// Where the parsed fragment ends (a table cell ends before the source does).
    end: usize,
    wanted: Wanted,
}

/// What a failed parser wanted, for its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// The message is given.
    Given,
    /// `unexpected X`.
    Nothing,
    /// `expected WHAT, found X`.
    Some(&'static str),
    /// ``expected `SYM`, found X``.
    Sym(&'static str),
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
            msg: msg.into(),
            ..ParseError::wanting(i, Wanted::Given)
        }
    }

    /// An error at a known position: 1-based `line` and `col`, byte `offset`.
    pub(crate) fn located(
        line: u32,
        col: u32,
        offset: usize,
        msg: impl Into<String>,
    ) -> ParseError {
        ParseError {
            line,
            col,
            msg: msg.into(),
            offset,
            len: 0,
            pending: None,
        }
    }

    /// An error at `i` whose message says what was wanted there.
    pub(crate) fn wanting(i: In, wanted: Wanted) -> ParseError {
        let offset = i.location_offset();
        ParseError {
            line: i.location_line(),
            col: 0,
            msg: String::new(),
            offset,
            len: 0,
            pending: Some(Pending {
                end: offset + i.fragment().len(),
                wanted,
            }),
        }
    }

    /// Spell out the column, length and message, from the source the parser was given.
    pub(crate) fn resolve(mut self, src: &str) -> ParseError {
        let Some(p) = self.pending.take() else {
            return self;
        };
        let before = src.get(..self.offset).unwrap_or("");
        let line_start = before.rfind('\n').map_or(0, |k| k + 1);
        self.col = before[line_start..].chars().count() as u32 + 1;
        let frag = src.get(self.offset..p.end).unwrap_or("");
        self.len = token_len(frag);
        match p.wanted {
            Wanted::Given => {}
            Wanted::Nothing => self.msg = format!("unexpected {}", found_in(frag)),
            Wanted::Some(what) => {
                self.msg = format!("expected {what}, found {}", found_in(frag));
            }
            Wanted::Sym(s) => self.msg = format!("expected `{s}`, found {}", found_in(frag)),
        }
        self
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
    found_in(i.fragment())
}

fn found_in(s: &str) -> String {
    match s.chars().next() {
        None => "end of file".into(),
        Some('\n') => "end of line".into(),
        Some(c) if c.is_control() => format!("byte {:#04x}", c as u32),
        Some(_) => format!("`{}`", &s[..token_len(s).max(1).min(s.len())]),
    }
}

impl<'a> nom::error::ParseError<In<'a>> for ParseError {
    fn from_error_kind(i: In<'a>, _kind: ErrorKind) -> Self {
        ParseError::wanting(i, Wanted::Nothing)
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

/// A recoverable failure at `i`, saying what was wanted there.
pub(crate) fn soft_want<T>(i: In, wanted: Wanted) -> PResult<T> {
    Err(nom::Err::Error(ParseError::wanting(i, wanted)))
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
        Err(nom::Err::Error(e)) if e.offset <= i.location_offset() => Err(nom::Err::Failure(
            ParseError::wanting(i, Wanted::Some(what)),
        )),
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
            pending: None,
        }),
    }
}
