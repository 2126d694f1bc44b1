//! One record per (file, model) of a batch, whatever became of it: judged (`ok`), not
//! judged (`error`), or out of its budget (`timeout`, `out-of-memory`, `too-big`). JSON
//! lines of them are what `check --format json` prints and what `litmus report` reads
//! back, so a run split into shards merges into the output of the whole run: a record
//! keeps the herd block and the table cell its (file, model) makes.

use super::herd;
use crate::batch::{Record as Judged, Status};
use crate::budget::Exhausted;
use crate::cat::CheckKind;
use crate::judge::{Judgement, cond, graph::ExecGraph};
use crate::litmus::ast::{LocRef, Test};
use crate::sem::Value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub file: String,
    /// The file's place in the whole batch (of every shard): records merge in its order.
    #[serde(default)]
    pub index: usize,
    /// `ok`, `error`, `timeout`, `out-of-memory`, `too-big`, or `not-applicable` (a
    /// model of a table that does not cover the test's architecture).
    pub status: String,
    /// Why there is no answer (empty when `ok`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Where in the file the error is (1-based line, column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub col: Option<u32>,
    pub test: Option<String>,
    pub arch: Option<String>,
    pub model: Option<String>,
    /// The mapping a C test was compiled through for a hardware model (`ppc-lwsync`):
    /// the answer is the compiled test's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<String>,
    /// The model's column in a table across models, and its heading there.
    pub column: usize,
    #[serde(default)]
    pub column_name: String,
    /// The test's `Family=` header: the table gives its versions one row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// How the answer contradicts the test's `Result:` comment, if it does (as the
    /// kernel's `judgelitmus.sh` says it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<String>,
    /// The answer, when judged.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
    /// How far a test that ran out of its budget got.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explored: Option<Explored>,
    /// herd7's block for this (file, model), as `--format herd` prints it (none for an
    /// error: herd prints nothing then).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub herd: String,
    /// Likely mistakes found in the test (see `judge::lint`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A judged test's answer, in herd's terms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// Final states, each a map from location (as herd prints it: `0:r0`, `[x]`) to value
    /// (a number, or a location's name).
    pub states: Vec<BTreeMap<String, serde_json::Value>>,
    /// `Ok` or `No`, as herd's line.
    pub result: String,
    pub pos: usize,
    pub neg: usize,
    /// `Always`, `Sometimes`, `Never`.
    pub observation: String,
    pub condition: String,
    pub flags: Vec<String>,
    /// How many final states there are when `states` was dropped ([`Record::slim`]).
    #[serde(skip)]
    pub dropped_states: Option<usize>,
    /// The unrolling bound cut executions off.
    #[serde(rename = "loop")]
    pub cut: bool,
    pub candidates: usize,
    pub left_out: usize,
    /// Partial executions grown and dropped (the growing exploration only).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub partial: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped: usize,
    pub symmetries: usize,
    pub seconds: f64,
    /// The check that rejected the first candidate satisfying the condition, with the
    /// events of that candidate and the cycle through them.
    pub forbidden_by: Option<Forbidden>,
    /// The first consistent execution that satisfies the condition.
    pub witness: Option<Graph>,
}

/// Each step as a record's `Step`.
fn steps(s: &[(usize, String)]) -> Vec<Step> {
    s.iter()
        .map(|(event, via)| Step {
            event: *event,
            via: via.clone(),
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Forbidden {
    pub check: String,
    /// `acyclic`, `irreflexive` or `empty`: what the check requires of its relation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    pub events: Vec<Event>,
    /// Steps of the cycle (`acyclic`, `irreflexive`): from event `event` along relation
    /// `via` to the next step's, the last back to the first.
    pub cycle: Vec<Step>,
    /// The pair an `empty` check's relation holds of (an event of a set twice), or an
    /// irreflexive check's event twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<[usize; 2]>,
    /// For an `empty` check: the events between the pair, steps from the pair's first
    /// event along `via` to the next step's, the last to the pair's second event.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub between: Vec<Step>,
    /// The execution's reads-from and coherence, and the reason, in words (as
    /// `--explain` prints them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub event: usize,
    pub via: String,
}

/// An execution: its events (numbered by position) and relations between them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    pub events: Vec<Event>,
    pub edges: Vec<Edge>,
    /// Its reads-from and coherence in words (`rf: P1's R x=0 reads from the initial
    /// write`, `co: x=1 (P0) before x=2 (P1)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub id: usize,
    /// The thread, or none for an initial write.
    pub proc: Option<u32>,
    /// `W[ONCE] x=1`, `R y=0`, `F[MB]`.
    pub label: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub rel: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Explored {
    pub candidates: usize,
    pub states: usize,
}

fn events(g: &ExecGraph) -> Vec<Event> {
    g.events()
        .enumerate()
        .map(|(id, e)| Event {
            id,
            proc: e.proc,
            label: e.label.clone(),
        })
        .collect()
}

fn graph(g: &ExecGraph) -> Graph {
    Graph {
        events: events(g),
        edges: g
            .edges()
            .map(|e| Edge {
                from: e.from,
                to: e.to,
                rel: e.rel.to_string(),
            })
            .collect(),
        words: super::words(g),
    }
}

/// A final state as a map; fault atoms (`fault(P0:L0,x)`) hold whether the fault happened.
fn state_map(j: &Judgement, s: &[Value]) -> BTreeMap<String, serde_json::Value> {
    j.shown
        .iter()
        .zip(s)
        .map(|(l, v)| {
            let value = match (l, v) {
                (_, Value::Int(i)) => serde_json::Value::from(*i),
                (_, Value::Addr(x)) => serde_json::Value::from(j.symbols.name(*x)),
            };
            (loc_key(l), value)
        })
        .collect()
}

fn loc_key(l: &LocRef) -> String {
    cond::show_loc(l)
}

/// The answer of a judged test.
pub fn answer(t: &Test, j: &Judgement) -> Answer {
    Answer {
        states: j.states.iter().map(|s| state_map(j, s)).collect(),
        dropped_states: None,
        ..counted(t, j)
    }
}

/// [`answer`] without its final states, only their number (see [`table_row`]).
fn counted(t: &Test, j: &Judgement) -> Answer {
    let (pos, neg) = j.witnesses();
    Answer {
        states: Vec::new(),
        dropped_states: Some(j.states.len()),
        result: if j.ok() { "Ok" } else { "No" }.into(),
        pos,
        neg,
        observation: j.observation().into(),
        condition: cond::show_condition(&t.condition),
        flags: j.flags.iter().cloned().collect(),
        cut: j.cut,
        candidates: j.stats.candidates,
        left_out: j.stats.left_out,
        partial: j.stats.partial,
        dropped: j.stats.dropped,
        symmetries: j.stats.symmetries,
        seconds: j.stats.elapsed.as_secs_f64(),
        forbidden_by: j.forbidden_by.as_ref().map(|e| Forbidden {
            check: e.check.clone(),
            kind: match e.kind {
                CheckKind::Acyclic => "acyclic",
                CheckKind::Irreflexive => "irreflexive",
                CheckKind::Empty => "empty",
            }
            .into(),
            events: events(&e.graph),
            cycle: steps(&e.cycle),
            pair: e.pair.map(|(a, b)| [a, b]),
            between: steps(&e.between),
            words: super::reason(e)
                .into_iter()
                .chain(super::words(&e.graph))
                .collect(),
        }),
        witness: j.witness.as_ref().map(graph),
    }
}

/// The status of a C test its mapping cannot compile for a hardware model.
pub const NOT_COMPILED: &str = "not-compiled";

/// The status word of a test out of its budget.
pub fn exhausted_status(why: &Exhausted) -> &'static str {
    match why {
        Exhausted::Time { .. } => "timeout",
        Exhausted::Memory { .. } => "out-of-memory",
        Exhausted::Size(_) => "too-big",
    }
}

/// What a batch's summary needs of one (file, model): where it is, its status, message,
/// warnings and disagreement with the test's `Result:` comment; no answer (a ring's half
/// a million final states as JSON maps take gigabytes) and no herd block.
pub fn status(r: &Judged, column_name: &str, index: usize) -> Record {
    let t = r.test.as_deref();
    let mut rec = Record {
        file: r.file.display().to_string(),
        index,
        status: "ok".into(),
        message: String::new(),
        line: None,
        col: None,
        test: t.map(|t| t.name.clone()),
        arch: t.map(|t| t.arch.name().to_string()),
        model: (!r.model.is_empty()).then(|| r.model.clone()),
        mapping: r.mapping.clone(),
        column: r.column,
        column_name: column_name.to_string(),
        family: t.and_then(|t| {
            t.info
                .iter()
                .find(|(k, _)| k == "Family")
                .map(|(_, v)| v.clone())
        }),
        mismatch: None,
        answer: None,
        explored: None,
        herd: String::new(),
        warnings: Vec::new(),
    };
    match (&r.status, t) {
        (Status::NotApplicable, _) => rec.status = "not-applicable".into(),
        (Status::NotCompiled(why), _) => {
            rec.status = NOT_COMPILED.into();
            rec.message = why.clone();
        }
        // A C test's `Result:` comment is the LKMM's answer, not its compiled form's.
        (Status::Judged(j), Some(_)) if r.compiled.is_some() => {
            rec.warnings = j.warnings.iter().map(|w| w.msg.clone()).collect();
        }
        (Status::Judged(j), Some(_)) => {
            rec.warnings = j.warnings.iter().map(|w| w.msg.clone()).collect();
            let expected = crate::litmus::read_source(&r.file)
                .ok()
                .and_then(|src| crate::litmus::expect::expectation(&src));
            if let super::expected::Agreement::Mismatch(why) =
                super::expected::agreement(expected.as_ref(), j)
            {
                rec.mismatch = Some(why);
            }
        }
        (Status::Undetermined(why, explored), _) => {
            rec.status = exhausted_status(why).into();
            rec.message = why.to_string();
            rec.explored = Some(Explored {
                candidates: explored.candidates,
                states: explored.states,
            });
        }
        (Status::Error(d), _) => {
            rec.status = "error".into();
            rec.message = d.msg.clone();
            rec.line = d.at.map(|(l, _)| l);
            rec.col = d.at.map(|(_, c)| c);
        }
        (Status::Judged(_), None) => {
            rec.status = "error".into();
            rec.message = "judged without a test".into();
        }
    }
    rec
}

/// The record of one (file, model) of a batch, the `index`th file of the batch, under the
/// table heading `column_name`: its [`status`] with the answer and herd's block.
pub fn of(r: &Judged, column_name: &str, index: usize) -> Record {
    let mut rec = status(r, column_name, index);
    match (&r.status, r.judged_test()) {
        (Status::Judged(j), Some(t)) => {
            rec.answer = Some(answer(t, j));
            rec.herd = herd::block(t, j);
        }
        (Status::Undetermined(why, explored), Some(t)) => {
            rec.herd = herd::undetermined(t, why, explored);
        }
        _ => {}
    }
    rec
}

/// What a table needs of a record: [`status`] and the answer's verdict and number of
/// states, not the states themselves, herd's block or the graphs (a batch keeps a record
/// per test until the table is printed).
pub fn table_row(r: &Judged, column_name: &str, index: usize) -> Record {
    let mut rec = status(r, column_name, index);
    if let (Status::Judged(j), Some(t)) = (&r.status, r.judged_test()) {
        rec.answer = Some(Answer {
            forbidden_by: None,
            witness: None,
            ..counted(t, j)
        });
    }
    rec
}

/// Records as JSON lines.
pub fn lines(records: &[Record]) -> String {
    records.iter().map(|r| r.to_line() + "\n").collect()
}

/// herd7's blocks of `records`, as `check --format herd` prints them.
pub fn herd_blocks(records: &[Record]) -> String {
    records
        .iter()
        .filter(|r| !r.herd.is_empty())
        .map(|r| r.herd.clone() + "\n")
        .collect()
}

impl Answer {
    /// How many final states the answer has.
    pub fn state_count(&self) -> usize {
        self.dropped_states.unwrap_or(self.states.len())
    }
}

impl Record {
    /// One JSON line.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Whether the model covers the test (it may still have no answer).
    pub fn applies(&self) -> bool {
        self.status != "not-applicable"
    }

    /// Whether this model's answer is missing for want of time or memory.
    pub fn limited(&self) -> bool {
        !matches!(
            self.status.as_str(),
            "ok" | "error" | "not-applicable" | NOT_COMPILED
        )
    }

    /// Whether the test was judged (`ok`: it has an answer, unless only its [`status`]
    /// was recorded).
    pub fn judged(&self) -> bool {
        self.status == "ok"
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
