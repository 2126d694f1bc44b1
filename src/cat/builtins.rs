//! herd's native functions (`domain`, `linearisations`, `classes-loc`, ...) and the names
//! of the event sets and relations herd always defines.

use super::eval::Ctx;
use super::value::{Value, valset};
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

impl<'m> Ctx<'m, '_> {
    pub(super) fn prim_set(&self, v: &Value<'m>) -> Result<Rc<Set>, String> {
        match v {
            Value::Set(s) => Ok(s.clone()),
            Value::Empty => Ok(Rc::new(Set::empty(self.n))),
            Value::Unv => Ok(self.full()),
            _ => Err("argument mismatch".into()),
        }
    }
    pub(super) fn prim_rel(&self, v: &Value<'m>) -> Result<Rc<Rel>, String> {
        match v {
            Value::Rel(r) => Ok(r.clone()),
            Value::Empty => Ok(Rc::new(Rel::empty(self.n))),
            Value::Unv => Ok(self.unv()),
            _ => Err("argument mismatch".into()),
        }
    }
    fn pair_args(v: &Value<'m>) -> Result<(Value<'m>, Value<'m>), String> {
        match v {
            Value::Tuple(t) if t.len() == 2 => Ok((t[0].clone(), t[1].clone())),
            _ => Err("argument mismatch".into()),
        }
    }
    fn filter_pairs(&self, r: &Rel, keep: impl Fn(usize, usize) -> bool) -> Rel {
        Rel::from_pairs(self.n, r.pairs().filter(|&(a, b)| keep(a, b)))
    }
    fn primitive_rel(&self, name: &str) -> Rel {
        self.p
            .rels
            .get(name)
            .cloned()
            .unwrap_or_else(|| Rel::empty(self.n))
    }

    /// The events of `s` grouped by location (herd's `classes-loc`), in order of first event.
    pub fn classes_loc(&self, s: &Set) -> Vec<Set> {
        let mut groups: Vec<(Val, Set)> = Vec::new();
        for e in s.iter() {
            let Some(loc) = self.p.events[e].loc else {
                continue;
            };
            match groups.iter_mut().find(|(l, _)| *l == loc) {
                Some((_, g)) => g.insert(e),
                None => groups.push((loc, Set::from_iter(self.n, [e]))),
            }
        }
        groups.into_iter().map(|(_, g)| g).collect()
    }

    pub fn call_builtin(&self, b: Builtin, arg: Value<'m>) -> Result<Value<'m>, String> {
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
                let fs = self.prim_set(&arg)?;
                let po = self.primitive_rel("po");
                let fences = self.p.sets.get("F");
                let mut r = Rel::empty(self.n);
                for f in fs.iter().filter(|&f| fences.is_none_or(|s| s.contains(f))) {
                    let before = Set::from_iter(self.n, (0..self.n).filter(|&e| po.contains(e, f)));
                    let after = Set::from_iter(self.n, po.succs(f));
                    r.union_with(&Rel::cartesian(&before, &after));
                }
                Ok(Value::rel(r))
            }
            Builtin::ClassesLoc => {
                let s = self.prim_set(&arg)?;
                Ok(valset(
                    self.classes_loc(&s).into_iter().map(Value::set).collect(),
                ))
            }
            Builtin::Classes => {
                let r = self.prim_rel(&arg)?;
                let mut classes = Vec::new();
                for e in r.domain().iter() {
                    let mut c = Set::from_iter(self.n, r.succs(e));
                    c.insert(e);
                    classes.push(Value::set(c));
                }
                Ok(valset(classes))
            }
            Builtin::Linearisations => {
                let (s, r) = Self::pair_args(&arg)?;
                let s = self.prim_set(&s)?;
                let r = self.prim_rel(&r)?;
                Ok(valset(
                    lin_base(&r, &s)
                        .linearisations(&s)
                        .into_iter()
                        .map(Value::rel)
                        .collect(),
                ))
            }
            Builtin::DifferentValues => {
                let r = self.prim_rel(&arg)?;
                let ev = self.p.events;
                Ok(Value::rel(self.filter_pairs(
                    &r,
                    |a, b| !matches!((ev[a].val, ev[b].val), (Some(x), Some(y)) if x == y),
                )))
            }
            Builtin::SameOa | Builtin::AtLeastOneWritable => {
                self.prim_rel(&arg)?;
                Ok(Value::rel(Rel::empty(self.n)))
            }
            Builtin::Tag2Events => match arg {
                Value::Tag(tag) => {
                    let t = tag.name.as_str();
                    let set = self
                        .p
                        .sets
                        .get(t)
                        .or_else(|| self.p.sets.get(tag_set_name(t).as_str()));
                    Ok(Value::set(
                        set.cloned().unwrap_or_else(|| Set::empty(self.n)),
                    ))
                }
                _ => Err("argument mismatch".into()),
            },
            Builtin::Loc2Events => match arg {
                Value::Tag(tag) => {
                    let id = self.p.symbols.get(tag.name.as_str());
                    let s = Set::from_iter(
                        self.n,
                        (0..self.n).filter(|&e| {
                            let ev = &self.p.events[e];
                            ev.kind != Kind::Fence
                                && id.is_some_and(|id| ev.loc == Some(Val::Addr(id)))
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
}

/// `r` restricted to `s`: what `linearisations(s, r)` extends.
pub fn lin_base(r: &Rel, s: &Set) -> Rel {
    r.restrict_domain(s).restrict_range(s)
}
