#[test]
fn probe_parser() {
    let src = "C t\n{ int *p = x; 0:r3 = y; }\nP0(int *x, int *y, spinlock_t *l) {\n int r0;\n r0 = READ_ONCE(*x);\n if (r0 == 1) { WRITE_ONCE(*y, 1); } else { spin_lock(l); }\n while (r0) { r0 = r0 - 1; }\n (void)xchg(x, 1);\n}\nexists (0:r0=1)\n";
    let t = crate::litmus::parse(src);
    println!("{t:#?}");
}
