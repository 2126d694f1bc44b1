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
use std::collections::{BTreeMap, HashMap, HashSet};
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
    // Helper functions are inlined by the C interpreter only (issue 37).
    if let Some(f) = test.functions.first() {
        return Err(CompileError {
            proc: None,
            span: Some(f.span),
            msg: format!(
                "cannot compile helper function `{}`: only the threads' own code compiles \
                 (write its body into the threads)",
                f.name
            ),
        });
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
            functions: Vec::new(),
            threads,
            locations: Vec::new(),
            filter: None,
            condition: test.condition.clone(),
            macros: Default::default(),
        },
        text: String::new(),
        regs,
        used,
    };
    // The C test's own init first (globals, then locals renamed), then the addresses.
    // An address is `y` in herd's assembly init, never C's `&y` (which herd rejects).
    let mut all = Vec::new();
    for e in &test.init {
        let value = match &e.value {
            Some(ValueLit::Addr { name, .. }) => Some(ValueLit::Addr {
                name: name.clone(),
                amp: false,
            }),
            v => v.clone(),
        };
        all.push(InitEntry {
            // An array keeps its type: herd lays its cells out by it.
            ty: e.ty.clone().filter(|t| t.contains('[')),
            loc: out.rename(&e.loc),
            value,
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
    /// An expression argument (`=c` in the table: `smp_cond_load_acquire(p, VAL == 1)`),
    /// evaluated each time the body names it, with the caller's names (the scope at that
    /// index) and the body's `VAL`.
    Expr(Ex, usize),
}

struct Scope {
    binds: HashMap<String, Bind>,
    /// Registers to free when the scope ends (a C body's locals).
    owned: Vec<String>,
    /// The lowering's temporaries (`%3`) set once, to a constant: an immediate, no
    /// register (an array index `t[1] = v` is lowered through one).
    consts: HashSet<String>,
}

impl Scope {
    fn new(binds: HashMap<String, Bind>, consts: HashSet<String>) -> Scope {
        Scope {
            binds,
            owned: Vec::new(),
            consts,
        }
    }
}

/// Code generation for one thread.
struct Gen<'a> {
    t: &'a dyn Target,
    map: &'a Mapping,
    proc: u32,
    code: Vec<ast::AsmLine>,
    busy: Vec<bool>,
    /// Registers the code has used so far.
    ever: Vec<bool>,
    /// Expression temporaries, freed at the end of the statement that made them.
    temps: Vec<String>,
    /// Per open loop, its `continue` and `break` targets.
    loops: Vec<(String, String)>,
    scopes: Vec<Scope>,
    /// Per thread or C body being compiled, the label its `return` jumps to (made at
    /// the first `return`).
    rets: Vec<Option<String>>,
    /// A global's address in a register, for targets that name globals directly
    /// (`(x)` on X86_64) when the address is a value: the register, set by the init block.
    syms: HashMap<String, String>,
    /// Init entries for those registers.
    sym_init: Vec<InitEntry>,
    labels: u32,
    span: Span,
    depth: usize,
    used: &'a mut BTreeMap<String, String>,
    /// The size in bytes of a cell of the array each pointer parameter names: C's
    /// `t + i` counts cells, an address register bytes.
    cell_bytes: HashMap<String, i64>,
    /// The pointer parameters to 64-bit locations (`u64 *`, `atomic64_t *`, a global the
    /// init block declares `long`): the primitives on them take 64-bit instructions.
    wide_names: HashSet<String>,
    /// Whether the entry being expanded acts on a 64-bit location.
    wide: bool,
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
            ever: vec![false; t.registers().len()],
            temps: Vec::new(),
            loops: Vec::new(),
            scopes: vec![Scope::new(HashMap::new(), HashSet::new())],
            rets: Vec::new(),
            syms: HashMap::new(),
            sym_init: Vec::new(),
            labels: 0,
            span: Span::default(),
            depth: 0,
            used,
            cell_bytes: HashMap::new(),
            wide_names: HashSet::new(),
            wide: false,
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
        for e in &test.init {
            if let (LocRef::Global(g), Some((elem, _))) = (
                &e.loc,
                e.ty.as_deref().and_then(crate::exec::program::array_type),
            ) {
                let bytes = crate::exec::program::type_bytes(elem);
                self.cell_bytes.insert(g.clone(), bytes);
            }
        }
        for p in &c.params {
            let declared = test.init.iter().find_map(|e| match &e.loc {
                LocRef::Global(g) if *g == p.name => e.ty.as_deref(),
                _ => None,
            });
            let pointee = p.ty.trim_end().strip_suffix('*').unwrap_or(&p.ty);
            if is_wide(pointee) || declared.is_some_and(is_wide) {
                self.wide_names.insert(p.name.clone());
            }
        }
        for p in &c.params {
            if self.t.direct_symbol(&p.name) {
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
        // Locals the init block sets, and those the final state shows, keep their register
        // from the start: no scratch use may leave a value there on a path that never
        // assigns them (a C local starts at 0, as a register does).
        let mut shown: Vec<LocRef> = test.init.iter().map(|e| e.loc.clone()).collect();
        shown.extend(test.locations.iter().cloned());
        let props = std::iter::once(&test.condition.prop).chain(test.filter.as_ref());
        for p in props {
            crate::exec::program::prop_locs(p, &mut |l| shown.push(l.clone()));
        }
        for l in &shown {
            if let LocRef::Reg { proc, reg } = l
                && *proc == self.proc
                && self.lookup(reg).is_none()
            {
                self.local(reg)?;
            }
        }
        let body = ir::lower_body(&c.body).map_err(|(span, msg)| CompileError {
            proc: Some(self.proc),
            span: Some(span),
            msg,
        })?;
        self.scopes[0].consts = const_temps(&body);
        self.returning(|g| g.stmt(&body))?;
        init.append(&mut self.sym_init);
        Ok(())
    }

    /// Compile a thread's or a C body's code: its `return`s jump to its end.
    fn returning(&mut self, f: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        self.rets.push(None);
        let r = f(self);
        if let Some(Some(l)) = self.rets.pop() {
            self.place(&l);
        }
        r
    }

    // ------------------------------------------------------------ registers, names

    fn alloc(&mut self) -> R<String> {
        let k = self
            .busy
            .iter()
            .position(|b| !b)
            .ok_or_else(|| self.out_of_registers())?;
        self.busy[k] = true;
        self.ever[k] = true;
        Ok(self.t.registers()[k].to_string())
    }

    fn out_of_registers(&self) -> CompileError {
        self.err(format!(
            "out of registers ({} on {})",
            self.busy.len(),
            self.t.arch().name()
        ))
    }

    /// A global's address in a register, on a target that names globals directly: a
    /// register no code has used yet (the last free one), set by the init block.
    fn sym_reg(&mut self, s: &str) -> R<String> {
        if let Some(r) = self.syms.get(s) {
            return Ok(r.clone());
        }
        let k = (0..self.busy.len())
            .rev()
            .find(|&k| !self.busy[k] && !self.ever[k])
            .ok_or_else(|| self.out_of_registers())?;
        self.busy[k] = true;
        self.ever[k] = true;
        let r = self.t.registers()[k].to_string();
        self.sym_init.push(InitEntry {
            ty: None,
            loc: LocRef::Reg {
                proc: self.proc,
                reg: self.t.state_name(&r),
            },
            value: Some(ValueLit::Addr {
                name: s.to_string(),
                amp: false,
            }),
        });
        self.syms.insert(s.to_string(), r.clone());
        Ok(r)
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
            Op::Sym(s) => self.sym_reg(&s),
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
            Op::Sym(s) => {
                let r = self.sym_reg(&s)?;
                let l = self.t.mov(dst, &r);
                self.emit(l)
            }
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
            St::SetReg(n, Ex::Int(i), _)
                if self.scopes.last().is_some_and(|s| s.consts.contains(n)) =>
            {
                self.bind(n, Bind::Val(Op::Imm(*i)));
                Ok(())
            }
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
            // Every loop form, rotated: the test after the body, then the one backward
            // jump, to the body; entered by a jump forward to the test unless the first
            // iteration is free (`do`). herd's `-unroll N` counts backward jumps to each
            // target, so the body runs at most N times (N + 1 for a `do`) whatever way an
            // iteration ends (`break`, `return`), as the C interpreter bounds the loop;
            // `continue` goes to the step, `break` past the end.
            St::Loop(l) => {
                self.span = l.span;
                let top = self.label()?;
                let cont = self.label()?;
                // `for`'s step runs after each iteration, before the test: the jump in
                // goes past it, to the test.
                let test = if l.test_first && l.step.is_some() {
                    self.label()?
                } else {
                    cont.clone()
                };
                let end = self.label()?;
                if l.test_first {
                    let j = self.t.jump(&test);
                    self.emit(j)?;
                }
                self.place(&top);
                self.loops.push((cont.clone(), end.clone()));
                let body = self.stmt(&l.body);
                self.loops.pop();
                body?;
                self.place(&cont);
                if let Some(step) = &l.step {
                    self.stmt(step)?;
                }
                if test != cont {
                    self.place(&test);
                }
                // Out forward on a false test, back by an unconditional jump: herd does
                // not count a conditional jump on a value known without reading memory
                // (a counter), an unconditional one it always counts.
                if let Some(c) = &l.cond {
                    self.branch(c, &end, false)?;
                }
                let j = self.t.jump(&top);
                self.emit(j)?;
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
            // The end of the thread (or of the table entry's C body being compiled).
            St::Return(sp) => {
                self.span = *sp;
                let l = match self.rets.last().cloned() {
                    Some(Some(l)) => l,
                    Some(None) => {
                        let l = self.label()?;
                        if let Some(slot) = self.rets.last_mut() {
                            *slot = Some(l.clone());
                        }
                        l
                    }
                    None => return Err(self.err("internal: `return` outside a thread")),
                };
                let j = self.t.jump(&l);
                self.emit(j)
            }
            St::SetElem(t, i, v, sp) => {
                self.span = *sp;
                let i = self.eval(i)?;
                let v = self.eval(v)?;
                let cells = self.cells(t)?;
                match i {
                    Op::Imm(k) => {
                        let cell = self.cell(t, &cells, k)?;
                        self.set(&cell, v)
                    }
                    Op::Reg(ri) => {
                        let v = self.in_reg(v)?;
                        self.select(&ri, &cells, |g, cell, zero| {
                            let l =
                                g.t.binop(BinOp::Add, cell, &v, &Op::Reg(zero.into()))
                                    .map_err(|m| g.err(m))?;
                            g.emit(l)
                        })
                    }
                    Op::Sym(_) => Err(self.err(format!("an address as an index of `{t}`"))),
                }
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

    // ------------------------------------------------------------ local arrays

    /// The registers of local array `t`'s cells (`int t[2]` is the locals `t[0]`, `t[1]`).
    fn cells(&self, t: &str) -> R<Vec<String>> {
        let mut v = Vec::new();
        while let Some(Bind::Local(r)) = self.lookup(&format!("{t}[{}]", v.len())) {
            v.push(r.clone());
        }
        if v.is_empty() {
            return Err(self.err(format!("`{t}` is not a local array")));
        }
        Ok(v)
    }

    fn cell(&self, t: &str, cells: &[String], k: i64) -> R<String> {
        usize::try_from(k)
            .ok()
            .and_then(|k| cells.get(k))
            .cloned()
            .ok_or_else(|| {
                self.err(format!(
                    "index {k} out of the bounds of `{t}` ({} cells)",
                    cells.len()
                ))
            })
    }

    /// A cell chosen by the value of register `ri`: a comparison per cell, then `f` on
    /// the chosen cell's register with a register holding `ri ^ ri` (zero, data-dependent
    /// on the index as the C cell is: add it to what flows in or out). An index out of
    /// the bounds loops for ever, so the unrolling bound cuts the run, as the C
    /// interpreter drops the run whose index is out of bounds.
    fn select(
        &mut self,
        ri: &str,
        cells: &[String],
        mut f: impl FnMut(&mut Self, &str, &str) -> R<()>,
    ) -> R<()> {
        let zero = self.temp()?;
        let l = self
            .t
            .binop(BinOp::Xor, &zero, ri, &Op::Reg(ri.into()))
            .map_err(|m| self.err(m))?;
        self.emit(l)?;
        let end = self.label()?;
        let mut next = String::new();
        for (k, cell) in cells.iter().enumerate() {
            next = self.label()?;
            self.branch_cmp(Cmp::Ne, Op::Reg(ri.into()), Op::Imm(k as i64), &next)?;
            f(self, cell, &zero)?;
            let j = self.t.jump(&end);
            self.emit(j)?;
            self.place(&next);
        }
        // Out of bounds: the trap is the last comparison's label.
        let j = self.t.jump(&next);
        self.emit(j)?;
        self.place(&end);
        Ok(())
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
                Some(Bind::Expr(e, at)) => {
                    let (e, at) = (e.clone(), *at);
                    self.in_caller(at, |g| g.eval(&e))
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
            // include/linux/compiler.h: `likely(x)` is `__builtin_expect(!!(x), 1)`.
            Ex::Call(f, args, _) if is_expect(f) && args.len() == 1 => self.bool_value(e),
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
                let (a, b) = self.scaled(*op, a, b)?;
                // By a constant: additions, which every target has.
                match (op, &a, &b) {
                    (BinOp::Mul, Op::Imm(k), x) | (BinOp::Mul, x, Op::Imm(k)) => {
                        return self.times(x.clone(), *k);
                    }
                    (BinOp::Shl, x, Op::Imm(k)) if (0..63).contains(k) => {
                        return self.times(x.clone(), 1 << k);
                    }
                    _ => {}
                }
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
            // A statement expression: the lowering's form of side effects inside
            // expressions (`r = x++`), and GNU C's `({ ...; v; })`.
            Ex::Seq(st, v) => {
                self.stmt(st)?;
                self.eval(v)
            }
            Ex::Elem(t, i, sp) => {
                self.span = *sp;
                let i = self.eval(i)?;
                let cells = self.cells(t)?;
                match i {
                    Op::Imm(k) => Ok(Op::Reg(self.cell(t, &cells, k)?)),
                    Op::Reg(ri) => {
                        let d = self.temp()?;
                        self.select(&ri, &cells, |g, cell, zero| {
                            let l = g
                                .t
                                .binop(BinOp::Add, &d, cell, &Op::Reg(zero.into()))
                                .map_err(|m| g.err(m))?;
                            g.emit(l)
                        })?;
                        Ok(Op::Reg(d))
                    }
                    Op::Sym(_) => Err(self.err(format!("an address as an index of `{t}`"))),
                }
            }
            Ex::LocalAddr(n, _) => Err(self.err(format!(
                "`&{n}` is only meaningful as an argument (try_cmpxchg's `&old`)"
            ))),
            _ => Err(self.err(
                "herd's internal primitives (`__load{...}`, `__xchg{...}`, ...) have no kernel name to map: write the kernel macro",
            )),
        }
    }

    /// Run `f` with the names of the scope at index `at` (an expression argument's
    /// caller), and the current scope's `VAL`.
    fn in_caller<T>(&mut self, at: usize, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let mut binds = self
            .scopes
            .get(at)
            .map(|s| s.binds.clone())
            .unwrap_or_default();
        if let Some(v) = self.lookup("VAL").cloned() {
            binds.insert("VAL".into(), v);
        }
        self.scopes.push(Scope::new(binds, HashSet::new()));
        let r = f(self);
        let s = self.scopes.pop().expect("the caller's scope");
        for o in s.owned {
            self.free(&o);
        }
        r
    }

    /// The operands of `a op b`, evaluated; an index added to (or subtracted from) an
    /// array's pointer parameter counted in bytes, as the address register counts.
    fn scaled(&mut self, op: BinOp, a: &Ex, b: &Ex) -> R<(Op, Op)> {
        let bytes = |e: &Ex| match e {
            Ex::Reg(n, _) => self.cell_bytes.get(n).copied(),
            _ => None,
        };
        let (ka, kb) = match op {
            BinOp::Add => (bytes(b), bytes(a)),
            BinOp::Sub => (None, bytes(a)),
            _ => (None, None),
        };
        let mut a = self.eval(a)?;
        let mut b = self.eval(b)?;
        if let Some(k) = ka {
            a = self.times(a, k)?;
        }
        if let Some(k) = kb {
            b = self.times(b, k)?;
        }
        Ok((a, b))
    }

    /// `x * k`, by doubling and adding.
    fn times(&mut self, x: Op, k: i64) -> R<Op> {
        if let Op::Imm(i) = x {
            return Ok(Op::Imm(i.wrapping_mul(k)));
        }
        let x = self.in_reg(x)?;
        let d = self.temp()?;
        let l = self.t.load_imm(&d, 0);
        self.emit(l)?;
        let mut m = k.unsigned_abs();
        let p = self.temp()?;
        let l = self.t.mov(&p, &x);
        self.emit(l)?;
        while m > 0 {
            if m & 1 == 1 {
                let l = self
                    .t
                    .binop(BinOp::Add, &d, &d, &Op::Reg(p.clone()))
                    .map_err(|e| self.err(e))?;
                self.emit(l)?;
            }
            m >>= 1;
            if m > 0 {
                let l = self
                    .t
                    .binop(BinOp::Add, &p, &p, &Op::Reg(p.clone()))
                    .map_err(|e| self.err(e))?;
                self.emit(l)?;
            }
        }
        if k < 0 {
            let n = self.temp()?;
            let l = self.t.neg(&n, &d);
            self.emit(l)?;
            return Ok(Op::Reg(n));
        }
        Ok(Op::Reg(d))
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
                let cmp = Cmp::from_binop(*op).expect("a comparison");
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                let cmp = if when { cmp } else { cmp.negate() };
                self.branch_cmp(cmp, a, b, label)
            }
            Ex::Int(i) => {
                if (*i != 0) == when {
                    let j = self.t.jump(label);
                    self.emit(j)?;
                }
                Ok(())
            }
            Ex::Reg(n, _) if matches!(self.lookup(n), Some(Bind::Expr(..))) => {
                let Some(Bind::Expr(e, at)) = self.lookup(n).cloned() else {
                    unreachable!("an expression argument")
                };
                self.in_caller(at, |g| g.branch(&e, label, when))
            }
            Ex::Call(f, args, _) if is_expect(f) && args.len() == 1 => {
                self.branch(&args[0], label, when)
            }
            e => {
                let v = self.eval(e)?;
                let cmp = if when { Cmp::Ne } else { Cmp::Eq };
                self.branch_cmp(cmp, v, Op::Imm(0), label)
            }
        }
    }

    /// Jump to `label` when `a cmp b`.
    fn branch_cmp(&mut self, mut cmp: Cmp, mut a: Op, mut b: Op, label: &str) -> R<()> {
        if matches!(a, Op::Imm(_)) && !matches!(b, Op::Imm(_)) {
            std::mem::swap(&mut a, &mut b);
            cmp = cmp.swap();
        }
        let a = self.in_reg(a)?;
        let b = match b {
            Op::Imm(i) if self.imm_ok(i) => Op::Imm(i),
            b => Op::Reg(self.in_reg(b)?),
        };
        let spare = if self.t.branch_needs_label(cmp, &b) {
            self.label()?
        } else {
            String::new()
        };
        let lines = self
            .t
            .branch_if(cmp, &a, &b, label, &spare)
            .map_err(|m| self.err(m))?;
        for l in lines {
            match l.strip_suffix(':') {
                Some(lab) if lab == spare => self.place(lab),
                _ => self.emit(vec![l])?,
            }
        }
        Ok(())
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
        // On a 64-bit location: named so (`atomic64_*`, `atomic_long_*`, `cmpxchg64`),
        // or given one of the thread's 64-bit pointers, or inside an entry that was.
        let outer = self.wide;
        self.wide = outer
            || name.starts_with("atomic64_")
            || name.starts_with("atomic_long_")
            || name.contains("cmpxchg64")
            || (self.depth == 0
                && self
                    .wide_names
                    .iter()
                    .any(|n| args.iter().any(|a| mentions(a, n))));
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
        self.wide = outer;
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
        if let Body::Refused(why) = &e.body {
            return Err(self.err(format!(
                "`{}` has no instruction sequence: {why} ({at})",
                e.name
            )));
        }
        let asm = matches!(e.body, Body::Asm(_));
        let c_body = match &e.body {
            Body::C(text) => Some(self.parse_body(e, text)?),
            Body::Asm(_) | Body::Refused(_) => None,
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
                (ParamKind::Expr, _) if asm => {
                    return Err(self.err(format!(
                        "`{}`: an expression parameter (`={}`) needs a C body ({at})",
                        e.name, p.name
                    )));
                }
                (ParamKind::Expr, a) => Bind::Expr(a.clone(), self.scopes.len() - 1),
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
                self.scopes.push(Scope::new(binds, const_temps(&body)));
                let span = self.span;
                let loops = std::mem::take(&mut self.loops);
                let r = self.returning(|g| g.stmt(&body)).map_err(|mut err| {
                    err.msg = format!("{} (in `{}` at {at})", err.msg, e.name);
                    err
                });
                self.loops = loops;
                self.span = span;
                let s = self.scopes.pop().expect("the entry's scope");
                for o in s.owned {
                    self.free(&o);
                }
                r
            }
            (Body::C(_), None) | (Body::Refused(_), _) => {
                unreachable!("a C body is parsed above, a refused one refused")
            }
        }
    }

    /// A parameter's binding: asm bodies need registers (or X86's direct globals);
    /// `copy` gives a body that writes the parameter its own register.
    fn param_bind(&mut self, v: Op, asm: bool, copy: bool) -> R<Bind> {
        Ok(match v {
            Op::Sym(s) if !copy => Bind::Val(Op::Sym(s)),
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
                            // A global's address is a memory operand inside `(...)` or
                            // `[...]`, else a value, in a register.
                            let in_mem = text
                                .find(&format!("{{{full}}}"))
                                .and_then(|k| text[..k].chars().last())
                                .is_some_and(|c| c == '(' || c == '[');
                            match b {
                                Bind::Local(r) | Bind::LocalRef(r) => r.clone(),
                                Bind::Val(Op::Sym(s)) if !in_mem => self.sym_reg(s)?,
                                Bind::Val(v) => self.t.operand(v),
                                Bind::Expr(..) => {
                                    return Err(self.err(format!(
                                        "mapping {}: `{}` ({}:{ln}): an expression parameter in asm",
                                        self.map.name, e.name, e.file
                                    )));
                                }
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
                    if self.wide
                        && let Some(w) = self.t.wide(&text)
                    {
                        text = w;
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

/// Whether a C type is 64 bits wide on a 64-bit kernel (include/linux/types.h: `u64`
/// and `s64` are `unsigned long long`, `long long`; `atomic64_t` holds an `s64`;
/// include/linux/atomic/atomic-long.h: `atomic_long_t` is `atomic64_t` on 64-bit).
fn is_wide(ty: &str) -> bool {
    let words: Vec<&str> = ty
        .split_whitespace()
        .filter(|w| !matches!(*w, "volatile" | "const" | "unsigned" | "signed" | "int"))
        .collect();
    matches!(
        words.as_slice(),
        ["u64"
            | "s64"
            | "__u64"
            | "__s64"
            | "uint64_t"
            | "int64_t"
            | "atomic64_t"
            | "atomic_long_t"
            | "long"
            | "size_t"
            | "uintptr_t"
            | "intptr_t"]
            | ["long", "long"]
    )
}

/// `likely(x)`, `unlikely(x)`: `!!(x)`, with no code in a condition.
fn is_expect(f: &str) -> bool {
    matches!(f, "likely" | "unlikely")
}

/// The lowering's temporaries (`%n`) a body sets exactly once, to a constant, and never
/// passes by address.
fn const_temps(body: &St) -> HashSet<String> {
    let mut sets: HashMap<String, (usize, bool)> = HashMap::new();
    let mut addr: HashSet<String> = HashSet::new();
    ir_walk(
        body,
        &mut |s| {
            if let St::SetReg(n, e, _) = s
                && n.starts_with('%')
            {
                let c = sets.entry(n.clone()).or_insert((0, true));
                c.0 += 1;
                c.1 &= matches!(e, Ex::Int(_));
            }
        },
        &mut |e| {
            if let Ex::LocalAddr(n, _) = e {
                addr.insert(n.clone());
            }
        },
    );
    sets.into_iter()
        .filter(|(n, (k, c))| *k == 1 && *c && !addr.contains(n))
        .map(|(n, _)| n)
        .collect()
}

/// Every statement and expression of a body, statement expressions' included.
fn ir_walk<F: FnMut(&St), G: FnMut(&Ex)>(s: &St, fs: &mut F, fe: &mut G) {
    fs(s);
    match s {
        St::Seq(v) => v.iter().for_each(|x| ir_walk(x, fs, fe)),
        St::If {
            cond, then, els, ..
        } => {
            ex_walk(cond, fs, fe);
            ir_walk(then, fs, fe);
            if let Some(b) = els {
                ir_walk(b, fs, fe);
            }
        }
        St::Loop(l) => {
            if let Some(c) = &l.cond {
                ex_walk(c, fs, fe);
            }
            ir_walk(&l.body, fs, fe);
            if let Some(step) = &l.step {
                ir_walk(step, fs, fe);
            }
        }
        St::SetReg(_, e, _) | St::Eval(e, _) | St::Lock(e, _) | St::Unlock(e, _) => {
            ex_walk(e, fs, fe)
        }
        St::SetElem(_, a, b, _) | St::Store(a, b, _, _) | St::AtomicOp(a, _, b, _, _) => {
            ex_walk(a, fs, fe);
            ex_walk(b, fs, fe);
        }
        St::Srcu(a, _, b, _) => {
            ex_walk(a, fs, fe);
            if let Some(b) = b {
                ex_walk(b, fs, fe);
            }
        }
        St::Call(_, args, _) => args.iter().for_each(|a| ex_walk(a, fs, fe)),
        St::Break(_) | St::Continue(_) | St::Return(_) | St::Decl(_) | St::Fence(..) => {}
    }
}

fn ex_walk<F: FnMut(&St), G: FnMut(&Ex)>(e: &Ex, fs: &mut F, fe: &mut G) {
    fe(e);
    let subs: Vec<&Ex> = match e {
        Ex::Int(_) | Ex::Reg(..) | Ex::LocalAddr(..) => vec![],
        Ex::Load(a, _) | Ex::Un(_, a) | Ex::TryLock(a) | Ex::IsLocked(a) | Ex::Srcu(a, _) => {
            vec![a]
        }
        Ex::Elem(_, a, _) => vec![a],
        Ex::Bin(_, a, b) | Ex::Xchg(a, b, _) => vec![a, b],
        Ex::Cond(a, b, c) | Ex::CmpXchg(a, b, c, _) | Ex::TryCmpXchg(a, b, c, _) => {
            vec![a, b, c]
        }
        Ex::Call(_, args, _) => args.iter().collect(),
        Ex::AtomicRet { loc, val, .. } => vec![loc, val],
        Ex::AddUnless {
            loc, add, guard, ..
        } => match guard {
            ir::Guard::Equals(g) => vec![loc, add, g],
            ir::Guard::NegativeSum => vec![loc, add],
        },
        Ex::Seq(st, v) => {
            ir_walk(st, fs, fe);
            vec![v]
        }
        Ex::Frame(st, _) => {
            ir_walk(st, fs, fe);
            vec![]
        }
    };
    for x in subs {
        ex_walk(x, fs, fe);
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
