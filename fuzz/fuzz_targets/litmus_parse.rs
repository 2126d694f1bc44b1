//! The litmus parser on any bytes (see `props::litmus_text`).
#![no_main]

#[path = "../props.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::litmus_text(data));
