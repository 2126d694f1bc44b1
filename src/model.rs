//! Which model judges a test: the shipped models by name, or herd7-style files
//! (`-conf`, `-model`, `-bell`, `-macros`).

use crate::cat::{Model, ModelOptions, load_cfg};
use crate::litmus::ast::Arch;
use crate::sem::c::Macros;
use std::path::{Path, PathBuf};

/// What the user asked for, in herd7's terms.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    pub conf: Option<PathBuf>,
    pub cat: Option<PathBuf>,
    pub bell: Option<PathBuf>,
    pub macros: Option<PathBuf>,
    /// Variants, each possibly a comma-separated list.
    pub variants: Vec<String>,
    pub include: Vec<PathBuf>,
}

impl Request {
    fn variant_list(&self) -> impl Iterator<Item = String> + '_ {
        self.variants
            .iter()
            .flat_map(|v| v.split(',').map(str::to_string))
    }
}

/// A model ready to judge tests.
pub struct Loaded {
    /// How reports name it (`lkmm`, `power`, or the cat file's name).
    pub label: String,
    pub model: Model,
    pub macros: Option<Macros>,
    /// Architectures it covers; `None` for user files (trusted to know).
    pub arches: Option<Vec<Arch>>,
    /// Every file it was loaded from, as found: the configuration, the macros, then the
    /// model's own (see [`Model::sources`]); `<builtin>/NAME` for a shipped file.
    pub files: Vec<String>,
    /// The options it was loaded from, for a model from files; `None` for a shipped one.
    pub request: Option<Request>,
}

impl Loaded {
    /// Whether this model speaks the test's language; the error says which it speaks.
    pub fn covers(&self, t: &crate::litmus::ast::Test) -> Result<(), String> {
        match &self.arches {
            Some(arches) if !arches.contains(&t.arch) => {
                let names: Vec<&str> = arches.iter().map(|a| a.name()).collect();
                Err(format!(
                    "model {} covers {}, but test {} is {}",
                    self.label,
                    names.join(", "),
                    t.name,
                    t.arch.name()
                ))
            }
            _ => Ok(()),
        }
    }
}

struct Shipped {
    name: &'static str,
    /// Variants always on (herd's `-variant`), as the official configuration sets them.
    variants: &'static [&'static str],
    aliases: &'static [&'static str],
    cat: &'static str,
    bell: Option<&'static str>,
    arches: &'static [Arch],
}

const SHIPPED: &[Shipped] = &[
    Shipped {
        name: "lkmm",
        variants: &["lkmmv2"],
        aliases: &["linux-kernel", "linux", "lk", "kernel"],
        cat: "lkmm.cat",
        bell: Some("lkmm.bell"),
        arches: &[Arch::C],
    },
    Shipped {
        name: "x86tso",
        variants: &[],
        aliases: &["tso", "x86", "x86-tso", "x86_64"],
        cat: "x86tso.cat",
        bell: None,
        arches: &[Arch::X86, Arch::X86_64],
    },
    Shipped {
        name: "armv8",
        variants: &[],
        aliases: &["aarch64", "arm64", "arm", "armv8-a"],
        cat: "armv8.cat",
        bell: None,
        arches: &[Arch::AArch64],
    },
    Shipped {
        name: "power",
        variants: &[],
        aliases: &["ppc", "powerpc", "power7"],
        cat: "power.cat",
        bell: None,
        arches: &[Arch::PPC],
    },
];

/// The shipped model's canonical name for `name` or an alias.
pub fn canonical(name: &str) -> Option<&'static str> {
    let n = name.to_ascii_lowercase();
    SHIPPED
        .iter()
        .find(|s| s.name == n || s.aliases.contains(&n.as_str()))
        .map(|s| s.name)
}

/// Every shipped model's name, in table order.
pub fn all_names() -> Vec<&'static str> {
    SHIPPED.iter().map(|s| s.name).collect()
}

/// The architectures a shipped model covers.
pub fn arches(name: &str) -> &'static [Arch] {
    SHIPPED
        .iter()
        .find(|s| s.name == name)
        .map_or(&[], |s| s.arches)
}

/// The shipped model herd7 would pick for a test's architecture.
pub fn default_for(arch: Arch) -> &'static str {
    SHIPPED
        .iter()
        .find(|s| s.arches.contains(&arch))
        .map(|s| s.name)
        .unwrap_or("lkmm")
}

/// A shipped model by canonical name.
pub fn load_shipped(name: &str, a: &Request) -> Result<Loaded, String> {
    let s = SHIPPED
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("unknown model `{name}` (known: {})", all_names().join(", ")))?;
    let opts = ModelOptions {
        cat: s.cat.to_string(),
        bell: s.bell.map(str::to_string),
        variants: s
            .variants
            .iter()
            .map(|v| v.to_string())
            .chain(a.variant_list())
            .collect(),
        include_dirs: a.include.clone(),
    };
    let model = Model::load(&opts).map_err(|e| e.to_string())?;
    // C tests expand kernel calls through our own macro file, as herd's linux-kernel.def.
    let macros = s.arches.contains(&Arch::C).then(Macros::lkmm);
    let files = macros
        .is_some()
        .then(|| BUILTIN_MACROS.to_string())
        .into_iter()
        .chain(model.sources().map(str::to_string))
        .collect();
    Ok(Loaded {
        label: s.name.to_string(),
        model,
        macros,
        arches: Some(s.arches.to_vec()),
        files,
        request: None,
    })
}

/// A model from `--conf`, or `--cat` (+ `--bell`, `--macros`).
pub fn load_files(a: &Request) -> Result<Option<Loaded>, String> {
    let mut files = Vec::new();
    let (mut opts, mut macros_path) = match &a.conf {
        Some(c) => {
            let (o, m) = load_cfg(c).map_err(|e| e.to_string())?;
            files.push(c.display().to_string());
            (o, m.map(std::path::PathBuf::from))
        }
        None => (ModelOptions::default(), None),
    };
    if let Some(c) = &a.cat {
        opts.cat = c.display().to_string();
    }
    if let Some(b) = &a.bell {
        opts.bell = Some(b.display().to_string());
    }
    if let Some(m) = &a.macros {
        macros_path = Some(m.clone());
    }
    if opts.cat.is_empty() {
        return Ok(None);
    }
    opts.variants.extend(a.variant_list());
    opts.include_dirs.extend(a.include.iter().cloned());
    let model = Model::load(&opts).map_err(|e| e.to_string())?;
    let macros = match macros_path {
        Some(p) => {
            let (found, m) = read_macros(&p, &opts.include_dirs)?;
            files.push(found.display().to_string());
            m
        }
        None => {
            files.push(BUILTIN_MACROS.to_string());
            Macros::lkmm()
        }
    };
    files.extend(model.sources().map(str::to_string));
    let label = Path::new(&opts.cat)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| opts.cat.clone());
    Ok(Some(Loaded {
        label,
        model,
        macros: Some(macros),
        arches: None,
        files,
        request: Some(a.clone()),
    }))
}

/// How [`Loaded::files`] names our own macro file for the kernel's primitives.
const BUILTIN_MACROS: &str = "<builtin>/lkmm.def";

/// The macro file (where it was found) and its macros.
fn read_macros(p: &Path, dirs: &[std::path::PathBuf]) -> Result<(PathBuf, Macros), String> {
    let found = std::iter::once(p.to_path_buf())
        .chain(dirs.iter().map(|d| d.join(p)))
        .find(|c| c.is_file())
        .ok_or_else(|| format!("error: macro file {} not found", p.display()))?;
    let text = crate::source::read_text(&found).map_err(|e| format!("error: {e}"))?;
    let m = Macros::parse(&text).map_err(|e| format!("error: {}: {e}", found.display()))?;
    Ok((found, m))
}

/// A model as a command line names it: a shipped model, or files in herd7's terms.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    Shipped(&'static str),
    Files(Request),
}

impl Spec {
    /// `word` is a shipped model's name or alias, a herd7 configuration (`*.cfg`, as
    /// `-conf`) or a cat file (as `-model`); a file takes `base`'s bell, macros, variants and
    /// include folders.
    pub fn parse(word: &str, base: &Request) -> Result<Spec, String> {
        if let Some(n) = canonical(word) {
            return Ok(Spec::Shipped(n));
        }
        let path = PathBuf::from(word);
        let mut r = Request {
            conf: None,
            cat: None,
            ..base.clone()
        };
        match path.extension().and_then(|e| e.to_str()) {
            Some("cfg") => r.conf = Some(path),
            Some("cat") => r.cat = Some(path),
            _ => {
                return Err(format!(
                    "error: unknown model `{word}` (known: {}, or a .cat or .cfg file)",
                    all_names().join(", ")
                ));
            }
        }
        Ok(Spec::Files(r))
    }

    /// A shipped model takes `base`'s variants and include folders (a file model has them
    /// already, from [`Spec::parse`]).
    pub fn load(&self, base: &Request) -> Result<Loaded, String> {
        match self {
            Spec::Shipped(n) => load_shipped(n, base),
            Spec::Files(r) => load_files(r)?.ok_or_else(|| "error: no model file given".into()),
        }
    }

    /// How messages name it: the shipped name, or the configuration or cat file.
    pub fn name(&self) -> String {
        match self {
            Spec::Shipped(n) => n.to_string(),
            Spec::Files(r) => r
                .conf
                .as_ref()
                .or(r.cat.as_ref())
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        }
    }
}

/// Each of `files` (as [`Loaded::files`] names them) with the SHA-256 of its contents, in
/// hex: what tells a snapshot that a model's files changed since it was recorded.
pub fn fingerprint(files: &[String]) -> Result<Vec<(String, String)>, String> {
    use sha2::{Digest, Sha256};
    files
        .iter()
        .map(|f| {
            let bytes = match f.strip_prefix("<builtin>/") {
                Some(n) => crate::cat::library::get(n)
                    .map(|(_, text)| text.as_bytes().to_vec())
                    .ok_or_else(|| format!("error: no shipped file {n}"))?,
                None => std::fs::read(f).map_err(|e| format!("error: {f}: {e}"))?,
            };
            let hex: String = Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            Ok((f.clone(), hex))
        })
        .collect()
}
