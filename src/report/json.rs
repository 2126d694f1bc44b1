//! One JSON object per test and model, with herd's fields.

use super::herd::show_state;
use crate::litmus::ast::Test;
use crate::outcome::{Judgement, cond};
use serde_json::json;

pub fn line(file: &str, t: &Test, j: &Judgement) -> String {
    let (pos, neg) = j.witnesses();
    json!({
        "file": file,
        "test": j.name,
        "arch": t.arch.name(),
        "model": j.model,
        "states": j.states.iter().map(|s| show_state(j, s)).collect::<Vec<_>>(),
        "result": if j.ok() { "Ok" } else { "No" },
        "pos": pos,
        "neg": neg,
        "observation": j.observation(),
        "condition": cond::show_condition(&t.condition),
        "flags": j.flags.iter().collect::<Vec<_>>(),
        "loop": j.cut,
        "candidates": j.candidates,
        "left_out": j.left_out,
        "symmetries": j.symmetries,
        "events": j.events,
        "seconds": j.elapsed.as_secs_f64(),
        "forbidden_by": j.forbidden_by.as_ref().map(|e| json!({"check": e.check, "cycle": e.cycle})),
    })
    .to_string()
}
