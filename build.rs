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
