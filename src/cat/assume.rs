//! What a model lets the growing exploration (`exec::grow`) assume of every consistent
//! execution, read from the model itself: checks it makes in every branch, whatever the
//! candidate, and that the exploration may therefore apply to partial executions.
//!
//! - **SC per location**: a `with` binds a coherence order (herd's `generate_cos` or
//!   `generate_orders`, our `coherence-orders`: per location, a total order of its
//!   writes starting with the initial one), and the instructions after it run an
//!   `acyclic` check whose relation contains `po-loc`, `rf`, that order and
//!   `(rf^-1; co) \ id` (found as [`super::prune`] finds its guard, following `rf^-1`
//!   through names and `[M]; r; [M]` too: the exploration grows no test with implicit
//!   accesses).
//! - **Atomicity**: an `empty` check of `rmw & (fre; coe)` (herd's and the LKMM's own
//!   words), where `fre` and `coe` are those of a coherence-order file of herd's or ours
//!   (`fr` and `co` between threads) and `rmw` is the standard library's, possibly with
//!   more pairs (lock.cat adds its lock events).
//!
//! Anything else, or a `match` on the way, and the assumption is not made: the
//! exploration then checks nothing before the model does.

use super::ast::{Expr, Ins, Op2, Pat, TestKind, TestType};
use super::prune::{ALL, Found, Roots, Scan};
use super::{Model, Sym};

/// The functions whose values are sets of coherence orders.
const GENERATORS: [&str; 3] = ["generate_cos", "generate_orders", "coherence-orders"];

/// Files whose `fre` and `coe` are herd's (`fr` and `co` between threads).
const COHERENCE_FILES: [&str; 6] = [
    "stdlib.cat",
    "cos.cat",
    "cos-no-opt.cat",
    "cos-ok-opt.cat",
    "cos-opt.cat",
    "cross.cat",
];

/// Whether every branch of `m` checks SC per location over a coherence order.
pub fn coherence(m: &Model) -> bool {
    let bodies: Vec<&[Ins]> = m.order.iter().map(|&f| &m.files[f].prog.body[..]).collect();
    find_with(m, &bodies)
}

/// Looks for the coherence `with` in `bodies` (the first runs first), and its guard in
/// what follows it.
fn find_with(m: &Model, bodies: &[&[Ins]]) -> bool {
    let Some((first, rest)) = bodies.split_first() else {
        return false;
    };
    for (i, ins) in first.iter().enumerate() {
        let after: Vec<&[Ins]> = std::iter::once(&first[i + 1..])
            .chain(rest.iter().copied())
            .collect();
        match ins {
            Ins::WithFrom(_, x, e) if generates_orders(m, e) => return guarded(m, *x, &after),
            Ins::Include { file: Some(f), .. } => {
                let inner: Vec<&[Ins]> = std::iter::once(&m.files[*f].prog.body[..])
                    .chain(after)
                    .collect();
                return find_with(m, &inner);
            }
            Ins::IfVariant(_, c, yes, no) => {
                let b = if m.variant_holds(c) { yes } else { no };
                let inner: Vec<&[Ins]> = std::iter::once(&b[..]).chain(after).collect();
                return find_with(m, &inner);
            }
            Ins::Match(..) => return false,
            _ => {}
        }
    }
    find_with(m, rest)
}

/// Whether `e` is a call of a coherence-order generator.
fn generates_orders(m: &Model, e: &Expr) -> bool {
    match e {
        Expr::App(_, f, _) => match &**f {
            Expr::Var(_, s) => GENERATORS.contains(&m.names.name(*s)),
            _ => false,
        },
        _ => false,
    }
}

/// Whether the instructions after `with x from ...` run the SC-per-location check on `x`.
fn guarded(m: &Model, x: Sym, after: &[&[Ins]]) -> bool {
    let (Some(rf), Some(po_loc)) = (m.names.get("rf"), m.names.get("po-loc")) else {
        return false;
    };
    let roots = Roots {
        co: Some(x),
        rf,
        po_loc: Some(po_loc),
        id: m.names.get("id").filter(|&s| !m.binds(s)),
        po_and_loc: None,
        // The exploration grows no test with implicit accesses (instruction fetches,
        // translation-table walks): `M` and `Exp` hold every access.
        accesses: ["M", "Exp"].iter().filter_map(|n| m.names.get(n)).collect(),
        named_inverse: true,
    };
    let mut scan = Scan::new(m, roots, ALL);
    for body in after {
        match scan.scan(body) {
            Found::Guard(_) => return true,
            Found::GiveUp => return false,
            Found::More => {}
        }
    }
    false
}

/// Whether every branch of `m` checks `empty rmw & (fre; coe)` with the standard
/// meanings of the three.
pub fn atomicity(m: &Model) -> bool {
    let standard = |name: &str, ok: &dyn Fn(&str, &Expr) -> bool| -> bool {
        m.names
            .get(name)
            .is_some_and(|s| bindings(m, s).iter().all(|(file, e)| ok(file, e)))
    };
    let library = |file: &str, _: &Expr| COHERENCE_FILES.contains(&file);
    // `rmw` as the standard library has it, or that and more.
    let rmw_ok = |file: &str, e: &Expr| {
        file == "stdlib.cat"
            || matches!(e, Expr::Op(_, Op2::Union, es)
                if es.iter().any(|a| matches!(a, Expr::Var(_, v) if m.names.name(*v) == "rmw")))
    };
    if !(standard("fre", &library) && standard("coe", &library) && standard("rmw", &rmw_ok)) {
        return false;
    }
    let bodies: Vec<&[Ins]> = m.order.iter().map(|&f| &m.files[f].prog.body[..]).collect();
    bodies.iter().any(|b| checks_atomicity(m, b))
}

/// Whether `body` runs, unconditionally, the atomicity check.
fn checks_atomicity(m: &Model, body: &[Ins]) -> bool {
    body.iter().any(|i| match i {
        Ins::Test(t, TestType::Check) => {
            t.kind == TestKind::Empty && !t.negated && is_atomicity(m, &t.expr)
        }
        Ins::Include { file: Some(f), .. } => checks_atomicity(m, &m.files[*f].prog.body),
        Ins::IfVariant(_, c, yes, no) => {
            checks_atomicity(m, if m.variant_holds(c) { yes } else { no })
        }
        _ => false,
    })
}

/// `rmw & (fre; coe)`, either way round.
fn is_atomicity(m: &Model, e: &Expr) -> bool {
    let var = |e: &Expr, n: &str| matches!(e, Expr::Var(_, s) if m.names.name(*s) == n);
    let fre_coe = |e: &Expr| matches!(e, Expr::Op(_, Op2::Seq, es) if es.len() == 2 && var(&es[0], "fre") && var(&es[1], "coe"));
    match e {
        Expr::Op(_, Op2::Inter, es) if es.len() == 2 => {
            (var(&es[0], "rmw") && fre_coe(&es[1])) || (var(&es[1], "rmw") && fre_coe(&es[0]))
        }
        _ => false,
    }
}

/// Every binding of `s` in the model's files: the file's name and the expression.
fn bindings(m: &Model, s: Sym) -> Vec<(&str, &Expr)> {
    let mut out = Vec::new();
    for f in &m.files {
        let name = f.path.rsplit(['/', '\\']).next().unwrap_or(&f.path);
        collect(&f.prog.body, s, name, &mut out);
    }
    out
}

fn collect<'m>(body: &'m [Ins], s: Sym, file: &'m str, out: &mut Vec<(&'m str, &'m Expr)>) {
    for i in body {
        match i {
            Ins::Let(_, bds) | Ins::Rec(_, bds, _) => {
                for b in bds {
                    if matches!(b.pat, Pat::Var(Some(v)) if v == s) {
                        out.push((file, &b.expr));
                    }
                }
            }
            Ins::IfVariant(_, _, yes, no) => {
                collect(yes, s, file, out);
                collect(no, s, file, out);
            }
            _ => {}
        }
    }
}

/// What orders every branch of a model keeps acyclic, as far as the exploration needs
/// to know (see `exec::grow`: a partial execution where every thread waits on values
/// only a cycle through these can give has no consistent extension).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Orders {
    /// Cycles of `po` from reads and `rfe` (x86-TSO's: a read is ordered before
    /// everything after it).
    pub po_from_reads: bool,
    /// Cycles of `ctrl` and `data` to writes and `rfe` (no thin air).
    pub dependencies: bool,
}

/// The [`Orders`] of `m`, read from its checks: an `acyclic` check, or an `irreflexive`
/// check of a transitive relation, whose relation contains those edges.
pub fn orders(m: &Model) -> Orders {
    let mut a = Atoms {
        m,
        env: rustc_hash::FxHashMap::default(),
        found: 0,
    };
    for &f in &m.order {
        if !a.run(&m.files[f].prog.body) {
            break;
        }
    }
    Orders {
        po_from_reads: a.found & (PO_RM | RFE) == PO_RM | RFE,
        dependencies: a.found & (CTRL_RW | DATA_RW | RFE) == CTRL_RW | DATA_RW | RFE,
    }
}

// What a relation is known to contain (an abstract value of the model's expressions).
const RF: u16 = 1;
const RFE: u16 = 2;
const PO: u16 = 4;
/// `po` from reads to every access.
const PO_RM: u16 = 8;
const CTRL: u16 = 16;
/// `ctrl` from reads to writes.
const CTRL_RW: u16 = 32;
/// `data` (from reads to writes).
const DATA_RW: u16 = 64;
/// The identity on every access.
const ID_M: u16 = 128;
/// The primitive `ext`.
const EXT: u16 = 256;
/// A product `S1 * S2` with every read in `S1` and every access in `S2`, and one with
/// every read in `S1` and every write in `S2`.
const CART_RM: u16 = 512;
const CART_RW: u16 = 1024;
// Sets: holding every read, every write (every access: both).
const ALL_R: u16 = 2048;
const ALL_W: u16 = 4096;

/// The atoms of what each name is bound to, and those of the checks found.
struct Atoms<'m> {
    m: &'m Model,
    env: rustc_hash::FxHashMap<Sym, u16>,
    /// The atoms of a relation some check keeps acyclic.
    found: u16,
}

impl Atoms<'_> {
    /// Reads `body`; false at what the analysis does not follow (a `match`).
    fn run(&mut self, body: &[Ins]) -> bool {
        let m = self.m;
        for i in body {
            match i {
                Ins::Let(_, bds) => {
                    let vs: Vec<u16> = bds.iter().map(|b| self.eval(&b.expr)).collect();
                    for (b, v) in bds.iter().zip(vs) {
                        self.bind(&b.pat, v);
                    }
                }
                Ins::Rec(_, bds, _) => self.fixpoint(bds),
                Ins::Procedure(_, y, ..) | Ins::Enum(_, y, _) | Ins::WithFrom(_, y, _) => {
                    self.env.insert(*y, 0);
                }
                Ins::Test(t, TestType::Check) if !t.negated => {
                    let v = match t.kind {
                        TestKind::Acyclic => self.eval(&t.expr),
                        TestKind::Irreflexive if self.transitive(&t.expr) => self.eval(&t.expr),
                        _ => 0,
                    };
                    self.found |= v;
                }
                Ins::Include { file: Some(f), .. } if !self.run(&m.files[*f].prog.body) => {
                    return false;
                }
                Ins::IfVariant(_, c, yes, no)
                    if !self.run(if m.variant_holds(c) { yes } else { no }) =>
                {
                    return false;
                }
                Ins::Match(..) | Ins::Include { file: None, .. } => return false,
                _ => {}
            }
        }
        true
    }

    fn bind(&mut self, p: &Pat, v: u16) {
        for y in p.vars().into_iter().flatten() {
            self.env.insert(y, v);
        }
    }

    /// A `let rec`: from nothing, each binding again until none grows (every rule is
    /// monotone).
    fn fixpoint(&mut self, bds: &[super::ast::Binding]) {
        for b in bds {
            self.bind(&b.pat, 0);
        }
        loop {
            let mut grew = false;
            for b in bds {
                let v = self.eval(&b.expr);
                for y in b.pat.vars().into_iter().flatten() {
                    let old = self.env.get(&y).copied().unwrap_or(0);
                    if old | v != old {
                        self.env.insert(y, old | v);
                        grew = true;
                    }
                }
            }
            if !grew {
                return;
            }
        }
    }

    /// Whether `e` is transitive: `r+`, or a name bound by a `let rec` one of whose
    /// alternatives is `r; r`.
    fn transitive(&self, e: &Expr) -> bool {
        match e {
            Expr::Op1(_, super::ast::Op1::Plus, _) => true,
            Expr::Var(_, x) => self.rec_with_square(*x),
            _ => false,
        }
    }

    fn rec_with_square(&self, x: Sym) -> bool {
        let is_x = |e: &Expr| matches!(e, Expr::Var(_, y) if *y == x);
        bindings(self.m, x).iter().any(|(_, e)| match e {
            Expr::Op(_, Op2::Union, es) => es.iter().any(|a| {
                matches!(a, Expr::Op(_, Op2::Seq, fs) if fs.len() == 2 && is_x(&fs[0]) && is_x(&fs[1]))
            }),
            _ => false,
        })
    }

    /// The atoms `e` contains.
    fn eval(&self, e: &Expr) -> u16 {
        use super::ast::Op1;
        let m = self.m;
        match e {
            // Top-level bindings are in `env`; a name only a function's parameter
            // binds is, outside that function, herd's primitive.
            Expr::Var(_, x) => match self.env.get(x) {
                Some(&v) => v,
                None => primitive(m.names.name(*x)),
            },
            Expr::Op(_, Op2::Union, es) => es.iter().fold(0, |v, a| v | self.eval(a)),
            Expr::Op(_, Op2::Inter, es) => {
                let vs: Vec<u16> = es.iter().map(|a| self.eval(a)).collect();
                let mut v = vs.iter().fold(u16::MAX, |v, a| v & a);
                if let [a, b] = vs[..] {
                    v |= meet(a, b) | meet(b, a);
                }
                v
            }
            Expr::Op(_, Op2::Cartesian, es) if es.len() == 2 => {
                let (a, b) = (self.eval(&es[0]), self.eval(&es[1]));
                let mut v = 0;
                if a & ALL_R != 0 && b & ALL_R != 0 && b & ALL_W != 0 {
                    v |= CART_RM | CART_RW;
                } else if a & ALL_R != 0 && b & ALL_W != 0 {
                    v |= CART_RW;
                }
                v
            }
            Expr::Op(_, Op2::Seq, es) => self.seq(es),
            Expr::Op1(_, Op1::Plus | Op1::Star | Op1::Opt, a) => self.eval(a) & !(ALL_R | ALL_W),
            // `[S]` with every access in `S` is the identity on them.
            Expr::Op1(_, Op1::ToId, a) => {
                let s = self.eval(a);
                if s & ALL_R != 0 && s & ALL_W != 0 {
                    ID_M
                } else {
                    0
                }
            }
            Expr::Try(_, a, b) => self.eval(a) & self.eval(b),
            _ => 0,
        }
    }

    /// `r1; r2; ...`: an identity on every access changes nothing, and a dependency
    /// ended by the writes is one to writes.
    fn seq(&self, es: &[Expr]) -> u16 {
        let vs: Vec<u16> = es
            .iter()
            .map(|a| self.eval(a))
            .filter(|&v| v & ID_M == 0 || v & !ID_M != 0)
            .collect();
        let writes = |e: &Expr| match e {
            Expr::Op1(_, super::ast::Op1::ToId, s) => self.eval(s) & ALL_W != 0,
            _ => false,
        };
        match (&vs[..], es) {
            ([v], _) => *v,
            ([a, _], [_, last]) if writes(last) => {
                let mut v = 0;
                if a & CTRL != 0 {
                    v |= CTRL_RW;
                }
                v | (a & (CTRL_RW | DATA_RW))
            }
            _ => 0,
        }
    }
}

/// What the intersection of a relation with atoms `a` and one with atoms `b` contains
/// beyond the atoms both contain.
fn meet(a: u16, b: u16) -> u16 {
    let mut v = 0;
    if a & (RF | RFE) != 0 && b & EXT != 0 {
        v |= RFE;
    }
    if a & (PO | PO_RM) != 0 && b & CART_RM != 0 {
        v |= PO_RM;
    }
    // `R * M` holds `R * W`.
    if a & (CTRL | CTRL_RW) != 0 && b & (CART_RW | CART_RM) != 0 {
        v |= CTRL_RW;
    }
    if a & DATA_RW != 0 && b & (CART_RW | CART_RM) != 0 {
        v |= DATA_RW;
    }
    v
}

/// The atoms of herd's primitives.
fn primitive(name: &str) -> u16 {
    match name {
        "rf" => RF,
        "po" => PO,
        "ctrl" => CTRL,
        "data" => DATA_RW,
        "ext" => EXT,
        "si" | "sm" => ID_M,
        "R" => ALL_R,
        "W" => ALL_W,
        // `Exp`: every access of a test without implicit ones (see [`coherence`]).
        "M" | "Exp" | "_" => ALL_R | ALL_W,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Model, ModelOptions};
    use super::Orders;

    fn shipped(name: &str) -> Model {
        let opts = ModelOptions {
            cat: name.to_string(),
            ..ModelOptions::default()
        };
        Model::load(&opts).unwrap_or_else(|e| panic!("{name}: {e:?}"))
    }

    /// Each shipped model, what the exploration may assume of it.
    #[test]
    fn shipped_models() {
        let cases = [
            // lkmm-lock.cat binds its own `rf`, `fre` and `coe` (lock reads), and `hb`
            // orders marked accesses only.
            ("lkmm", (true, false), Orders::default()),
            (
                "x86tso",
                (true, true),
                Orders {
                    po_from_reads: true,
                    dependencies: false,
                },
            ),
            (
                "armv8",
                (true, true),
                Orders {
                    po_from_reads: false,
                    dependencies: true,
                },
            ),
            (
                "power",
                (true, true),
                Orders {
                    po_from_reads: false,
                    dependencies: true,
                },
            ),
        ];
        for (name, assumes, orders) in cases {
            let m = shipped(name);
            assert_eq!((m.assumes(), m.orders()), (assumes, orders), "{name}");
        }
    }
}
