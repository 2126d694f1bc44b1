//! The reference evaluator: herd's cat semantics read directly, on one concrete candidate.
//!
//! It is what the model *means*, written to be read in one sitting and checked against
//! herd's `interpreter.ml`: no plans, bounds, pruning or native library functions (`cross`,
//! `one-of-each` and the coherence-order builders run as their cat text says). The fast
//! path (`cat::plan`) must give the same verdicts, and falls back on this evaluator where
//! it cannot compile a model; `litmus check --reference` judges every candidate with this
//! one, and `tests/reference.rs` compares them.
//!
//! The instructions run in continuation-passing style, as in herd: what remains to run is
//! a persistent stack of frames, so `with x from S` runs the whole rest of the model once
//! per element of `S`, each run reporting its own [`Verdict`].

mod eval;

use super::ast::*;
use super::ops::tag_branch;
use super::value::{Env, Procedure, Value};
use super::{CatError, Failure, Model, Primitives, Verdict};
use crate::budget::Budget;
use eval::{Eval, R};
use std::rc::Rc;

/// Runs `m` on the candidate `p`, handing each branch's verdict to `report` until it
/// returns false. Without `relations`, verdicts leave out the final `co` and `rf`. A spent
/// `budget` stops the run with a fatal [`CatError`].
pub fn run(
    m: &Model,
    p: &Primitives,
    relations: bool,
    budget: &Budget,
    report: &mut dyn FnMut(Verdict) -> bool,
) -> Result<(), CatError> {
    let ev = Eval::new(m, p, budget);
    let mut k = Kont::default();
    for &f in m.order.iter().rev() {
        k = k.push(Frame::Seq(&m.files[f].prog.body));
    }
    let st = State {
        env: Env::default(),
        flags: Vec::new(),
        calls: 0,
    };
    let mut runner = Runner {
        ev: &ev,
        report,
        relations,
    };
    runner.run(st, k).map(|_| ()).map_err(|e| *e)
}

/// What remains to run after the current instruction.
enum Frame<'m> {
    Seq(&'m [Ins]),
    /// Back from a procedure call: the caller's environment (its flags are kept) and how
    /// many calls it was in.
    Restore(Env<'m>, u32),
    /// The rest of a `forall`: the body for the elements from `next` on, each in `env`.
    Forall {
        x: Sym,
        elems: Rc<Vec<Value<'m>>>,
        next: usize,
        body: &'m [Ins],
        env: Env<'m>,
    },
}

#[derive(Clone, Default)]
struct Kont<'m>(Option<Rc<(Frame<'m>, Kont<'m>)>>);

impl<'m> Kont<'m> {
    fn push(&self, f: Frame<'m>) -> Kont<'m> {
        Kont(Some(Rc::new((f, self.clone()))))
    }
}

/// One branch's state: its environment, the flags raised so far, and the procedure
/// calls under way (at most [`super::MAX_CALL_DEPTH`]).
#[derive(Clone)]
struct State<'m> {
    env: Env<'m>,
    flags: Vec<String>,
    calls: u32,
}

/// Where an instruction leaves the run.
enum Step<'m> {
    /// On to the next instruction.
    Next,
    /// On with this continuation instead.
    Jump(Kont<'m>),
    /// This branch is over (its verdict reported); false when asked to stop.
    Done(bool),
}

struct Runner<'a, 'm, 'p> {
    ev: &'a Eval<'m, 'p>,
    report: &'a mut dyn FnMut(Verdict) -> bool,
    relations: bool,
}

impl<'m> Runner<'_, 'm, '_> {
    /// Runs `k` from `st`; false when `report` asked to stop.
    fn run(&mut self, mut st: State<'m>, mut k: Kont<'m>) -> R<bool> {
        loop {
            let Some(node) = k.0.clone() else {
                return Ok(self.verdict(&st, None));
            };
            let (frame, rest) = &*node;
            k = rest.clone();
            match frame {
                Frame::Seq(body) => {
                    for (i, ins) in body.iter().enumerate() {
                        match self.exec(&mut st, ins, &k.push(Frame::Seq(&body[i + 1..])))? {
                            Step::Next => {}
                            Step::Jump(k2) => {
                                k = k2;
                                break;
                            }
                            Step::Done(go_on) => return Ok(go_on),
                        }
                    }
                }
                Frame::Restore(env, calls) => {
                    st.env = env.clone();
                    st.calls = *calls;
                }
                Frame::Forall {
                    x,
                    elems,
                    next,
                    body,
                    env,
                } => {
                    st.env = env.clone();
                    if let Some(v) = elems.get(*next) {
                        st.env = env.bind(*x, v.clone());
                        let more = Frame::Forall {
                            x: *x,
                            elems: elems.clone(),
                            next: next + 1,
                            body,
                            env: env.clone(),
                        };
                        k = k.push(more).push(Frame::Seq(body));
                    }
                }
            }
        }
    }

    /// Reports this branch's verdict; whether to go on.
    fn verdict(&mut self, st: &State<'m>, failed: Option<Failure>) -> bool {
        let ev = self.ev;
        let get = |name: &str| {
            let x = ev.m.names.get(name)?;
            let v = ev.lookup(&st.env, x, Pos::default()).ok()?;
            ev.as_rel(&v, Pos::default()).ok().map(Rc::unwrap_or_clone)
        };
        let (co, rf) = match self.relations {
            true => (get("co"), get("rf")),
            false => (None, None),
        };
        (self.report)(Verdict {
            failed,
            flags: st.flags.clone(),
            co,
            rf,
        })
    }

    fn fail(&mut self, st: &State<'m>, t: &Test, cycle: Option<Vec<usize>>) -> Step<'m> {
        Step::Done(self.verdict(st, Some(Failure::of(t, cycle))))
    }

    /// Runs one instruction; `k` is what follows it.
    fn exec(&mut self, st: &mut State<'m>, i: &'m Ins, k: &Kont<'m>) -> R<Step<'m>> {
        let ev = self.ev;
        let m = ev.m;
        match i {
            Ins::Let(_, bds) => st.env = ev.bind_lets(&st.env, bds)?,
            Ins::Rec(pos, bds, test) => match ev.env_rec(&st.env, *pos, bds, test.as_ref())? {
                Some(env) => st.env = env,
                None => {
                    let t = test.as_ref().expect("only a `when` check fails a let rec");
                    return Ok(self.fail(st, t, None));
                }
            },
            Ins::Match(pos, e, cls, d) => {
                let v = ev.eval(&st.env, e)?;
                let b = tag_branch(&v, cls, d.as_ref(), *pos, e.pos())
                    .map_err(|(p, m)| ev.err(p, m))?;
                return Ok(Step::Jump(k.push(Frame::Seq(b))));
            }
            Ins::Test(t, ty) => {
                let (ok, cycle) = ev.test(&st.env, t)?;
                match (ok, ty) {
                    (true, TestType::Flag) => st.flags.extend(t.name.clone()),
                    (true, _) | (false, TestType::Flag) => {}
                    (false, TestType::Check) => return Ok(self.fail(st, t, cycle)),
                    (false, TestType::UndefinedUnless) => st.flags.push("*undef*".into()),
                    (false, TestType::Assert) => {
                        let n = t.name.as_deref().unwrap_or("(unknown)");
                        return Err(
                            ev.err(t.pos, format!("{n} assertion failed, check input test"))
                        );
                    }
                }
            }
            Ins::Show(_) | Ins::Events(_) | Ins::Debug(..) => {}
            Ins::Include { pos, name, file } => {
                return match file {
                    Some(f) => Ok(Step::Jump(k.push(Frame::Seq(&m.files[*f].prog.body)))),
                    None => Err(ev.err(*pos, format!("cannot find file {name}"))),
                };
            }
            Ins::Procedure(_, name, pat, body, is_rec) => {
                let p = Procedure {
                    pat,
                    body,
                    env: st.env.clone(),
                    rec_name: is_rec.then_some(*name),
                };
                st.env = st.env.bind(*name, Value::Proc(Rc::new(p)));
            }
            Ins::Call(pos, name, arg, _) => {
                let Value::Proc(p) = ev.lookup(&st.env, *name, *pos)? else {
                    return Err(ev.err(*pos, "procedure expected"));
                };
                let a = ev.eval(&st.env, arg)?;
                let mut env = p.env.clone();
                if let Some(r) = p.rec_name {
                    env = env.bind(r, Value::Proc(p.clone()));
                }
                ev.poll(*pos)?;
                if st.calls >= super::MAX_CALL_DEPTH {
                    return Err(ev.too_deep(*pos));
                }
                let env = ev.bind_pat(&env, *pos, p.pat, a)?;
                let k = k
                    .push(Frame::Restore(st.env.clone(), st.calls))
                    .push(Frame::Seq(p.body));
                st.env = env;
                st.calls += 1;
                return Ok(Step::Jump(k));
            }
            Ins::Enum(_, name, _) => st.env = st.env.bind(*name, m.enum_value(*name)),
            Ins::Forall(pos, x, e, body) => {
                let elems = match ev.eval(&st.env, e)? {
                    Value::Empty => Rc::new(Vec::new()),
                    Value::ValSet(s) => s,
                    t @ Value::Tag(..) => Rc::new(vec![t]),
                    _ => return Err(ev.err(*pos, "forall instruction applied to non-set value")),
                };
                let f = Frame::Forall {
                    x: *x,
                    elems,
                    next: 0,
                    body,
                    env: st.env.clone(),
                };
                return Ok(Step::Jump(k.push(f)));
            }
            Ins::WithFrom(_, x, e) => {
                // No choice: the candidate has no branch here (herd's `kfail`).
                let elems = match ev.eval(&st.env, e)? {
                    Value::Empty => return Ok(Step::Done(true)),
                    Value::ValSet(s) => s,
                    _ => return Err(ev.err(e.pos(), "set expected")),
                };
                for v in elems.iter() {
                    ev.poll(e.pos())?;
                    let branch = State {
                        env: st.env.bind(*x, v.clone()),
                        flags: st.flags.clone(),
                        calls: st.calls,
                    };
                    if !self.run(branch, k.clone())? {
                        return Ok(Step::Done(false));
                    }
                }
                return Ok(Step::Done(true));
            }
            Ins::IfVariant(_, c, yes, no) => {
                let b = if m.variant_holds(c) { yes } else { no };
                return Ok(Step::Jump(k.push(Frame::Seq(b))));
            }
        }
        Ok(Step::Next)
    }
}
