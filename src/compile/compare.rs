//! A C test against its compiled forms, final state by final state: which states the
//! LKMM allows, which each hardware model allows for the compiled test. A state some
//! hardware reaches and the LKMM forbids is an unsound mapping (or a model bug); one the
//! LKMM allows and no hardware reaches shows the LKMM weaker than the hardware.
//!
//! Values are compared as herd prints them (addresses by name), since the two tests
//! number their locations independently.

use super::Compiled;
use crate::judge::Judgement;
use crate::litmus::ast::{LocRef, Prop, ValueLit};
use std::collections::BTreeMap;

/// One final state of the C test's locations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Values of [`Comparison::shown`], in order.
    pub values: Vec<String>,
    pub lkmm: bool,
    /// Per hardware column, whether its compiled test reaches the state.
    pub hw: Vec<bool>,
}

#[derive(Clone, Debug)]
pub struct Comparison {
    /// The C test's shown locations.
    pub shown: Vec<LocRef>,
    /// Hardware columns (mapping names).
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

impl Comparison {
    /// (row, column) pairs: the hardware reaches a state the LKMM forbids.
    pub fn unsound(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for (k, r) in self.rows.iter().enumerate() {
            for (c, h) in r.hw.iter().enumerate() {
                if *h && !r.lkmm {
                    v.push((k, c));
                }
            }
        }
        v
    }

    /// Rows the LKMM allows and no hardware column reaches.
    pub fn lkmm_weaker(&self) -> Vec<usize> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.lkmm && !r.hw.is_empty() && r.hw.iter().all(|h| !h))
            .map(|(k, _)| k)
            .collect()
    }

    /// Rows the LKMM allows that this column does not reach.
    pub fn weaker_than(&self, col: usize) -> Vec<usize> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.lkmm && !r.hw[col])
            .map(|(k, _)| k)
            .collect()
    }

    /// A state as herd writes it: `0:r0=1; x=2;`.
    pub fn state_text(&self, row: usize) -> String {
        self.shown
            .iter()
            .zip(&self.rows[row].values)
            .map(|(l, v)| format!("{}={v};", loc_text(l)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether the final state of `row` satisfies `p` (the condition's proposition, over
    /// shown locations); `None` when `p` names a location the rows do not show.
    pub fn holds(&self, row: usize, p: &Prop) -> Option<bool> {
        holds(p, &self.shown, &self.rows[row].values)
    }

    /// The proposition "the final state is this row", in the C test's names.
    pub fn state_prop(&self, row: usize) -> Prop {
        state_prop(&self.shown, &self.rows[row].values)
    }
}

/// `p` on the state `values` of `shown` (values as herd prints them).
fn holds(p: &Prop, shown: &[LocRef], values: &[String]) -> Option<bool> {
    let value = |l: &LocRef| shown.iter().position(|x| x == l).map(|k| &values[k]);
    let lit = |v: &ValueLit| match v {
        ValueLit::Int(i) => i.to_string(),
        ValueLit::Addr { name, .. } => name.clone(),
    };
    Some(match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Eq(l, v) => *value(l)? == lit(v),
        Prop::Ne(l, v) => *value(l)? != lit(v),
        Prop::EqLoc(a, b) => value(a)? == value(b)?,
        Prop::Not(a) => !holds(a, shown, values)?,
        Prop::And(ps) => {
            let all: Option<Vec<bool>> = ps.iter().map(|q| holds(q, shown, values)).collect();
            all?.into_iter().all(|b| b)
        }
        Prop::Or(ps) => {
            let all: Option<Vec<bool>> = ps.iter().map(|q| holds(q, shown, values)).collect();
            all?.into_iter().any(|b| b)
        }
        Prop::Implies(a, b) => !holds(a, shown, values)? || holds(b, shown, values)?,
    })
}

fn loc_text(l: &LocRef) -> String {
    match l {
        LocRef::Global(g) => g.clone(),
        LocRef::Reg { proc, reg } => format!("{proc}:{reg}"),
    }
}

/// `l1=v1 /\ l2=v2 /\ ...` (values as herd prints them: integers or location names).
pub fn state_prop(shown: &[LocRef], values: &[String]) -> Prop {
    let mut terms: Vec<Prop> = shown
        .iter()
        .zip(values)
        .map(|(l, v)| {
            let lit = match v.parse::<i64>() {
                Ok(i) => ValueLit::Int(i),
                Err(_) => ValueLit::Addr {
                    name: v.clone(),
                    amp: false,
                },
            };
            Prop::Eq(l.clone(), lit)
        })
        .collect();
    match terms.len() {
        0 => Prop::True,
        1 => terms.pop().unwrap(),
        _ => Prop::And(terms),
    }
}

fn values(j: &Judgement, order: &[usize]) -> Vec<Vec<String>> {
    j.states
        .iter()
        .map(|s| order.iter().map(|&k| j.symbols.show(s[k])).collect())
        .collect()
}

/// Compare the LKMM's judgement of a C test with the hardware judgements of its
/// compiled forms (`(column, compiled test, judgement)`).
pub fn compare(
    lkmm: &Judgement,
    hw: &[(String, &Compiled, &Judgement)],
) -> Result<Comparison, String> {
    let shown = lkmm.shown.clone();
    let ident: Vec<usize> = (0..shown.len()).collect();
    let mut rows: BTreeMap<Vec<String>, Row> = BTreeMap::new();
    for v in values(lkmm, &ident) {
        rows.insert(
            v.clone(),
            Row {
                values: v,
                lkmm: true,
                hw: vec![false; hw.len()],
            },
        );
    }
    for (c, (name, comp, j)) in hw.iter().enumerate() {
        let order: Vec<usize> = shown
            .iter()
            .map(|l| {
                let r = comp.rename(l);
                j.shown.iter().position(|x| *x == r).ok_or_else(|| {
                    format!("{name}: the compiled test does not show {}", loc_text(l))
                })
            })
            .collect::<Result<_, _>>()?;
        if j.shown.len() != shown.len() {
            return Err(format!(
                "{name}: the compiled test shows {} locations, the C test {}",
                j.shown.len(),
                shown.len()
            ));
        }
        for v in values(j, &order) {
            rows.entry(v.clone())
                .or_insert_with(|| Row {
                    values: v,
                    lkmm: false,
                    hw: vec![false; hw.len()],
                })
                .hw[c] = true;
        }
    }
    Ok(Comparison {
        shown,
        columns: hw.iter().map(|(n, _, _)| n.clone()).collect(),
        rows: rows.into_values().collect(),
    })
}
