//! Canonical print of small hand-written tests, one or more per dialect.

use litmus::litmus::{parse, print};

/// Print `src` canonically, checking the print parses back to the same AST.
fn canon(src: &str) -> String {
    let t = parse(src).unwrap_or_else(|e| panic!("{e}"));
    let out = print(&t);
    let again = parse(&out).unwrap_or_else(|e| panic!("reparse: {e}\n{out}"));
    assert_eq!(again, t, "round trip changed the AST:\n{out}");
    out
}

#[test]
fn c_message_passing() {
    insta::assert_snapshot!(canon(
        r#"C mp-sketch
"a doc string"
Info=hand written
(* a (* nested *) comment *)
{ int x = 0; int *p = &x; atomic_t a = ATOMIC_INIT(2); 0:r9=x; }

P0(int *x, int* y, atomic_t *a)
{
    int r0, *q = x;
    WRITE_ONCE(*x, 1);   // store
    smp_wmb();
    r0 = (void)atomic_inc_return(a) + -1 * (2 - 3);
    if (r0 > 1 && !r0) { r0 += 2; } else if (r0) r0--; else ;
    while (r0 < 3) { r0 = r0 << 1 | 1; if (r0 == 7) break; continue; }
    do { ++r0; } while (0);
    for (int i = 0; i < 2; i++) { q[i] = i ? *q : q->next.f; }
    smp_store_release(y, r0 == 1 ? 1 : 0);
}

P1(int *x, int *y)
{
    int r1 = smp_load_acquire(y);
    int r2;
    /* a block comment */
    r2 = READ_ONCE(*x);
    return;
}

locations [x; 0:r0;]
filter (1:r1 = 1)
exists (1:r1=1 /\ 1:r2=0 \/ ~(x=2) /\ not [y]=1 => 0:r9=x)
"#
    ));
}

#[test]
fn x86_store_buffering() {
    insta::assert_snapshot!(canon(
        "X86 SB-sketch\n{ x=0; y=0; }\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n MFENCE | LOCK ADD [x],$0 ;\n MOV EAX,[y] | XCHG [x],EBX ;\n L0: | CMP EBX,$1 ;\n | JNE L0 ;\nexists (0:EAX=0 /\\ 1:EBX=0)\n"
    ));
}

#[test]
fn x86_64_att() {
    insta::assert_snapshot!(canon(
        "X86_64 LB-sketch\n{ uint64_t x; uint64_t y; uint64_t 0:rax; }\n P0 | P1 ;\n movq (x),%rax | movl (y),%eax ;\n movq $1,(y) | lock xchgq %rbx,8(%rcx,%rdx,4) ;\n mfence | ;\n~exists (0:rax=1 /\\ 1:rax=1)\n"
    ));
}

#[test]
fn aarch64_operands() {
    insta::assert_snapshot!(canon(
        "AArch64 MP-sketch\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; int z=2; }\n P0 | P1 ;\n MOV W0,#1 | LDAR W0,[X1] ;\n STR W0,[X1] | CBNZ W0,LC00 ;\n DMB ISH | LC00: ;\n STLR W0, [X3] | LDR W2,[X3,W0,SXTW] ;\n CAS W4,W5,[X3] | ADD X4,X3,X0,LSL #2 ;\n STXR W6,W0,[X1] | B.NE LC00 ;\n LDR W7,[X1,#8] | ISB ;\nforall (1:X0=0 \\/ 1:X2=1)\n"
    ));
}

#[test]
fn ppc_columns() {
    insta::assert_snapshot!(canon(
        "PPC WRC-sketch\n\"Rfe SyncdRR Fre\"\n{\n0:r2=x; 1:r2=x; 1:r4=y; 2:r2=y; 2:r4=x;\n}\n P0 | P1 | P2 ;\n li r1,1 | lwz r1,0(r2) | lwz r1,0,r2 ;\n stw r1,0(r2) | sync | xor r3,r1,r1 ;\n | li r3,1 | lwzx r5,r3,r4 ;\n | stw r3,0(r4) | Loop: lwarx r6,0,r4 ;\n | | stwcx. r6,0,r4 ;\n | | bne Loop ;\nexists (1:r1=1 /\\ 2:r1=1 /\\ 2:r5=0)\n"
    ));
}
