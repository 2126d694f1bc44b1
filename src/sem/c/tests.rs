//! Run small C litmus threads through every choice sequence and check the events.

use super::{Macros, prepare, run};
use crate::litmus::ast::{Arch, LocRef, Test, Thread, ValueLit};
use crate::sem::{
    Domain, EventData, Kind, LocId, Stop, Symbols, ThreadExec, ThreadInit, Tracer, Value,
};

/// Every location may hold 0 or 1, unless a test says otherwise.
struct Dom(Vec<Vec<Value>>);

impl Domain for Dom {
    fn values(&self, l: LocId) -> &[Value] {
        &self.0[l.0 as usize]
    }
}

struct Case {
    test: Test,
    symbols: Symbols,
    dom: Dom,
    unroll: u32,
}

fn lit(symbols: &Symbols, v: &ValueLit) -> Value {
    match v {
        ValueLit::Int(i) => Value::Int(*i),
        ValueLit::Addr { name, .. } => Value::Addr(symbols.get(name).expect("interned")),
    }
}

impl Case {
    fn new(src: &str) -> Case {
        let test = crate::litmus::parse(src).unwrap_or_else(|e| panic!("{e}"));
        let mut symbols = Symbols::default();
        for e in &test.init {
            if let LocRef::Global(g) = &e.loc {
                symbols.intern(g);
            }
            if let Some(ValueLit::Addr { name, .. }) = &e.value {
                symbols.intern(name);
            }
        }
        for t in &test.threads {
            if let Thread::C(c) = t {
                for p in &c.params {
                    symbols.intern(&p.name);
                }
            }
        }
        let dom = Dom(vec![vec![Value::Int(0), Value::Int(1)]; symbols.len()]);
        Case {
            test,
            symbols,
            dom,
            unroll: 2,
        }
    }

    /// Let `loc` hold exactly `vals` (integers, or names of globals for addresses).
    fn domain(mut self, loc: &str, vals: &[&str]) -> Case {
        let l = self.symbols.get(loc).expect("known location");
        self.dom.0[l.0 as usize] = vals.iter().map(|v| self.val(v)).collect();
        self
    }

    fn val(&self, v: &str) -> Value {
        match v.parse() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Addr(self.symbols.get(v).expect("known location")),
        }
    }

    /// Every complete run of thread `proc`, in choice order.
    fn runs(&self, proc: u32) -> Vec<Result<ThreadExec, Stop>> {
        self.runs_with(proc, &Macros::lkmm())
    }

    fn runs_with(&self, proc: u32, macros: &Macros) -> Vec<Result<ThreadExec, Stop>> {
        let Some(Thread::C(th)) = self.test.threads.iter().find(|t| t.proc() == proc) else {
            panic!("no thread P{proc}");
        };
        let regs = self
            .test
            .init
            .iter()
            .filter_map(|e| match (&e.loc, &e.value) {
                (LocRef::Reg { proc: p, reg }, Some(v)) if *p == proc => {
                    Some((reg.clone(), lit(&self.symbols, v)))
                }
                _ => None,
            })
            .collect();
        let init = ThreadInit {
            arch: Arch::C,
            proc,
            regs,
            symbols: &self.symbols,
        };
        let mut out = Vec::new();
        let code = match prepare(th, &self.test.functions, macros) {
            Ok(code) => code,
            Err(e) => return vec![Err(e)],
        };
        let mut todo = vec![Vec::new()];
        while let Some(prefix) = todo.pop() {
            let mut t = Tracer::new(&prefix, &self.dom, &self.symbols, self.unroll);
            match run(th, &code, &init, macros, &mut t) {
                Err(Stop::Choose(n)) => {
                    for k in (0..n).rev() {
                        let mut p = prefix.clone();
                        p.push(k);
                        todo.push(p);
                    }
                }
                Ok(regs) => out.push(Ok(t.finish(regs))),
                Err(e) => out.push(Err(e)),
            }
        }
        out
    }

    /// The single run of a thread that makes no choice.
    fn only_run(&self, proc: u32) -> ThreadExec {
        let mut runs = self.runs(proc);
        assert_eq!(runs.len(), 1, "expected one run");
        runs.pop().unwrap().expect("run completes")
    }

    fn loc(&self, name: &str) -> Option<Value> {
        Some(Value::Addr(self.symbols.get(name).expect("known location")))
    }
}

fn ok_runs(runs: Vec<Result<ThreadExec, Stop>>) -> Vec<ThreadExec> {
    runs.into_iter()
        .map(|r| r.expect("run completes"))
        .collect()
}

fn tags(e: &EventData) -> Vec<&str> {
    e.tags.iter().map(String::as_str).collect()
}

fn rel(x: &ThreadExec, name: &str) -> Vec<(u32, u32)> {
    x.rels
        .iter()
        .filter(|r| r.0 == name)
        .map(|r| (r.1, r.2))
        .collect()
}

/// herd's C `po`: instruction order, plus the extra pairs inside an instruction.
fn po(x: &ThreadExec, a: usize, b: usize) -> bool {
    x.events[a].instr < x.events[b].instr || rel(x, "po").contains(&(a as u32, b as u32))
}

fn same_instance(x: &ThreadExec, a: usize, b: usize) -> bool {
    x.events[a].instr == x.events[b].instr
}

fn reg(x: &ThreadExec, r: &str) -> Value {
    x.regs[r]
}

fn test_src(body: &str) -> String {
    format!("C t\n{{ }}\n{body}\nexists (0:r0=0)\n")
}

#[test]
fn message_passing_release_acquire() {
    let c = Case::new(&test_src(
        "P0(int *x, int *y) { WRITE_ONCE(*x, 1); smp_store_release(y, 1); }\n\
         P1(int *x, int *y) { int r0; int r1; r0 = smp_load_acquire(y); r1 = READ_ONCE(*x); }",
    ));
    let w = c.only_run(0);
    assert_eq!(w.events.len(), 2);
    assert_eq!(w.events[0].kind, Kind::Write);
    assert_eq!(w.events[0].loc, c.loc("x"));
    assert_eq!(w.events[0].val, Some(Value::Int(1)));
    assert_eq!(tags(&w.events[0]), ["ONCE", "annot", "NA"]);
    assert_eq!(tags(&w.events[1]), ["RELEASE", "annot", "NA"]);
    assert_eq!(w.events[1].loc, c.loc("y"));
    assert!(po(&w, 0, 1));
    assert!(!same_instance(&w, 0, 1));
    assert!(w.rels.is_empty());

    let rs = ok_runs(c.runs(1));
    assert_eq!(rs.len(), 4);
    let finals: Vec<_> = rs.iter().map(|x| (reg(x, "r0"), reg(x, "r1"))).collect();
    let (z, o) = (Value::Int(0), Value::Int(1));
    assert_eq!(finals, [(z, z), (z, o), (o, z), (o, o)]);
    for x in &rs {
        assert_eq!(tags(&x.events[0]), ["ACQUIRE", "annot", "NA"]);
        assert_eq!(x.events[0].kind, Kind::Read);
        assert!(po(x, 0, 1));
        assert!(x.rels.is_empty(), "no dependency between the reads");
    }
}

#[test]
fn plain_accesses_have_no_annotation() {
    let c = Case::new(&test_src(
        "P0(int *x, int *y) { int r0; r0 = *x; *y = r0 + 1; }",
    ));
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 2);
    for x in &rs {
        assert_eq!(tags(&x.events[0]), ["NA"]);
        assert_eq!(tags(&x.events[1]), ["NA"]);
        assert_eq!(rel(x, "data"), [(0, 1)]);
    }
    assert_eq!(rs[1].events[1].val, Some(Value::Int(2)));
}

#[test]
fn xchg_is_a_read_and_a_write_in_rmw() {
    let c = Case::new(&test_src("P0(int *x) { int r0; r0 = xchg(x, 2); }"));
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 2);
    for (k, x) in rs.iter().enumerate() {
        let (r, w) = (&x.events[0], &x.events[1]);
        assert_eq!((r.kind, w.kind), (Kind::Read, Kind::Write));
        assert_eq!(tags(r), ["MB", "annot", "X", "RMW", "NA"]);
        assert_eq!(tags(w), ["MB", "annot", "X", "RMW", "NA"]);
        assert_eq!(w.val, Some(Value::Int(2)));
        assert_eq!(reg(x, "r0"), Value::Int(k as i64));
        assert_eq!(rel(x, "rmw"), [(0, 1)]);
        assert_eq!(rel(x, "iico_ctrl"), [(0, 1)]);
        // The write does not depend on the value read, but po orders them.
        assert!(rel(x, "data").is_empty());
        assert!(po(x, 0, 1) && !po(x, 1, 0));
        assert!(
            same_instance(x, 0, 1),
            "stdlib.cat's rmw needs one instance"
        );
    }
}

#[test]
fn cmpxchg_success_and_failure() {
    let c = Case::new(&test_src(
        "P0(int *x) { int r0; r0 = cmpxchg_acquire(x, 0, 5); }",
    ))
    .domain("x", &["0", "3"]);
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 2);
    let ok = &rs[0];
    assert_eq!(ok.events.len(), 2);
    assert_eq!(tags(&ok.events[0]), ["ACQUIRE", "annot", "X", "RMW", "NA"]);
    assert_eq!(ok.events[1].val, Some(Value::Int(5)));
    assert_eq!(rel(ok, "rmw"), [(0, 1)]);
    assert_eq!(reg(ok, "r0"), Value::Int(0));
    // A failed cmpxchg is a lone RMW-class read keeping its annotation (lkmmv2).
    let no = &rs[1];
    assert_eq!(no.events.len(), 1);
    assert_eq!(tags(&no.events[0]), ["ACQUIRE", "annot", "X", "RMW", "NA"]);
    assert!(rel(no, "rmw").is_empty());
    assert_eq!(reg(no, "r0"), Value::Int(3));
}

#[test]
fn lkmmv1_brackets_full_rmws_with_fences() {
    let c = Case::new(&test_src("P0(int *x) { int r0; r0 = __xchg_probe(x); }"));
    let mut m = Macros::parse("__xchg_probe(X) __xchg{mb}(X,1)").expect("parses");
    m.lkmmv1 = true;
    let rs: Vec<_> = ok_runs(c.runs_with(0, &m));
    let x = &rs[0];
    let kinds: Vec<Kind> = x.events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [Kind::Read, Kind::Write, Kind::Fence, Kind::Fence]);
    assert_eq!(tags(&x.events[0]), ["once", "annot", "X", "RMW", "NA"]);
    assert_eq!(tags(&x.events[2]), ["mb", "annot", "NA"]);
    // As in herd, only the closing fence is linked (after the write).
    assert!(!po(x, 0, 2) && !po(x, 2, 0));
    assert!(po(x, 1, 3));
}

#[test]
fn spinlocks_are_special_events() {
    let c = Case::new(&test_src(
        "P0(spinlock_t *l, int *x) { spin_lock(l); WRITE_ONCE(*x, 1); spin_unlock(l); }",
    ));
    let x = c.only_run(0);
    let kinds: Vec<Kind> = x.events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [Kind::Special, Kind::Special, Kind::Write, Kind::Special]
    );
    assert_eq!(tags(&x.events[0]), ["LK", "LKR", "NA"]);
    assert_eq!(tags(&x.events[1]), ["LK", "LKW", "NA"]);
    assert_eq!(tags(&x.events[3]), ["UL", "NA"]);
    for e in [0, 1, 3] {
        assert_eq!(x.events[e].loc, c.loc("l"));
        assert_eq!(x.events[e].val, None);
    }
    // lock.cat pairs LKR and LKW through po: the lock orders them.
    assert!(po(&x, 0, 1) && po(&x, 1, 2) && po(&x, 2, 3));
    assert_eq!(rel(&x, "iico_ctrl"), [(0, 1)]);
}

#[test]
fn trylock_and_is_locked_have_two_outcomes() {
    let c = Case::new(&test_src(
        "P0(spinlock_t *l, int *x) { int r0; int r1; r0 = spin_trylock(l); r1 = spin_is_locked(l); \
         if (r1) { WRITE_ONCE(*x, 1); } }",
    ));
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 4);
    let summary: Vec<(Value, Value, Vec<&str>)> = rs
        .iter()
        .map(|x| {
            let classes = x
                .events
                .iter()
                .map(|e| e.tags[e.tags.len() - 2].as_str())
                .collect();
            (reg(x, "r0"), reg(x, "r1"), classes)
        })
        .collect();
    let (z, o) = (Value::Int(0), Value::Int(1));
    assert_eq!(
        summary,
        [
            (o, o, vec!["LKR", "LKW", "RL", "annot"]),
            (o, z, vec!["LKR", "LKW", "RU"]),
            (z, o, vec!["LF", "RL", "annot"]),
            (z, z, vec!["LF", "RU"]),
        ]
    );
    // The is-locked event feeds the test like a read: the write is ctrl-dependent on it.
    assert_eq!(rel(&rs[0], "ctrl"), [(2, 3)]);
}

#[test]
fn atomic_operations() {
    let c = Case::new(&test_src(
        "P0(atomic_t *v, int *y) { int r0; int r1; int r2; atomic_inc(v); r0 = atomic_add_return(2, v); \
         r1 = atomic_fetch_sub_relaxed(1, v); r2 = atomic_dec_and_test(v); }",
    ))
    .domain("v", &["4"]);
    let x = c.only_run(0);
    assert_eq!(x.events.len(), 8);
    assert_eq!(tags(&x.events[0]), ["NORETURN", "annot", "X", "RMW", "NA"]);
    assert_eq!(tags(&x.events[1]), ["NORETURN", "annot", "X", "RMW", "NA"]);
    assert_eq!(x.events[1].val, Some(Value::Int(5)));
    assert_eq!(tags(&x.events[2]), ["MB", "annot", "X", "RMW", "NA"]);
    assert_eq!(tags(&x.events[5]), ["ONCE", "annot", "X", "RMW", "NA"]);
    assert_eq!(
        reg(&x, "r0"),
        Value::Int(6),
        "add_return gives the new value"
    );
    assert_eq!(
        reg(&x, "r1"),
        Value::Int(4),
        "fetch_sub gives the old value"
    );
    assert_eq!(x.events[5].val, Some(Value::Int(3)));
    assert_eq!(reg(&x, "r2"), Value::Int(0), "4 - 1 is not zero");
    // Each RMW: rmw and a data dependency from its read to its write.
    assert_eq!(rel(&x, "rmw"), [(0, 1), (2, 3), (4, 5), (6, 7)]);
    assert_eq!(rel(&x, "data"), [(0, 1), (2, 3), (4, 5), (6, 7)]);
}

#[test]
fn add_unless_adds_unless_equal() {
    let c = Case::new(&test_src(
        "P0(atomic_t *v) { int r0; r0 = atomic_add_unless(v, 1, 0); }",
    ))
    .domain("v", &["0", "7"]);
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs[0].events.len(), 1, "v == 0: no write");
    assert_eq!(reg(&rs[0], "r0"), Value::Int(0));
    assert_eq!(rs[1].events.len(), 2);
    assert_eq!(rs[1].events[1].val, Some(Value::Int(8)));
    assert_eq!(reg(&rs[1], "r0"), Value::Int(1));
}

#[test]
fn ctrl_reaches_the_branch_only() {
    let c = Case::new(&test_src(
        "P0(int *x, int *y, int *z) { int r0; r0 = READ_ONCE(*x); \
         if (r0 == 1) { WRITE_ONCE(*y, 1); smp_mb(); } WRITE_ONCE(*z, 1); }",
    ));
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 2);
    assert_eq!(rs[0].events.len(), 2);
    assert!(rel(&rs[0], "ctrl").is_empty());
    // Read, write in the branch, fence in the branch, write after the if.
    assert_eq!(rs[1].events.len(), 4);
    assert_eq!(rel(&rs[1], "ctrl"), [(0, 1), (0, 2)]);
}

#[test]
fn ctrl_follows_registers_set_under_a_test() {
    let c = Case::new(&test_src(
        "P0(int *x, int *y) { int r0; int r1 = 0; r0 = READ_ONCE(*x); \
         if (r0) { r1 = 1; } if (r1) { WRITE_ONCE(*y, 1); } }",
    ));
    let rs = ok_runs(c.runs(0));
    assert_eq!(rel(&rs[1], "ctrl"), [(0, 1)]);
    assert!(rel(&rs[1], "data").is_empty());
}

#[test]
fn address_and_data_dependencies() {
    let c = Case::new(
        "C t\n{ int *p = a; }\nP0(int **p, int *y) { int *r0; int r1; r0 = READ_ONCE(*p); \
         r1 = READ_ONCE(*r0); WRITE_ONCE(*y, r1); WRITE_ONCE(*r0, 2); }\nexists (0:r1=0)\n",
    )
    .domain("p", &["a"]);
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 2);
    let x = &rs[1];
    assert_eq!(x.events[1].loc, c.loc("a"));
    assert_eq!(rel(x, "addr"), [(0, 1), (0, 3)]);
    assert_eq!(rel(x, "data"), [(1, 2)]);
}

#[test]
fn loops_are_cut_at_the_unrolling_bound() {
    let c = Case::new(&test_src(
        "P0(int *x) { int r0 = 0; while (READ_ONCE(*x) == 0) { r0 = r0 + 1; } }",
    ));
    let rs = c.runs(0);
    // Reads: 0,0,0 (cut) | 0,0,1 | 0,1 | 1.
    assert_eq!(rs.len(), 4);
    let iters: Vec<_> = rs
        .iter()
        .map(|r| r.as_ref().map(|x| reg(x, "r0")))
        .collect();
    assert_eq!(iters[0], Err(&Stop::Cut));
    assert_eq!(
        iters[1..],
        [Ok(Value::Int(2)), Ok(Value::Int(1)), Ok(Value::Int(0))]
    );
    // Later tests and iterations are ctrl-dependent on every earlier test.
    let two = rs[1].as_ref().unwrap();
    assert_eq!(rel(two, "ctrl"), [(0, 1), (0, 2), (1, 2)]);
}

#[test]
fn rcu_and_srcu() {
    let c = Case::new(&test_src(
        "P0(int *x, struct srcu_struct *s) { int r0; int r1; rcu_read_lock(); r1 = srcu_read_lock(s); \
         r0 = rcu_dereference(*x); srcu_read_unlock(s, r1); rcu_read_unlock(); synchronize_srcu(s); \
         smp_mb__after_srcu_read_unlock(); }",
    ))
    .domain("x", &["0"])
    .domain("s", &["0"]);
    let x = c.only_run(0);
    let t: Vec<Vec<&str>> = x.events.iter().map(tags).collect();
    assert_eq!(t[0], ["rcu-lock", "annot", "NA"]);
    assert_eq!(t[1], ["srcu-lock", "annot", "NA"]);
    assert_eq!(t[2], ["ONCE", "annot", "NA"]);
    assert_eq!(t[3], ["srcu-unlock", "annot", "NA"]);
    assert_eq!(t[5], ["sync-srcu", "NA"]);
    assert_eq!(x.events[5].kind, Kind::Special);
    assert_eq!(x.events[5].loc, c.loc("s"));
    assert_eq!(t[6], ["after-srcu-read-unlock", "annot", "NA"]);
    // srcu_read_unlock writes the cookie srcu_read_lock read: a data dependency.
    assert_eq!(rel(&x, "data"), [(1, 3)]);
}

#[test]
fn unknown_calls_are_errors_with_their_position() {
    let c = Case::new(&test_src(
        "P0(int *x) {\n  WRITE_ONCE(*x, 1);\n  frobnicate(x);\n}",
    ));
    match c.runs(0).pop() {
        Some(Err(Stop::Error(e))) => {
            assert!(e.msg.contains("frobnicate"), "{}", e.msg);
            assert_eq!(e.span.map(|s| s.line), Some(5));
        }
        other => panic!("expected an error, got {other:?}"),
    }
    // An expression macro used as a statement discards its value, as in C.
    let c = Case::new(&test_src("P0(int *x) { xchg(x, 1); }"));
    assert_eq!(ok_runs(c.runs(0)).len(), 2);
    let c = Case::new(&test_src("P0(int *x) { (void)xchg(x, 1); }"));
    assert_eq!(ok_runs(c.runs(0)).len(), 2);
}

#[test]
fn annotated_access_needs_a_dereference() {
    let c = Case::new(&test_src("P0(int *x) { int r0; r0 = READ_ONCE(x); }"));
    assert!(matches!(c.runs(0).pop(), Some(Err(Stop::Error(e))) if e.msg.contains("dereference")));
}

#[test]
fn macro_files_parse_or_report_positions() {
    let m = Macros::lkmm();
    for name in [
        "READ_ONCE",
        "smp_mb__after_unlock_lock",
        "atomic_fetch_andnot_relaxed",
        "atomic_add_unless",
    ] {
        assert!(m.defines(name), "{name}");
    }
    assert!(!m.defines("cpu_relaxed"));
    let e = Macros::parse("OK(X) __load{ONCE}(X)\nBAD(X) { __store{ONCE}(X); }\n").unwrap_err();
    assert_eq!(e.span.map(|s| (s.line, s.col)), Some((2, 25)));
    let m = Macros::parse(
        "twice(X) { WRITE_ONCE(X, 1); WRITE_ONCE(X, 2); }\nWRITE_ONCE(X,V) { __store{ONCE}(X,V); }",
    )
    .expect("parses");
    let c = Case::new(&test_src("P0(int *x) { twice(*x); }"));
    let x = ok_runs(c.runs_with(0, &m)).pop().unwrap();
    assert_eq!(x.events.len(), 2);
    assert!(po(&x, 0, 1));
}

#[test]
fn store_mb_is_a_write_then_a_fence() {
    let c = Case::new(&test_src("P0(int *x) { smp_store_mb(*x, 1); }"));
    let x = c.only_run(0);
    assert_eq!(x.events[0].kind, Kind::Write);
    assert_eq!(tags(&x.events[1]), ["MB", "annot", "NA"]);
    assert!(po(&x, 0, 1));
}

#[test]
fn addresses_take_a_zero_offset_only() {
    let c = Case::new(&test_src(
        "P0(int *x, int *y) { int r0; int *r1; r0 = READ_ONCE(*x); r1 = y + (r0 & 2); WRITE_ONCE(*r1, 1); }",
    ));
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs[1].events[1].loc, c.loc("y"));
    // herd's address dependency through the arithmetic.
    assert_eq!(rel(&rs[1], "addr"), [(0, 1)]);
    let c = Case::new(&test_src("P0(int *y) { int *r1; r1 = y + 1; }"));
    assert!(matches!(c.runs(0).pop(), Some(Err(Stop::Error(e))) if e.msg.contains("address")));
}

#[test]
fn try_cmpxchg_updates_old_on_failure() {
    let c = Case::new(&test_src(
        "P0(int *x) { int old; int ok; old = 0; ok = try_cmpxchg_acquire(x, &old, 5); }",
    ))
    .domain("x", &["0", "3"]);
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 2);
    // Success: cmpxchg's read and write, old unchanged, result 1.
    let ok = &rs[0];
    assert_eq!(ok.events.len(), 2);
    assert_eq!(tags(&ok.events[0]), ["ACQUIRE", "annot", "X", "RMW", "NA"]);
    assert_eq!(tags(&ok.events[1]), ["ACQUIRE", "annot", "X", "RMW", "NA"]);
    assert_eq!(ok.events[1].val, Some(Value::Int(5)));
    assert_eq!(rel(ok, "rmw"), [(0, 1)]);
    assert_eq!(
        (reg(ok, "ok"), reg(ok, "old")),
        (Value::Int(1), Value::Int(0))
    );
    // Failure: a lone read; old takes the value read, result 0.
    let no = &rs[1];
    assert_eq!(no.events.len(), 1);
    assert_eq!(tags(&no.events[0]), ["ACQUIRE", "annot", "X", "RMW", "NA"]);
    assert_eq!(
        (reg(no, "ok"), reg(no, "old")),
        (Value::Int(0), Value::Int(3))
    );
}

#[test]
fn try_cmpxchg_result_carries_the_read_into_ctrl() {
    let c = Case::new(&test_src(
        "P0(atomic_t *l, int *y) { int v; v = 0; \
         if (atomic_try_cmpxchg(l, &v, 1)) { WRITE_ONCE(*y, 1); } }",
    ));
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 2);
    let ok = &rs[0];
    assert_eq!(tags(&ok.events[0]), ["MB", "annot", "X", "RMW", "NA"]);
    assert_eq!(ok.events[2].loc, c.loc("y"));
    assert!(rel(ok, "ctrl").contains(&(0, 2)));
    assert_eq!(rs[1].events.len(), 1, "failure: the branch is not taken");
}

#[test]
fn try_cmpxchg_through_a_pointer_reads_and_writes_it() {
    let c = Case::new(&test_src(
        "P0(int *x, int *o) { int ok; ok = try_cmpxchg_relaxed(x, o, 2); }",
    ))
    .domain("x", &["0", "1"])
    .domain("o", &["1"]);
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 2);
    // *o reads 1; x reads 0 (fails, *o = 0) or 1 (succeeds, x = 2).
    let kinds = |x: &ThreadExec| x.events.iter().map(|e| e.kind).collect::<Vec<_>>();
    assert_eq!(kinds(&rs[0]), [Kind::Read, Kind::Read, Kind::Write]);
    assert_eq!(rs[0].events[2].loc, c.loc("o"));
    assert_eq!(rs[0].events[2].val, Some(Value::Int(0)));
    assert_eq!(reg(&rs[0], "ok"), Value::Int(0));
    assert_eq!(rs[1].events[2].loc, c.loc("x"));
    assert_eq!(reg(&rs[1], "ok"), Value::Int(1));
    assert!(po(&rs[0], 0, 1) && po(&rs[0], 1, 2));
}

#[test]
fn address_of_a_local_elsewhere_is_an_error() {
    let c = Case::new(&test_src("P0(int *x) { int r0; int r1; r1 = &r0; }"));
    assert!(matches!(&c.runs(0)[..], [Err(Stop::Error(_))]));
}

#[test]
fn cpu_relax_is_a_compiler_barrier() {
    let c = Case::new(&test_src("P0(int *x) { cpu_relax(); }"));
    let x = c.only_run(0);
    assert_eq!(x.events.len(), 1);
    assert_eq!(x.events[0].kind, Kind::Fence);
    assert_eq!(tags(&x.events[0]), ["barrier", "annot", "NA"]);
}

#[test]
fn every_rmw_family_is_defined() {
    let m = Macros::lkmm();
    for base in [
        "xchg",
        "cmpxchg",
        "try_cmpxchg",
        "atomic_xchg",
        "atomic_cmpxchg",
        "atomic_try_cmpxchg",
        "atomic_add_return",
        "atomic_sub_return",
        "atomic_inc_return",
        "atomic_dec_return",
        "atomic_fetch_add",
        "atomic_fetch_sub",
        "atomic_fetch_inc",
        "atomic_fetch_dec",
        "atomic_fetch_and",
        "atomic_fetch_or",
        "atomic_fetch_xor",
        "atomic_fetch_andnot",
    ] {
        for sfx in ["", "_relaxed", "_acquire", "_release"] {
            assert!(m.defines(&format!("{base}{sfx}")), "{base}{sfx} missing");
        }
    }
}

#[test]
fn shipped_macros_parsed_on_demand_equal_the_whole_file_parsed() {
    let src = include_str!("../../../cat/lkmm.def");
    let eager = Macros::parse(src).unwrap();
    let lazy = Macros::lkmm();
    let index = lazy
        .defs
        .lazy
        .as_ref()
        .expect("the shipped file is indexed");
    let mut seen = 0;
    for name in index.names() {
        let got = format!("{:?}", index.get(name).expect("every entry parses"));
        let want = match (eager.defs.exprs.get(name), eager.defs.stmts.get(name)) {
            (Some((f, b)), _) => format!(
                "{:?}",
                super::defparse::Def::Expr(name.into(), f.clone(), b.clone())
            ),
            (_, Some((f, b))) => format!(
                "{:?}",
                super::defparse::Def::Stmt(name.into(), f.clone(), b.clone())
            ),
            _ => panic!("{name} is not in the whole file"),
        };
        assert_eq!(got, want, "{name}");
        seen += 1;
    }
    assert_eq!(seen, eager.defs.exprs.len() + eager.defs.stmts.len());
    assert!(lazy.defines("READ_ONCE") && !lazy.defines("NO_SUCH_MACRO"));
}

#[test]
fn code_after_an_if_that_returns_depends_on_its_test() {
    let c = Case::new(&test_src(
        "P0(int *x, int *y, int *z) { int r0; r0 = READ_ONCE(*x); \
         if (!r0) return; WRITE_ONCE(*y, 1); if (r0 == 5) { WRITE_ONCE(*z, 1); } \
         else { WRITE_ONCE(*z, 2); } WRITE_ONCE(*y, 2); }",
    ));
    let rs = ok_runs(c.runs(0));
    // x = 0 returns before any write.
    assert_eq!(rs[0].events.len(), 1);
    // x = 1: both writes of y and the else-branch write of z depend on the read.
    assert_eq!(rs[1].events.len(), 4);
    assert_eq!(rel(&rs[1], "ctrl"), [(0, 1), (0, 2), (0, 3)]);
}

#[test]
fn code_after_an_if_whose_branches_fall_through_does_not() {
    let c = Case::new(&test_src(
        "P0(int *x, int *y) { int r0; r0 = READ_ONCE(*x); \
         if (r0) { WRITE_ONCE(*y, 1); } else { WRITE_ONCE(*y, 2); } WRITE_ONCE(*x, 3); }",
    ));
    for x in ok_runs(c.runs(0)) {
        assert_eq!(rel(&x, "ctrl"), [(0, 1)]);
    }
}

#[test]
fn break_and_continue_scope_their_dependencies() {
    // The write after `if (..) break;` depends on it; the write after the loop does not.
    let c = Case::new(&test_src(
        "P0(int *x, int *y, int *z) { int r0; for (int i = 0; i < 1; i++) { \
         r0 = READ_ONCE(*x); if (r0 == 0) break; WRITE_ONCE(*y, 1); } WRITE_ONCE(*z, 1); }",
    ));
    let rs = ok_runs(c.runs(0));
    assert_eq!(rs.len(), 2);
    assert!(rel(&rs[0], "ctrl").is_empty(), "broke out: z only");
    assert_eq!(rel(&rs[1], "ctrl"), [(0, 1)]);
    // `continue` skips the rest of its iteration only.
    let c = Case::new(&test_src(
        "P0(int *x, int *y) { int r0; int n = 0; do { n++; r0 = READ_ONCE(*x); \
         if (r0) continue; WRITE_ONCE(*y, n); } while (n < 2); }",
    ));
    let rs = ok_runs(c.runs(0));
    // Reads 0,0 | 0,1 | 1,0 | 1,1: the writes are the iterations reading 0.
    let writes: Vec<usize> = rs
        .iter()
        .map(|x| x.events.iter().filter(|e| e.kind == Kind::Write).count())
        .collect();
    assert_eq!(writes, [2, 1, 1, 0]);
    // In 0,0 each write depends on its own iteration's read only: the next iteration
    // runs whichever way the `continue` test went.
    assert_eq!(rel(&rs[0], "ctrl"), [(0, 1), (2, 3)]);
}

#[test]
fn spin_waits_order_what_follows_and_plain_loops_do_not() {
    let wait = Case::new(&test_src(
        "P0(int *x, int *y) { int r0; r0 = smp_cond_load_relaxed(x, VAL != 0); \
         WRITE_ONCE(*y, 1); }",
    ));
    let rs = ok_runs(wait.runs(0).into_iter().filter(|r| r.is_ok()).collect());
    // Reads 0,1 then the write | 1 then the write.
    let last = |x: &ThreadExec| x.events.len() - 1;
    for x in &rs {
        let read = last(x) - 1;
        assert!(rel(x, "ctrl").contains(&(read as u32, last(x) as u32)));
    }
    let plain = Case::new(&test_src(
        "P0(int *x, int *y) { int r0; for (;;) { r0 = READ_ONCE(*x); if (r0) break; } \
         WRITE_ONCE(*y, 1); }",
    ));
    for x in ok_runs(plain.runs(0).into_iter().filter(|r| r.is_ok()).collect()) {
        let w = (x.events.len() - 1) as u32;
        assert!(rel(&x, "ctrl").iter().all(|&(_, b)| b != w), "{:?}", x.rels);
    }
}

#[test]
fn and_or_evaluate_their_right_operand_only_when_needed() {
    let c = Case::new(&test_src(
        "P0(int *x, int *y, int *z) { int r0; r0 = READ_ONCE(*x) && READ_ONCE(*y); \
         if (READ_ONCE(*z) || READ_ONCE(*y)) r0 = r0 + 2; }",
    ));
    let rs = ok_runs(c.runs(0));
    for x in &rs {
        let reads = x.events.iter().filter(|e| e.kind == Kind::Read).count();
        let x_read = x.events[0].val == Some(Value::Int(1));
        let z_at = if x_read { 2 } else { 1 };
        let z_read = x.events[z_at].val == Some(Value::Int(1));
        assert_eq!(reads, 2 + x_read as usize + !z_read as usize);
    }
    // The right operand's read is ctrl-dependent on the left one's.
    let both = rs.iter().find(|x| x.events.len() == 4).unwrap();
    assert!(rel(both, "ctrl").contains(&(0, 1)));
}

#[test]
fn increments_and_assignments_inside_expressions() {
    let c = Case::new(&test_src(
        "P0(int *x) { int a = 1; int b; int c; b = a++ + ++a; c = (a += 2) * 10 + a--; \
         *x += 5; (*x)++; }",
    ))
    .domain("x", &["0"]);
    let x = c.only_run(0);
    assert_eq!(reg(&x, "b"), Value::Int(4));
    assert_eq!(reg(&x, "c"), Value::Int(55));
    assert_eq!(reg(&x, "a"), Value::Int(4));
    // Two reads and two writes of x, each write's value from the read before it.
    let kinds: Vec<Kind> = x.events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [Kind::Read, Kind::Write, Kind::Read, Kind::Write]);
    assert_eq!(rel(&x, "data"), [(0, 1), (2, 3)]);
}

#[test]
fn block_scopes_rename_shadowing_locals() {
    let c = Case::new(&test_src(
        "P0(int *x) { int k = 1; { int k = 5; WRITE_ONCE(*x, k); } WRITE_ONCE(*x, k); }",
    ));
    let x = c.only_run(0);
    assert_eq!(x.events[0].val, Some(Value::Int(5)));
    assert_eq!(x.events[1].val, Some(Value::Int(1)));
    assert_eq!(reg(&x, "k"), Value::Int(1));
    assert_eq!(reg(&x, "k#1"), Value::Int(5));
}

#[test]
fn arrays_index_cells_and_locals() {
    let c = Case::new(
        "C t\n{ int t[3]; }\nP0(int *t) { int a[2]; int i = 1; a[i] = 7; \
         WRITE_ONCE(t[i + 1], a[1]); WRITE_ONCE(*(t + 1), 3); }\nexists (0:i=0)\n",
    );
    let mut c = c;
    c.symbols = Symbols::default();
    c.symbols.intern_array("t", 3, 4);
    c.dom = Dom(vec![vec![Value::Int(0)]; c.symbols.len()]);
    let x = c.only_run(0);
    assert_eq!(x.events[0].loc, c.loc("t[2]"));
    assert_eq!(x.events[0].val, Some(Value::Int(7)));
    assert_eq!(x.events[1].loc, c.loc("t[1]"));
    // Past the end is an error, as is indexing a local out of its bounds.
    let mut bad =
        Case::new("C t\n{ int t[2]; }\nP0(int *t) { WRITE_ONCE(t[2], 1); }\nexists (0:r0=0)\n");
    bad.symbols = Symbols::default();
    bad.symbols.intern_array("t", 2, 4);
    assert!(matches!(bad.runs(0).pop(), Some(Err(Stop::Error(e))) if e.msg.contains("outside")));
    let bad = Case::new(&test_src("P0(int *x) { int a[2]; int r0; r0 = a[2]; }"));
    assert!(matches!(bad.runs(0).pop(), Some(Err(Stop::Error(e))) if e.msg.contains("bounds")));
}

#[test]
fn conditional_adds_write_only_when_they_add() {
    let c = Case::new(&test_src(
        "P0(atomic_t *x) { int r0; int r1; r0 = atomic_fetch_add_unless(x, 1, 1); \
         r1 = atomic_dec_if_positive(x); }",
    ))
    .domain("x", &["0", "1"]);
    for x in ok_runs(c.runs(0)) {
        let v0 = x.events[0].val.unwrap();
        assert_eq!(reg(&x, "r0"), v0, "fetch_add_unless yields the value read");
        let added = v0 == Value::Int(0);
        assert_eq!(x.events.len() > 1 && x.events[1].kind == Kind::Write, added);
        let second = if added { 2 } else { 1 };
        let v1 = x.events[second].val.unwrap().as_int().unwrap();
        assert_eq!(reg(&x, "r1"), Value::Int(v1 - 1));
        assert_eq!(
            x.events.len() > second + 1,
            v1 >= 1,
            "writes only a non-negative result"
        );
        assert!(tags(&x.events[second]).contains(&"RMW"));
    }
}

#[test]
fn kernel_variants_of_every_family_are_defined() {
    let m = Macros::lkmm();
    for name in [
        "atomic_long_inc",
        "atomic64_fetch_add_acquire",
        "atomic_long_try_cmpxchg_acquire",
        "atomic64_dec_and_test",
        "atomic_long_add_negative_release",
        "atomic64_inc_not_zero",
        "atomic_long_fetch_add_unless",
        "atomic64_dec_if_positive",
        "cmpxchg64_relaxed",
        "try_cmpxchg64_release",
        "smp_cond_load_acquire",
        "atomic_long_cond_read_relaxed",
        "smp_acquire__after_ctrl_dep",
        "spin_lock_irqsave",
        "spin_unlock_irqrestore",
        "raw_spin_trylock",
        "arch_spin_is_locked",
        "likely",
    ] {
        assert!(m.defines(name), "{name}");
    }
}

#[test]
fn an_unknown_call_names_the_closest_primitives() {
    let c = Case::new(&test_src(
        "P0(atomic_long_t *x) {\n  atomic_long_incc(x);\n}",
    ));
    let Some(Err(Stop::Error(e))) = c.runs(0).pop() else {
        panic!("expected an error")
    };
    assert_eq!(e.span.map(|s| s.line), Some(4));
    assert!(e.msg.contains("`atomic_long_inc`"), "{}", e.msg);
    assert!(e.msg.contains("primitives are defined"), "{}", e.msg);
}

#[test]
fn a_statement_primitive_used_as_a_value_says_so() {
    let c = Case::new(&test_src(
        "P0(atomic_long_t *x) {\n  int r = atomic_long_xor(1, x);\n}",
    ));
    let Some(Err(Stop::Error(e))) = c.runs(0).pop() else {
        panic!("expected an error")
    };
    assert_eq!(e.span.map(|s| s.line), Some(4));
    assert!(
        e.msg.contains("`atomic_long_xor` is a statement"),
        "{}",
        e.msg
    );
}

#[test]
fn an_expression_statement_discards_its_value() {
    // As C does: kernel/smp.c's csd_lock_wait() writes `smp_cond_load_acquire(...);`.
    let c = Case::new(&test_src("P0(atomic_t *x) {\n  atomic_inc_return(x);\n}"));
    let runs = c.runs(0);
    assert!(runs.iter().all(|r| r.is_ok()), "{runs:?}");
}

#[test]
fn break_outside_a_loop_is_an_error() {
    let c = Case::new(&test_src("P0(int *x) { break; }"));
    assert!(
        matches!(c.runs(0).pop(), Some(Err(Stop::Error(e))) if e.msg.contains("outside a loop"))
    );
}
