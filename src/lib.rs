//! `litmus`: judge weak-memory litmus tests under cat models, as herd7 does.
//!
//! The pipeline, one module per stage:
//! [`litmus`] parses a test → [`sem`] turns each thread into events →
//! [`exec`] enumerates candidate executions → [`cat`] runs the model on each →
//! [`outcome`] gathers final states and the condition's verdict → [`report`] prints them.

pub mod cat;
pub mod exec;
pub mod litmus;
pub mod model;
pub mod outcome;
pub mod rel;
pub mod report;
pub mod sem;
