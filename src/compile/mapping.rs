//! Mapping tables: how each Linux-kernel primitive is implemented on one architecture.
//!
//! A table is a text file (`mappings/*.map`) of entries keyed by the kernel's own names
//! (`smp_store_release`, `atomic_fetch_add_acquire`, `spin_lock`), each citing the kernel
//! source it transcribes. An entry's body is either assembly with `{placeholders}` (the
//! architecture's inline asm) or C over other entries (the kernel's generic code, e.g.
//! asm-generic/qspinlock.h over `atomic_try_cmpxchg_acquire`). Lookup follows the kernel's
//! fallback rules (include/linux/atomic/atomic-arch-fallback.h): an ordering variant the
//! architecture does not define is built from its `_relaxed` form and fences, or is its
//! fully ordered form; generic entries come last.
//!
//! ```text
//! // comment
//! arch PPC                      // PPC, AArch64, X86_64, or `any` for generic code
//! include generic               // a shipped table by name, or a file next to this one
//! for ORD in _relaxed _acquire - // `-` is the empty word; `for A,B in a1,b1 a2,b2`
//! NAME$ORD(*p, +i, v) -> r   @ citation (file, version, symbol)
//!     lwarx {r},r0,{p}          // asm body: indented lines, `{L1}:` labels
//! end
//! NAME(p) -> r               @ citation
//!     {                         // C body: a block of C over other entries
//!     r = READ_ONCE(*p);
//!     }
//! ```
//! A parameter written `*p` takes an lvalue `*e` and binds the address `e`; `+i` is a
//! value the asm body overwrites (the compiler passes a copy, gcc's `"+r"`); `=c` is an
//! expression a C body evaluates each time it names it, with the caller's names and the
//! body's `VAL` (the kernel's `smp_cond_load_acquire(p, VAL == 1)`); any other
//! `{name}` in an asm body is a fresh scratch register, `{L...}` a fresh label. A body
//! that is one line `! reason` says the primitive has no instruction sequence, and why:
//! a test using it does not compile, with that reason.
//!
//! `atomic_long_*` and `atomic64_*` names resolve as their `atomic_*` forms, and
//! `cmpxchg64*`, `try_cmpxchg64*` as `cmpxchg*`, `try_cmpxchg*`, unless a table defines
//! them (include/linux/atomic/atomic-long.h: on 64-bit kernels `atomic_long_t` is
//! `atomic64_t`, whose operations are the same instruction sequences on 64-bit words;
//! herd's values have no width).

use crate::litmus::ast::Arch;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The tables shipped in the binary, by name.
pub const SHIPPED: &[(&str, &str)] = &[
    ("generic", include_str!("../../mappings/generic.map")),
    ("ppc-lwsync", include_str!("../../mappings/ppc-lwsync.map")),
    ("ppc-sync", include_str!("../../mappings/ppc-sync.map")),
    (
        "aarch64-llsc",
        include_str!("../../mappings/aarch64-llsc.map"),
    ),
    (
        "aarch64-lse",
        include_str!("../../mappings/aarch64-lse.map"),
    ),
    ("x86", include_str!("../../mappings/x86.map")),
];

/// The kernel's own mapping for each architecture, and its variants.
pub fn variants(arch: Arch) -> &'static [&'static str] {
    match arch {
        Arch::PPC => &["ppc-lwsync", "ppc-sync"],
        Arch::AArch64 => &["aarch64-llsc", "aarch64-lse"],
        Arch::X86 | Arch::X86_64 => &["x86"],
        _ => &[],
    }
}

/// Every architecture's kernel mappings, each architecture's default first: what a C test
/// goes through under a hardware model unless the user names mappings.
pub fn kernel() -> Result<Vec<Mapping>, MapError> {
    [Arch::X86_64, Arch::AArch64, Arch::PPC]
        .iter()
        .flat_map(|a| variants(*a))
        .map(|n| Mapping::load(n))
        .collect()
}

/// A mapping file's problem, located.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {msg}", place(file, *line, *col))]
pub struct MapError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub msg: String,
}

/// `file:line:col`, or the file alone for a problem with no place in it (line 0).
fn place(file: &str, line: usize, col: usize) -> String {
    if line == 0 {
        file.to_string()
    } else {
        format!("{file}:{line}:{col}")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// Bound to what the argument evaluates to (a value, an address, or `&local`).
    Value,
    /// `*p`: the argument is `*e`; bound to `e`.
    Lvalue,
    /// `+i`: a value the body overwrites; bound to a copy.
    Clobbered,
    /// `=c`: an expression, evaluated where the (C) body names it.
    Expr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
}

/// One line of an asm body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsmLine {
    /// `{L1}:`
    Label(String),
    /// An instruction with `{placeholders}`.
    Instr(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    Asm(Vec<(AsmLine, usize)>),
    /// C statements, as written (parsed when the entry is used).
    C(String),
    /// `! reason`: no instruction sequence implements the primitive.
    Refused(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub params: Vec<Param>,
    pub result: Option<String>,
    /// The kernel source it transcribes.
    pub cite: String,
    pub body: Body,
    /// Generic code (`arch any`), looked up after every architecture-specific rule.
    pub generic: bool,
    pub file: String,
    pub line: usize,
}

/// A loaded table: its own entries and those of the tables it includes.
#[derive(Clone, Debug)]
pub struct Mapping {
    pub name: String,
    pub arch: Arch,
    /// Where it came from: `shipped:NAME` or a path.
    pub origin: String,
    /// The first comment lines of the file: what the table is.
    pub about: String,
    entries: HashMap<String, Entry>,
    generic: HashMap<String, Entry>,
}

/// How a name resolved: the entry and the fences the kernel's fallback adds around it.
#[derive(Clone, Debug)]
pub struct Resolved<'a> {
    pub entry: &'a Entry,
    /// Fence entries to run before and after it (`__atomic_release_fence`, ...).
    pub before: Option<&'static str>,
    pub after: Option<&'static str>,
}

const ORDERINGS: [&str; 3] = ["_relaxed", "_acquire", "_release"];

impl Mapping {
    /// A shipped table by name, or a file.
    pub fn load(name_or_path: &str) -> Result<Mapping, MapError> {
        if let Some((n, text)) = SHIPPED.iter().find(|(n, _)| *n == name_or_path) {
            return parse_table(n, &format!("shipped:{n}"), text, None);
        }
        let path = Path::new(name_or_path);
        let text = crate::source::read_text(path).map_err(|e| {
            let (line, col) = match e {
                crate::source::SourceError::NotUtf8 { line, col, .. } => {
                    (line as usize, col as usize)
                }
                _ => (0, 0),
            };
            let msg = if path.exists() {
                e.reason()
            } else {
                "no shipped mapping or file of that name".into()
            };
            MapError {
                file: name_or_path.into(),
                line,
                col,
                msg: format!(
                    "{msg} (shipped mappings: {})",
                    SHIPPED
                        .iter()
                        .map(|(n, _)| *n)
                        .filter(|n| *n != "generic")
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        })?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| name_or_path.into());
        parse_table(&stem, name_or_path, &text, path.parent())
    }

    /// Every entry a lookup may reach, architecture-specific first.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        let mut a: Vec<&Entry> = self.entries.values().collect();
        a.sort_by(|x, y| x.name.cmp(&y.name));
        let mut g: Vec<&Entry> = self
            .generic
            .values()
            .filter(|e| !self.entries.contains_key(&e.name))
            .collect();
        g.sort_by(|x, y| x.name.cmp(&y.name));
        a.into_iter().chain(g)
    }

    /// The entry for a kernel name, by the kernel's fallback order: the architecture's
    /// own definition; for an ordering variant, the architecture's `_relaxed` form with
    /// the acquire/release/full fences, or its fully ordered form (which a `_relaxed`
    /// name also falls back on); then the generic definition.
    pub fn resolve(&self, name: &str) -> Option<Resolved<'_>> {
        let plain = |entry| Resolved {
            entry,
            before: None,
            after: None,
        };
        if let Some(e) = self.entries.get(name) {
            return Some(plain(e));
        }
        let (base, ord) = ORDERINGS
            .iter()
            .find_map(|o| name.strip_suffix(o).map(|b| (b, *o)))
            .unwrap_or((name, ""));
        if ord != "_relaxed"
            && let Some(e) = self.entries.get(&format!("{base}_relaxed"))
        {
            let (before, after) = match ord {
                "_acquire" => (None, Some("__atomic_acquire_fence")),
                "_release" => (Some("__atomic_release_fence"), None),
                _ => (
                    Some("__atomic_pre_full_fence"),
                    Some("__atomic_post_full_fence"),
                ),
            };
            return Some(Resolved {
                entry: e,
                before,
                after,
            });
        }
        if !ord.is_empty()
            && let Some(e) = self.entries.get(base)
        {
            return Some(plain(e));
        }
        if let Some(e) = self.generic.get(name) {
            return Some(plain(e));
        }
        alias(name).and_then(|a| self.resolve(&a))
    }
}

/// The `atomic_*`, `cmpxchg*` name a 64-bit or `long` form stands for.
fn alias(name: &str) -> Option<String> {
    for p in ["atomic_long_", "atomic64_"] {
        if let Some(rest) = name.strip_prefix(p) {
            return Some(format!("atomic_{rest}"));
        }
    }
    for p in ["cmpxchg64", "try_cmpxchg64"] {
        if let Some(rest) = name.strip_prefix(p) {
            return Some(format!("{}{rest}", &p[..p.len() - 2]));
        }
    }
    None
}

/// Parse a table's text; `dir` resolves includes of files.
pub fn parse_table(
    name: &str,
    origin: &str,
    text: &str,
    dir: Option<&Path>,
) -> Result<Mapping, MapError> {
    let mut m = Mapping {
        name: name.into(),
        arch: Arch::C,
        origin: origin.into(),
        about: String::new(),
        entries: HashMap::new(),
        generic: HashMap::new(),
    };
    let mut seen = vec![origin.to_string()];
    read_into(&mut m, origin, text, dir, &mut seen, true)?;
    if m.arch == Arch::C {
        return Err(MapError {
            file: origin.into(),
            line: 1,
            col: 1,
            msg: "the table names no architecture (`arch PPC`, `arch AArch64`, `arch X86_64`)"
                .into(),
        });
    }
    Ok(m)
}

struct Lines<'a> {
    file: &'a str,
}

impl Lines<'_> {
    fn err(&self, line: usize, col: usize, msg: impl Into<String>) -> MapError {
        MapError {
            file: self.file.into(),
            line,
            col,
            msg: msg.into(),
        }
    }
}

/// A `for` block's variables and their tuples.
type Loop = (Vec<String>, Vec<Vec<String>>);

fn read_into(
    m: &mut Mapping,
    file: &str,
    text: &str,
    dir: Option<&Path>,
    seen: &mut Vec<String>,
    top: bool,
) -> Result<(), MapError> {
    let at = Lines { file };
    let lines: Vec<&str> = text.lines().collect();
    let mut generic = false;
    let mut about_done = !top;
    let mut lp: Vec<(Loop, usize)> = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let raw = lines[k];
        let ln = k + 1;
        let line = strip_comment(raw);
        k += 1;
        if line.trim().is_empty() {
            if !about_done && !m.about.is_empty() && raw.trim().is_empty() {
                about_done = true;
            }
            if !about_done && let Some(c) = raw.trim().strip_prefix("//") {
                if !m.about.is_empty() {
                    m.about.push(' ');
                }
                m.about.push_str(c.trim());
            }
            continue;
        }
        about_done = true;
        if raw.starts_with([' ', '\t']) {
            return Err(at.err(ln, 1, "an indented line outside an entry's body"));
        }
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        match first {
            "arch" => {
                let a = words.next().unwrap_or("");
                if a == "any" {
                    generic = true;
                } else {
                    let Some(arch) = Arch::from_name(a).filter(|a| *a != Arch::C) else {
                        return Err(at.err(ln, 6, format!("unknown architecture `{a}`")));
                    };
                    if arch == Arch::X86 {
                        return Err(at.err(
                            ln,
                            6,
                            "herd's 32-bit X86 has no CMPXCHG: write x86 tables in herd's X86_64 syntax (`arch X86_64`, AT&T operands)",
                        ));
                    }
                    if m.arch != Arch::C && m.arch != arch {
                        return Err(at.err(
                            ln,
                            6,
                            format!("architecture {a} in a {} table", m.arch.name()),
                        ));
                    }
                    m.arch = arch;
                }
            }
            "include" => {
                let n = words.next().unwrap_or("");
                let (origin, body, sub) = match SHIPPED.iter().find(|(s, _)| *s == n) {
                    Some((s, t)) => (format!("shipped:{s}"), t.to_string(), None),
                    None => {
                        let p: PathBuf = dir.map(|d| d.join(n)).unwrap_or_else(|| n.into());
                        let t = std::fs::read_to_string(&p)
                            .map_err(|e| at.err(ln, 9, format!("include {n}: {e}")))?;
                        (
                            p.display().to_string(),
                            t,
                            p.parent().map(Path::to_path_buf),
                        )
                    }
                };
                if seen.contains(&origin) {
                    return Err(at.err(ln, 9, format!("{n} is included twice (or in a cycle)")));
                }
                seen.push(origin.clone());
                read_into(m, &origin, &body, sub.as_deref().or(dir), seen, false)?;
            }
            "for" => {
                let rest = line.trim_start()[3..].trim();
                let Some((vars, tuples)) = rest.split_once(" in ") else {
                    return Err(at.err(ln, 1, "expected `for VAR in WORD...`"));
                };
                let vars: Vec<String> = vars.split(',').map(|v| v.trim().to_string()).collect();
                let mut ts = Vec::new();
                for t in tuples.split_whitespace() {
                    let parts: Vec<String> = t
                        .split(',')
                        .map(|p| if p == "-" { String::new() } else { p.into() })
                        .collect();
                    if parts.len() != vars.len() {
                        return Err(at.err(
                            ln,
                            1,
                            format!(
                                "`{t}` has {} words for {} variables",
                                parts.len(),
                                vars.len()
                            ),
                        ));
                    }
                    ts.push(parts);
                }
                lp.push(((vars, ts), ln));
            }
            "end" => {
                if lp.pop().is_none() {
                    return Err(at.err(ln, 1, "`end` without `for`"));
                }
            }
            _ => {
                // An entry: its header and the indented body after it.
                let start = k;
                while k < lines.len()
                    && (lines[k].starts_with([' ', '\t'])
                        || strip_comment(lines[k]).trim().is_empty())
                {
                    k += 1;
                }
                let body: Vec<(usize, &str)> = (start..k)
                    .map(|j| (j + 1, lines[j]))
                    .filter(|(_, l)| !strip_comment(l).trim().is_empty())
                    .collect();
                // Nested `for` blocks: every combination of their tuples.
                let mut tuples: Vec<Vec<(String, String)>> = vec![Vec::new()];
                for ((vars, ts), _) in &lp {
                    tuples = tuples
                        .iter()
                        .flat_map(|done| {
                            ts.iter().map(move |t| {
                                let mut d = done.clone();
                                d.extend(vars.iter().cloned().zip(t.iter().cloned()));
                                d
                            })
                        })
                        .collect();
                }
                for subst in tuples {
                    let e = entry(&at, ln, line, &body, &subst, generic)?;
                    let table = if generic {
                        &mut m.generic
                    } else {
                        &mut m.entries
                    };
                    // A later table (the including one, read after its includes) overrides.
                    table.insert(e.name.clone(), e);
                }
            }
        }
    }
    if let Some((_, ln)) = lp.last() {
        return Err(at.err(*ln, 1, "`for` without `end`"));
    }
    Ok(())
}

fn strip_comment(l: &str) -> &str {
    match l.find("//") {
        Some(k) => &l[..k],
        None => l,
    }
}

fn substitute(s: &str, subst: &[(String, String)]) -> String {
    let mut out = s.to_string();
    let mut vars: Vec<&(String, String)> = subst.iter().collect();
    vars.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
    for (v, w) in vars {
        out = out.replace(&format!("${v}"), w);
    }
    out
}

fn entry(
    at: &Lines,
    ln: usize,
    header: &str,
    body: &[(usize, &str)],
    subst: &[(String, String)],
    generic: bool,
) -> Result<Entry, MapError> {
    let header = substitute(header, subst);
    let Some((sig, cite)) = header.split_once('@') else {
        return Err(at.err(
            ln,
            header.len() + 1,
            "an entry must cite its kernel source: `NAME(...) @ file: symbol`",
        ));
    };
    let cite = cite.trim().to_string();
    if cite.is_empty() {
        return Err(at.err(ln, header.len() + 1, "empty citation after `@`"));
    }
    let (call, result) = match sig.split_once("->") {
        Some((c, r)) => (c.trim(), Some(r.trim().to_string())),
        None => (sig.trim(), None),
    };
    let Some((name, params)) = call.split_once('(') else {
        return Err(at.err(ln, 1, format!("expected `NAME(PARAMS)`, found `{call}`")));
    };
    let name = name.trim().to_string();
    if !is_ident(&name) {
        return Err(at.err(ln, 1, format!("`{name}` is not a primitive name")));
    }
    let Some(params) = params.trim_end().strip_suffix(')') else {
        return Err(at.err(ln, name.len() + 1, "missing `)`"));
    };
    let mut ps = Vec::new();
    for p in params.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (kind, n) = if let Some(n) = p.strip_prefix('*') {
            (ParamKind::Lvalue, n.trim())
        } else if let Some(n) = p.strip_prefix('+') {
            (ParamKind::Clobbered, n.trim())
        } else if let Some(n) = p.strip_prefix('=') {
            (ParamKind::Expr, n.trim())
        } else {
            (ParamKind::Value, p)
        };
        if !is_ident(n) {
            return Err(at.err(ln, 1, format!("bad parameter `{p}` of {name}")));
        }
        ps.push(Param {
            name: n.into(),
            kind,
        });
    }
    if let Some(r) = &result
        && !is_ident(r)
    {
        return Err(at.err(ln, 1, format!("bad result name `{r}` of {name}")));
    }
    let lines: Vec<(usize, String)> = body
        .iter()
        .map(|(l, s)| (*l, substitute(strip_comment(s).trim(), subst)))
        .collect();
    let body = if let [(_, only)] = lines.as_slice()
        && let Some(why) = only.strip_prefix('!')
    {
        Body::Refused(why.trim().to_string())
    } else if lines.first().is_some_and(|(_, s)| s == "{") {
        if lines.last().is_none_or(|(_, s)| s != "}") || lines.len() < 2 {
            return Err(at.err(lines[0].0, 1, "a C body's `{` has no closing `}` line"));
        }
        // Keep the line numbers: blank lines up to the body's first line.
        let first = lines[0].0;
        let mut text = "\n".repeat(first);
        for (l, s) in &lines[1..lines.len() - 1] {
            while text.matches('\n').count() < *l - 1 {
                text.push('\n');
            }
            text.push_str(s);
            text.push('\n');
        }
        Body::C(text)
    } else {
        let mut out = Vec::new();
        for (l, s) in lines {
            let s = s.as_str();
            if let Some(lab) = s.strip_suffix(':')
                && let Some(n) = placeholder(lab)
            {
                out.push((AsmLine::Label(n.into()), l));
            } else if let Some((lab, rest)) = s.split_once(':')
                && let Some(n) = placeholder(lab.trim())
            {
                out.push((AsmLine::Label(n.into()), l));
                out.push((AsmLine::Instr(rest.trim().into()), l));
            } else {
                out.push((AsmLine::Instr(s.into()), l));
            }
        }
        for (line, l) in &out {
            if let AsmLine::Label(n) = line
                && !n.starts_with('L')
            {
                return Err(at.err(*l, 1, format!("label placeholders start with L: `{{{n}}}`")));
            }
        }
        Body::Asm(out)
    };
    Ok(Entry {
        name,
        params: ps,
        result,
        cite,
        body,
        generic,
        file: at.file.into(),
        line: ln,
    })
}

/// `{name}` → `name`.
fn placeholder(s: &str) -> Option<&str> {
    s.strip_prefix('{')?
        .strip_suffix('}')
        .filter(|n| is_ident(n))
}

pub fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// The `{names}` in an instruction template, in order.
pub fn placeholders(t: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(a) = rest.find('{') {
        let Some(b) = rest[a..].find('}') else { break };
        out.push(&rest[a + 1..a + b]);
        rest = &rest[a + b + 1..];
    }
    out
}
