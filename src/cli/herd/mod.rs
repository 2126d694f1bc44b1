//! herd7's command line, whole: what `litmus` does when it runs as `herd7` (a link of that
//! name, `litmus herd7 ARGS`, or herd7's options without a subcommand), so that the kernel's
//! `tools/memory-model/scripts` and a model author's habits keep working.
//!
//! herd7's options with herd7's meaning (read in order, `-conf` files when met, as OCaml's
//! `Arg` does), its search for model files, its output blocks, its warnings (`Warning:
//! File "X": Unknown macro NAME (User error)`) and its exit statuses: 0 even after a test
//! fails (the warning is on stderr), 1 with `-exit true`, 2 for a bad command line or
//! model. One exception, for the scripts' sake: a test that runs out of `-timeout` makes
//! the exit status 124, as `timeout(1)` would (herd7 says nothing and exits 0).

mod options;

use litmus::batch::{self, Choice, Models, Settings, Status};
use litmus::cat::config;
use litmus::judge::{Options, Show, Speed};
use litmus::litmus::ast::Test;
use litmus::model::{self, Loaded, Request};
use options::{Kind, spec};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `-version` prints: herd7's format, the herd release whose output we give.
const VERSION: &str = concat!("7.58, Rev: litmus ", env!("CARGO_PKG_VERSION"));

/// The exit status of a run where a test ran out of its `-timeout`.
pub const TIMED_OUT: i32 = 124;

/// Runs herd7's command line `args` (without the program name); `prog` names the program
/// in messages, as herd7 prints its `argv[0]`.
pub fn main(prog: &str, args: &[String]) -> i32 {
    let mut h = Herd::new();
    match h.parse_args(args) {
        Ok(()) => {}
        Err(Stop::Exit(code)) => return code,
        Err(Stop::Usage(msg)) => {
            say!("{prog}: {msg}.\n{}", options::usage(prog).trim_end());
            return 2;
        }
        Err(Stop::Fatal(msg)) => {
            say!("{prog}: {msg}");
            return 2;
        }
    }
    match h.run() {
        Ok(code) => code,
        Err(msg) => {
            say!("{prog}: {msg}");
            2
        }
    }
}

/// Why the command line ends the run before any test.
enum Stop {
    /// `-version`, `-libdir`, `-help`: done.
    Exit(i32),
    /// A bad option or argument: herd's message, then the usage, status 2.
    Usage(String),
    /// A file that cannot be found or read, an option we cannot honour: status 2.
    Fatal(String),
}

/// Where `-o` puts the pictures.
enum Output {
    Dir(PathBuf),
    Stdout,
}

/// Everything the command line set, in herd7's terms.
struct Herd {
    req: Request,
    verbose: i32,
    exit_if_failed: bool,
    timeout: Option<Duration>,
    unroll: Option<u32>,
    speedcheck: Speed,
    show: Show,
    nshow: Option<usize>,
    output: Option<Output>,
    suffix: String,
    archcheck: bool,
    cav12: bool,
    names: Vec<String>,
    excl: Vec<String>,
    /// Notes for options that change nothing here, printed once (not with `-q`).
    notes: Vec<String>,
    tests: Vec<String>,
}

impl Herd {
    fn new() -> Herd {
        Herd {
            req: Request {
                herdlib: super::herdlib(),
                ..Request::default()
            },
            verbose: 0,
            exit_if_failed: false,
            timeout: None,
            unroll: None,
            speedcheck: Speed::False,
            show: Show::None,
            nshow: None,
            output: None,
            suffix: String::new(),
            archcheck: true,
            cav12: false,
            names: Vec::new(),
            excl: Vec::new(),
            notes: Vec::new(),
            tests: Vec::new(),
        }
    }

    /// Reads the command line in order, as OCaml's `Arg.parse`: `-opt arg` or `-opt=arg`,
    /// anything else a test.
    fn parse_args(&mut self, args: &[String]) -> Result<(), Stop> {
        let mut k = 0;
        while k < args.len() {
            let a = &args[k];
            k += 1;
            if a == "-help" || a == "--help" {
                return Err(Stop::Exit(print_out(&options::usage("herd7"))));
            }
            if !a.starts_with('-') || a == "-" {
                self.tests.push(a.clone());
                continue;
            }
            let (name, inline) = match spec(a) {
                Some(_) => (a.as_str(), None),
                None => match a.split_once('=') {
                    Some((n, v)) if spec(n).is_some_and(|s| s.kind != Kind::Unit) => (n, Some(v)),
                    _ => return Err(Stop::Usage(format!("unknown option '{a}'"))),
                },
            };
            let s = spec(name).expect("listed");
            let arg = match (s.kind, inline) {
                (Kind::Unit, _) => String::new(),
                (_, Some(v)) => v.to_string(),
                (_, None) => match args.get(k) {
                    Some(v) => {
                        k += 1;
                        v.clone()
                    }
                    None => {
                        return Err(Stop::Usage(format!("option '{name}' needs an argument")));
                    }
                },
            };
            options::check(s, &arg).map_err(Stop::Usage)?;
            self.apply(name, &arg)?;
        }
        Ok(())
    }

    /// One option, its argument checked already.
    fn apply(&mut self, name: &str, arg: &str) -> Result<(), Stop> {
        let yes = arg == "true";
        let names = || {
            arg.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let unsupported = |what: &str| {
            Err(Stop::Fatal(format!(
                "{name} {arg}: {what} is not supported by litmus"
            )))
        };
        match name {
            "-version" => {
                return Err(Stop::Exit(print_out(&format!("{VERSION}\n"))));
            }
            "-libdir" => {
                let dir = match &self.req.libdir {
                    Some(d) => d.display().to_string(),
                    None => "<builtin>".into(),
                };
                return Err(Stop::Exit(print_out(&format!("{dir}\n"))));
            }
            "-set-libdir" => self.req.libdir = Some(arg.into()),
            "-v" => self.verbose += 1,
            "-q" => self.verbose = -1,
            "-I" => self.req.include.push(arg.into()),
            "-exit" => self.exit_if_failed = yes,
            // herd7 fails on what `setitimer` refuses (a negative, infinite or NaN time);
            // 0 sets no timer.
            "-timeout" => {
                self.timeout = match options::ocaml_float(arg) {
                    None => None,
                    Some(0.0) => None,
                    Some(t) if t > 0.0 && t <= super::values::MAX_SECONDS => {
                        Some(Duration::from_secs_f64(t))
                    }
                    Some(_) => {
                        return Err(Stop::Usage(format!(
                            "wrong argument '{arg}'; option '-timeout' expects a positive \
                             number of seconds, at most {:e}",
                            super::values::MAX_SECONDS
                        )));
                    }
                }
            }
            "-conf" => self.read_conf(arg)?,
            "-web" => self.read_conf("web.cfg")?,
            "-c11" => self.read_conf("cpp11.cfg")?,
            "-bell" => self.req.bell = Some(arg.into()),
            "-macros" => self.req.macros = Some(arg.into()),
            "-o" => {
                self.output = Some(match arg {
                    "-" => Output::Stdout,
                    d => Output::Dir(d.into()),
                })
            }
            "-suffix" => self.suffix = arg.to_string(),
            "-view" | "-gv" | "-evince" | "-preview" => self.note(format!(
                "{name}: litmus forks no viewer; -o DIR writes the pictures (Graphviz DOT)"
            )),
            "-unroll" => {
                let n = options::ocaml_int(arg).unwrap_or(2);
                self.unroll = Some(u32::try_from(n.max(0)).unwrap_or(u32::MAX));
            }
            "-model" | "-cat" => {
                if arg.ends_with(".cat") || arg.ends_with(".mdl") {
                    self.req.cat = Some(arg.into());
                    self.cav12 = false;
                } else {
                    self.cav12 = true;
                }
            }
            "-through" => self.req.skip.all = arg != "none",
            "-skipcheck" => self.req.skip.names.push(arg.to_string()),
            "-skipchecks" => self.req.skip.names.extend(names()),
            "-variant" => self.req.variants.extend(names()),
            "-archcheck" => self.archcheck = yes,
            "-show" => self.show = show_tag(arg),
            "-showflag" => self.show = Show::Flag(arg.to_string()),
            "-speedcheck" => {
                self.speedcheck = match arg.to_ascii_lowercase().as_str() {
                    "true" => Speed::True,
                    "fast" => Speed::Fast,
                    _ => Speed::False,
                }
            }
            "-nshow" => self.nshow = options::ocaml_int(arg).map(|n| n.max(0) as usize),
            "-showone" if yes => self.nshow = Some(1),
            "-names" => self.names.extend(read_names(arg)?),
            "-excl" => self.excl.extend(read_names(arg)?),
            "-debug" if arg.split(',').any(|t| t == "files") => self.verbose = self.verbose.max(1),
            // What changes answers or output in ways we do not reproduce: refused.
            "-hexa" | "-dumpes" | "-strictskip" | "-statelessrc11" | "-dumpallfaults"
            | "-outcomereads" | "-candidates"
                if yes =>
            {
                return unsupported("this output or model option");
            }
            "-initwrites" => return unsupported("representing initial writes otherwise"),
            "-badexecs" | "-checkfilter" if !yes => {
                return unsupported("this selection of executions");
            }
            "-machsize" if !arg.eq_ignore_ascii_case("auto") => {
                return unsupported("a machine size");
            }
            "-endian" if arg.eq_ignore_ascii_case("big") => {
                return unsupported("big-endian memory");
            }
            "-restrict" if arg != "none" => return unsupported("restricting outcomes"),
            "-throughflag" | "-badflag" | "-maxphantom" if arg != "none" => {
                return unsupported("this selection of executions");
            }
            "-rename" | "-kinds" | "-conds" => {
                return unsupported("replacing names, kinds or conditions of tests");
            }
            // The rest only style herd's pictures (or are no-ops in herd7 too).
            _ => {}
        }
        Ok(())
    }

    fn note(&mut self, n: String) {
        if !self.notes.contains(&n) {
            self.notes.push(n);
        }
    }

    /// `-conf NAME`: found on the search path as it stands now, each line applied as the
    /// option of its key (herd's `LexConf_herd`), in order.
    fn read_conf(&mut self, name: &str) -> Result<(), Stop> {
        let src = config::find(name, None, &self.req.search_path())
            .ok_or_else(|| Stop::Fatal(format!("Cannot find file {name}")))?;
        if self.verbose > 0 {
            say!("Found and opened: '{}'", src.display());
        }
        let text = src.read().map_err(Stop::Fatal)?;
        let shown = src.display();
        for (n, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let at = |msg: String| Stop::Fatal(format!("File \"{shown}\", line {}: {msg}", n + 1));
            let key_len = t
                .find(|c: char| !c.is_ascii_alphabetic())
                .unwrap_or(t.len());
            let (key, rest) = t.split_at(key_len);
            let arg = rest.trim_start().strip_prefix('=').unwrap_or(rest).trim();
            if key.is_empty() || arg.is_empty() {
                return Err(at("Unknown key in configuration file".into()));
            }
            let option = match key {
                "include" => "-I".to_string(),
                "verbose" => {
                    self.verbose = options::ocaml_int(arg)
                        .ok_or_else(|| at("integer parameter expected".into()))?
                        as i32;
                    continue;
                }
                k if CFG_KEYS.contains(&k) => format!("-{k}"),
                k => return Err(at(format!("Unknown key '{k}' in configuration file"))),
            };
            let s = spec(&option).expect("every configuration key is an option");
            options::check(s, arg).map_err(at)?;
            self.apply(&option, arg)?;
        }
        Ok(())
    }

    fn run(&mut self) -> Result<i32, String> {
        if self.cav12 {
            return Err(
                "the CAV12 model built into herd7 is not in litmus; give a .cat file".into(),
            );
        }
        if self.verbose >= 0 {
            for n in &self.notes {
                say!("Warning: {n}");
            }
        }
        let files = test_files(&self.tests)?;
        let choice = match model::load_files(&self.req) {
            Ok(Some(mut m)) => {
                if !self.archcheck {
                    m.model_arch = None;
                }
                self.tell_sources(&m);
                Choice::files(m)
            }
            Ok(None) => Choice::Standard,
            Err(e) => return Err(herd_load_error(&e)),
        };
        let models = Models::load(choice, &self.req).map_err(|e| e.to_string())?;

        // Read every test first: herd selects by name (-names, -excl) and skips a test
        // met again, before running anything.
        let mut parsed: HashMap<PathBuf, Test> = HashMap::new();
        let mut hashes: HashMap<PathBuf, String> = HashMap::new();
        let mut plan: Vec<Entry> = Vec::new();
        let mut seen: HashMap<String, (String, PathBuf)> = HashMap::new();
        for f in &files {
            let read = litmus::litmus::read_source(f).and_then(|src| {
                litmus::litmus::parse(&src)
                    .map(|t| (litmus::litmus::hash::herd_hash(&src, &t), t))
                    .map_err(|err| litmus::litmus::LoadError::Parse {
                        path: f.clone(),
                        src,
                        err: Box::new(err),
                    })
            });
            match read {
                Err(e) => plan.push(Entry::Fails(load_warning(f, &e))),
                Ok((hash, t)) => {
                    if (!self.names.is_empty() && !self.names.contains(&t.name))
                        || self.excl.contains(&t.name)
                    {
                        continue;
                    }
                    // herd skips a test met again with the same hash, and refuses one
                    // of the same name with another.
                    let text = hash.clone();
                    hashes.insert(f.clone(), hash);
                    match seen.get(&t.name) {
                        Some((prev, _)) if *prev == text => continue,
                        Some((_, other)) => {
                            plan.push(Entry::Fails(format!(
                                "File \"{}\": Different hashes for test {} (previous file {}) (User error)",
                                f.display(),
                                t.name,
                                other.display()
                            )));
                            continue;
                        }
                        None => {
                            seen.insert(t.name.clone(), (text, f.clone()));
                        }
                    }
                    if let Some(w) = self.arch_mismatch(&models, f, &t) {
                        plan.push(Entry::Fails(w));
                        continue;
                    }
                    parsed.insert(f.clone(), t);
                    plan.push(Entry::Judge(f.clone()));
                }
            }
        }
        let to_judge: Vec<PathBuf> = plan
            .iter()
            .filter_map(|e| match e {
                Entry::Judge(f) => Some(f.clone()),
                Entry::Fails(_) => None,
            })
            .collect();
        if self.verbose > 0 && matches!(models.choice(), Choice::Standard) {
            let mut arches: Vec<_> = parsed.values().map(|t| t.arch).collect();
            arches.sort_by_key(|a| a.name());
            arches.dedup();
            for a in arches {
                if let Ok(m) = models.standard_for(a) {
                    self.tell_sources(m);
                }
            }
        }
        let settings = Settings {
            options: self.options(),
            timeout: self.timeout,
            max_memory: super::values::default_memory(),
        };
        let load = |p: &Path| {
            parsed.get(p).cloned().ok_or_else(|| {
                litmus::report::diag::Diagnostic::error(p.display().to_string(), None, "")
            })
        };
        // Each test's block goes out as soon as it and those before it are judged, the
        // plan's warnings in their places between them.
        let mut printer = Printer {
            herd: self,
            models: &models,
            hashes: &hashes,
            plan: plan.iter(),
            status: 0,
            stop: None,
            out: std::io::stdout(),
            err: std::io::stderr(),
        };
        let run = batch::Run {
            parallel: to_judge.len() > 1,
            shuffled: false,
            done: &|| {},
        };
        batch::stream(
            &to_judge,
            &load,
            &models,
            &settings,
            run,
            &|r| r,
            &mut |r| printer.record(r),
        );
        printer.rest();
        let Printer {
            status,
            stop,
            mut out,
            ..
        } = printer;
        let _ = out.flush();
        match stop {
            Some(Halt::Failed) => Ok(1),
            Some(Halt::Error(e)) => Err(e),
            None => Ok(status),
        }
    }

    /// The judge's options from herd's.
    fn options(&self) -> Options {
        Options {
            unroll: self.unroll.unwrap_or(2),
            speedcheck: self.speedcheck,
            nshow: match (&self.show, self.nshow, &self.output) {
                (Show::None, _, _) | (_, None, _) | (_, _, None) => None,
                (s, Some(n), Some(_)) => Some((s.clone(), n)),
            },
            ..Options::default()
        }
    }

    /// `-v`: the files a model was made from, in herd's `-debug files` words.
    fn tell_sources(&self, m: &Loaded) {
        if self.verbose > 0 {
            for s in &m.files {
                say!("Found and opened: '{s}'");
            }
        }
    }

    /// herd's warning for a test the model's title says it is not for.
    fn arch_mismatch(&self, models: &Models, f: &Path, t: &Test) -> Option<String> {
        let m = models.model_for(t).ok()?;
        let a = m.model_arch.as_deref()?;
        (a != t.arch.name()).then(|| {
            format!(
                "File \"{}\": Architecture mismatch between test and model ({} vs. {a}) (User error)",
                f.display(),
                t.arch.name()
            )
        })
    }

    /// `-o`: the executions `-show` selects (at most `-nshow`) as Graphviz graphs, in
    /// `DIR/BASE.dot` (herd names the file after the test file), or on stdout for `-o -`.
    fn pictures(
        &self,
        o: &Output,
        file: &Path,
        t: &Test,
        m: &Loaded,
        out: &mut impl Write,
    ) -> Result<(), String> {
        let dot = shown_dot(t, m, &self.options(), &self.show, self.nshow)?;
        match o {
            Output::Stdout => write_all(out, &dot),
            Output::Dir(d) => write_dot(d, file, &self.suffix, &dot),
        }
    }
}

/// The consistent executions of `t` that `show` selects, at most `nshow`, as Graphviz
/// graphs one after the other (herd7's `-show` pictures); nothing for `Show::None`.
fn shown_dot(
    t: &Test,
    m: &Loaded,
    opts: &Options,
    show: &Show,
    nshow: Option<usize>,
) -> Result<String, String> {
    let mut dot = String::new();
    if *show == Show::None {
        return Ok(dot);
    }
    let x = litmus::judge::explore::shown(
        t,
        &m.model,
        m.macros.as_ref(),
        opts,
        show,
        nshow.unwrap_or(usize::MAX),
    )
    .map_err(|e| e.to_string())?;
    for (k, r) in x.records.iter().enumerate() {
        let title = format!("Test {}, execution {} ({})", t.name, k + 1, m.label);
        dot += &litmus::report::dot::render(&title, &r.graph, &[]);
    }
    Ok(dot)
}

/// `DIR/BASE{suffix}.dot`, `BASE` the test file's name without `.litmus`, as herd7's `-o`.
fn write_dot(dir: &Path, file: &Path, suffix: &str, dot: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let base = file.file_stem().map(|s| s.to_string_lossy().into_owned());
    let path = dir.join(format!("{}{suffix}.dot", base.unwrap_or_default()));
    std::fs::write(&path, dot).map_err(|e| format!("{}: {e}", path.display()))
}

/// `check --graph DIR --show SHOW`: herd7's `-o DIR -show SHOW` pictures of one test.
pub fn write_shown(
    dir: &Path,
    file: &Path,
    t: &Test,
    m: &Loaded,
    show: &str,
    nshow: Option<usize>,
) -> Result<(), String> {
    let dot = shown_dot(t, m, &Options::default(), &show_tag(show), nshow)?;
    write_dot(dir, file, "", &dot)
}

/// One test file, in the order of the command line: judged, or reported.
enum Entry {
    Judge(PathBuf),
    /// Not judged; herd's warning (after `Warning: `).
    Fails(String),
}

/// The keys a configuration file may set (herd's `LexConf_herd`), besides `include`
/// (`-I`) and `verbose`.
const CFG_KEYS: &[&str] = &[
    "conf",
    "suffix",
    "timeout",
    "debug",
    "names",
    "excl",
    "rename",
    "kinds",
    "conds",
    "model",
    "cat",
    "bell",
    "macros",
    "variant",
    "machsize",
    "endian",
    "through",
    "skipchecks",
    "strictskip",
    "unroll",
    "optace",
    "archcheck",
    "initwrites",
    "speedcheck",
    "badexecs",
    "badflag",
    "dumpallfaults",
    "show",
    "showflag",
    "nshow",
    "restrict",
    "showkind",
    "shortlegend",
    "texmacros",
    "hexa",
    "outcomereads",
    "dotmode",
    "dotcom",
    "view",
    "showevents",
    "graph",
    "mono",
    "fontname",
    "fontsize",
    "edgefontsizedelta",
    "penwidth",
    "arrowsize",
    "splines",
    "overlap",
    "sep",
    "margin",
    "pad",
    "scale",
    "xscale",
    "yscale",
    "dsiy",
    "siwidth",
    "boxscale",
    "ptscale",
    "squished",
    "showpo",
    "relabel",
    "withbox",
    "labelbox",
    "showfinalrf",
    "showinitrf",
    "finalrfpos",
    "initrfpos",
    "oneinit",
    "labelinit",
    "initpos",
    "threadposy",
    "showinitwrites",
    "showthread",
    "showlegend",
    "brackets",
    "showobserved",
    "movelabel",
    "fixedsize",
    "extrachars",
    "dotheader",
    "doshow",
    "unshow",
    "noid",
    "symetric",
    "classes",
    "showraw",
    "edgeattr",
    "shift",
    "edgemerge",
];

fn show_tag(t: &str) -> Show {
    match t.to_ascii_lowercase().as_str() {
        "prop" => Show::Prop,
        "neg" => Show::Neg,
        "cond" => Show::Cond,
        "wit" => Show::Wit,
        "all" => Show::All,
        _ => Show::None,
    }
}

/// A `-names`/`-excl` file: the first word of each line.
fn read_names(file: &str) -> Result<Vec<String>, Stop> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Stop::Fatal(format!("open_in failed: {file}: {}", io_words(&e))))?;
    Ok(text
        .lines()
        .filter_map(|l| l.split(' ').next())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect())
}

/// The tests named on the command line: `@FILE` lists (one name a line, `#` comments,
/// relative to the list's folder), or, with none, the names read from stdin (herd's
/// `Misc.fold_argv_or_stdin`).
fn test_files(args: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    if args.is_empty() {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| format!("stdin: {e}"))?;
        list(&text, Path::new("."), &mut out)?;
    } else {
        for a in args {
            name(Path::new(a), &mut out)?;
        }
    }
    Ok(out)
}

fn name(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let is_list = p
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with('@'));
    if !is_list {
        out.push(p.to_path_buf());
        return Ok(());
    }
    let text = std::fs::read_to_string(p)
        .map_err(|e| format!("open_in failed: {}: {}", p.display(), io_words(&e)))?;
    list(&text, p.parent().unwrap_or(Path::new(".")), out)
}

fn list(text: &str, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for l in text.lines() {
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let p = Path::new(l);
        let p = if dir == Path::new(".") || p.is_absolute() {
            p.to_path_buf()
        } else {
            dir.join(p)
        };
        name(&p, out)?;
    }
    Ok(())
}

/// An I/O error as OCaml's `Sys_error` words it (no `(os error N)`).
fn io_words(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(k) => s[..k].to_string(),
        None => s,
    }
}

/// herd's warning for a test file it cannot read or parse.
fn load_warning(f: &Path, e: &litmus::litmus::LoadError) -> String {
    match e {
        litmus::litmus::LoadError::Source(litmus::source::SourceError::Io(_, source)) => format!(
            "File \"{}\": open_in failed: {}: {}",
            f.display(),
            f.display(),
            io_words(source)
        ),
        litmus::litmus::LoadError::Source(e) => {
            format!("File \"{}\": {e} (User error)", f.display())
        }
        litmus::litmus::LoadError::Parse { err, .. } => {
            let c = err.col.saturating_sub(1);
            format!(
                "File \"{}\", line {}, characters {c}-{}: {} (User error)",
                f.display(),
                err.line,
                c + 1,
                err.msg
            )
        }
    }
}

/// herd's warning for a test the engine refused: an unknown macro in herd's words (the
/// kernel's `judgelitmus.sh` greps them), anything else as a user error of the test.
fn engine_warning(f: &Path, msg: &str) -> String {
    match litmus::sem::c::unknown_macro(msg) {
        Some(name) => format!(
            "File \"{}\": Unknown macro {name} (User error)",
            f.display()
        ),
        None => format!("File \"{}\": {msg} (User error)", f.display()),
    }
}

/// A model that cannot be loaded, in herd's words.
fn herd_load_error(e: &model::LoadError) -> String {
    match e {
        model::LoadError::NotFound(_, name, _) => format!("Cannot find file {name}"),
        model::LoadError::Cat(c) if c.line > 0 => format!(
            "File \"{}\", line {}, characters {}-{}: {}",
            c.file,
            c.line,
            c.col.saturating_sub(1),
            c.col,
            c.msg
        ),
        e => e.to_string(),
    }
}

/// Writes `text` to stdout: status 0, or 2 when it cannot be written.
fn print_out(text: &str) -> i32 {
    match super::write_stdout(text) {
        Ok(()) => 0,
        Err(_) => 2,
    }
}

fn write_all(out: &mut impl Write, text: &str) -> Result<(), String> {
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| format!("cannot write the output: {e}"))
}

/// Why a herd7 run stopped printing before the end of its plan.
enum Halt {
    /// `-exit-if-failed` met a failure.
    Failed,
    Error(String),
}

/// Prints a herd7 run's plan in order: the warnings of the files it could not judge,
/// and each judged file's block as it comes.
struct Printer<'a, 'p> {
    herd: &'a Herd,
    models: &'a batch::Models,
    hashes: &'a HashMap<PathBuf, String>,
    plan: std::slice::Iter<'p, Entry>,
    status: i32,
    stop: Option<Halt>,
    out: std::io::Stdout,
    err: std::io::Stderr,
}

impl Printer<'_, '_> {
    /// The plan's warnings up to `r`'s file, then `r`.
    fn record(&mut self, r: batch::Record) {
        while self.stop.is_none() {
            match self.plan.next() {
                Some(Entry::Fails(w)) => self.warn(w.clone()),
                Some(Entry::Judge(f)) if *f == r.file => break,
                Some(Entry::Judge(_)) | None => return,
            }
        }
        if self.stop.is_some() {
            return;
        }
        if let Err(e) = self.judged(&r) {
            self.stop = Some(Halt::Error(e));
        }
    }

    /// The plan's warnings after the last judged file.
    fn rest(&mut self) {
        while self.stop.is_none() {
            match self.plan.next() {
                Some(Entry::Fails(w)) => self.warn(w.clone()),
                Some(Entry::Judge(_)) => {}
                None => return,
            }
        }
    }

    fn judged(&mut self, r: &batch::Record) -> Result<(), String> {
        let f = &r.file;
        match &r.status {
            Status::Judged(j) => {
                let t = r.test.as_deref().expect("parsed");
                let mut text = litmus::report::herd::block(t, j);
                // After `Time`, herd prints the test's hash (the block has it already
                // when the test's header gives it).
                if let Some(h) = self.hashes.get(f)
                    && !t.info.iter().any(|(k, _)| k == "Hash")
                {
                    text.push_str(&format!("Hash={h}\n"));
                }
                text.push('\n');
                write_all(&mut self.out, &text)?;
                if let Some(o) = &self.herd.output {
                    let m = self.models.model_for(t)?;
                    self.herd.pictures(o, f, t, &m, &mut self.out)?;
                }
            }
            Status::Undetermined(x, _) => {
                self.status = TIMED_OUT;
                if self.herd.verbose >= 0 {
                    let _ = self.out.flush();
                    let _ = writeln!(
                        self.err,
                        "Warning: File \"{}\": {x}, no answer (litmus: exit status {TIMED_OUT})",
                        f.display()
                    );
                }
            }
            Status::Error(e) => self.warn(engine_warning(f, &e.msg)),
            Status::NotApplicable | Status::NotCompiled(_) => {}
        }
        Ok(())
    }

    fn warn(&mut self, w: String) {
        let _ = self.out.flush();
        let _ = writeln!(self.err, "Warning: {w}");
        let _ = self.err.flush();
        if self.herd.exit_if_failed {
            self.stop = Some(Halt::Failed);
        }
    }
}
