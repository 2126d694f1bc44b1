//! X86_64 AT&T syntax: `movq $1,(x)`, `movl (x),%eax`, `xchgq %rax,(y)`, `lock xaddq ...`,
//! `8(%rax,%rbx,4)`. Lower case canonical; a `lock` prefix becomes part of the mnemonic.

use super::{check_op, split_commas, whole};
use crate::litmus::ast::*;
use crate::litmus::error::{In, PResult, ParseError, found, hard};
use crate::litmus::lex::*;
use nom::bytes::complete::{take, take_while1};
use nom::character::complete::char;
use nom::combinator::{opt, recognize};
use nom::sequence::{pair, preceded};

pub(super) fn instr(i: In) -> Result<Instr, nom::Err<ParseError>> {
    let (r, op) = mnemonic(i)?;
    let mut name = op.fragment().to_ascii_lowercase();
    let mut rest = r;
    if name == "lock" {
        let (r, _) = blanks(r)?;
        let (r, _) = opt(char(';'))(r)?;
        let (r, _) = blanks(r)?;
        let (r, op2) = mnemonic(r)?;
        let inner = check_op(
            op2,
            op2.fragment().to_ascii_lowercase(),
            MNEMONICS,
            "X86_64",
        )?;
        name = format!("lock {inner}");
        rest = r;
    } else {
        name = check_op(op, name, MNEMONICS, "X86_64")?;
    }
    let (rest, _) = blanks(rest)?;
    let args = split_commas(rest)?
        .into_iter()
        .map(|a| whole(a, operand))
        .collect::<Result<_, _>>()?;
    Ok(Instr { op: name, args })
}

fn mnemonic(i: In) -> PResult<In> {
    take_while1(is_ident_char)(i).or_else(|_: nom::Err<ParseError>| {
        hard(i, format!("expected an instruction, found {}", found(i)))
    })
}

fn operand(i: In) -> PResult<Operand> {
    let s = *i.fragment();
    if s.starts_with('$') {
        if let Ok((r, v)) = preceded(char::<_, ParseError>('$'), int)(i) {
            return Ok((r, Operand::Imm(v)));
        }
        let (r, n) = preceded(char('$'), ident)(i)?;
        return Ok((r, Operand::Sym(n.to_string())));
    }
    if s.starts_with('%') {
        let (r, x) = reg(i)?;
        return Ok((r, Operand::Reg(x)));
    }
    let (r, off) = opt(int)(i)?;
    if r.fragment().starts_with('(') {
        return mem(r, off.unwrap_or(0));
    }
    if let Some(v) = off {
        return Ok((r, Operand::Imm(v)));
    }
    let (r, l) = ident(i)?;
    Ok((r, Operand::Sym(l.to_string())))
}

fn reg(i: In) -> PResult<String> {
    let (r, x) = recognize(pair(char('%'), take_while1(is_ident_char)))(i)?;
    Ok((r, x.fragment().to_ascii_lowercase()))
}

/// `(x)`, `(%rax)`, `off(%rax,%rbx,scale)`.
fn mem(i: In, offset: i64) -> PResult<Operand> {
    let s = *i.fragment();
    let close = match s.find(')') {
        Some(k) => k,
        None => return hard(i, "expected `)` closing the address"),
    };
    let (after, inner) = take(close + 1)(i)?;
    let (inner, _) = take(1usize)(inner)?;
    let (inner, _) = take(close - 1)(inner).map(|(_, t)| (t, ()))?;
    let parts = split_commas(inner)?;
    let mut m = Mem {
        base: MemBase::Sym(String::new()),
        index: None,
        offset,
        shift: None,
        scale: None,
    };
    for (k, p) in parts.iter().enumerate() {
        match k {
            0 if p.fragment().starts_with('%') => m.base = MemBase::Reg(whole(*p, reg)?),
            0 => m.base = MemBase::Sym(whole(*p, ident)?.to_string()),
            1 => m.index = Some(whole(*p, reg)?),
            2 => m.scale = Some(whole(*p, int)?),
            _ => return hard(*p, format!("unexpected {} in address", found(*p))),
        }
    }
    Ok((after, Operand::Mem(m)))
}

/// The mnemonics herd's X86_64 front end knows.
const MNEMONICS: &[&str] = &[
    "add",
    "addb",
    "addw",
    "addl",
    "addq",
    "xor",
    "xorb",
    "xorw",
    "xorl",
    "xorq",
    "or",
    "orb",
    "orw",
    "orl",
    "orq",
    "and",
    "andb",
    "andw",
    "andl",
    "andq",
    "shl",
    "mov",
    "movb",
    "movw",
    "movl",
    "movq",
    "movnti",
    "movntil",
    "movntiq",
    "movd",
    "movntdqa",
    "dec",
    "decb",
    "decw",
    "decl",
    "decq",
    "inc",
    "incb",
    "incw",
    "incl",
    "incq",
    "cmp",
    "cmpb",
    "cmpw",
    "cmpl",
    "cmpq",
    "cmovc",
    "cmovcb",
    "cmovcw",
    "cmovcl",
    "cmovcq",
    "ret",
    "retq",
    "jmp",
    "je",
    "jne",
    "jle",
    "jlt",
    "jgt",
    "jge",
    "js",
    "jns",
    "xchg",
    "xchgb",
    "xchgw",
    "xchgl",
    "xchgq",
    "uxch",
    "uxchb",
    "uxchw",
    "uxchl",
    "uxchq",
    "cmpxchg",
    "cmpxchgb",
    "cmpxchgw",
    "cmpxchgl",
    "cmpxchgq",
    "xadd",
    "xaddb",
    "xaddw",
    "xaddl",
    "xaddq",
    "mfence",
    "lfence",
    "sfence",
    "setnb",
    "nopl",
    "nop",
    "nopw",
    "clflush",
    "clflushopt",
];
