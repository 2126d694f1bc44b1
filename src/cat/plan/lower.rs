//! Partial choices of `rf` judged at once, from below: whether every candidate below a
//! partial choice fails a check, so the enumeration may leave them out.
//!
//! The plan runs on one combination of runs whose reads do not all have a source yet
//! (those without read from nothing) and whose final writes are not chosen (`FW` empty):
//! [`Sense::Lower`], everything that depends on `rf`, `FW` or a `with` variable varying.
//! Every node then holds a subset of its value in each candidate below: the operators are
//! monotone but `A \ B` and `~A` of what varies (taken empty, as is a fixpoint that is not
//! monotone). A non-negated check that fails on subsets fails in each candidate (`acyclic`,
//! `irreflexive` and `empty` only get harder as relations grow), and so does a check on
//! an exact relation. A `with` binds what every one of its choices contains (for
//! coherence orders, the closure of their base on each class), and a candidate with no
//! choice there has no branch at all. A candidate is doomed when every branch is.

use super::replay::{Replay, outcome};
use super::{FW, Plan, RF, Sense, Step, WITH};
use crate::budget::Budget;
use crate::cat::ast::TestType;
use crate::cat::builtins::lin_base;
use crate::cat::{EventInfo, Primitives};
use crate::rel::Rel;

/// How runs bounding from below take a plan's nodes.
pub const SENSE: Sense = Sense::Lower(RF | FW | WITH);

/// Whether every candidate whose `rf` contains `p`'s (`p` one combination of runs of the
/// shape `plan` was made for, with no final writes) fails a check of the model.
pub fn doomed(plan: &Plan, r: &mut Replay, p: &Primitives, budget: &Budget) -> bool {
    debug_assert_eq!(r.sense, SENSE);
    r.start(plan, p, budget);
    let doomed = walk(plan, r, 0, p.events);
    // A fixpoint cut short by the budget bounds nothing: the enumeration finds out.
    doomed && r.exhausted.is_none()
}

/// Whether every branch from step `from` on fails.
fn walk(plan: &Plan, r: &mut Replay, from: usize, events: &[EventInfo]) -> bool {
    for step in &plan.steps[from..] {
        match step {
            Step::Test {
                test,
                ty: TestType::Check,
                node,
                ..
            } => {
                let settled = !test.negated || !r.sense.varies(&plan.nodes[*node as usize]);
                if !settled {
                    continue;
                }
                r.eval(plan, *node, events);
                let (holds, _) = outcome(test.kind, &r.bufs[*node as usize]);
                if holds == test.negated {
                    return true;
                }
            }
            Step::Test { .. } | Step::Flag(_) => {}
            // No branch: no candidate below has a consistent execution.
            Step::Fail(..) | Step::Halt => return true,
            // An error is no failure: the candidates below are judged, and say so.
            Step::End(_) | Step::Error(_) => return false,
            Step::Orders(o) => {
                r.eval(plan, o.base, events);
                let base = r.rel(o.base).clone();
                let mut within = Rel::empty(base.universe());
                for c in &o.classes {
                    let order = lin_base(&base, c).transitive_closure();
                    // A cyclic base has no linearisation.
                    if !order.is_irreflexive() {
                        return true;
                    }
                    within.union_with(&order);
                }
                set_var(plan, r, o.var, &within);
            }
            Step::Picks(p) => {
                let mut within = Rel::empty(r.rel(p.var).universe());
                for f in &p.factors {
                    let mut all = f.iter();
                    let Some(first) = all.next() else {
                        return true;
                    };
                    within.union_with(&all.fold((**first).clone(), |a, x| a.inter(x)));
                }
                set_var(plan, r, p.var, &within);
            }
            Step::Choose(starts) => return starts.iter().all(|&s| walk(plan, r, s, events)),
        }
    }
    false
}

/// Binds a `with` variable to what each of its choices contains.
fn set_var(plan: &Plan, r: &mut Replay, var: u32, v: &Rel) {
    r.renew(plan.nodes[var as usize].level);
    r.set(var, super::replay::In::Rel(v));
}
