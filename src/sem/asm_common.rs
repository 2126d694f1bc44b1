//! Pieces shared by the assembly dialects: running a thread's lines with labels and
//! herd's loop bound, value arithmetic on addresses, and the choice explorer used by tests.

use super::{Deps, Stop, Symbols, TVal, Tracer, Value};
use crate::litmus::ast::{Arch, AsmThread, Instr, Span};
use std::collections::HashMap;

/// What an instruction does to control flow.
pub enum Flow {
    Next,
    /// Jump to a label. Every backward jump counts against the unrolling bound (herd
    /// exempts conditional jumps decided by constants, which can make it diverge on
    /// retry loops such as `stwcx.; bne`; we bound those too).
    Jump(String),
    /// Jump by a number of instructions from this one (`B .+8` is 2 on AArch64); counts
    /// against the unrolling bound like a jump to a label when it goes backwards.
    Skip(i64),
    /// Stop the thread.
    Exit,
}

/// Run the thread's code from its first line, calling `step` on each instruction in a
/// fresh instruction instance. A backward jump taken more than `tracer.unroll` times to
/// the same target cuts the run ([`Stop::Cut`]), as herd's `-unroll`.
pub fn exec<S>(
    thread: &AsmThread,
    tracer: &mut Tracer,
    state: &mut S,
    mut step: impl FnMut(&mut S, &Instr, Span, &mut Tracer) -> Result<Flow, Stop>,
) -> Result<(), Stop> {
    let labels = labels(thread)?;
    let mut seen: HashMap<usize, u32> = HashMap::new();
    let mut pc = 0;
    // A loop whose condition never depends on a read is not bounded by herd either;
    // cap it so that a run always ends.
    let mut fuel = 100_000u32;
    while pc < thread.code.len() {
        let line = &thread.code[pc];
        let Some(instr) = &line.instr else {
            pc += 1;
            continue;
        };
        fuel = fuel.checked_sub(1).ok_or(Stop::Cut)?;
        tracer.next_instr();
        match step(state, instr, line.span, tracer).map_err(|e| with_span(e, line.span))? {
            Flow::Next => pc += 1,
            Flow::Exit => break,
            Flow::Skip(k) => {
                let tgt = skip_target(thread, pc, k).ok_or_else(|| {
                    Stop::error(Some(line.span), format!("jump by {k} leaves the code"))
                })?;
                if tgt <= pc {
                    let n = seen.entry(tgt).or_insert(0);
                    *n += 1;
                    if *n > tracer.unroll {
                        return Err(Stop::Cut);
                    }
                }
                pc = tgt;
            }
            Flow::Jump(label) => {
                let Some(&tgt) = labels.get(label.as_str()) else {
                    return Err(Stop::error(
                        Some(line.span),
                        format!("unknown label {label}"),
                    ));
                };
                if tgt <= pc {
                    let n = seen.entry(tgt).or_insert(0);
                    *n += 1;
                    if *n > tracer.unroll {
                        return Err(Stop::Cut);
                    }
                }
                pc = tgt;
            }
        }
    }
    Ok(())
}

/// The line `k` instructions after (before, when negative) the instruction at line `pc`;
/// one past the last instruction is the end of the thread.
fn skip_target(thread: &AsmThread, pc: usize, k: i64) -> Option<usize> {
    let instrs: Vec<usize> = (0..thread.code.len())
        .filter(|&l| thread.code[l].instr.is_some())
        .chain(std::iter::once(thread.code.len()))
        .collect();
    let here = instrs.iter().position(|&l| l == pc)? as i64;
    instrs.get(usize::try_from(here + k).ok()?).copied()
}

fn labels(thread: &AsmThread) -> Result<HashMap<&str, usize>, Stop> {
    let mut m = HashMap::new();
    for (i, l) in thread.code.iter().enumerate() {
        if let Some(name) = &l.label
            && m.insert(name.as_str(), i).is_some()
        {
            return Err(Stop::error(
                Some(l.span),
                format!("label {name} defined twice"),
            ));
        }
    }
    Ok(m)
}

/// Give a position to errors raised without one.
fn with_span(e: Stop, span: Span) -> Stop {
    match e {
        Stop::Error(mut se) if se.span.is_none() => {
            se.span = Some(span);
            Stop::Error(se)
        }
        e => e,
    }
}

/// An error for an instruction this dialect cannot run.
/// The instruction is shown as the test writes it (in `arch`'s syntax).
pub fn unsupported(i: &Instr, arch: Arch) -> Stop {
    Stop::error(
        None,
        format!(
            "unsupported instruction or operands: `{}`",
            crate::litmus::print_instr(i, arch)
        ),
    )
}

/// Integer arithmetic on values; an address may only be offset by zero (tests are not
/// mixed-size).
pub fn arith(op: &str, a: Value, b: Value) -> Result<Value, Stop> {
    use Value::{Addr, Int};
    let shown = |v: Value| match v {
        Int(x) => x.to_string(),
        Addr(_) => "an address".to_string(),
    };
    let bad = || {
        Stop::error(
            None,
            format!("cannot compute {op} on {} and {}", shown(a), shown(b)),
        )
    };
    Ok(match (a, b) {
        (Int(x), Int(y)) => Int(match op {
            "add" => x.wrapping_add(y),
            "sub" => x.wrapping_sub(y),
            "mul" => x.wrapping_mul(y),
            "div" => {
                if y == 0 {
                    0
                } else {
                    x.wrapping_div(y)
                }
            }
            "and" => x & y,
            "or" => x | y,
            "xor" => x ^ y,
            "andnot" => x & !y,
            "lsl" => x.wrapping_shl(y as u32),
            "lsr" => ((x as u64).wrapping_shr(y as u32)) as i64,
            "asr" => x.wrapping_shr(y as u32),
            "max" => x.max(y),
            "min" => x.min(y),
            "umax" => (x as u64).max(y as u64) as i64,
            "umin" => (x as u64).min(y as u64) as i64,
            _ => return Err(bad()),
        }),
        (Addr(l), Int(0)) | (Int(0), Addr(l)) if matches!(op, "add" | "or" | "xor") => Addr(l),
        (Addr(l), Int(0)) if matches!(op, "sub" | "lsl" | "lsr" | "asr") => Addr(l),
        (Addr(l), Addr(m))
            if l == m && matches!(op, "and" | "or" | "max" | "min" | "umax" | "umin") =>
        {
            Addr(l)
        }
        (Addr(l), Addr(m)) if l == m && matches!(op, "xor" | "sub") => Int(0),
        _ => return Err(bad()),
    })
}

/// `a + b` where `a` may be an address: an array's base plus a byte offset is the cell
/// there (see [`Symbols::offset`]); anything else is plain [`arith`].
pub fn add_addr(symbols: &Symbols, a: Value, b: Value) -> Result<Value, Stop> {
    match (a, b) {
        (Value::Addr(l), Value::Int(k)) | (Value::Int(k), Value::Addr(l)) if k != 0 => {
            symbols.offset(l, k).map(Value::Addr).ok_or_else(|| {
                Stop::error(
                    None,
                    format!(
                        "address {}+{k} is not a location of the test",
                        symbols.name(l)
                    ),
                )
            })
        }
        _ => arith("add", a, b),
    }
}

/// [`add_addr`] as a traced value: displacement addressing (`4(r2)`, `8(%rax)`) and
/// address arithmetic (`addi r2,r2,4`) on an array's cells.
pub fn add_addr_t(symbols: &Symbols, a: TVal, b: TVal) -> Result<TVal, Stop> {
    Ok(a.with(add_addr(symbols, a.v, b.v)?, b))
}

/// `a op b` as a traced value.
pub fn arith_t(op: &str, a: TVal, b: TVal) -> Result<TVal, Stop> {
    Ok(a.with(arith(op, a.v, b.v)?, b))
}

/// Comparison result, herd-style: which of `<`, `>`, `=` holds (signed).
pub fn compare(a: Value, b: Value) -> Result<std::cmp::Ordering, Stop> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(x.cmp(&y)),
        (Value::Addr(x), Value::Addr(y)) if x == y => Ok(std::cmp::Ordering::Equal),
        // Distinct symbols, or a symbol and an integer, are simply different.
        (Value::Addr(x), Value::Addr(y)) => Ok(x.cmp(&y)),
        (Value::Addr(_), Value::Int(_)) => Ok(std::cmp::Ordering::Greater),
        (Value::Int(_), Value::Addr(_)) => Ok(std::cmp::Ordering::Less),
    }
}

/// Deps of several values together.
pub fn deps_of(vals: &[TVal]) -> Deps {
    vals.iter().fold(Deps::NONE, |d, v| d.union(v.deps))
}

#[cfg(test)]
pub mod testing {
    //! Drive a thread through every choice sequence, as the enumerator does.

    use super::super::{Domain, Kind, LocId, Stop, Symbols, ThreadExec, ThreadInit, Tracer, Value};
    use crate::litmus::ast::{Arch, AsmLine, AsmThread, Instr, Operand, Span};
    use std::collections::BTreeMap;

    /// A register operand.
    pub fn r(n: &str) -> Operand {
        Operand::Reg(n.into())
    }

    /// The memory operand `[reg]` / `0(reg)`.
    pub fn at(reg: &str) -> Operand {
        Operand::Mem(crate::litmus::ast::Mem {
            base: crate::litmus::ast::MemBase::Reg(reg.into()),
            index: None,
            offset: 0,
            shift: None,
            scale: None,
        })
    }

    /// Every location may hold 0, 1 or 2.
    pub struct Small(pub Vec<Value>);
    impl Domain for Small {
        fn values(&self, _: LocId) -> &[Value] {
            &self.0
        }
    }

    pub type RunFn =
        fn(&AsmThread, &ThreadInit, &mut Tracer) -> Result<BTreeMap<String, Value>, Stop>;

    /// All complete runs of `thread` (cut and dead runs are dropped).
    pub fn explore(
        run: RunFn,
        arch: Arch,
        thread: &AsmThread,
        regs: &[(&str, Value)],
        syms: &Symbols,
    ) -> Vec<ThreadExec> {
        let dom = Small(vec![Value::Int(0), Value::Int(1), Value::Int(2)]);
        let init = ThreadInit {
            arch,
            proc: thread.proc,
            regs: regs.iter().map(|(r, v)| (r.to_string(), *v)).collect(),
            symbols: syms,
        };
        let mut out = Vec::new();
        let mut todo = vec![Vec::new()];
        while let Some(prefix) = todo.pop() {
            let mut t = Tracer::new(&prefix, &dom, syms, 2);
            match run(thread, &init, &mut t) {
                Ok(regs) => out.push(t.finish(regs)),
                Err(Stop::Choose(n)) => {
                    for c in 0..n {
                        let mut p = prefix.clone();
                        p.push(c);
                        todo.push(p);
                    }
                }
                Err(Stop::Cut) | Err(Stop::Dead) | Err(Stop::Undefined(_)) => {}
                Err(Stop::Error(e)) => panic!("semantics error: {e}"),
                Err(Stop::Need(n)) => panic!("a choices oracle needs nothing: {n:?}"),
            }
        }
        out
    }

    /// A thread from `(label, op, args)` rows.
    pub fn thread(proc: u32, rows: Vec<(Option<&str>, &str, Vec<Operand>)>) -> AsmThread {
        AsmThread {
            proc,
            code: rows
                .into_iter()
                .map(|(label, op, args)| AsmLine {
                    label: label.map(str::to_string),
                    instr: Some(Instr {
                        op: op.to_string(),
                        args,
                    }),
                    span: Span::default(),
                })
                .collect(),
        }
    }

    pub fn kinds(e: &ThreadExec) -> Vec<Kind> {
        e.events.iter().map(|e| e.kind).collect()
    }

    pub fn has_rel(e: &ThreadExec, name: &str, a: u32, b: u32) -> bool {
        e.rels.contains(&(name_static(name), a, b))
    }

    fn name_static(n: &str) -> &'static str {
        match n {
            "addr" => "addr",
            "data" => "data",
            "ctrl" => "ctrl",
            "rmw" => "rmw",
            "iico_data" => "iico_data",
            "iico_order" => "iico_order",
            "pick-addr-dep" => "pick-addr-dep",
            "pick-data-dep" => "pick-data-dep",
            "pick-ctrl-dep" => "pick-ctrl-dep",
            "pick-dep" => "pick-dep",
            _ => "?",
        }
    }

    pub fn syms(names: &[&str]) -> Symbols {
        let mut s = Symbols::default();
        for n in names {
            s.intern(n);
        }
        s
    }
}
