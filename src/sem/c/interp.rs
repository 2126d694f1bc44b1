//! Running expanded C code against a [`Tracer`], mirroring herd's `CSem` (variant
//! `lkmmv2` by default, `lkmmv1` on request).
//!
//! herd builds an event structure where registers are events too and then derives
//! `addr`/`data`/`ctrl` from intra-instruction causality (`iico`) and "ports". We run
//! concretely and keep just enough to give the same relations:
//! - every value carries the memory reads it was computed from, split by the *port* of
//!   the event that hands it over (herd: an address, data or no port). A store takes
//!   `addr` from address-port sources and `data` from data-port ones; a load or a lock
//!   event takes `addr` from all of them;
//! - a register keeps the reads its value came from, plus a *taint*: reads that reached
//!   the condition of an enclosing `if` when it was written (herd's `ctrl` follows such
//!   chains through registers);
//! - `ctrl` reaches the events inside the branches of an `if`/loop, not the code after
//!   it (herd), except where the code after it runs only for some outcomes of the test:
//!   after an `if` one of whose branches may `return`, `break` or `continue`, the code up
//!   to that exit's target is ctrl-dependent on the test, as if written in the branch
//!   that falls through; after a spin-wait marked [`Loop::ctrl_after`], the rest of the
//!   thread is ctrl-dependent on the reads that decided its exit;
//! - `&&`, `||` and `?:` are nested `if`s: the left operand (the test) is evaluated as an
//!   `if`'s test is, and the operand it selects, if any, as a new instruction whose
//!   accesses are ctrl-dependent on the test's reads (`if (a) if (b)`); one instruction
//!   would leave the two operands' accesses unordered by `po`;
//! - events of one instruction share its instance number (herd's `same-instance`, from
//!   which stdlib.cat derives `rmw`), and herd's C `po` also contains the `iico` links
//!   between them (e.g. the read and write of an `xchg`, `LKR` and `LKW` of a lock):
//!   each link is recorded as `iico_data`/`iico_ctrl` and as an extra `po` pair.

use super::ir::{Annot, Ex, Exits, Guard, Loop, RmwOp, St, Yield};
use crate::litmus::ast::{BinOp, Span, UnOp};
use crate::sem::{Deps, EventData, Kind, Stop, TVal, Tracer, Value};
use std::collections::BTreeMap;

/// herd's ports: how an event hands its value to the event consuming it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Port {
    Addr,
    Data,
    No,
}

/// The result of an expression.
#[derive(Clone, Debug)]
struct Val {
    v: Value,
    /// Reads (and failed-trylock / is-locked events) it comes from, by port.
    addr: Deps,
    data: Deps,
    none: Deps,
    /// Reads reaching it through earlier conditions (only for `ctrl`).
    taint: Deps,
    /// This thread's memory events that hand it over directly (for `iico`).
    outs: Vec<usize>,
}

impl Val {
    fn konst(v: Value) -> Val {
        Val {
            v,
            addr: Deps::NONE,
            data: Deps::NONE,
            none: Deps::NONE,
            taint: Deps::NONE,
            outs: Vec::new(),
        }
    }
    /// The value of event `e` (a read or lock-family event), handed over through `port`.
    fn event(v: Value, e: usize, port: Port) -> Val {
        let mut r = Val::from(v, Deps::one(e), port);
        r.outs.push(e);
        r
    }
    /// Sources that reached the value through any port.
    fn all(&self) -> Deps {
        self.addr.union(self.data).union(self.none)
    }
    /// `deps` handed over through `port`.
    fn from(v: Value, deps: Deps, port: Port) -> Val {
        let mut r = Val::konst(v);
        match port {
            Port::Addr => r.addr = deps,
            Port::Data => r.data = deps,
            Port::No => r.none = deps,
        }
        r
    }
    /// Sources of both operands, for a value computed from them.
    fn join(mut self, o: &Val, v: Value) -> Val {
        self.v = v;
        self.addr = self.addr.union(o.addr);
        self.data = self.data.union(o.data);
        self.none = self.none.union(o.none);
        self.taint = self.taint.union(o.taint);
        self.outs.extend_from_slice(&o.outs);
        self
    }
}

/// A local: its value, the reads it came from, and its ctrl taint.
#[derive(Clone, Copy, Debug)]
struct Reg {
    v: Value,
    deps: Deps,
    taint: Deps,
}

impl Default for Reg {
    /// A local never written reads as 0.
    fn default() -> Reg {
        Reg {
            v: Value::ZERO,
            deps: Deps::NONE,
            taint: Deps::NONE,
        }
    }
}

/// How a statement ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Next,
    Break,
    Continue,
    Return,
}

/// Reads code is ctrl-dependent on: `ctrl` for its events, `taint` for the locals it
/// writes (see [`Reg`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ctl {
    ctrl: Deps,
    taint: Deps,
}

impl Ctl {
    fn union(self, o: Ctl) -> Ctl {
        Ctl {
            ctrl: self.ctrl.union(o.ctrl),
            taint: self.taint.union(o.taint),
        }
    }
    fn minus(self, o: Ctl) -> Ctl {
        Ctl {
            ctrl: Deps(self.ctrl.0 & !o.ctrl.0),
            taint: Deps(self.taint.0 & !o.taint.0),
        }
    }
}

/// What the code of an open loop depends on besides its enclosing branches: the tests
/// of `if`s that may `break` (to the loop's end) or `continue` (to the iteration's end).
#[derive(Clone, Copy, Debug, Default)]
struct LoopCtl {
    brk: Ctl,
    cont: Ctl,
}

/// What the evaluation of a condition met, to derive herd's `ctrl`.
#[derive(Default)]
struct CondAcc {
    /// Memory loads made by the condition itself.
    loads: Deps,
    /// Reads feeding the condition's loads: register sources and load addresses.
    feed: Deps,
}

pub struct Interp<'t, 'a> {
    t: &'t mut Tracer<'a>,
    regs: BTreeMap<String, Reg>,
    proc: u32,
    lkmmv1: bool,
    /// Statement being run, for messages.
    span: Span,
    /// Taint given to registers written here: [`Ctl::taint`] of everything below.
    taint: Deps,
    /// What the enclosing branches (and loop iterations) depend on.
    branch: Ctl,
    /// What the rest of the thread depends on: tests of `if`s that may `return`, exits of
    /// spin-waits.
    thread: Ctl,
    /// Per open loop, innermost last.
    loops: Vec<LoopCtl>,
    /// The dependencies in force at the last `break`, for a spin-wait's exit.
    at_break: Ctl,
    cond: Option<CondAcc>,
    /// Open read-modify-write operands (see [`Interp::branch_expr`]).
    in_rmw: u32,
    /// Per inlined helper function being run, innermost last: the tests of its `if`s
    /// that may `return` (what the rest of that function depends on, not the caller).
    frames: Vec<Ctl>,
    /// Instructions started so far (herd's program-order index, roughly).
    instrs: u32,
}

type R<T> = Result<T, Stop>;

impl<'t, 'a> Interp<'t, 'a> {
    pub fn new(
        t: &'t mut Tracer<'a>,
        proc: u32,
        lkmmv1: bool,
        regs: BTreeMap<String, Value>,
    ) -> Self {
        let regs = regs
            .into_iter()
            .map(|(k, v)| {
                (
                    k,
                    Reg {
                        v,
                        ..Reg::default()
                    },
                )
            })
            .collect();
        Interp {
            t,
            regs,
            proc,
            lkmmv1,
            span: Span::default(),
            taint: Deps::NONE,
            branch: Ctl::default(),
            thread: Ctl::default(),
            loops: Vec::new(),
            at_break: Ctl::default(),
            cond: None,
            in_rmw: 0,
            frames: Vec::new(),
            instrs: 0,
        }
    }

    pub fn finish(self) -> BTreeMap<String, Value> {
        self.regs.into_iter().map(|(k, r)| (k, r.v)).collect()
    }

    fn error(&self, msg: impl Into<String>) -> Stop {
        Stop::error(Some(self.span), msg)
    }

    /// A failure caused by a value: impossible if the value came from a read (the
    /// enumerator offers reads values no execution may give them), an error otherwise.
    fn bad_value(&self, v: &Val, msg: impl Into<String>) -> Stop {
        if v.all().is_empty() && v.taint.is_empty() {
            self.error(msg)
        } else {
            Stop::Undefined(crate::sem::SemError {
                span: Some(self.span),
                msg: msg.into(),
            })
        }
    }

    // ------------------------------------------------------------ instructions

    fn begin_instr(&mut self) {
        self.t.next_instr();
        self.instrs += 1;
    }

    /// herd's `iico` from each of `from` to `to`, events of the current instruction. For
    /// C, herd's `po` includes these links (see module doc).
    fn link(&mut self, name: &'static str, from: &[usize], to: usize) {
        for &a in from {
            self.t.relate(name, a, to);
            self.t.relate("po", a, to);
        }
    }

    // ------------------------------------------------------------ statements

    pub fn stmt(&mut self, st: &St) -> R<Flow> {
        match st {
            St::Seq(v) => {
                for s in v {
                    let f = self.stmt(s)?;
                    if f != Flow::Next {
                        return Ok(f);
                    }
                }
                Ok(Flow::Next)
            }
            St::If {
                cond,
                then,
                els,
                exits,
                span,
            } => {
                self.span = *span;
                let (go, ctl) = self.condition(cond)?;
                let branch = if go { Some(&**then) } else { els.as_deref() };
                let flow = match branch {
                    Some(b) => {
                        let saved = self.enter(ctl);
                        let r = self.stmt(b);
                        self.leave(saved);
                        r?
                    }
                    None => Flow::Next,
                };
                if flow == Flow::Next && exits.any() {
                    self.fell_through(*exits, ctl);
                }
                Ok(flow)
            }
            St::Loop(l) => {
                let saved = self.branch;
                self.loops.push(LoopCtl::default());
                let r = self.run_loop(l);
                self.loops.pop();
                self.branch = saved;
                let r = r.map(|(flow, exit)| {
                    if l.ctrl_after {
                        self.thread = self.thread.union(exit);
                    }
                    flow
                });
                self.sync();
                match r? {
                    Flow::Return => Ok(Flow::Return),
                    _ => Ok(Flow::Next),
                }
            }
            St::Break(_) => {
                self.at_break = self.total();
                Ok(Flow::Break)
            }
            St::Continue(_) => Ok(Flow::Continue),
            St::Return(_) => Ok(Flow::Return),
            _ => {
                self.begin_instr();
                self.simple(st)?;
                Ok(Flow::Next)
            }
        }
    }

    /// The iterations of a loop, at most `unroll` after the first test (a `do`'s first
    /// iteration is free): how the loop ended, and the dependencies of that exit.
    fn run_loop(&mut self, l: &Loop) -> R<(Flow, Ctl)> {
        let mut n = 0;
        let mut first = true;
        loop {
            if l.test_first || !first {
                if let Some(c) = &l.cond {
                    self.span = l.span;
                    let (go, ctl) = self.condition(c)?;
                    if !go {
                        return Ok((Flow::Next, ctl));
                    }
                    if n >= self.t.unroll {
                        return Err(Stop::Cut);
                    }
                    // Each iteration lies in the branch of the previous test.
                    self.branch = self.branch.union(ctl);
                    self.sync();
                } else if n >= self.t.unroll {
                    return Err(Stop::Cut);
                }
                n += 1;
            }
            first = false;
            let start = self.total();
            match self.stmt(&l.body)? {
                Flow::Break => return Ok((Flow::Break, self.at_break.minus(start))),
                Flow::Return => return Ok((Flow::Return, Ctl::default())),
                Flow::Next | Flow::Continue => {}
            }
            // A `continue`'s test controls only the rest of its iteration.
            if let Some(lc) = self.loops.last_mut() {
                lc.cont = Ctl::default();
            }
            self.sync();
            if let Some(step) = &l.step {
                self.stmt(step)?;
            }
        }
    }

    /// An `if` that may exit fell through: what runs up to the exit's target depends on
    /// its test.
    fn fell_through(&mut self, exits: Exits, ctl: Ctl) {
        if exits.ret {
            match self.frames.last_mut() {
                Some(f) => *f = f.union(ctl),
                None => self.thread = self.thread.union(ctl),
            }
        }
        if let Some(lc) = self.loops.last_mut() {
            if exits.brk {
                lc.brk = lc.brk.union(ctl);
            }
            if exits.cont {
                lc.cont = lc.cont.union(ctl);
            }
        }
        self.sync();
    }

    /// Everything the code here depends on.
    fn total(&self) -> Ctl {
        let base = self
            .frames
            .iter()
            .fold(self.branch.union(self.thread), |a, f| a.union(*f));
        self.loops
            .iter()
            .fold(base, |a, l| a.union(l.brk).union(l.cont))
    }

    /// Hand [`Interp::total`] to the tracer (events) and to `taint` (locals).
    fn sync(&mut self) {
        let t = self.total();
        self.t.set_ctrl(t.ctrl);
        self.taint = t.taint;
    }

    fn enter(&mut self, ctl: Ctl) -> Ctl {
        let saved = self.branch;
        self.branch = saved.union(ctl);
        self.sync();
        saved
    }

    fn leave(&mut self, saved: Ctl) {
        self.branch = saved;
        self.sync();
    }

    /// Evaluate a test; returns whether it holds, with the reads the branch events are
    /// ctrl-dependent on and the taint for registers written in the branch.
    fn condition(&mut self, c: &Ex) -> R<(bool, Ctl)> {
        self.begin_instr();
        let (v, ctl) = self.tested(c, Port::No)?;
        Ok((self.t.decide(v.v.is_true(), v.all())?, ctl))
    }

    /// Evaluate `e` as the test of a branch (an `if`'s, or the left operand of `&&`, `||`
    /// or `?:`, which are nested `if`s): its value, and what code run only for some of its
    /// outcomes depends on. What the test met also counts for an enclosing test (a
    /// `({ ... })` or a short-circuit operand inside a condition).
    fn tested(&mut self, e: &Ex, port: Port) -> R<(Val, Ctl)> {
        let outer = self.cond.replace(CondAcc::default());
        let r = self.expr(e, port);
        let acc = self.cond.take().unwrap_or_default();
        if let Some(mut o) = outer {
            o.loads = o.loads.union(acc.loads);
            o.feed = o.feed.union(acc.feed);
            self.cond = Some(o);
        }
        let ctl = Ctl {
            ctrl: acc.loads.union(acc.feed),
            taint: acc.feed,
        };
        Ok((r?, ctl))
    }

    /// Evaluate `e` as the code of a branch taken after a test with `ctl`: a new
    /// instruction (herd's `po` orders it after the test, as it orders a nested `if`'s test
    /// after the outer one) whose events are ctrl-dependent on the test. Inside the
    /// operands of a read-modify-write the instruction is not split, so its read and write
    /// stay one instance (`rmw`).
    fn branch_expr(&mut self, e: &Ex, ctl: Ctl, port: Port) -> R<Val> {
        if self.in_rmw == 0 {
            self.begin_instr();
        }
        let saved = self.enter(ctl);
        let r = self.expr(e, port);
        self.leave(saved);
        r
    }

    /// An inlined helper function: its body up to its end or a `return`, then the local
    /// holding its value, read as a local is. What follows is an instruction of its own.
    fn frame(&mut self, body: &St, ret: &str, port: Port) -> R<Val> {
        let saved_span = self.span;
        self.frames.push(Ctl::default());
        let flow = self.stmt(body);
        self.frames.pop();
        self.sync();
        if matches!(flow?, Flow::Break | Flow::Continue) {
            return Err(self.error("`break` or `continue` out of a function"));
        }
        self.span = saved_span;
        self.begin_instr();
        self.expr(&Ex::Reg(ret.to_string(), saved_span), port)
    }

    /// A statement other than control flow: one instruction.
    fn simple(&mut self, st: &St) -> R<()> {
        match st {
            St::Decl(r) => {
                self.regs.entry(r.clone()).or_default();
            }
            St::SetReg(r, e, sp) => {
                self.span = *sp;
                let v = self.expr(e, Port::No)?;
                let reg = Reg {
                    v: v.v,
                    deps: v.all(),
                    taint: v.taint.union(self.taint),
                };
                self.regs.insert(r.clone(), reg);
            }
            St::Eval(e, sp) => {
                self.span = *sp;
                self.expr(e, Port::No)?;
            }
            St::Store(addr, val, annot, sp) => {
                self.span = *sp;
                let l = self.expr(addr, Port::Addr)?;
                let v = self.expr(val, Port::Data)?;
                self.store(&l, &v, annot)?;
            }
            St::Lock(l, sp) => {
                self.span = *sp;
                let l = self.expr(l, Port::Addr)?;
                self.lock(&l)?;
            }
            St::Unlock(l, sp) => {
                self.span = *sp;
                let l = self.expr(l, Port::Addr)?;
                self.special(&l, "UL")?;
            }
            St::AtomicOp(loc, op, val, annot, sp) => {
                self.span = *sp;
                // lkmmv1 marks the read of a value-less RMW `noreturn`.
                let (ar, aw) = if self.lkmmv1 {
                    (vec!["noreturn".to_string()], vec!["once".to_string()])
                } else {
                    (annot.clone(), annot.clone())
                };
                self.atomic_op(loc, *op, val, &ar, &aw)?;
            }
            St::Fence(annot, _) => {
                self.fence(annot)?;
            }
            St::Srcu(loc, annot, val, sp) => {
                self.span = *sp;
                let l = self.expr(loc, Port::No)?;
                let v = val.as_ref().map(|e| self.expr(e, Port::Addr)).transpose()?;
                let e = self.srcu(&l, annot, v.as_ref().map(|v| v.v))?;
                if let Some(v) = &v {
                    self.link("iico_data", &v.outs, e);
                }
            }
            St::SetElem(t, i, v, sp) => {
                self.span = *sp;
                let i = self.expr(i, Port::No)?;
                let v = self.expr(v, Port::No)?;
                let name = self.elem(t, &i)?;
                let reg = Reg {
                    v: v.v,
                    deps: v.all().union(i.all()),
                    taint: v.taint.union(i.taint).union(self.taint),
                };
                self.regs.insert(name, reg);
            }
            St::Seq(_)
            | St::If { .. }
            | St::Loop(_)
            | St::Break(_)
            | St::Continue(_)
            | St::Return(_) => {
                self.stmt(st)?;
            }
            St::Call(name, _, span) => {
                return Err(Stop::error(
                    Some(*span),
                    format!("macro `{name}` was not expanded"),
                ));
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------ events

    /// An event's tags: its annotations, then herd's action classes. `annot_set`: the
    /// event is an access or a fence, whose annotations also put it in herd's `annot`.
    fn tags(annot: &Annot, class: &[&str], annot_set: bool) -> Vec<String> {
        let mut tags: Vec<String> = annot.iter().filter(|a| !a.is_empty()).cloned().collect();
        if annot_set && !tags.is_empty() {
            tags.push("annot".into());
        }
        tags.extend(class.iter().map(|c| c.to_string()));
        // herd's `NA`: not a C11 atomic, which no LKMM event is.
        tags.push("NA".into());
        tags
    }

    fn check_addr(&self, l: &Val) -> R<()> {
        // An address not known yet: the tracer locates the access (see `Tracer::locate`).
        if !self.t.known(l.all()) {
            return Ok(());
        }
        match l.v {
            Value::Addr(_) => Ok(()),
            Value::Int(0) => Err(self.bad_value(l, "NULL dereference")),
            Value::Int(i) => Err(self.bad_value(l, format!("memory access at non-address {i}"))),
        }
    }

    /// A memory read at `l`; `rmw`: the read of a read-modify-write.
    fn read(&mut self, l: &Val, annot: &Annot, rmw: bool) -> R<usize> {
        self.check_addr(l)?;
        let tags = Self::tags(annot, if rmw { &["X", "RMW"] } else { &[] }, true);
        let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
        let loc = TVal {
            v: l.v,
            deps: l.all(),
        };
        let (i, _) = self.t.read(loc, &tags)?;
        self.link("iico_data", &l.outs, i);
        self.cond_load(i, l);
        Ok(i)
    }

    fn read_value(&self, i: usize) -> Value {
        self.t.events()[i].val.unwrap_or(Value::ZERO)
    }

    /// A memory write of `v` at `l` with its `addr`/`data` sources and the events that
    /// feed it (`iico_data`).
    /// `from`: every read the value written was computed from (its `data` dependencies
    /// are those of the data port only), which tells whether it is known yet.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        l: &Val,
        v: Value,
        from: Deps,
        deps: (Deps, Deps),
        feed: &[&[usize]],
        annot: &Annot,
        rmw: bool,
    ) -> R<usize> {
        self.check_addr(l)?;
        let tags = Self::tags(annot, if rmw { &["X", "RMW"] } else { &[] }, true);
        let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
        let w = self.t.write(
            TVal {
                v: l.v,
                deps: deps.0,
            },
            TVal { v, deps: deps.1 },
            &tags,
        )?;
        self.t.written_from(w, from);
        for f in feed {
            self.link("iico_data", f, w);
        }
        Ok(w)
    }

    /// A plain or annotated store `*l = v`.
    fn store(&mut self, l: &Val, v: &Val, annot: &Annot) -> R<usize> {
        let deps = (l.addr.union(v.addr), l.data.union(v.data));
        self.write(l, v.v, v.all(), deps, &[&l.outs, &v.outs], annot, false)
    }

    /// A lock-family event (`Kind::Special`): lock.cat computes its rf/co.
    fn special(&mut self, l: &Val, class: &str) -> R<usize> {
        self.check_addr(l)?;
        let at = self.t.locate(TVal {
            v: l.v,
            deps: l.all(),
        })?;
        let ev = EventData {
            kind: Kind::Special,
            loc: Some(at.v),
            val: None,
            tags: Self::tags(&Vec::new(), &[class], false),
            instr: 0,
        };
        let e = self.t.event(ev, l.all(), Deps::NONE)?;
        self.link("iico_data", &l.outs, e);
        Ok(e)
    }

    /// `spin_lock`: herd's pair of lock events, a read (`LKR`) then a write (`LKW`).
    fn lock(&mut self, l: &Val) -> R<usize> {
        let r = self.special(l, "LKR")?;
        let w = self.special(l, "LKW")?;
        for e in [r, w] {
            self.t.events_mut()[e].tags.insert(0, "LK".into());
        }
        self.link("iico_ctrl", &[r], w);
        Ok(w)
    }

    /// herd's SRCU event (`synchronize_srcu`): neither a memory access nor a target of
    /// dependencies.
    fn srcu(&mut self, l: &Val, annot: &Annot, val: Option<Value>) -> R<usize> {
        self.check_addr(l)?;
        let ev = EventData {
            kind: Kind::Special,
            loc: Some(l.v),
            val,
            tags: Self::tags(annot, &[], false),
            instr: 0,
        };
        let ctrl = self.t.ctrl();
        self.t.set_ctrl(Deps::NONE);
        let e = self.t.event(ev, Deps::NONE, Deps::NONE);
        self.t.set_ctrl(ctrl);
        let e = e?;
        self.link("iico_data", &l.outs, e);
        Ok(e)
    }

    fn fence(&mut self, annot: &Annot) -> R<usize> {
        let tags = Self::tags(annot, &[], true);
        let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
        self.t.fence(&tags)
    }

    /// lkmmv1 brackets fully-ordered RMWs with `mb` fences; the second follows the write.
    fn mb_fences(&mut self, w: usize) -> R<()> {
        let mb = vec!["mb".to_string()];
        self.fence(&mb)?;
        let g = self.fence(&mb)?;
        self.link("iico_ctrl", &[w], g);
        Ok(())
    }

    /// A lock-family event or load made by a condition is a ctrl source.
    fn cond_load(&mut self, e: usize, l: &Val) {
        if let Some(c) = &mut self.cond {
            c.loads = c.loads.union(Deps::one(e));
            c.feed = c.feed.union(l.all());
        }
    }

    fn is(a: &Annot, s: &str) -> bool {
        a.len() == 1 && a[0] == s
    }

    /// Annotations of an RMW's read and write. lkmmv2 keeps the primitive's; lkmmv1
    /// keeps acquire on the read, release on the write, and makes the rest `once`.
    fn rmw_annots(&self, a: &Annot) -> (Annot, Annot) {
        if !self.lkmmv1 {
            return (a.clone(), a.clone());
        }
        let once = vec!["once".to_string()];
        let r = if Self::is(a, "acquire") {
            a.clone()
        } else {
            once.clone()
        };
        let w = if Self::is(a, "release") {
            a.clone()
        } else {
            once
        };
        (r, w)
    }

    // ------------------------------------------------------------ expressions

    fn expr(&mut self, e: &Ex, port: Port) -> R<Val> {
        match e {
            Ex::Int(i) => Ok(Val::konst(Value::Int(*i))),
            Ex::Reg(r, _) => {
                let reg = self.regs.get(r).copied().unwrap_or_default();
                if let Some(c) = &mut self.cond {
                    c.feed = c.feed.union(reg.deps).union(reg.taint);
                }
                let mut v = Val::from(reg.v, reg.deps, port);
                v.taint = reg.taint;
                Ok(v)
            }
            Ex::Load(addr, annot) => {
                let l = self.expr(addr, port)?;
                let i = self.read(&l, annot, false)?;
                Ok(Val::event(self.read_value(i), i, port))
            }
            Ex::Un(op, a) => {
                let a = self.expr(a, port)?;
                let v = self.unop(*op, &a)?;
                Ok(Val { v, ..a })
            }
            Ex::Bin(op @ (BinOp::LAnd | BinOp::LOr), l, r) => {
                // `l && r` is `if (l) if (r)`: the right operand runs only for this
                // outcome of the left one, as a nested test.
                let (l, ctl) = self.tested(l, port)?;
                let holds = self.t.decide(l.v.is_true(), l.all())?;
                if holds == (*op == BinOp::LOr) {
                    return Ok(Val {
                        v: Value::Int(holds as i64),
                        ..l
                    });
                }
                let r = self.branch_expr(r, ctl, port)?;
                let v = Value::Int(r.v.is_true() as i64);
                Ok(l.join(&r, v))
            }
            Ex::Seq(st, e) => {
                let saved_span = self.span;
                let flow = self.stmt(st)?;
                if flow != Flow::Next {
                    return Err(self.error("`break`, `continue` or `return` out of an expression"));
                }
                self.span = saved_span;
                // What follows in the expression is an instruction of its own.
                self.begin_instr();
                self.expr(e, port)
            }
            Ex::Frame(body, ret) => self.frame(body, ret, port),
            Ex::Elem(t, i, _) => {
                let i = self.expr(i, Port::No)?;
                let name = self.elem(t, &i)?;
                let reg = self.regs.get(&name).copied().unwrap_or_default();
                if let Some(c) = &mut self.cond {
                    c.feed = c.feed.union(reg.deps).union(reg.taint);
                }
                let mut v = Val::from(reg.v, reg.deps, port).join(&i, reg.v);
                v.taint = v.taint.union(reg.taint);
                Ok(v)
            }
            Ex::Bin(op, l, r) => {
                let l = self.expr(l, port)?;
                let r = self.expr(r, port)?;
                let v = self.binop(*op, &l, &r)?;
                Ok(l.join(&r, v))
            }
            Ex::Cond(c, a, b) => {
                // `c ? a : b` is `if (c) a else b`.
                let (c, ctl) = self.tested(c, port)?;
                let holds = self.t.decide(c.v.is_true(), c.all())?;
                let x = self.branch_expr(if holds { a } else { b }, ctl, port)?;
                let v = x.v;
                Ok(c.join(&x, v))
            }
            Ex::Call(name, _, span) => Err(Stop::error(
                Some(*span),
                format!("macro `{name}` was not expanded"),
            )),
            Ex::Xchg(loc, val, a) => self.xchg(loc, val, a, port),
            Ex::CmpXchg(loc, old, new, a) => {
                let l = self.expr(loc, Port::Addr)?;
                let o = self.expr(old, Port::No)?;
                self.cmpxchg(l, &o, new, a)
            }
            Ex::TryCmpXchg(loc, oldp, new, a) => self.try_cmpxchg(loc, oldp, new, a),
            Ex::LocalAddr(r, _) => Err(self.error(format!(
                "`&{r}`: the address of a local is only allowed as try_cmpxchg's second argument"
            ))),
            Ex::AtomicRet {
                loc,
                op,
                val,
                fetch,
                annot,
            } => {
                let mb = self.lkmmv1 && Self::is(annot, "mb");
                let (ar, aw) = if mb {
                    (vec!["once".to_string()], vec!["once".to_string()])
                } else {
                    self.rmw_annots(annot)
                };
                let (mut v, old, w) = self.atomic_op(loc, *op, val, &ar, &aw)?;
                if mb {
                    self.mb_fences(w)?;
                }
                if *fetch {
                    v.v = old;
                }
                Ok(v)
            }
            Ex::AddUnless {
                loc,
                add,
                guard,
                yields,
                annot,
            } => self.add_unless(loc, add, guard, *yields, annot),
            Ex::TryLock(loc) => {
                let l = self.expr(loc, port)?;
                if self.t.choose(2)? == 0 {
                    let w = self.lock(&l)?;
                    // LKW hands the result over, but is no source of dependencies.
                    let mut v = Val::konst(Value::Int(1));
                    v.outs.push(w);
                    Ok(v)
                } else {
                    let f = self.special(&l, "LF")?;
                    self.cond_load(f, &l);
                    Ok(Val::event(Value::Int(0), f, Port::No))
                }
            }
            Ex::IsLocked(loc) => {
                let l = self.expr(loc, port)?;
                let locked = self.t.choose(2)? == 0;
                let e = self.special(&l, if locked { "RL" } else { "RU" })?;
                self.cond_load(e, &l);
                Ok(Val::event(Value::Int(locked as i64), e, Port::No))
            }
            Ex::Srcu(loc, a) => {
                let l = self.expr(loc, Port::Addr)?;
                // herd numbers srcu_read_lock() cookies by thread and instruction.
                let cookie = Self::is(a, "srcu-lock")
                    .then(|| Value::Int((self.proc as i64 + 1) * 307 + self.instrs as i64 * 599));
                let e = self.srcu(&l, a, cookie)?;
                let mut r = Val::konst(cookie.unwrap_or(Value::ZERO));
                r.outs.push(e);
                Ok(r)
            }
        }
    }

    /// `__xchg{a}(loc, val)`: an atomic read and write linked by `rmw`.
    fn xchg(&mut self, loc: &Ex, val: &Ex, a: &Annot, port: Port) -> R<Val> {
        let l = self.expr(loc, Port::Addr)?;
        let v = self.expr(val, Port::Data)?;
        let (ar, aw) = self.rmw_annots(a);
        let r = self.read(&l, &ar, true)?;
        let deps = (l.addr.union(v.addr), l.data.union(v.data));
        let w = self.write(&l, v.v, v.all(), deps, &[&l.outs, &v.outs], &aw, true)?;
        // The value written does not depend on the one read: herd links them by control.
        self.link("iico_ctrl", &[r], w);
        self.t.relate("rmw", r, w);
        if self.lkmmv1 && Self::is(a, "mb") {
            self.mb_fences(w)?;
        }
        Ok(Val::event(self.read_value(r), r, port))
    }

    /// `__cmpxchg{a}(loc, old, new)`: on success an atomic read and write, otherwise a
    /// lone atomic read (which linux-kernel.bell tells apart as a failed RMW).
    fn cmpxchg(&mut self, l: Val, o: &Val, new: &Ex, a: &Annot) -> R<Val> {
        let (arok, awok) = self.rmw_annots(a);
        // herd builds both outcomes and keeps the one the value read agrees with; here
        // the read comes first and its value decides.
        let r = self.read(&l, &arok, true)?;
        let got = self.read_value(r);
        if !self.t.decide(got == o.v, Deps::one(r).union(o.all()))? {
            if self.lkmmv1 {
                self.t.events_mut()[r].tags = Self::tags(&vec!["once".into()], &["X", "RMW"], true);
            }
            return Ok(Val::event(got, r, Port::Data));
        }
        self.in_rmw += 1;
        let n = self.expr(new, Port::Data);
        self.in_rmw -= 1;
        let n = n?;
        let deps = (l.addr.union(n.addr), l.data.union(n.data));
        let w = self.write(&l, n.v, n.all(), deps, &[&l.outs, &n.outs], &awok, true)?;
        self.link("iico_ctrl", &[r], w);
        self.link("iico_ctrl", &o.outs, w);
        self.t.relate("rmw", r, w);
        if self.lkmmv1 && Self::is(a, "mb") {
            self.mb_fences(w)?;
        }
        Ok(Val::event(got, r, Port::No))
    }

    /// `__try_cmpxchg{a}(loc, oldp, new)`, our extension: the kernel's macro, which
    /// expands to `o = *oldp; r = cmpxchg(loc, o, new); if (r != o) *oldp = r; r == o`.
    /// The cmpxchg's events are `__cmpxchg{a}`'s; `oldp` is `&local` (no event) or a
    /// pointer to memory, read before and written after it, plainly.
    fn try_cmpxchg(&mut self, loc: &Ex, oldp: &Ex, new: &Ex, a: &Annot) -> R<Val> {
        let l = self.expr(loc, Port::Addr)?;
        let (o, mem) = match oldp {
            Ex::LocalAddr(r, s) => (self.expr(&Ex::Reg(r.clone(), *s), Port::No)?, None),
            p => {
                let p = self.expr(p, Port::Addr)?;
                let i = self.read(&p, &Vec::new(), false)?;
                self.begin_instr();
                (Val::event(self.read_value(i), i, Port::No), Some(p))
            }
        };
        let got = self.cmpxchg(l, &o, new, a)?;
        let ok = self.t.decide(got.v == o.v, got.all().union(o.all()))?;
        if !ok {
            match (oldp, mem) {
                (Ex::LocalAddr(r, _), _) => {
                    let reg = Reg {
                        v: got.v,
                        deps: got.all(),
                        taint: got.taint.union(self.taint).union(got.all()),
                    };
                    self.regs.insert(r.clone(), reg);
                }
                (_, Some(p)) => {
                    self.begin_instr();
                    self.store(&p, &got, &Vec::new())?;
                }
                _ => {}
            }
        }
        Ok(got.join(&o, Value::Int(ok as i64)))
    }

    /// herd's `build_atomic_op`: read, compute, write. Returns the new value (sourced
    /// from the operand and the read, as herd's output is), the old value and the write.
    fn atomic_op(
        &mut self,
        loc: &Ex,
        op: RmwOp,
        val: &Ex,
        ar: &Annot,
        aw: &Annot,
    ) -> R<(Val, Value, usize)> {
        let e = self.expr(val, Port::Data)?;
        let l = self.expr(loc, Port::Addr)?;
        let r = self.read(&l, ar, true)?;
        let old = self.read_value(r);
        let rv = Val::event(old, r, Port::Data);
        let new = self.rmw_op(op, &rv, &e)?;
        // The location feeds the read only; the write takes the operand and the read.
        let deps = (e.addr, e.data.union(Deps::one(r)));
        let from = e.all().union(Deps::one(r));
        let w = self.write(&l, new, from, deps, &[&e.outs, &[r]], aw, true)?;
        self.t.relate("rmw", r, w);
        Ok((e.join(&rv, new), old, w))
    }

    /// A conditional add ([`Ex::AddUnless`]): herd's `__atomic_add_unless{a}(loc, add,
    /// unless)` adds unless the value read is `unless` and yields whether it added; ours
    /// also yield the value read, or skip a negative sum and yield it.
    fn add_unless(
        &mut self,
        loc: &Ex,
        add: &Ex,
        guard: &Guard,
        yields: Yield,
        a: &Annot,
    ) -> R<Val> {
        let l = self.expr(loc, Port::Addr)?;
        let u = match guard {
            Guard::Equals(u) => self.expr(u, Port::No)?,
            Guard::NegativeSum => Val::konst(Value::ZERO),
        };
        let an = if self.lkmmv1 {
            vec!["once".to_string()]
        } else {
            a.clone()
        };
        let r = self.read(&l, &an, true)?;
        let got = self.read_value(r);
        let old = Val::event(got, r, Port::No);
        let mut sum = None;
        let added = match guard {
            Guard::Equals(_) => self.t.decide(got != u.v, Deps::one(r).union(u.all()))?,
            Guard::NegativeSum => {
                let av = self.expr(add, Port::Addr)?;
                let v = self.rmw_op(RmwOp::Add, &old, &av)?;
                let neg = v.as_int().is_some_and(|x| x < 0);
                let deps = Deps::one(r).union(av.all());
                sum = Some(av.join(&old, v));
                self.t.decide(!neg, deps)?
            }
        };
        if added {
            let av = match &sum {
                Some(s) => s.clone(),
                None => self.expr(add, Port::Addr)?,
            };
            let v = match &sum {
                Some(s) => s.v,
                None => self.rmw_op(RmwOp::Add, &old, &av)?,
            };
            let deps = (
                l.addr.union(av.addr),
                l.data.union(av.data).union(Deps::one(r)),
            );
            let from = av.all().union(Deps::one(r));
            let w = self.write(&l, v, from, deps, &[&l.outs, &av.outs, &[r]], &an, true)?;
            self.link("iico_ctrl", &u.outs, w);
            self.t.relate("rmw", r, w);
            if self.lkmmv1 {
                self.mb_fences(w)?;
            }
        }
        Ok(match yields {
            Yield::Added => old.join(&u, Value::Int(added as i64)),
            Yield::Old => old.join(&u, got),
            Yield::Sum => match sum {
                Some(s) => s,
                None => {
                    let av = self.expr(add, Port::Addr)?;
                    let v = self.rmw_op(RmwOp::Add, &old, &av)?;
                    av.join(&old, v)
                }
            },
        })
    }

    /// The local `t[i]` of a local array, for the value of `i`.
    fn elem(&self, t: &str, i: &Val) -> R<String> {
        let name = match i.v {
            Value::Int(k) => format!("{t}[{k}]"),
            Value::Addr(_) => return Err(self.bad_value(i, "an address as an array index")),
        };
        if self.regs.contains_key(&name) {
            Ok(name)
        } else {
            Err(self.bad_value(i, format!("index out of the bounds of `{t}`")))
        }
    }

    // ------------------------------------------------------------ arithmetic

    fn rmw_op(&self, op: RmwOp, old: &Val, v: &Val) -> R<Value> {
        let b = match op {
            RmwOp::Add => BinOp::Add,
            RmwOp::Sub => BinOp::Sub,
            RmwOp::And | RmwOp::AndNot => BinOp::And,
            RmwOp::Or => BinOp::Or,
            RmwOp::Xor => BinOp::Xor,
        };
        if op == RmwOp::AndNot {
            let not = self.unop(UnOp::BitNot, v)?;
            return self.binop(
                b,
                old,
                &Val {
                    v: not,
                    ..v.clone()
                },
            );
        }
        self.binop(b, old, v)
    }

    fn unop(&self, op: UnOp, a: &Val) -> R<Value> {
        let int = |v: &Val| {
            v.v.as_int()
                .ok_or_else(|| self.bad_value(v, "arithmetic on an address"))
        };
        Ok(match op {
            UnOp::Not => Value::Int(!a.v.is_true() as i64),
            UnOp::Neg => Value::Int(int(a)?.wrapping_neg()),
            UnOp::BitNot => Value::Int(!int(a)?),
            _ => return Err(self.error("unsupported operator")),
        })
    }

    fn binop(&self, op: BinOp, l: &Val, r: &Val) -> R<Value> {
        use BinOp::*;
        let b = |x: bool| Value::Int(x as i64);
        match op {
            Eq => return Ok(b(l.v == r.v)),
            Ne => return Ok(b(l.v != r.v)),
            LAnd => return Ok(b(l.v.is_true() && r.v.is_true())),
            LOr => return Ok(b(l.v.is_true() || r.v.is_true())),
            _ => {}
        }
        let (Some(x), Some(y)) = (l.v.as_int(), r.v.as_int()) else {
            // Pointer arithmetic counts cells of an array, as C counts elements; outside
            // arrays only offset 0 names a location.
            let cells = match (op, l.v, r.v) {
                (Add, Value::Addr(a), Value::Int(k)) | (Add, Value::Int(k), Value::Addr(a)) => {
                    Some((a, k))
                }
                (Sub, Value::Addr(a), Value::Int(k)) => Some((a, k.wrapping_neg())),
                _ => None,
            };
            if let Some((a, k)) = cells {
                return match self.t.symbols.offset_cells(a, k) {
                    Some(c) => Ok(Value::Addr(c)),
                    None => Err(self.bad_value(
                        if l.v.as_int().is_some() { l } else { r },
                        format!(
                            "address `{} {} {k}` is outside every array",
                            self.t.symbols.name(a),
                            if op == Add { "+" } else { "-" }
                        ),
                    )),
                };
            }
            let culprit = if l.v.as_int().is_none() { l } else { r };
            return Err(self.bad_value(culprit, "arithmetic on an address"));
        };
        let div0 = || self.bad_value(r, "division by zero");
        Ok(match op {
            Add => Value::Int(x.wrapping_add(y)),
            Sub => Value::Int(x.wrapping_sub(y)),
            Mul => Value::Int(x.wrapping_mul(y)),
            Div => Value::Int(x.checked_div(y).ok_or_else(div0)?),
            Rem => Value::Int(x.checked_rem(y).ok_or_else(div0)?),
            And => Value::Int(x & y),
            Or => Value::Int(x | y),
            Xor => Value::Int(x ^ y),
            Shl => Value::Int(x.wrapping_shl(y as u32)),
            Shr => Value::Int(x.wrapping_shr(y as u32)),
            Lt => b(x < y),
            Le => b(x <= y),
            Gt => b(x > y),
            Ge => b(x >= y),
            Eq | Ne | LAnd | LOr => unreachable!("handled above"),
        })
    }
}
