//! Lexical helpers shared by every section parser: blanks and comments, names, numbers.

use super::ast::Span;
use super::error::{In, PResult, Wanted, hard, soft, soft_want};
use nom::bytes::complete::{tag, take, take_while, take_while1};
use nom::character::complete::{char, digit1, hex_digit1};
use nom::combinator::{opt, recognize};
use nom::sequence::pair;

/// Which comment forms count as blanks in a section.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Comments {
    /// `(* ... *)`, nested, as in herd's header, init and condition sections and asm code.
    Ml,
    /// `//` and `/* */`, as in C code, where `(*` is ordinary syntax.
    C,
    /// Both.
    All,
}

/// The position of `i` as an AST span.
pub(crate) fn span(i: In) -> Span {
    Span {
        line: i.location_line(),
        col: i.get_utf8_column() as u32,
    }
}

/// Skip blanks, newlines and comments; an unterminated comment is an error.
pub(crate) fn ws_with(c: Comments) -> impl Fn(In) -> PResult<()> {
    move |mut i| loop {
        let (r, _) = take_while(|ch: char| ch.is_whitespace())(i)?;
        i = r;
        let s = *i.fragment();
        if c != Comments::C && s.starts_with("(*") {
            i = ml_comment(i)?.0;
        } else if c != Comments::Ml && s.starts_with("//") {
            let n = s.find('\n').unwrap_or(s.len());
            i = take(n)(i)?.0;
        } else if c != Comments::Ml && s.starts_with("/*") {
            match s[2..].find("*/") {
                Some(n) => i = take(n + 4)(i)?.0,
                None => return hard(i, "unterminated `/*` comment"),
            }
        } else {
            return Ok((i, ()));
        }
    }
}

/// Blanks and `(* *)` comments.
pub(crate) fn ws(i: In) -> PResult<()> {
    ws_with(Comments::Ml)(i)
}

/// Blanks, newlines and `(* *)` comments, each comment's text (with its delimiters)
/// pushed onto `kept`.
pub(crate) fn ws_keeping<'a>(kept: &'a mut Vec<String>) -> impl FnMut(In) -> PResult<()> + 'a {
    move |mut i| loop {
        let (r, _) = take_while(|ch: char| ch.is_whitespace())(i)?;
        i = r;
        if !i.fragment().starts_with("(*") {
            return Ok((i, ()));
        }
        let (r, _) = ml_comment(i)?;
        let len = i.fragment().len() - r.fragment().len();
        kept.push(i.fragment()[..len].to_string());
        i = r;
    }
}

/// A nested `(* ... *)` comment.
fn ml_comment(start: In) -> PResult<()> {
    let s = *start.fragment();
    let (mut depth, mut k) = (0usize, 0usize);
    let b = s.as_bytes();
    while k < b.len() {
        if b[k..].starts_with(b"(*") {
            depth += 1;
            k += 2;
        } else if b[k..].starts_with(b"*)") {
            depth -= 1;
            k += 2;
            if depth == 0 {
                return Ok((take(k)(start)?.0, ()));
            }
        } else {
            k += 1;
        }
    }
    hard(start, "unterminated `(*` comment")
}

/// Skip blanks (not newlines) only.
pub(crate) fn blanks(i: In) -> PResult<()> {
    let (i, _) = take_while(|c| c == ' ' || c == '\t' || c == '\r')(i)?;
    Ok((i, ()))
}

pub(crate) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

pub(crate) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// A C-like identifier.
pub(crate) fn ident(i: In<'_>) -> PResult<'_, &str> {
    let (r, s) = recognize(pair(take_while1(is_ident_start), take_while(is_ident_char)))(i)
        .or_else(|_: nom::Err<super::error::ParseError>| soft_want(i, Wanted::Some("a name")))?;
    Ok((r, *s.fragment()))
}

/// A specific keyword, not followed by an identifier character.
pub(crate) fn keyword<'a>(kw: &'static str) -> impl Fn(In<'a>) -> PResult<'a, ()> {
    move |i| {
        let (r, _) = tag(kw)(i)?;
        if r.fragment().starts_with(is_ident_char) {
            return soft(i, format!("expected `{kw}`"));
        }
        Ok((r, ()))
    }
}

/// A symbol such as `=` or `/\`.
pub(crate) fn sym<'a>(s: &'static str) -> impl Fn(In<'a>) -> PResult<'a, ()> {
    move |i| {
        let (r, _) = tag(s)(i)
            .or_else(|_: nom::Err<super::error::ParseError>| soft_want(i, Wanted::Sym(s)))?;
        Ok((r, ()))
    }
}

/// An integer: decimal or `0x` hexadecimal, with an optional sign.
pub(crate) fn int(i: In) -> PResult<i64> {
    let (r, neg) = opt(char('-'))(i)?;
    let (r, v) = if r.fragment().starts_with("0x") || r.fragment().starts_with("0X") {
        let (r, h) = nom::sequence::preceded(take(2usize), hex_digit1)(r)?;
        (
            r,
            u64::from_str_radix(h.fragment(), 16).map(|v| v as i64).ok(),
        )
    } else {
        let (r, d) = digit1(r)?;
        (r, d.fragment().parse::<i64>().ok())
    };
    if r.fragment().starts_with(is_ident_char) {
        return soft_want(i, Wanted::Some("a number"));
    }
    match v {
        Some(v) => Ok((r, if neg.is_some() { v.wrapping_neg() } else { v })),
        None => hard(
            i,
            format!(
                "number too large for a 64-bit integer: `{}`",
                &i.fragment()[..i.fragment().len() - r.fragment().len()]
            ),
        ),
    }
}
