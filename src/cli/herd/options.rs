//! herd7's options, as its `herd/herd.ml` lists them: each with the kind of argument it
//! takes, checked with the words of OCaml's `Arg` module and herd's own tag parsers, so
//! that a wrong command line fails as it fails with herd7 (message, usage, status 2).

/// What an option takes after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Unit,
    Bool,
    Int,
    /// An integer or `none`.
    IntOpt,
    Float,
    /// A float or `none`.
    FloatOpt,
    Str,
    /// A string or `none`.
    StrOpt,
    /// Comma-separated names.
    Names,
    /// `x,y` floats.
    Pos,
    /// One of these tags (herd's `ArgUtils.parse_tag`).
    Tag(&'static [&'static str]),
    /// Comma-separated tags, each one of these (`-debug`).
    Tags(&'static [&'static str]),
    /// One of these tags, reported as herd's `ParseTag.Make` does (`-machsize`, `-view`).
    NamedTag(&'static [&'static str]),
    /// herd's `-variant` tags, comma-separated.
    Variant,
    /// `-model`: a `.cat` (or `.mdl`) file, or `cav12`.
    Model,
}

/// One option: name, argument, and the line of the usage message.
pub struct Spec {
    pub name: &'static str,
    pub kind: Kind,
    pub doc: &'static str,
}

const fn o(name: &'static str, kind: Kind, doc: &'static str) -> Spec {
    Spec { name, kind, doc }
}

pub const SPEEDCHECK: &[&str] = &["false", "true", "fast"];
pub const SHOW: &[&str] = &["prop", "all", "neg", "cond", "none", "wit"];
pub const THROUGH: &[&str] = &["all", "invalid", "none"];
const DEBUG: &[&str] = &[
    "solver",
    "lexer",
    "top",
    "mem",
    "monad",
    "barrier",
    "model",
    "res",
    "rfm",
    "pretty",
    "mixed",
    "files",
    "timeout",
    "profile_cat",
    "profile_asl",
    "exception",
];
const VIEW: &[&str] = &["gv", "evince", "preview"];
const MACHSIZE: &[&str] = &["auto", "byte", "short", "word", "quad", "s128"];
const ENDIAN: &[&str] = &["little", "big"];
const OPTACE: &[&str] = &["false", "true", "iico"];
const GRAPH: &[&str] = &["free", "cluster", "columns"];
const DOTMODE: &[&str] = &["plain", "fig"];
const DOTCOM: &[&str] = &["dot", "neato", "circo"];
const SHOWEVENTS: &[&str] = &["all", "mem", "noregs", "memf"];
const SPLINES: &[&str] = &[
    "spline", "true", "line", "false", "polyline", "ortho", "curved", "none",
];
const RESTRICT: &[&str] = &["observed", "nonambiguous", "condone", "none"];

use Kind::*;

/// Every option herd7 7.58 takes, in its order. Those that only style herd's pictures are
/// accepted and checked, and change nothing in ours (see `README.md`).
pub const SPECS: &[Spec] = &[
    o("-version", Unit, " show version number and exit"),
    o("-libdir", Unit, " show the library folder and exit"),
    o(
        "-set-libdir",
        Str,
        "<path> set the library folder to <path>",
    ),
    o(
        "-v",
        Unit,
        "<non-default> show diagnostics (the model files used), repeat for more",
    ),
    o("-q", Unit, "<default> do not show diagnostics"),
    o("-I", Str, "<dir> add <dir> to search path"),
    o(
        "-exit",
        Bool,
        "<bool> exit in case of failure, default false",
    ),
    o(
        "-timeout",
        FloatOpt,
        "<float|none> time allowed per test (seconds)",
    ),
    o("-conf", Str, "<name> read configuration file <name>"),
    o("-bell", Str, "<name> read bell file <name>"),
    o("-macros", Str, "<name> read macro (.def) file <name>"),
    o(
        "-o",
        Str,
        "<dir> generated files will go into <dir>, default: do not generate",
    ),
    o(
        "-suffix",
        Str,
        "<suf> add <suf> at the end of the base of generated files",
    ),
    o(
        "-dumpes",
        Bool,
        "<bool> dump event structures, default false",
    ),
    o(
        "-view",
        NamedTag(VIEW),
        "<gv|evince|preview> fork specified viewer (not done: see -o)",
    ),
    o("-gv", Unit, "<non-default>  alias for -view gv"),
    o("-evince", Unit, "<non-default>  alias for -view evince"),
    o("-preview", Unit, "<non-default>  alias for -view preview"),
    o(
        "-unroll",
        Int,
        "<int> branch unrolling upper limit, default 2",
    ),
    o(
        "-hexa",
        Bool,
        "<bool> print numbers in hexadecimal, default false",
    ),
    o("-switch", Unit, "switch something"),
    o("-web", Unit, " alias for -conf web.cfg"),
    o("-c11", Unit, " alias for -conf cpp11.cfg"),
    o(
        "-debug",
        Tags(DEBUG),
        "show debug messages for specific parts",
    ),
    o(
        "-morefences",
        Bool,
        "<bool> does nothing (deprecated), default false",
    ),
    o(
        "-model",
        Model,
        "<cav12|<filename>.cat>  select model, defaults X86=x86tso.cat, X86_64=x86tso-mixed.cat, PPC=ppc.cat, AArch64=aarch64.cat, C=linux-kernel.cfg",
    ),
    o(
        "-cat",
        Model,
        "<cav12|<filename>.cat>  select model, as -model",
    ),
    o(
        "-through",
        Tag(THROUGH),
        "what to let through in addition to valid executions, default none",
    ),
    o(
        "-throughflag",
        StrOpt,
        "<string|none> let through executions flagged with string, and only those",
    ),
    o("-skipcheck", Str, "<name> do not apply check, cumulates"),
    o(
        "-skipchecks",
        Names,
        "<name,..,name> do not apply listed checks, cumulative",
    ),
    o(
        "-strictskip",
        Bool,
        "<bool> retain outcomes allowed by ALL skipped checks, default false",
    ),
    o(
        "-cycles",
        Names,
        "<name,..,name> show failing checks as cycles, cumulates",
    ),
    o(
        "-variant",
        Variant,
        "<tags> select an architecture variation (herd7's tags)",
    ),
    o(
        "-machsize",
        NamedTag(MACHSIZE),
        "set basic machine size, default auto",
    ),
    o("-endian", NamedTag(ENDIAN), "set endianness"),
    o(
        "-archcheck",
        Bool,
        "<bool> check compatibility of test and cat model architectures, default true",
    ),
    o(
        "-optace",
        Tag(OPTACE),
        "optimize axiomatic candidate generation, default is iico",
    ),
    o(
        "-initwrites",
        Bool,
        "<bool> represent init writes as write events (debugging)",
    ),
    o(
        "-show",
        Tag(SHOW),
        "executions shown in figure, default none",
    ),
    o(
        "-showflag",
        Str,
        "<string>  show executions flagged by string in figure",
    ),
    o(
        "-speedcheck",
        Tag(SPEEDCHECK),
        "aim at checking condition in place of listing final states",
    ),
    o(
        "-nshow",
        Int,
        "<n> collect at most <n> pictures, default is to collect all (specified) pictures",
    ),
    o(
        "-badexecs",
        Bool,
        "<bool> give output for tests that have bad executions (see -badflag), default true",
    ),
    o(
        "-badflag",
        StrOpt,
        "<string|none> executions with flag <string> are bad",
    ),
    o(
        "-checkfilter",
        Bool,
        "<bool> discard outcomes that negate filter proposition (if any), default true",
    ),
    o("-showone", Bool, "<bool> alias for -nshow 1"),
    o(
        "-maxphantom",
        IntOpt,
        "<int|none> maximum phantom update (per variable)",
    ),
    o(
        "-statelessrc11",
        Bool,
        "<bool> enable stateless RC11 model checking",
    ),
    o(
        "-dumpallfaults",
        Bool,
        "Dump final states with all faults that happened",
    ),
    o(
        "-graph",
        Tag(GRAPH),
        "select sort of graph, default cluster",
    ),
    o(
        "-dotmode",
        Tag(DOTMODE),
        "control text in dot figures, default plain",
    ),
    o("-dotcom", Tag(DOTCOM), "select command to translate dot"),
    o(
        "-showevents",
        Tag(SHOWEVENTS),
        "select events shown in figures, default noregs",
    ),
    o("-mono", Bool, "<bool> monochrome figures, default false"),
    o(
        "-scale",
        Float,
        "<float> global scale factor for graphs, default 1.0",
    ),
    o(
        "-xscale",
        Float,
        "<float> global scale factor for graphs, x direction, default 1.0",
    ),
    o(
        "-yscale",
        Float,
        "<float> global scale factor for graphs, y direction, default 1.0",
    ),
    o(
        "-dsiy",
        Float,
        "<float> vertical variation for events generated by the same instruction, default 0.3",
    ),
    o(
        "-siwidth",
        Float,
        "<float> width occupied by events generated by the same instruction, default 0.8",
    ),
    o(
        "-ptscale",
        Float,
        "<float> scale factor for points, default 3.0",
    ),
    o(
        "-boxscale",
        Float,
        "<float> scale factor box width, default 3.0",
    ),
    o(
        "-showthread",
        Bool,
        "<bool> show thread numbers in figures, default true",
    ),
    o(
        "-shift",
        Str,
        "<float,...,float> add vertical space at thread start (column mode only)",
    ),
    o(
        "-edgemerge",
        Bool,
        "<bool> merge edges, cppmem style, default false",
    ),
    o(
        "-labelinit",
        Bool,
        "<bool> show labels on the init node, default true",
    ),
    o(
        "-showlegend",
        Bool,
        "<bool> show legend in pictures, default true",
    ),
    o(
        "-showkind",
        Bool,
        "<bool> show test kind in legends, default false",
    ),
    o(
        "-shortlegend",
        Bool,
        "<bool> show test name only in legends, default false",
    ),
    o(
        "-squished",
        Bool,
        "<bool> limit information in graph nodes, default false",
    ),
    o(
        "-fixedsize",
        Bool,
        "<bool> fixedsize attribute for nodes in graph, default false",
    ),
    o(
        "-extrachars",
        Float,
        "<float> additional space for computing node width, can be negative, default 0.0",
    ),
    o(
        "-showobserved",
        Bool,
        "<bool> highlight observed memory reads in pictures, default false",
    ),
    o(
        "-brackets",
        Bool,
        "<bool> show brackets around locations in pictures, default true",
    ),
    o(
        "-texmacros",
        Bool,
        "<bool> use latex commands in output, default false",
    ),
    o(
        "-tikz",
        Bool,
        "<bool> generate dot files suitable for processing with TikZ, default false",
    ),
    o(
        "-showpo",
        Bool,
        "<bool> show po edges in pictures, default true",
    ),
    o(
        "-showinitrf",
        Bool,
        "<bool> show read-from edges from initial state in pictures, default false",
    ),
    o(
        "-showfinalrf",
        Bool,
        "<bool> show read-from edges to final state in pictures, default false",
    ),
    o(
        "-initrfpos",
        Pos,
        "<float,float> position of pseudo source event for initial rf, default -0.4,0.3",
    ),
    o(
        "-finalrfpos",
        Pos,
        "<float,float> position of pseudo target event for final rf, default -0.4,0.3",
    ),
    o(
        "-oneinit",
        Bool,
        "<bool> show a init writes pseudo-event, with all initial writes grouped, default true",
    ),
    o(
        "-initpos",
        Pos,
        "<float,float> position of the init writes pseudo-event",
    ),
    o(
        "-showinitwrites",
        Bool,
        "<bool> show init write events in pictures, default true",
    ),
    o(
        "-threadposy",
        Float,
        "<float> thread number position in the y direction, default 0.6",
    ),
    o("-doshow", Names, "<name,..,name> show those edges"),
    o("-unshow", Names, "<name,..,name> do not show those edges"),
    o(
        "-symetric",
        Names,
        "<name,..,name> declare those edges as symetric",
    ),
    o(
        "-noid",
        Names,
        "<name,..,name> like -symetric, additionally do not show identity edges",
    ),
    o(
        "-classes",
        StrOpt,
        "<string|none> show classes of this equivalence (no not cumulate)",
    ),
    o(
        "-showraw",
        Names,
        "<name,..,name> do not perform transitivity removal on those edges",
    ),
    o(
        "-splines",
        Tag(SPLINES),
        "specify splines graph attribute, default none",
    ),
    o(
        "-margin",
        FloatOpt,
        "<float|none> margin attribute of graphs",
    ),
    o("-pad", FloatOpt, "<float|none> pad attribute of graphs"),
    o("-sep", StrOpt, "<string|none> specify graph sep attribute"),
    o(
        "-fontname",
        StrOpt,
        "<string|none> fontname attribute in graphs",
    ),
    o(
        "-fontsize",
        IntOpt,
        "<int|none> fontsize attribute in graphs",
    ),
    o(
        "-edgefontsizedelta",
        Int,
        "<int> value to add to edge fontsize, default 0",
    ),
    o(
        "-penwidth",
        FloatOpt,
        "<float|none> penwidth attribute in graphs",
    ),
    o(
        "-arrowsize",
        FloatOpt,
        "<float|none> arrowsize attribute in graphs",
    ),
    o(
        "-edgeattr",
        Str,
        "<label,attribute,value> specify an attribute for edges labelled by label",
    ),
    o(
        "-names",
        Str,
        "<name> specify file of names, can be repeated",
    ),
    o(
        "-excl",
        Str,
        "<name> specify file of names to be excluded, can be repeated",
    ),
    o(
        "-rename",
        Str,
        "<name> specify a rename mapping, hashes are checked",
    ),
    o(
        "-kinds",
        Str,
        "<name> specify kind of tests (can be repeated)",
    ),
    o(
        "-conds",
        Str,
        "<name> specify conditions of tests (can be repeated)",
    ),
    o(
        "-candidates",
        Bool,
        "<bool> show complete candidate count in output, default false",
    ),
    o(
        "-restrict",
        Tag(RESTRICT),
        "restrict outcomes, default none",
    ),
    o(
        "-outcomereads",
        Bool,
        "<bool> include all memory reads in outcomes, default false",
    ),
    o(
        "-overlap",
        StrOpt,
        "<string|none> specify graph overlap attribute",
    ),
    o(
        "-relabel",
        Bool,
        "<bool> merge power/arm labels(e.g sync -> sync/dmb), default false",
    ),
    o(
        "-withbox",
        Bool,
        "<bool> box together events generated by the same instruction, default false",
    ),
    o(
        "-labelbox",
        Bool,
        "<bool> label instruction instruction boxes with instruction, default false",
    ),
    o(
        "-movelabel",
        Bool,
        "<bool> apply various tricks to enhance edge label placement in pictures, default false",
    ),
    o(
        "-dotheader",
        Str,
        "<name> insert the contents of <name> at the beginning of generated dot files",
    ),
];

pub fn spec(name: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| s.name == name)
}

/// The usage message, as OCaml's `Arg.usage` prints it.
pub fn usage(prog: &str) -> String {
    let mut u = format!("Usage {prog} [options] [test]*\n");
    for s in SPECS {
        u.push_str(&format!("  {} {}\n", s.name, s.doc));
    }
    u.push_str("  -help  Display this list of options\n");
    u.push_str("  --help  Display this list of options\n");
    u
}

/// Why an argument is wrong, in the words herd7 prints after `PROG: ` (without the final
/// `.` that OCaml adds).
pub fn check(s: &Spec, arg: &str) -> Result<(), String> {
    let wrong = |what: &str| format!("wrong argument '{arg}'; option '{}' expects {what}", s.name);
    let none_or = |ok: bool, what: &str| {
        if arg == "none" || ok {
            Ok(())
        } else {
            Err(wrong(what))
        }
    };
    let tags = |tags: &[&str]| tags.join(",");
    match s.kind {
        Unit | Str => Ok(()),
        Bool => match arg {
            "true" | "false" => Ok(()),
            _ => Err(wrong("a boolean")),
        },
        Int => ocaml_int(arg)
            .map(|_| ())
            .ok_or_else(|| wrong("an integer")),
        IntOpt => none_or(ocaml_int(arg).is_some(), "an integer"),
        Float => ocaml_float(arg).map(|_| ()).ok_or_else(|| wrong("a float")),
        FloatOpt => none_or(ocaml_float(arg).is_some(), "a float"),
        StrOpt | Names => Ok(()),
        Pos => match arg.split_once(',') {
            Some((x, y)) if ocaml_float(x).is_some() && ocaml_float(y).is_some() => Ok(()),
            _ => Err(wrong("a float,float")),
        },
        Tag(ts) => {
            if ts.contains(&arg.to_ascii_lowercase().as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "bad tag for {}, allowed tag are {}",
                    s.name,
                    tags(ts)
                ))
            }
        }
        Tags(ts) => {
            if arg
                .split(',')
                .all(|t| ts.contains(&t.to_ascii_lowercase().as_str()))
            {
                Ok(())
            } else {
                Err(format!(
                    "bad tag for {}, allowed tag are {}",
                    s.name,
                    tags(ts)
                ))
            }
        }
        NamedTag(ts) => {
            if ts.contains(&arg.to_ascii_lowercase().as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "{arg} is a bad tag for {}, allowed tag are {}",
                    s.name,
                    tags(ts)
                ))
            }
        }
        Variant => match arg
            .split(',')
            .map(str::trim)
            .find(|t| !litmus::model::herd_variant(t))
        {
            None => Ok(()),
            Some(t) => Err(format!(
                "tag {t} for {} is wrong, allowed tags are {}",
                s.name, VARIANT_TAGS
            )),
        },
        Model => {
            let l = arg.to_ascii_lowercase();
            if arg.ends_with(".cat")
                || arg.ends_with(".mdl")
                || [
                    "cav12",
                    "cav12_nocord",
                    "cav12_lightst",
                    "cav12_nocord_lightst",
                ]
                .contains(&l.as_str())
            {
                Ok(())
            } else {
                Err(format!(
                    "bad tag for {}, allowed tag are cav12,<filename>.cat",
                    s.name
                ))
            }
        }
    }
}

/// herd7 7.58's list of `-variant` tags, as its usage message spells it.
pub const VARIANT_TAGS: &str = "success,instr,specialx0,normw,acqrelasfence,backcompat,fullscdepend,splittedrmw,switchdepscwrite,switchdepscresult,lrscdiffok,mixed,dontcheckmixed,weakpredicated,lkmmv1,lkmmv2,memtag,vmsa,kvm,synchronous,sync,asynchronous,async,asymmetric,asym,handled,fatal,faultToNext,CutOff,deps,morello,instances,noptebranch,pte2,pte-squared,PhantomOnLoad,OptRfRMW,ConstrainedUnpredictable,exp,self,cos-opt,test,T[0-9][0-9],asl,strict,warn,S128,ASLType+Warn,ASLType+Silence,ASLType+Check,ASL+Experimental,ASL+AArch64+UDF,telechat,OldSolver,oota";

/// OCaml's `int_of_string`: decimal, `0x`/`0o`/`0b` prefixes, `_` separators, a sign.
pub fn ocaml_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (radix, digits) = match body.get(..2).map(str::to_ascii_lowercase).as_deref() {
        Some("0x") => (16, &body[2..]),
        Some("0o") => (8, &body[2..]),
        Some("0b") => (2, &body[2..]),
        _ => (10, body),
    };
    if digits.is_empty() || digits.starts_with('_') {
        return None;
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    let v = i64::from_str_radix(&clean, radix).ok()?;
    Some(if neg { -v } else { v })
}

/// OCaml's `float_of_string` for the forms people write (`2`, `2.5`, `1e3`, `.5`).
pub fn ocaml_float(s: &str) -> Option<f64> {
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() || clean.eq_ignore_ascii_case("nan") || clean.contains("inf") {
        return clean.parse().ok();
    }
    clean.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_is_listed_once() {
        for (i, s) in SPECS.iter().enumerate() {
            assert!(
                SPECS[i + 1..].iter().all(|t| t.name != s.name),
                "{} twice",
                s.name
            );
        }
    }

    #[test]
    fn arguments_are_checked_with_herds_words() {
        let c = |n: &str, a: &str| check(spec(n).unwrap(), a);
        assert_eq!(
            c("-unroll", "abc"),
            Err("wrong argument 'abc'; option '-unroll' expects an integer".into())
        );
        assert_eq!(
            c("-exit", "maybe"),
            Err("wrong argument 'maybe'; option '-exit' expects a boolean".into())
        );
        assert_eq!(
            c("-speedcheck", "maybe"),
            Err("bad tag for -speedcheck, allowed tag are false,true,fast".into())
        );
        assert_eq!(
            c("-machsize", "x"),
            Err(
                "x is a bad tag for -machsize, allowed tag are auto,byte,short,word,quad,s128"
                    .into()
            )
        );
        assert!(
            c("-variant", "lkmmv2,bogus")
                .unwrap_err()
                .starts_with("tag bogus for -variant is wrong")
        );
        assert!(c("-variant", "lkmmv2,T05,sve:128").is_ok());
        assert!(c("-timeout", "none").is_ok() && c("-timeout", "2.5").is_ok());
        assert!(c("-unroll", "0x10").is_ok() && c("-unroll", "1_000").is_ok());
        assert_eq!(
            c("-model", "foo"),
            Err("bad tag for -model, allowed tag are cav12,<filename>.cat".into())
        );
    }
}
