//! One JSON object per test and model, with herd's fields.

use super::herd::show_state;
use crate::batch::Status;
use crate::budget::Exhausted;
use crate::litmus::ast::Test;
use crate::outcome::{Judgement, cond};
use serde_json::json;

pub fn line(file: &str, t: &Test, j: &Judgement) -> String {
    let (pos, neg) = j.witnesses();
    json!({
        "file": file,
        "status": "ok",
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

/// The record of a (file, model) without an answer: `status` says why (`error`, `timeout`,
/// `out-of-memory`, `too-big`), `message` in words, and for a test that ran out, how far
/// it got.
pub fn unanswered(file: &str, t: Option<&Test>, model: &str, status: &Status) -> String {
    let (kind, message, explored) = match status {
        Status::Error(e) => ("error", e.to_string(), None),
        Status::Undetermined(why, explored) => (
            match why {
                Exhausted::Time { .. } => "timeout",
                Exhausted::Memory { .. } => "out-of-memory",
                Exhausted::Size(_) => "too-big",
            },
            why.to_string(),
            Some(explored),
        ),
        Status::Judged(_) | Status::NotApplicable => ("error", String::new(), None),
    };
    let mut v = json!({
        "file": file,
        "status": kind,
        "message": message,
        "test": t.map(|t| t.name.clone()),
        "arch": t.map(|t| t.arch.name()),
        "model": (!model.is_empty()).then_some(model),
    });
    if let Some(e) = explored {
        v["explored"] = json!({"candidates": e.candidates, "states": e.states});
    }
    v.to_string()
}
