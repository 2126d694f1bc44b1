//! The preprocessor subset kernel code needs before its threads: object- and function-like
//! `#define` (continued with `\`, `#` and `##` in bodies), `#undef`, and `#if`, `#ifdef`,
//! `#ifndef`, `#elif`, `#else`, `#endif` on defined names and integer expressions.
//!
//! It runs on a C test's text before parsing and keeps the text's lines where they are:
//! a directive becomes blank lines, an inactive line a blank one, and a macro use is
//! replaced by its expansion on the use's first line, padded so that the code after the
//! use keeps its line and, where the expansion is no longer than the use, its column.
//! Every expansion is remembered ([`Expanded::locate`]), so an error inside one is
//! reported at the use, naming the macro and the line of its definition.
//!
//! Expansion stops at the test's final condition (`exists`, `forall`, `~`, `locations`,
//! `filter` outside brackets): herd's condition names locations, never macros.

use super::error::ParseError;
use std::collections::HashMap;

/// A macro definition.
#[derive(Clone, Debug)]
struct Def {
    /// Formals of a function-like macro; `None` for an object-like one.
    params: Option<Vec<String>>,
    body: Vec<Tok>,
    /// Line of the `#define`.
    line: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    /// Numbers, literals, punctuation.
    Other,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    text: String,
    /// Whitespace before it (kept so that `- >` never becomes `->`).
    space: bool,
}

impl Tok {
    fn is(&self, s: &str) -> bool {
        self.text == s
    }
}

/// One use of a macro in the thread code: where its expansion lies in the expanded text,
/// and where the use lies in the source.
#[derive(Clone, Debug)]
struct Use {
    line: u32,
    /// 1-based columns of the expansion in the expanded line: `[from, to)`.
    from: u32,
    to: u32,
    /// 1-based column of the use in the source line.
    col: u32,
    /// Columns the expanded line is shifted by after this use.
    shift: i64,
    name: String,
    def_line: u32,
}

/// A test's text with its macros expanded.
#[derive(Debug)]
pub struct Expanded {
    pub text: String,
    uses: Vec<Use>,
}

impl Expanded {
    /// The source position of a position of the expanded text, with the macro whose
    /// expansion holds it, if any: `(col, Some((name, definition line)))`.
    pub fn locate(&self, line: u32, col: u32) -> (u32, Option<(&str, u32)>) {
        let mut shift = 0;
        for u in self.uses.iter().filter(|u| u.line == line) {
            if col >= u.from && col < u.to {
                return (u.col, Some((&u.name, u.def_line)));
            }
            if col >= u.to {
                shift = u.shift;
            }
        }
        ((col as i64 - shift).max(1) as u32, None)
    }

    /// A message about a position of the expanded text, said of the source.
    pub fn relocate(&self, line: u32, col: u32, msg: &str) -> (u32, String) {
        match self.locate(line, col) {
            (c, Some((name, def))) => (
                c,
                format!("{msg} (in the expansion of macro `{name}`, defined at line {def})"),
            ),
            (c, None) => (c, msg.to_string()),
        }
    }
}

/// Deeper than this, expansion is taken to loop.
const MAX_DEPTH: usize = 64;

/// Most tokens one use may expand to (macros that each use the next several times grow
/// exponentially).
const MAX_TOKENS: usize = 100_000;

/// Expand `src` when it has a directive (a line starting with `#`); `None` when it has
/// none, the text then being read as it is.
pub fn preprocess(src: &str) -> Result<Option<Expanded>, ParseError> {
    let lines: Vec<&str> = src.split('\n').collect();
    let Some(first) = first_directive(&lines) else {
        return Ok(None);
    };
    let mut p = Pre {
        src,
        defs: HashMap::new(),
        conds: Vec::new(),
        out: String::new(),
        uses: Vec::new(),
        stopped: false,
        depth: 0,
    };
    for l in &lines[..first] {
        p.out.push_str(l);
        p.out.push('\n');
    }
    p.run(&lines, first)?;
    p.out.pop();
    Ok(Some(Expanded {
        text: p.out,
        uses: p.uses,
    }))
}

/// The first line starting with `#` outside a comment (a header's `(* ... *)` may
/// hold such lines).
fn first_directive(lines: &[&str]) -> Option<usize> {
    let mut open: Option<&str> = None;
    for (k, l) in lines.iter().enumerate() {
        if open.is_none() && l.trim_start().starts_with('#') {
            return Some(k);
        }
        let mut rest = *l;
        while !rest.is_empty() {
            match open {
                Some(close) => match rest.find(close) {
                    Some(i) => {
                        rest = &rest[i + 2..];
                        open = None;
                    }
                    None => break,
                },
                None => {
                    let starts = [("(*", "*)"), ("/*", "*/")]
                        .iter()
                        .filter_map(|(o, c)| rest.find(o).map(|i| (i, *c)))
                        .min();
                    match (starts, rest.find("//")) {
                        (Some((i, _)), Some(j)) if j < i => break,
                        (Some((i, c)), _) => {
                            rest = &rest[i + 2..];
                            open = Some(c);
                        }
                        _ => break,
                    }
                }
            }
        }
    }
    None
}

/// An `#if` being read: whether a branch was taken, whether the current one is.
struct Cond {
    taken: bool,
    active: bool,
    seen_else: bool,
    line: u32,
}

struct Pre<'s> {
    src: &'s str,
    defs: HashMap<String, Def>,
    conds: Vec<Cond>,
    out: String,
    uses: Vec<Use>,
    /// The condition was reached: nothing more is expanded.
    stopped: bool,
    /// Brackets open in the code copied so far.
    depth: i64,
}

/// An error at (1-based) `line`, `col` of `src`.
pub(crate) fn error_at(src: &str, line: u32, col: u32, msg: impl Into<String>) -> ParseError {
    let start: usize = src
        .split('\n')
        .take(line.saturating_sub(1) as usize)
        .map(|l| l.len() + 1)
        .sum();
    let text = src.get(start..).unwrap_or("");
    let off: usize = text
        .chars()
        .take(col.saturating_sub(1) as usize)
        .map(char::len_utf8)
        .sum();
    ParseError::located(line, col, (start + off).min(src.len()), msg)
}

impl<'s> Pre<'s> {
    fn active(&self) -> bool {
        self.conds.iter().all(|c| c.active)
    }

    fn err(&self, line: u32, col: u32, msg: impl Into<String>) -> ParseError {
        error_at(self.src, line, col, msg)
    }

    fn run(&mut self, lines: &[&str], mut k: usize) -> Result<(), ParseError> {
        while k < lines.len() {
            let line = k as u32 + 1;
            if lines[k].trim_start().starts_with('#') && !self.stopped {
                // A logical line: physical lines joined at a trailing `\`.
                let mut text = String::new();
                let mut n = 0;
                loop {
                    let l = lines.get(k + n).copied().unwrap_or("");
                    n += 1;
                    match l.trim_end().strip_suffix('\\') {
                        Some(head) if k + n < lines.len() => {
                            text.push_str(head);
                            text.push(' ');
                        }
                        _ => {
                            text.push_str(l);
                            break;
                        }
                    }
                }
                self.directive(&text, line)?;
                self.out.push_str(&"\n".repeat(n));
                k += n;
                continue;
            }
            // A run of code lines up to the next directive.
            let end = (k..lines.len())
                .find(|&j| lines[j].trim_start().starts_with('#') && !self.stopped)
                .unwrap_or(lines.len());
            if self.active() {
                let chunk = lines[k..end].join("\n");
                self.code(&chunk, line)?;
                self.out.push('\n');
            } else {
                self.out.push_str(&"\n".repeat(end - k));
            }
            k = end;
        }
        if let Some(c) = self.conds.last() {
            return Err(self.err(c.line, 1, "`#if` without its `#endif`"));
        }
        Ok(())
    }

    fn directive(&mut self, text: &str, line: u32) -> Result<(), ParseError> {
        let col = text.len() - text.trim_start().len() + 1;
        let body = text.trim_start()[1..].trim_start();
        let word: String = body
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let rest = body[word.len()..].trim();
        let src = self.src;
        let at = |msg: String| error_at(src, line, col as u32, msg);
        match word.as_str() {
            "if" | "ifdef" | "ifndef" => {
                let holds = self.active() && self.test(&word, rest, line, col as u32)?;
                self.conds.push(Cond {
                    taken: holds,
                    active: holds,
                    seen_else: false,
                    line,
                });
            }
            "elif" | "else" => {
                let parent = self.conds.len() > 1
                    && !self.conds[..self.conds.len() - 1].iter().all(|c| c.active);
                let holds = match self.conds.last() {
                    None => return Err(at(format!("`#{word}` without `#if`"))),
                    Some(c) if c.seen_else => {
                        return Err(at(format!("`#{word}` after `#else`")));
                    }
                    Some(c) if c.taken || parent => false,
                    Some(_) if word == "else" => true,
                    Some(_) => self.test("if", rest, line, col as u32)?,
                };
                let c = self.conds.last_mut().expect("checked above");
                c.active = holds;
                c.taken |= holds;
                c.seen_else = word == "else";
            }
            "endif" => {
                if self.conds.pop().is_none() {
                    return Err(at("`#endif` without `#if`".into()));
                }
            }
            _ if !self.active() => {}
            "define" => self.define(rest, line, col as u32)?,
            "undef" => {
                self.defs.remove(rest);
            }
            "" => {}
            w => {
                return Err(at(format!(
                    "`#{w}`: only #define, #undef, #if, #ifdef, #ifndef, #elif, #else and \
                     #endif are read (define here what the code needs)"
                )));
            }
        }
        Ok(())
    }

    fn define(&mut self, rest: &str, line: u32, col: u32) -> Result<(), ParseError> {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(self.err(line, col, "`#define` without a macro name"));
        }
        let after = &rest[name.len()..];
        let (params, body) = if let Some(p) = after.strip_prefix('(') {
            let Some(close) = p.find(')') else {
                return Err(self.err(line, col, format!("`#define {name}(`: no `)`")));
            };
            let ps: Vec<String> = p[..close]
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            if let Some(bad) = ps
                .iter()
                .find(|s| !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            {
                return Err(self.err(
                    line,
                    col,
                    format!("`#define {name}`: parameter `{bad}` is not a name (variadic macros are not read)"),
                ));
            }
            (Some(ps), &p[close + 1..])
        } else {
            (None, after)
        };
        let body = lex(body).map_err(|m| self.err(line, col, format!("`#define {name}`: {m}")))?;
        self.defs.insert(name, Def { params, body, line });
        Ok(())
    }

    /// Whether an `#if`/`#ifdef`/`#ifndef` holds.
    fn test(&self, word: &str, rest: &str, line: u32, col: u32) -> Result<bool, ParseError> {
        let name = rest.split_whitespace().next().unwrap_or("");
        match word {
            "ifdef" => return Ok(self.defs.contains_key(name)),
            "ifndef" => return Ok(!self.defs.contains_key(name)),
            _ => {}
        }
        let at = |m: String| self.err(line, col, format!("`#if {rest}`: {m}"));
        let toks = lex(rest).map_err(at)?;
        // `defined X` and `defined(X)` first, then the macros, then the arithmetic.
        let mut v = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            if toks[i].is("defined") {
                let paren = toks.get(i + 1).is_some_and(|t| t.is("("));
                let n = if paren { i + 2 } else { i + 1 };
                let Some(t) = toks.get(n).filter(|t| t.kind == Kind::Ident) else {
                    return Err(at("`defined` without a name".into()));
                };
                let d = self.defs.contains_key(&t.text) as i64;
                v.push(tok_num(d));
                i = n + 1 + paren as usize;
            } else {
                v.push(toks[i].clone());
                i += 1;
            }
        }
        let v = self.expand(&v, &mut Vec::new(), 0).map_err(at)?;
        let mut e = IfExpr { toks: &v, at: 0 };
        let r = e.or().map_err(at)?;
        if e.at != v.len() {
            return Err(at(format!("unexpected `{}`", v[e.at].text)));
        }
        Ok(r != 0)
    }

    /// Copy code lines, expanding the macros in them.
    fn code(&mut self, chunk: &str, line: u32) -> Result<(), ParseError> {
        let mut cur_line = line;
        let mut col = 1u32;
        let mut rest = chunk;
        while !rest.is_empty() {
            let c = rest.chars().next().expect("not empty");
            // Comments, literals and blanks are copied as they are.
            let skip = skip_len(rest);
            if skip > 0 || self.stopped {
                let n = if self.stopped { rest.len() } else { skip };
                self.copy(&rest[..n], &mut cur_line, &mut col);
                rest = &rest[n..];
                continue;
            }
            if c.is_ascii_alphabetic() || c == '_' {
                let n = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let word = &rest[..n];
                if self.depth == 0 && ["exists", "forall", "locations", "filter"].contains(&word) {
                    self.stopped = true;
                    continue;
                }
                if let Some(used) = self.use_at(rest, word, cur_line, col)? {
                    let (len, text) = used;
                    self.emit_use(&rest[..len], &text, word, &mut cur_line, &mut col);
                    rest = &rest[len..];
                    continue;
                }
                self.copy(word, &mut cur_line, &mut col);
                rest = &rest[n..];
                continue;
            }
            match c {
                '(' | '[' | '{' => self.depth += 1,
                ')' | ']' | '}' => self.depth -= 1,
                '~' if self.depth == 0 => {
                    self.stopped = true;
                    continue;
                }
                _ => {}
            }
            let n = c.len_utf8();
            self.copy(&rest[..n], &mut cur_line, &mut col);
            rest = &rest[n..];
        }
        Ok(())
    }

    fn copy(&mut self, s: &str, line: &mut u32, col: &mut u32) {
        self.out.push_str(s);
        for ch in s.chars() {
            if ch == '\n' {
                *line += 1;
                *col = 1;
            } else {
                *col += 1;
            }
        }
    }

    /// A use of a macro at the start of `rest`: the length of the use in the source and
    /// its expansion; `None` when `word` is no macro or a function-like one not called.
    fn use_at(
        &self,
        rest: &str,
        word: &str,
        line: u32,
        col: u32,
    ) -> Result<Option<(usize, String)>, ParseError> {
        let Some(def) = self.defs.get(word) else {
            return Ok(None);
        };
        let at = |m: String| self.err(line, col, m);
        let mut len = word.len();
        let mut toks = vec![Tok {
            kind: Kind::Ident,
            text: word.to_string(),
            space: false,
        }];
        if def.params.is_some() {
            let after = &rest[len..];
            let blank = after.len() - after.trim_start().len();
            if !after[blank..].starts_with('(') {
                return Ok(None);
            }
            let close = matching_paren(&after[blank..]).ok_or_else(|| {
                at(format!(
                    "macro `{word}` called without the `)` closing its arguments"
                ))
            })?;
            let args = lex(&after[blank..blank + close + 1]).map_err(at)?;
            toks.extend(args);
            len += blank + close + 1;
        }
        let out = self
            .expand(&toks, &mut Vec::new(), 0)
            .map_err(|m| at(format!("{m} (macro `{word}` defined at line {})", def.line)))?;
        Ok(Some((len, join(&out))))
    }

    /// Write the expansion `text` of the use `used`, padded to keep what follows in place.
    fn emit_use(&mut self, used: &str, text: &str, name: &str, line: &mut u32, col: &mut u32) {
        let from = self.out.len() - self.out.rfind('\n').map_or(0, |k| k + 1);
        let from = self.out[self.out.len() - from..].chars().count() as u32 + 1;
        self.out.push_str(text);
        let n_text = text.chars().count() as u32;
        let newlines = used.matches('\n').count() as u32;
        let used_first = used.split('\n').next().unwrap_or("").chars().count() as u32;
        let mut shift = 0i64;
        if newlines == 0 && n_text < used_first {
            self.out
                .push_str(&" ".repeat((used_first - n_text) as usize));
        } else if newlines == 0 {
            shift = n_text as i64 - used_first as i64;
        }
        self.uses.push(Use {
            line: *line,
            from,
            to: from + n_text,
            col: *col,
            shift,
            name: name.to_string(),
            def_line: self.defs.get(name).map_or(0, |d| d.line),
        });
        if newlines > 0 {
            let last = used.rsplit('\n').next().unwrap_or("").chars().count();
            self.out.push_str(&"\n".repeat(newlines as usize));
            self.out.push_str(&" ".repeat(last));
            *line += newlines;
            *col = last as u32 + 1;
        } else {
            *col += used_first;
        }
    }

    /// Expand the macros in `toks`, none of `off` (being expanded) again.
    fn expand(
        &self,
        toks: &[Tok],
        off: &mut Vec<String>,
        depth: usize,
    ) -> Result<Vec<Tok>, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "macros nested deeper than {MAX_DEPTH}: one expands to itself"
            ));
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            let def = match self.defs.get(&t.text) {
                Some(d) if t.kind == Kind::Ident && !off.contains(&t.text) => d,
                _ => {
                    out.push(t.clone());
                    i += 1;
                    continue;
                }
            };
            let (body, next) = match &def.params {
                None => (def.body.clone(), i + 1),
                Some(ps) => {
                    if !toks.get(i + 1).is_some_and(|t| t.is("(")) {
                        out.push(t.clone());
                        i += 1;
                        continue;
                    }
                    let (args, next) = split_args(toks, i + 1)
                        .ok_or_else(|| format!("`{}(`: no `)` closing its arguments", t.text))?;
                    let args = if ps.is_empty() && args.len() == 1 && args[0].is_empty() {
                        Vec::new()
                    } else {
                        args
                    };
                    if args.len() != ps.len() {
                        return Err(format!(
                            "macro `{}` takes {} argument(s), given {}",
                            t.text,
                            ps.len(),
                            args.len()
                        ));
                    }
                    (self.substitute(def, ps, &args, off, depth)?, next)
                }
            };
            off.push(t.text.clone());
            let mut e = self.expand(&body, off, depth + 1)?;
            off.pop();
            if out.len() + e.len() > MAX_TOKENS {
                return Err(format!(
                    "expansion of `{}` longer than {MAX_TOKENS} tokens",
                    t.text
                ));
            }
            if let Some(f) = e.first_mut() {
                f.space = true;
            }
            out.extend(e);
            i = next;
        }
        Ok(out)
    }

    /// A function-like macro's body with its arguments in place: `#p` as a string, `##`
    /// pasting the tokens beside it, other uses of a formal its argument expanded.
    fn substitute(
        &self,
        def: &Def,
        ps: &[String],
        args: &[Vec<Tok>],
        off: &mut Vec<String>,
        depth: usize,
    ) -> Result<Vec<Tok>, String> {
        let formal = |t: &Tok| {
            ps.iter()
                .position(|p| *p == t.text)
                .filter(|_| t.kind == Kind::Ident)
        };
        let b = &def.body;
        let mut out: Vec<Tok> = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let t = &b[i];
            if t.is("#") && b.get(i + 1).and_then(formal).is_some() {
                let k = formal(&b[i + 1]).expect("checked");
                let s = join(&args[k]).replace('\\', "\\\\").replace('"', "\\\"");
                out.push(Tok {
                    kind: Kind::Other,
                    text: format!("\"{s}\""),
                    space: t.space,
                });
                i += 2;
                continue;
            }
            if t.is("##") {
                let Some(left) = out.pop() else {
                    return Err("`##` at the start of a macro body".into());
                };
                let Some(r) = b.get(i + 1) else {
                    return Err("`##` at the end of a macro body".into());
                };
                let mut right = match formal(r) {
                    Some(k) => args[k].clone(),
                    None => vec![r.clone()],
                };
                let text = format!(
                    "{}{}",
                    left.text,
                    right.first().map_or("", |t| t.text.as_str())
                );
                let kind = match lex(&text) {
                    Ok(v) if v.len() == 1 => v[0].kind.clone(),
                    _ => return Err(format!("`##` pastes `{text}`, which is not one token")),
                };
                if !right.is_empty() {
                    right.remove(0);
                }
                out.push(Tok {
                    kind,
                    text,
                    space: left.space,
                });
                out.extend(right);
                i += 2;
                continue;
            }
            match formal(t) {
                // An argument pasted by a following `##` is taken as written.
                Some(k) if b.get(i + 1).is_some_and(|n| n.is("##")) => {
                    out.extend(args[k].iter().cloned());
                }
                Some(k) => {
                    let mut a = self.expand(&args[k], off, depth + 1)?;
                    if let Some(f) = a.first_mut() {
                        f.space = t.space;
                    }
                    out.extend(a);
                }
                None => out.push(t.clone()),
            }
            i += 1;
        }
        Ok(out)
    }
}

/// The arguments of a call whose `(` is `toks[open]`, and the index after its `)`.
fn split_args(toks: &[Tok], open: usize) -> Option<(Vec<Vec<Tok>>, usize)> {
    let mut args = vec![Vec::new()];
    let mut depth = 0;
    for (k, t) in toks.iter().enumerate().skip(open + 1) {
        match t.text.as_str() {
            ")" if depth == 0 => return Some((args, k + 1)),
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "," if depth == 0 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        args.last_mut().expect("one at least").push(t.clone());
    }
    None
}

/// The byte index of the `)` matching the `(` that starts `s`.
fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 0;
    let mut k = 0;
    while k < s.len() {
        let skip = skip_len(&s[k..]);
        if skip > 0 {
            k += skip;
            continue;
        }
        let c = s[k..].chars().next()?;
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
        k += c.len_utf8();
    }
    None
}

/// Length of the blank, comment or literal at the start of `s` (0 if none).
fn skip_len(s: &str) -> usize {
    let c = s.chars().next().unwrap_or('x');
    if c.is_whitespace() {
        return s.find(|c: char| !c.is_whitespace()).unwrap_or(s.len());
    }
    if s.starts_with("//") {
        return s.find('\n').unwrap_or(s.len());
    }
    if let Some(r) = s.strip_prefix("/*") {
        return r.find("*/").map_or(s.len(), |k| k + 4);
    }
    if c == '"' || c == '\'' {
        let mut esc = false;
        for (k, ch) in s.char_indices().skip(1) {
            match ch {
                '\\' if !esc => esc = true,
                ch if ch == c && !esc => return k + 1,
                '\n' => return k,
                _ => esc = false,
            }
        }
        return s.len();
    }
    0
}

/// The tokens of `s`.
fn lex(s: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut rest = s;
    let mut space = false;
    while let Some(c) = rest.chars().next() {
        let skip = skip_len(rest);
        if skip > 0 && !(c == '"' || c == '\'') {
            if rest.starts_with("/*") && !rest[2..].contains("*/") {
                return Err("unterminated `/*` comment".into());
            }
            rest = &rest[skip..];
            space = true;
            continue;
        }
        let n = if skip > 0 {
            skip
        } else if c.is_ascii_alphanumeric() || c == '_' {
            rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len())
        } else if rest.starts_with("##") {
            2
        } else {
            c.len_utf8()
        };
        let text = &rest[..n];
        let ident = c.is_ascii_alphabetic() || c == '_';
        out.push(Tok {
            kind: if ident { Kind::Ident } else { Kind::Other },
            text: text.to_string(),
            space,
        });
        space = false;
        rest = &rest[n..];
    }
    Ok(out)
}

fn tok_num(n: i64) -> Tok {
    Tok {
        kind: Kind::Other,
        text: n.to_string(),
        space: true,
    }
}

/// Tokens back to text, on one line.
fn join(toks: &[Tok]) -> String {
    let mut s = String::new();
    for t in toks {
        if t.space && !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&t.text);
    }
    s
}

/// An `#if` expression, after expansion: integers, names (0), `!`, `&&`, `||`, the
/// comparisons, `+`, `-` and parentheses.
struct IfExpr<'a> {
    toks: &'a [Tok],
    at: usize,
}

impl IfExpr<'_> {
    fn peek(&self, k: usize) -> Option<&str> {
        self.toks.get(self.at + k).map(|t| t.text.as_str())
    }
    /// The operator at the cursor among `ops` (one or two tokens), consumed.
    fn op(&mut self, ops: &[&str]) -> Option<String> {
        for o in ops {
            let two =
                o.len() == 2 && self.peek(0) == Some(&o[..1]) && self.peek(1) == Some(&o[1..]);
            let one = o.len() == 1 && self.peek(0) == Some(o) && self.peek(1) != Some("=");
            let one = one && !(["&", "|"].contains(o) && self.peek(1) == Some(o));
            if two || one {
                self.at += o.len();
                return Some(o.to_string());
            }
        }
        None
    }
    fn or(&mut self) -> Result<i64, String> {
        let mut v = self.and()?;
        while self.op(&["||"]).is_some() {
            let r = self.and()?;
            v = (v != 0 || r != 0) as i64;
        }
        Ok(v)
    }
    fn and(&mut self) -> Result<i64, String> {
        let mut v = self.cmp()?;
        while self.op(&["&&"]).is_some() {
            let r = self.cmp()?;
            v = (v != 0 && r != 0) as i64;
        }
        Ok(v)
    }
    fn cmp(&mut self) -> Result<i64, String> {
        let mut v = self.sum()?;
        while let Some(o) = self.op(&["==", "!=", "<=", ">=", "<", ">"]) {
            let r = self.sum()?;
            v = match o.as_str() {
                "==" => v == r,
                "!=" => v != r,
                "<=" => v <= r,
                ">=" => v >= r,
                "<" => v < r,
                _ => v > r,
            } as i64;
        }
        Ok(v)
    }
    fn sum(&mut self) -> Result<i64, String> {
        let mut v = self.unary()?;
        while let Some(o) = self.op(&["+", "-"]) {
            let r = self.unary()?;
            v = if o == "+" {
                v.wrapping_add(r)
            } else {
                v.wrapping_sub(r)
            };
        }
        Ok(v)
    }
    fn unary(&mut self) -> Result<i64, String> {
        if self.op(&["!"]).is_some() {
            return Ok((self.unary()? == 0) as i64);
        }
        if self.op(&["-"]).is_some() {
            return Ok(self.unary()?.wrapping_neg());
        }
        let Some(t) = self.toks.get(self.at) else {
            return Err("the expression ends early".into());
        };
        self.at += 1;
        if t.is("(") {
            let v = self.or()?;
            if self.op(&[")"]).is_none() {
                return Err("no `)`".into());
            }
            return Ok(v);
        }
        if t.kind == Kind::Ident {
            return Ok(0);
        }
        let digits = t.text.trim_end_matches(['u', 'U', 'l', 'L']);
        let v = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(h) => i64::from_str_radix(h, 16),
            None => digits.parse(),
        };
        v.map_err(|_| format!("`{}` is not a number", t.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pp(s: &str) -> String {
        preprocess(s).unwrap().unwrap().text
    }

    #[test]
    fn lines_stay_where_they_are() {
        let src = "C t\n{}\n#define A(x, y) \\\n  do { WRITE_ONCE(*x, y); } while (0)\nP0(int *x) {\n  A(x,\n    1); r = 1;\n}\nexists (x=1)";
        let out = pp(src);
        assert_eq!(out.lines().count(), src.lines().count(), "{out}");
        assert!(out.contains("do { WRITE_ONCE(*x, 1); } while (0)"), "{out}");
        let l7 = out.lines().nth(6).unwrap();
        assert_eq!(l7.find("r = 1"), src.lines().nth(6).unwrap().find("r = 1"));
        assert!(out.ends_with("exists (x=1)"));
    }

    #[test]
    fn paste_stringize_and_conditionals() {
        let src = "C t\n{}\n#define CAT(a, b) a ## b\n#define S(a) #a\n#ifdef CAT\n#define ON 1\n#else\n#define ON 2\n#endif\n#if ON == 1 && !defined(NOPE)\n#define X CAT(r, 0) = S(hi) + ON\n#endif\nP0() { X; }\nexists (0:r0=1)";
        assert!(pp(src).contains("r0 = \"hi\" + 1;"), "{}", pp(src));
    }

    #[test]
    fn a_hash_in_a_header_comment_is_no_directive() {
        assert!(
            preprocess("C t\n(*\n# not a directive\n*)\n{}\nP0() {}\n")
                .unwrap()
                .is_none()
        );
        let src = "C t\n(* a *)\n{}\n#define A 1\nP0() { r = A; }\n";
        assert!(pp(src).contains("r = 1;"));
    }

    #[test]
    fn errors_are_located() {
        let src = "C t\n{}\n#define F(a) a\nP0() { F(1, 2); }\nexists (x=1)";
        let e = preprocess(src).err().unwrap();
        assert_eq!((e.line, e.col), (4, 8));
        assert!(
            e.msg.contains("takes 1 argument") && e.msg.contains("line 3"),
            "{}",
            e.msg
        );
        let e = preprocess("C t\n{}\n#include <x.h>\n").err().unwrap();
        assert_eq!(e.line, 3);
        let e = preprocess("C t\n{}\n#if 1\n").err().unwrap();
        assert!(e.msg.contains("#endif"));
        let e = preprocess("C t\n{}\n#define F(a) F(a)\n#define G G\nP0() { G; }\n");
        assert!(e.is_ok(), "a macro naming itself stops there, as in C");
        let mut src = "C t\n{}\n#define A0 x\n".to_string();
        for k in 1..40 {
            src.push_str(&format!("#define A{k} A{} A{} A{}\n", k - 1, k - 1, k - 1));
        }
        src.push_str("P0() { A39; }\n");
        let e = preprocess(&src).err().unwrap();
        assert!(e.msg.contains("longer than"), "{}", e.msg);
    }
}
