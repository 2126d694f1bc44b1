//! Kernel code as written (issue 37): bad input stays located. A macro given the wrong
//! arguments or expanding to nonsense, a call of an undefined function, recursion, a
//! `goto` to a missing label, a `struct` definition: each a `line:col` error naming the
//! construct (for a macro, at its use and naming its definition's line).

mod common;

use common::shipped;
use litmus::judge::{self, Options};
use litmus::litmus::parse;

/// A C test with `defs` before its thread `P0(int *x, int *y) { body }`.
fn test(defs: &str, body: &str) -> String {
    format!("C t\n\n{{}}\n\n{defs}\nP0(int *x, int *y)\n{{\n{body}\n}}\n\nexists (x=1)\n")
}

/// The error judging `src` gives, as the user sees it: (line, col, message).
fn judge_error(src: &str) -> (u32, u32, String) {
    let t = parse(src).unwrap_or_else(|e| panic!("parses: {e}\n{src}"));
    let lkmm = shipped("lkmm");
    let e = judge::run(&t, &lkmm.model, lkmm.macros.as_ref(), &Options::default())
        .err()
        .unwrap_or_else(|| panic!("judged without error:\n{src}"));
    let (at, msg) = t.relocate(e.at, e.msg);
    let (line, col) = at.expect("located");
    (line, col, msg)
}

#[test]
fn macro_errors_point_at_the_use_and_name_the_definition() {
    let src = test("#define PUT(p, v) WRITE_ONCE(*p, v)\n", "\tPUT(x, 1, 2);");
    let e = parse(&src).unwrap_err();
    assert_eq!((e.line, e.col), (9, 2), "{e}");
    assert!(
        e.msg.contains("`PUT` takes 2") && e.msg.contains("line 5"),
        "{e}"
    );
    // A body that expands to nonsense: the parse error is at the use, naming the macro.
    let src = test(
        "#define BAD(p) WRITE_ONCE(*p, )\n",
        "\tint r = 0;\n\tBAD(x);",
    );
    let e = parse(&src).unwrap_err();
    assert_eq!(e.line, 10, "{e}");
    assert!(e.msg.contains("macro `BAD`, defined at line 5"), "{e}");
    // An unknown primitive inside a macro: the judge's error, at the use.
    let src = test("#define GET(p) READ_ONSE(*p)\n", "\tint r = GET(x);");
    let (line, col, msg) = judge_error(&src);
    assert_eq!((line, col), (9, 10), "{msg}");
    assert!(
        msg.contains("READ_ONSE") && msg.contains("macro `GET`"),
        "{msg}"
    );
    // Directives themselves.
    let e = parse(&test("#include <linux/rwsem.h>\n", "")).unwrap_err();
    assert_eq!(e.line, 5);
    assert!(e.msg.contains("#include"), "{e}");
    let e = parse(&test("#ifdef X\n", "")).unwrap_err();
    assert!(e.msg.contains("#endif"), "{e}");
}

#[test]
fn function_errors_are_located() {
    let (line, _, msg) = judge_error(&test("", "\tpublsh(x, 1);"));
    assert_eq!(line, 8);
    assert!(msg.contains("publsh"), "{msg}");
    let rec = "static int f(int *p)\n{\n\treturn g(p);\n}\n\nstatic int g(int *p)\n{\n\treturn f(p) + 1;\n}\n";
    let (line, _, msg) = judge_error(&test(rec, "\tint r = f(x);"));
    assert!(msg.contains("recursive call of `f` (f -> g -> f)"), "{msg}");
    // At the call that recurses, in `g`.
    assert_eq!(line, 12, "{msg}");
    let e = parse(&test(
        "int f(int *p) { return 1; }\nint f(int *p) { return 2; }\n",
        "",
    ))
    .unwrap_err();
    assert!(e.msg.contains("`f` defined twice"), "{e}");
}

#[test]
fn goto_and_switch_errors_are_located() {
    let (line, col, msg) = judge_error(&test(
        "",
        "\tint r = READ_ONCE(*x);\n\tif (r)\n\t\tgoto out;\n",
    ));
    assert_eq!((line, col), (10, 3), "{msg}");
    assert!(msg.contains("no label `out`"), "{msg}");
    let body = "\tint r;\n\twhile (1) {\n\t\tr = READ_ONCE(*x);\n\t\tswitch (r) {\n\t\tcase 0:\n\t\t\tcontinue;\n\t\t}\n\t\tbreak;\n\t}";
    let (_, _, msg) = judge_error(&test("", body));
    assert!(msg.contains("`continue` inside a `switch`"), "{msg}");
    let (_, _, msg) = judge_error(&test("", "\tcase 1: WRITE_ONCE(*x, 1);"));
    assert!(msg.contains("outside a `switch`"), "{msg}");
}

#[test]
fn type_definitions_are_refused_located() {
    let src = test(
        "struct lockref {\n\tunion {\n\t\tu64 lock_count;\n\t\tstruct { int lock; int count; };\n\t};\n};\n",
        "",
    );
    let e = parse(&src).unwrap_err();
    assert_eq!((e.line, e.col), (5, 1), "{e}");
    assert!(
        e.msg.contains("`struct` definitions are not supported"),
        "{e}"
    );
    let e = parse(&test("typedef int myint;\n", "")).unwrap_err();
    assert!(e.msg.contains("`typedef`"), "{e}");
}

#[test]
fn expression_statements_discard_their_values() {
    let src = test(
        "",
        "\tsmp_cond_load_acquire(x, VAL == 0);\n\tatomic_inc_return((atomic_t *)y);",
    );
    let t = parse(&src).unwrap();
    let lkmm = shipped("lkmm");
    let j = judge::run(&t, &lkmm.model, lkmm.macros.as_ref(), &Options::default()).unwrap();
    assert_eq!(j.observation().to_string(), "Never");
}

#[test]
fn compile_takes_the_new_constructs_or_says_where_it_cannot() {
    use litmus::compile::{self, mapping::Mapping};
    let x86 = Mapping::load("x86").unwrap();
    let root = common::root().join("litmus/kernel");
    for f in [
        "ctrl/LB+switch-fallthrough+mb.litmus",
        "ctrl/SB+goto-retry-out.litmus",
        "constructs/MP+define-macros.litmus",
        "short-circuit/MP+rel+cond-acq-once.litmus",
    ] {
        let t = litmus::litmus::parse_file(&root.join(f)).unwrap();
        compile::compile(&t, &x86).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    let t =
        litmus::litmus::parse_file(&root.join("constructs/MP+helper-functions.litmus")).unwrap();
    let e = compile::compile(&t, &x86).unwrap_err();
    assert_eq!(e.span.map(|s| s.line), Some(13), "{e}");
    assert!(e.msg.contains("helper function `publish`"), "{e}");
}
