//! Stage 3: candidate enumeration. Threads are run for every read value
//! ([`threads`]), then runs are combined with every rf and final-write choice
//! ([`candidate`]). The model decides the rest.

pub mod candidate;
pub mod grow;
pub mod program;
pub mod symmetry;
pub mod threads;

pub use candidate::Candidate;
pub use program::{EngineError, Program};
