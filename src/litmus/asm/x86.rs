//! X86 (32-bit, Intel operand order) syntax as herd writes it: `MOV [x],$1`,
//! `MOV EAX,[y]`, `XCHG [x],EAX`, `LOCK ADD [x],$1`, `MFENCE`. Upper case canonical;
//! a `LOCK` prefix becomes part of the mnemonic (`LOCK ADD`).

use super::{check_op, split_commas, whole};
use crate::litmus::ast::*;
use crate::litmus::error::{In, PResult, ParseError, found, hard};
use crate::litmus::lex::*;
use nom::bytes::complete::{take, take_while1};
use nom::character::complete::char;
use nom::sequence::preceded;

pub(super) fn instr(i: In) -> Result<Instr, nom::Err<ParseError>> {
    let (r, op) = mnemonic(i)?;
    let mut name = op.fragment().to_ascii_uppercase();
    let mut rest = r;
    if name == "LOCK" {
        let (r, _) = blanks(r)?;
        let (r, _) = nom::combinator::opt(char(';'))(r)?;
        let (r, _) = blanks(r)?;
        let (r, op2) = mnemonic(r)?;
        let inner = check_op(op2, op2.fragment().to_ascii_uppercase(), MNEMONICS, "X86")?;
        name = format!("LOCK {inner}");
        rest = r;
    } else {
        name = check_op(op, name, MNEMONICS, "X86")?;
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
    if s.starts_with('[') {
        let close = s
            .find(']')
            .map_or_else(
                || hard(i, "expected `]` closing the address"),
                |k| Ok((i, k)),
            )?
            .1;
        let (after, inner) = take(close + 1)(i)?;
        let (inner, _) = take(1usize)(inner)?;
        let (inner, _) = blanks(inner)?;
        let (r, base) = ident(inner)?;
        let (r, _) = blanks(r)?;
        if !r.fragment().starts_with(']') {
            return hard(r, format!("unexpected {} in address", found(r)));
        }
        let up = base.to_ascii_uppercase();
        let base = if is_reg(&up) {
            MemBase::Reg(up)
        } else {
            MemBase::Sym(base.to_string())
        };
        return Ok((
            after,
            Operand::Mem(Mem {
                base,
                index: None,
                offset: 0,
                shift: None,
                scale: None,
            }),
        ));
    }
    if s.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        let (r, v) = int(i)?;
        return Ok((r, Operand::Imm(v)));
    }
    let (r, w) = ident(i)?;
    let up = w.to_ascii_uppercase();
    if is_reg(&up) {
        Ok((r, Operand::Reg(up)))
    } else {
        Ok((r, Operand::Sym(w.to_string())))
    }
}

fn is_reg(up: &str) -> bool {
    REGS.contains(&up)
}

const REGS: &[&str] = &[
    "EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP", "AX", "BX", "CX", "DX", "AL", "BL",
    "CL", "DL", "AH", "BH", "CH", "DH", "EIP",
];

/// The mnemonics herd's X86 front end knows.
const MNEMONICS: &[&str] = &[
    "ADD", "XOR", "OR", "MOV", "MOVB", "MOVW", "MOVL", "MOVQ", "MOVT", "MOVSD", "DEC", "CMP",
    "CMOVC", "INC", "JMP", "JE", "JNE", "XCHG", "CMPXCHG", "LFENCE", "SFENCE", "MFENCE", "SETNB",
];
