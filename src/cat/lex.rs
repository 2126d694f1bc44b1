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

#[derive(Clone, Copy, Debug)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    pub pos: Pos,
    /// Byte offsets of the token in the source.
    pub start: usize,
    pub end: usize,
}

/// The keyword spelled `s`, if it is one: only the keywords with `s`'s first letter are
/// compared (the lexer asks this of every name).
fn keyword(s: &str) -> Option<&'static str> {
    let candidates: &[&'static str] = match s.as_bytes()[0] {
        b'a' => &["and", "acyclic", "as", "assert"],
        b'b' => &["begin"],
        b'c' => &["call", "catdep"],
        b'd' => &["debug", "do", "default"],
        b'e' => &["empty", "end", "enum", "else"],
        b'f' => &["fun", "flag", "forall", "from"],
        b'i' => &["in", "include", "if", "instructions", "irreflexive"],
        b'l' => &["let"],
        b'm' => &["match"],
        b'n' => &["not"],
        b'p' => &["procedure"],
        b'r' => &["rec"],
        b's' => &["show", "subset"],
        b't' => &["try", "then"],
        b'u' => &["unshow", "undefined_unless"],
        b'v' => &["variant"],
        b'w' => &["when", "with"],
        _ => return None,
    };
    candidates.iter().find(|k| **k == s).copied()
}

/// The operator at the start of `b`, longest first.
fn symbol(b: &[u8]) -> Option<&'static str> {
    Some(match b {
        [b'|', b'|', ..] => "||",
        [b'&', b'&', ..] => "&&",
        [b'+', b'+', ..] => "++",
        [b'-', b'1', ..] => "-1",
        [b'-', b'>', ..] => "->",
        [b'(', ..] => "(",
        [b')', ..] => ")",
        [b'{', ..] => "{",
        [b'}', ..] => "}",
        [b'[', ..] => "[",
        [b']', ..] => "]",
        [b'_', ..] => "_",
        [b'0', ..] => "0",
        [b'|', ..] => "|",
        [b'&', ..] => "&",
        [b'*', ..] => "*",
        [b'~', ..] => "~",
        [b'+', ..] => "+",
        [b'^', ..] => "^",
        [b'\\', ..] => "\\",
        [b'?', ..] => "?",
        [b'=', ..] => "=",
        [b';', ..] => ";",
        [b',', ..] => ",",
        _ => return None,
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
            // Comments nest. Jump from one byte that matters inside them to the next.
            let mut depth = 0usize;
            loop {
                match b[i..]
                    .iter()
                    .position(|&d| matches!(d, b'(' | b'*' | b'\n'))
                {
                    Some(k) => i += k,
                    None => return Err((pos, "unterminated comment".into())),
                }
                match (b[i], b.get(i + 1)) {
                    (b'(', Some(b'*')) => {
                        depth += 1;
                        i += 2;
                    }
                    (b'*', Some(b')')) => {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    }
                    (b'\n', _) => {
                        i += 1;
                        line += 1;
                        bol = i;
                    }
                    _ => i += 1,
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
