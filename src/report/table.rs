//! Tests × models: whether each model allows each test's outcome, with its number of final
//! states, then a legend and a summary of the batch. Made from [`Record`]s, so a run
//! merged from shards (`litmus report`) prints the same table as the whole run.
//!
//! A row is a file; tests that ask the same question in different languages (a `Family=`
//! header line, e.g. the C, X86, AArch64 and PPC versions of one lock idiom) share one, so
//! a line compares the LKMM with each architecture. A row is named by its test, or by its
//! file's path when two rows would have the same name.

use super::record::Record;
use std::collections::BTreeMap;

/// The flag the LKMM raises for a data race.
const DATA_RACE: &str = "data-race";

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One judged record's word: `allowed (4 states)`, `forbidden (1 state, data race)`.
fn verdict(r: &Record) -> String {
    let Some(a) = &r.answer else {
        return match r.status.as_str() {
            "error" => "error".into(),
            super::record::NOT_COMPILED => format!("not compiled: {}", short(&r.message)),
            s => s.replace('-', " "),
        };
    };
    let v = if a.observation == "Never" {
        "forbidden"
    } else {
        "allowed"
    };
    let race = if a.flags.iter().any(|f| f == DATA_RACE) {
        ", data race"
    } else {
        ""
    };
    format!("{v} ({}{race})", plural(a.state_count(), "state", "states"))
}

/// The reason a C test does not compile, in a cell: the mapping's words, without the
/// place (which `check --compile` prints).
fn short(why: &str) -> String {
    // `P1, line 35:3: operator Shl ...`: the words after the place.
    let why = match why.split_once(": ") {
        Some((place, rest)) if place.starts_with('P') => rest,
        _ => why,
    };
    let mut s: String = why.chars().take(60).collect();
    if s.len() < why.len() {
        s.push_str("...");
    }
    s
}

/// A member's name in a cell of several: its mapping when all are one file's compiled
/// forms, else its test (by path when two have one name), with `@mapping` if compiled.
fn label(r: &Record, many: &[&Record]) -> String {
    let one_file = many.iter().all(|m| m.file == r.file);
    if let (Some(m), true) = (&r.mapping, one_file) {
        return m.clone();
    }
    let name = r.test.as_deref().unwrap_or(&r.file);
    let clash = many
        .iter()
        .filter(|m| m.test.as_deref() == Some(name) && m.file != r.file)
        .count()
        > 0;
    let base = if clash { &r.file } else { name };
    match &r.mapping {
        Some(m) => format!("{base}@{m}"),
        None => base.to_string(),
    }
}

/// A cell with one file's compiled forms: the verdict when every mapping gives it, else
/// each mapping's.
fn mapped(members: &[&Record]) -> String {
    let verdicts: Vec<String> = members.iter().map(|r| verdict(r)).collect();
    if verdicts.iter().all(|v| *v == verdicts[0]) {
        return verdicts[0].clone();
    }
    members
        .iter()
        .zip(&verdicts)
        .map(|(r, v)| format!("{}: {v}", label(r, members)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A cell: the judged members' verdict (with the states when one member), named when
/// several disagree (by path when two have one name), then `+ error`, `+ timeout`, ... for
/// the members without an answer.
fn cell(members: &[&Record]) -> String {
    if members.len() > 1 && members.iter().all(|m| m.file == members[0].file) {
        return mapped(members);
    }
    let (judged, other): (Vec<&Record>, Vec<&Record>) = members.iter().partition(|r| r.judged());
    let mut unanswered: Vec<String> = other.iter().map(|r| verdict(r)).collect();
    unanswered.dedup();
    let kind = |r: &Record| verdict(r).split(" (").next().unwrap_or("").to_string();
    let mut out = match judged.as_slice() {
        [] => return unanswered.first().cloned().unwrap_or_else(|| "-".into()),
        [r] => verdict(r),
        many if many.iter().all(|r| kind(r) == kind(many[0])) => {
            format!("{} (all {} versions)", kind(many[0]), many.len())
        }
        many => many
            .iter()
            .map(|r| format!("{}: {}", label(r, many), kind(r)))
            .collect::<Vec<_>>()
            .join("; "),
    };
    for u in unanswered {
        out.push_str(" + ");
        out.push_str(&u);
    }
    out
}

/// The table of `records` (in batch order) under `columns`, its legend and summary.
/// `unwritten`: see [`summary`].
pub fn render(columns: &[String], records: &[Record], unwritten: usize) -> String {
    // Rows in order of first appearance: a family, else a file.
    let mut keys: Vec<String> = Vec::new();
    let mut rows: BTreeMap<String, (String, Vec<Vec<&Record>>)> = BTreeMap::new();
    for r in records {
        if !r.applies() {
            continue;
        }
        let (key, name) = match &r.family {
            Some(f) => (format!("family {f}"), f.clone()),
            None => (
                format!("file {}", r.file),
                r.test.clone().unwrap_or_else(|| r.file.clone()),
            ),
        };
        let row = rows.entry(key.clone()).or_insert_with(|| {
            keys.push(key.clone());
            (name, vec![Vec::new(); columns.len()])
        });
        if let Some(c) = row.1.get_mut(r.column) {
            // One file's records (a parse error has one per column) count once, but for
            // its compiled forms, one per mapping.
            if !c.iter().any(|m| m.file == r.file && m.mapping == r.mapping) {
                c.push(r);
            }
        }
    }
    // Names shared by two rows are replaced by the rows' paths.
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for k in &keys {
        *count.entry(rows[k].0.as_str()).or_default() += 1;
    }
    let family = rows.values().any(|(_, cs)| cs.iter().any(|c| c.len() > 1));
    let head = if family { "test (family)" } else { "test" };
    let mut grid: Vec<Vec<String>> = vec![
        std::iter::once(head.to_string())
            .chain(columns.iter().cloned())
            .collect(),
    ];
    for k in &keys {
        let (name, cells) = &rows[k];
        let shown = match k.strip_prefix("file ") {
            Some(path) if count[name.as_str()] > 1 => {
                let clashing: Vec<&str> = keys
                    .iter()
                    .filter(|o| rows[*o].0 == *name)
                    .filter_map(|o| o.strip_prefix("file "))
                    .collect();
                distinct_tail(path, &clashing)
            }
            _ => name.clone(),
        };
        grid.push(
            std::iter::once(shown)
                .chain(cells.iter().map(|c| cell(c)))
                .collect(),
        );
    }
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|k| grid.iter().map(|r| r[k].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, r) in grid.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&rule.join("  "));
            out.push('\n');
        }
    }
    out.push('\n');
    out.push_str(LEGEND);
    out.push_str(&summary(records, unwritten));
    out
}

/// The fewest trailing components of `path` that no other of `paths` ends with
/// (`AArch64/SB.litmus` beside `X86/SB.litmus`), else the whole path.
fn distinct_tail(path: &str, paths: &[&str]) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    for n in 1..=parts.len() {
        let tail = parts[parts.len() - n..].join("/");
        let taken = paths
            .iter()
            .filter(|p| **p != path)
            .any(|p| *p == tail || p.ends_with(&format!("/{tail}")));
        if !taken {
            return tail;
        }
    }
    path.to_string()
}

const LEGEND: &str = "allowed: some execution the model allows meets the condition; forbidden: none does; \
(N states): the final states the model allows; data race: the model flags one; \
timeout, out of memory, too big: no answer within the limits; error: not judged (see stderr); \
-: the model does not cover the test's architecture; a C test under x86tso, armv8 or power: \
compiled through the kernel's mappings (x86; aarch64-llsc, aarch64-lse; ppc-lwsync, ppc-sync), \
each named when they differ; not compiled: a primitive the mapping has no code for\n";

/// The batch in one line: files, (file, model) pairs judged, errors, out of budget, and
/// answers that contradict their test's `Result:` comment.
/// `unwritten`: outputs asked for and not made (a graph Graphviz did not draw), counted
/// with the errors.
pub fn summary(records: &[Record], unwritten: usize) -> String {
    let records: Vec<&Record> = records.iter().filter(|r| r.applies()).collect();
    let mut files: Vec<&str> = records.iter().map(|r| r.file.as_str()).collect();
    files.sort();
    files.dedup();
    // A file that does not parse has a record per column: one error.
    let mut unparsed: Vec<&str> = records
        .iter()
        .filter(|r| r.status == "error" && r.test.is_none())
        .map(|r| r.file.as_str())
        .collect();
    unparsed.sort();
    unparsed.dedup();
    let errors = unparsed.len()
        + unwritten
        + records
            .iter()
            .filter(|r| r.status == "error" && r.test.is_some())
            .count();
    let judged = records.iter().filter(|r| r.judged()).count();
    let limited = records.iter().filter(|r| r.limited()).count();
    let mismatches = records.iter().filter(|r| r.mismatch.is_some()).count();
    let not_compiled = records
        .iter()
        .filter(|r| r.status == super::record::NOT_COMPILED)
        .count();
    let not_compiled = match not_compiled {
        0 => String::new(),
        n => format!(", {n} not compiled"),
    };
    format!(
        "{}: {} judged, {}, {}, {}{not_compiled}\n",
        plural(files.len(), "file", "files"),
        judged,
        plural(errors, "error", "errors"),
        plural(limited, "timeout", "timeouts"),
        plural(mismatches, "mismatch", "mismatches"),
    )
}
