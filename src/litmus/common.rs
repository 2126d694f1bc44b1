//! The sections every dialect shares: header, initial state, and the final
//! `locations` / `filter` / condition block.
//!
//! Values herd knows but the AST has no variant for (labels `1:m1`, `instr:"NOP"`,
//! page-table entries, array literals) are kept as their source text in
//! [`ValueLit::Addr`], so that they print back unchanged; `fault(...)` atoms become
//! `Eq(Global("fault(...)"), Int(1))` for the same reason.

use super::ast::*;
use super::error::{In, PResult, expect, found, hard};
use super::lex::*;
use nom::branch::alt;
use nom::bytes::complete::{take, take_while, take_while1};
use nom::character::complete::{char, digit1};
use nom::combinator::{map, opt, recognize};
use nom::sequence::{pair, preceded, terminated};

/// The first line(s): `ARCH name (texname) "doc"`, then `Key=Value` lines up to the `{`.
pub(crate) struct Header {
    pub arch: Arch,
    pub name: String,
    pub doc: Option<String>,
    pub info: Vec<(String, String)>,
    pub comments: Vec<String>,
}

fn is_test_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_/.-+[]:".contains(c)
}

pub(crate) fn header(i: In) -> PResult<Header> {
    let (i, _) = ws(i)?;
    let (r, a) =
        take_while1(is_ident_char)(i).or_else(|_: nom::Err<super::error::ParseError>| {
            hard(
                i,
                format!("expected an architecture name, found {}", found(i)),
            )
        })?;
    let arch = match Arch::from_name(a.fragment()) {
        Some(arch) => arch,
        None => return hard(i, format!("unknown architecture `{}`", a.fragment())),
    };
    let (r, _) = blanks(r)?;
    let (r, name) =
        take_while1(is_test_name_char)(r).or_else(|_: nom::Err<super::error::ParseError>| {
            hard(r, format!("expected the test name, found {}", found(r)))
        })?;
    let (r, _) = blanks(r)?;
    // An optional `(texname)`, used only for LaTeX output by herd: dropped.
    let (r, _) = opt(terminated(
        recognize(pair(
            char('('),
            pair(take_while1(is_test_name_char), char(')')),
        )),
        blanks,
    ))(r)?;
    let (r, doc) = opt(preceded(
        pair(opt(char('\n')), blanks),
        terminated(quoted, blanks),
    ))(r)?;
    let (mut i, _) = opt(char(';'))(r)?;
    let mut info = Vec::new();
    let mut comments = Vec::new();
    loop {
        let (r, _) = ws_keeping(&mut comments)(i)?;
        i = r;
        if i.fragment().is_empty() {
            return hard(
                i,
                "expected `{` starting the initial state, found end of file",
            );
        }
        if i.fragment().starts_with('{') {
            break;
        }
        if let Ok((r, kv)) = info_line(i) {
            info.push(kv);
            i = r;
        } else {
            // herd ignores other text before the initial state.
            let (r, _) = take_while1(|c| c != '\n' && c != '{' && c != '(')(i)
                .or_else(|_: nom::Err<super::error::ParseError>| take(1usize)(i))?;
            i = r;
        }
    }
    let header = Header {
        arch,
        // herd drops a `.litmus` ending from the name (its `Misc.clean_name`).
        name: name
            .fragment()
            .strip_suffix(".litmus")
            .filter(|n| !n.is_empty())
            .unwrap_or(name.fragment())
            .to_string(),
        doc: doc.map(|d| d.fragment().to_string()),
        info,
        comments,
    };
    Ok((i, header))
}

/// `"text"`: the text between the quotes.
fn quoted(i: In) -> PResult<In> {
    let (r, _) = char('"')(i)?;
    let (r, s) = take_while(|c| c != '"')(r)?;
    if r.fragment().is_empty() {
        return hard(i, "unterminated string");
    }
    Ok((take(1usize)(r)?.0, s))
}

/// `Key=Value` up to the end of the line.
fn info_line(i: In) -> PResult<(String, String)> {
    let (r, key) = recognize(pair(
        take_while1(|c: char| c.is_ascii_alphabetic()),
        take_while(|c: char| c.is_ascii_alphanumeric() || "_/.-".contains(c)),
    ))(i)?;
    let (r, _) = blanks(r)?;
    let (r, _) = char('=')(r)?;
    let (r, _) = blanks(r)?;
    let (r, v) = take_while(|c| c != '\n')(r)?;
    Ok((
        r,
        (
            key.fragment().to_string(),
            v.fragment().trim_end().to_string(),
        ),
    ))
}

fn iws(i: In) -> PResult<()> {
    ws_with(Comments::All)(i)
}

/// The `{ ... }` initial state.
pub(crate) fn init_block(i: In) -> PResult<Vec<InitEntry>> {
    let (mut i, _) = expect("`{`", char('{'))(i)?;
    let mut entries = Vec::new();
    loop {
        let (r, _) = iws(i)?;
        i = r;
        if let Ok((r, _)) = char::<_, super::error::ParseError>('}')(i) {
            // Some tests write `};`.
            let (r, _) = opt(pair(blanks, char(';')))(r)?;
            return Ok((r, entries));
        }
        if let Ok((r, _)) = char::<_, super::error::ParseError>(';')(i) {
            i = r;
            continue;
        }
        if i.fragment().is_empty() {
            return hard(i, "unterminated initial state: expected `}`");
        }
        let (r, e) = init_entry(i)?;
        entries.push(e);
        let (r, _) = iws(r)?;
        if !r.fragment().starts_with([';', '}']) {
            return hard(
                r,
                format!(
                    "expected `;` or `}}` in the initial state, found {}",
                    found(r)
                ),
            );
        }
        i = r;
    }
}

/// One item: `[type] loc [= value]`.
fn init_entry(i: In) -> PResult<InitEntry> {
    let start = i;
    let mut words: Vec<String> = Vec::new();
    let mut i = i;
    let mut last: Option<(LocRef, Option<String>)> = None;
    loop {
        let (r, _) = iws(i)?;
        i = r;
        if let Ok((r, _)) = char::<_, super::error::ParseError>('*')(i) {
            if let Some((l, _)) = last.take() {
                words.push(loc_word(&l));
            }
            words.push("*".into());
            i = r;
            continue;
        }
        match lhs_loc(i) {
            Ok((r, l)) => {
                if let Some((l, _)) = last.take() {
                    words.push(loc_word(&l));
                }
                last = Some(l);
                i = r;
            }
            Err(_) => break,
        }
    }
    let Some((loc, array)) = last else {
        return hard(
            start,
            format!(
                "expected a location in the initial state, found {}",
                found(start)
            ),
        );
    };
    let mut ty = (!words.is_empty()).then(|| join_type(&words));
    if let Some(a) = array {
        ty = Some(format!("{}{a}", ty.unwrap_or_default()));
    }
    let (i, value) = match preceded(sym("="), iws)(i) {
        Ok((r, _)) => {
            let (r, v) = init_value(r)?;
            (r, Some(v))
        }
        Err(_) => (i, None),
    };
    Ok((i, InitEntry { ty, loc, value }))
}

fn loc_word(l: &LocRef) -> String {
    match l {
        LocRef::Global(g) => g.clone(),
        LocRef::Reg { proc, reg } => format!("{proc}:{reg}"),
    }
}

/// Type words as written, normalised to `int`, `int *`, `struct foo **`.
pub(crate) fn join_type(words: &[String]) -> String {
    let mut s = String::new();
    for w in words {
        if w == "*" {
            if !s.ends_with('*') {
                s.push(' ');
            }
        } else if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(w);
    }
    s
}

/// A location on the left of an init item, with an optional array size `[N]`.
fn lhs_loc(i: In) -> PResult<(LocRef, Option<String>)> {
    let (r, l) = location(i)?;
    let (r, arr) = opt(recognize(pair(char('['), pair(digit1, char(']')))))(r)?;
    Ok((r, (l, arr.map(|a| a.fragment().to_string()))))
}

/// A location: `0:r1`, `P0:r1`, `%r`, `[x]`, `x`, `PTE(x)`, `[PTE(x)]`.
pub(crate) fn location(i: In) -> PResult<LocRef> {
    alt((
        reg_loc,
        map(brk_global, LocRef::Global),
        map(global_name, LocRef::Global),
    ))(i)
}

/// A location in `locations` or a condition, where an array cell `x[1]` may appear.
fn cell_location(i: In) -> PResult<LocRef> {
    let (r, l) = location(i)?;
    match l {
        LocRef::Global(g) => {
            let (r, cell) = opt(recognize(pair(char('['), pair(digit1, char(']')))))(r)?;
            let g = match cell {
                Some(c) => format!("{g}{}", c.fragment()),
                None => g,
            };
            Ok((r, LocRef::Global(g)))
        }
        reg => Ok((r, reg)),
    }
}

fn reg_loc(i: In) -> PResult<LocRef> {
    let (r, p) = alt((digit1, preceded(char('P'), digit1)))(i)?;
    let (r, _) = pair(blanks, char(':'))(r)?;
    let (r, _) = blanks(r)?;
    let (r, reg) = reg_name(r)?;
    let proc = p
        .fragment()
        .parse()
        .map_err(|_| nom::Err::Failure(super::error::ParseError::at(i, "bad thread number")))?;
    Ok((
        r,
        LocRef::Reg {
            proc,
            reg: reg.to_string(),
        },
    ))
}

/// A register name as written in init and conditions (`r1`, `X0`, `rax`, `%t0`, `$r`).
fn reg_name(i: In<'_>) -> PResult<'_, &str> {
    let (r, s) = recognize(pair(
        opt(alt((char('%'), char('$')))),
        pair(take_while1(is_ident_start), take_while(is_ident_char)),
    ))(i)?;
    Ok((r, *s.fragment()))
}

fn brk_global(i: In) -> PResult<String> {
    let (r, _) = pair(char('['), blanks)(i)?;
    let (r, g) = global_name(r)?;
    let (r, _) = pair(blanks, char(']'))(r)?;
    Ok((r, g))
}

/// `x`, `%x` (a PPC symbolic register, kept by name), or `PTE(x)`-like wrappers.
fn global_name(i: In) -> PResult<String> {
    let (r, s) = recognize(pair(opt(char('%')), ident))(i)?;
    if let Ok((r2, inner)) = recognize::<_, _, super::error::ParseError, _>(pair(
        char('('),
        pair(
            take_while1(|c: char| c != ')' && c != '\n' && c != ';'),
            char(')'),
        ),
    ))(r)
    {
        return Ok((r2, format!("{}{}", s.fragment(), inner.fragment())));
    }
    Ok((r, s.fragment().to_string()))
}

/// An init value: a number, `&x`, `x`, `ATOMIC_INIT(n)`, or other herd values kept as text.
fn init_value(i: In) -> PResult<ValueLit> {
    if let Ok((r, v)) = atomic_init(i) {
        return Ok((r, v));
    }
    if let Ok((r, v)) = simple_value(i) {
        let (r2, _) = iws(r)?;
        if r2.fragment().is_empty() || r2.fragment().starts_with([';', '}']) {
            return Ok((r, v));
        }
    }
    raw_value(i)
}

fn atomic_init(i: In) -> PResult<ValueLit> {
    let (r, _) = pair(keyword("ATOMIC_INIT"), pair(blanks, char('(')))(i)?;
    let (r, _) = blanks(r)?;
    let (r, v) = simple_value(r)?;
    let (r, _) = pair(blanks, char(')'))(r)?;
    Ok((r, v))
}

/// `1`, `-1`, `0x10`, `&x`, `x`.
fn simple_value(i: In) -> PResult<ValueLit> {
    alt((
        map(int, ValueLit::Int),
        map(preceded(pair(char('&'), blanks), ident), |n| {
            ValueLit::Addr {
                name: n.into(),
                amp: true,
            }
        }),
        map(ident, |n| ValueLit::Addr {
            name: n.into(),
            amp: false,
        }),
    ))(i)
}

/// Any other value up to `;` or `}` at bracket depth 0, kept as text.
fn raw_value(i: In) -> PResult<ValueLit> {
    let s = *i.fragment();
    let (mut depth, mut in_str) = (0i32, false);
    let mut end = s.len();
    for (k, c) in s.char_indices() {
        match c {
            '"' => in_str = !in_str,
            _ if in_str => {}
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth > 0 => depth -= 1,
            ';' | '}' | '\n' if depth == 0 => {
                end = k;
                break;
            }
            _ => {}
        }
    }
    let text = s[..end].trim_end();
    if text.is_empty() {
        return hard(i, format!("expected a value, found {}", found(i)));
    }
    let (r, _) = take(text.len())(i)?;
    Ok((
        r,
        ValueLit::Addr {
            name: text.to_string(),
            amp: false,
        },
    ))
}

/// Does `i` start with a keyword that ends the code section?
pub(crate) fn at_constraint(i: In) -> bool {
    let s = *i.fragment();
    let word: &str = &s[..s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len())];
    matches!(
        word,
        "exists" | "forall" | "locations" | "filter" | "final" | "cases" | "observed" | "Observed"
    ) || (s.starts_with('~') && s[1..].trim_start().starts_with("exists"))
}

/// Everything after the code: `locations [...]`, `filter p`, the condition, trailing notes.
pub(crate) fn constraints(i: In) -> PResult<(Vec<LocRef>, Option<Prop>, Condition)> {
    let (i, _) = iws(i)?;
    let (i, locs) = opt(locations)(i)?;
    let (i, _) = iws(i)?;
    let (i, filter) = opt(preceded(
        pair(keyword("filter"), iws),
        expect("a proposition", prop),
    ))(i)?;
    let (i, _) = iws(i)?;
    let (i, cond) = if i.fragment().is_empty() {
        (
            i,
            Condition {
                quant: Quantifier::Forall,
                prop: Prop::True,
            },
        )
    } else {
        expect("a condition (`exists`, `~exists` or `forall`)", condition)(i)?
    };
    let (i, _) = iws(i)?;
    let (i, _) = opt(char(';'))(i)?;
    let (i, _) = iws(i)?;
    // herd ignores `with ...` kinds and `<< ... >>` notes after the condition.
    let s = i.fragment();
    if !(s.is_empty() || s.starts_with("<<") || keyword("with")(i).is_ok()) {
        return hard(i, format!("unexpected {} after the condition", found(i)));
    }
    let rest = s.len();
    let (i, _) = take(rest)(i)?;
    Ok((i, (locs.unwrap_or_default(), filter, cond)))
}

fn locations(i: In) -> PResult<Vec<LocRef>> {
    let (i, _) = pair(keyword("locations"), iws)(i)?;
    let (mut i, _) = expect("`[`", char('['))(i)?;
    let mut locs = Vec::new();
    loop {
        let (r, _) = iws(i)?;
        if let Ok((r, _)) = char::<_, super::error::ParseError>(']')(r) {
            return Ok((r, locs));
        }
        let (r, l) = expect("a location", cell_location)(r)?;
        locs.push(l);
        // An optional type (`int`, `*`), which only affects how herd prints values.
        let (r, _) = iws(r)?;
        let (r, _) = opt(ident)(r)?;
        let (r, _) = blanks(r)?;
        let (r, _) = opt(char('*'))(r)?;
        let (r, _) = iws(r)?;
        if r.fragment().starts_with(']') {
            i = r;
            continue;
        }
        let (r, _) = expect("`;` or `]`", char(';'))(r)?;
        i = r;
    }
}

fn condition(i: In) -> PResult<Condition> {
    let q = |kw, q| map(keyword(kw), move |_| q);
    let (r, quant) = alt((
        q("exists", Quantifier::Exists),
        q("final", Quantifier::Exists),
        q("forall", Quantifier::Forall),
        map(pair(char('~'), pair(iws, keyword("exists"))), |_| {
            Quantifier::NotExists
        }),
    ))(i)
    .or_else(|e| {
        // A bare `(prop)` means `exists`.
        if i.fragment().starts_with('(') {
            Ok((i, Quantifier::Exists))
        } else {
            Err(e)
        }
    })?;
    let (r, _) = iws(r)?;
    let (r, prop) = expect("a proposition", prop)(r)?;
    Ok((r, Condition { quant, prop }))
}

/// `p \/ q`, lowest precedence (as herd's grammar); a chain is one [`Prop::Or`].
pub(crate) fn prop(i: In) -> PResult<Prop> {
    chain(i, "\\/", prop_and, Prop::Or)
}

fn prop_and(i: In) -> PResult<Prop> {
    chain(i, "/\\", prop_implies, Prop::And)
}

/// `next (op next)*`, gathered into one node when there are several.
fn chain<'a>(
    i: In<'a>,
    op: &'static str,
    next: fn(In<'a>) -> PResult<'a, Prop>,
    mk: fn(Vec<Prop>) -> Prop,
) -> PResult<'a, Prop> {
    let (mut i, first) = next(i)?;
    let mut items = vec![first];
    loop {
        let (r, _) = iws(i)?;
        match sym(op)(r) {
            Ok((r, _)) => {
                let (r, _) = iws(r)?;
                let (r, rhs) = expect("a proposition", next)(r)?;
                items.push(rhs);
                i = r;
            }
            Err(_) if items.len() == 1 => return Ok((i, items.pop().expect("one item"))),
            Err(_) => return Ok((i, mk(items))),
        }
    }
}

/// `p => q`: binds tighter than `/\` and associates to the right, as in herd.
fn prop_implies(i: In) -> PResult<Prop> {
    let (i, lhs) = prop_unary(i)?;
    let (r, _) = iws(i)?;
    if let Ok((r, _)) = sym("=>")(r) {
        let (r, _) = iws(r)?;
        let (r, rhs) = expect("a proposition", prop_implies)(r)?;
        return Ok((r, Prop::Implies(Box::new(lhs), Box::new(rhs))));
    }
    Ok((i, lhs))
}

fn prop_unary(i: In) -> PResult<Prop> {
    if let Ok((r, _)) = alt((sym("~"), keyword("not")))(i) {
        let (r, _) = iws(r)?;
        let (r, p) = expect("a proposition", prop_unary)(r)?;
        return Ok((r, Prop::Not(Box::new(p))));
    }
    if let Ok((r, _)) = char::<_, super::error::ParseError>('(')(i) {
        let (r, _) = iws(r)?;
        let (r, p) = expect("a proposition", prop)(r)?;
        let (r, _) = iws(r)?;
        let (r, _) = expect("`)`", char(')'))(r)?;
        return Ok((r, p));
    }
    alt((
        map(keyword("true"), |_| Prop::True),
        map(keyword("false"), |_| Prop::False),
        fault_atom,
        atom,
    ))(i)
}

/// `fault(P1:L0,MMU:Translation)`, kept as text (see the module doc).
fn fault_atom(i: In) -> PResult<Prop> {
    let (r, f) = recognize(pair(
        pair(keyword("fault"), blanks),
        pair(
            char('('),
            pair(take_while(|c| c != ')' && c != '\n'), char(')')),
        ),
    ))(i)?;
    Ok((
        r,
        Prop::Eq(LocRef::Global(f.fragment().to_string()), ValueLit::Int(1)),
    ))
}

fn atom(i: In) -> PResult<Prop> {
    let (r, lhs) = cell_location(i)?;
    let (r, _) = iws(r)?;
    let (r, ne) = alt((
        map(sym("!="), |_| true),
        map(sym("=="), |_| false),
        map(sym("="), |_| false),
    ))(r)
    .or_else(|_: nom::Err<super::error::ParseError>| {
        hard(
            r,
            format!("expected `=` or `!=` after a location, found {}", found(r)),
        )
    })?;
    let (r, _) = iws(r)?;
    if let Ok((r2, rhs)) = alt((
        reg_loc,
        map(brk_global, LocRef::Global),
        map(preceded(char('*'), ident), |g| LocRef::Global(g.into())),
    ))(r)
    {
        let p = Prop::EqLoc(lhs, rhs);
        return Ok((r2, if ne { Prop::Not(Box::new(p)) } else { p }));
    }
    let (r, v) = expect("a value", simple_value)(r)?;
    Ok((
        r,
        if ne {
            Prop::Ne(lhs, v)
        } else {
            Prop::Eq(lhs, v)
        },
    ))
}
