//! X86_64 AT&T syntax: `movq $1,(x)`, `movl (x),%eax`, `xchgq %rax,(y)`, `lock xaddq ...`,
//! `8(%rax,%rbx,4)`. Lower case canonical; a `lock` prefix becomes part of the mnemonic.

use super::{split_commas, whole};
use crate::litmus::ast::*;
use crate::litmus::error::{In, PResult, ParseError, found, hard};
use crate::litmus::lex::*;
use nom::bytes::complete::{take, take_while1};
use nom::character::complete::char;
use nom::combinator::{opt, recognize};
use nom::sequence::pair;

pub(super) fn instr(i: In) -> Result<Instr, nom::Err<ParseError>> {
    super::x86_family_instr(i, MNEMONICS, "X86_64", false, operand)
}

fn operand(i: In) -> PResult<Operand> {
    let s = *i.fragment();
    if let Some(imm) = super::x86_dollar(i) {
        return imm;
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

/// Whether herd's X86_64 front end reads `word` as a mnemonic.
pub fn is_mnemonic(word: &str) -> bool {
    MNEMONICS.contains(&word)
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
