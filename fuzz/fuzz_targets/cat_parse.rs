//! The cat parser and model loader on any bytes (see `props::cat_text`).
#![no_main]

#[path = "../props.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::cat_text(data));
