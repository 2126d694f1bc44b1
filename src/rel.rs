//! Dense bit sets and bit matrices over a candidate's events.
//!
//! A candidate has tens of events, rarely a few hundred: rows of `u64` words make union,
//! intersection and composition word-parallel, and closure a handful of passes.

use std::fmt;

#[inline]
fn words(n: usize) -> usize {
    n.div_ceil(64)
}

/// A set of events `0..n`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Set {
    n: usize,
    w: Vec<u64>,
}

impl Set {
    pub fn empty(n: usize) -> Set {
        Set {
            n,
            w: vec![0; words(n)],
        }
    }
    pub fn full(n: usize) -> Set {
        let mut w = vec![u64::MAX; words(n)];
        if !n.is_multiple_of(64) {
            w[n / 64] = (1 << (n % 64)) - 1;
        }
        Set { n, w }
    }
    pub fn from_iter(n: usize, it: impl IntoIterator<Item = usize>) -> Set {
        let mut s = Set::empty(n);
        for i in it {
            s.insert(i);
        }
        s
    }
    pub fn universe(&self) -> usize {
        self.n
    }
    #[inline]
    pub fn insert(&mut self, i: usize) {
        self.w[i / 64] |= 1 << (i % 64);
    }
    #[inline]
    pub fn remove(&mut self, i: usize) {
        self.w[i / 64] &= !(1 << (i % 64));
    }
    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.w[i / 64] >> (i % 64) & 1 == 1
    }
    pub fn is_empty(&self) -> bool {
        self.w.iter().all(|&x| x == 0)
    }
    pub fn len(&self) -> usize {
        self.w.iter().map(|x| x.count_ones() as usize).sum()
    }
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        iter_bits(&self.w)
    }
    pub fn union(&self, o: &Set) -> Set {
        self.zip(o, |a, b| a | b)
    }
    pub fn inter(&self, o: &Set) -> Set {
        self.zip(o, |a, b| a & b)
    }
    pub fn diff(&self, o: &Set) -> Set {
        self.zip(o, |a, b| a & !b)
    }
    pub fn complement(&self) -> Set {
        let mut s = self.clone();
        s.complement_in_place();
        s
    }
    pub fn is_subset(&self, o: &Set) -> bool {
        self.w.iter().zip(&o.w).all(|(a, b)| a & !b == 0)
    }
    pub fn union_with(&mut self, o: &Set) {
        for (a, b) in self.w.iter_mut().zip(&o.w) {
            *a |= b;
        }
    }
    fn zip(&self, o: &Set, f: impl Fn(u64, u64) -> u64) -> Set {
        debug_assert_eq!(self.n, o.n);
        Set {
            n: self.n,
            w: self.w.iter().zip(&o.w).map(|(&a, &b)| f(a, b)).collect(),
        }
    }
    pub fn words(&self) -> &[u64] {
        &self.w
    }

    // In-place forms, for the plans that run a model's branches natively (see
    // `cat::plan`): each writes into a buffer of the same universe, allocating nothing.

    /// `self := o`
    pub fn copy_from(&mut self, o: &Set) {
        self.w.copy_from_slice(&o.w);
    }
    /// `self := f(a, b)`, word by word.
    pub fn assign(&mut self, a: &Set, b: &Set, f: impl Fn(u64, u64) -> u64) {
        for ((d, x), y) in self.w.iter_mut().zip(&a.w).zip(&b.w) {
            *d = f(*x, *y);
        }
    }
    /// `self := ~self`
    pub fn complement_in_place(&mut self) {
        let n = self.n;
        for (k, a) in self.w.iter_mut().enumerate() {
            let full = if (k + 1) * 64 <= n {
                u64::MAX
            } else {
                (1u64 << (n % 64)) - 1
            };
            *a = !*a & full;
        }
    }
    pub fn clear(&mut self) {
        self.w.fill(0);
    }
}

impl fmt::Debug for Set {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

fn iter_bits(w: &[u64]) -> impl Iterator<Item = usize> + '_ {
    w.iter().enumerate().flat_map(|(k, &word)| {
        let mut x = word;
        std::iter::from_fn(move || {
            if x == 0 {
                None
            } else {
                let t = x.trailing_zeros() as usize;
                x &= x - 1;
                Some(k * 64 + t)
            }
        })
    })
}

/// A binary relation over events `0..n`: row `i` holds the successors of `i`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Rel {
    n: usize,
    ww: usize,
    m: Vec<u64>,
}

impl Rel {
    pub fn empty(n: usize) -> Rel {
        let ww = words(n);
        Rel {
            n,
            ww,
            m: vec![0; ww * n],
        }
    }
    pub fn from_pairs(n: usize, it: impl IntoIterator<Item = (usize, usize)>) -> Rel {
        let mut r = Rel::empty(n);
        for (a, b) in it {
            r.insert(a, b);
        }
        r
    }
    pub fn identity(s: &Set) -> Rel {
        let mut r = Rel::empty(s.n);
        r.set_identity(s);
        r
    }
    /// `a * b`
    pub fn cartesian(a: &Set, b: &Set) -> Rel {
        let mut r = Rel::empty(a.n);
        r.set_cartesian(a, b);
        r
    }
    pub fn universe(&self) -> usize {
        self.n
    }
    /// The raw bit matrix, row-major (a total order on relations, for sets of them).
    pub(crate) fn words(&self) -> &[u64] {
        &self.m
    }
    #[inline]
    pub fn row(&self, i: usize) -> &[u64] {
        &self.m[i * self.ww..(i + 1) * self.ww]
    }
    #[inline]
    fn row_mut(&mut self, i: usize) -> &mut [u64] {
        &mut self.m[i * self.ww..(i + 1) * self.ww]
    }
    #[inline]
    pub fn insert(&mut self, a: usize, b: usize) {
        self.m[a * self.ww + b / 64] |= 1 << (b % 64);
    }
    #[inline]
    pub fn remove(&mut self, a: usize, b: usize) {
        self.m[a * self.ww + b / 64] &= !(1 << (b % 64));
    }
    #[inline]
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.m[a * self.ww + b / 64] >> (b % 64) & 1 == 1
    }
    pub fn is_empty(&self) -> bool {
        self.m.iter().all(|&x| x == 0)
    }
    pub fn len(&self) -> usize {
        self.m.iter().map(|x| x.count_ones() as usize).sum()
    }
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n).flat_map(move |i| iter_bits(self.row(i)).map(move |j| (i, j)))
    }
    pub fn succs(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        iter_bits(self.row(i))
    }
    pub fn union(&self, o: &Rel) -> Rel {
        self.zip(o, |a, b| a | b)
    }
    pub fn inter(&self, o: &Rel) -> Rel {
        self.zip(o, |a, b| a & b)
    }
    pub fn diff(&self, o: &Rel) -> Rel {
        self.zip(o, |a, b| a & !b)
    }
    pub fn union_with(&mut self, o: &Rel) {
        for (a, b) in self.m.iter_mut().zip(&o.m) {
            *a |= b;
        }
    }
    /// `self := o` (see [`Set::copy_from`]).
    pub fn copy_from(&mut self, o: &Rel) {
        self.m.copy_from_slice(&o.m);
    }
    /// `self := f(a, b)`, word by word.
    pub fn assign(&mut self, a: &Rel, b: &Rel, f: impl Fn(u64, u64) -> u64) {
        for ((d, x), y) in self.m.iter_mut().zip(&a.m).zip(&b.m) {
            *d = f(*x, *y);
        }
    }
    pub fn clear(&mut self) {
        self.m.fill(0);
    }
    /// `self := ~self`
    pub fn complement_in_place(&mut self) {
        let full = Set::full(self.n);
        for row in self.m.chunks_exact_mut(self.ww.max(1)).take(self.n) {
            for (d, f) in row.iter_mut().zip(&full.w) {
                *d = !*d & f;
            }
        }
    }
    /// `self := [s]`
    pub fn set_identity(&mut self, s: &Set) {
        self.clear();
        for i in s.iter() {
            self.insert(i, i);
        }
    }
    /// `self := a * b`
    pub fn set_cartesian(&mut self, a: &Set, b: &Set) {
        self.clear();
        for i in a.iter() {
            self.row_mut(i).copy_from_slice(&b.w);
        }
    }
    /// `self := self | id`
    pub fn add_identity(&mut self) {
        for i in 0..self.n {
            self.insert(i, i);
        }
    }
    /// `self := [s] ; self`
    pub fn restrict_domain_in_place(&mut self, s: &Set) {
        for i in 0..self.n {
            if !s.contains(i) {
                self.row_mut(i).fill(0);
            }
        }
    }
    /// `out := self ; o`
    pub fn compose_into(&self, o: &Rel, out: &mut Rel) {
        match self.ww {
            0 => {}
            1 => self.compose_rows::<1>(o, out),
            2 => self.compose_rows::<2>(o, out),
            _ => *out = self.compose(o),
        }
    }
    /// `out := self^-1`
    pub fn inverse_into(&self, out: &mut Rel) {
        out.clear();
        if self.ww == 1 {
            for (a, &row) in self.m.iter().enumerate() {
                let mut x = row;
                while x != 0 {
                    out.m[x.trailing_zeros() as usize] |= 1 << a;
                    x &= x - 1;
                }
            }
            return;
        }
        for (a, b) in self.pairs() {
            out.insert(b, a);
        }
    }
    /// `self := self+` (see [`Rel::transitive_closure`]).
    pub fn close_in_place(&mut self) {
        if self.ww != 1 {
            *self = self.closure_by_components();
            return;
        }
        for k in 0..self.n {
            let (rowk, kb) = (self.m[k], 1u64 << k);
            if rowk == 0 {
                continue;
            }
            for d in self.m.iter_mut() {
                if *d & kb != 0 {
                    *d |= rowk;
                }
            }
        }
    }
    /// `out := domain(self)`
    pub fn domain_into(&self, out: &mut Set) {
        out.clear();
        for i in 0..self.n {
            if self.row(i).iter().any(|&x| x != 0) {
                out.insert(i);
            }
        }
    }
    /// `out := range(self)`
    pub fn range_into(&self, out: &mut Set) {
        out.clear();
        for i in 0..self.n {
            for (d, x) in out.w.iter_mut().zip(self.row(i)) {
                *d |= x;
            }
        }
    }
    pub fn is_subset(&self, o: &Rel) -> bool {
        self.m.iter().zip(&o.m).all(|(a, b)| a & !b == 0)
    }
    fn zip(&self, o: &Rel, f: impl Fn(u64, u64) -> u64) -> Rel {
        debug_assert_eq!(self.n, o.n);
        Rel {
            n: self.n,
            ww: self.ww,
            m: self.m.iter().zip(&o.m).map(|(&a, &b)| f(a, b)).collect(),
        }
    }
    pub fn complement(&self) -> Rel {
        let mut r = self.clone();
        r.complement_in_place();
        r
    }
    pub fn inverse(&self) -> Rel {
        let mut r = Rel::empty(self.n);
        self.inverse_into(&mut r);
        r
    }
    /// `self ; o`: each row ORs the rows of its successors.
    pub fn compose(&self, o: &Rel) -> Rel {
        let mut r = Rel::empty(self.n);
        match self.ww {
            0 => {}
            // Up to 64 and up to 128 events (the big rings): rows of fixed width.
            1 => self.compose_rows::<1>(o, &mut r),
            2 => self.compose_rows::<2>(o, &mut r),
            ww => {
                for (d, row) in r.m.chunks_exact_mut(ww).zip(self.m.chunks_exact(ww)) {
                    for (j, &word) in row.iter().enumerate() {
                        let mut x = word;
                        while x != 0 {
                            let k = j * 64 + x.trailing_zeros() as usize;
                            x &= x - 1;
                            for (d, s) in d.iter_mut().zip(o.row(k)) {
                                *d |= s;
                            }
                        }
                    }
                }
            }
        }
        r
    }

    /// [`Rel::compose`] into `r`, for rows of `W` words.
    fn compose_rows<const W: usize>(&self, o: &Rel, r: &mut Rel) {
        let (succ, _) = o.m.as_chunks::<W>();
        let (rows, _) = self.m.as_chunks::<W>();
        let (out, _) = r.m.as_chunks_mut::<W>();
        for (d, row) in out.iter_mut().zip(rows) {
            let mut acc = [0u64; W];
            for (j, &word) in row.iter().enumerate() {
                let mut x = word;
                while x != 0 {
                    let s = &succ[j * 64 + x.trailing_zeros() as usize];
                    x &= x - 1;
                    for (a, b) in acc.iter_mut().zip(s) {
                        *a |= b;
                    }
                }
            }
            *d = acc;
        }
    }
    pub fn domain(&self) -> Set {
        let mut s = Set::empty(self.n);
        self.domain_into(&mut s);
        s
    }
    pub fn range(&self) -> Set {
        let mut s = Set::empty(self.n);
        self.range_into(&mut s);
        s
    }
    /// `[s] ; self`
    pub fn restrict_domain(&self, s: &Set) -> Rel {
        let mut r = Rel::empty(self.n);
        let ww = self.ww;
        for i in s.iter() {
            r.m[i * ww..(i + 1) * ww].copy_from_slice(&self.m[i * ww..(i + 1) * ww]);
        }
        r
    }
    /// `self ; [s]`
    pub fn restrict_range(&self, s: &Set) -> Rel {
        let mut r = self.clone();
        r.restrict_range_in_place(s);
        r
    }
    /// `self := self ; [s]`
    pub fn restrict_range_in_place(&mut self, s: &Set) {
        if self.ww == 0 {
            return;
        }
        if self.ww == 1 {
            let mask = s.w[0];
            self.m.iter_mut().for_each(|d| *d &= mask);
            return;
        }
        for row in self.m.chunks_exact_mut(self.ww) {
            for (d, x) in row.iter_mut().zip(&s.w) {
                *d &= x;
            }
        }
    }
    /// `self+`. Up to 64 events, Warshall on one word per row; beyond, Tarjan's strongly
    /// connected components: the relations models close (hb, pb, ...) are sparse and mostly
    /// acyclic, and Warshall's n² row tests dominated runs of 16-thread tests.
    pub fn transitive_closure(&self) -> Rel {
        if self.ww == 1 {
            let mut r = self.clone();
            r.close_in_place();
            return r;
        }
        self.closure_by_components()
    }

    /// `self+` in one depth-first search: Tarjan's algorithm finishes each strongly connected
    /// component after every component it reaches, so a component's closure is its members'
    /// successors plus the closures, already complete, of the successors outside it. (In a
    /// component of several events each member is some member's successor, so the members
    /// are in it too; a lone event is in its closure only through a self-loop.)
    pub(crate) fn closure_by_components(&self) -> Rel {
        const UNSEEN: u32 = u32::MAX;
        let (n, ww) = (self.n, self.ww);
        let mut out = Rel::empty(n);
        let mut index = vec![UNSEEN; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut members: Vec<usize> = Vec::new();
        let mut call: Vec<(usize, usize, u64)> = Vec::new();
        let mut reach = vec![0u64; ww];
        let mut next = 0u32;
        for root in 0..n {
            if index[root] != UNSEEN {
                continue;
            }
            index[root] = next;
            low[root] = next;
            next += 1;
            if self.row(root).iter().all(|&x| x == 0) {
                continue;
            }
            members.push(root);
            on_stack[root] = true;
            call.push((root, 0, self.m[root * ww]));
            while let Some(top) = call.last_mut() {
                let (v, k, bits) = *top;
                if bits != 0 {
                    top.2 = bits & (bits - 1);
                    let w = k * 64 + bits.trailing_zeros() as usize;
                    if index[w] == UNSEEN {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        members.push(w);
                        on_stack[w] = true;
                        call.push((w, 0, self.m[w * ww]));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                if k + 1 < ww {
                    *top = (v, k + 1, self.m[v * ww + k + 1]);
                    continue;
                }
                call.pop();
                if let Some(&(p, _, _)) = call.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] != index[v] {
                    continue;
                }
                // `v` roots a component: its members are the stack from `v` up.
                let from = members.iter().rposition(|&x| x == v).unwrap_or(0);
                reach.fill(0);
                for &x in &members[from..] {
                    for (d, s) in reach.iter_mut().zip(self.row(x)) {
                        *d |= s;
                    }
                }
                for j in 0..ww {
                    let mut bits = reach[j];
                    while bits != 0 {
                        let w = j * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if !on_stack[w] {
                            for (d, s) in reach.iter_mut().zip(&out.m[w * ww..(w + 1) * ww]) {
                                *d |= s;
                            }
                        }
                    }
                }
                for &x in &members[from..] {
                    out.m[x * ww..(x + 1) * ww].copy_from_slice(&reach);
                    on_stack[x] = false;
                }
                members.truncate(from);
            }
        }
        out
    }
    /// `self*` over the whole universe.
    pub fn reflexive_transitive_closure(&self) -> Rel {
        let mut r = self.transitive_closure();
        r.add_identity();
        r
    }
    pub fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|i| !self.contains(i, i))
    }
    pub fn is_acyclic(&self) -> bool {
        self.any_cycle().is_none()
    }
    /// A cycle as a list of events, if any (used to explain forbidden outcomes): the
    /// first a depth-first search meets, cut short by the edges between its events (see
    /// [`Rel::shortest_through`]).
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        self.any_cycle().map(|c| self.shortest_through(c))
    }
    /// The first cycle a depth-first search meets, if any.
    fn any_cycle(&self) -> Option<Vec<usize>> {
        if self.ww == 1 {
            return self.find_cycle_small();
        }
        // Iterative DFS with colours; each stack entry walks its row word by word, so the
        // search allocates nothing per event.
        let (n, ww) = (self.n, self.ww);
        let mut colour = vec![0u8; n];
        let mut parent = vec![usize::MAX; n];
        let mut stack: Vec<(usize, usize, u64)> = Vec::new();
        for root in 0..n {
            if colour[root] != 0 || self.row(root).iter().all(|&x| x == 0) {
                continue;
            }
            colour[root] = 1;
            stack.push((root, 0, self.m[root * ww]));
            while let Some(top) = stack.last_mut() {
                let (v, k, bits) = *top;
                if bits == 0 {
                    if k + 1 < ww {
                        *top = (v, k + 1, self.m[v * ww + k + 1]);
                    } else {
                        colour[v] = 2;
                        stack.pop();
                    }
                    continue;
                }
                top.2 = bits & (bits - 1);
                let w = k * 64 + bits.trailing_zeros() as usize;
                match colour[w] {
                    0 => {
                        colour[w] = 1;
                        parent[w] = v;
                        stack.push((w, 0, self.m[w * ww]));
                    }
                    1 => {
                        let mut cyc = vec![v];
                        let mut x = v;
                        while x != w {
                            x = parent[x];
                            cyc.push(x);
                        }
                        cyc.reverse();
                        return Some(cyc);
                    }
                    _ => {}
                }
            }
        }
        None
    }
    /// The shortest cycle through `cycle[0]` among the events of `cycle`, a cycle of
    /// `self` found by a depth-first search, which may wind through more of them than a
    /// chord needs (`a → b → c → d → a` when `a → c` too): a breadth-first search on
    /// the rows of those events only, so an explanation shows the short cycle. Runs only
    /// when a check fails, on as many events as the cycle has.
    fn shortest_through(&self, cycle: Vec<usize>) -> Vec<usize> {
        let k = cycle.len();
        if k <= 1 {
            return cycle;
        }
        let within = |e: usize| cycle.iter().position(|&c| c == e);
        // Breadth first from cycle[0], by position in `cycle`.
        let mut parent = vec![usize::MAX; k];
        let mut seen = vec![false; k];
        seen[0] = true;
        let mut queue = std::collections::VecDeque::from([0usize]);
        while let Some(i) = queue.pop_front() {
            if self.contains(cycle[i], cycle[0]) {
                let mut path = vec![cycle[i]];
                let mut j = i;
                while j != 0 {
                    j = parent[j];
                    path.push(cycle[j]);
                }
                path.reverse();
                return path;
            }
            for e in self.succs(cycle[i]) {
                if let Some(j) = within(e).filter(|&j| !seen[j]) {
                    seen[j] = true;
                    parent[j] = i;
                    queue.push_back(j);
                }
            }
        }
        cycle
    }

    /// [`Rel::find_cycle`] for at most 64 events: the same search on arrays of the stack
    /// (a model runs several checks per candidate; none allocates unless it fails).
    fn find_cycle_small(&self) -> Option<Vec<usize>> {
        let n = self.n;
        let mut done = 0u64;
        let mut on_path = 0u64;
        let mut parent = [0u8; 64];
        // The stack: each event on the path, with the successors it has still to visit.
        let mut stack = [(0u8, 0u64); 64];
        for root in 0..n {
            if (done | on_path) >> root & 1 == 1 || self.m[root] == 0 {
                continue;
            }
            on_path |= 1 << root;
            stack[0] = (root as u8, self.m[root]);
            let mut depth = 1;
            while depth > 0 {
                let (v, bits) = stack[depth - 1];
                // Successors already explored are skipped all at once.
                let bits = bits & !done;
                if bits == 0 {
                    on_path &= !(1 << v);
                    done |= 1 << v;
                    depth -= 1;
                    continue;
                }
                stack[depth - 1].1 = bits & (bits - 1);
                let w = bits.trailing_zeros() as usize;
                if on_path >> w & 1 == 1 {
                    let mut cyc = vec![v as usize];
                    let mut x = v as usize;
                    while x != w {
                        x = parent[x] as usize;
                        cyc.push(x);
                    }
                    cyc.reverse();
                    return Some(cyc);
                }
                on_path |= 1 << w;
                parent[w] = v;
                stack[depth] = (w as u8, self.m[w]);
                depth += 1;
            }
        }
        None
    }

    /// All topological sorts of `s` compatible with `self` (herd's `linearisations`),
    /// each returned as a strict total order over `s`.
    pub fn linearisations(&self, s: &Set) -> Vec<Rel> {
        let elems: Vec<usize> = s.iter().collect();
        let mut out = Vec::new();
        if elems.len() > 64 {
            let mut order = Vec::with_capacity(elems.len());
            let mut used = vec![false; elems.len()];
            self.lin_rec(&elems, &mut used, &mut order, &mut out);
            return out;
        }
        // Predecessors of each element, as a mask over `elems`.
        let preds: Vec<u64> = elems
            .iter()
            .map(|&e| {
                elems
                    .iter()
                    .enumerate()
                    .filter(|&(j, &d)| d != e && self.contains(d, e) && j < 64)
                    .fold(0u64, |m, (j, _)| m | 1 << j)
            })
            .collect();
        let mut order = Vec::with_capacity(elems.len());
        self.lin_mask(&elems, &preds, 0, &mut order, &mut out);
        out
    }
    /// How many linearisations of `s` are compatible with `self`, counted up to `cap`: the
    /// count, or `cap + 1` when there are more (or over 64 elements, too many to count).
    /// Counted over the sets of elements placed first, each counted once.
    pub fn count_linearisations(&self, s: &Set, cap: u64) -> u64 {
        let elems: Vec<usize> = s.iter().collect();
        if elems.len() > 64 {
            return cap.saturating_add(1);
        }
        let preds: Vec<u64> = elems
            .iter()
            .map(|&e| {
                (0..elems.len())
                    .filter(|&j| elems[j] != e && self.contains(elems[j], e))
                    .fold(0u64, |m, j| m | 1 << j)
            })
            .collect();
        let all = if elems.len() == 64 {
            u64::MAX
        } else {
            (1u64 << elems.len()) - 1
        };
        fn count(
            placed: u64,
            all: u64,
            preds: &[u64],
            cap: u64,
            memo: &mut rustc_hash::FxHashMap<u64, u64>,
        ) -> u64 {
            if placed == all {
                return 1;
            }
            if let Some(&n) = memo.get(&placed) {
                return n;
            }
            let mut n = 0u64;
            for (j, &p) in preds.iter().enumerate() {
                if placed & (1 << j) == 0 && p & !placed == 0 {
                    n = n.saturating_add(count(placed | 1 << j, all, preds, cap, memo));
                    if n > cap {
                        break;
                    }
                }
            }
            let n = n.min(cap.saturating_add(1));
            memo.insert(placed, n);
            n
        }
        count(0, all, &preds, cap, &mut Default::default())
    }

    /// The linearisations of `s` compatible with `self`, built one element at a time and
    /// skipping every order that extends a prefix `keep` rejects.
    ///
    /// `keep` sees the least order of each prefix (below every order still reachable),
    /// with how many elements are left to place below it: `self` on `s`, the placed
    /// elements in order, and each placed element before every unplaced one. Every
    /// linearisation below that prefix contains it, so when a monotone check already fails
    /// on that least order the whole subtree can go. A placement that adds nothing to it
    /// (`self` already put the element before every unplaced one) is not offered again.
    /// With `full`, the full orders are offered too (the least order once one element is
    /// left is the full order); without, they are not, for a caller that judges each order
    /// it gets in full anyway.
    pub fn linearisations_pruned(
        &self,
        s: &Set,
        full: bool,
        mut keep: impl FnMut(&Rel, usize) -> bool,
    ) -> Vec<Rel> {
        let elems: Vec<usize> = s.iter().collect();
        if elems.len() > 64 {
            let mut all = self.linearisations(s);
            if full {
                all.retain(|r| keep(r, 1));
            }
            return all;
        }
        let mut base = self.restrict_domain(s).restrict_range(s);
        for &e in &elems {
            base.remove(e, e);
        }
        let mut out = Vec::new();
        // No order at all: nothing to test.
        if !base.is_acyclic() || !keep(&base, elems.len()) {
            return out;
        }
        let preds: Vec<u64> = elems
            .iter()
            .map(|&e| {
                (0..elems.len())
                    .filter(|&j| base.contains(elems[j], e))
                    .fold(0u64, |m, j| m | 1 << j)
            })
            .collect();
        let mut walk = Walk {
            elems: &elems,
            preds: &preds,
            base: &base,
            least: base.clone(),
            unplaced: s.clone(),
            out: &mut out,
            full,
        };
        walk.go(0, &mut keep);
        out
    }

    fn lin_mask(
        &self,
        elems: &[usize],
        preds: &[u64],
        used: u64,
        order: &mut Vec<usize>,
        out: &mut Vec<Rel>,
    ) {
        if order.len() == elems.len() {
            let mut r = Rel::empty(self.n);
            let mut after = Set::empty(self.n);
            for &a in order.iter().rev() {
                r.row_mut(a).copy_from_slice(&after.w);
                after.insert(a);
            }
            out.push(r);
            return;
        }
        for k in 0..elems.len() {
            if used >> k & 1 == 0 && preds[k] & !used == 0 {
                order.push(elems[k]);
                self.lin_mask(elems, preds, used | 1 << k, order, out);
                order.pop();
            }
        }
    }
    fn lin_rec(
        &self,
        elems: &[usize],
        used: &mut [bool],
        order: &mut Vec<usize>,
        out: &mut Vec<Rel>,
    ) {
        if order.len() == elems.len() {
            let mut r = Rel::empty(self.n);
            for (i, &a) in order.iter().enumerate() {
                for &b in &order[i + 1..] {
                    r.insert(a, b);
                }
            }
            out.push(r);
            return;
        }
        for k in 0..elems.len() {
            if used[k] {
                continue;
            }
            let e = elems[k];
            // e may come next only if no unused element must precede it.
            let blocked =
                (0..elems.len()).any(|j| !used[j] && j != k && self.contains(elems[j], e));
            if blocked {
                continue;
            }
            used[k] = true;
            order.push(e);
            self.lin_rec(elems, used, order, out);
            order.pop();
            used[k] = false;
        }
    }
}

/// The depth-first search of [`Rel::linearisations_pruned`].
struct Walk<'a> {
    elems: &'a [usize],
    preds: &'a [u64],
    base: &'a Rel,
    /// The least order extending the current prefix.
    least: Rel,
    unplaced: Set,
    out: &'a mut Vec<Rel>,
    /// Whether full orders are offered to `keep`.
    full: bool,
}

impl Walk<'_> {
    /// Whether the elements left after `used` can be placed in one order only (then the
    /// least order already is the full order).
    fn one_way(&self, mut used: u64) -> bool {
        let all = u64::MAX >> (64 - self.elems.len());
        while used != all {
            let free = (0..self.elems.len())
                .filter(|&k| used >> k & 1 == 0 && self.preds[k] & !used == 0)
                .fold(0u64, |m, k| m | 1 << k);
            if free.count_ones() != 1 {
                return false;
            }
            used |= free;
        }
        true
    }

    /// Extends the prefix of placed elements `used` (a mask over `elems`) in every way.
    fn go(&mut self, used: u64, keep: &mut impl FnMut(&Rel, usize) -> bool) {
        let m = self.elems.len();
        let placed = used.count_ones() as usize;
        if placed == m {
            self.out.push(self.least.clone());
            return;
        }
        for k in 0..m {
            if used >> k & 1 != 0 || self.preds[k] & !used != 0 {
                continue;
            }
            let e = self.elems[k];
            self.unplaced.remove(e);
            // Placing the last element changes nothing (with one left, the least order was
            // already the full order), nor does placing one that the base already put
            // before every unplaced element: the least order is the one that passed before.
            let same = self.least.row(e) == self.unplaced.w.as_slice();
            self.least.row_mut(e).copy_from_slice(&self.unplaced.w);
            let offer = !same && placed + 1 < m && (self.full || !self.one_way(used | 1 << k));
            if !offer || keep(&self.least, m - placed - 1) {
                self.go(used | 1 << k, keep);
            }
            self.least.row_mut(e).copy_from_slice(self.base.row(e));
            self.unplaced.insert(e);
        }
    }
}

impl fmt::Debug for Rel {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_set().entries(self.pairs()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Warshall, the definition the component-wise closure must agree with.
    fn warshall(r: &Rel) -> Rel {
        let mut c = r.clone();
        for k in 0..r.n {
            for i in 0..r.n {
                if c.contains(i, k) {
                    for j in 0..r.n {
                        if c.contains(k, j) {
                            c.insert(i, j);
                        }
                    }
                }
            }
        }
        c
    }

    /// A test without events (AArch64 `STABLE`) has relations over nothing.
    #[test]
    fn relations_over_no_events() {
        let r = Rel::empty(0);
        assert!(r.compose(&r).is_empty());
        assert!(r.transitive_closure().is_empty());
        assert!(r.closure_by_components().is_empty());
        assert!(r.find_cycle().is_none());
    }

    #[test]
    fn closure_and_composition_match_their_definitions() {
        // A small xorshift generator: varied densities, cycles, self-loops, sizes across
        // word boundaries.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..600 {
            let n = [1, 2, 5, 31, 63, 64, 65, 100, 128, 130, 200][case % 11];
            let edges = (rnd() as usize) % (3 * n + 1);
            let r = Rel::from_pairs(
                n,
                (0..edges).map(|_| ((rnd() as usize) % n, (rnd() as usize) % n)),
            );
            let want = warshall(&r);
            assert!(r.closure_by_components() == want, "case {case}, n {n}");
            assert!(r.transitive_closure() == want, "case {case}, n {n}");
            // Composition, one word per row, two, or more, against its definition.
            let o = Rel::from_pairs(
                n,
                (0..edges).map(|_| ((rnd() as usize) % n, (rnd() as usize) % n)),
            );
            let pairs = (0..n).flat_map(|i| (0..n).map(move |j| (i, j)));
            let naive = Rel::from_pairs(
                n,
                pairs.filter(|&(i, j)| (0..n).any(|k| r.contains(i, k) && o.contains(k, j))),
            );
            assert!(r.compose(&o) == naive, "case {case}, n {n}");
            // A cycle exactly when the closure is reflexive; over at most 64 events, the
            // same cycle as the search over wider rows finds for the same edges.
            let cyc = r.find_cycle();
            assert_eq!(cyc.is_some(), !want.is_irreflexive(), "case {case}, n {n}");
            if let Some(c) = &cyc {
                for k in 0..c.len() {
                    assert!(r.contains(c[k], c[(k + 1) % c.len()]), "case {case}");
                }
                // No edge back to its first event cuts it short.
                for &e in &c[..c.len() - 1] {
                    assert!(!r.contains(e, c[0]) || c.len() == 1, "case {case}");
                }
            }
            if n <= 64 {
                let wide = Rel::from_pairs(n + 64, r.pairs());
                assert_eq!(wide.find_cycle(), cyc, "case {case}, n {n}");
            }
        }
    }

    #[test]
    fn a_cycle_is_cut_short_by_an_edge_between_its_events() {
        // The search walks 0 → 1 → 2 → 3 → 4 → 0; 1 → 4 cuts it to 0 → 1 → 4 → 0.
        let r = Rel::from_pairs(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (1, 4)]);
        assert_eq!(r.any_cycle().map(|c| c.len()), Some(5));
        assert_eq!(r.find_cycle(), Some(vec![0, 1, 4]));
        let wide = Rel::from_pairs(70, r.pairs());
        assert_eq!(wide.find_cycle(), Some(vec![0, 1, 4]));
        assert!(!r.is_acyclic());
    }

    #[test]
    fn closure_and_cycles() {
        let r = Rel::from_pairs(70, [(0, 1), (1, 65), (65, 2)]);
        let c = r.transitive_closure();
        assert!(c.contains(0, 2) && c.contains(1, 2) && !c.contains(2, 0));
        assert!(r.is_acyclic());
        let mut r2 = r.clone();
        r2.insert(2, 0);
        let cyc = r2.find_cycle().unwrap();
        assert_eq!(cyc.len(), 4);
        assert!(!r2.transitive_closure().is_irreflexive());
    }

    #[test]
    fn compose_inverse_domain() {
        let a = Rel::from_pairs(4, [(0, 1), (2, 3)]);
        let b = Rel::from_pairs(4, [(1, 2), (3, 0)]);
        assert_eq!(a.compose(&b), Rel::from_pairs(4, [(0, 2), (2, 0)]));
        assert_eq!(a.inverse(), Rel::from_pairs(4, [(1, 0), (3, 2)]));
        assert_eq!(a.domain(), Set::from_iter(4, [0, 2]));
        assert_eq!(b.range(), Set::from_iter(4, [2, 0]));
    }

    /// The one-word-per-row paths (n <= 64) agree with the general ones (n > 64).
    #[test]
    fn one_word_rows_agree_with_wide_rows() {
        let pairs: Vec<(usize, usize)> = (0..40).map(|k| (k * 7 % 10, k * 3 % 10)).collect();
        let (a, b) = (
            Rel::from_pairs(10, pairs.clone()),
            Rel::from_pairs(10, [(1, 4), (4, 9)]),
        );
        let (wa, wb) = (
            Rel::from_pairs(70, pairs),
            Rel::from_pairs(70, [(1, 4), (4, 9)]),
        );
        let small = |r: &Rel| {
            r.pairs()
                .filter(|&(x, y)| x < 10 && y < 10)
                .collect::<Vec<_>>()
        };
        assert_eq!(small(&a.compose(&b)), small(&wa.compose(&wb)));
        assert_eq!(
            small(&a.transitive_closure()),
            small(&wa.transitive_closure())
        );
        assert_eq!(small(&a.inverse()), small(&wa.inverse()));
        assert_eq!(small(&a.complement()), small(&wa.complement()));
        assert_eq!(a.complement().len(), 100 - a.len());
        assert_eq!(Set::full(10).len(), 10);
        assert_eq!(Set::full(64).len(), 64);
        assert_eq!(Set::from_iter(10, [2, 5]).complement().len(), 8);
    }

    /// Small relations from a fixed pseudo-random sequence.
    fn rels(n: usize, count: usize, density: u64) -> Vec<Rel> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..count)
            .map(|_| {
                let mut r = Rel::empty(n);
                for a in 0..n {
                    for b in 0..n {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        if a != b && x % 100 < density {
                            r.insert(a, b);
                        }
                    }
                }
                r
            })
            .collect()
    }

    fn sorted(mut v: Vec<Rel>) -> Vec<Vec<(usize, usize)>> {
        let mut out: Vec<_> = v.drain(..).map(|r| r.pairs().collect::<Vec<_>>()).collect();
        out.sort();
        out
    }

    #[test]
    fn pruned_linearisations_without_pruning_are_all_of_them() {
        let s = Set::from_iter(8, [0, 2, 3, 5, 6, 7]);
        let mut many = false;
        for base in rels(8, 20, 8) {
            let all = base.linearisations(&s);
            let mut offered = Vec::new();
            let pruned = base.linearisations_pruned(&s, true, |r, _| {
                offered.push(r.clone());
                true
            });
            assert_eq!(sorted(pruned), sorted(all.clone()));
            // With `full`, every full order is offered (with one element left the least order
            // is the order), unless the base already is one (then there is no choice).
            if all.len() > 1 {
                assert!(all.iter().all(|l| offered.contains(l)));
            }
            // Without, none is, and the orders are the same.
            let mut partial = Vec::new();
            let pruned = base.linearisations_pruned(&s, false, |r, _| {
                partial.push(r.clone());
                true
            });
            assert_eq!(sorted(pruned), sorted(all.clone()));
            assert!(partial.iter().all(|b| !all.contains(b)));
            // No least order is offered twice in a row: a placement that adds nothing is skipped.
            assert!(offered.windows(2).all(|w| w[0] != w[1]));
            many |= all.len() > 10;
        }
        assert!(many);
    }

    #[test]
    fn linearisations_are_counted_up_to_the_cap() {
        let s = Set::from_iter(8, [0, 2, 3, 5, 6, 7]);
        let (mut over, mut under) = (false, false);
        for base in rels(8, 20, 8) {
            let n = base.linearisations(&s).len() as u64;
            assert_eq!(base.count_linearisations(&s, 1000), n);
            assert_eq!(base.count_linearisations(&s, 10), n.min(11));
            over |= n > 10;
            under |= n <= 10;
        }
        assert!(over && under);
        // Ten unordered elements: 10! orders, counted without building them.
        let ten = Set::from_iter(10, 0..10);
        assert_eq!(
            Rel::empty(10).count_linearisations(&ten, 10_000_000),
            3_628_800
        );
    }

    /// Keeping the orders whose union with `extra` is acyclic (a monotone check, like
    /// SC-per-location): the pruned walk gives exactly the unpruned orders that pass, and
    /// cuts subtrees on the way.
    #[test]
    fn pruned_linearisations_keep_exactly_the_passing_orders() {
        let s = Set::from_iter(9, [0, 1, 2, 4, 5, 7, 8]);
        let bases = rels(9, 12, 4);
        let extras = rels(9, 12, 6);
        let (mut cut_early, mut some_of_many) = (false, false);
        for (base, extra) in bases.iter().zip(&extras) {
            let passes = |r: &Rel| r.union(extra).is_acyclic();
            let all = base.linearisations(&s);
            let expected: Vec<Rel> = all.iter().filter(|r| passes(r)).cloned().collect();
            let mut offered = Vec::new();
            let pruned = base.linearisations_pruned(&s, true, |r, _| {
                offered.push(r.clone());
                passes(r)
            });
            for p in &pruned {
                assert!(all.contains(p), "kept an order that is not a linearisation");
                assert!(passes(p), "kept an order that fails");
            }
            assert_eq!(sorted(pruned), sorted(expected.clone()));
            // Each least order offered lies below some linearisation.
            for b in &offered {
                assert!(all.iter().any(|l| b.is_subset(l)));
            }
            cut_early |= offered.len() < all.len();
            some_of_many |= !expected.is_empty() && expected.len() < all.len();
        }
        assert!(cut_early, "no subtree was ever cut");
        assert!(some_of_many, "no case keeps some orders and drops others");
    }

    #[test]
    fn pruned_linearisations_of_a_cyclic_base_are_none_and_test_nothing() {
        let s = Set::from_iter(4, [0, 1, 2]);
        let base = Rel::from_pairs(4, [(0, 1), (1, 2), (2, 0)]);
        let ls = base.linearisations_pruned(&s, true, |_, _| panic!("nothing to test"));
        assert!(ls.is_empty());
        let one = Set::from_iter(4, [3]);
        assert_eq!(base.linearisations_pruned(&one, true, |_, _| true).len(), 1);
        assert!(
            base.linearisations_pruned(&one, true, |_, _| false)
                .is_empty()
        );
    }

    #[test]
    fn restrictions_work_on_every_size_even_without_events() {
        for n in [0, 1, 63, 64, 65, 130] {
            let all = Rel::cartesian(&Set::full(n), &Set::full(n));
            let evens = Set::from_iter(n, (0..n).step_by(2));
            let r = all.restrict_range(&evens);
            assert_eq!(r.len(), n * n.div_ceil(2));
            assert!((0..n).all(|a| (0..n).all(|b| r.contains(a, b) == (b % 2 == 0))));
            assert_eq!(all.restrict_domain(&evens).len(), n.div_ceil(2) * n);
        }
    }

    #[test]
    fn linearisations_respect_order() {
        let s = Set::from_iter(4, [0, 1, 2]);
        let po = Rel::from_pairs(4, [(0, 1)]);
        let ls = po.linearisations(&s);
        assert_eq!(ls.len(), 3);
        assert!(ls.iter().all(|l| l.contains(0, 1)));
    }
}
