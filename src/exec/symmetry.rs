//! Symmetries of a test: permutations of its threads, with a renaming of its locations,
//! that map every run of each thread onto a run of its image. A candidate and its image
//! under such a map are the same execution with other names, so a model (which sees
//! events and relations, never thread numbers or location names) gives both the same
//! verdicts. Only one combination of runs per orbit needs judging: the executions of the
//! others are its executions renamed (their final states permuted).
//!
//! Used only when renaming cannot be seen: C tests without arrays or virtual memory, no
//! loop cut, and the shown locations, the condition and the filter each map onto
//! themselves.

use super::program::Program;
use super::threads::ThreadRuns;
use crate::budget::Budget;
use crate::litmus::ast::{LocRef, Prop, ValueLit};
use crate::sem::{LocId, ThreadExec, Value};
use rustc_hash::FxHashSet;

/// One automorphism.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Perm {
    /// Thread `t` goes to `thread[t]`...
    pub thread: Vec<usize>,
    /// ... and its run `k` to run `runs[t][k]` of that thread.
    pub runs: Vec<Vec<usize>>,
    /// Location `l` is renamed `locs[l]`.
    pub locs: Vec<u32>,
}

impl Perm {
    fn identity(tr: &ThreadRuns, nlocs: usize) -> Perm {
        Perm {
            thread: (0..tr.runs.len()).collect(),
            runs: tr.runs.iter().map(|r| (0..r.len()).collect()).collect(),
            locs: (0..nlocs as u32).collect(),
        }
    }

    /// `self` after `o`.
    fn after(&self, o: &Perm) -> Perm {
        let n = self.thread.len();
        let mut runs = vec![Vec::new(); n];
        for (t, rs) in o.runs.iter().enumerate() {
            let u = o.thread[t];
            runs[t] = rs.iter().map(|&k| self.runs[u][k]).collect();
        }
        Perm {
            thread: o.thread.iter().map(|&u| self.thread[u]).collect(),
            runs,
            locs: o.locs.iter().map(|&l| self.locs[l as usize]).collect(),
        }
    }

    pub fn value(&self, v: Value) -> Value {
        match v {
            Value::Addr(l) => Value::Addr(LocId(self.locs[l.0 as usize])),
            v => v,
        }
    }

    /// The image of a combination of runs (one run index per thread).
    pub fn picks(&self, picks: &[usize]) -> Vec<usize> {
        let mut out = vec![0; picks.len()];
        for (t, &k) in picks.iter().enumerate() {
            out[self.thread[t]] = self.runs[t][k];
        }
        out
    }
}

/// A group of automorphisms, and how each permutes the shown locations.
pub struct Symmetry {
    /// Every element, the identity first.
    pub elems: Vec<Perm>,
    /// Per element: the shown location at position `i` goes to `shown[i]`.
    pub shown: Vec<Vec<usize>>,
}

/// Most elements a group may have (beyond, the test is judged without).
const MAX_GROUP: usize = 1024;
/// Most steps of the search for automorphisms.
const MAX_STEPS: usize = 20_000;

impl Symmetry {
    /// The automorphisms of `p` that may be used (see the module's doc), or `None` when
    /// the identity is the only one.
    pub fn of(p: &Program, tr: &ThreadRuns, shown: &[LocRef], budget: &Budget) -> Option<Symmetry> {
        let test = p.test;
        if test.arch != crate::litmus::ast::Arch::C
            || p.symbols.vmsa
            || p.symbols.has_arrays()
            || tr.cut
            || tr.runs.len() < 2
        {
            return None;
        }
        // Only the registers the states and the filter show must map onto each other
        // (a C thread's other registers, such as its pointer parameters, hold names).
        let mut regs: Vec<String> = Vec::new();
        let mut add = |l: &LocRef| {
            if let LocRef::Reg { reg, .. } = l
                && !regs.contains(reg)
            {
                regs.push(reg.clone());
            }
        };
        shown.iter().for_each(&mut add);
        if let Some(f) = &test.filter {
            super::program::prop_locs(f, &mut add);
        }
        // Threads whose runs differ in what no renaming changes cannot map onto each other;
        // when no two can, the search (quadratic in the runs) is not worth starting.
        let shapes: Vec<Vec<u64>> = tr.runs.iter().map(|rs| thread_shape(rs)).collect();
        let n = tr.runs.len();
        if !(0..n).any(|t| (0..n).any(|u| t != u && shapes[t] == shapes[u])) {
            return None;
        }
        let mut search = Search {
            p,
            tr,
            regs: &regs,
            shapes: &shapes,
            steps: 0,
            found: Vec::new(),
        };
        let mut st = Partial {
            thread: vec![usize::MAX; n],
            runs: vec![Vec::new(); n],
            locs: vec![None; p.symbols.len()],
            inv: vec![None; p.symbols.len()],
        };
        search.dfs(0, &mut st);
        if search.steps > MAX_STEPS {
            return None;
        }
        let elems = close(search.found, Perm::identity(tr, p.symbols.len()), budget)?;
        // Keep those that map the shown locations, the condition and the filter onto
        // themselves: a subgroup.
        let procs: Vec<u32> = test.threads.iter().map(|t| t.proc()).collect();
        let mut kept = Vec::new();
        let mut perms = Vec::new();
        for g in elems {
            let Some(sh) = shown_perm(&g, shown, p, &procs) else {
                continue;
            };
            let same = |q: &Prop| {
                let c = canon(q, Some(&g), p, &procs);
                !c.opaque() && canon(q, None, p, &procs) == c
            };
            if !same(&test.condition.prop) || !test.filter.as_ref().is_none_or(same) {
                continue;
            }
            kept.push(g);
            perms.push(sh);
        }
        // Counting orbits needs a group: checked rather than assumed of the comparisons.
        let index: FxHashSet<&Perm> = kept.iter().collect();
        let closed = kept
            .iter()
            .all(|a| budget.check().is_ok() && kept.iter().all(|b| index.contains(&a.after(b))));
        (closed && kept.len() > 1).then_some(Symmetry {
            elems: kept,
            shown: perms,
        })
    }

    /// Whether `picks` is the least combination of its orbit (in enumeration order), and
    /// then the elements giving each of its distinct images (itself first).
    pub fn images(&self, picks: &[usize]) -> Option<Vec<usize>> {
        let mut seen: Vec<Vec<usize>> = Vec::new();
        let mut out = Vec::new();
        for (i, g) in self.elems.iter().enumerate() {
            let img = g.picks(picks);
            if img.as_slice() < picks {
                return None;
            }
            if !seen.contains(&img) {
                seen.push(img);
                out.push(i);
            }
        }
        Some(out)
    }

    /// The image of a final state (values of the shown locations) under element `i`.
    pub fn state(&self, i: usize, s: &[Value]) -> Vec<Value> {
        let g = &self.elems[i];
        let mut out = s.to_vec();
        for (k, &v) in s.iter().enumerate() {
            out[self.shown[i][k]] = g.value(v);
        }
        out
    }
}

/// The group generated by `gens` and the identity, if small enough: every element is a
/// product of generators, so multiplying what is found by each generator, until nothing
/// new comes, finds them all while holding no more than the group itself.
fn close(gens: Vec<Perm>, id: Perm, budget: &Budget) -> Option<Vec<Perm>> {
    let mut index: FxHashSet<Perm> = FxHashSet::default();
    index.insert(id.clone());
    let mut elems = vec![id];
    let mut i = 0;
    while i < elems.len() {
        budget.check().ok()?;
        for g in &gens {
            let h = elems[i].after(g);
            if index.insert(h.clone()) {
                elems.push(h);
                if elems.len() > MAX_GROUP {
                    return None;
                }
            }
        }
        i += 1;
    }
    Some(elems)
}

/// A thread permutation and location renaming being built.
struct Partial {
    thread: Vec<usize>,
    runs: Vec<Vec<usize>>,
    locs: Vec<Option<u32>>,
    inv: Vec<Option<u32>>,
}

struct Search<'a> {
    p: &'a Program<'a>,
    regs: &'a [String],
    tr: &'a ThreadRuns,
    /// Each thread's [`thread_shape`].
    shapes: &'a [Vec<u64>],
    steps: usize,
    found: Vec<Perm>,
}

impl Search<'_> {
    /// Maps thread `t` and the next ones onto threads not taken yet.
    fn dfs(&mut self, t: usize, st: &mut Partial) {
        let n = self.tr.runs.len();
        if self.steps > MAX_STEPS || self.found.len() > MAX_GROUP {
            return;
        }
        if t == n {
            if let Some(g) = self.complete(st) {
                self.found.push(g);
            }
            return;
        }
        for u in 0..n {
            if st.thread.contains(&u) || self.shapes[t] != self.shapes[u] {
                continue;
            }
            self.steps += 1;
            let (locs, inv) = (st.locs.clone(), st.inv.clone());
            if let Some(rs) = self.map_runs(t, u, st) {
                st.thread[t] = u;
                st.runs[t] = rs;
                self.dfs(t + 1, st);
                st.thread[t] = usize::MAX;
                st.runs[t].clear();
            }
            st.locs = locs;
            st.inv = inv;
        }
    }

    /// Maps each run of thread `t` onto a distinct run of thread `u`, extending the
    /// renaming as needed.
    fn map_runs(&self, t: usize, u: usize, st: &mut Partial) -> Option<Vec<usize>> {
        let (from, to) = (&self.tr.runs[t], &self.tr.runs[u]);
        let mut used = vec![false; to.len()];
        let mut out = Vec::with_capacity(from.len());
        for r in from {
            let k = (0..to.len()).find(|&k| {
                if used[k] {
                    return false;
                }
                let (locs, inv) = (st.locs.clone(), st.inv.clone());
                let ok = same_run(st, r, &to[k]) && self.same_regs(st, (t, r), (u, &to[k]));
                if !ok {
                    st.locs = locs;
                    st.inv = inv;
                }
                ok
            })?;
            used[k] = true;
            out.push(k);
        }
        Some(out)
    }

    /// Whether the registers shown have the same values in run `a` of thread `t` and
    /// run `b` of thread `u`, renamed (extending the renaming).
    fn same_regs(
        &self,
        st: &mut Partial,
        a: (usize, &ThreadExec),
        b: (usize, &ThreadExec),
    ) -> bool {
        let val = |(t, r): (usize, &ThreadExec), reg: &str| {
            r.regs
                .get(reg)
                .or_else(|| self.p.thread_regs[t].get(reg))
                .copied()
        };
        self.regs
            .iter()
            .all(|reg| match (val(a, reg), val(b, reg)) {
                (Some(x), Some(y)) => unify(st, x, y),
                (None, None) => true,
                _ => false,
            })
    }

    /// The renaming completed on untouched locations, if the initial state maps onto
    /// itself.
    fn complete(&self, st: &Partial) -> Option<Perm> {
        let n = st.locs.len();
        let mut locs = st.locs.clone();
        let mut inv = st.inv.clone();
        // Untouched locations keep their names where they can, else take a free one.
        for l in 0..n {
            if locs[l].is_none() && inv[l].is_none() {
                locs[l] = Some(l as u32);
                inv[l] = Some(l as u32);
            }
        }
        let mut free = (0..n).filter(|&l| inv[l].is_none());
        for l in locs.iter_mut().filter(|l| l.is_none()) {
            *l = Some(free.next()? as u32);
        }
        let g = Perm {
            thread: st.thread.clone(),
            runs: st.runs.clone(),
            locs: locs.into_iter().map(|l| l.expect("complete")).collect(),
        };
        let init = &self.p.init_mem;
        (0..n)
            .all(|l| init[g.locs[l] as usize] == g.value(init[l]))
            .then_some(g)
    }
}

/// Extends the renaming so that `a` goes to `b`.
fn unify(st: &mut Partial, a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Addr(x), Value::Addr(y)) => {
            let (x, y) = (x.0 as usize, y.0 as usize);
            match (st.locs[x], st.inv[y]) {
                (Some(m), _) => m as usize == y,
                (None, Some(_)) => false,
                (None, None) => {
                    st.locs[x] = Some(y as u32);
                    st.inv[y] = Some(x as u32);
                    true
                }
            }
        }
        _ => false,
    }
}

fn unify_opt(st: &mut Partial, a: Option<Value>, b: Option<Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => unify(st, a, b),
        (None, None) => true,
        _ => false,
    }
}

/// What a renaming of locations keeps of a thread's runs: per run, a hash of its events'
/// kinds, instructions, tags and integer values and of its relations (sorted, as a thread
/// may map its runs onto another's in any order). Threads that map onto each other have
/// the same shape.
fn thread_shape(runs: &[ThreadExec]) -> Vec<u64> {
    use std::hash::{Hash, Hasher};
    let mut out: Vec<u64> = runs
        .iter()
        .map(|r| {
            let mut h = rustc_hash::FxHasher::default();
            (r.events.len(), &r.rels, r.cut).hash(&mut h);
            for e in &r.events {
                (e.kind, e.instr, &e.tags).hash(&mut h);
                for v in [e.loc, e.val] {
                    match v {
                        Some(Value::Int(i)) => (1u8, i).hash(&mut h),
                        Some(Value::Addr(_)) => 2u8.hash(&mut h),
                        None => 0u8.hash(&mut h),
                    }
                }
            }
            h.finish()
        })
        .collect();
    out.sort_unstable();
    out
}

/// Whether run `a` renamed is run `b` (extending the renaming).
fn same_run(st: &mut Partial, a: &ThreadExec, b: &ThreadExec) -> bool {
    if a.events.len() != b.events.len() || a.rels != b.rels || a.cut != b.cut {
        return false;
    }
    for (x, y) in a.events.iter().zip(&b.events) {
        if x.kind != y.kind
            || x.instr != y.instr
            || x.tags != y.tags
            || !unify_opt(st, x.loc, y.loc)
            || !unify_opt(st, x.val, y.val)
        {
            return false;
        }
    }
    true
}

/// Where `g` sends each shown location (`None` if one leaves the shown set).
fn shown_perm(g: &Perm, shown: &[LocRef], p: &Program, procs: &[u32]) -> Option<Vec<usize>> {
    shown
        .iter()
        .map(|l| {
            let img = map_loc(l, Some(g), p, procs)?;
            shown.iter().position(|m| *m == img)
        })
        .collect()
}

/// A register or location renamed by `g`; `None` for what cannot be renamed (a fault).
fn map_loc(l: &LocRef, g: Option<&Perm>, p: &Program, procs: &[u32]) -> Option<LocRef> {
    let Some(g) = g else {
        return Some(l.clone());
    };
    match l {
        LocRef::Reg { proc, reg } => {
            let t = procs.iter().position(|p| p == proc)?;
            Some(LocRef::Reg {
                proc: procs[g.thread[t]],
                reg: reg.clone(),
            })
        }
        LocRef::Global(x) => {
            let l = p.symbols.get(x)?;
            let y = p.symbols.name(LocId(g.locs[l.0 as usize]));
            Some(LocRef::Global(y.to_string()))
        }
    }
}

/// A proposition renamed by `g`, flattened and with the operands of `/\` and `\/`
/// sorted, so that two that differ only in order compare equal.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Canon {
    Atom(String),
    Not(Box<Canon>),
    And(Vec<Canon>),
    Or(Vec<Canon>),
    Implies(Box<Canon>, Box<Canon>),
    /// Something that cannot be renamed.
    Opaque,
}

fn canon(q: &Prop, g: Option<&Perm>, p: &Program, procs: &[u32]) -> Canon {
    let value = |v: &ValueLit| -> String {
        match (v, g) {
            (ValueLit::Addr { name, .. }, Some(g)) => match p.symbols.get(name) {
                Some(l) => p.symbols.name(LocId(g.locs[l.0 as usize])).to_string(),
                None => name.clone(),
            },
            (ValueLit::Addr { name, .. }, None) => name.clone(),
            (ValueLit::Int(i), _) => i.to_string(),
        }
    };
    let loc = |l: &LocRef| map_loc(l, g, p, procs).map(|l| format!("{l:?}"));
    let c = |x: &Prop| canon(x, g, p, procs);
    let flat = |xs: &[Prop], and: bool| {
        let mut v = Vec::new();
        for part in xs.iter().map(c) {
            match part {
                Canon::And(xs) if and => v.extend(xs),
                Canon::Or(xs) if !and => v.extend(xs),
                other => v.push(other),
            }
        }
        v.sort();
        if and { Canon::And(v) } else { Canon::Or(v) }
    };
    match q {
        Prop::True => Canon::Atom("true".into()),
        Prop::False => Canon::Atom("false".into()),
        Prop::Eq(l, v) => {
            loc(l).map_or(Canon::Opaque, |l| Canon::Atom(format!("{l}={}", value(v))))
        }
        Prop::Ne(l, v) => {
            loc(l).map_or(Canon::Opaque, |l| Canon::Atom(format!("{l}!={}", value(v))))
        }
        Prop::EqLoc(a, b) => match (loc(a), loc(b)) {
            (Some(a), Some(b)) => {
                let mut ab = [a, b];
                ab.sort();
                Canon::Atom(format!("{}=={}", ab[0], ab[1]))
            }
            _ => Canon::Opaque,
        },
        Prop::Not(x) => Canon::Not(Box::new(c(x))),
        Prop::And(xs) => flat(xs, true),
        Prop::Or(xs) => flat(xs, false),
        Prop::Implies(x, y) => Canon::Implies(Box::new(c(x)), Box::new(c(y))),
    }
}

impl Canon {
    fn opaque(&self) -> bool {
        match self {
            Canon::Opaque => true,
            Canon::Atom(_) => false,
            Canon::Not(x) => x.opaque(),
            Canon::Implies(x, y) => x.opaque() || y.opaque(),
            Canon::And(xs) | Canon::Or(xs) => xs.iter().any(Canon::opaque),
        }
    }
}
