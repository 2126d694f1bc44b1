//! Assembly dialects: the `P0 | P1 ;` column layout, and operand helpers the
//! per-architecture instruction parsers share.

mod aarch64;
mod ppc;
mod x86;
mod x86_64;
pub(super) use x86_64::is_mnemonic as x86_64_mnemonic;

use super::ast::*;
use super::common::at_constraint;
use super::error::{In, PResult, ParseError, found, hard};
use super::lex::*;
use nom::bytes::complete::{take, take_while1};
use nom::character::complete::{char, digit1};
use nom::sequence::preceded;

/// The code section: a header row of thread names, then rows of cells.
pub(crate) fn program(i: In, arch: Arch) -> PResult<Vec<AsmThread>> {
    let (i, _) = ws(i)?;
    let (mut i, procs) = header_row(i)?;
    let mut threads: Vec<AsmThread> = procs
        .iter()
        .map(|&proc| AsmThread {
            proc,
            code: Vec::new(),
        })
        .collect();
    loop {
        let (r, _) = ws(i)?;
        i = r;
        if i.fragment().is_empty() || at_constraint(i) {
            return Ok((i, threads));
        }
        let (r, cells) = row(i)?;
        if cells.len() > threads.len() {
            return hard(
                i,
                format!(
                    "row has {} columns but the test has {} threads",
                    cells.len(),
                    threads.len()
                ),
            );
        }
        for (t, cell) in threads.iter_mut().zip(cells) {
            if let Some(line) = parse_cell(cell, arch)? {
                t.code.push(line);
            }
        }
        i = r;
    }
}

/// `P0 | P1 | P2 ;`
fn header_row(i: In) -> PResult<Vec<u32>> {
    let (r, cells) = row(i)?;
    let mut procs = Vec::new();
    for (k, c) in cells.into_iter().enumerate() {
        let p = preceded(char::<_, ParseError>('P'), digit1)(c)
            .ok()
            .filter(|(rest, _)| rest.fragment().is_empty())
            .and_then(|(_, d)| d.fragment().parse::<u32>().ok());
        match p {
            Some(p) if p as usize == k => procs.push(p),
            _ => {
                return hard(
                    c,
                    format!("expected thread name `P{k}`, found {}", found(c)),
                );
            }
        }
    }
    Ok((r, procs))
}

/// One row: cells separated by `|`, ending with `;`. Cells are trimmed; a `(* *)`
/// comment may end a cell.
fn row(mut i: In) -> PResult<Vec<In>> {
    let mut cells = Vec::new();
    loop {
        let (r, _) = blanks(i)?;
        let s = *r.fragment();
        let end = cell_end(s);
        let end = s[..end].find("(*").unwrap_or(end);
        let (mut rest, cell) = take(s[..end].trim_end().len())(r)?;
        cells.push(cell);
        rest = ws_line(rest)?.0;
        match rest.fragment().chars().next() {
            Some('|') => i = take(1usize)(rest)?.0,
            Some(';') => return Ok((take(1usize)(rest)?.0, cells)),
            _ => {
                return hard(
                    rest,
                    format!("expected `|` or `;` ending the row, found {}", found(rest)),
                );
            }
        }
    }
}

/// Where a cell's text ends: at `|`, `;` or the end of the line — except the `;` of an X86
/// `LOCK;` prefix (`LOCK;ADD [x],$1`, `lock; xaddq ...`), which belongs to the instruction.
fn cell_end(s: &str) -> usize {
    let stop = |from: usize| {
        s[from..]
            .find(['|', ';', '\n'])
            .map_or(s.len(), |k| from + k)
    };
    let end = stop(0);
    let prefix = s[..end].trim().eq_ignore_ascii_case("lock");
    let next = s[end..].chars().nth(1);
    if prefix
        && s[end..].starts_with(';')
        && next.is_some_and(|c| c == ' ' || c.is_ascii_alphabetic())
    {
        stop(end + 1)
    } else {
        end
    }
}

/// Blanks and `(* *)` comments, staying on the line.
fn ws_line(i: In) -> PResult<()> {
    let (mut i, _) = blanks(i)?;
    while i.fragment().starts_with("(*") {
        let (r, _) = ws(i)?;
        i = r;
    }
    Ok((i, ()))
}

/// A cell: `L0:`, `L0: instr`, `instr` or nothing.
fn parse_cell(cell: In, arch: Arch) -> Result<Option<AsmLine>, nom::Err<ParseError>> {
    let sp = span(cell);
    let (mut rest, mut label) = (cell, None);
    if let Ok((r, l)) = label_def(cell) {
        label = Some(l.to_string());
        rest = blanks(r)?.0;
    }
    if rest.fragment().is_empty() {
        return Ok(label.map(|label| AsmLine {
            label: Some(label),
            instr: None,
            span: sp,
        }));
    }
    let instr = match arch {
        Arch::AArch64 => aarch64::instr(rest)?,
        Arch::PPC => ppc::instr(rest)?,
        Arch::X86 => x86::instr(rest)?,
        Arch::X86_64 => x86_64::instr(rest)?,
        Arch::C => unreachable!("C threads are not in columns"),
    };
    Ok(Some(AsmLine {
        label,
        instr: Some(instr),
        span: sp,
    }))
}

/// One instruction of `arch` from its text alone (`NOP`, `B .+8`): the value of an
/// instruction that a test writes to code memory.
pub(crate) fn instr_text(text: &str, arch: Arch) -> Result<Instr, ParseError> {
    let text = text.trim();
    instr_spans(text, arch).map_err(|e| e.resolve(text))
}

fn instr_spans(text: &str, arch: Arch) -> Result<Instr, ParseError> {
    let i = In::new(text);
    let r = match arch {
        Arch::AArch64 => aarch64::instr(i),
        Arch::PPC => ppc::instr(i),
        Arch::X86 => x86::instr(i),
        Arch::X86_64 => x86_64::instr(i),
        Arch::C => return Err(ParseError::at(i, "C has no instructions")),
    };
    r.map_err(|e| match e {
        nom::Err::Error(e) | nom::Err::Failure(e) => e,
        nom::Err::Incomplete(_) => ParseError::at(i, "incomplete instruction"),
    })
}

fn label_def(i: In<'_>) -> PResult<'_, &str> {
    let (r, l) = take_while1(|c: char| is_ident_char(c) || c == '.')(i)?;
    let (r, _) = blanks(r)?;
    let (r, _) = char(':')(r)?;
    Ok((r, *l.fragment()))
}

/// The mnemonic and the operand texts (split at top-level commas, trimmed).
pub(super) fn split_instr(i: In) -> PResult<(In, Vec<In>)> {
    let (r, op) = take_while1(|c: char| is_ident_char(c) || c == '.')(i).or_else(
        |_: nom::Err<ParseError>| hard(i, format!("expected an instruction, found {}", found(i))),
    )?;
    let (r, _) = blanks(r)?;
    Ok((i, (op, split_commas(r)?)))
}

/// Split `r` (the whole rest of a cell) at commas outside brackets.
pub(super) fn split_commas(r: In) -> Result<Vec<In>, nom::Err<ParseError>> {
    let s = *r.fragment();
    let mut parts = Vec::new();
    if s.trim().is_empty() {
        return Ok(parts);
    }
    let (mut depth, mut start) = (0i32, 0usize);
    let piece = |from: usize, to: usize| -> Result<In, nom::Err<ParseError>> {
        let (sub, _) = take(from)(r)?;
        let (sub, _) = blanks(sub)?;
        let text = sub.fragment()[..to - (sub.location_offset() - r.location_offset())].trim_end();
        if text.is_empty() {
            return Err(nom::Err::Failure(ParseError::at(sub, "missing operand")));
        }
        Ok(take(text.len())(sub)?.1)
    };
    for (k, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(piece(start, k)?);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(piece(start, s.len())?);
    Ok(parts)
}

/// Run `p` on an operand's text, which it must consume entirely.
pub(super) fn whole<'a, T>(
    i: In<'a>,
    p: impl Fn(In<'a>) -> PResult<'a, T>,
) -> Result<T, nom::Err<ParseError>> {
    match p(i) {
        Ok((r, v)) if r.fragment().trim().is_empty() => Ok(v),
        Ok((r, _)) => Err(nom::Err::Failure(ParseError::at(
            r,
            format!("unexpected {} in operand", found(r)),
        ))),
        Err(nom::Err::Error(_)) => Err(nom::Err::Failure(ParseError::at(
            i,
            format!("bad operand {}", found(i)),
        ))),
        Err(e) => Err(e),
    }
}

/// Check a mnemonic against its architecture's table.
pub(super) fn check_op(
    op: In,
    canon: String,
    table: &[&str],
    arch: &str,
) -> Result<String, nom::Err<ParseError>> {
    if table.contains(&canon.as_str()) {
        Ok(canon)
    } else {
        Err(nom::Err::Failure(ParseError::at(
            op,
            format!("unknown {arch} instruction `{}`", op.fragment()),
        )))
    }
}

/// An X86-family instruction: an optional `LOCK` prefix (kept in the mnemonic, spelled in the
/// dialect's case, `;` after it allowed), the mnemonic checked against `table`, then the
/// comma-separated operands.
pub(super) fn x86_family_instr<'a>(
    i: In<'a>,
    table: &[&str],
    arch: &str,
    upper: bool,
    operand: fn(In<'a>) -> PResult<'a, Operand>,
) -> Result<Instr, nom::Err<ParseError>> {
    let case = |s: &str| {
        if upper {
            s.to_ascii_uppercase()
        } else {
            s.to_ascii_lowercase()
        }
    };
    let (mut rest, op) = x86_mnemonic(i)?;
    let mut name = case(op.fragment());
    if name == case("lock") {
        let (r, _) = crate::litmus::lex::blanks(rest)?;
        let (r, _) = nom::combinator::opt(nom::character::complete::char(';'))(r)?;
        let (r, _) = crate::litmus::lex::blanks(r)?;
        let (r, op2) = x86_mnemonic(r)?;
        let inner = check_op(op2, case(op2.fragment()), table, arch)?;
        name = format!("{name} {inner}");
        rest = r;
    } else {
        name = check_op(op, name, table, arch)?;
    }
    let (rest, _) = crate::litmus::lex::blanks(rest)?;
    let args = split_commas(rest)?
        .into_iter()
        .map(|a| whole(a, operand))
        .collect::<Result<_, _>>()?;
    Ok(Instr { op: name, args })
}

fn x86_mnemonic(i: In) -> PResult<In> {
    nom::bytes::complete::take_while1(crate::litmus::lex::is_ident_char)(i).or_else(
        |_: nom::Err<ParseError>| {
            crate::litmus::error::hard(
                i,
                format!(
                    "expected an instruction, found {}",
                    crate::litmus::error::found(i)
                ),
            )
        },
    )
}

/// `$1` or `$x`: an immediate or a symbol's address, in both X86 syntaxes.
pub(super) fn x86_dollar(i: In) -> Option<PResult<Operand>> {
    use nom::character::complete::char;
    use nom::sequence::preceded;
    if !i.fragment().starts_with('$') {
        return None;
    }
    if let Ok((r, v)) = preceded(char::<_, ParseError>('$'), crate::litmus::lex::int)(i) {
        return Some(Ok((r, Operand::Imm(v))));
    }
    Some(
        preceded(char('$'), crate::litmus::lex::ident)(i)
            .map(|(r, n)| (r, Operand::Sym(n.to_string()))),
    )
}
