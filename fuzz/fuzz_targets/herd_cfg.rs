//! herd `.cfg` files on any bytes (see `props::cfg_text`).
#![no_main]

#[path = "../props.rs"]
mod props;

libfuzzer_sys::fuzz_target!(|data: &[u8]| props::cfg_text(data));
