//! The checks a growing execution must pass before it grows further: SC per location
//! (herd's `uniproc`) and the atomicity of read-modify-writes, when the model makes them
//! (see [`super::Facts`]).
//!
//! Both hold of an execution only if they hold of every part of it: a coherence order of
//! the whole execution, restricted to the writes made so far, orders them as the part
//! requires, and `po-loc | rf | co | fr` restricted to the part's events is a subgraph of
//! the whole's. So a part that no coherence order can make acyclic has no consistent
//! extension, and the exploration drops it. What no coherence order can do is found by
//! saturation: an order between two writes that every acyclic choice must make (one is
//! before the other, or before a read of it, in `po-loc | rf | co | fr`) is added, until
//! nothing is added or a cycle appears. Each order added is forced, so a cycle is a
//! proof; the converse need not hold (the model judges what passes).
//!
//! Atomicity (herd's `empty rmw & (fre; coe)`): the write of a read-modify-write follows
//! the write its read reads from with no other thread's write between them in `co`.

use super::Source;
use super::thread::Thread;
use crate::sem::{Kind, LocId, Value};

/// A set of nodes of one location's graph (at most 128).
type Row = u128;

/// The events of one location in a growing execution, and what orders them.
struct Graph {
    /// Writes, then reads: (thread, event); the initial write is thread `u32::MAX`.
    nodes: Vec<(u32, u32)>,
    writes: usize,
    /// `po-loc | rf`, then with the coherence order added.
    edges: Vec<Row>,
    /// Each read's source, as a node (reads without one: none).
    src: Vec<Option<usize>>,
    /// The read-modify-writes: (read node, write node).
    rmw: Vec<(usize, usize)>,
}

const INIT: u32 = u32::MAX;

/// Whether location `loc` of the threads' partial runs may still be made coherent (and
/// atomic, with `atomicity`).
pub fn holds(threads: &[Thread], loc: LocId, atomicity: bool) -> bool {
    match Graph::of(threads, loc) {
        Some(mut g) => g.saturates(atomicity),
        // Too many events to check here: the model judges.
        None => true,
    }
}

/// Whether `w` may end `loc`'s coherence order in the complete execution `threads`.
pub fn may_end(threads: &[Thread], loc: LocId, w: Source, atomicity: bool) -> bool {
    let Some(mut g) = Graph::of(threads, loc) else {
        return true;
    };
    let Some(last) = g.node_of(w) else {
        return true;
    };
    // `w` last: every other write before it.
    for k in 0..g.writes {
        if k != last {
            g.edges[k] |= 1 << last;
        }
    }
    g.saturates(atomicity)
}

impl Graph {
    fn of(threads: &[Thread], loc: LocId) -> Option<Graph> {
        let at = Some(Value::Addr(loc));
        let mut writes = vec![(INIT, loc.0)];
        let mut reads = Vec::new();
        for (t, th) in threads.iter().enumerate() {
            for (e, ev) in th.run.events.iter().enumerate() {
                if ev.loc != at {
                    continue;
                }
                match ev.kind {
                    Kind::Write => writes.push((t as u32, e as u32)),
                    Kind::Read => reads.push((t as u32, e as u32)),
                    _ => {}
                }
            }
        }
        let nw = writes.len();
        let nodes: Vec<(u32, u32)> = writes.into_iter().chain(reads).collect();
        if nodes.len() > 128 {
            return None;
        }
        let mut g = Graph {
            writes: nw,
            edges: vec![0; nodes.len()],
            src: vec![None; nodes.len()],
            rmw: Vec::new(),
            nodes,
        };
        // po-loc: the events of one thread at this location, in program order (the
        // enumerator's: events of one instruction are not ordered but by the semantics).
        for i in 0..g.nodes.len() {
            let (ti, ei) = g.nodes[i];
            if ti == INIT {
                continue;
            }
            for j in 0..g.nodes.len() {
                let (tj, ej) = g.nodes[j];
                if tj == ti && threads[ti as usize].po(ei as usize, ej as usize) {
                    g.edges[i] |= 1 << j;
                }
            }
        }
        // The initial write comes first in every coherence order.
        for k in 1..nw {
            g.edges[0] |= 1 << k;
        }
        for j in nw..g.nodes.len() {
            let (t, e) = g.nodes[j];
            let th = &threads[t as usize];
            let src = th.reads.iter().find(|r| r.event == e).and_then(|r| r.src);
            if let Some(s) = src.and_then(|s| g.node_of(s)) {
                g.edges[s] |= 1 << j;
                g.src[j] = Some(s);
            }
            for &(a, b) in &th.rmw {
                if a == e {
                    let w = g.nodes[..nw].iter().position(|&n| n == (t, b));
                    if let Some(w) = w {
                        g.rmw.push((j, w));
                    }
                }
            }
        }
        Some(g)
    }

    fn node_of(&self, s: Source) -> Option<usize> {
        let key = match s {
            Source::Init(_) => (INIT, self.nodes[0].1),
            Source::Event { thread, event } => (thread, event),
        };
        self.nodes[..self.writes].iter().position(|&n| n == key)
    }

    /// Adds every coherence edge that acyclicity forces; false when a cycle appears.
    fn saturates(&mut self, atomicity: bool) -> bool {
        loop {
            let h = self.closure();
            if (0..h.len()).any(|i| h[i] & (1 << i) != 0) {
                return false;
            }
            let mut grew = false;
            let mut co = |g: &mut Graph, a: usize, b: usize| {
                if a != b && g.edges[a] & (1 << b) == 0 {
                    g.edges[a] |= 1 << b;
                    grew = true;
                }
            };
            let nw = self.writes;
            // Writes ordered by the rest are ordered in `co`.
            for (a, row) in h.iter().enumerate().take(nw) {
                for b in 0..nw {
                    if a != b && row & (1 << b) != 0 {
                        co(self, a, b);
                    }
                }
            }
            for r in nw..self.nodes.len() {
                let Some(w) = self.src[r] else { continue };
                for x in 0..nw {
                    if x == w {
                        continue;
                    }
                    // A write before the read is before its source (else `fr` back).
                    if h[x] & (1 << r) != 0 {
                        co(self, x, w);
                    }
                    // A write after the read is after its source (`fr`).
                    if h[r] & (1 << x) != 0 {
                        co(self, w, x);
                    }
                }
            }
            if atomicity {
                for k in 0..self.rmw.len() {
                    let (r, wr) = self.rmw[k];
                    let Some(w) = self.src[r] else { continue };
                    let thread = self.nodes[r].0;
                    for x in 0..nw {
                        if x == w || x == wr || self.nodes[x].0 == thread {
                            continue;
                        }
                        // No other thread's write between the read's source and the
                        // write: after the one, it is after the other.
                        if h[w] & (1 << x) != 0 {
                            co(self, wr, x);
                        }
                        if h[x] & (1 << wr) != 0 {
                            co(self, x, w);
                        }
                    }
                }
            }
            if !grew {
                return true;
            }
        }
    }

    /// `po-loc | rf | co | fr`, transitively closed.
    fn closure(&self) -> Vec<Row> {
        let n = self.nodes.len();
        let mut h = self.edges.clone();
        // fr: a read before every write its source is before.
        for (r, row) in h.iter_mut().enumerate().skip(self.writes) {
            if let Some(w) = self.src[r] {
                let later = self.edges[w] & below(self.writes);
                *row |= later & !(1 << w);
            }
        }
        for k in 0..n {
            for i in 0..n {
                if h[i] & (1 << k) != 0 {
                    h[i] |= h[k];
                }
            }
        }
        h
    }
}

/// The nodes before `n`.
fn below(n: usize) -> Row {
    if n >= 128 { Row::MAX } else { (1 << n) - 1 }
}
