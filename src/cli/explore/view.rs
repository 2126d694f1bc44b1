//! Drawing the explorer: header (herd's summary), the list of executions, the selected
//! one's events, edges and forbidding cycle, and a footer with the keys.

use super::app::{App, Cond, Focus, Mode, RELATIONS, Verdicts, rejection};
use litmus::judge::explore::ExecRecord;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, Paragraph, Wrap};
use std::collections::BTreeSet;

const KEYS: &str = "↑↓/jk move · a all · c consistent · r rejected · s condition · / search · \
                    1-8 relations · Tab pane · d DOT · ? help · q quit";

pub fn draw(f: &mut Frame, app: &mut App) {
    let [head, body, foot] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(f.area());
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(body);
    f.render_widget(header(app), head);
    draw_list(f, app, left);
    draw_detail(f, app, right);
    f.render_widget(footer(app), foot);
    if app.mode == Mode::Help {
        draw_help(f);
    }
}

fn header(app: &App) -> Paragraph<'static> {
    let h = &app.header;
    let x = &app.exploration;
    let (_, ok, rejected) = app.counts();
    let mut third = format!(
        "{} executions: {ok} consistent, {rejected} rejected",
        x.records.len()
    );
    if !x.complete && app.activity.is_empty() {
        third.push_str(" (the first ones only: raise --limit for more)");
    }
    if x.cut > 0 {
        third.push_str(&format!(
            "; {} candidates cut by the unrolling bound",
            x.cut
        ));
    }
    Paragraph::new(vec![
        Line::from(vec![
            Span::styled(h.test.clone(), Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(format!("  model {}  ", h.model)),
            Span::styled(h.condition.clone(), Style::new().fg(Color::Cyan)),
        ]),
        Line::from(h.summary.clone()),
        Line::from(third),
        Line::from(Span::styled(
            app.activity.clone(),
            Style::new().fg(Color::DarkGray),
        )),
    ])
}

fn border(app: &App, pane: Focus, title: String) -> Block<'static> {
    let style = if app.focus == pane {
        Style::new().fg(Color::Yellow)
    } else {
        Style::new()
    };
    Block::new()
        .borders(Borders::ALL)
        .border_style(style)
        .title(title)
}

fn draw_list(f: &mut Frame, app: &mut App, area: Rect) {
    let filter = match (app.verdicts, app.cond) {
        (Verdicts::All, Cond::Any) => "all".to_string(),
        (v, c) => {
            let v = match v {
                Verdicts::All => None,
                Verdicts::Consistent => Some("consistent"),
                Verdicts::Rejected => Some("rejected"),
            };
            let c = match c {
                Cond::Any => None,
                Cond::Sat => Some("satisfying"),
                Cond::Unsat => Some("not satisfying"),
            };
            v.into_iter().chain(c).collect::<Vec<_>>().join(", ")
        }
    };
    let search = if app.query.is_empty() {
        String::new()
    } else {
        format!(" /{}", app.query)
    };
    let title = format!(
        " Executions: {filter}{search} ({} of {}) ",
        app.view().len(),
        app.exploration.records.len()
    );
    let block = border(app, Focus::List, title);
    app.page = block.inner(area).height.max(1) as usize;
    let width = app.exploration.records.len().to_string().len();
    let state_width = app.view().iter().map(|&i| app.states[i].len()).max();
    let items: Vec<ListItem> = app
        .view()
        .iter()
        .map(|&i| {
            let r = &app.exploration.records[i];
            // Consistent and rejected executions in columns of their own.
            let (ok, rejected) = match rejection(r) {
                None => ("✓ consistent", String::new()),
                Some(check) => ("", format!("✗ rejected by {check}")),
            };
            let number = match r.from_judge() {
                true => format!("{:>width$} ", "J"),
                false => format!("{:>width$} ", i + 1),
            };
            ListItem::new(Line::from(vec![
                Span::styled(number, Style::new().fg(Color::DarkGray)),
                Span::raw(format!(
                    "{:<sw$} ",
                    app.states[i],
                    sw = state_width.unwrap_or(0)
                )),
                Span::styled(
                    if r.sat { "sat " } else { "    " },
                    Style::new().fg(Color::Cyan),
                ),
                Span::styled(format!("{ok:<13}"), Style::new().fg(Color::Green)),
                Span::styled(rejected, Style::new().fg(Color::Red)),
            ]))
        })
        .collect();
    let list = List::new(items)
        .block(block)
        .highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol("▶");
    f.render_stateful_widget(list, area, &mut app.list);
}

fn draw_detail(f: &mut Frame, app: &App, area: Rect) {
    let (title, lines) = match (app.selected(), app.current()) {
        (Some(i), Some(r)) => (
            match r.from_judge() {
                true => " The judge's execution (J) ".to_string(),
                false => format!(" Execution {} (candidate {}) ", i + 1, r.candidate),
            },
            detail(app, r),
        ),
        _ => (
            " Execution ".to_string(),
            vec![Line::from("No execution matches the filters.")],
        ),
    };
    let p = Paragraph::new(lines)
        .block(border(app, Focus::Detail, title))
        .wrap(Wrap { trim: false })
        .scroll((app.detail_scroll, 0));
    f.render_widget(p, area);
}

/// herd's event names: a, b, ..., z, then aa, ab, ...
pub fn name(i: usize) -> String {
    let letter = |k: usize| char::from(b'a' + k as u8);
    if i < 26 {
        letter(i).to_string()
    } else {
        format!("{}{}", name(i / 26 - 1), letter(i % 26))
    }
}

/// The selected execution: verdict, state, events by thread, edges, cycle.
pub fn detail(app: &App, r: &ExecRecord) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let g = &r.graph;
    let mut out = Vec::new();
    out.push(match &r.rejected {
        None => Line::from(Span::styled(
            "consistent: the model allows it",
            Style::new().fg(Color::Green),
        )),
        Some(x) => Line::from(Span::styled(
            format!("rejected by {}", x.check),
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        )),
    });
    let i = app.selected().unwrap_or(0);
    out.push(Line::from(vec![
        Span::raw("final state: "),
        Span::styled(app.states[i].clone(), bold),
    ]));
    out.push(Line::from(if r.sat {
        "satisfies the condition"
    } else {
        "does not satisfy the condition"
    }));
    if !r.flags.is_empty() {
        out.push(Line::from(format!("flags: {}", r.flags.join(", "))));
    }

    // Why it is rejected, first: what breaks the check, in base edges.
    if let Some(x) = &r.rejected {
        out.push(Line::default());
        let ev = |k: usize| format!("  {}: {}", name(k), g.event(k).full());
        let red = Style::new().fg(Color::Red);
        let path = |out: &mut Vec<Line<'static>>, steps: &[(usize, String)], last: usize| {
            for (k, via) in steps {
                out.push(Line::from(ev(*k)));
                out.push(Line::from(Span::styled(format!("      --{via}-->"), red)));
            }
            out.push(Line::from(ev(last)));
        };
        match x.pair {
            Some((a, b)) if x.cycle.is_empty() => {
                let what = if a == b {
                    format!("{} must be empty, and holds of", x.check)
                } else {
                    format!("{} must be empty, and relates", x.check)
                };
                out.push(Line::from(Span::styled(what, bold)));
                out.push(Line::from(ev(a)));
                if a != b {
                    let direct = g.between(a, b).join("|");
                    out.push(Line::from(format!(
                        "  to {} ({direct})",
                        ev(b).trim_start()
                    )));
                    if !x.between.is_empty() {
                        out.push(Line::from(Span::styled("with, between them:", bold)));
                        path(&mut out, &x.between, b);
                    }
                }
            }
            _ if x.cycle.is_empty() => out.push(Line::from(Span::styled(
                format!("{} fails without a cycle to show", x.check),
                bold,
            ))),
            _ => {
                out.push(Line::from(Span::styled(
                    format!("Cycle of {}", x.check),
                    bold,
                )));
                path(&mut out, &x.cycle, x.cycle[0].0);
            }
        }
    }
    out.push(Line::default());
    out.push(Line::from(Span::styled("Events", bold)));
    let mut procs: Vec<Option<u32>> = g.events().map(|e| e.proc).collect();
    procs.sort();
    procs.dedup();
    for p in procs {
        let who = p.map(|p| format!("P{p}")).unwrap_or_else(|| "init".into());
        let members = (0..g.len()).filter(|&k| g.event(k).proc == p);
        if p.is_none() {
            let all: Vec<String> = members
                .map(|k| format!("{}: {}", name(k), g.event(k).label))
                .collect();
            out.push(Line::from(format!("  {who:<5} {}", all.join("   "))));
        } else {
            for (n, k) in members.enumerate() {
                let head = if n == 0 { who.as_str() } else { "" };
                out.push(Line::from(format!(
                    "  {head:<5} {}: {}",
                    name(k),
                    g.event(k).label
                )));
            }
        }
    }

    let on_cycle: BTreeSet<(usize, usize)> =
        r.rejected.iter().flat_map(|x| x.highlight()).collect();
    out.push(Line::default());
    let toggles: Vec<String> = RELATIONS
        .iter()
        .enumerate()
        .map(|(k, rel)| {
            let mark = if app.hidden.contains(rel) { "-" } else { "" };
            format!("{}{mark}{rel}", k + 1)
        })
        .collect();
    out.push(Line::from(vec![
        Span::styled("Edges", bold),
        Span::styled(
            format!("  (keys {}; cycle edges in red)", toggles.join(" ")),
            Style::new().fg(Color::DarkGray),
        ),
    ]));
    let mut rels: Vec<&str> = RELATIONS.to_vec();
    for e in g.edges() {
        if !rels.contains(&e.rel) {
            rels.push(e.rel);
        }
    }
    for rel in rels {
        if app.hidden.contains(rel) {
            continue;
        }
        let edges: Vec<_> = g.edges().filter(|e| e.rel == rel).collect();
        if edges.is_empty() {
            continue;
        }
        let mut spans = vec![Span::raw(format!("  {rel:<5}"))];
        for e in edges {
            let style = if on_cycle.contains(&(e.from, e.to)) {
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            spans.push(Span::raw(" "));
            spans.push(Span::styled(
                format!("{}→{}", name(e.from), name(e.to)),
                style,
            ));
        }
        out.push(Line::from(spans));
    }

    let words = litmus::report::words(g);
    if !words.is_empty() {
        out.push(Line::default());
        out.push(Line::from(Span::styled("Reads from, coherence", bold)));
        out.extend(words.into_iter().map(|l| Line::from(format!("  {l}"))));
    }

    out
}

fn footer(app: &App) -> Paragraph<'static> {
    let line = match app.mode {
        Mode::Search => Line::from(vec![
            Span::styled("/", Style::new().fg(Color::Yellow)),
            Span::raw(app.query.clone()),
            Span::styled(
                "▏  (Enter keep, Esc clear)",
                Style::new().fg(Color::DarkGray),
            ),
        ]),
        _ if !app.status.is_empty() => Line::from(app.status.clone()),
        _ => Line::from(Span::styled(KEYS, Style::new().fg(Color::DarkGray))),
    };
    Paragraph::new(line)
}

fn draw_help(f: &mut Frame) {
    let text = [
        "↑ ↓  j k       previous / next execution (in the focused pane: scroll)",
        "PgUp PgDn      a page;   g G  Home End   first / last",
        "n p            next / previous execution from either pane",
        "Tab            switch pane: execution list / selected execution",
        "a              list all executions",
        "c  r           only consistent / only rejected ones",
        "s              condition: any → satisfied → not satisfied",
        "/              search final states and checks (Enter keep, Esc clear)",
        "1-8            show / hide po rf co fr addr data ctrl rmw",
        "d              write the selected execution as Graphviz DOT",
        "Esc            clear the search",
        "q  Ctrl-C      quit",
        "",
        "A consistent execution that satisfies the condition shows how the",
        "outcome is reached; a rejected one shows the check and cycle that forbid it.",
    ];
    let area = f.area();
    let w = (text.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16 + 4).min(area.width);
    let h = (text.len() as u16 + 2).min(area.height);
    let popup = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    f.render_widget(Clear, popup);
    f.render_widget(
        Paragraph::new(text.iter().map(|l| Line::from(*l)).collect::<Vec<_>>()).block(
            Block::new()
                .borders(Borders::ALL)
                .title(" Keys (any key closes) "),
        ),
        popup,
    );
}

#[cfg(test)]
mod tests {
    use super::super::app::tests::app;
    use super::*;
    use crossterm::event::{KeyCode, KeyEvent};
    use ratatui::{Terminal, backend::TestBackend};

    fn screen(a: &mut App) -> String {
        let mut t = Terminal::new(TestBackend::new(140, 50)).expect("terminal");
        t.draw(|f| draw(f, a)).expect("draws");
        let buf = t.backend().buffer();
        (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn names_run_like_herds() {
        assert_eq!(name(0), "a");
        assert_eq!(name(25), "z");
        assert_eq!(name(26), "aa");
        assert_eq!(name(27), "ab");
    }

    #[test]
    fn draws_a_rejected_execution_with_its_cycle() {
        let mut a = app();
        for c in "rs".chars() {
            a.key(KeyEvent::from(KeyCode::Char(c)));
        }
        let s = screen(&mut a);
        let check = rejection(a.current().expect("selected"))
            .expect("rejected")
            .to_string();
        assert!(s.contains(&format!("rejected by {check}")), "{s}");
        assert!(s.contains(&format!("Cycle of {check}")), "{s}");
        assert!(s.contains("--fr-->"), "{s}");
        assert!(s.contains("P0    "), "{s}");
        assert!(s.contains("Executions: rejected, satisfying"), "{s}");
        // The list has room for the page size it reported.
        assert_eq!(a.page, 50 - 4 - 1 - 2);
    }

    #[test]
    fn hidden_relations_leave_the_edge_list() {
        let mut a = app();
        let s = screen(&mut a);
        assert!(s.lines().any(|l| l.contains("│  po ")), "{s}");
        a.key(KeyEvent::from(KeyCode::Char('1')));
        let s = screen(&mut a);
        assert!(!s.lines().any(|l| l.contains("│  po ")), "{s}");
        assert!(s.contains("1-po"), "{s}");
    }

    #[test]
    fn help_and_empty_views_draw() {
        let mut a = app();
        a.key(KeyEvent::from(KeyCode::Char('?')));
        assert!(screen(&mut a).contains("Keys (any key closes)"));
        for c in "xcs".chars() {
            a.key(KeyEvent::from(KeyCode::Char(c)));
        }
        assert!(screen(&mut a).contains("No execution matches the filters."));
    }
}
