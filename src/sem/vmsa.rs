//! herd's virtual-memory variant (`Variant=vmsa`), kept symbolic as herd keeps it.
//!
//! Each virtual location `x` has a translation-table entry, the location `PTE(x)`,
//! whose value is an entry record such as `(oa:PA(y), valid:0)`; the location `x`
//! itself stands for the physical memory `PA(x)`. Entry values are symbols named by
//! their canonical spelling ([`canonical_entry`]), so equal entries are equal values.
//! Shifting an address right by 12 gives its page, the symbol `page(x)`, which is
//! what `TLBI` takes.

use super::{Deps, EventData, Kind, LocId, Stop, Symbols, TVal, Tracer, Value};

/// Entry fields and their defaults, in the order herd prints them; default values are
/// left out of the canonical spelling.
const DEFAULTS: [(&str, &str); 6] = [
    ("oa", ""),
    ("valid", "1"),
    ("af", "1"),
    ("db", "1"),
    ("dbm", "0"),
    ("el0", "1"),
];

/// The canonical spelling of an entry literal `(oa:PA(x), valid:1)`: known fields in a
/// fixed order, defaults dropped (here `(oa:PA(x))`); `None` when `text` is no entry.
pub fn canonical_entry(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut fields: Vec<(&str, &str)> = Vec::new();
    for f in split_top(inner) {
        let (k, v) = f.split_once(':')?;
        let (k, v) = (k.trim(), v.trim());
        DEFAULTS.iter().find(|(d, _)| *d == k)?;
        fields.push((k, v));
    }
    let shown: Vec<String> = DEFAULTS
        .iter()
        .filter_map(|(k, d)| {
            let v = fields.iter().rev().find(|(f, _)| f == k)?.1;
            (v != *d).then(|| format!("{k}:{v}"))
        })
        .collect();
    Some(format!("({})", shown.join(", ")))
}

/// Split at commas outside parentheses.
fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(&s[start..]);
    }
    out
}

/// What a translation needs from an entry: whether it is valid, and the physical page
/// (location name) it maps to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub valid: bool,
    pub oa: Option<String>,
}

/// Read a canonical entry name back.
pub fn entry(name: &str) -> Option<Entry> {
    let inner = name.strip_prefix('(')?.strip_suffix(')')?;
    let mut e = Entry {
        valid: true,
        oa: None,
    };
    for f in split_top(inner) {
        let (k, v) = f.split_once(':')?;
        match k.trim() {
            "valid" => e.valid = v.trim() != "0",
            "oa" => {
                let v = v.trim();
                e.oa = Some(v.strip_prefix("PA(")?.strip_suffix(')')?.to_string());
            }
            _ => {}
        }
    }
    Some(e)
}

/// Whether `name` is a virtual location: a plain identifier, not an entry, a page, a
/// code label or an instruction.
pub fn is_virtual(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        && !name.as_bytes()[0].is_ascii_digit()
}

/// The location of `x`'s entry.
pub fn pte_of(x: &str) -> String {
    format!("PTE({x})")
}

/// The page of `x` (`x` shifted right by the page size).
pub fn page_of(x: &str) -> String {
    format!("page({x})")
}

/// The location whose page `name` is.
pub fn page_owner(name: &str) -> Option<&str> {
    name.strip_prefix("page(")?.strip_suffix(')')
}

/// The initial entry of `x`: identity mapping, valid.
pub fn identity_entry(x: &str) -> String {
    format!("(oa:PA({x}))")
}

/// How an explicit access reaches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Translation {
    /// No translation: not a virtual address, or the variant is off.
    Direct,
    /// The entry maps the address to `phys`; the access is `iico_ctrl` after `branch`.
    Mapped { phys: Value, branch: usize },
    /// The entry is invalid: a translation fault `event` on virtual `loc`, instead of
    /// the access.
    Fault { loc: LocId, event: usize },
}

/// The translation of an explicit access to `addr` (herd's `check_ptw`): an implicit
/// read of the entry (`Imp`, `TTD`), a branch on its validity fed by it (`iico_data`),
/// and then either the access at the entry's output address, or a fault event
/// (`MMU`, `FAULT`) `iico_ctrl` after the branch.
pub fn translate(t: &mut Tracer, addr: TVal) -> Result<Translation, Stop> {
    let syms = t.symbols;
    let Value::Addr(l) = addr.v else {
        return Ok(Translation::Direct);
    };
    let Some(pte) = syms.vmsa.then(|| syms.get(&pte_of(syms.name(l)))).flatten() else {
        return Ok(Translation::Direct);
    };
    let (r, e) = t.read(
        TVal {
            v: Value::Addr(pte),
            deps: addr.deps,
        },
        &["Imp", "TTD", "PTE"],
    )?;
    let b = t.event(
        EventData {
            kind: Kind::Branch,
            loc: None,
            val: None,
            tags: vec!["Branching".to_string()],
            instr: 0,
        },
        Deps::NONE,
        Deps::NONE,
    )?;
    t.relate("iico_data", r, b);
    let bad = || {
        Stop::error(
            None,
            format!("{} holds no page-table entry", pte_of(syms.name(l))),
        )
    };
    let Value::Addr(ev) = e.v else {
        return Err(bad());
    };
    let entry = entry(syms.name(ev)).ok_or_else(bad)?;
    if !entry.valid {
        let f = t.event(
            EventData {
                kind: Kind::Special,
                loc: None,
                val: None,
                tags: ["MMU", "FAULT", "Translation"].map(String::from).to_vec(),
                instr: 0,
            },
            Deps::NONE,
            Deps::NONE,
        )?;
        t.relate("iico_ctrl", b, f);
        return Ok(Translation::Fault { loc: l, event: f });
    }
    let oa = entry
        .oa
        .as_deref()
        .and_then(|o| syms.get(o))
        .ok_or_else(bad)?;
    Ok(Translation::Mapped {
        phys: Value::Addr(oa),
        branch: b,
    })
}

/// herd's sets of page-table accesses (herd/machAction.ml, `kvm`): every read or write of
/// an entry location `PTE(x)`, explicit or implicit, is in `PTE`; one whose value (read or
/// written) is an entry is in `PTEV` when the entry is valid, else `PTEINV`, and in
/// `PTEAF0`/`PTEDB0` when its `af`/`db` field is 0 (herd's `pteval_sets`); and two tags for
/// herd's functions on entries (`same-oa`, `oa-changes`, `at-least-one-writable`): `oa:X`,
/// its output address `PA(X)`, and `PTEW` when writable. Being tags, they make runs whose
/// entries differ runs of different shapes.
pub fn entry_tags(syms: &Symbols, loc: Option<Value>, val: Option<Value>) -> Vec<String> {
    let mut tags: Vec<&'static str> = Vec::new();
    let mut oa = None;
    let is_pte = |v: Option<Value>| match v {
        Some(Value::Addr(l)) => syms.name(l).starts_with("PTE("),
        _ => false,
    };
    if is_pte(loc) {
        tags.push("PTE");
    }
    if let Some(Value::Addr(v)) = val {
        let name = syms.name(v);
        if let Some(e) = entry(name) {
            oa = Some(format!("oa:{}", e.oa.unwrap_or_default()));
            tags.push(if e.valid { "PTEV" } else { "PTEINV" });
            let field = |k: &str| {
                name.trim_start_matches('(')
                    .trim_end_matches(')')
                    .split(',')
                    .filter_map(|f| f.split_once(':'))
                    .any(|(f, v)| f.trim() == k && v.trim() == "0")
            };
            if field("af") {
                tags.push("PTEAF0");
            }
            if field("db") {
                tags.push("PTEDB0");
            }
            // Writable without hardware updates of the access and dirty flags (herd's
            // `writable false false`): af and db set.
            if !field("af") && !field("db") {
                tags.push("PTEW");
            }
        }
    }
    tags.into_iter().map(String::from).chain(oa).collect()
}

/// Adds [`entry_tags`] to a memory access of a thread.
pub fn tag_entry_access(syms: &Symbols, ev: &mut EventData) {
    if matches!(ev.kind, Kind::Read | Kind::Write) {
        for t in entry_tags(syms, ev.loc, ev.val) {
            if !ev.tags.contains(&t) {
                ev.tags.push(t);
            }
        }
    }
}

/// The page of address `v` (`v >> 12`), when `v` is a virtual location.
pub fn page(syms: &Symbols, v: Value) -> Option<Value> {
    match v {
        Value::Addr(l) if syms.vmsa => syms.get(&page_of(syms.name(l))).map(Value::Addr),
        _ => None,
    }
}

/// `TLBI op, page`: one event at the entry of the page (so `loc` relates it to the
/// translation reads it invalidates), tagged `TLBI`, `TLBI.op`, and `TLBIIS` for the
/// inner-shareable (broadcast) kinds.
pub fn tlbi(t: &mut Tracer, op: &str, page: TVal) -> Result<usize, Stop> {
    let syms = t.symbols;
    let op = op.to_ascii_uppercase();
    let pte = match page.v {
        Value::Addr(p) => page_owner(syms.name(p)).and_then(|x| syms.get(&pte_of(x))),
        Value::Int(_) => None,
    }
    .ok_or_else(|| {
        Stop::error(
            None,
            format!("TLBI {op} of {}, which is no page", syms.show(page.v)),
        )
    })?;
    let mut tags = vec!["TLBI".to_string(), format!("TLBI.{op}")];
    if op.ends_with("IS") {
        tags.push("TLBIIS".into());
    }
    let ev = EventData {
        kind: Kind::Special,
        loc: Some(Value::Addr(pte)),
        val: None,
        tags,
        instr: 0,
    };
    t.event(ev, page.deps, Deps::NONE)
}

/// The final-register key under which a thread records a fault at `label`.
pub fn fault_key(label: &str) -> String {
    format!("fault:{label}")
}

/// A fault atom of a condition, `fault(P1:L0,x)` or `fault(P1:L0,MMU:Translation)`:
/// thread, label, and the virtual location when one is named.
pub fn fault_atom(g: &str) -> Option<(u32, &str, Option<&str>)> {
    let inner = g.strip_prefix("fault(")?.strip_suffix(')')?;
    let mut parts = inner.splitn(2, ',');
    let (p, label) = parts.next()?.split_once(':')?;
    let proc = p.trim().trim_start_matches('P').parse().ok()?;
    let loc = parts.next().map(str::trim).filter(|l| !l.contains(':'));
    Some((proc, label.trim(), loc))
}

/// How herd prints a fault atom in a final state: `Fault(P1:L0,x,MMU:Translation)`
/// when the thread faulted (on `at`), ` ~Fault(P1:L0,x)` when not (with herd's blank before
/// it: herd7 prints `1:X0=0;  ~Fault(P1:L0,x);`).
pub fn show_fault(g: &str, at: Option<&str>) -> String {
    let inner = g
        .strip_prefix("fault(")
        .and_then(|i| i.strip_suffix(')'))
        .unwrap_or(g);
    match (at, fault_atom(g)) {
        (Some(x), Some((p, l, _))) => format!("Fault(P{p}:{l},{x},MMU:Translation)"),
        _ => format!(" ~Fault({inner})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_spelt_canonically_and_read_back() {
        assert_eq!(
            canonical_entry("(oa:PA(x), valid:1)").as_deref(),
            Some("(oa:PA(x))")
        );
        assert_eq!(
            canonical_entry("(valid:0, oa:PA(y))").as_deref(),
            Some("(oa:PA(y), valid:0)")
        );
        assert_eq!(canonical_entry("(foo:1)"), None);
        assert_eq!(
            entry("(oa:PA(y), valid:0)"),
            Some(Entry {
                valid: false,
                oa: Some("y".into())
            })
        );
        assert!(entry("(valid:0)").is_some_and(|e| e.oa.is_none()));
        assert!(is_virtual("x") && !is_virtual("PTE(x)") && !is_virtual("1:L0"));
    }
}
