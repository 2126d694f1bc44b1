//! ppc instruction semantics.

use super::{Stop, ThreadInit, Tracer, Value};
use crate::litmus::ast::AsmThread;
use std::collections::BTreeMap;

/// Run one thread; returns its final registers.
pub fn run(_thread: &AsmThread, _init: &ThreadInit, _t: &mut Tracer) -> Result<BTreeMap<String, Value>, Stop> {
    Err(Stop::error(None, "ppc semantics not written yet"))
}
