//! The canonical printer: herd syntax that [`super::parse`] reads back to an equal AST.

use super::ast::*;
use super::c::binop;
use std::fmt::Write;

pub fn print(t: &Test) -> String {
    let mut out = format!("{} {}\n", t.arch.name(), t.name);
    if let Some(d) = &t.doc {
        let _ = writeln!(out, "\"{d}\"");
    }
    for (k, v) in &t.info {
        let _ = writeln!(out, "{k}={v}");
    }
    for c in &t.comments {
        let _ = writeln!(out, "{c}");
    }
    out.push_str("{\n");
    for e in &t.init {
        let _ = writeln!(out, " {};", init_entry(e));
    }
    out.push_str("}\n\n");
    match t.threads.first() {
        Some(Thread::Asm(_)) => {
            let asm: Vec<&AsmThread> = t
                .threads
                .iter()
                .filter_map(|th| {
                    if let Thread::Asm(a) = th {
                        Some(a)
                    } else {
                        None
                    }
                })
                .collect();
            out.push_str(&columns(&asm, t.arch));
        }
        _ => {
            for f in &t.functions {
                c_function(&mut out, f);
                out.push('\n');
            }
            for (k, th) in t.threads.iter().enumerate() {
                if let Thread::C(c) = th {
                    if k > 0 {
                        out.push('\n');
                    }
                    c_thread(&mut out, c);
                }
            }
        }
    }
    out.push('\n');
    if !t.locations.is_empty() {
        let locs: Vec<String> = t.locations.iter().map(|l| format!("{};", loc(l))).collect();
        let _ = writeln!(out, "locations [{}]", locs.join(" "));
    }
    if let Some(f) = &t.filter {
        let _ = writeln!(out, "filter ({})", prop(f, 0));
    }
    let q = match t.condition.quant {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    let _ = writeln!(out, "{q} ({})", prop(&t.condition.prop, 0));
    out
}

fn init_entry(e: &InitEntry) -> String {
    let mut s = String::new();
    let name = loc(&e.loc);
    match &e.ty {
        Some(ty) => match ty.find('[') {
            Some(k) => s = format!("{} {name}{}", &ty[..k], &ty[k..]),
            None => s = typed(ty, &name),
        },
        None => s.push_str(&name),
    }
    if let Some(v) = &e.value {
        let _ = write!(s, "={}", value(v));
    }
    s
}

/// `int x`, `int *p`.
fn typed(ty: &str, name: &str) -> String {
    if let Some((elem, len)) = ty.strip_suffix(']').and_then(|t| t.rsplit_once('[')) {
        return format!("{}[{len}]", typed(elem, name));
    }
    if ty.ends_with('*') {
        format!("{ty}{name}")
    } else {
        format!("{ty} {name}")
    }
}

fn loc(l: &LocRef) -> String {
    match l {
        LocRef::Global(g) => g.clone(),
        LocRef::Reg { proc, reg } => format!("{proc}:{reg}"),
    }
}

fn value(v: &ValueLit) -> String {
    match v {
        ValueLit::Int(i) => i.to_string(),
        ValueLit::Addr { name, amp: true } => format!("&{name}"),
        ValueLit::Addr { name, amp: false } => name.clone(),
    }
}

fn join(xs: &[Prop], op: &str, min: u8) -> String {
    xs.iter().map(|x| prop(x, min)).collect::<Vec<_>>().join(op)
}

/// Precedences as herd parses them: `\/` < `/\` < `=>` < `~`.
fn prop(p: &Prop, min: u8) -> String {
    let (prec, s) = match p {
        Prop::True => (4, "true".into()),
        Prop::False => (4, "false".into()),
        Prop::Eq(LocRef::Global(g), ValueLit::Int(1)) if g.starts_with("fault(") => (4, g.clone()),
        Prop::Eq(l, v) => (4, format!("{}={}", loc(l), value(v))),
        Prop::Ne(l, v) => (4, format!("{}!={}", loc(l), value(v))),
        Prop::EqLoc(a, b) => {
            let rhs = match b {
                LocRef::Global(g) => format!("[{g}]"),
                r => loc(r),
            };
            (4, format!("{}={rhs}", loc(a)))
        }
        Prop::Not(a) => (4, format!("~{}", prop(a, 4))),
        // A chain inside a chain was parenthesised: it stays so.
        Prop::Or(xs) => (1, join(xs, " \\/ ", 2)),
        Prop::And(xs) => (2, join(xs, " /\\ ", 3)),
        Prop::Implies(a, b) => (3, format!("{} => {}", prop(a, 4), prop(b, 3))),
    };
    if prec < min { format!("({s})") } else { s }
}

// ------------------------------------------------------------------ assembly

fn columns(threads: &[&AsmThread], arch: Arch) -> String {
    let mut cols: Vec<Vec<String>> = threads
        .iter()
        .map(|t| {
            let mut c = vec![format!("P{}", t.proc)];
            c.extend(t.code.iter().map(|l| cell(l, arch)));
            c
        })
        .collect();
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    for c in &mut cols {
        let w = c.iter().map(String::len).max().unwrap_or(0);
        c.resize(rows, String::new());
        for s in c.iter_mut() {
            *s = format!("{s:<w$}");
        }
    }
    let mut out = String::new();
    for r in 0..rows {
        let cells: Vec<&str> = cols.iter().map(|c| c[r].as_str()).collect();
        let _ = writeln!(out, " {} ;", cells.join(" | "));
    }
    out
}

fn cell(l: &AsmLine, arch: Arch) -> String {
    let ins = l.instr.as_ref().map(|i| instr(i, arch));
    match (&l.label, ins) {
        (Some(lab), Some(i)) => format!("{lab}: {i}"),
        (Some(lab), None) => format!("{lab}:"),
        (None, Some(i)) => i,
        (None, None) => String::new(),
    }
}

/// One instruction in its architecture's syntax.
pub fn instr(i: &Instr, arch: Arch) -> String {
    let args: Vec<String> = i.args.iter().map(|a| operand(a, arch)).collect();
    if args.is_empty() {
        i.op.clone()
    } else {
        format!("{} {}", i.op, args.join(","))
    }
}

fn operand(o: &Operand, arch: Arch) -> String {
    match (o, arch) {
        (Operand::Reg(r), _) => r.clone(),
        (Operand::Sym(s), _) => s.clone(),
        (Operand::Imm(v), Arch::AArch64) => format!("#{v}"),
        (Operand::Imm(v), Arch::X86 | Arch::X86_64) => format!("${v}"),
        (Operand::Imm(v), _) => v.to_string(),
        (
            Operand::Shift {
                kind,
                amount: Some(n),
            },
            _,
        ) => format!("{kind} #{n}"),
        (Operand::Shift { kind, amount: None }, _) => kind.clone(),
        (Operand::Mem(m), _) => mem(m, arch),
    }
}

fn mem(m: &Mem, arch: Arch) -> String {
    let base = match &m.base {
        MemBase::Reg(r) | MemBase::Sym(r) => r.as_str(),
    };
    match arch {
        Arch::AArch64 => {
            let mut s = format!("[{base}");
            if let Some(x) = &m.index {
                let _ = write!(s, ",{x}");
            } else if m.offset != 0 {
                let _ = write!(s, ",#{}", m.offset);
            }
            if let Some((k, n)) = &m.shift {
                let _ = write!(s, ",{k}");
                if let Some(n) = n {
                    let _ = write!(s, " #{n}");
                }
            }
            s + "]"
        }
        Arch::X86_64 => {
            let mut s = if m.offset != 0 {
                m.offset.to_string()
            } else {
                String::new()
            };
            let _ = write!(s, "({base}");
            if let Some(x) = &m.index {
                let _ = write!(s, ",{x}");
            }
            if let Some(k) = m.scale {
                let _ = write!(s, ",{k}");
            }
            s + ")"
        }
        Arch::X86 => format!("[{base}]"),
        _ => format!("{}({base})", m.offset),
    }
}

// ------------------------------------------------------------------------- C

fn c_thread(out: &mut String, t: &CThread) {
    let ps: Vec<String> = t.params.iter().map(|p| typed(&p.ty, &p.name)).collect();
    let _ = writeln!(out, "P{}({})\n{{", t.proc, ps.join(", "));
    for s in &t.body {
        stmt(out, s, 1);
    }
    out.push_str("}\n");
}

fn c_function(out: &mut String, f: &CFunc) {
    let ps: Vec<String> = f.params.iter().map(|p| typed(&p.ty, &p.name)).collect();
    let ps = if ps.is_empty() {
        "void".to_string()
    } else {
        ps.join(", ")
    };
    let _ = writeln!(out, "static inline {} {}({ps})\n{{", f.ret, f.name);
    for s in &f.body {
        stmt(out, s, 1);
    }
    out.push_str("}\n");
}

fn indent(out: &mut String, depth: usize) {
    out.extend(std::iter::repeat_n('\t', depth));
}

fn stmts_block(out: &mut String, body: &[Stmt], depth: usize) {
    out.push_str("{\n");
    for s in body {
        stmt(out, s, depth + 1);
    }
    indent(out, depth);
    out.push('}');
}

fn stmt(out: &mut String, s: &Stmt, depth: usize) {
    indent(out, depth);
    match s {
        Stmt::Decl { .. } | Stmt::Expr(..) => {
            out.push_str(&simple_stmt(s));
            out.push(';');
        }
        Stmt::If {
            cond, then, els, ..
        } => {
            let _ = write!(out, "if ({}) ", expr(cond, 0));
            stmts_block(out, then, depth);
            if let Some(e) = els {
                out.push_str(" else ");
                stmts_block(out, e, depth);
            }
        }
        Stmt::While { cond, body, .. } => {
            let _ = write!(out, "while ({}) ", expr(cond, 0));
            stmts_block(out, body, depth);
        }
        Stmt::DoWhile { body, cond, .. } => {
            out.push_str("do ");
            stmts_block(out, body, depth);
            let _ = write!(out, " while ({});", expr(cond, 0));
        }
        Stmt::For {
            init,
            cond,
            step,
            body,
            ..
        } => {
            let i = init.as_deref().map(simple_stmt).unwrap_or_default();
            let c = cond.as_ref().map(|e| expr(e, 0)).unwrap_or_default();
            let st = step.as_ref().map(|e| expr(e, 0)).unwrap_or_default();
            let _ = write!(out, "for ({i}; {c}; {st}) ");
            stmts_block(out, body, depth);
        }
        Stmt::Block(b) => stmts_block(out, b, depth),
        Stmt::Switch { cond, body, .. } => {
            let _ = write!(out, "switch ({}) ", expr(cond, 0));
            stmts_block(out, body, depth);
        }
        Stmt::Case(Some(v), _) => {
            let _ = write!(out, "case {}:", expr(v, 0));
        }
        Stmt::Case(None, _) => out.push_str("default:"),
        Stmt::Goto(l, _) => {
            let _ = write!(out, "goto {l};");
        }
        Stmt::Label(l, _) => {
            let _ = write!(out, "{l}:");
        }
        Stmt::Break(_) => out.push_str("break;"),
        Stmt::Continue(_) => out.push_str("continue;"),
        Stmt::Return(None, _) => out.push_str("return;"),
        Stmt::Return(Some(e), _) => {
            let _ = write!(out, "return {};", expr(e, 0));
        }
        Stmt::Empty => out.push(';'),
    }
    out.push('\n');
}

/// A declaration or expression statement without its `;` (also used in `for` headers).
fn simple_stmt(s: &Stmt) -> String {
    match s {
        Stmt::Decl { ty, name, init, .. } => {
            let mut d = typed(ty, name);
            if let Some(e) = init {
                let _ = write!(d, " = {}", expr(e, 1));
            }
            d
        }
        Stmt::Expr(e, _) => expr(e, 0),
        _ => String::new(),
    }
}

const PREC_ASSIGN: u8 = 1;
const PREC_COND: u8 = 2;
const PREC_UNARY: u8 = 13;
const PREC_POSTFIX: u8 = 14;

fn bin_str(op: BinOp) -> &'static str {
    use BinOp::*;
    match op {
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
        Rem => "%",
        And => "&",
        Or => "|",
        Xor => "^",
        Shl => "<<",
        Shr => ">>",
        Eq => "==",
        Ne => "!=",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        LAnd => "&&",
        LOr => "||",
    }
}

fn bin_prec(op: BinOp) -> u8 {
    binop(bin_str(op)).map_or(0, |(_, p)| p + PREC_COND)
}

/// C with the fewest parentheses that parse back to the same tree.
pub fn expr(e: &Expr, min: u8) -> String {
    let (prec, s) = match e {
        Expr::Int(v) => (PREC_POSTFIX + 1, v.to_string()),
        Expr::Var(n, _) => (PREC_POSTFIX + 1, n.clone()),
        Expr::Call { name, args, .. } => {
            let a: Vec<String> = args.iter().map(|a| expr(a, PREC_ASSIGN)).collect();
            (PREC_POSTFIX, format!("{name}({})", a.join(", ")))
        }
        Expr::Unary(op @ (UnOp::PostInc | UnOp::PostDec), a) => {
            let o = if *op == UnOp::PostInc { "++" } else { "--" };
            (PREC_POSTFIX, format!("{}{o}", expr(a, PREC_POSTFIX)))
        }
        Expr::Unary(op, a) => {
            let o = match op {
                UnOp::Neg => "-",
                UnOp::Not => "!",
                UnOp::BitNot => "~",
                UnOp::Deref => "*",
                UnOp::AddrOf => "&",
                UnOp::PreInc => "++",
                _ => "--",
            };
            let inner = expr(a, PREC_UNARY);
            let sep = if inner.starts_with(['-', '+', '&', '*']) {
                " "
            } else {
                ""
            };
            (PREC_UNARY, format!("{o}{sep}{inner}"))
        }
        Expr::Binary(op, a, b) => {
            let p = bin_prec(*op);
            (
                p,
                format!("{} {} {}", expr(a, p), bin_str(*op), expr(b, p + 1)),
            )
        }
        Expr::Assign { op, lhs, rhs } => {
            let o = op.map_or("", bin_str);
            (
                PREC_ASSIGN,
                format!(
                    "{} {o}= {}",
                    expr(lhs, PREC_COND + 1),
                    expr(rhs, PREC_ASSIGN)
                ),
            )
        }
        Expr::Cast(ty, a) => (PREC_UNARY, format!("({ty}){}", expr(a, PREC_UNARY))),
        Expr::Cond(c, a, b) => (
            PREC_COND,
            format!(
                "{} ? {} : {}",
                expr(c, PREC_COND + 1),
                expr(a, PREC_ASSIGN),
                expr(b, PREC_COND)
            ),
        ),
        Expr::Index(a, i) => (
            PREC_POSTFIX,
            format!("{}[{}]", expr(a, PREC_POSTFIX), expr(i, 0)),
        ),
        Expr::Field { base, field, arrow } => {
            let sep = if *arrow { "->" } else { "." };
            (
                PREC_POSTFIX,
                format!("{}{sep}{field}", expr(base, PREC_POSTFIX)),
            )
        }
    };
    if prec < min { format!("({s})") } else { s }
}
