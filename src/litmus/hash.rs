//! herd's `Hash=` line: the MD5 digest herdtools7 computes for a test (lib/testHash.ml,
//! lib/CTestHash.ml, lib/genParser.ml, lib/CGenParser_lib.ml), so that a log we print has
//! the line herd7 prints and tools that compare logs by hash (`mcompare7`, `msort7`) see the
//! same test.
//!
//! herd digests four texts, each with MD5, and prints the MD5 of the four raw digests
//! concatenated, in hexadecimal:
//! - the `MemoryType`/`MT`/`CacheType` header lines, `key=value` lower-cased and in reverse
//!   key order (nothing at all, not even a digest, when there is none: most tests);
//! - the initial state, sorted by location (registers by thread then name, then memory by
//!   name), duplicates dropped, each item as `[type ]loc=value` (`*loc=v`, `t *loc=v`,
//!   `t loc[n]` for an array), joined by `; `;
//! - the code: for C, each thread as `P0(int* x, ...) {\nBODY\n}\n`, the body's text exactly
//!   as written between its braces and each parameter's type with its outer `*` moved to
//!   the type; for assembly, every instruction printed as herd prints it (labels renamed
//!   `L00`, `L01`, ... in sorted order, 64-bit PPC loads and stores as their 32-bit forms,
//!   X86 `MOVB`..`MOVT` as `MOV`), in herd's column layout (` cell | cell ;\n`, cells padded
//!   to their column's width);
//! - the observed locations (the `locations` line and the condition's), sorted, joined by
//!   `; `.
//!
//! A test whose header has a `Hash=` line keeps it, as in herd.

use super::ast::*;
use md5::{Digest, Md5};
use std::cmp::Ordering;
use std::collections::BTreeSet;

/// The `Hash=` value herd7 prints for the test `t` whose text is `src`.
pub fn herd_hash(src: &str, t: &Test) -> String {
    if let Some((_, h)) = t.info.iter().find(|(k, _)| k == "Hash") {
        return h.trim().to_string();
    }
    let mut all = Vec::with_capacity(64);
    all.extend(digest_info(&t.info));
    all.extend(md5(init_text(t).as_bytes()));
    all.extend(md5(code_text(src, t).as_bytes()));
    all.extend(md5(observed_text(t).as_bytes()));
    hex(&md5(&all))
}

fn md5(b: &[u8]) -> [u8; 16] {
    Md5::digest(b).into()
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// herd's `digest_info`: only these keys count; none gives no bytes at all.
fn digest_info(info: &[(String, String)]) -> Vec<u8> {
    const KEYS: [&str; 3] = ["MemoryType", "MT", "CacheType"];
    let mut kept: Vec<&(String, String)> = info.iter().collect();
    kept.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let ds: Vec<String> = kept
        .iter()
        .filter(|(k, _)| KEYS.iter().any(|d| d.eq_ignore_ascii_case(k)))
        .map(|(k, v)| format!("{}={}", k.to_ascii_lowercase(), v))
        .collect();
    if ds.is_empty() {
        return Vec::new();
    }
    // herd folds with `::`, so the list comes out reversed.
    let s: String = ds.iter().rev().cloned().collect();
    md5(s.as_bytes()).to_vec()
}

// ------------------------------------------------------------------ locations

/// A location as herd orders it (`MiscParser.location_compare`): registers by thread then
/// name, symbolic registers, then memory (plain names, then physical, then page-table
/// entries), each by name.
fn loc_key(l: &LocRef) -> (u8, u32, u8, Vec<u8>, i64) {
    match l {
        LocRef::Reg { proc, reg } => (0, *proc, 0, reg.as_bytes().to_vec(), 0),
        LocRef::Global(g) if g.starts_with('%') => (1, 0, 0, g.as_bytes()[1..].to_vec(), 0),
        LocRef::Global(g) => {
            let (kind, name, off) = global_parts(g);
            (2, 0, kind, name.as_bytes().to_vec(), off)
        }
    }
}

/// A memory location's symbol kind (0 virtual, 1 physical, 3 page-table entry), its name
/// and its offset (`x+4`).
fn global_parts(g: &str) -> (u8, String, i64) {
    let inner = |p: &str| g.strip_prefix(p).and_then(|r| r.strip_suffix(')'));
    if let Some(n) = inner("PTE(") {
        return (3, n.to_string(), 0);
    }
    if let Some(n) = inner("PA(") {
        return (1, n.to_string(), 0);
    }
    if let Some((n, o)) = g.split_once('+')
        && let Ok(o) = o.parse::<i64>()
    {
        return (0, n.to_string(), o);
    }
    (0, g.to_string(), 0)
}

fn loc_cmp(a: &LocRef, b: &LocRef) -> Ordering {
    loc_key(a).cmp(&loc_key(b))
}

/// herd's old printing of a location (`TestHash.dump_location`, `ParsedConstant.pp_v_old`):
/// `PTE(x)` is `pte_x`, a symbolic register `%r` is `r`.
fn dump_loc(l: &LocRef) -> String {
    match l {
        LocRef::Reg { proc, reg } => format!("{proc}:{reg}"),
        LocRef::Global(g) if g.starts_with('%') => g[1..].to_string(),
        LocRef::Global(g) => match global_parts(g) {
            (3, n, _) => format!("pte_{n}"),
            (1, n, _) => format!("phy_{n}"),
            _ => g.clone(),
        },
    }
}

fn dump_value(v: &ValueLit) -> String {
    match v {
        ValueLit::Int(i) => i.to_string(),
        ValueLit::Addr { name, .. } => dump_loc(&LocRef::Global(name.clone())),
    }
}

// ---------------------------------------------------------------------- init

fn init_text(t: &Test) -> String {
    let mut items: Vec<&InitEntry> = t.init.iter().collect();
    items.sort_by(|a, b| loc_cmp(&a.loc, &b.loc));
    items.dedup_by(|b, a| loc_cmp(&a.loc, &b.loc) == Ordering::Equal);
    let parts: Vec<String> = items.iter().map(|e| init_item(e)).collect();
    parts.join("; ")
}

fn init_item(e: &InitEntry) -> String {
    let loc = dump_loc(&e.loc);
    let pte = match &e.value {
        Some(ValueLit::Addr { name, .. }) if name.starts_with('(') => {
            let own = match &e.loc {
                LocRef::Global(g) => match global_parts(g) {
                    (3, n, _) => Some(n),
                    _ => None,
                },
                LocRef::Reg { .. } => None,
            };
            Some(pteval(name, own.as_deref()))
        }
        _ => None,
    };
    let v = match (&pte, &e.value) {
        (Some(p), _) => p.clone(),
        (None, v) => v.as_ref().map_or_else(|| "0".to_string(), dump_value),
    };
    let ty = e.ty.as_deref().or(pte.as_ref().map(|_| "pteval_t"));
    let Some(ty) = ty else {
        return format!("{loc}={v}");
    };
    if let Some(k) = ty.find('[') {
        let (base, size) = ty.split_at(k);
        return format!("{} {loc}{size}", base.trim());
    }
    let ty = ty.trim();
    if ty == "*" {
        return format!("*{loc}={v}");
    }
    if let Some(base) = ty.strip_suffix('*') {
        return format!("{} *{loc}={v}", base.trim());
    }
    format!("{ty} {loc}={v}")
}

/// An AArch64 page-table entry as herd hashes it (`AArch64PteVal.pp_hash`): the output
/// address in the old style (`phy_x`), then `af`, `db`, `dbm`, `valid` always, `el0` and
/// attributes only when not the default. `own` is the `x` of an entry written to `PTE(x)`,
/// whose output address defaults to `PA(x)`.
fn pteval(text: &str, own: Option<&str>) -> String {
    let t = text.trim();
    let inner = t.strip_prefix('(').unwrap_or(t);
    let inner = inner.strip_suffix(')').unwrap_or(inner);
    let mut oa = own.map_or_else(|| "phy_".to_string(), |x| format!("phy_{x}"));
    let (mut af, mut db, mut dbm, mut valid, mut el0) = (1, 1, 0, 1, 1);
    let mut attrs: BTreeSet<String> = BTreeSet::new();
    for f in inner.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        match f.split_once(':') {
            Some(("oa", a)) => oa = dump_loc(&LocRef::Global(a.trim().to_string())),
            Some((k, v)) => {
                let v: i64 = v.trim().parse().unwrap_or(0);
                match k.trim() {
                    "af" => af = v,
                    "db" => db = v,
                    "dbm" => dbm = v,
                    "valid" => valid = v,
                    "el0" => el0 = v,
                    _ => {}
                }
            }
            None => {
                attrs.insert(f.to_string());
            }
        }
    }
    let mut fs = vec![
        format!("oa:{oa}"),
        format!("af:{af}"),
        format!("db:{db}"),
        format!("dbm:{dbm}"),
        format!("valid:{valid}"),
    ];
    if el0 != 1 {
        fs.push(format!("el0:{el0}"));
    }
    if !attrs.is_empty() {
        fs.push(attrs.into_iter().collect::<Vec<_>>().join(", "));
    }
    format!("({})", fs.join(", "))
}

// ------------------------------------------------------------------ observed

fn observed_text(t: &Test) -> String {
    let mut locs: Vec<LocRef> = t.locations.clone();
    prop_locs(&t.condition.prop, &mut locs);
    locs.sort_by(loc_cmp);
    locs.dedup_by(|b, a| loc_cmp(a, b) == Ordering::Equal);
    let parts: Vec<String> = locs.iter().map(dump_loc).collect();
    parts.join("; ")
}

fn prop_locs(p: &Prop, out: &mut Vec<LocRef>) {
    match p {
        Prop::True | Prop::False => {}
        Prop::Eq(LocRef::Global(g), _) if g.starts_with("fault(") => {
            // `fault(P0:L0,x)` observes x; `fault(P0:L0)` and fault types nothing.
            let args = g.trim_start_matches("fault(").trim_end_matches(')');
            if let Some(x) = args.split(',').nth(1) {
                let x = x.trim();
                if x.starts_with(|c: char| c.is_ascii_lowercase()) {
                    out.push(LocRef::Global(x.to_string()));
                }
            }
        }
        Prop::Eq(l, _) | Prop::Ne(l, _) => out.push(l.clone()),
        Prop::EqLoc(a, b) => {
            out.push(a.clone());
            out.push(b.clone());
        }
        Prop::Not(p) => prop_locs(p, out),
        Prop::And(ps) | Prop::Or(ps) => ps.iter().for_each(|p| prop_locs(p, out)),
        Prop::Implies(a, b) => {
            prop_locs(a, out);
            prop_locs(b, out);
        }
    }
}

// ---------------------------------------------------------------------- code

fn code_text(src: &str, t: &Test) -> String {
    let columns: Vec<Vec<String>> = if t.arch == Arch::C {
        c_columns(src)
    } else {
        asm_columns(t)
    };
    string_of_prog(&columns)
}

/// herd's `Misc.string_of_prog`: row by row, each cell ` text ` padded to its column's
/// widest text, cells joined by `|`, rows ended by `;\n`.
fn string_of_prog(cols: &[Vec<String>]) -> String {
    let widths: Vec<usize> = cols
        .iter()
        .map(|c| c.iter().map(|s| s.len()).max().unwrap_or(0))
        .collect();
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for r in 0..rows {
        let cells: Vec<String> = cols
            .iter()
            .zip(&widths)
            .map(|(c, &w)| {
                let s = c.get(r).map_or("", String::as_str);
                format!(" {s:<w$} ")
            })
            .collect();
        out.push_str(&cells.join("|"));
        out.push_str(";\n");
    }
    out
}

// ------------------------------------------------------------------------- C

/// The C threads as herd's shallow parser reads them: each thread's parameters and the
/// exact text of its body, one column each (a bare `{ ... }` block is a column too).
fn c_columns(src: &str) -> Vec<Vec<String>> {
    let b = src.as_bytes();
    let Some(mut i) = after_init(b) else {
        return Vec::new();
    };
    let mut cols = Vec::new();
    loop {
        i = skip_c_blanks(b, i);
        if b[i..].starts_with(b"void") && !b.get(i + 4).is_some_and(|c| is_ident(*c)) {
            i = skip_c_blanks(b, i + 4);
            if b.get(i) == Some(&b'*') {
                i = skip_c_blanks(b, i + 1);
            }
        }
        match b.get(i) {
            Some(b'P') if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let start = i + 1;
                let mut k = start;
                while b.get(k).is_some_and(u8::is_ascii_digit) {
                    k += 1;
                }
                let proc: u64 = src[start..k].parse().unwrap_or(0);
                k = skip_c_blanks(b, k);
                if b.get(k) != Some(&b'(') {
                    break;
                }
                let Some(close) = src[k..].find(')').map(|c| k + c) else {
                    break;
                };
                let params = c_params(&src[k + 1..close]);
                k = skip_c_blanks(b, close + 1);
                if b.get(k) != Some(&b'{') {
                    break;
                }
                let Some(end) = body_end(b, k + 1) else {
                    break;
                };
                let body = &src[k + 1..end];
                cols.push(vec![format!("P{proc}({params}) {{\n{body}\n}}\n")]);
                i = end + 1;
            }
            Some(b'{') => {
                let Some(end) = body_end(b, i + 1) else {
                    break;
                };
                cols.push(vec![format!("{{{}}}\n\n", &src[i + 1..end])]);
                i = end + 1;
            }
            _ => break,
        }
    }
    cols
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Where the code starts: after the initial state's closing brace (herd's splitter: the
/// first `{` after the header, comments skipped; braces inside it nest).
fn after_init(b: &[u8]) -> Option<usize> {
    let mut i = b.iter().position(|&c| c == b'\n')?;
    while i < b.len() {
        if b[i..].starts_with(b"(*") {
            i = skip_ml_comment(b, i);
        } else if b[i] == b'{' {
            break;
        } else {
            i += 1;
        }
    }
    let mut depth = 0usize;
    while i < b.len() {
        if b[i..].starts_with(b"(*") {
            i = skip_ml_comment(b, i);
            continue;
        }
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Past a `(* ... *)` comment (nested) starting at `i`.
fn skip_ml_comment(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        if b[i..].starts_with(b"(*") {
            depth += 1;
            i += 2;
        } else if b[i..].starts_with(b"*)") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// Blanks and C comments (`/* */`, `//`; `(* *)` too, leniently).
fn skip_c_blanks(b: &[u8], mut i: usize) -> usize {
    loop {
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        if b[i.min(b.len())..].starts_with(b"/*") {
            i = match b[i + 2..].windows(2).position(|w| w == b"*/") {
                Some(k) => i + 2 + k + 2,
                None => b.len(),
            };
        } else if b[i.min(b.len())..].starts_with(b"//") {
            i = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |k| i + k);
        } else if b[i.min(b.len())..].starts_with(b"(*") {
            i = skip_ml_comment(b, i);
        } else {
            return i.min(b.len());
        }
    }
}

/// The index of the `}` closing a body whose text starts at `i` (herd counts every brace).
fn body_end(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' if depth == 0 => return Some(i),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// A C type as herd's parser builds it (`CType.t`).
enum CType {
    Base(String),
    Volatile(Box<CType>),
    Const(Box<CType>),
    Atomic(Box<CType>),
    Pointer(Box<CType>),
}

impl CType {
    /// `CType.dump`.
    fn dump(&self) -> String {
        match self {
            CType::Base(s) => s.clone(),
            CType::Volatile(t) => match &**t {
                CType::Base(s) => format!("volatile {s}"),
                t => format!("{} volatile", t.dump()),
            },
            CType::Atomic(t) => match &**t {
                CType::Base(s) => format!("_Atomic {s}"),
                t => format!("_Atomic ({})", t.dump()),
            },
            CType::Const(t) => format!("{} const", t.dump()),
            CType::Pointer(t) => format!("{}*", t.dump()),
        }
    }
}

/// The parameters as herd hashes them: `int *x, spinlock_t *s` → `int* x, spinlock_t* s`.
fn c_params(text: &str) -> String {
    let params: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut toks: Vec<String> = Vec::new();
            let pb = p.as_bytes();
            let mut k = 0;
            while k < pb.len() {
                if pb[k] == b'*' {
                    toks.push("*".into());
                    k += 1;
                } else if is_ident(pb[k]) {
                    let s = k;
                    while k < pb.len() && is_ident(pb[k]) {
                        k += 1;
                    }
                    toks.push(p[s..k].to_string());
                } else {
                    k += 1;
                }
            }
            let name = toks.pop().unwrap_or_default();
            let ty = match c_type(&toks) {
                CType::Pointer(t) => *t,
                t => t,
            };
            format!("{}* {name}", ty.dump())
        })
        .collect();
    params.join(", ")
}

fn c_type(toks: &[String]) -> CType {
    let mut i = 0;
    let prefix = match toks.first().map(String::as_str) {
        Some(q @ ("volatile" | "const" | "_Atomic")) => {
            i = 1;
            Some(q)
        }
        _ => None,
    };
    let mut words = Vec::new();
    while i < toks.len() && !matches!(toks[i].as_str(), "*" | "volatile" | "const") {
        words.push(toks[i].as_str());
        i += 1;
    }
    let mut t = match words.as_slice() {
        ["atomic_int"] => CType::Atomic(Box::new(CType::Base("int".into()))),
        ws => CType::Base(ws.join(" ")),
    };
    t = match prefix {
        Some("volatile") => CType::Volatile(Box::new(t)),
        Some("const") => CType::Const(Box::new(t)),
        Some(_) => CType::Atomic(Box::new(t)),
        None => t,
    };
    for tok in &toks[i..] {
        t = match tok.as_str() {
            "*" => CType::Pointer(Box::new(t)),
            "volatile" => CType::Volatile(Box::new(t)),
            _ => CType::Const(Box::new(t)),
        };
    }
    t
}

// ------------------------------------------------------------------ assembly

fn asm_columns(t: &Test) -> Vec<Vec<String>> {
    // Every label, defined or branched to, renamed in sorted order.
    let mut labels: BTreeSet<&str> = BTreeSet::new();
    for th in &t.threads {
        if let Thread::Asm(a) = th {
            for l in &a.code {
                labels.extend(l.label.as_deref());
                if let Some(i) = &l.instr
                    && is_branch(t.arch, &i.op)
                {
                    for o in &i.args {
                        if let Operand::Sym(s) = o {
                            labels.insert(s);
                        }
                    }
                }
            }
        }
    }
    let renamed = |l: &str| {
        labels
            .iter()
            .position(|x| *x == l)
            .map_or_else(|| l.to_string(), |k| format!("L{k:02}"))
    };
    t.threads
        .iter()
        .map(|th| match th {
            Thread::Asm(a) => {
                let mut col = Vec::new();
                for l in &a.code {
                    if let Some(lbl) = &l.label {
                        col.push(format!("{}:", renamed(lbl)));
                    }
                    if let Some(i) = &l.instr {
                        let mut i = i.clone();
                        if is_branch(t.arch, &i.op) {
                            for o in &mut i.args {
                                if let Operand::Sym(s) = o {
                                    *s = renamed(s);
                                }
                            }
                        }
                        col.push(dump_instr(t.arch, &i));
                    }
                }
                col
            }
            Thread::C(_) => Vec::new(),
        })
        .collect()
}

fn is_branch(arch: Arch, op: &str) -> bool {
    match arch {
        Arch::AArch64 => {
            matches!(op, "B" | "BL" | "CBZ" | "CBNZ" | "TBZ" | "TBNZ") || op.starts_with("B.")
        }
        Arch::PPC => {
            op.starts_with('b') && !matches!(op, "blr")
                || matches!(op, "beq" | "bne" | "blt" | "bge" | "bgt" | "ble")
        }
        Arch::X86 => op.starts_with('J'),
        Arch::X86_64 => op.starts_with('j'),
        Arch::C => false,
    }
}

/// One instruction as herd's `dump_instruction_hash` prints it, after `norm_ins`.
fn dump_instr(arch: Arch, i: &Instr) -> String {
    match arch {
        Arch::AArch64 => aarch64(i),
        Arch::PPC => ppc(i),
        Arch::X86 => x86(i),
        Arch::X86_64 => x86_64(i),
        Arch::C => String::new(),
    }
}

fn join(op: &str, args: &[String]) -> String {
    if args.is_empty() {
        op.to_string()
    } else {
        format!("{op} {}", args.join(","))
    }
}

fn aarch64(i: &Instr) -> String {
    let mut args: Vec<String> = Vec::new();
    for (k, o) in i.args.iter().enumerate() {
        match (o, k.checked_sub(1).map(|p| &i.args[p])) {
            // Post-index, as herd's compat printing writes it: `[X1]#4` (` [X1]#4` in a pair).
            (Operand::Imm(n), Some(Operand::Mem(_))) => {
                let last = args.last_mut().expect("a memory operand before");
                last.push_str(&format!("#{n}"));
                if matches!(i.op.as_str(), "LDP" | "STP" | "LDNP" | "STNP" | "LDPSW") {
                    last.insert(0, ' ');
                }
            }
            _ => args.push(aarch64_operand(o)),
        }
    }
    match i.op.as_str() {
        "LDUR" if args.len() == 2 => format!("LDUR {}, {}", args[0], args[1]),
        op => join(op, &args),
    }
}

fn aarch64_operand(o: &Operand) -> String {
    match o {
        Operand::Reg(r) => r.clone(),
        Operand::Imm(k) => format!("#{k}"),
        Operand::Sym(s) => s.clone(),
        Operand::Shift { kind, amount } => match amount {
            Some(k) => format!("{kind} #{k}"),
            None => kind.clone(),
        },
        Operand::Mem(m) => {
            let base = match &m.base {
                MemBase::Reg(r) | MemBase::Sym(r) => r.clone(),
            };
            match (&m.index, &m.shift) {
                (None, _) if m.offset == 0 => format!("[{base}]"),
                (None, _) => format!("[{base},#{}]", m.offset),
                (Some(x), None) => format!("[{base},{x}]"),
                (Some(x), Some((k, None))) | (Some(x), Some((k, Some(0)))) if k == "LSL" => {
                    format!("[{base},{x}]")
                }
                (Some(x), Some((k, None))) | (Some(x), Some((k, Some(0)))) => {
                    format!("[{base},{x},{k}]")
                }
                (Some(x), Some((k, Some(n)))) => format!("[{base},{x},{k} #{n}]"),
            }
        }
    }
}

fn ppc(i: &Instr) -> String {
    let reg = |o: &Operand| match o {
        Operand::Reg(r) => r.clone(),
        Operand::Imm(k) => k.to_string(),
        Operand::Sym(s) => s.clone(),
        Operand::Mem(m) => {
            let b = match &m.base {
                MemBase::Reg(r) | MemBase::Sym(r) => r.clone(),
            };
            format!("{}({b})", m.offset)
        }
        Operand::Shift { kind, .. } => kind.clone(),
    };
    let args: Vec<String> = i.args.iter().map(reg).collect();
    // norm_ins: back to 32 bits.
    let op = match i.op.as_str() {
        "ld" => "lwz",
        "std" => "stw",
        "ldx" => "lwzx",
        "stdx" => "stwx",
        "hwsync" => "sync",
        op => op,
    };
    match op {
        "b" | "bl" => format!("{op}   {}", args.join(",")),
        "beq" | "bne" | "blt" | "bge" | "bgt" | "ble" => format!("{op}  {}", args.join(",")),
        "extsw" => format!("extsw {}", args.join(", ")),
        "rlwinm" | "rlwimi" if args.len() == 5 => format!(
            "{op} {},{},{}, {},{}",
            args[0], args[1], args[2], args[3], args[4]
        ),
        "cmpwi" | "cmplwi" | "cmpw" if args.len() == 3 && args[0] == "cr0" => join(op, &args[1..]),
        op => join(op, &args),
    }
}

fn x86(i: &Instr) -> String {
    let operand = |o: &Operand| match o {
        Operand::Reg(r) => r.clone(),
        Operand::Imm(k) => format!("${k}"),
        Operand::Sym(s) => s.clone(),
        Operand::Mem(m) => match &m.base {
            MemBase::Reg(r) | MemBase::Sym(r) => format!("[{r}]"),
        },
        Operand::Shift { kind, .. } => kind.clone(),
    };
    let args: Vec<String> = i.args.iter().map(operand).collect();
    let (lock, op) = match i.op.strip_prefix("LOCK ") {
        Some(op) => ("LOCK; ", op),
        None => ("", i.op.as_str()),
    };
    let op = match op {
        "MOVB" | "MOVW" | "MOVL" | "MOVQ" | "MOVT" => "MOV",
        op => op,
    };
    let body = match op {
        // herd's opcode strings for these end with a blank.
        "DEC" | "CMP" | "INC" => format!("{op}  {}", args.join(",")),
        _ => join(op, &args),
    };
    format!("{lock}{body}")
}

fn x86_64(i: &Instr) -> String {
    let operand = |o: &Operand| match o {
        Operand::Reg(r) => r.clone(),
        Operand::Imm(k) => format!("${k}"),
        Operand::Sym(s) => s.clone(),
        Operand::Mem(m) => {
            let off = if m.offset == 0 {
                String::new()
            } else {
                m.offset.to_string()
            };
            match (&m.base, &m.index) {
                (MemBase::Sym(x), _) => format!("({x})"),
                (MemBase::Reg(r), None) => format!("{off}({r})"),
                (MemBase::Reg(r), Some(x)) => {
                    let sc = match m.scale {
                        Some(0) | None => String::new(),
                        Some(s) => s.to_string(),
                    };
                    format!("{off}({r}, {x},{sc})")
                }
            }
        }
        Operand::Shift { kind, .. } => kind.clone(),
    };
    let args: Vec<String> = i.args.iter().map(operand).collect();
    let (lock, op) = match i.op.strip_prefix("lock ") {
        Some(op) => ("lock; ", op),
        None => ("", i.op.as_str()),
    };
    let body = match op {
        "nop" => "NOP".to_string(),
        "jlt" => join("jl", &args),
        "jgt" => join("jg", &args),
        _ => join(op, &args),
    };
    format!("{lock}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_parameter_types_as_herd_prints_them() {
        assert_eq!(c_params("int *x, spinlock_t *s"), "int* x, spinlock_t* s");
        assert_eq!(c_params("volatile int *x"), "volatile int* x");
        assert_eq!(c_params("int **p"), "int** p");
        assert_eq!(c_params("struct srcu_struct *ss"), "struct srcu_struct* ss");
        assert_eq!(c_params("atomic_int *a"), "_Atomic int* a");
        assert_eq!(c_params(""), "");
    }

    #[test]
    fn the_layout_pads_cells_to_their_column() {
        let cols = vec![
            vec!["MOV W0,#1".to_string(), "STR W0,[X1]".to_string()],
            vec!["LDR W0,[X1]".to_string()],
        ];
        assert_eq!(
            string_of_prog(&cols),
            " MOV W0,#1   | LDR W0,[X1] ;\n STR W0,[X1] |             ;\n"
        );
    }
}
