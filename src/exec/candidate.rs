//! Candidate executions: one run per thread, an rf source for every read, and a final
//! write for every observed location. Coherence is the model's business (`with co from`).

use super::program::Program;
use super::threads::ThreadRuns;
use crate::budget::Budget;
use crate::cat::{Bound, EventInfo, NameMap, Named, Primitives};
use crate::rel::{Rel, Set};
use crate::sem::{Kind, LocId, ThreadExec, Value};
use rustc_hash::FxHashSet as HashSet;
use std::rc::Rc;

/// One candidate, as handed to the model and to the outcome.
pub struct Candidate<'a> {
    pub prims: Primitives<'a>,
    /// The run of each thread.
    pub runs: Vec<&'a ThreadExec>,
    /// Final value of each observed location.
    pub final_mem: Vec<(LocId, Value)>,
    /// The shape of each thread's run (see [`ThreadRuns::shapes`]): candidates with the same
    /// shapes have the same primitives but rf, the final writes and event values.
    pub shapes: &'a [u32],
}

/// Relations every model may name even when no event has them.
const THREAD_RELS: [&str; 6] = ["addr", "data", "ctrl", "rmw", "iico_data", "iico_ctrl"];

/// A (location, value) pair a run reads or writes.
type Access = (Value, Value);

/// What one run needs (values its reads return) and offers (values it writes).
struct Needs {
    reads: Vec<Access>,
    writes: HashSet<Access>,
}

fn needs(r: &ThreadExec) -> Needs {
    let acc = |k: Kind| {
        r.events
            .iter()
            .filter(move |e| e.kind == k)
            .filter_map(|e| Some((e.loc?, e.val?)))
    };
    Needs {
        reads: acc(Kind::Read).collect(),
        writes: acc(Kind::Write).collect(),
    }
}

/// What every run needs and offers, for combining runs: computed once per test, shared by
/// the parts of a judgement (a thread can have thousands of runs).
pub struct Combiner {
    needs: Vec<Vec<Needs>>,
    later: Vec<HashSet<Access>>,
    init: HashSet<Access>,
    observed: Vec<LocId>,
    /// Whether a read may take its value from a write after it in program order: not when
    /// the model rejects every such candidate (see `Model::rejects_po_rf_cycles`).
    po_later_rf: bool,
    /// Per thread `t`: how many combinations of runs the threads from `t` on make
    /// (saturating), and whether each of them has runs of one shape, none cut by the
    /// unrolling bound (then the subtree below a choice for the threads before `t` may be
    /// bounded).
    rest: Vec<(usize, bool)>,
}

impl Combiner {
    /// Whether the subtrees below a choice of runs for the threads before `t` may be
    /// bounded (see [`Bounder`]), at `min` combinations of runs or more.
    pub fn boundable(&self, t: usize, min: usize) -> bool {
        let (size, uniform) = self.rest[t];
        min > 0 && uniform && size >= min
    }

    /// `po_later_rf`: whether to offer a read the writes that follow it in program order.
    pub fn new(p: &Program, tr: &ThreadRuns, po_later_rf: bool) -> Combiner {
        let nthreads = tr.runs.len();
        let observed = p.observed_globals();
        let needs: Vec<Vec<Needs>> = tr
            .runs
            .iter()
            .map(|rs| rs.iter().map(needs).collect())
            .collect();
        // What the threads from t on may write, whichever runs they take.
        let mut later: Vec<HashSet<Access>> = vec![HashSet::default(); nthreads + 1];
        for t in (0..nthreads).rev() {
            let mut s = later[t + 1].clone();
            for n in &needs[t] {
                s.extend(n.writes.iter().copied());
            }
            later[t] = s;
        }
        let init: HashSet<Access> = p
            .init_mem
            .iter()
            .enumerate()
            .map(|(l, &v)| (Value::Addr(LocId(l as u32)), v))
            .collect();
        let mut rest = vec![(1usize, true); nthreads + 1];
        for t in (0..nthreads).rev() {
            let (size, uniform) = rest[t + 1];
            let runs = &tr.runs[t];
            let one_shape = tr.shapes[t].iter().all(|&s| s == tr.shapes[t][0]);
            rest[t] = (
                size.saturating_mul(runs.len()),
                uniform && one_shape && !runs.iter().any(|r| r.cut),
            );
        }
        Combiner {
            needs,
            later,
            init,
            observed,
            po_later_rf,
            rest,
        }
    }
}

/// Judges a whole subtree of candidates at once (see [`crate::cat::Model::bound`]): given
/// a candidate whose `rf` is the union of theirs, what each of them gets, when it can tell.
pub struct Bounder<'a> {
    pub bound: &'a dyn Fn(&Candidate) -> Option<Bound>,
    /// Subtrees of fewer combinations of runs than this are not tried.
    pub min: usize,
}

/// Cuts the subtree below a partial choice of `rf` sources for one combination of runs
/// (see [`crate::cat::Model::doomed`]): given the candidate whose reads without a source
/// yet read nothing and whose final writes are not chosen, whether none of the candidates
/// below may be consistent (and may be left out).
pub struct Doomer<'a> {
    pub doomed: &'a dyn Fn(&Candidate) -> bool,
    /// Only combinations of runs with this many candidates or more are cut.
    pub min: usize,
}

/// Partial choices of sources are only judged when this many candidates (or more) lie
/// below them...
const CUT_BELOW: usize = 4;
/// ... and, at each depth, stop being judged after [`CUT_TRIAL`] tries that cut fewer than
/// one in [`CUT_WORTH`].
const CUT_TRIAL: u32 = 32;
const CUT_WORTH: u32 = 8;

/// How many subtrees may fail to be bounded before the search stops trying, beyond
/// [`TRIES_PER_WIN`] per one that was.
const FREE_TRIES: usize = 24;
const TRIES_PER_WIN: usize = 8;

/// Ways to judge many candidates at once: by a bound of a subtree of them, or by cutting
/// the subtree below a partial choice of sources.
#[derive(Clone, Copy, Default)]
pub struct Shortcuts<'a> {
    pub bounder: Option<&'a Bounder<'a>>,
    pub doomer: Option<&'a Doomer<'a>>,
}

/// Which candidates a search visits, and for how long.
pub struct Scope<'a> {
    /// Only the combinations whose first threads take these runs.
    pub prefix: &'a [usize],
    /// Only the combinations whose runs so far (of threads 0..=t) it admits.
    pub admit: &'a dyn Fn(&[usize]) -> bool,
    /// The search stops, as if `f` had asked it to, once this is spent (the caller reads
    /// the budget to tell why).
    pub budget: &'a Budget,
}

/// How many candidates a search visited, and how many it left out (see [`Doomer`]).
#[derive(Clone, Copy, Default, Debug)]
pub struct Counts {
    pub visited: usize,
    pub left_out: usize,
}

/// Call `f` on every candidate until it returns false.
///
/// Runs are combined thread by thread; a run is dropped as soon as one of its reads wants a
/// value that neither the initial state, the runs chosen so far, nor any run of the threads
/// still to choose can write.
/// Only the combinations in `scope` are visited. With a `bounder`, a subtree whose threads still to choose have runs of one shape each
/// is first bounded at once; when that tells, `f` gets its candidates with what the bound
/// says of them. With a `doomer`, the candidates below a partial choice of sources it
/// finds doomed are left out (counted, not visited).
pub fn for_each(
    p: &Program,
    tr: &ThreadRuns,
    combiner: &Combiner,
    scope: Scope,
    shortcuts: Shortcuts,
    f: &mut dyn FnMut(&Candidate, Option<&Bound>) -> bool,
) -> Counts {
    let Shortcuts { bounder, doomer } = shortcuts;
    let Scope {
        prefix,
        admit,
        budget,
    } = scope;
    let nthreads = tr.runs.len();
    if tr.runs.iter().any(|r| r.is_empty()) {
        return Counts::default();
    }
    let mut st = Search {
        p,
        tr,
        combiner,
        prefix,
        admit,
        pick: Vec::with_capacity(nthreads),
        counts: Counts::default(),
        layout: None,
        bounder,
        bounded: None,
        tries: 0,
        wins: 0,
        doomer,
        cut_stats: Vec::new(),
        budget,
    };
    st.dfs(0, f);
    st.counts
}

struct Search<'a> {
    p: &'a Program<'a>,
    tr: &'a ThreadRuns,
    combiner: &'a Combiner,
    prefix: &'a [usize],
    admit: &'a dyn Fn(&[usize]) -> bool,
    pick: Vec<usize>,
    counts: Counts,
    /// The layout of the last combination.
    layout: Option<Layout>,
    bounder: Option<&'a Bounder<'a>>,
    /// What the bound of the subtree being visited says of its candidates.
    bounded: Option<Rc<Bound>>,
    /// Subtrees tried, and bounded.
    tries: usize,
    wins: usize,
    doomer: Option<&'a Doomer<'a>>,
    /// Per number of reads left without a source: partial choices judged, and cut.
    cut_stats: Vec<(u32, u32)>,
    budget: &'a Budget,
}

impl Search<'_> {
    /// Whether read `a` can still find a source.
    fn available(&self, a: &Access, t: usize, k: usize) -> bool {
        self.combiner.init.contains(a)
            || self.combiner.later[t + 1].contains(a)
            || self.combiner.needs[t][k].writes.contains(a)
            || self
                .pick
                .iter()
                .enumerate()
                .any(|(u, &j)| self.combiner.needs[u][j].writes.contains(a))
    }

    fn dfs(&mut self, t: usize, f: &mut dyn FnMut(&Candidate, Option<&Bound>) -> bool) -> bool {
        if t == self.tr.runs.len() {
            let runs: Vec<&ThreadExec> = self
                .pick
                .iter()
                .enumerate()
                .map(|(u, &k)| &self.tr.runs[u][k])
                .collect();
            let shapes: Vec<u32> = self
                .pick
                .iter()
                .enumerate()
                .map(|(u, &k)| self.tr.shapes[u][k])
                .collect();
            return self.combo(&runs, &shapes, f);
        }
        let ks = match self.prefix.get(t) {
            Some(&k) => k..k + 1,
            None => 0..self.tr.runs[t].len(),
        };
        let outer = self.bounded.is_none() && t >= self.prefix.len() && self.bound_here(t);
        for k in ks {
            // Combinations the filter or the reads' sources drop call no `f`.
            if self.budget.check().is_err() {
                return false;
            }
            if !self.combiner.needs[t][k]
                .reads
                .iter()
                .all(|a| self.available(a, t, k))
            {
                continue;
            }
            self.pick.push(k);
            if !(self.admit)(&self.pick) {
                self.pick.pop();
                continue;
            }
            let go_on = self.dfs(t + 1, f);
            self.pick.pop();
            if !go_on {
                return false;
            }
        }
        if outer {
            self.bounded = None;
        }
        true
    }

    /// Tries to bound the subtree below the runs picked for the threads before `t`.
    fn bound_here(&mut self, t: usize) -> bool {
        let Some(b) = self.bounder else {
            return false;
        };
        let (p, tr, combiner) = (self.p, self.tr, self.combiner);
        if !combiner.boundable(t, b.min) || self.tries >= FREE_TRIES + TRIES_PER_WIN * self.wins {
            return false;
        }
        self.tries += 1;
        // The threads still to choose, each represented by its first run.
        let picked = |u: usize| self.pick.get(u).copied().unwrap_or(0);
        let runs: Vec<&ThreadExec> = (0..tr.runs.len()).map(|u| &tr.runs[u][picked(u)]).collect();
        let shapes: Vec<u32> = (0..tr.runs.len())
            .map(|u| tr.shapes[u][picked(u)])
            .collect();
        let layout = Layout::cached(&mut self.layout, p, combiner, &runs, &shapes);
        // Every value each event may hold in the subtree, in the layout's order.
        let mut values: Vec<Vec<Option<Value>>> =
            p.init_mem.iter().map(|&v| vec![Some(v)]).collect();
        for (u, r) in tr.runs.iter().enumerate() {
            for k in 0..runs[u].events.len() {
                let mut vs: Vec<Option<Value>> = match self.pick.get(u) {
                    Some(_) => vec![runs[u].events[k].val],
                    None => r.iter().map(|x| x.events[k].val).collect(),
                };
                vs.sort();
                vs.dedup();
                values.push(vs);
            }
        }
        let share = |a: usize, b: usize| values[a].iter().any(|v| values[b].contains(v));
        let Some(reads) = layout.sources(share) else {
            return false;
        };
        // The final writes must be the same throughout.
        if layout.finals.iter().any(|(_, ws)| ws.len() > 1) {
            return false;
        }
        let mut rf = Rel::empty(layout.events.len());
        for (r, srcs) in &reads {
            for &w in srcs {
                rf.insert(w, *r);
            }
        }
        let pick = vec![0; layout.finals.len()];
        let c = layout.candidate(p, &pick, rf, &runs);
        let Some(bound) = (b.bound)(&c) else {
            return false;
        };
        self.wins += 1;
        self.bounded = Some(Rc::new(bound));
        true
    }
}

/// What the shapes of a combination's runs fix: its events (their values aside), where
/// each thread's events start, and the primitives that depend on neither rf nor the final
/// writes. Kept from one combination to the next while the shapes stay the same.
struct Layout {
    shapes: Vec<u32>,
    events: Vec<EventInfo>,
    offsets: Vec<usize>,
    base: Base,
    /// Each read, with the writes to its location (but those after it in program order,
    /// unless a read may take its value from them): its rf sources, values aside.
    writes: Vec<(usize, Vec<usize>)>,
    /// Final-write choices of each observed location: the po-last writes of each thread,
    /// or the initial write when no thread writes it.
    finals: Vec<(LocId, Vec<usize>)>,
}

impl Layout {
    /// `po_later_rf`: whether a read may take its value from a write after it in program
    /// order (see [`Combiner`]).
    fn of(
        p: &Program,
        observed: &[LocId],
        po_later_rf: bool,
        runs: &[&ThreadExec],
        shapes: &[u32],
    ) -> Layout {
        let nloc = p.symbols.len();
        // The initial writes first, then each thread's events in order.
        let mut events: Vec<EventInfo> = (0..nloc)
            .map(|l| {
                let (loc, val) = (Some(Value::Addr(LocId(l as u32))), Some(p.init_mem[l]));
                // Initial writes of page-table entries are in herd's PTE sets too.
                let tags = if p.symbols.vmsa {
                    crate::sem::vmsa::entry_tags(&p.symbols, loc, val)
                } else {
                    Vec::new()
                };
                EventInfo {
                    proc: None,
                    kind: Kind::Write,
                    loc,
                    val,
                    tags,
                }
            })
            .collect();
        let mut instr = vec![0u32; nloc];
        let mut offsets = Vec::with_capacity(runs.len());
        for (t, r) in runs.iter().enumerate() {
            offsets.push(events.len());
            let proc = p.test.threads[t].proc();
            for e in &r.events {
                events.push(EventInfo {
                    proc: Some(proc),
                    kind: e.kind,
                    loc: e.loc,
                    val: e.val,
                    tags: e.tags.clone(),
                });
                instr.push(e.instr);
            }
        }
        let mut base = base_primitives(p, &events, &instr, runs, &offsets);
        let po = base.1.get("po").filter(|_| !po_later_rf);
        let writes = (0..events.len())
            .filter(|&i| events[i].kind == Kind::Read)
            .map(|i| {
                let ws = (0..events.len())
                    .filter(|&j| events[j].kind == Kind::Write && events[j].loc == events[i].loc)
                    .filter(|&j| po.is_none_or(|po| !po.contains(i, j)))
                    .collect();
                (i, ws)
            })
            .collect();
        let finals: Vec<(LocId, Vec<usize>)> = observed
            .iter()
            .map(|&l| {
                let loc = Some(Value::Addr(l));
                let mut last: Vec<usize> = runs
                    .iter()
                    .zip(&offsets)
                    .filter_map(|(r, &o)| {
                        let k = r
                            .events
                            .iter()
                            .rposition(|e| e.kind == Kind::Write && e.loc == loc)?;
                        Some(o + k)
                    })
                    .collect();
                if last.is_empty() {
                    last.push(l.0 as usize);
                }
                (l, last)
            })
            .collect();
        // Observing no location, every candidate has the same (empty) final writes: they
        // join the shared layer, so the model's values reading them are kept for the shape.
        if finals.is_empty() {
            base.0.insert("FW".into(), Set::empty(events.len()));
        }
        Layout {
            shapes: shapes.to_vec(),
            events,
            offsets,
            base,
            writes,
            finals,
        }
    }

    /// The same events with the values of `runs`, which have this layout's shapes.
    fn set_values(&mut self, runs: &[&ThreadExec]) {
        for (r, &o) in runs.iter().zip(&self.offsets) {
            for (e, info) in r.events.iter().zip(&mut self.events[o..]) {
                info.val = e.val;
            }
        }
    }
}

impl Layout {
    /// The layout of `runs`, from `memo` when its shapes are the same.
    fn cached<'l>(
        memo: &'l mut Option<Layout>,
        p: &Program,
        combiner: &Combiner,
        runs: &[&ThreadExec],
        shapes: &[u32],
    ) -> &'l Layout {
        if memo.as_ref().is_none_or(|l| l.shapes != shapes) {
            let po_later_rf = combiner.po_later_rf;
            *memo = Some(Layout::of(p, &combiner.observed, po_later_rf, runs, shapes));
        }
        let l = memo.as_mut().expect("just set");
        l.set_values(runs);
        l
    }

    /// The rf sources of each read: the writes it may read from ([`Layout::writes`]) with
    /// a value it may read (`share`). `None` when a read has none.
    fn sources(&self, share: impl Fn(usize, usize) -> bool) -> Option<Vec<(usize, Vec<usize>)>> {
        let mut reads = Vec::with_capacity(self.writes.len());
        for (i, ws) in &self.writes {
            let srcs: Vec<usize> = ws.iter().copied().filter(|&j| share(*i, j)).collect();
            if srcs.is_empty() {
                return None;
            }
            reads.push((*i, srcs));
        }
        Some(reads)
    }

    /// The partial candidate with this `rf`, no final write chosen (see [`Doomer`]).
    fn partial<'a>(&'a self, p: &'a Program, rf: Rel, runs: &[&'a ThreadExec]) -> Candidate<'a> {
        let fw = Set::empty(self.events.len());
        self.with_choice(p, rf, fw, Vec::new(), runs)
    }

    /// The candidate with this `rf` and the final writes `pick` chooses.
    fn candidate<'a>(
        &'a self,
        p: &'a Program,
        pick: &[usize],
        rf: Rel,
        runs: &[&'a ThreadExec],
    ) -> Candidate<'a> {
        let n = self.events.len();
        let nloc = p.symbols.len();
        let mut fw = Set::empty(n);
        let mut final_mem = Vec::with_capacity(self.finals.len());
        for (k, (l, ws)) in self.finals.iter().enumerate() {
            let w = ws[pick[k]];
            if w >= nloc {
                fw.insert(w);
            }
            final_mem.push((*l, self.events[w].val.unwrap_or(Value::ZERO)));
        }
        self.with_choice(p, rf, fw, final_mem, runs)
    }

    /// The candidate of these runs with this `rf` and these final writes.
    fn with_choice<'a>(
        &'a self,
        p: &'a Program,
        rf: Rel,
        fw: Set,
        final_mem: Vec<(LocId, Value)>,
        runs: &[&'a ThreadExec],
    ) -> Candidate<'a> {
        Candidate {
            prims: Primitives {
                n: self.events.len(),
                events: &self.events,
                symbols: &p.symbols,
                // (`FW` is shared when no location is observed.)
                sets: Named::layered(
                    &self.base.0,
                    match self.finals.is_empty() {
                        true => Vec::new(),
                        false => vec![("FW".into(), fw)],
                    },
                ),
                rels: Named::layered(&self.base.1, vec![("rf".into(), rf)]),
            },
            runs: runs.to_vec(),
            final_mem,
            shapes: &self.shapes,
        }
    }
}

impl Search<'_> {
    /// All candidates of one combination of runs; false when `f` asked to stop.
    ///
    /// Sources are chosen from the last read to the first, so the candidates come in the
    /// order of an odometer whose first read turns fastest. With a [`Doomer`], a partial
    /// choice may cut the candidates below it.
    fn combo(
        &mut self,
        runs: &[&ThreadExec],
        shapes: &[u32],
        f: &mut dyn FnMut(&Candidate, Option<&Bound>) -> bool,
    ) -> bool {
        let (p, combiner) = (self.p, self.combiner);
        let bounded = self.bounded.clone();
        // Candidates judged by a bound are consistent, and those of cut runs count for
        // `Loop` without being judged: neither is cut.
        let doomer = self
            .doomer
            .filter(|_| bounded.is_none() && !runs.iter().any(|r| r.cut));
        let layout = Layout::cached(&mut self.layout, p, combiner, runs, shapes);
        let same = |a: usize, b: usize| layout.events[a].val == layout.events[b].val;
        let Some(mut reads) = layout.sources(same) else {
            return true;
        };
        // A read with one source has it from the start: only the others are chosen.
        let mut rf = Rel::empty(layout.events.len());
        reads.retain(|(r, srcs)| match srcs[..] {
            [w] => {
                rf.insert(w, *r);
                false
            }
            _ => true,
        });
        // Only when cutting, below[k]: candidates per choice of sources for the reads from
        // k on (the last, all of the combination's).
        let below: Vec<usize> = match doomer {
            Some(_) => {
                let fws: usize = layout.finals.iter().map(|(_, ws)| ws.len()).product();
                std::iter::once(fws)
                    .chain(reads.iter().scan(fws, |n, (_, srcs)| {
                        *n = srcs.len().saturating_mul(*n);
                        Some(*n)
                    }))
                    .collect()
            }
            None => Vec::new(),
        };
        let doomer = doomer.filter(|c| below.last().is_some_and(|&n| n >= c.min));
        let mut walk = RfWalk {
            p,
            layout,
            runs,
            reads: &reads,
            below: &below,
            rf,
            bounded: bounded.as_deref(),
            doomer,
            stats: &mut self.cut_stats,
            counts: &mut self.counts,
            budget: self.budget,
            f,
        };
        walk.go(reads.len())
    }
}

/// The choice of sources for the reads of one combination of runs.
struct RfWalk<'w, 'a, 'f> {
    p: &'a Program<'a>,
    layout: &'w Layout,
    runs: &'w [&'a ThreadExec],
    reads: &'w [(usize, Vec<usize>)],
    below: &'w [usize],
    rf: Rel,
    bounded: Option<&'w Bound>,
    doomer: Option<&'a Doomer<'a>>,
    stats: &'w mut Vec<(u32, u32)>,
    counts: &'w mut Counts,
    budget: &'w Budget,
    f: &'f mut dyn FnMut(&Candidate, Option<&Bound>) -> bool,
}

impl RfWalk<'_, '_, '_> {
    /// Chooses sources for the reads before `k` (the others have theirs in `rf`).
    fn go(&mut self, k: usize) -> bool {
        if k == 0 {
            return self.leaf();
        }
        let (r, srcs) = &self.reads[k - 1];
        for &w in srcs {
            // Subtrees left out by a cut call no `f`.
            if self.budget.check().is_err() {
                return false;
            }
            self.rf.insert(w, *r);
            let go_on = self.cut(k - 1) || self.go(k - 1);
            self.rf.remove(w, *r);
            if !go_on {
                return false;
            }
        }
        true
    }

    /// Whether the candidates below, the reads before `k` still without a source, are
    /// left out.
    fn cut(&mut self, k: usize) -> bool {
        let Some(c) = self.doomer else {
            return false;
        };
        if k == 0 || self.below[k] < CUT_BELOW {
            return false;
        }
        if self.stats.len() <= k {
            self.stats.resize(k + 1, (0, 0));
        }
        let (tries, cuts) = self.stats[k];
        if tries >= CUT_TRIAL && cuts * CUT_WORTH < tries {
            return false;
        }
        let l = self.layout;
        let cand = l.partial(self.p, self.rf.clone(), self.runs);
        let doomed = (c.doomed)(&cand);
        self.stats[k] = (tries + 1, cuts + u32::from(doomed));
        if doomed {
            self.counts.left_out += self.below[k];
        }
        doomed
    }

    /// Every choice of final writes, with the sources chosen.
    fn leaf(&mut self) -> bool {
        let finals = &self.layout.finals;
        let mut fw_pick = vec![0usize; finals.len()];
        loop {
            let cand = self
                .layout
                .candidate(self.p, &fw_pick, self.rf.clone(), self.runs);
            self.counts.visited += 1;
            if !(self.f)(&cand, self.bounded) {
                return false;
            }
            if !advance(&mut fw_pick, |k| finals[k].1.len()) {
                return true;
            }
        }
    }
}

/// Odometer step; false when it wrapped around.
fn advance(pick: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for (k, p) in pick.iter_mut().enumerate() {
        *p += 1;
        if *p < len(k) {
            return true;
        }
        *p = 0;
    }
    false
}

type Base = (NameMap<Set>, NameMap<Rel>);

/// The sets and relations that do not depend on rf or the final writes.
fn base_primitives(
    p: &Program,
    events: &[EventInfo],
    instr: &[u32],
    runs: &[&ThreadExec],
    offsets: &[usize],
) -> Base {
    let n = events.len();
    let nloc = p.symbols.len();
    let mut sets: NameMap<Set> = NameMap::default();
    let of = |k: Kind| Set::from_iter(n, (0..n).filter(|&i| events[i].kind == k));
    let r = of(Kind::Read);
    let w = of(Kind::Write);
    // herd's M holds reads and writes only; lock events join it through the lock model.
    let m = r.union(&w);
    // Accesses are explicit (herd's `Exp`) unless the semantics tags them implicit (`Imp`:
    // instruction fetches).
    let imp = Set::from_iter(
        n,
        (0..n).filter(|&i| events[i].tags.iter().any(|t| t == "Imp")),
    );
    sets.insert("Exp".into(), m.diff(&imp));
    let herds = [
        ("NExp", m.inter(&imp)),
        ("EXEC", m.clone()),
        ("I", Set::from_iter(n, 0..nloc)),
        ("C", of(Kind::Branch)),
        (
            "no-loc",
            Set::from_iter(n, (0..n).filter(|&i| events[i].loc.is_none())),
        ),
    ];
    sets.insert("M".into(), m);
    sets.insert("R".into(), r);
    sets.insert("W".into(), w);
    sets.insert("F".into(), of(Kind::Fence));
    sets.insert("B".into(), of(Kind::Branch));
    sets.insert("IW".into(), Set::from_iter(n, 0..nloc));
    // The cache features a test declares (`CacheType=DIC`, herd's variants): every event.
    for (key, v) in &p.test.info {
        if key.eq_ignore_ascii_case("CacheType") {
            for f in v.split([',', ' ']).filter(|f| !f.is_empty()) {
                sets.insert(f.to_string(), Set::full(n));
            }
        }
    }
    sets.insert("_".into(), Set::full(n));
    for (i, e) in events.iter().enumerate() {
        for t in &e.tags {
            sets.entry(t.clone())
                .or_insert_with(|| Set::empty(n))
                .insert(i);
        }
    }
    // What herd's model checker (herd/machModelChecker.ml, 7.56 to the newest) defines and
    // the semantics leave out: accesses not explicit (`NExp`), not speculated (`EXEC`: we
    // speculate nothing), herd 7.56's `I` (initial writes) and `C` (commits), events with
    // no location. A tag of the same name wins, as herd's architecture sets do.
    for (name, set) in herds {
        sets.entry(name.into()).or_insert(set);
    }
    // Data ports: `NDATA` holds every other event.
    if let Some(data) = sets.get("DATA") {
        let ndata = Set::full(n).diff(data);
        sets.insert("NDATA".into(), ndata);
    }

    let mut rels: NameMap<Rel> = NameMap::default();
    rels.insert("id".into(), Rel::identity(&Set::full(n)));
    let mut po = Rel::empty(n);
    let mut int = Rel::empty(n);
    let mut same = Rel::empty(n);
    let mut loc = Rel::empty(n);
    for a in 0..n {
        for b in 0..n {
            let (ea, eb) = (&events[a], &events[b]);
            if ea.proc.is_some() && ea.proc == eb.proc {
                int.insert(a, b);
                if instr[a] < instr[b] {
                    po.insert(a, b);
                } else if instr[a] == instr[b] {
                    same.insert(a, b);
                }
            }
            if ea.loc.is_some() && ea.loc == eb.loc {
                loc.insert(a, b);
            }
        }
    }
    let ext = int.complement().diff(&Rel::identity(&Set::full(n)));
    rels.insert("po".into(), po);
    rels.insert("int".into(), int);
    rels.insert("ext".into(), ext);
    rels.insert("same-instance".into(), same);
    rels.insert("loc".into(), loc);
    for name in THREAD_RELS {
        rels.insert(name.into(), Rel::empty(n));
    }
    for (t, run) in runs.iter().enumerate() {
        for &(name, a, b) in &run.rels {
            rels.entry(name.into())
                .or_insert_with(|| Rel::empty(n))
                .insert(offsets[t] + a as usize, offsets[t] + b as usize);
        }
    }
    // herd's `inv-domain` (herd/machAction.ml, `kvm`): a TLBI and each access to the entry
    // it invalidates (our TLBI events are at the entry `PTE(x)` of their page), both ways;
    // a TLBI with no page, every access to an entry.
    if p.symbols.vmsa
        && let Some(tlbi) = sets.get("TLBI")
    {
        let is_mem = |i: usize| matches!(events[i].kind, Kind::Read | Kind::Write);
        let is_pte = |i: usize| match events[i].loc {
            Some(Value::Addr(l)) => p.symbols.name(l).starts_with("PTE("),
            _ => false,
        };
        let mut inv = Rel::empty(n);
        for t in tlbi.iter() {
            for e in (0..n).filter(|&e| is_mem(e) && is_pte(e)) {
                if events[t].loc.is_none() || events[t].loc == events[e].loc {
                    inv.insert(t, e);
                    inv.insert(e, t);
                }
            }
        }
        rels.insert("inv-domain".into(), inv);
    }
    // herd's `alias` (two accesses to entries with the same output address) and newer
    // herds' `PTEtoPA` (an access to an entry and each access to the physical location it
    // maps to, which our `x` stands for), from the entries' `oa:X` tags.
    if p.symbols.vmsa {
        let oa = |i: usize| events[i].tags.iter().find_map(|t| t.strip_prefix("oa:"));
        let is_pt = |i: usize| events[i].tags.iter().any(|t| t == "PTE");
        let is_mem = |i: usize| matches!(events[i].kind, Kind::Read | Kind::Write);
        let mut alias = Rel::empty(n);
        let mut to_pa = Rel::empty(n);
        for a in (0..n).filter(|&a| is_pt(a)) {
            for (b, eb) in events.iter().enumerate() {
                if is_pt(b) && oa(a).is_some() && oa(a) == oa(b) {
                    alias.insert(a, b);
                }
                let at = |x: &str| match eb.loc {
                    Some(Value::Addr(l)) => p.symbols.name(l) == x,
                    _ => false,
                };
                if is_mem(b) && !is_pt(b) && oa(a).is_some_and(|x| !x.is_empty() && at(x)) {
                    to_pa.insert(a, b);
                }
            }
        }
        rels.insert("alias".into(), alias);
        rels.insert("PTEtoPA".into(), to_pa);
        // herd's `same-low-order-bits`: the accesses and translation faults whose
        // locations have the same offset in their page (`x+4` is 4, every other 0).
        let offset = |i: usize| -> Option<i64> {
            let e = &events[i];
            let fault = e.tags.iter().any(|t| t == "FAULT");
            match e.loc {
                Some(Value::Addr(l)) if is_mem(i) => Some(
                    p.symbols
                        .name(l)
                        .rsplit_once('+')
                        .and_then(|(_, o)| o.parse().ok())
                        .unwrap_or(0),
                ),
                _ if fault => Some(0),
                _ => None,
            }
        };
        let offs: Vec<Option<i64>> = (0..n).map(offset).collect();
        let mut slob = Rel::empty(n);
        for a in 0..n {
            for b in 0..n {
                if offs[a].is_some() && offs[a] == offs[b] {
                    slob.insert(a, b);
                }
            }
        }
        rels.insert("same-low-order-bits".into(), slob);
    }
    // herd's `amo`: the read and write of one atomic instruction, the pairs of `rmw`
    // within one instruction instance (its `po_eq`); the rest of `rmw` is herd 7.58's
    // `lxsx`. (Newer herds define both in their stdlib.cat, which then wins.)
    let amo = rels["rmw"].inter(&rels["same-instance"]);
    rels.insert("amo".into(), amo);
    // herd's `rf-reg`: each register read from the register write it reads, the latest
    // one before it in program order (older models, as herd 7.58's aarch64deps.cat, build
    // their dependencies on it; newer ones compute it themselves).
    if let (Some(rr), Some(wr)) = (sets.get("Rreg"), sets.get("Wreg")) {
        let same = &rels["loc"];
        let mut rf_reg = Rel::empty(n);
        for r in rr.iter() {
            let source = wr
                .iter()
                .filter(|&w| same.contains(w, r) && events[w].proc == events[r].proc)
                .filter(|&w| instr[w] < instr[r])
                .max_by_key(|&w| (instr[w], w));
            if let Some(w) = source {
                rf_reg.insert(w, r);
            }
        }
        rels.insert("rf-reg".into(), rf_reg);
    }
    (sets, rels)
}

/// A write a read takes its value from: an initial write, or an event of a thread's run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    Init(LocId),
    Event { thread: u32, event: u32 },
}

/// Candidates of runs and `rf` chosen elsewhere (the growing exploration, `exec::grow`),
/// made with the enumerator's layouts: one per shape of runs, kept while shapes repeat.
pub struct Assembler {
    layout: Option<Layout>,
    observed: Vec<LocId>,
}

impl Assembler {
    pub fn new(p: &Program) -> Assembler {
        Assembler {
            layout: None,
            observed: p.observed_globals(),
        }
    }

    /// The candidates of `runs` (whose shapes are `shapes`) in which each read of `rf`
    /// (thread, event) reads from its source, one per choice of final writes that
    /// `final_ok` allows (a location and the write that ends its coherence order), to
    /// `f` until it returns false.
    pub fn each(
        &mut self,
        p: &Program,
        runs: &[&ThreadExec],
        shapes: &[u32],
        rf: &[((u32, u32), Source)],
        final_ok: &dyn Fn(LocId, Source) -> bool,
        f: &mut dyn FnMut(&Candidate) -> bool,
    ) -> bool {
        if self.layout.as_ref().is_none_or(|l| l.shapes != shapes) {
            self.layout = Some(Layout::of(p, &self.observed, true, runs, shapes));
        }
        let l = self.layout.as_mut().expect("just set");
        l.set_values(runs);
        let l = &*l;
        let nloc = p.symbols.len();
        let index = |s: Source| match s {
            Source::Init(loc) => loc.0 as usize,
            Source::Event { thread, event } => l.offsets[thread as usize] + event as usize,
        };
        let source_of = |i: usize| -> Source {
            if i < nloc {
                return Source::Init(LocId(i as u32));
            }
            let t = l.offsets.partition_point(|&o| o <= i) - 1;
            Source::Event {
                thread: t as u32,
                event: (i - l.offsets[t]) as u32,
            }
        };
        let mut rel = Rel::empty(l.events.len());
        for &((t, e), src) in rf {
            rel.insert(index(src), l.offsets[t as usize] + e as usize);
        }
        // The final writes each location may end with.
        let finals: Vec<Vec<usize>> = l
            .finals
            .iter()
            .map(|(loc, ws)| {
                (0..ws.len())
                    .filter(|&k| final_ok(*loc, source_of(ws[k])))
                    .collect()
            })
            .collect();
        if finals.iter().any(|ks| ks.is_empty()) {
            return true;
        }
        let mut at = vec![0usize; finals.len()];
        loop {
            let pick: Vec<usize> = at.iter().zip(&finals).map(|(&a, ks)| ks[a]).collect();
            let c = l.candidate(p, &pick, rel.clone(), runs);
            if !f(&c) {
                return false;
            }
            if !advance(&mut at, |k| finals[k].len()) {
                return true;
            }
        }
    }
}
