//! Malformed input: every error carries a sensible position, and nothing panics.

use super::*;

const AARCH64: &str = "AArch64 MP\n{\n0:X1=x; 0:X3=y;\n1:X1=y; 1:X3=x;\n}\n P0          | P1           ;\n MOV W0,#1   | LDR W0,[X1]  ;\n STR W0,[X1] | CBNZ W0,L0   ;\n MOV W2,#1   | L0:          ;\n STR W2,[X3] | LDR W2,[X3]  ;\nexists (1:X0=1 /\\ 1:X2=0)\n";

const C: &str = "C MP\n{\n int x = 0;\n}\n\nP0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tif (READ_ONCE(*y)) {\n\t\tsmp_wmb();\n\t}\n}\n\nP1(int *x)\n{\n\tint r0 = READ_ONCE(*x);\n}\n\nexists (1:r0=1)\n";

fn err(src: &str) -> ParseError {
    match parse(src) {
        Ok(t) => panic!("expected an error, parsed {t:?}"),
        Err(e) => e,
    }
}

#[test]
fn well_formed_samples_parse() {
    assert_eq!(parse(AARCH64).unwrap().threads.len(), 2);
    assert_eq!(parse(C).unwrap().threads.len(), 2);
}

#[test]
fn a_litmus_ending_of_the_test_name_is_dropped_as_herd_drops_it() {
    let t = parse(&C.replacen("C MP", "C MP.litmus", 1)).unwrap();
    assert_eq!(t.name, "MP");
}

#[test]
fn empty_file() {
    let e = err("");
    assert_eq!((e.line, e.col), (1, 1));
    assert!(e.msg.contains("architecture"), "{}", e.msg);
}

#[test]
fn binary_garbage() {
    let e = err("\u{0}\u{1}\u{7f}\u{fffd}garbage");
    assert_eq!((e.line, e.col), (1, 1));
    let e = err("AArch64 t\n{\n}\n P0 ;\n \u{0}\u{1} ;\nexists (true)\n");
    assert_eq!(e.line, 5);
}

#[test]
fn unknown_architecture() {
    let e = err("MIPS t\n{}\n");
    assert!(e.msg.contains("unknown architecture `MIPS`"), "{}", e.msg);
}

#[test]
fn bad_instruction_is_located() {
    let src = AARCH64.replace("STR W2,[X3]", "FOO W2,[X3]");
    let e = err(&src);
    assert_eq!((e.line, e.col), (10, 2));
    assert!(
        e.msg.contains("unknown AArch64 instruction `FOO`"),
        "{}",
        e.msg
    );
    let e = err("PPC t\n{}\n P0 ;\n li r1,1 ;\n lwzz r1,0(r2) ;\nexists (true)\n");
    assert_eq!((e.line, e.col), (5, 2));
    let e = err("X86_64 t\n{}\n P0 ;\n movq $1,(x) ;\n movz $1,(x) ;\nexists (true)\n");
    assert_eq!((e.line, e.col), (5, 2));
}

#[test]
fn bad_operand_is_located() {
    let e = err("AArch64 t\n{}\n P0 ;\n LDR W0,[X1 ;\nexists (true)\n");
    assert_eq!(e.line, 4);
    let e = err("PPC t\n{}\n P0 ;\n stw r1,0(r2 ;\nexists (true)\n");
    assert_eq!(e.line, 4);
}

#[test]
fn unbalanced_braces() {
    let src = C.replace("\t\tsmp_wmb();\n\t}\n", "\t\tsmp_wmb();\n");
    let e = err(&src);
    assert!(e.line >= 13, "{e}");
    let e = err("C t\n{ int x;\n\nP0(int *x)\n{\n}\nexists (x=0)\n");
    assert!(e.msg.contains("`;` or `}`"), "{e}");
}

#[test]
fn missing_row_terminator() {
    let e = err("X86 t\n{}\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1\nexists (true)\n");
    assert_eq!((e.line, e.col), (4, 25));
}

#[test]
fn bad_condition() {
    let e = err(&AARCH64.replace("exists (1:X0=1", "exists (1:X0 1"));
    assert_eq!(e.line, 11);
    let e = err(&AARCH64.replace("exists", "exists (1:X0=1) junk"));
    assert_eq!(e.line, 11);
}

#[test]
fn truncated_files_fail_without_panicking() {
    for src in [AARCH64, C] {
        let lines = src.lines().count() as u32;
        for (k, _) in src.char_indices() {
            let cut = &src[..k];
            // Only the empty condition is optional: a cut in the middle of the code fails.
            if let Err(e) = parse(cut) {
                assert!(e.line >= 1 && e.line <= lines, "cut at {k}: {e}");
                assert!(e.offset <= cut.len(), "cut at {k}: {e}");
            }
        }
    }
}

#[test]
fn report_points_at_the_offending_text() {
    let src = AARCH64.replace("STR W2,[X3]", "FOO W2,[X3]");
    let e = err(&src);
    assert_eq!(&src[e.offset..e.offset + e.len], "FOO");
    let text = format!("{:?}", e.report("t.litmus", &src));
    assert!(text.contains("t.litmus:10:2"), "{text}");
}

#[test]
fn print_round_trips_samples() {
    for src in [AARCH64, C] {
        let t = parse(src).unwrap();
        assert_eq!(parse(&print(&t)).unwrap(), t);
    }
}

#[test]
fn lock_prefix_may_be_followed_by_a_semicolon_inside_a_cell() {
    let x86 = "X86 L\n{ x=0; }\n P0              | P1          ;\n LOCK;ADD [x],$1 | MOV EAX,[x] ;\nexists (1:EAX=1)\n";
    let x64 = "X86_64 L\n{ x=0; }\n P0                | P1            ;\n lock; addq $1,(x) | movq (x),%rax ;\nexists (1:rax=1)\n";
    for (src, op) in [(x86, "LOCK ADD"), (x64, "lock addq")] {
        let t = parse(src).unwrap();
        let ast::Thread::Asm(a) = &t.threads[0] else {
            panic!("asm thread")
        };
        assert_eq!(a.code[0].instr.as_ref().unwrap().op, op);
        assert_eq!(t.threads.len(), 2);
    }
}
