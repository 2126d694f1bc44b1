//! herd's native functions (`domain`, `linearisations`, `classes-loc`, ...) and the names
//! of the event sets and relations herd always defines.
//!
//! Part of the language layer: it reads a candidate's [`Primitives`] and knows neither
//! evaluator, so the reference and the fast interpreter give built-ins one meaning.

use super::ast::Sym;
use super::value::{Stage, Value, valset};
use super::{EventInfo, Model, Primitives};
use crate::rel::{Rel, Set};
use crate::sem::{Kind, Value as Val};
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Domain,
    Range,
    Fromto,
    ClassesLoc,
    Classes,
    Linearisations,
    DifferentValues,
    SameOa,
    AtLeastOneWritable,
    OaChanges,
    Tag2Events,
    Loc2Events,
    Fail,
    AsTransitive,
}

const BUILTINS: &[(&str, Builtin)] = &[
    ("domain", Builtin::Domain),
    ("range", Builtin::Range),
    ("fromto", Builtin::Fromto),
    ("classes-loc", Builtin::ClassesLoc),
    ("classes", Builtin::Classes),
    ("linearisations", Builtin::Linearisations),
    ("different-values", Builtin::DifferentValues),
    ("same-oa", Builtin::SameOa),
    ("at-least-one-writable", Builtin::AtLeastOneWritable),
    ("oa-changes", Builtin::OaChanges),
    ("tag2events", Builtin::Tag2Events),
    ("loc2events", Builtin::Loc2Events),
    ("fail", Builtin::Fail),
    ("as_transitive", Builtin::AsTransitive),
];

impl Builtin {
    pub fn by_name(s: &str) -> Option<Builtin> {
        BUILTINS.iter().find(|(n, _)| *n == s).map(|(_, b)| *b)
    }
    pub fn name(self) -> &'static str {
        BUILTINS
            .iter()
            .find(|(_, b)| *b == self)
            .map_or("?", |(n, _)| n)
    }
}

/// Event sets herd defines for every test of some architecture: when the engine did not
/// provide one, no event of this candidate is in it.
const PREDEFINED_SETS: &[&str] = &[
    "M",
    "R",
    "W",
    "F",
    "B",
    "IW",
    "FW",
    "Exp",
    "NExp",
    "SPEC",
    "EXEC",
    "SPURIOUS",
    "BCC",
    "PRED",
    "Rreg",
    "Wreg",
    "ADDR",
    "DATA",
    "X",
    "EX",
    "A",
    "L",
    "Q",
    "NoRet",
    "S",
    "NT",
    "MFENCE",
    "SFENCE",
    "LFENCE",
    "SYNC",
    "ISYNC",
    "LWSYNC",
    "EIEIO",
    "RMW",
    "LK",
    "LKR",
    "LKW",
    "LS",
    "LF",
    "UL",
    "RL",
    "RU",
    "ACQ",
    "SC",
    "REL",
    "ACQ_REL",
    "RLX",
    "CON",
    "NA",
    "annot",
    "CutOff",
    "FAULT",
    "FAULT-RD",
    "FAULT-WR",
    "AF",
    "DB",
    "ISB",
    "PTE",
    "T",
    "TTD",
    "Instr",
    "Imp",
    "Tag",
    "HU",
    "TLBI",
    "DC",
    "IC",
    "SRCU",
    "NDATA",
    "AMO",
    "PoD",
    // herd's AArch64 fault types (its FaultType.AArch64), empty without such faults.
    "MMU",
    "TagCheck",
    "Translation",
    "AccessFlag",
    "Permission",
    "UndefinedInstruction",
    "SupervisorCall",
];

/// Sets of herd's architecture descriptions that official models name (AArch64's TLBI
/// and cache-maintenance kinds, memory attributes, ...): empty when no event has the tag.
const ARCH_SETS: &[&str] = &[
    "TLBInXS",
    "TLBIIS",
    "EXC-ENTRY",
    "EXC-RET",
    "SVC",
    "TagCheck",
    "Restricted-CMODX",
    "PTEV",
    "PTEINV",
    "PTEAF0",
    "D-PTE",
    "I-PTE",
];

/// Relations herd always defines (see herd's model checker); absent ones are empty.
const PREDEFINED_RELS: &[&str] = &[
    "addr",
    "data",
    "ctrl",
    "rmw",
    "tst",
    "depend",
    "success",
    "control",
    "aligned",
    "iico_data",
    "iico_ctrl",
    "iico_order",
    "rf-reg",
    "same-instr",
    "same-static",
    "same-instance",
    "equiv-spec",
    "pco",
    "partial_po",
    "same-low-order-bits",
    "instr",
    "inv-domain",
    // herd's page-table relations (`kvm`): entries with the same output address, and newer
    // herds' entry-to-physical-location relation.
    "alias",
    "PTEtoPA",
    // herd 7.56's PTX fences, empty for every other architecture.
    "membar.cta",
    "membar.gl",
    "membar.sys",
];

pub fn is_predefined_set(name: &str) -> bool {
    PREDEFINED_SETS.contains(&name)
        || ARCH_SETS.contains(&name)
        || ["DMB.", "DSB.", "DC.", "IC.", "TLBI."]
            .iter()
            .any(|p| name.starts_with(p))
}

pub fn is_predefined_rel(name: &str) -> bool {
    PREDEFINED_RELS.contains(&name)
}

/// herd's name for the set of events bearing bell annotation `tag`: first letter upper-cased.
pub fn tag_set_name(tag: &str) -> String {
    let mut c = tag.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// A value taken as a set of events, for a primitive's argument.
pub fn prim_set<S: Stage>(n: usize, v: &Value<'_, S>) -> Result<Rc<Set>, String> {
    match v {
        Value::Set(s) => Ok(s.clone()),
        Value::Empty => Ok(Rc::new(Set::empty(n))),
        Value::Unv => Ok(Rc::new(Set::full(n))),
        _ => Err("argument mismatch".into()),
    }
}

/// A value taken as a relation, for a primitive's argument.
pub fn prim_rel<S: Stage>(n: usize, v: &Value<'_, S>) -> Result<Rc<Rel>, String> {
    match v {
        Value::Rel(r) => Ok(r.clone()),
        Value::Empty => Ok(Rc::new(Rel::empty(n))),
        Value::Unv => Ok(Rc::new(Rel::cartesian(&Set::full(n), &Set::full(n)))),
        _ => Err("argument mismatch".into()),
    }
}

/// The output address of the page-table entry event `e` reads or writes, if any.
fn oa_of<'p>(p: &'p Primitives, e: usize) -> Option<&'p str> {
    p.events[e].tags.iter().find_map(|t| t.strip_prefix("oa:"))
}

fn pair_args<'m, S: Stage>(v: &Value<'m, S>) -> Result<(Value<'m, S>, Value<'m, S>), String> {
    match v {
        Value::Tuple(t) if t.len() == 2 => Ok((t[0].clone(), t[1].clone())),
        _ => Err("argument mismatch".into()),
    }
}

/// The events of `s` grouped by location (herd's `classes-loc`), in order of first event.
pub fn classes_loc(p: &Primitives, s: &Set) -> Vec<Set> {
    let mut groups: Vec<(Val, Set)> = Vec::new();
    for e in s.iter() {
        let Some(loc) = p.events[e].loc else {
            continue;
        };
        match groups.iter_mut().find(|(l, _)| *l == loc) {
            Some((_, g)) => g.insert(e),
            None => groups.push((loc, Set::from_iter(p.n, [e]))),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// Applies built-in `b` to `arg` on the candidate `p`.
pub fn call<'m, S: Stage>(
    b: Builtin,
    p: &Primitives,
    arg: Value<'m, S>,
) -> Result<Value<'m, S>, String> {
    let n = p.n;
    match b {
        Builtin::Domain | Builtin::Range => match &arg {
            Value::Empty | Value::Unv => Ok(arg),
            Value::Rel(r) => Ok(Value::set(if b == Builtin::Domain {
                r.domain()
            } else {
                r.range()
            })),
            _ => Err("argument mismatch".into()),
        },
        Builtin::Fromto => {
            let fs = prim_set(n, &arg)?;
            let po = p.rels.get("po").cloned().unwrap_or_else(|| Rel::empty(n));
            let fences = p.sets.get("F");
            let mut r = Rel::empty(n);
            for f in fs.iter().filter(|&f| fences.is_none_or(|s| s.contains(f))) {
                let before = Set::from_iter(n, (0..n).filter(|&e| po.contains(e, f)));
                let after = Set::from_iter(n, po.succs(f));
                r.union_with(&Rel::cartesian(&before, &after));
            }
            Ok(Value::rel(r))
        }
        Builtin::ClassesLoc => {
            let s = prim_set(n, &arg)?;
            Ok(valset(
                classes_loc(p, &s).into_iter().map(Value::set).collect(),
            ))
        }
        Builtin::Classes => {
            let r = prim_rel(n, &arg)?;
            let mut classes = Vec::new();
            for e in r.domain().iter() {
                let mut c = Set::from_iter(n, r.succs(e));
                c.insert(e);
                classes.push(Value::set(c));
            }
            Ok(valset(classes))
        }
        Builtin::Linearisations => {
            let (s, r) = pair_args(&arg)?;
            let s = prim_set(n, &s)?;
            let r = prim_rel(n, &r)?;
            Ok(valset(
                lin_base(&r, &s)
                    .linearisations(&s)
                    .into_iter()
                    .map(Value::rel)
                    .collect(),
            ))
        }
        Builtin::DifferentValues => {
            let r = prim_rel(n, &arg)?;
            let ev = p.events;
            let differ = |a: usize, b: usize| !matches!((ev[a].val, ev[b].val), (Some(x), Some(y)) if x == y);
            Ok(Value::rel(Rel::from_pairs(
                n,
                r.pairs().filter(|&(a, b)| differ(a, b)),
            )))
        }
        // herd's page-table-entry functions (lib/interpreter.ml), on the entry each event
        // reads or writes, which the semantics give as tags (`sem::vmsa::entry_tags`):
        // `oa:X` its output address, `PTEW` when it is writable.
        Builtin::SameOa => {
            let r = prim_rel(n, &arg)?;
            let same = |a: usize, b: usize| matches!((oa_of(p, a), oa_of(p, b)), (Some(x), Some(y)) if x == y);
            Ok(Value::rel(Rel::from_pairs(
                n,
                r.pairs().filter(|&(a, b)| same(a, b)),
            )))
        }
        Builtin::AtLeastOneWritable | Builtin::OaChanges => {
            let writable = |e: usize| p.events[e].tags.iter().any(|t| t == "PTEW");
            let pred = |w: usize, q: usize| match b {
                Builtin::OaChanges => oa_of(p, w) != oa_of(p, q) || oa_of(p, w).is_none(),
                _ => writable(w) || writable(q),
            };
            match (&arg, b) {
                // herd 7.58: `f(S, r)`, the writes to entries in S with exactly one
                // r-successor, which they satisfy `pred` with.
                (Value::Tuple(_), _) => {
                    let (s, r) = pair_args(&arg)?;
                    let (s, r) = (prim_set(n, &s)?, prim_rel(n, &r)?);
                    let is_pt_store = |w: usize| {
                        p.events[w].kind == Kind::Write
                            && p.events[w].tags.iter().any(|t| t == "PTE")
                    };
                    let keep = s.iter().filter(|&w| {
                        let mut succs = r.succs(w);
                        is_pt_store(w)
                            && matches!((succs.next(), succs.next()), (Some(q), None) if pred(w, q))
                    });
                    Ok(Value::set(Set::from_iter(n, keep)))
                }
                // Newer herds: `at-least-one-writable(r)`, the pairs of r one of which is.
                (_, Builtin::AtLeastOneWritable) => {
                    let r = prim_rel(n, &arg)?;
                    Ok(Value::rel(Rel::from_pairs(
                        n,
                        r.pairs().filter(|&(a, b)| pred(a, b)),
                    )))
                }
                _ => Err("argument mismatch".into()),
            }
        }
        Builtin::Tag2Events => match arg {
            Value::Tag(tag) => {
                let t = tag.name.as_str();
                let set = p
                    .sets
                    .get(t)
                    .or_else(|| p.sets.get(tag_set_name(t).as_str()));
                Ok(Value::set(set.cloned().unwrap_or_else(|| Set::empty(n))))
            }
            _ => Err("argument mismatch".into()),
        },
        Builtin::Loc2Events => match arg {
            Value::Tag(tag) => {
                let id = p.symbols.get(tag.name.as_str());
                let s = Set::from_iter(
                    n,
                    (0..n).filter(|&e| {
                        let ev = &p.events[e];
                        ev.kind != Kind::Fence && id.is_some_and(|id| ev.loc == Some(Val::Addr(id)))
                    }),
                );
                Ok(Value::set(s))
            }
            _ => Err("argument mismatch".into()),
        },
        Builtin::Fail => Err("fail".into()),
        Builtin::AsTransitive => match arg {
            Value::Rel(_) | Value::Empty | Value::Unv => Ok(arg),
            _ => Err("argument mismatch".into()),
        },
    }
}

/// The value of a name the model does not bind: a primitive of the candidate, a
/// built-in, one computable from the events, a bell annotation's set, or one of herd's
/// predefined sets and relations that this candidate happens not to have (empty).
pub fn global<'m, S: Stage>(m: &'m Model, p: &Primitives, x: Sym) -> Option<Value<'m, S>> {
    let name = m.names.name(x);
    let n = p.n;
    Some(if let Some(s) = p.sets.get(name) {
        Value::set(s.clone())
    } else if let Some(r) = p.rels.get(name) {
        Value::rel(r.clone())
    } else if let Some(b) = Builtin::by_name(name) {
        Value::Prim(b)
    } else if let Some(v) = derived(p, name) {
        v
    } else if let Some(raw) = m.bell_sets.get(&x) {
        Value::set(
            p.sets
                .get(raw.as_str())
                .cloned()
                .unwrap_or_else(|| Set::empty(n)),
        )
    } else if is_predefined_set(name) {
        Value::set(Set::empty(n))
    } else if is_predefined_rel(name) {
        Value::rel(Rel::empty(n))
    } else {
        return None;
    })
}

/// Primitives computable from the events alone, for engines that leave them out.
fn derived<'m, S: Stage>(p: &Primitives, name: &str) -> Option<Value<'m, S>> {
    let ev = p.events;
    let n = p.n;
    let set = |f: &dyn Fn(&EventInfo) -> bool| {
        Value::set(Set::from_iter(n, (0..n).filter(|&e| f(&ev[e]))))
    };
    let rel = |f: &dyn Fn(&EventInfo, &EventInfo) -> bool| {
        let pairs = (0..n).flat_map(|a| (0..n).map(move |b| (a, b)));
        Value::rel(Rel::from_pairs(
            n,
            pairs.filter(|&(a, b)| f(&ev[a], &ev[b])),
        ))
    };
    let mem = |e: &EventInfo| matches!(e.kind, Kind::Read | Kind::Write);
    Some(match name {
        "id" => Value::rel(Rel::identity(&Set::full(n))),
        "loc" => rel(&|a, b| mem(a) && mem(b) && a.loc.is_some() && a.loc == b.loc),
        "int" => rel(&|a, b| a.proc == b.proc),
        "ext" => rel(&|a, b| a.proc != b.proc),
        "M" => set(&mem),
        "R" => set(&|e| e.kind == Kind::Read),
        "W" => set(&|e| e.kind == Kind::Write),
        "F" => set(&|e| e.kind == Kind::Fence),
        "B" => set(&|e| e.kind == Kind::Branch),
        "IW" => set(&|e| e.kind == Kind::Write && e.proc.is_none()),
        // Without mixed-size accesses, an access is single-copy atomic with itself.
        "sm" | "si" => rel(&|a, b| mem(a) && std::ptr::eq(a, b)),
        _ => return None,
    })
}

/// `r` restricted to `s`: what `linearisations(s, r)` extends.
pub fn lin_base(r: &Rel, s: &Set) -> Rel {
    r.restrict_domain(s).restrict_range(s)
}
