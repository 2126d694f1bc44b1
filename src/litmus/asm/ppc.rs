//! Power instruction syntax: `li r1,1`, `stw r1,0(r2)`, `lwzx r1,r2,r3`, `stwcx. r1,0,r2`.
//! Mnemonics and `rN` registers are lower case; `%name` symbolic registers are kept.

use super::{check_op, split_instr, whole};
use crate::litmus::ast::*;
use crate::litmus::error::{In, PResult, ParseError, found, hard};
use crate::litmus::lex::*;
use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::char;
use nom::combinator::recognize;
use nom::sequence::pair;

pub(super) fn instr(i: In) -> Result<Instr, nom::Err<ParseError>> {
    let (_, (op, args)) = split_instr(i)?;
    let op = check_op(op, op.fragment().to_ascii_lowercase(), MNEMONICS, "PPC")?;
    let mut args: Vec<Operand> = args
        .into_iter()
        .map(|a| whole(a, operand))
        .collect::<Result<_, _>>()?;
    // `lwz r1,0,r2` is herd's other spelling of `lwz r1,0(r2)`.
    if D_FORM.contains(&op.as_str())
        && let [_, Operand::Imm(off), Operand::Reg(b)] = &args[..]
    {
        let m = Mem {
            base: MemBase::Reg(b.clone()),
            index: None,
            offset: *off,
            shift: None,
            scale: None,
        };
        args.truncate(1);
        args.push(Operand::Mem(m));
    }
    Ok(Instr { op, args })
}

fn operand(i: In) -> PResult<Operand> {
    if i.fragment()
        .starts_with(|c: char| c.is_ascii_digit() || c == '-')
    {
        let (r, v) = int(i)?;
        let (r2, _) = blanks(r)?;
        if r2.fragment().starts_with('(') {
            let (r2, _) = pair(char('('), blanks)(r2)?;
            let (r2, b) = reg(r2)?;
            let (r2, _) = blanks(r2)?;
            let (r2, _) = char(')')(r2).or_else(|_: nom::Err<ParseError>| {
                hard(r2, format!("expected `)`, found {}", found(r2)))
            })?;
            let m = Mem {
                base: MemBase::Reg(b),
                index: None,
                offset: v,
                shift: None,
                scale: None,
            };
            return Ok((r2, Operand::Mem(m)));
        }
        return Ok((r, Operand::Imm(v)));
    }
    if let Ok((r, x)) = reg(i) {
        return Ok((r, Operand::Reg(x)));
    }
    let (r, l) = take_while1(|c: char| is_ident_char(c) || c == '.')(i)?;
    Ok((r, Operand::Sym(l.fragment().to_string())))
}

/// `r0`..`r31`, `cr0`..`cr7`, or a symbolic `%name`.
fn reg(i: In) -> PResult<String> {
    if i.fragment().starts_with('%') {
        let (r, s) = recognize(pair(char('%'), take_while(is_ident_char)))(i)?;
        return Ok((r, s.fragment().to_string()));
    }
    let (r, w) = take_while1(is_ident_char)(i)?;
    let low = w.fragment().to_ascii_lowercase();
    let num = |p: &str, max: u8| {
        low.strip_prefix(p)
            .and_then(|n| n.parse::<u8>().ok())
            .is_some_and(|n| n <= max)
    };
    if num("r", 31) || num("cr", 7) {
        Ok((r, low))
    } else {
        hard(i, format!("expected a register, found {}", found(i)))
    }
}

/// Loads and stores with a displacement operand.
const D_FORM: &[&str] = &[
    "lbz", "lhz", "lwz", "lwzu", "lwa", "ld", "stb", "sth", "stw", "stwu", "std",
];

/// The mnemonics herd's PPC front end knows.
const MNEMONICS: &[&str] = &[
    "add", "add.", "addi", "addis", "and", "and.", "andi.", "b", "beq", "bge", "bgt", "bl", "ble",
    "blr", "blt", "bne", "bng", "bnl", "clrldi", "cmpd", "cmpdi", "cmpld", "cmpldi", "cmplw",
    "cmplwi", "cmpw", "cmpwi", "com", "dcbf", "divw", "divw.", "eieio", "extsw", "hwsync", "isync",
    "lbz", "lbzx", "ld", "ldarx", "ldx", "lhz", "lhzx", "li", "lis", "lmw", "lwa", "lwarx", "lwax",
    "lwsync", "lwz", "lwzu", "lwzx", "mfcr", "mflr", "mr", "mtlr", "mulli", "mullw", "mullw.",
    "neg", "neg.", "nop", "nor", "nor.", "or", "or.", "ori", "rlwimi", "rlwinm", "slw", "sraw",
    "srawi", "stb", "stbx", "std", "stdcx.", "stdx", "sth", "sthx", "stmw", "stw", "stwcx.",
    "stwu", "stwx", "sub", "sub.", "subf", "subf.", "subi", "sync", "xor", "xor.", "xori",
];
