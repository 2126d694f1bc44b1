//! Tokens of the cat language, as herd's model lexer cuts them.

use super::ast::Pos;

/// A token borrows its text from the source, so lexing allocates only the token list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok<'a> {
    Name(&'a str),
    Tag(&'a str),
    Str(&'a str),
    /// A keyword (`let`, `acyclic`, ...).
    Kw(&'static str),
    /// Punctuation and operators: `( ) { } [ ] _ 0 | || & && * ~ + ++ ^ -1 \ ? = ; , ->`.
    Sym(&'static str),
    Eof,
}

const KEYWORDS: &[&str] = &[
    "let",
    "rec",
    "and",
    "when",
    "acyclic",
    "irreflexive",
    "show",
    "unshow",
    "empty",
    "subset",
    "as",
    "fun",
    "in",
    "undefined_unless",
    "flag",
    "assert",
    "include",
    "variant",
    "begin",
    "end",
    "procedure",
    "call",
    "enum",
    "debug",
    "match",
    "with",
    "forall",
    "from",
    "do",
    "try",
    "if",
    "then",
    "else",
    "catdep",
    "instructions",
    "default",
    "not",
];

/// Longest operators first, so `||` wins over `|`.
const SYMBOLS: &[&str] = &[
    "||", "&&", "++", "-1", "->", "(", ")", "{", "}", "[", "]", "_", "0", "|", "&", "*", "~", "+",
    "^", "\\", "?", "=", ";", ",",
];

#[derive(Clone, Copy, Debug)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    pub pos: Pos,
    /// Byte offsets of the token in the source.
    pub start: usize,
    pub end: usize,
}

/// The keyword spelled `s`, if it is one.
fn keyword(s: &str) -> Option<&'static str> {
    // Every keyword starts with a lower-case letter; most names do not.
    if !s.as_bytes()[0].is_ascii_lowercase() {
        return None;
    }
    let s = s.as_bytes();
    KEYWORDS
        .iter()
        .find(|k| k.len() == s.len() && k.bytes().zip(s).all(|(x, &y)| x == y))
        .copied()
}

/// The operator at the start of `b`, longest first.
fn symbol(b: &[u8]) -> Option<&'static str> {
    let two = match b {
        [b'|', b'|', ..] => Some("||"),
        [b'&', b'&', ..] => Some("&&"),
        [b'+', b'+', ..] => Some("++"),
        [b'-', b'1', ..] => Some("-1"),
        [b'-', b'>', ..] => Some("->"),
        _ => None,
    };
    two.or_else(|| {
        let c = *b.first()?;
        SYMBOLS
            .iter()
            .find(|s| s.len() == 1 && s.as_bytes()[0] == c)
            .copied()
    })
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic()
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-'
}

/// Cuts `src` into tokens; an error is `(pos, message)`.
pub fn lex(src: &str, file: u32) -> Result<Vec<Token<'_>>, (Pos, String)> {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(src.len() / 4);
    let (mut i, mut line, mut bol) = (0usize, 1u32, 0usize);
    let pos_at = |i: usize, line: u32, bol: usize| Pos {
        file,
        line,
        col: (i - bol + 1) as u32,
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            i += 1;
            line += 1;
            bol = i;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let pos = pos_at(i, line, bol);
        if c == b'#' || (c == b'/' && b.get(i + 1) == Some(&b'/')) {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'(' && b.get(i + 1) == Some(&b'*') {
            // Comments nest.
            let mut depth = 0;
            loop {
                if i >= b.len() {
                    return Err((pos, "unterminated comment".into()));
                }
                if b[i] == b'(' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b')') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == b'\n' {
                        line += 1;
                        bol = i + 1;
                    }
                    i += 1;
                }
            }
            continue;
        }
        let start = i;
        let tok = if c == b'"' {
            let j = src[i + 1..]
                .find('"')
                .ok_or((pos, "unterminated string".to_string()))?;
            let s = &src[i + 1..i + 1 + j];
            line += s.matches('\n').count() as u32;
            if let Some(k) = s.rfind('\n') {
                bol = i + 1 + k + 1;
            }
            i += j + 2;
            Tok::Str(s)
        } else if c == b'\''
            || is_name_start(c)
            || (c == b'_' && b.get(i + 1).is_some_and(|&d| is_name_start(d)))
        {
            let tag = c == b'\'';
            if tag {
                i += 1;
            }
            let s0 = i;
            if b.get(i) == Some(&b'_') {
                i += 1;
            }
            if !b.get(i).is_some_and(|&d| is_name_start(d)) {
                return Err((pos, "name expected after '".into()));
            }
            while i < b.len() && is_name_char(b[i]) {
                i += 1;
            }
            if b.get(i) == Some(&b'\'') {
                i += 1;
            }
            let s = &src[s0..i];
            if tag {
                Tok::Tag(s)
            } else if let Some(k) = keyword(s) {
                Tok::Kw(k)
            } else {
                Tok::Name(s)
            }
        } else if let Some(s) = symbol(&b[i..]) {
            i += s.len();
            Tok::Sym(s)
        } else {
            let ch = src[i..].chars().next().unwrap_or('?');
            return Err((pos, format!("unexpected character '{ch}'")));
        };
        out.push(Token {
            tok,
            pos,
            start,
            end: i,
        });
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: pos_at(i, line, bol),
        start: i,
        end: i,
    });
    Ok(out)
}
