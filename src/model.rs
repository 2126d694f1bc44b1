//! Which model judges a test: the shipped models by name, or herd7-style files
//! (`-conf`, `-model`, `-bell`, `-macros`).

use crate::cat::{Model, ModelOptions, load_cfg};
use crate::litmus::ast::Arch;
use crate::sem::c::Macros;
use std::path::{Path, PathBuf};

/// What the user asked for, in herd7's terms.
#[derive(Clone, Debug, Default)]
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
    Ok(Loaded {
        label: s.name.to_string(),
        model,
        macros,
        arches: Some(s.arches.to_vec()),
    })
}

/// A model from `--conf`, or `--cat` (+ `--bell`, `--macros`).
pub fn load_files(a: &Request) -> Result<Option<Loaded>, String> {
    let (mut opts, mut macros_path) = match &a.conf {
        Some(c) => {
            let (o, m) = load_cfg(c).map_err(|e| e.to_string())?;
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
        Some(p) => Some(read_macros(&p, &opts.include_dirs)?),
        None => Some(Macros::lkmm()),
    };
    let label = Path::new(&opts.cat)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| opts.cat.clone());
    Ok(Some(Loaded {
        label,
        model,
        macros,
        arches: None,
    }))
}

fn read_macros(p: &Path, dirs: &[std::path::PathBuf]) -> Result<Macros, String> {
    let found = std::iter::once(p.to_path_buf())
        .chain(dirs.iter().map(|d| d.join(p)))
        .find(|c| c.is_file())
        .ok_or_else(|| format!("error: macro file {} not found", p.display()))?;
    let text = crate::source::read_text(&found).map_err(|e| format!("error: {e}"))?;
    Macros::parse(&text).map_err(|e| format!("error: {}: {e}", found.display()))
}
