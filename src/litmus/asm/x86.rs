//! X86 (32-bit, Intel operand order) syntax as herd writes it: `MOV [x],$1`,
//! `MOV EAX,[y]`, `XCHG [x],EAX`, `LOCK ADD [x],$1`, `MFENCE`. Upper case canonical;
//! a `LOCK` prefix becomes part of the mnemonic (`LOCK ADD`).

use crate::litmus::ast::*;
use crate::litmus::error::{In, PResult, ParseError, found, hard};
use crate::litmus::lex::*;
use nom::bytes::complete::take;

pub(super) fn instr(i: In) -> Result<Instr, nom::Err<ParseError>> {
    super::x86_family_instr(i, MNEMONICS, "X86", true, operand)
}

fn operand(i: In) -> PResult<Operand> {
    let s = *i.fragment();
    if let Some(imm) = super::x86_dollar(i) {
        return imm;
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
