//! Embeds every file of `cat/` (the shipped models) so `--model NAME` and `include` find
//! them inside the binary, each cat and bell file also parsed in advance: a small test
//! takes a millisecond or two, of which parsing the models was a quarter.

use std::fs;
use std::path::{Path, PathBuf};

/// The cat parser itself, to parse the shipped models once, here.
#[allow(dead_code)]
mod cat {
    #[path = "../src/cat/ast.rs"]
    pub mod ast;
    #[path = "../src/cat/lex.rs"]
    pub mod lex;
    #[path = "../src/cat/parse.rs"]
    pub mod parse;
}

fn main() {
    link_for_fast_start();
    link_usual_path();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("cat");
    println!("cargo:rerun-if-changed={}", dir.display());
    for f in ["ast", "lex", "parse"] {
        println!("cargo:rerun-if-changed=src/cat/{f}.rs");
    }
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
    out.push_str(&preparsed(&entries));
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("cat_library.rs");
    fs::write(dest, out).unwrap();
}

/// Most runs last a millisecond or two, so what the loader does before `main` counts.
/// A position-dependent executable needs no run-time relocation of its thousands of
/// tables and vtables (no copy-on-write of `.data.rel.ro`, no relocation table to read);
/// only the Linux/glibc executable is linked so, as the only target measured.
///
/// It is also linked statically when the C toolchain has static libraries: loading and
/// relocating libc, libm and libgcc_s took a sixth of a small test's time. rustc asks for
/// those libraries dynamically (`-Bdynamic -lgcc_s ... -lc`; its `crt-static` flag cannot be
/// set for one binary of a crate with proc-macro dependencies), so the link gets a folder of
/// stand-ins, `libc.so` and friends, that are linker scripts naming the static archives.
fn link_for_fast_start() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" || env != "gnu" {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    println!("cargo:rerun-if-env-changed=LITMUS_DYNAMIC");
    if std::env::var_os("LITMUS_DYNAMIC").is_some() {
        return;
    }
    if let Some(dir) = static_stand_ins() {
        println!("cargo:rustc-link-arg-bins=-static");
        // A link argument, not `rustc-link-search`: the stand-ins are for the binary only.
        // The C compiler puts `-L` folders before its own, whatever their place.
        println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
    }
}

/// With a target named (`.cargo/config.toml` names musl), cargo puts the binary in
/// `target/<triple>/<profile>/`, not in `target/<profile>/` where scripts and people look for
/// it: that path becomes a link to it.
fn link_usual_path() {
    let (Ok(out), Ok(triple)) = (std::env::var("OUT_DIR"), std::env::var("TARGET")) else {
        return;
    };
    // OUT_DIR is <target dir>/<triple>/<profile>/build/<package>-<hash>/out.
    let Some(profile_dir) = Path::new(&out).ancestors().nth(3) else {
        return;
    };
    let (Some(profile), Some(triple_dir)) = (profile_dir.file_name(), profile_dir.parent()) else {
        return;
    };
    if triple_dir.file_name() != Some(std::ffi::OsStr::new(&triple)) {
        return;
    }
    let Some(root) = triple_dir.parent() else {
        return;
    };
    let usual = root.join(profile);
    let link = usual.join("litmus");
    let dest = Path::new("..").join(&triple).join(profile).join("litmus");
    if fs::read_link(&link).is_ok_and(|d| d == dest) {
        return;
    }
    let _ = fs::create_dir_all(&usual);
    let _ = fs::remove_file(&link);
    #[cfg(unix)]
    let _ = std::os::unix::fs::symlink(&dest, &link);
}

/// Writes the stand-ins into OUT_DIR/static, or returns `None` (dynamic link) when an
/// archive is missing.
fn static_stand_ins() -> Option<PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let find = |lib: &str| -> Option<String> {
        let out = std::process::Command::new(&cc)
            .arg(format!("-print-file-name={lib}"))
            .output()
            .ok()?;
        let path = String::from_utf8(out.stdout).ok()?.trim().to_string();
        // Without the archive, the compiler echoes the bare name back.
        Path::new(&path).is_absolute().then_some(path)
    };
    let (libc, libgcc, libgcc_eh) = (find("libc.a")?, find("libgcc.a")?, find("libgcc_eh.a")?);
    let dir = PathBuf::from(std::env::var("OUT_DIR").ok()?).join("static");
    fs::create_dir_all(&dir).ok()?;
    let group = |names: &[&str]| format!("GROUP ( {} )\n", names.join(" "));
    let mut scripts = vec![
        ("gcc_s", group(&[&libgcc_eh, &libgcc])),
        ("c", group(&[&libc, &libgcc, &libgcc_eh])),
        ("m", group(&[&find("libm.a")?])),
    ];
    // Empty since glibc 2.34 (merged into libc), but still asked for.
    for lib in ["util", "rt", "pthread", "dl"] {
        let archive = find(&format!("lib{lib}.a")).unwrap_or_else(|| libc.clone());
        scripts.push((lib, group(&[&archive])));
    }
    for (name, script) in scripts {
        fs::write(dir.join(format!("lib{name}.so")), script).ok()?;
    }
    Some(dir)
}

/// Parses every shipped cat and bell file and stores its symbols and tree (postcard) in
/// OUT_DIR; returns the table `PARSED: &[(name, bytes)]` that embeds them.
fn preparsed(entries: &[PathBuf]) -> String {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let mut table = String::from(
        "/// Shipped cat and bell files, parsed: (file name, symbols then tree, postcard).\n\
         pub static PARSED: &[(&str, &[u8])] = &[\n",
    );
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !(name.ends_with(".cat") || name.ends_with(".bell")) {
            continue;
        }
        let text = fs::read_to_string(p).unwrap();
        let mut names = cat::parse::Names::default();
        let prog = cat::parse::parse(&text, 0, &mut names)
            .unwrap_or_else(|(pos, msg)| panic!("cat/{name}:{}:{}: {msg}", pos.line, pos.col));
        let syms: Vec<String> = (0..names.len())
            .map(|i| names.name(cat::ast::Sym(i as u32)).to_string())
            .collect();
        let mut bytes = postcard::to_allocvec(&syms).unwrap();
        bytes.extend(postcard::to_allocvec(&prog).unwrap());
        let dest = out_dir.join(format!("{name}.parsed"));
        fs::write(&dest, bytes).unwrap();
        table.push_str(&format!(
            "    ({:?}, include_bytes!({:?})),\n",
            name,
            dest.display().to_string()
        ));
    }
    table.push_str("];\n");
    table
}
