//! outcome
