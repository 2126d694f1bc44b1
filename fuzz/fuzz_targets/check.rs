//! `check` on small generated tests (see `gen.rs`), judged under every shipped model for
//! their architecture (see `props::check_test`).
#![no_main]

#[path = "../gen.rs"]
mod generate;
#[path = "../props.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|s: generate::Small| props::check_test(&generate::render(&s)));
