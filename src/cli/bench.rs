//! `litmus bench`: time whole batches and single hard tests in-process, report events,
//! candidates and consistent executions per second, compare with herd7's recorded times, and
//! measure how time grows with the number of threads.

use super::{diag, litmus_files};
use clap::Args;
use litmus::judge::{self, Judgement, Options};
use litmus::model::{self, Loaded, Request};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Clone)]
pub struct BenchArgs {
    /// Litmus files or folders (not needed with --scaling).
    pub paths: Vec<PathBuf>,
    /// herd7's answers (`expected/*.jsonl`) to compare times with `herd_seconds`.
    #[arg(long)]
    pub expected: Vec<PathBuf>,
    /// Worker threads (1 for a single-core comparison).
    #[arg(long, short = 'j', default_value = "1", value_parser = super::values::jobs)]
    pub jobs: usize,
    /// Seconds allowed per test.
    #[arg(long, default_value = "60", value_parser = super::values::seconds)]
    pub timeout: Duration,
    /// How many of the slowest tests to list.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Time generated families of growing tests (SB rings and message-passing chains,
    /// 2..=N threads, N at most 64); a family stops growing at its first test over --timeout.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(2..=64))]
    pub scaling: Option<u16>,
    /// With --scaling, also write the generated tests into this folder (to time other tools).
    #[arg(long, value_name = "DIR")]
    pub emit: Option<PathBuf>,
}

struct Row {
    file: String,
    secs: f64,
    j: Option<Judgement>,
    err: Option<String>,
}

pub fn run(a: &BenchArgs) -> i32 {
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(a.jobs.max(1))
        .stack_size(litmus::WORKER_STACK)
        .start_handler(|_| litmus::crash::guard_this_thread())
        .build_global();
    if let Some(n) = a.scaling {
        return scaling(usize::from(n), a.timeout, a.emit.as_deref());
    }
    let herd = herd_times(&a.expected);
    let (files, _) = litmus_files(&a.paths);
    let mut models: BTreeMap<&'static str, Loaded> = BTreeMap::new();
    let mut tests = Vec::new();
    for f in &files {
        match diag::load_test(f) {
            Ok(t) => {
                let name = model::default_for(t.arch);
                if !models.contains_key(name) {
                    match model::load_shipped(name, &Request::default()) {
                        Ok(m) => {
                            models.insert(name, m);
                        }
                        Err(e) => {
                            say!("error: model {name}: {e}");
                            return 2;
                        }
                    }
                }
                tests.push((f.clone(), t));
            }
            Err(e) => say!("{e}"),
        }
    }
    let started = Instant::now();
    let timeout = a.timeout;
    let rows: Vec<Row> = tests
        .par_iter()
        .map(|(f, t)| {
            let m = &models[model::default_for(t.arch)];
            let opts = Options {
                budget: litmus::budget::Budget::new(Some(timeout), None),
                ..Options::default()
            };
            let t0 = Instant::now();
            let r = judge::run(t, &m.model, m.macros.as_ref(), &opts);
            let secs = t0.elapsed().as_secs_f64();
            let file = f.display().to_string();
            match r {
                Ok(j) => Row {
                    file,
                    secs,
                    j: Some(j),
                    err: None,
                },
                Err(e) => Row {
                    file,
                    secs,
                    j: None,
                    err: Some(e.to_string()),
                },
            }
        })
        .collect();
    let wall = started.elapsed().as_secs_f64();
    report(&rows, &herd, wall, a);
    0
}

/// `file` (as the jsonl names it) → herd7's whole-process seconds.
fn herd_times(files: &[PathBuf]) -> HashMap<String, f64> {
    let mut out = HashMap::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(f) else {
            say!("error: cannot read {}", f.display());
            continue;
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if v["status"] == "ok"
                && let (Some(file), Some(s)) = (v["file"].as_str(), v["herd_seconds"].as_f64())
            {
                out.insert(file.to_string(), s);
            }
        }
    }
    out
}

fn herd_secs(herd: &HashMap<String, f64>, file: &str) -> Option<f64> {
    herd.iter()
        .find(|(k, _)| file.ends_with(k.as_str()))
        .map(|(_, &s)| s)
}

fn report(rows: &[Row], herd: &HashMap<String, f64>, wall: f64, a: &BenchArgs) {
    let ok: Vec<&Row> = rows.iter().filter(|r| r.j.is_some()).collect();
    let total: f64 = ok.iter().map(|r| r.secs).sum();
    let cands: usize = ok
        .iter()
        .map(|r| r.j.as_ref().map_or(0, |j| j.stats.candidates))
        .sum();
    let left_out: usize = ok
        .iter()
        .map(|r| r.j.as_ref().map_or(0, |j| j.stats.left_out))
        .sum();
    let execs: usize = ok
        .iter()
        .map(|r| r.j.as_ref().map_or(0, |j| j.sat + j.unsat))
        .sum();
    let events: usize = ok
        .iter()
        .map(|r| {
            r.j.as_ref()
                .map_or(0, |j| j.stats.events * j.stats.candidates)
        })
        .sum();
    println!(
        "tests {}  judged {}  failed {}  jobs {}",
        rows.len(),
        ok.len(),
        rows.len() - ok.len(),
        a.jobs
    );
    println!("time: {total:.3} s summed over tests, {wall:.3} s wall");
    if let Some(mib) = peak_rss_mib() {
        println!("peak memory: {mib:.1} MiB resident (whole process)");
    }
    if total > 0.0 {
        println!(
            "throughput: {:.0} candidates/s, {:.0} consistent executions/s, {:.0} events/s",
            cands as f64 / total,
            execs as f64 / total,
            events as f64 / total
        );
    }
    if left_out > 0 {
        println!("left out: {left_out} candidates below partial rf choices that fail a check");
    }
    let symmetric = ok
        .iter()
        .filter(|r| r.j.as_ref().is_some_and(|j| j.stats.symmetries > 1))
        .count();
    if symmetric > 0 {
        println!(
            "symmetric: {symmetric} tests judged one combination of runs per orbit of their symmetries"
        );
    }
    if !herd.is_empty() {
        let (mut h, mut o) = (0.0, 0.0);
        for r in &ok {
            if let Some(s) = herd_secs(herd, &r.file) {
                h += s;
                o += r.secs;
            }
        }
        if o > 0.0 {
            println!(
                "herd7 recorded {h:.2} s on the same tests: {:.1}x (in-process times; conform measures whole processes)",
                h / o
            );
        }
    }
    let mut slow: Vec<&Row> = rows.iter().collect();
    slow.sort_by(|x, y| y.secs.total_cmp(&x.secs));
    println!("\nslowest:");
    println!(
        "{:>9} {:>9} {:>10} {:>10} {:>7} {:>4}  test",
        "secs", "herd7", "candidates", "left out", "events", "sym"
    );
    for r in slow.iter().take(a.top) {
        let h = herd_secs(herd, &r.file)
            .map(|s| format!("{s:.3}"))
            .unwrap_or_else(|| "-".into());
        match (&r.j, &r.err) {
            (Some(j), _) => println!(
                "{:9.3} {h:>9} {:>10} {:>10} {:>7} {:>4}  {}",
                r.secs,
                j.stats.candidates,
                j.stats.left_out,
                j.stats.events,
                j.stats.symmetries,
                r.file
            ),
            (None, e) => println!(
                "{:9.3} {h:>9} {:>10} {:>10} {:>7} {:>4}  {} ({})",
                r.secs,
                "-",
                "-",
                "-",
                "-",
                r.file,
                e.as_deref().unwrap_or("")
            ),
        }
    }
}

/// Growing families: SB rings of N threads (each writes its variable, fences, reads the
/// next; C and X86) and release/acquire message-passing chains through N threads.
fn scaling(max: usize, timeout: Duration, emit: Option<&std::path::Path>) -> i32 {
    println!(
        "{:>7} {:>12} {:>12} {:>12}",
        "threads", "SB C/lkmm", "SB X86/tso", "MP-chain C"
    );
    let lkmm = model::load_shipped("lkmm", &Request::default());
    let tso = model::load_shipped("x86tso", &Request::default());
    let (Ok(lkmm), Ok(tso)) = (lkmm, tso) else {
        say!("error: cannot load the shipped models");
        return 2;
    };
    // A family whose test ran out of time is not run again at more threads.
    let mut over = [false; 3];
    for n in 2..=max {
        let family = [(sb_c(n), &lkmm), (sb_x86(n), &tso), (chain_c(n), &lkmm)];
        if let Some(dir) = emit {
            let _ = std::fs::create_dir_all(dir);
            for (k, (src, _)) in family.iter().enumerate() {
                let name = ["SB-C", "SB-X86", "MPCHAIN-C"][k];
                let _ = std::fs::write(dir.join(format!("{name}-{n}.litmus")), src);
            }
        }
        let cells: Vec<String> = family
            .iter()
            .zip(&mut over)
            .map(|((src, m), over)| {
                if *over {
                    return format!(">{}s", timeout.as_secs_f64());
                }
                let cell = time_one(src, m, timeout);
                *over = cell.starts_with('>');
                cell
            })
            .collect();
        println!("{n:>7} {:>12} {:>12} {:>12}", cells[0], cells[1], cells[2]);
    }
    0
}

fn time_one(src: &str, m: &Loaded, timeout: Duration) -> String {
    let t = match litmus::litmus::parse(src) {
        Ok(t) => t,
        Err(e) => return format!("parse: {e}"),
    };
    let opts = Options {
        budget: litmus::budget::Budget::new(Some(timeout), None),
        ..Options::default()
    };
    let t0 = Instant::now();
    match judge::run(&t, &m.model, m.macros.as_ref(), &opts) {
        Ok(_) => format!("{:.4}s", t0.elapsed().as_secs_f64()),
        Err(_) => format!(">{}s", timeout.as_secs_f64()),
    }
}

/// SB ring in C: P_i writes x_i and reads x_{i+1}; the cycle is forbidden with smp_mb.
pub fn sb_c(n: usize) -> String {
    let mut s = format!("C SB{n}\n{{}}\n");
    for i in 0..n {
        let (a, b) = (i, (i + 1) % n);
        s += &format!(
            "P{i}(int *x{a}, int *x{b})\n{{\n\tint r0;\n\tWRITE_ONCE(*x{a}, 1);\n\tsmp_mb();\n\tr0 = READ_ONCE(*x{b});\n}}\n"
        );
    }
    let cond: Vec<String> = (0..n).map(|i| format!("{i}:r0=0")).collect();
    s + &format!("exists ({})\n", cond.join(" /\\ "))
}

/// SB ring in X86 with MFENCE.
pub fn sb_x86(n: usize) -> String {
    let mut s = format!("X86 SB{n}\n{{ }}\n");
    let head: Vec<String> = (0..n).map(|i| format!("P{i}")).collect();
    s += &format!(" {} ;\n", head.join(" | "));
    let row = |f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(" | ");
    s += &format!(" {} ;\n", row(&|i| format!("MOV [x{i}],$1")));
    s += &format!(" {} ;\n", row(&|_| "MFENCE".to_string()));
    s += &format!(" {} ;\n", row(&|i| format!("MOV EAX,[x{}]", (i + 1) % n)));
    let cond: Vec<String> = (0..n).map(|i| format!("{i}:EAX=0")).collect();
    s + &format!("exists ({})\n", cond.join(" /\\ "))
}

/// A message-passing chain: P0 writes data and flag0; P_i passes flag_{i-1} to flag_i with
/// release/acquire; the last reads data.
pub fn chain_c(n: usize) -> String {
    let mut s = format!("C MPCHAIN{n}\n{{}}\n");
    s += "P0(int *d, int *f0)\n{\n\tWRITE_ONCE(*d, 1);\n\tsmp_store_release(f0, 1);\n}\n";
    for i in 1..n - 1 {
        s += &format!(
            "P{i}(int *f{}, int *f{i})\n{{\n\tint r0;\n\tr0 = smp_load_acquire(f{});\n\tsmp_store_release(f{i}, r0);\n}}\n",
            i - 1,
            i - 1
        );
    }
    let last = n - 1;
    s += &format!(
        "P{last}(int *d, int *f{})\n{{\n\tint r0;\n\tint r1;\n\tr0 = smp_load_acquire(f{});\n\tr1 = READ_ONCE(*d);\n}}\n",
        last - 1,
        last - 1
    );
    s + &format!("exists ({last}:r0=1 /\\ {last}:r1=0)\n")
}

/// The process's peak resident set, from `getrusage` (Linux reports KiB, macOS bytes).
#[cfg(unix)]
fn peak_rss_mib() -> Option<f64> {
    // SAFETY: getrusage fills the struct it is given and reads nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    let per_mib = if cfg!(target_os = "macos") {
        1024.0 * 1024.0
    } else {
        1024.0
    };
    (unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } == 0)
        .then(|| u.ru_maxrss as f64 / per_mib)
}

#[cfg(not(unix))]
fn peak_rss_mib() -> Option<f64> {
    None
}
