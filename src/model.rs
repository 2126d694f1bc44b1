//! Which model judges a test: the shipped models by name, or herd7-style files
//! (`-conf`, `-model`, `-bell`, `-macros`) looked up as herd7 looks them up.

use crate::cat::config::{self, Source};
use crate::cat::{Model, ModelOptions, SkipChecks, read_cfg};
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
    /// `-I` folders (`+dir`: `dir` inside the library folder, as herd reads it).
    pub include: Vec<PathBuf>,
    /// `$HERDLIB`, searched after the `-I` folders.
    pub herdlib: Option<PathBuf>,
    /// herd's library folder (`-set-libdir`), searched last.
    pub libdir: Option<PathBuf>,
    /// Checks that pass without being evaluated (`-skipchecks`, `-through`).
    pub skip: SkipChecks,
}

impl Request {
    fn variant_list(&self) -> impl Iterator<Item = String> + '_ {
        self.variants
            .iter()
            .flat_map(|v| v.split(',').map(str::trim).map(str::to_string))
            .filter(|v| !v.is_empty())
    }

    /// herd7's search path for model, configuration, bell and macro files (its
    /// `lib/myLib.ml`): the current folder, the `-I` folders, `$HERDLIB`, the library.
    pub fn search_path(&self) -> Vec<PathBuf> {
        let plus = |d: &PathBuf| match (d.to_str().and_then(|s| s.strip_prefix('+')), &self.libdir)
        {
            (Some(rest), Some(lib)) => lib.join(rest),
            _ => d.clone(),
        };
        std::iter::once(PathBuf::from("."))
            .chain(self.include.iter().map(plus))
            .chain(self.herdlib.clone())
            .chain(self.libdir.clone())
            .collect()
    }

    /// The first variant herd7 would refuse, if any. `DIC` and `IDC` are herd's too, set
    /// by a test's `CacheType=` line (never by `-variant`, which the front ends check).
    pub fn unknown_variant(&self) -> Option<String> {
        self.variant_list().find(|v| {
            !herd_variant(v) && !["dic", "idc"].contains(&v.to_ascii_lowercase().as_str())
        })
    }

    fn has_files(&self) -> bool {
        self.conf.is_some() || self.cat.is_some()
    }
}

/// Whether herd7 (7.58) accepts `tag` for `-variant` (its `herd/variant.ml`; case does not
/// matter). Models may test other names in `if "..."`, which are then never set.
pub fn herd_variant(tag: &str) -> bool {
    const TAGS: &[&str] = &[
        "success",
        "instr",
        "specialx0",
        "amox0",
        "x0",
        "normw",
        "acqrelasfence",
        "backcompat",
        "back",
        "fullscdepend",
        "scdepend",
        "splittedrmw",
        "switchdepscwrite",
        "switchdepscresult",
        "lrscdiffok",
        "mixed",
        "unaligned",
        "dontcheckmixed",
        "notweakpredicated",
        "notweakpred",
        "weakpredicated",
        "lkmmv1",
        "lkmmv2",
        "tagmem",
        "memtag",
        "mte",
        "cutoff",
        "morello",
        "neon",
        "sve",
        "sme",
        "deps",
        "instances",
        "instance",
        "kvm",
        "vmsa",
        "ets",
        "ets2",
        "ets3",
        "exs",
        "eis",
        "eos",
        "noptebranch",
        "nobranch",
        "pte2",
        "pte-squared",
        "phantomonload",
        "optrfrmw",
        "constrainedunpredictable",
        "cu",
        "exp",
        "ifetch",
        "self",
        "cos-opt",
        "test",
        "asl",
        "asl_aarch64",
        "aslaarch64",
        "asl+aarch64",
        "aslv0",
        "asl0",
        "asl_0",
        "aslv1",
        "asl1",
        "asl_1",
        "asltype+warn",
        "asltype+silence",
        "asltype+check",
        "asl+experimental",
        "asl+exp",
        "asl+aarch64+udf",
        "s128",
        "strict",
        "warn",
        "telechat",
        "nv2",
        "oldsolver",
        "oota",
        "imprecise",
        "handled",
        "precise",
        "fatal",
        "faulttonext",
        "skip",
        "synchronous",
        "sync",
        "asynchronous",
        "async",
        "asymmetric",
        "asym",
    ];
    let t = tag.to_ascii_lowercase();
    let numbered = |prefix: &str| {
        t.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    TAGS.contains(&t.as_str())
        || (t.len() == 3 && numbered("t"))
        || numbered("sve:")
        || numbered("sme:")
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
    /// The architecture a model file's title names (`PPC` in `ppc.cat`'s first line), as
    /// herd spells it: herd refuses tests of any other (its `-archcheck`).
    pub model_arch: Option<String>,
    /// The same model with the variant `explain`, loaded when first needed (see
    /// [`crate::judge::Explainer`]).
    explainer: Option<crate::judge::Explainer>,
}

/// The variant our shipped models test to explain rather than judge fast (see
/// [`crate::judge::Explainer`]); never set when judging, and not one of herd's.
pub const EXPLAIN_VARIANT: &str = "explain";

/// The model of `opts` with the variant [`EXPLAIN_VARIANT`] too, to load when needed.
fn explaining(opts: &ModelOptions) -> Option<crate::judge::Explainer> {
    let mut o = opts.clone();
    o.variants.push(EXPLAIN_VARIANT.to_string());
    Some(crate::judge::Explainer::new(o))
}

impl Loaded {
    /// The same model with the variant `explain` (loaded only when an explanation needs
    /// it), to explain one rejected execution with.
    pub fn explainer(&self) -> Option<crate::judge::Explainer> {
        self.explainer.clone()
    }

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
            _ => match &self.model_arch {
                Some(a) if a != t.arch.name() => Err(format!(
                    "model {} is for {a}, but test {} is {}",
                    self.label,
                    t.name,
                    t.arch.name()
                )),
                _ => Ok(()),
            },
        }
    }
}

/// The architecture named by the first word of a cat file, as herd's model parser reads
/// its title (`PPC`, `X86 TSO`; a quoted title names none): skipping blanks and comments.
fn title_arch(text: &str) -> Option<String> {
    let mut s = text;
    loop {
        s = s.trim_start();
        if let Some(rest) = s.strip_prefix("(*") {
            let mut depth = 1;
            let mut k = 0;
            let b = rest.as_bytes();
            while depth > 0 && k < b.len() {
                if b[k..].starts_with(b"(*") {
                    depth += 1;
                    k += 2;
                } else if b[k..].starts_with(b"*)") {
                    depth -= 1;
                    k += 2;
                } else {
                    k += 1;
                }
            }
            s = &rest[k.min(rest.len())..];
        } else if s.starts_with("//") {
            s = s.find('\n').map_or("", |k| &s[k..]);
        } else {
            break;
        }
    }
    let word: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    const HERD_ARCHES: &[&str] = &[
        "AArch64", "ARM", "BPF", "MIPS", "PPC", "X86", "RISCV", "RISC-V", "X86_64", "C", "CPP",
        "LISA", "JAVA", "ASL",
    ];
    HERD_ARCHES.contains(&word.as_str()).then_some(word)
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

/// The architecture a hardware model's name or alias stands for, as C compiles to it:
/// `power`, `ppc` → PPC; `armv8`, `arm64`, `aarch64` → AArch64; `x86tso`, `x86`, `x86_64`
/// → X86_64 (the kernel's arch/x86 is 64-bit). The one table of names `check`, `compile
/// --arch` and `explore` share; `None` for the LKMM and unknown names.
pub fn target_arch(name: &str) -> Option<Arch> {
    let arches = arches(canonical(name)?);
    arches.last().copied().filter(|a| *a != Arch::C)
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

/// The file herd7 loads for a test of `arch` when given no model (its
/// `Model.get_default_model`), looked up on the search path, so that a library folder's
/// own file comes first. C is the exception: herd7 takes `c11_partialSC.cat`, whose C11
/// semantics we do not have; the Linux-kernel configuration stands in.
pub fn standard_request(arch: Arch, a: &Request) -> Request {
    let mut r = a.clone();
    match arch {
        Arch::C => r.conf = Some("linux-kernel.cfg".into()),
        Arch::X86 => r.cat = Some("x86tso.cat".into()),
        Arch::X86_64 => r.cat = Some("x86tso-mixed.cat".into()),
        Arch::AArch64 => r.cat = Some("aarch64.cat".into()),
        Arch::PPC => r.cat = Some("ppc.cat".into()),
    }
    r
}

/// A shipped model by canonical name; `-bell` and `-macros` given with it replace its own.
pub fn load_shipped(name: &str, a: &Request) -> Result<Loaded, LoadError> {
    let s = SHIPPED.iter().find(|s| s.name == name).ok_or_else(|| {
        LoadError::Other(format!(
            "unknown model `{name}` (known: {})",
            all_names().join(", ")
        ))
    })?;
    if let Some(v) = a.unknown_variant() {
        return Err(LoadError::Variant(v));
    }
    let dirs = a.search_path();
    let bell = match &a.bell {
        Some(b) => Some(found(b, &dirs, "bell file")?.display()),
        None => s.bell.map(str::to_string),
    };
    let opts = ModelOptions {
        cat: s.cat.to_string(),
        bell,
        variants: s
            .variants
            .iter()
            .map(|v| v.to_string())
            .chain(a.variant_list())
            .collect(),
        // The shipped files include only each other: nothing on disk replaces them.
        include_dirs: Vec::new(),
        skip: a.skip.clone(),
        cat_named_at: None,
    };
    let model = Model::load(&opts).map_err(LoadError::Cat)?;
    let explainer = explaining(&opts);
    // C tests expand kernel calls through our own macro file, as herd's linux-kernel.def.
    let (macros, def) = match (&a.macros, s.arches.contains(&Arch::C)) {
        (Some(p), _) => {
            let (m, src) = read_macros(p, &dirs)?;
            (Some(m), Some(src))
        }
        (None, true) => (Some(Macros::lkmm()), Some(BUILTIN_MACROS.to_string())),
        (None, false) => (None, None),
    };
    let files = def
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
        model_arch: None,
        explainer,
    })
}

/// Why a model could not be loaded.
#[derive(Clone, Debug)]
pub enum LoadError {
    /// No file of that name on the search path, nor a shipped one: what it was for, its
    /// name, and the `.cfg` line that named it, if one did.
    NotFound(&'static str, String, Option<crate::cat::Place>),
    /// A cat, bell or configuration file is malformed, or fails to load.
    Cat(crate::cat::CatError),
    /// A `-variant` herd7 does not know.
    Variant(String),
    /// A macro file is malformed, or a shipped model's name is unknown.
    Other(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            LoadError::NotFound(what, n, None) => write!(f, "cannot find {what} {n}"),
            LoadError::NotFound(what, n, Some(p)) => {
                write!(f, "{}:{}:{}: cannot find {what} {n}", p.file, p.line, p.col)
            }
            LoadError::Cat(e) => write!(f, "{e}"),
            LoadError::Variant(v) => write!(
                f,
                "unknown variant `{v}` (herd7's -variant tags: see `litmus herd7 -help`)"
            ),
            LoadError::Other(m) => f.write_str(m),
        }
    }
}

fn found(name: &Path, dirs: &[PathBuf], what: &'static str) -> Result<Source, LoadError> {
    let n = name.display().to_string();
    config::find(&n, None, dirs).ok_or(LoadError::NotFound(what, n, None))
}

/// A model from `-conf`, or `-model` (+ `-bell`, `-macros`), every name looked up as
/// herd7 does ([`Request::search_path`], then the shipped stand-ins for herd's standard
/// names). `None` when no model file was named: `-bell`, `-macros` and `-variant` then
/// apply to the shipped model chosen by name or architecture.
pub fn load_files(a: &Request) -> Result<Option<Loaded>, LoadError> {
    if !a.has_files() {
        return Ok(None);
    }
    if let Some(v) = a.unknown_variant() {
        return Err(LoadError::Variant(v));
    }
    let path = a.search_path();
    let mut files = Vec::new();
    let (mut opts, mut macros_name) = match &a.conf {
        Some(c) => {
            let src = found(c, &path, "configuration file")?;
            files.push(src.display());
            let (o, m) = read_cfg(&src).map_err(LoadError::Cat)?;
            (o, m.map(PathBuf::from))
        }
        None => (ModelOptions::default(), None),
    };
    // herd's path first; the configuration's own folder only where herd finds nothing.
    opts.include_dirs = path.iter().cloned().chain(opts.include_dirs).collect();
    if let Some(c) = &a.cat {
        opts.cat = c.display().to_string();
        opts.cat_named_at = None;
    }
    if let Some(b) = &a.bell {
        opts.bell = Some(b.display().to_string());
    }
    if let Some(m) = &a.macros {
        macros_name = Some(m.clone());
    }
    if opts.cat.is_empty() {
        return Err(LoadError::Other(format!(
            "{} names no model (a `model` line)",
            files
                .first()
                .map(String::as_str)
                .unwrap_or("the configuration")
        )));
    }
    opts.variants.extend(a.variant_list());
    opts.skip = a.skip.clone();
    let model_arch = config::find(&opts.cat, None, &opts.include_dirs)
        .and_then(|src| src.read().ok())
        .and_then(|text| title_arch(&text));
    let model = Model::load(&opts).map_err(|e| match e.line {
        // Not found: in herd's words, whatever the file was for.
        0 if e.msg == "cannot find bell file" => LoadError::NotFound("bell file", e.file, None),
        0 if e.msg.starts_with("cannot find") && e.file == opts.cat => {
            LoadError::NotFound("model file", e.file, opts.cat_named_at.clone())
        }
        0 if e.msg.starts_with("cannot find") => LoadError::NotFound("model file", e.file, None),
        _ => LoadError::Cat(e),
    })?;
    let macros = match macros_name {
        Some(p) => {
            let (m, src) = read_macros(&p, &opts.include_dirs)?;
            files.push(src);
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
        model_arch,
        explainer: explaining(&opts),
    }))
}

/// A macro (.def) file, looked up like the model's files; our `lkmm.def` stands in for
/// herd's `linux-kernel.def`.
fn read_macros(p: &Path, dirs: &[PathBuf]) -> Result<(Macros, String), LoadError> {
    let src = found(p, dirs, "macro file")?;
    let shown = src.display();
    if matches!(src, Source::Embedded("lkmm.def", _)) {
        return Ok((Macros::lkmm(), shown));
    }
    let text = src.read().map_err(LoadError::Other)?;
    // Our extensions for the names the file lacks (`Macros::with_extensions`).
    let m = Macros::parse(&text)
        .map(Macros::with_extensions)
        .map_err(|e| LoadError::Other(format!("{shown}: {e}")))?;
    Ok((m, shown))
}

/// How [`Loaded::files`] names our own macro file for the kernel's primitives.
const BUILTIN_MACROS: &str = "<builtin>/lkmm.def";

/// A model as a command line names it: a shipped model, or files in herd7's terms.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    Shipped(&'static str),
    Files(Box<Request>),
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
        Ok(Spec::Files(Box::new(r)))
    }

    /// A shipped model takes `base`'s variants and include folders (a file model has them
    /// already, from [`Spec::parse`]).
    pub fn load(&self, base: &Request) -> Result<Loaded, String> {
        match self {
            Spec::Shipped(n) => load_shipped(n, base).map_err(|e| e.to_string()),
            Spec::Files(r) => load_files(r)
                .map_err(|e| format!("error: {e}"))?
                .ok_or_else(|| "error: no model file given".into()),
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
