//! Stage 6: reporting judgements (herd7's text format, tables across models, JSON,
//! explanations of forbidden outcomes).

pub mod herd;
pub mod json;
pub mod table;

use crate::litmus::ast::Test;
use crate::outcome::Judgement;

/// Why the condition's outcome is forbidden, when it is: the check and its cycle.
pub fn explain(_t: &Test, j: &Judgement) -> String {
    match (&j.forbidden_by, j.sat) {
        (Some(e), 0) if e.cycle.is_empty() => format!("Forbidden by {}\n", e.check),
        (Some(e), 0) => format!(
            "Forbidden by {}: cycle {} -> (back)\n",
            e.check,
            e.cycle.join(" -> ")
        ),
        (None, 0) => "No candidate satisfies the condition's proposition.\n".into(),
        _ => String::new(),
    }
}
