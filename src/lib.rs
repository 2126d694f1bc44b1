//! `litmus`: judge weak-memory litmus tests under cat models, as herd7 does.
//!
//! The pipeline, one module per stage:
//! [`litmus`] parses a test → [`sem`] turns each thread into events →
//! [`exec`] enumerates candidate executions → [`cat`] runs the model on each →
//! [`judge`] gathers final states and the condition's verdict → [`report`] prints them.
//! [`batch`] judges many tests under many models; [`snapshot`] keeps outcomes and compares
//! them.

pub mod batch;
pub mod budget;
pub mod cat;
pub mod compile;
pub mod crash;
pub mod exec;
pub mod judge;
pub mod litmus;
pub mod model;
pub mod rel;
pub mod report;
pub mod sem;
pub mod snapshot;
pub mod source;
pub mod tuning;
pub mod workers;

/// Stack for every thread that runs a model: models recurse (herd's cat library builds
/// coherence orders recursively), and a large test must not abort. Every corpus test and
/// the big ones run in 8 MiB; this leaves room, and stays small enough that several workers
/// start under a `ulimit -v` of a few hundred megabytes.
pub const WORKER_STACK: usize = 64 << 20;
