//! Small litmus tests from unstructured bytes: 2–4 threads of up to 4 operations over two
//! locations, in C, X86, AArch64 or PPC, with a condition on what they read. Every input
//! decodes to a valid test, so a fuzzer's effort goes into the engine. Shared by the `check`
//! fuzz target and `tests/fuzz.rs`, which replays its saved inputs.

use arbitrary::Arbitrary;
use std::fmt::Write;

#[derive(Arbitrary, Debug)]
pub struct Small {
    arch: u8,
    first: Vec<Op>,
    second: Vec<Op>,
    more: Vec<Vec<Op>>,
    terms: Vec<Term>,
    quantifier: u8,
    or: bool,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
struct Op {
    kind: u8,
    loc: bool,
    value: bool,
}

#[derive(Arbitrary, Debug)]
struct Term {
    thread: u8,
    /// A register the thread reads, or (when it reads none) a location.
    which: u8,
    value: u8,
}

const OPS_PER_THREAD: usize = 4;
const THREADS: usize = 4;

/// One thread's text (its lines) and the registers it reads, in order.
struct Thread {
    lines: Vec<String>,
    reads: Vec<String>,
}

/// The test `s` stands for, as text.
pub fn render(s: &Small) -> String {
    let mut threads: Vec<&[Op]> = vec![&s.first, &s.second];
    threads.extend(s.more.iter().map(Vec::as_slice));
    threads.truncate(THREADS);
    let threads: Vec<&[Op]> = threads
        .into_iter()
        .map(|t| &t[..t.len().min(OPS_PER_THREAD)])
        .collect();
    let arch = s.arch % 4;
    let bodies: Vec<Thread> = threads
        .iter()
        .map(|ops| {
            let mut t = Thread {
                lines: Vec::new(),
                reads: Vec::new(),
            };
            for (i, op) in ops.iter().enumerate() {
                match arch {
                    0 => c_op(&mut t, i, *op),
                    1 => x86_op(&mut t, i, *op),
                    2 => aarch64_op(&mut t, i, *op),
                    _ => ppc_op(&mut t, i, *op),
                }
            }
            t
        })
        .collect();
    let mut out = String::new();
    let n = bodies.len();
    match arch {
        0 => {
            out += "C fuzz\n{}\n";
            for (i, b) in bodies.iter().enumerate() {
                let _ = writeln!(out, "P{i}(int *x, int *y, spinlock_t *s, atomic_t *a) {{");
                for r in ["r0", "r1", "r2", "r3"] {
                    let _ = writeln!(out, "  int {r};");
                }
                for l in &b.lines {
                    let _ = writeln!(out, "  {l}");
                }
                out += "}\n";
            }
        }
        _ => {
            let (name, init) = match arch {
                1 => ("X86", String::new()),
                2 => (
                    "AArch64",
                    (0..n).map(|i| format!("{i}:X1=x; {i}:X2=y; ")).collect(),
                ),
                _ => (
                    "PPC",
                    (0..n).map(|i| format!("{i}:r1=x; {i}:r2=y; ")).collect(),
                ),
            };
            let _ = writeln!(out, "{name} fuzz\n{{ {init}}}");
            let rows = bodies
                .iter()
                .map(|b| b.lines.len())
                .max()
                .unwrap_or(0)
                .max(1);
            let header: Vec<String> = (0..n).map(|i| format!("P{i}")).collect();
            let _ = writeln!(out, " {} ;", header.join(" | "));
            for r in 0..rows {
                let cells: Vec<&str> = bodies
                    .iter()
                    .map(|b| b.lines.get(r).map_or("", String::as_str))
                    .collect();
                let _ = writeln!(out, " {} ;", cells.join(" | "));
            }
        }
    }
    let quantifier = ["exists", "~exists", "forall"][usize::from(s.quantifier % 3)];
    let mut props: Vec<String> = s
        .terms
        .iter()
        .take(3)
        .map(|t| {
            let k = usize::from(t.thread) % n;
            let reads = &bodies[k].reads;
            let v = t.value % 3;
            if reads.is_empty() {
                format!("{}={v}", ["x", "y"][usize::from(t.which % 2)])
            } else {
                format!("{k}:{}={v}", reads[usize::from(t.which) % reads.len()])
            }
        })
        .collect();
    if props.is_empty() {
        props.push("x=1".into());
    }
    let join = if s.or { " \\/ " } else { " /\\ " };
    let _ = writeln!(out, "{quantifier} ({})", props.join(join));
    out
}

fn loc(op: Op) -> &'static str {
    if op.loc { "y" } else { "x" }
}

fn val(op: Op) -> u8 {
    1 + u8::from(op.value)
}

/// The register the last read wrote, if any.
fn last(t: &Thread) -> Option<String> {
    t.reads.last().cloned()
}

fn c_op(t: &mut Thread, i: usize, op: Op) {
    let (l, v) = (loc(op), val(op));
    let r = format!("r{i}");
    let read = |t: &mut Thread, line: String| {
        t.lines.push(line);
        t.reads.push(r.clone());
    };
    match op.kind % 20 {
        0 => t.lines.push(format!("WRITE_ONCE(*{l}, {v});")),
        1 => read(t, format!("{r} = READ_ONCE(*{l});")),
        2 => t.lines.push(format!("smp_store_release({l}, {v});")),
        3 => read(t, format!("{r} = smp_load_acquire({l});")),
        4 => t.lines.push("smp_mb();".into()),
        5 => t.lines.push("smp_wmb();".into()),
        6 => t.lines.push("smp_rmb();".into()),
        7 => read(t, format!("{r} = xchg({l}, {v});")),
        8 => read(t, format!("{r} = cmpxchg({l}, 0, {v});")),
        9 => read(t, format!("{r} = xchg_relaxed({l}, {v});")),
        10 => match last(t) {
            Some(p) => t
                .lines
                .push(format!("if ({p} == 1) WRITE_ONCE(*{l}, {v});")),
            None => t.lines.push(format!("WRITE_ONCE(*{l}, {v});")),
        },
        11 => match last(t) {
            Some(p) => t.lines.push(format!("WRITE_ONCE(*{l}, {p});")),
            None => t.lines.push(format!("WRITE_ONCE(*{l}, {v});")),
        },
        12 => t.lines.push("spin_lock(s);".into()),
        13 => t.lines.push("spin_unlock(s);".into()),
        14 => t.lines.push("rcu_read_lock();".into()),
        15 => t.lines.push("rcu_read_unlock();".into()),
        16 => t.lines.push("synchronize_rcu();".into()),
        17 => t.lines.push("atomic_inc(a);".into()),
        18 => read(t, format!("{r} = atomic_add_return({v}, a);")),
        _ => read(t, format!("{r} = atomic_read(a);")),
    }
}

fn x86_op(t: &mut Thread, i: usize, op: Op) {
    let (l, v) = (loc(op), val(op));
    let r = ["EAX", "EBX", "ECX", "EDX"][i].to_string();
    match op.kind % 5 {
        0 | 1 => t.lines.push(format!("MOV [{l}],${v}")),
        2 | 3 => {
            t.lines.push(format!("MOV {r},[{l}]"));
            t.reads.push(r);
        }
        _ => t.lines.push("MFENCE".into()),
    }
}

fn aarch64_op(t: &mut Thread, i: usize, op: Op) {
    let (x, v) = (if op.loc { "X2" } else { "X1" }, val(op));
    let w = ["W0", "W3", "W4", "W8"][i];
    let r = ["X0", "X3", "X4", "X8"][i].to_string();
    let lines: Vec<String> = match op.kind % 12 {
        0 => vec![format!("MOV W5,#{v}"), format!("STR W5,[{x}]")],
        1 => vec![format!("LDR {w},[{x}]")],
        2 => vec![format!("MOV W5,#{v}"), format!("STLR W5,[{x}]")],
        3 => vec![format!("LDAR {w},[{x}]")],
        4 => vec!["DMB ISH".into()],
        5 => vec!["DMB ISHLD".into()],
        6 => vec!["DMB ISHST".into()],
        7 => vec!["ISB".into()],
        8 => vec![format!("MOV W5,#{v}"), format!("SWP W5,{w},[{x}]")],
        9 => vec![
            format!("LDXR {w},[{x}]"),
            format!("MOV W5,#{v}"),
            format!("STXR W7,W5,[{x}]"),
        ],
        10 => match last(t) {
            // An address dependency on the last read.
            Some(p) => {
                let p = p.replace('X', "W");
                vec![format!("EOR W6,{p},{p}"), format!("LDR {w},[{x},W6,SXTW]")]
            }
            None => vec![format!("LDR {w},[{x}]")],
        },
        _ => vec![format!("LDAPR {w},[{x}]")],
    };
    let reads = !matches!(op.kind % 12, 0 | 2 | 4 | 5 | 6 | 7);
    t.lines.extend(lines);
    if reads {
        t.reads.push(r);
    }
}

fn ppc_op(t: &mut Thread, i: usize, op: Op) {
    let (a, v) = (if op.loc { "r2" } else { "r1" }, val(op));
    let r = ["r3", "r4", "r8", "r9"][i].to_string();
    let (lines, reads): (Vec<String>, bool) = match op.kind % 9 {
        0 => (vec![format!("li r5,{v}"), format!("stw r5,0({a})")], false),
        1 | 2 => (vec![format!("lwz {r},0({a})")], true),
        3 => (vec!["sync".into()], false),
        4 => (vec!["lwsync".into()], false),
        5 => (vec!["isync".into()], false),
        6 => (vec!["eieio".into()], false),
        7 => (
            vec![
                format!("lwarx {r},0,{a}"),
                format!("li r5,{v}"),
                format!("stwcx. r5,0,{a}"),
            ],
            true,
        ),
        _ => match last(t) {
            Some(p) => (
                vec![format!("xor r6,{p},{p}"), format!("lwzx {r},r6,{a}")],
                true,
            ),
            None => (vec![format!("lwz {r},0({a})")], true),
        },
    };
    t.lines.extend(lines);
    if reads {
        t.reads.push(r);
    }
}

/// The test the bytes decode to, as the fuzz target decodes them (for `tests/fuzz.rs`;
/// the target itself is handed the decoded value).
#[allow(dead_code)]
pub fn decode(data: &[u8]) -> Option<String> {
    Small::arbitrary_take_rest(arbitrary::Unstructured::new(data))
        .ok()
        .map(|s| render(&s))
}
