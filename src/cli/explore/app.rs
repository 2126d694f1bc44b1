//! The explorer's state and controller: which executions are listed (filters, search),
//! which one is selected, which relations are shown. Keys go in, state and effects come
//! out; nothing here touches the terminal, so it is tested without one.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use litmus::judge::explore::{ExecRecord, Exploration};
use litmus::judge::graph::ExecGraph;
use litmus::report;
use ratatui::widgets::ListState;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Relations that can be hidden, in toggle-key order (`1` = po, ...).
pub const RELATIONS: [&str; 8] = ["po", "rf", "co", "fr", "addr", "data", "ctrl", "rmw"];

/// Which verdicts are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdicts {
    All,
    Consistent,
    Rejected,
}

/// Which truth values of the condition are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Any,
    Sat,
    Unsat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Typing a search query.
    Search,
    Help,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    List,
    Detail,
}

/// Work the controller asks its caller to do.
#[derive(Debug, PartialEq, Eq)]
pub enum Effect {
    None,
    Quit,
    WriteFile { path: PathBuf, text: String },
}

/// What the header shows about the whole test (herd's summary).
#[derive(Clone, Debug, Default)]
pub struct Header {
    pub test: String,
    pub model: String,
    /// `exists (1:r1=1 /\ 1:r3=0)`.
    pub condition: String,
    /// `Observation MP Never 0 3`, `Positive: 0 Negative: 3`, ...
    pub summary: String,
}

pub struct App {
    pub header: Header,
    pub exploration: Exploration,
    /// Each record's final state as herd prints it.
    pub states: Vec<String>,
    /// Each record's search text: state and verdict, lower case, without spaces.
    keys: Vec<String>,
    pub verdicts: Verdicts,
    pub cond: Cond,
    pub query: String,
    pub mode: Mode,
    pub focus: Focus,
    pub hidden: BTreeSet<&'static str>,
    /// Indices of the listed records.
    view: Vec<usize>,
    /// Selection and scroll of the list, positions in `view`.
    pub list: ListState,
    pub detail_scroll: u16,
    /// Rows per page of the list, set by the drawing code.
    pub page: usize,
    pub status: String,
    /// What the worker is doing, or did: judging, listing, how many candidates.
    pub activity: String,
    /// Whether the listing goes on past its cap until an execution satisfies the condition.
    pub searching: bool,
    /// How many candidates that search visited past the cap, and whether it found one.
    pub searched: Option<(usize, bool)>,
    /// The user moved the selection: new executions do not move it.
    moved: bool,
    /// Where `d` writes DOT files.
    pub dot_dir: PathBuf,
}

impl App {
    pub fn new(header: Header, exploration: Exploration, dot_dir: PathBuf) -> App {
        let states: Vec<String> = exploration
            .records
            .iter()
            .map(|r| exploration.show_state(&r.state))
            .collect();
        let keys = exploration
            .records
            .iter()
            .zip(&states)
            .map(|(r, s)| squash(&format!("{s} {}", verdict(r))))
            .collect();
        let mut app = App {
            header,
            exploration,
            states,
            keys,
            verdicts: Verdicts::All,
            cond: Cond::Any,
            query: String::new(),
            mode: Mode::Normal,
            focus: Focus::List,
            hidden: BTreeSet::new(),
            view: Vec::new(),
            list: ListState::default(),
            detail_scroll: 0,
            page: 10,
            status: String::new(),
            activity: String::new(),
            searching: false,
            searched: None,
            moved: false,
            dot_dir,
        };
        app.refilter();
        app.select_answer();
        app
    }

    /// Selects the execution that answers the question: the judge's own, else one
    /// reaching the outcome if the model allows it, else one the model rejects for it.
    fn select_answer(&mut self) {
        let recs = &self.exploration.records;
        let first = recs
            .iter()
            .position(|r| r.from_judge())
            .or_else(|| recs.iter().position(|r| r.sat && r.consistent()))
            .or_else(|| recs.iter().position(|r| r.sat));
        if let Some(i) = first
            && let Some(pos) = self.view.iter().position(|&k| k == i)
        {
            self.select(pos);
        }
    }

    /// Adds an execution the worker found (listed if the filters pass it); the selection
    /// moves to the answer as it comes, until the user moves it.
    pub fn push(&mut self, r: ExecRecord) {
        let state = self.exploration.show_state(&r.state);
        self.keys.push(squash(&format!("{state} {}", verdict(&r))));
        self.states.push(state);
        self.exploration.records.push(r);
        let i = self.exploration.records.len() - 1;
        if self.passes(i) {
            self.view.push(i);
        }
        if self.list.selected().is_none() && !self.view.is_empty() {
            self.list.select(Some(0));
        }
        if !self.moved {
            self.select_answer();
        }
    }

    /// Indices (into `exploration.records`) of the listed executions.
    pub fn view(&self) -> &[usize] {
        &self.view
    }

    /// The selected record's index.
    pub fn selected(&self) -> Option<usize> {
        self.list.selected().and_then(|k| self.view.get(k).copied())
    }

    pub fn current(&self) -> Option<&ExecRecord> {
        self.selected().map(|i| &self.exploration.records[i])
    }

    fn passes(&self, i: usize) -> bool {
        let r = &self.exploration.records[i];
        let verdict_ok = match self.verdicts {
            Verdicts::All => true,
            Verdicts::Consistent => r.consistent(),
            Verdicts::Rejected => !r.consistent(),
        };
        let cond_ok = match self.cond {
            Cond::Any => true,
            Cond::Sat => r.sat,
            Cond::Unsat => !r.sat,
        };
        verdict_ok && cond_ok && self.keys[i].contains(&squash(&self.query))
    }

    /// Recompute the list, keeping the selected record when it is still listed, else the
    /// first listed one after it.
    fn refilter(&mut self) {
        let before = self.selected();
        self.view = (0..self.exploration.records.len())
            .filter(|&i| self.passes(i))
            .collect();
        let pos = match before {
            Some(b) => self.view.partition_point(|&i| i < b),
            None => 0,
        };
        self.list.select(if self.view.is_empty() {
            None
        } else {
            Some(pos.min(self.view.len() - 1))
        });
        self.detail_scroll = 0;
    }

    fn select(&mut self, pos: usize) {
        if !self.view.is_empty() {
            self.list.select(Some(pos.min(self.view.len() - 1)));
            self.detail_scroll = 0;
        }
    }

    /// Move the selection by `delta` rows.
    fn step(&mut self, delta: isize) {
        let cur = self.list.selected().unwrap_or(0);
        self.select(cur.saturating_add_signed(delta));
    }

    pub fn key(&mut self, k: KeyEvent) -> Effect {
        if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
            return Effect::Quit;
        }
        match self.mode {
            Mode::Search => {
                self.search_key(k);
                Effect::None
            }
            Mode::Help => {
                self.mode = Mode::Normal;
                Effect::None
            }
            Mode::Normal => self.normal_key(k),
        }
    }

    fn search_key(&mut self, k: KeyEvent) {
        match k.code {
            KeyCode::Enter => self.mode = Mode::Normal,
            KeyCode::Esc => {
                self.mode = Mode::Normal;
                self.query.clear();
                self.refilter();
            }
            KeyCode::Backspace => {
                self.query.pop();
                self.refilter();
            }
            KeyCode::Char(c) => {
                self.query.push(c);
                self.refilter();
            }
            _ => {}
        }
    }

    fn normal_key(&mut self, k: KeyEvent) -> Effect {
        let page = self.page.max(1) as isize;
        self.status.clear();
        self.moved = true;
        match (self.focus, k.code) {
            (_, KeyCode::Char('q')) => return Effect::Quit,
            // Esc only clears a search: pressed twice to leave one, it must not quit.
            (_, KeyCode::Esc) => {
                self.query.clear();
                self.refilter();
            }
            (_, KeyCode::Char('?' | 'h')) => self.mode = Mode::Help,
            (_, KeyCode::Char('/')) => {
                self.mode = Mode::Search;
                self.query.clear();
                self.refilter();
            }
            (_, KeyCode::Tab | KeyCode::BackTab) => {
                self.focus = match self.focus {
                    Focus::List => Focus::Detail,
                    Focus::Detail => Focus::List,
                }
            }
            (_, KeyCode::Char('a')) => self.set_filter(Verdicts::All, Cond::Any),
            (_, KeyCode::Char('c')) => self.set_filter(Verdicts::Consistent, self.cond),
            (_, KeyCode::Char('r')) => self.set_filter(Verdicts::Rejected, self.cond),
            (_, KeyCode::Char('s')) => {
                let next = match self.cond {
                    Cond::Any => Cond::Sat,
                    Cond::Sat => Cond::Unsat,
                    Cond::Unsat => Cond::Any,
                };
                self.set_filter(self.verdicts, next);
            }
            (_, KeyCode::Char(c @ '1'..='8')) => {
                let rel = RELATIONS[c as usize - '1' as usize];
                if !self.hidden.remove(rel) {
                    self.hidden.insert(rel);
                }
            }
            (_, KeyCode::Char('d')) => return self.write_dot(),
            (Focus::List, KeyCode::Down | KeyCode::Char('j')) => self.step(1),
            (Focus::List, KeyCode::Up | KeyCode::Char('k')) => self.step(-1),
            (Focus::List, KeyCode::PageDown) => self.step(page),
            (Focus::List, KeyCode::PageUp) => self.step(-page),
            (Focus::List, KeyCode::Home | KeyCode::Char('g')) => self.select(0),
            (Focus::List, KeyCode::End | KeyCode::Char('G')) => self.select(usize::MAX),
            (Focus::Detail, KeyCode::Down | KeyCode::Char('j')) => self.scroll(1),
            (Focus::Detail, KeyCode::Up | KeyCode::Char('k')) => self.scroll(-1),
            (Focus::Detail, KeyCode::PageDown) => self.scroll(page),
            (Focus::Detail, KeyCode::PageUp) => self.scroll(-page),
            (Focus::Detail, KeyCode::Home | KeyCode::Char('g')) => self.detail_scroll = 0,
            // Next and previous execution from either pane.
            (_, KeyCode::Char('n')) => self.step(1),
            (_, KeyCode::Char('p')) => self.step(-1),
            _ => {}
        }
        Effect::None
    }

    fn set_filter(&mut self, v: Verdicts, c: Cond) {
        self.verdicts = v;
        self.cond = c;
        self.refilter();
    }

    fn scroll(&mut self, delta: isize) {
        let d = (self.detail_scroll as isize + delta).clamp(0, u16::MAX as isize);
        self.detail_scroll = d as u16;
    }

    /// The selected execution's graph without the hidden relations.
    pub fn shown_graph(&self) -> Option<ExecGraph> {
        let r = self.current()?;
        let mut g = r.graph.clone();
        g.retain_edges(|rel| !self.hidden.contains(rel));
        Some(g)
    }

    /// The selected execution in DOT, its forbidding cycle in bold.
    pub fn dot(&self) -> Option<String> {
        let r = self.current()?;
        let g = self.shown_graph()?;
        let i = self.selected()?;
        let what = match &r.rejected {
            None => "consistent".to_string(),
            Some(x) => format!("rejected by {}", x.check),
        };
        let title = format!(
            "{}: execution {} ({}): {what}",
            self.header.test,
            i + 1,
            self.header.model,
        );
        let steps: Vec<(usize, usize)> = match &r.rejected {
            Some(rej) => rej.highlight(),
            None => Vec::new(),
        };
        Some(report::dot::render(&title, &g, &steps))
    }

    fn write_dot(&mut self) -> Effect {
        let (Some(i), Some(text)) = (self.selected(), self.dot()) else {
            self.status = "no execution selected".into();
            return Effect::None;
        };
        let stem = format!("{}.{}.{}", self.header.test, self.header.model, i + 1)
            .replace(['/', ' '], "_");
        Effect::WriteFile {
            path: self.dot_dir.join(format!("{stem}.dot")),
            text,
        }
    }

    /// Counts for the list's title: listed, consistent, rejected.
    pub fn counts(&self) -> (usize, usize, usize) {
        let ok = self
            .exploration
            .records
            .iter()
            .filter(|r| r.consistent())
            .count();
        (self.view.len(), ok, self.exploration.records.len() - ok)
    }
}

/// `consistent`, or `rejected by CHECK`: a check's name alone could read as a verdict
/// (`cat/lkmm-lock.cat` has a check named `co-consistent`).
pub fn verdict(r: &ExecRecord) -> String {
    match rejection(r) {
        None => "consistent".to_string(),
        Some(check) => format!("rejected by {check}"),
    }
}

/// The check that rejected the execution, if one did.
pub fn rejection(r: &ExecRecord) -> Option<&str> {
    r.rejected.as_ref().map(|x| x.check.as_str())
}

/// Lower case without spaces, so that `0:r0=1;[x]=2` finds `0:r0=1; [x]=2;`.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use litmus::judge::{Options, explore::executions};
    use litmus::model::load_shipped;

    /// The suite's message-passing test (PPC, lwsync and an address dependency).
    pub const MP: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/litmus/classic/PPC/MP+lwsync+addr.litmus"
    ));

    pub fn app() -> App {
        let t = litmus::litmus::parse(MP).expect("parses");
        let m = load_shipped("power", &Default::default()).expect("model");
        let x = executions(&t, &m.model, None, &Options::default(), 5000).expect("runs");
        let h = Header {
            test: t.name.clone(),
            model: "power".into(),
            ..Header::default()
        };
        App::new(h, x, PathBuf::from("out"))
    }

    fn press(a: &mut App, keys: &str) -> Effect {
        let mut last = Effect::None;
        for c in keys.chars() {
            last = a.key(KeyEvent::from(KeyCode::Char(c)));
        }
        last
    }

    fn code(a: &mut App, c: KeyCode) -> Effect {
        a.key(KeyEvent::from(c))
    }

    #[test]
    fn filters_by_verdict_and_condition() {
        let mut a = app();
        let n = a.exploration.records.len();
        assert_eq!(a.view().len(), n);
        press(&mut a, "c");
        assert!(!a.view().is_empty());
        assert!(
            a.view()
                .iter()
                .all(|&i| a.exploration.records[i].consistent())
        );
        press(&mut a, "r");
        let rejected = a.view().len();
        assert!(rejected > 0);
        assert!(
            a.view()
                .iter()
                .all(|&i| !a.exploration.records[i].consistent())
        );
        // `s` keeps the verdict filter: rejected executions that reach the outcome.
        press(&mut a, "s");
        assert_eq!(a.cond, Cond::Sat);
        assert!(!a.view().is_empty());
        assert!(a.view().iter().all(|&i| {
            let r = &a.exploration.records[i];
            r.sat && !r.consistent()
        }));
        // The outcome is forbidden: no consistent execution reaches it.
        press(&mut a, "c");
        assert!(a.view().is_empty());
        assert_eq!(a.current().map(|r| r.candidate), None);
        press(&mut a, "ss");
        assert_eq!(a.cond, Cond::Any);
        press(&mut a, "a");
        assert_eq!(a.view().len(), n);
    }

    #[test]
    fn navigation_stays_in_range() {
        let mut a = app();
        let n = a.view().len();
        press(&mut a, "g");
        assert_eq!(a.list.selected(), Some(0));
        press(&mut a, "k");
        assert_eq!(a.list.selected(), Some(0));
        press(&mut a, "jj");
        assert_eq!(a.list.selected(), Some(2));
        code(&mut a, KeyCode::End);
        assert_eq!(a.list.selected(), Some(n - 1));
        press(&mut a, "j");
        assert_eq!(a.list.selected(), Some(n - 1));
        a.page = 2;
        code(&mut a, KeyCode::PageUp);
        assert_eq!(a.list.selected(), Some(n - 3));
        code(&mut a, KeyCode::PageDown);
        assert_eq!(a.list.selected(), Some(n - 1));
        press(&mut a, "g");
        assert_eq!(a.list.selected(), Some(0));
        // In the detail pane, j scrolls instead of moving.
        code(&mut a, KeyCode::Tab);
        press(&mut a, "jjj");
        assert_eq!((a.list.selected(), a.detail_scroll), (Some(0), 3));
        press(&mut a, "n");
        assert_eq!((a.list.selected(), a.detail_scroll), (Some(1), 0));
    }

    #[test]
    fn starts_on_the_execution_that_answers_the_question() {
        let a = app();
        // The outcome is forbidden: the first execution reaching it, rejected.
        let r = a.current().expect("selected");
        assert!(r.sat && !r.consistent());
        let first = a.exploration.records.iter().position(|r| r.sat);
        assert_eq!(a.selected(), first);
    }

    #[test]
    fn filtering_keeps_the_selection_when_listed() {
        let mut a = app();
        press(&mut a, "r");
        press(&mut a, "j");
        let chosen = a.selected();
        press(&mut a, "a");
        assert_eq!(a.selected(), chosen);
    }

    #[test]
    fn search_narrows_by_state_ignoring_spaces() {
        let mut a = app();
        press(&mut a, "/");
        assert_eq!(a.mode, Mode::Search);
        // Typing `q` searches rather than quits.
        assert_eq!(press(&mut a, "1:r1=1;1:r3=0"), Effect::None);
        assert!(!a.view().is_empty());
        for &i in a.view() {
            assert!(a.states[i].contains("1:r1=1; 1:r3=0;"), "{}", a.states[i]);
        }
        code(&mut a, KeyCode::Enter);
        assert_eq!(a.mode, Mode::Normal);
        let narrowed = a.view().len();
        code(&mut a, KeyCode::Backspace);
        assert_eq!(a.view().len(), narrowed);
        // Esc clears the query, and never quits.
        assert_eq!(code(&mut a, KeyCode::Esc), Effect::None);
        assert_eq!(a.view().len(), a.exploration.records.len());
        assert_eq!(code(&mut a, KeyCode::Esc), Effect::None);
        assert_eq!(press(&mut a, "q"), Effect::Quit);
    }

    #[test]
    fn search_matches_the_check_name() {
        let mut a = app();
        let check = a
            .exploration
            .records
            .iter()
            .find_map(|r| r.rejected.as_ref().map(|x| x.check.clone()))
            .expect("some rejected");
        press(&mut a, "/");
        press(&mut a, &check);
        assert!(!a.view().is_empty());
        assert!(
            a.view()
                .iter()
                .all(|&i| rejection(&a.exploration.records[i]) == Some(check.as_str()))
        );
    }

    #[test]
    fn relation_toggles_hide_edges_in_the_dot() {
        let mut a = app();
        press(&mut a, "rs");
        let all = a.shown_graph().expect("selected");
        assert!(all.edges().any(|e| e.rel == "rf"));
        press(&mut a, "2");
        assert!(a.hidden.contains("rf"));
        let g = a.shown_graph().expect("selected");
        assert!(g.edges().all(|e| e.rel != "rf"));
        assert!(g.edges().any(|e| e.rel == "po"));
        assert!(!a.dot().expect("dot").contains("label=\"rf\""));
        press(&mut a, "2");
        assert!(a.hidden.is_empty());
    }

    #[test]
    fn d_writes_the_selected_execution() {
        let mut a = app();
        press(&mut a, "rsj");
        let i = a.selected().expect("selected");
        match press(&mut a, "d") {
            Effect::WriteFile { path, text } => {
                assert_eq!(
                    path,
                    PathBuf::from(format!("out/MP+lwsync+addr.power.{}.dot", i + 1))
                );
                assert!(text.starts_with("digraph"));
                assert!(text.contains("rejected by"));
                // The forbidding cycle is drawn bold.
                assert!(text.contains("penwidth=3"));
            }
            e => panic!("expected a file, got {e:?}"),
        }
        press(&mut a, "c");
        assert_eq!(press(&mut a, "d"), Effect::None);
        assert!(!a.status.is_empty());
    }

    #[test]
    fn help_closes_on_any_key_and_ctrl_c_quits_anywhere() {
        let mut a = app();
        press(&mut a, "?");
        assert_eq!(a.mode, Mode::Help);
        assert_eq!(press(&mut a, "q"), Effect::None);
        assert_eq!(a.mode, Mode::Normal);
        press(&mut a, "/");
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(a.key(ctrl_c), Effect::Quit);
    }
}
