//! Compiling C litmus tests to an architecture through a mapping table.
//!
//! The compiler walks each thread's lowered C ([`crate::sem::c::ir`], *before* kernel-macro
//! expansion, so every call still carries its kernel name) and asks the table
//! ([`mapping`]) for each primitive: an asm template, or C over other primitives, compiled
//! the same way. What is not a primitive — locals, arithmetic, `if`, `while` — the
//! architecture's [`target::Target`] emits. Locals become registers (one per local, for
//! the condition), pointer parameters registers initialised with the address (or the
//! address itself on X86), and `while` a backward branch: herd's `-unroll` then bounds
//! the compiled loop exactly as it bounds the C one. Every emitted line is parsed by our
//! own assembly parser, so a bad template is reported at its mapping line.
//!
//! The compiler never knows a memory model: judging the compiled test, and comparing
//! it with the C test, is [`compare`]'s job.

pub mod aarch64;
pub mod compare;
pub mod mapping;
pub mod ppc;
pub mod target;
pub mod x86;

use crate::litmus::ast::{
    self, Arch, AsmThread, BinOp, CThread, InitEntry, LocRef, Prop, Span, Test, Thread, UnOp,
    ValueLit,
};
use crate::sem::c::ir::{self, Ex, St};
use mapping::{AsmLine, Body, Entry, Mapping, ParamKind};
use std::collections::{BTreeMap, HashMap};
use target::{Cmp, Op, Target};

/// A compiled test.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub test: Test,
    /// The test in herd's syntax, with a header comment naming the mapping.
    pub text: String,
    /// Each C local's register, as the condition names it: `(0, r0)` → `0:r5`.
    pub regs: BTreeMap<(u32, String), String>,
    /// The table entries used, by name, with their citations.
    pub used: BTreeMap<String, String>,
}

impl Compiled {
    /// The compiled test's name for a C location.
    pub fn rename(&self, l: &LocRef) -> LocRef {
        match l {
            LocRef::Reg { proc, reg } => LocRef::Reg {
                proc: *proc,
                reg: self
                    .regs
                    .get(&(*proc, reg.clone()))
                    .cloned()
                    .unwrap_or_else(|| reg.clone()),
            },
            g => g.clone(),
        }
    }
}

/// Why a test does not compile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct CompileError {
    pub proc: Option<u32>,
    pub span: Option<Span>,
    pub msg: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.proc, self.span) {
            (Some(p), Some(s)) if s.line > 0 => {
                write!(f, "P{p}, line {}:{}: {}", s.line, s.col, self.msg)
            }
            (Some(p), _) => write!(f, "P{p}: {}", self.msg),
            _ => write!(f, "{}", self.msg),
        }
    }
}

type R<T> = Result<T, CompileError>;

/// Compile a C test with a table.
pub fn compile(test: &Test, map: &Mapping) -> R<Compiled> {
    let fail = |msg: String| CompileError {
        proc: None,
        span: None,
        msg,
    };
    if test.arch != Arch::C {
        return Err(fail(format!(
            "{} is a {} test: only C tests compile",
            test.name,
            test.arch.name()
        )));
    }
    let target = target::for_arch(map.arch)
        .ok_or_else(|| fail(format!("no compiler for {}", map.arch.name())))?;
    let mut used = BTreeMap::new();
    let mut init: Vec<InitEntry> = Vec::new();
    let mut regs = BTreeMap::new();
    let mut threads = Vec::new();
    let mut gens = Vec::new();
    for th in &test.threads {
        let Thread::C(c) = th else {
            return Err(fail("a C test with an assembly thread".into()));
        };
        let mut g = Gen::new(target.as_ref(), map, c.proc, &mut used);
        g.thread(c, test, &mut init)?;
        gens.push(g.finish());
    }
    for (proc, code, locals) in gens {
        threads.push(Thread::Asm(AsmThread { proc, code }));
        for (n, r) in locals {
            regs.insert((proc, n), target.state_name(&r));
        }
    }
    // Locals the condition names but no code touches still need a register (zero).
    let mut extra: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    let mut need = |l: &LocRef| {
        if let LocRef::Reg { proc, reg } = l
            && !regs.contains_key(&(*proc, reg.clone()))
        {
            extra.entry(*proc).or_default().push(reg.clone());
        }
    };
    prop_locs(&test.condition.prop, &mut need);
    if let Some(f) = &test.filter {
        prop_locs(f, &mut need);
    }
    test.locations.iter().for_each(&mut need);
    for e in &test.init {
        need(&e.loc);
    }
    for (proc, names) in extra {
        let Some(Thread::Asm(th)) = threads.iter().find(|t| t.proc() == proc) else {
            return Err(fail(format!("the test names P{proc}, which has no code")));
        };
        let taken: Vec<String> = regs
            .iter()
            .filter(|((p, _), _)| *p == proc)
            .map(|(_, r)| r.clone())
            .chain(init.iter().filter_map(|e| match &e.loc {
                LocRef::Reg { proc: p, reg } if *p == proc => Some(reg.clone()),
                _ => None,
            }))
            .chain(th.code.iter().flat_map(|l| l.instr.iter()).flat_map(|i| {
                i.args.iter().filter_map(|a| match a {
                    ast::Operand::Reg(r) => Some(target.state_name(r)),
                    _ => None,
                })
            }))
            .collect();
        let mut free = target
            .registers()
            .iter()
            .map(|r| target.state_name(r))
            .filter(|r| !taken.contains(r));
        for n in names {
            if regs.contains_key(&(proc, n.clone())) {
                continue;
            }
            let r = free
                .next()
                .ok_or_else(|| fail(format!("P{proc}: out of registers for {n}")))?;
            regs.insert((proc, n), r);
        }
    }
    let mut out = Compiled {
        test: Test {
            arch: map.arch,
            name: test.name.clone(),
            doc: test.doc.clone(),
            info: test.info.clone(),
            comments: Vec::new(),
            init: Vec::new(),
            threads,
            locations: Vec::new(),
            filter: None,
            condition: test.condition.clone(),
        },
        text: String::new(),
        regs,
        used,
    };
    // The C test's own init first (globals, then locals renamed), then the addresses.
    let mut all = Vec::new();
    for e in &test.init {
        all.push(InitEntry {
            ty: None,
            loc: out.rename(&e.loc),
            value: e.value.clone(),
        });
    }
    all.extend(init);
    out.test.init = all;
    out.test.locations = test.locations.iter().map(|l| out.rename(l)).collect();
    out.test.filter = test.filter.as_ref().map(|f| rename_prop(f, &out));
    out.test.condition.prop = rename_prop(&test.condition.prop, &out);
    // The comment goes just before the init block, after the header's info lines, where
    // the printer puts a test's comments.
    out.test.comments = vec![header_comment(&out, map)];
    out.text = crate::litmus::print(&out.test);
    Ok(out)
}

fn header_comment(c: &Compiled, map: &Mapping) -> String {
    // herd lexes comments as OCaml does (a `"` would open a string inside one), and
    // finds the init block by its braces even inside a comment.
    let clean = |s: &str| {
        s.replace("*)", "* )")
            .replace("(*", "( *")
            .replace('"', "`")
            .replace('{', "(")
            .replace('}', ")")
    };
    let mut h = format!(
        "(* Compiled from C by `litmus compile` with mapping {} ({}).\n",
        map.name, map.origin
    );
    if !map.about.is_empty() {
        h.push_str(&format!(" * {}\n", clean(&map.about)));
    }
    h.push_str(" * C loops are backward branches, bounded by -unroll as in the C test.\n");
    h.push_str(" * Entries used:\n");
    for (n, cite) in &c.used {
        h.push_str(&format!(" *   {n}: {}\n", clean(cite)));
    }
    h.push_str(" *)");
    h
}

fn prop_locs(p: &Prop, f: &mut impl FnMut(&LocRef)) {
    match p {
        Prop::True | Prop::False => {}
        Prop::Eq(l, v) | Prop::Ne(l, v) => {
            f(l);
            let _ = v;
        }
        Prop::EqLoc(a, b) => {
            f(a);
            f(b);
        }
        Prop::Not(a) => prop_locs(a, f),
        Prop::And(ps) | Prop::Or(ps) => ps.iter().for_each(|q| prop_locs(q, f)),
        Prop::Implies(a, b) => {
            prop_locs(a, f);
            prop_locs(b, f);
        }
    }
}

fn rename_prop(p: &Prop, c: &Compiled) -> Prop {
    let b = |q: &Prop| Box::new(rename_prop(q, c));
    match p {
        Prop::True => Prop::True,
        Prop::False => Prop::False,
        Prop::Eq(l, v) => Prop::Eq(c.rename(l), v.clone()),
        Prop::Ne(l, v) => Prop::Ne(c.rename(l), v.clone()),
        Prop::EqLoc(a, x) => Prop::EqLoc(c.rename(a), c.rename(x)),
        Prop::Not(a) => Prop::Not(b(a)),
        Prop::And(ps) => Prop::And(ps.iter().map(|q| rename_prop(q, c)).collect()),
        Prop::Or(ps) => Prop::Or(ps.iter().map(|q| rename_prop(q, c)).collect()),
        Prop::Implies(a, x) => Prop::Implies(b(a), b(x)),
    }
}

/// What a name stands for while code is generated.
#[derive(Clone, Debug)]
enum Bind {
    /// A register holding the local's (or parameter's) value.
    Local(String),
    /// A value that is not in a register: an immediate, or a global's address (X86).
    Val(Op),
    /// `&local` passed to a table entry: `*p` reads and writes the caller's register.
    LocalRef(String),
}

struct Scope {
    binds: HashMap<String, Bind>,
    /// Registers to free when the scope ends (a C body's locals).
    owned: Vec<String>,
}

/// Code generation for one thread.
struct Gen<'a> {
    t: &'a dyn Target,
    map: &'a Mapping,
    proc: u32,
    code: Vec<ast::AsmLine>,
    busy: Vec<bool>,
    /// Expression temporaries, freed at the end of the statement that made them.
    temps: Vec<String>,
    /// Per open loop, its `continue` and `break` targets.
    loops: Vec<(String, String)>,
    scopes: Vec<Scope>,
    labels: u32,
    span: Span,
    depth: usize,
    used: &'a mut BTreeMap<String, String>,
}

/// Entries calling entries deeper than this are a cycle in the table.
const MAX_DEPTH: usize = 24;

impl<'a> Gen<'a> {
    fn new(
        t: &'a dyn Target,
        map: &'a Mapping,
        proc: u32,
        used: &'a mut BTreeMap<String, String>,
    ) -> Gen<'a> {
        Gen {
            t,
            map,
            proc,
            code: Vec::new(),
            busy: vec![false; t.registers().len()],
            temps: Vec::new(),
            loops: Vec::new(),
            scopes: vec![Scope {
                binds: HashMap::new(),
                owned: Vec::new(),
            }],
            labels: 0,
            span: Span::default(),
            depth: 0,
            used,
        }
    }

    /// The thread's code and its locals' registers.
    fn finish(self) -> (u32, Vec<ast::AsmLine>, Vec<(String, String)>) {
        let locals = self.scopes[0]
            .binds
            .iter()
            .filter_map(|(n, b)| match b {
                Bind::Local(r) => Some((n.clone(), r.clone())),
                _ => None,
            })
            .collect();
        (self.proc, self.code, locals)
    }

    fn err(&self, msg: impl Into<String>) -> CompileError {
        CompileError {
            proc: Some(self.proc),
            span: Some(self.span),
            msg: msg.into(),
        }
    }

    fn thread(&mut self, c: &CThread, test: &Test, init: &mut Vec<InitEntry>) -> R<()> {
        for p in &c.params {
            if self.t.direct_globals() {
                self.bind(&p.name, Bind::Val(Op::Sym(p.name.clone())));
            } else {
                let r = self.alloc()?;
                init.push(InitEntry {
                    ty: None,
                    loc: LocRef::Reg {
                        proc: self.proc,
                        reg: self.t.state_name(&r),
                    },
                    value: Some(ValueLit::Addr {
                        name: p.name.clone(),
                        amp: false,
                    }),
                });
                self.bind(&p.name, Bind::Local(r));
            }
        }
        // Locals the init block sets keep their register from the start.
        for e in &test.init {
            if let LocRef::Reg { proc, reg } = &e.loc
                && *proc == self.proc
            {
                self.local(reg)?;
            }
        }
        let body = ir::lower_body(&c.body).map_err(|(span, msg)| CompileError {
            proc: Some(self.proc),
            span: Some(span),
            msg,
        })?;
        self.stmt(&body)
    }

    // ------------------------------------------------------------ registers, names

    fn alloc(&mut self) -> R<String> {
        let k = self.busy.iter().position(|b| !b).ok_or_else(|| {
            self.err(format!(
                "out of registers ({} on {})",
                self.busy.len(),
                self.t.arch().name()
            ))
        })?;
        self.busy[k] = true;
        Ok(self.t.registers()[k].to_string())
    }

    fn free(&mut self, r: &str) {
        if let Some(k) = self.t.registers().iter().position(|x| *x == r) {
            self.busy[k] = false;
        }
    }

    fn temp(&mut self) -> R<String> {
        let r = self.alloc()?;
        self.temps.push(r.clone());
        Ok(r)
    }

    fn bind(&mut self, n: &str, b: Bind) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .binds
            .insert(n.to_string(), b);
    }

    fn lookup(&self, n: &str) -> Option<&Bind> {
        self.scopes.last().and_then(|s| s.binds.get(n))
    }

    /// The register of a local, allocated at its first mention.
    fn local(&mut self, n: &str) -> R<String> {
        match self.lookup(n) {
            Some(Bind::Local(r)) => return Ok(r.clone()),
            Some(_) => return Err(self.err(format!("`{n}` is not a local that can be assigned"))),
            None => {}
        }
        let r = self.alloc()?;
        if self.scopes.len() > 1 {
            self.scopes
                .last_mut()
                .expect("a scope")
                .owned
                .push(r.clone());
        }
        self.bind(n, Bind::Local(r.clone()));
        Ok(r)
    }

    fn label(&mut self) -> R<String> {
        let n = self.labels;
        self.labels += 1;
        if n >= 100 {
            return Err(self.err("more than 100 labels in one thread"));
        }
        Ok(format!("LC{}{n:02}", self.proc))
    }

    fn place(&mut self, l: &str) {
        self.code.push(ast::AsmLine {
            label: Some(l.to_string()),
            instr: None,
            span: Span::default(),
        });
    }

    /// Emit lines of our own making (a parse failure is a bug in the target).
    fn emit(&mut self, lines: Vec<String>) -> R<()> {
        for l in lines {
            let i = crate::litmus::parse_instr(&l, self.t.arch())
                .map_err(|e| self.err(format!("internal: `{l}` does not parse: {e}")))?;
            self.code.push(ast::AsmLine {
                label: None,
                instr: Some(i),
                span: Span::default(),
            });
        }
        Ok(())
    }

    /// An operand in a register.
    fn in_reg(&mut self, op: Op) -> R<String> {
        match op {
            Op::Reg(r) => Ok(r),
            Op::Imm(i) => {
                let r = self.temp()?;
                let l = self.t.load_imm(&r, i);
                self.emit(l)?;
                Ok(r)
            }
            Op::Sym(s) => Err(self.err(format!(
                "the address of {s} as a value is not supported on {}",
                self.t.arch().name()
            ))),
        }
    }

    /// `dst = op`.
    fn set(&mut self, dst: &str, op: Op) -> R<()> {
        match op {
            Op::Reg(r) if r == dst => Ok(()),
            Op::Reg(r) => {
                let l = self.t.mov(dst, &r);
                self.emit(l)
            }
            Op::Imm(i) => {
                let l = self.t.load_imm(dst, i);
                self.emit(l)
            }
            Op::Sym(s) => Err(self.err(format!(
                "the address of {s} as a value is not supported on {}",
                self.t.arch().name()
            ))),
        }
    }

    // ------------------------------------------------------------ statements

    fn stmt(&mut self, st: &St) -> R<()> {
        let mark = self.temps.len();
        let r = self.stmt_inner(st);
        for t in self.temps.split_off(mark) {
            self.free(&t);
        }
        r
    }

    fn stmt_inner(&mut self, st: &St) -> R<()> {
        match st {
            St::Seq(v) => v.iter().try_for_each(|s| self.stmt(s)),
            St::Decl(n) => self.local(n).map(drop),
            St::SetReg(n, e, sp) => {
                self.span = *sp;
                let r = self.local(n)?;
                self.assign(&r, n, e)
            }
            St::Eval(e, sp) => {
                self.span = *sp;
                match e {
                    Ex::Call(name, args, s) => {
                        self.span = *s;
                        self.call(name, args, None)
                    }
                    e => self.eval(e).map(drop),
                }
            }
            St::Store(addr, v, annot, sp) if annot.is_empty() => {
                self.span = *sp;
                if let Some(r) = self.local_ref(addr) {
                    return self.assign(&r, "", v);
                }
                let lv = Ex::Load(Box::new(addr.clone()), Vec::new());
                self.call("WRITE_ONCE", &[lv, v.clone()], None)
            }
            St::Call(name, args, sp) => {
                self.span = *sp;
                self.call(name, args, None)
            }
            St::If {
                cond: c,
                then,
                els,
                span: sp,
                ..
            } => {
                self.span = *sp;
                let lelse = self.label()?;
                self.branch(c, &lelse, false)?;
                self.stmt(then)?;
                match els {
                    Some(e) => {
                        let lend = self.label()?;
                        let j = self.t.jump(&lend);
                        self.emit(j)?;
                        self.place(&lelse);
                        self.stmt(e)?;
                        self.place(&lend);
                    }
                    None => self.place(&lelse),
                }
                Ok(())
            }
            // Every loop form: the test before (`while`, `for`) or after (`do`) the body,
            // `continue` to the step, `break` past the end. herd's `-unroll` bounds the
            // backward branch as the C interpreter bounds the loop.
            St::Loop(l) => {
                self.span = l.span;
                let top = self.label()?;
                let cont = self.label()?;
                let end = self.label()?;
                self.place(&top);
                if let (true, Some(c)) = (l.test_first, &l.cond) {
                    self.branch(c, &end, false)?;
                }
                self.loops.push((cont.clone(), end.clone()));
                let body = self.stmt(&l.body);
                self.loops.pop();
                body?;
                self.place(&cont);
                if let Some(step) = &l.step {
                    self.stmt(step)?;
                }
                match (&l.cond, l.test_first) {
                    (Some(c), false) => self.branch(c, &top, true)?,
                    _ => {
                        let j = self.t.jump(&top);
                        self.emit(j)?;
                    }
                }
                self.place(&end);
                Ok(())
            }
            St::Break(sp) | St::Continue(sp) => {
                self.span = *sp;
                let Some((cont, end)) = self.loops.last().cloned() else {
                    return Err(self.err("`break` or `continue` outside a loop"));
                };
                let to = if matches!(st, St::Break(_)) {
                    end
                } else {
                    cont
                };
                let j = self.t.jump(&to);
                self.emit(j)
            }
            St::Return(sp) => {
                self.span = *sp;
                Err(self.err(format!(
                    "`return` is not supported by compile on {} yet",
                    self.t.arch().name()
                )))
            }
            St::SetElem(_, _, _, sp) => {
                self.span = *sp;
                Err(self.err(format!(
                    "local arrays are not supported by compile on {} yet",
                    self.t.arch().name()
                )))
            }
            St::Store(_, _, _, sp)
            | St::Lock(_, sp)
            | St::Unlock(_, sp)
            | St::AtomicOp(_, _, _, _, sp)
            | St::Fence(_, sp)
            | St::Srcu(_, _, _, sp) => {
                self.span = *sp;
                Err(self.err(
                    "herd's internal primitives (`__store{...}`, `__fence{...}`, ...) have no kernel name to map: write the kernel macro",
                ))
            }
        }
    }

    /// `dst = e` where `dst` is the register of local `name`.
    fn assign(&mut self, dst: &str, name: &str, e: &Ex) -> R<()> {
        if let Ex::Call(f, args, s) = e
            && (name.is_empty() || !args.iter().any(|a| mentions(a, name)))
        {
            self.span = *s;
            return self.call(f, args, Some(dst.to_string()));
        }
        let v = self.eval(e)?;
        self.set(dst, v)
    }

    /// `p` in `*p` when `p` names a caller's local passed as `&local`.
    fn local_ref(&self, addr: &Ex) -> Option<String> {
        match addr {
            Ex::Reg(n, _) => match self.lookup(n) {
                Some(Bind::LocalRef(r)) => Some(r.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    // ------------------------------------------------------------ expressions

    fn eval(&mut self, e: &Ex) -> R<Op> {
        match e {
            Ex::Int(i) => Ok(Op::Imm(*i)),
            Ex::Reg(n, sp) => match self.lookup(n) {
                Some(Bind::Local(r)) => Ok(Op::Reg(r.clone())),
                Some(Bind::Val(v)) => Ok(v.clone()),
                Some(Bind::LocalRef(_)) => {
                    Err(self.err(format!("`{n}` points to a local: only `*{n}` is allowed")))
                }
                None => {
                    self.span = *sp;
                    Err(self.err(format!("unknown name `{n}`")))
                }
            },
            Ex::Load(addr, annot) if annot.is_empty() => {
                if let Some(r) = self.local_ref(addr) {
                    return Ok(Op::Reg(r));
                }
                let d = self.temp()?;
                self.call("READ_ONCE", std::slice::from_ref(e), Some(d.clone()))?;
                Ok(Op::Reg(d))
            }
            Ex::Call(name, args, sp) => {
                self.span = *sp;
                let d = self.temp()?;
                self.call(name, args, Some(d.clone()))?;
                Ok(Op::Reg(d))
            }
            Ex::Bin(op, ..) if Cmp::from_binop(*op).is_some() || is_logical(*op) => {
                self.bool_value(e)
            }
            Ex::Un(UnOp::Not, _) => self.bool_value(e),
            Ex::Un(op @ (UnOp::Neg | UnOp::BitNot), a) => {
                let a = self.eval(a)?;
                if let Op::Imm(i) = a {
                    return Ok(Op::Imm(if *op == UnOp::Neg { -i } else { !i }));
                }
                let a = self.in_reg(a)?;
                let d = self.temp()?;
                let l = if *op == UnOp::Neg {
                    self.t.neg(&d, &a)
                } else {
                    self.t
                        .binop(BinOp::Xor, &d, &a, &Op::Imm(-1))
                        .map_err(|m| self.err(m))?
                };
                self.emit(l)?;
                Ok(Op::Reg(d))
            }
            Ex::Bin(op, a, b) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                let a = self.in_reg(a)?;
                let b = match b {
                    Op::Imm(i) if self.imm_ok(i) => Op::Imm(i),
                    b => Op::Reg(self.in_reg(b)?),
                };
                let d = self.temp()?;
                let l = self.t.binop(*op, &d, &a, &b).map_err(|m| self.err(m))?;
                self.emit(l)?;
                Ok(Op::Reg(d))
            }
            Ex::Cond(c, x, y) => {
                let d = self.temp()?;
                let lelse = self.label()?;
                let lend = self.label()?;
                self.branch(c, &lelse, false)?;
                let v = self.eval(x)?;
                self.set(&d, v)?;
                let j = self.t.jump(&lend);
                self.emit(j)?;
                self.place(&lelse);
                let v = self.eval(y)?;
                self.set(&d, v)?;
                self.place(&lend);
                Ok(Op::Reg(d))
            }
            Ex::LocalAddr(n, _) => Err(self.err(format!(
                "`&{n}` is only meaningful as an argument (try_cmpxchg's `&old`)"
            ))),
            _ => Err(self.err(
                "herd's internal primitives (`__load{...}`, `__xchg{...}`, ...) have no kernel name to map: write the kernel macro",
            )),
        }
    }

    fn imm_ok(&self, i: i64) -> bool {
        // Small non-negative immediates fit every architecture's arithmetic forms.
        (0..4096).contains(&i)
    }

    /// A condition's value, 0 or 1, in a register.
    fn bool_value(&mut self, c: &Ex) -> R<Op> {
        let d = self.temp()?;
        let skip = self.label()?;
        let l = self.t.load_imm(&d, 0);
        self.emit(l)?;
        self.branch(c, &skip, false)?;
        let l = self.t.load_imm(&d, 1);
        self.emit(l)?;
        self.place(&skip);
        Ok(Op::Reg(d))
    }

    /// Jump to `label` when `c` is `when`.
    fn branch(&mut self, c: &Ex, label: &str, when: bool) -> R<()> {
        match c {
            Ex::Un(UnOp::Not, e) => self.branch(e, label, !when),
            Ex::Bin(BinOp::LAnd, a, b) | Ex::Bin(BinOp::LOr, a, b) => {
                let and = matches!(c, Ex::Bin(BinOp::LAnd, ..));
                // `a && b` is true when both are; `a || b` false when both are false.
                if and == when {
                    let skip = self.label()?;
                    self.branch(a, &skip, !when)?;
                    self.branch(b, label, when)?;
                    self.place(&skip);
                } else {
                    self.branch(a, label, when)?;
                    self.branch(b, label, when)?;
                }
                Ok(())
            }
            Ex::Bin(op, a, b) if Cmp::from_binop(*op).is_some() => {
                let mut cmp = Cmp::from_binop(*op).expect("a comparison");
                let mut a = self.eval(a)?;
                let mut b = self.eval(b)?;
                if matches!(a, Op::Imm(_)) && matches!(b, Op::Reg(_)) {
                    std::mem::swap(&mut a, &mut b);
                    cmp = cmp.swap();
                }
                let a = self.in_reg(a)?;
                let b = match b {
                    Op::Imm(i) if self.imm_ok(i) => Op::Imm(i),
                    b => Op::Reg(self.in_reg(b)?),
                };
                let cmp = if when { cmp } else { cmp.negate() };
                let l = self
                    .t
                    .branch_if(cmp, &a, &b, label)
                    .map_err(|m| self.err(m))?;
                self.emit(l)
            }
            Ex::Int(i) => {
                if (*i != 0) == when {
                    let j = self.t.jump(label);
                    self.emit(j)?;
                }
                Ok(())
            }
            e => {
                let v = self.eval(e)?;
                let v = self.in_reg(v)?;
                let cmp = if when { Cmp::Ne } else { Cmp::Eq };
                let l = self
                    .t
                    .branch_if(cmp, &v, &Op::Imm(0), label)
                    .map_err(|m| self.err(m))?;
                self.emit(l)
            }
        }
    }

    // ------------------------------------------------------------ table entries

    /// Compile a call of a kernel primitive; its value (if `result`) goes to `result`.
    fn call(&mut self, name: &str, args: &[Ex], result: Option<String>) -> R<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(format!(
                "mapping {}: entries call each other more than {MAX_DEPTH} deep at `{name}` (a cycle?)",
                self.map.name
            )));
        }
        let map = self.map;
        let Some(res) = map.resolve(name) else {
            return Err(self.err(format!(
                "`{name}` has no entry in mapping {}",
                self.map.name
            )));
        };
        self.used
            .entry(res.entry.name.clone())
            .or_insert_with(|| res.entry.cite.clone());
        self.depth += 1;
        let r = (|| {
            if let Some(f) = res.before {
                self.call(f, &[], None)?;
            }
            self.expand(res.entry, args, result)?;
            if let Some(f) = res.after {
                self.call(f, &[], None)?;
            }
            Ok(())
        })();
        self.depth -= 1;
        r
    }

    fn expand(&mut self, e: &Entry, args: &[Ex], result: Option<String>) -> R<()> {
        let at = format!("{}:{}", e.file, e.line);
        if args.len() != e.params.len() {
            return Err(self.err(format!(
                "`{}` takes {} arguments, given {} ({at})",
                e.name,
                e.params.len(),
                args.len()
            )));
        }
        let asm = matches!(e.body, Body::Asm(_));
        let c_body = match &e.body {
            Body::C(text) => Some(self.parse_body(e, text)?),
            Body::Asm(_) => None,
        };
        let assigned: Vec<String> = c_body.as_ref().map(assigned_names).unwrap_or_default();
        // Bind the parameters in the caller's scope first, then open the entry's.
        let mut binds = HashMap::new();
        for (p, a) in e.params.iter().zip(args) {
            let b = match (&p.kind, a) {
                (ParamKind::Lvalue, Ex::Load(addr, annot)) if annot.is_empty() => {
                    if self.local_ref(addr).is_some() {
                        return Err(self.err(format!(
                            "`{}` of a local's address: only memory has marked accesses",
                            e.name
                        )));
                    }
                    let v = self.eval(addr)?;
                    self.param_bind(v, asm, false)?
                }
                (ParamKind::Lvalue, _) => {
                    return Err(self.err(format!(
                        "`{}` takes `*p` for its parameter {} ({at})",
                        e.name, p.name
                    )));
                }
                (_, Ex::LocalAddr(n, _)) => match self.lookup(n) {
                    Some(Bind::Local(r)) => Bind::LocalRef(r.clone()),
                    _ => return Err(self.err(format!("`&{n}`: {n} is not a local"))),
                },
                // A pointer to a caller's local, passed on.
                (_, Ex::Reg(n, _)) if matches!(self.lookup(n), Some(Bind::LocalRef(_))) => {
                    self.lookup(n).cloned().expect("a binding")
                }
                (kind, a) => {
                    let v = self.eval(a)?;
                    let copy = *kind == ParamKind::Clobbered || assigned.contains(&p.name);
                    self.param_bind(v, asm, copy)?
                }
            };
            binds.insert(p.name.clone(), b);
        }
        if let Some(rn) = &e.result {
            let r = match result {
                Some(r) => r,
                None => self.temp()?,
            };
            binds.insert(rn.clone(), Bind::Local(r));
        } else if result.is_some() {
            return Err(self.err(format!("`{}` has no value ({at})", e.name)));
        }
        match (&e.body, c_body) {
            (Body::Asm(lines), _) => self.expand_asm(e, lines.as_slice(), &binds),
            (Body::C(_), Some(body)) => {
                self.scopes.push(Scope {
                    binds,
                    owned: Vec::new(),
                });
                let span = self.span;
                let r = self.stmt(&body).map_err(|mut err| {
                    err.msg = format!("{} (in `{}` at {at})", err.msg, e.name);
                    err
                });
                self.span = span;
                let s = self.scopes.pop().expect("the entry's scope");
                for o in s.owned {
                    self.free(&o);
                }
                r
            }
            (Body::C(_), None) => unreachable!("a C body is parsed above"),
        }
    }

    /// A parameter's binding: asm bodies need registers (or X86's direct globals);
    /// `copy` gives a body that writes the parameter its own register.
    fn param_bind(&mut self, v: Op, asm: bool, copy: bool) -> R<Bind> {
        Ok(match v {
            Op::Sym(s) => Bind::Val(Op::Sym(s)),
            Op::Imm(i) if !asm && !copy => Bind::Val(Op::Imm(i)),
            v if copy => {
                let r = self.temp()?;
                self.set(&r, v)?;
                Bind::Local(r)
            }
            v => Bind::Local(self.in_reg(v)?),
        })
    }

    fn parse_body(&self, e: &Entry, text: &str) -> R<St> {
        // The body as a one-thread C test; its lines keep their numbers in the table.
        let mut src = String::from("C m\n{}\nP0()\n{\n");
        let skip = text.bytes().take_while(|b| *b == b'\n').count();
        let extra = skip.saturating_sub(4);
        src.push_str(&"\n".repeat(extra));
        src.push_str(&text[skip..]);
        src.push_str("}\n");
        let t = crate::litmus::parse(&src).map_err(|err| {
            self.err(format!(
                "mapping {}: the C body of `{}` ({}:{}) does not parse: {err}",
                self.map.name, e.name, e.file, e.line
            ))
        })?;
        let Some(Thread::C(c)) = t.threads.first() else {
            return Err(self.err(format!("the C body of `{}` has no code", e.name)));
        };
        ir::lower_body(&c.body).map_err(|(sp, m)| {
            self.err(format!(
                "mapping {}: `{}` ({}:{}): {m}",
                self.map.name, e.name, e.file, sp.line
            ))
        })
    }

    fn expand_asm(
        &mut self,
        e: &Entry,
        lines: &[(AsmLine, usize)],
        binds: &HashMap<String, Bind>,
    ) -> R<()> {
        let mut names: HashMap<String, String> = HashMap::new();
        for (l, _) in lines {
            if let AsmLine::Label(n) = l
                && !names.contains_key(n)
            {
                let lab = self.label()?;
                names.insert(n.clone(), lab);
            }
        }
        for (l, ln) in lines {
            match l {
                AsmLine::Label(n) => {
                    let lab = names[n].clone();
                    self.place(&lab);
                }
                AsmLine::Instr(tpl) => {
                    let mut text = tpl.clone();
                    for full in mapping::placeholders(tpl) {
                        // `{s:w}`: the register's 32-bit name (AArch64's store-exclusive status).
                        let (ph, narrow) = match full.split_once(':') {
                            Some((p, "w")) => (p, true),
                            _ => (full, false),
                        };
                        let with = if let Some(s) = names.get(ph) {
                            s.clone()
                        } else if let Some(b) = binds.get(ph) {
                            match b {
                                Bind::Local(r) | Bind::LocalRef(r) => r.clone(),
                                Bind::Val(v) => self.t.operand(v),
                            }
                        } else if ph.starts_with('L') {
                            let lab = self.label()?;
                            names.insert(ph.to_string(), lab.clone());
                            lab
                        } else {
                            let r = self.temp()?;
                            names.insert(ph.to_string(), r.clone());
                            r
                        };
                        let with = if narrow { self.t.narrow(&with) } else { with };
                        text = text.replacen(&format!("{{{full}}}"), &with, 1);
                    }
                    let i = crate::litmus::parse_instr(&text, self.t.arch()).map_err(|err| {
                        self.err(format!(
                            "mapping {}: `{}` ({}:{ln}): `{text}`: {err}",
                            self.map.name, e.name, e.file
                        ))
                    })?;
                    self.code.push(ast::AsmLine {
                        label: None,
                        instr: Some(i),
                        span: Span::default(),
                    });
                }
            }
        }
        Ok(())
    }
}

fn is_logical(op: BinOp) -> bool {
    matches!(op, BinOp::LAnd | BinOp::LOr)
}

/// Whether an expression reads local `n`.
fn mentions(e: &Ex, n: &str) -> bool {
    match e {
        Ex::Reg(m, _) | Ex::LocalAddr(m, _) => m == n,
        Ex::Int(_) => false,
        Ex::Load(a, _) | Ex::Un(_, a) => mentions(a, n),
        Ex::Bin(_, a, b) => mentions(a, n) || mentions(b, n),
        Ex::Cond(a, b, c) => mentions(a, n) || mentions(b, n) || mentions(c, n),
        Ex::Call(_, args, _) => args.iter().any(|a| mentions(a, n)),
        // Forms the compiler does not take (or new ones): assume they do.
        _ => true,
    }
}

/// The names a body assigns (a parameter among them needs its own register).
fn assigned_names(s: &St) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(s: &St, out: &mut Vec<String>) {
        match s {
            St::Seq(v) => v.iter().for_each(|x| walk(x, out)),
            St::If { then, els, .. } => {
                walk(then, out);
                if let Some(b) = els {
                    walk(b, out);
                }
            }
            St::Loop(l) => {
                walk(&l.body, out);
                if let Some(step) = &l.step {
                    walk(step, out);
                }
            }
            St::SetReg(n, _, _) => out.push(n.clone()),
            _ => {}
        }
    }
    walk(s, &mut out);
    out
}
