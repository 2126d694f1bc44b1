//! Embeds every file of `cat/` (the shipped models) so `--model NAME` and `include` find
//! them inside the binary.

use std::fs;
use std::path::Path;

fn main() {
    link_for_fast_start();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("cat");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    let mut out = String::from(
        "/// Shipped model files: (file name, contents).\npub static FILES: &[(&str, &str)] = &[\n",
    );
    for p in &entries {
        println!("cargo:rerun-if-changed={}", p.display());
        let name = p.file_name().unwrap().to_string_lossy();
        out.push_str(&format!(
            "    ({:?}, include_str!({:?})),\n",
            name,
            p.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("cat_library.rs");
    fs::write(dest, out).unwrap();
}

/// Most runs last a millisecond or two, so what the loader does before `main` counts.
/// A position-dependent executable needs no run-time relocation of its thousands of
/// tables and vtables (no copy-on-write of `.data.rel.ro`, no relocation table to read);
/// only the Linux/glibc executable is linked so, as the only target measured.
fn link_for_fast_start() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
