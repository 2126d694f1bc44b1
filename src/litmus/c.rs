//! C threads: `P0(int *x, spinlock_t *s) { ... }` with C statements and expressions.
//! Calls to any name parse; the semantics decide which names they know.

use super::ast::*;
use super::common::{at_constraint, join_type};
use super::error::{In, PResult, Wanted, expect, found, hard, soft, soft_want};
use super::lex::*;
use nom::bytes::complete::take;
use nom::character::complete::{char, digit1};
use nom::sequence::preceded;

fn cws(i: In) -> PResult<()> {
    ws_with(Comments::C)(i)
}

/// The helper functions, then every thread, up to the constraint keywords.
pub(crate) fn program(mut i: In) -> PResult<(Vec<CFunc>, Vec<CThread>)> {
    let mut threads = Vec::new();
    let mut funcs = Vec::new();
    loop {
        let (r, _) = ws_with(Comments::All)(i)?;
        i = r;
        if i.fragment().is_empty() || at_constraint(i) {
            return Ok((i, (funcs, threads)));
        }
        if threads.is_empty() && !is_thread_name(i) {
            let (r, f) = function(i)?;
            if funcs.iter().any(|g: &CFunc| g.name == f.name) {
                return hard(i, format!("function `{}` defined twice", f.name));
            }
            funcs.push(f);
            i = r;
            continue;
        }
        let (r, t) = thread(i)?;
        if t.proc as usize != threads.len() {
            return hard(
                i,
                format!("expected thread P{}, found P{}", threads.len(), t.proc),
            );
        }
        threads.push(t);
        i = r;
    }
}

/// Does a thread `P<n>(` start here?
fn is_thread_name(i: In) -> bool {
    let Some(rest) = i.fragment().strip_prefix('P') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].trim_start().starts_with('(')
}

/// The words of a declaration up to what is not one: identifiers and `*`s (`static inline
/// int *name`, `u64 *lc`), blanks and comments between them skipped.
fn words(mut i: In) -> PResult<Vec<String>> {
    let mut words = Vec::new();
    loop {
        let (r, _) = cws(i)?;
        if let Ok((r2, _)) = punct("*")(r) {
            words.push("*".into());
            i = r2;
        } else if let Ok((r2, w)) = ident(r) {
            words.push(w.into());
            i = r2;
        } else {
            return Ok((r, words));
        }
    }
}

/// A helper function definition: type words, the name, `(params)`, a body.
fn function(i: In) -> PResult<CFunc> {
    let sp = span(i);
    // Type definitions are not read yet: say so where they start.
    if let Ok((r, w @ ("struct" | "union" | "typedef" | "enum"))) = ident(i) {
        let (r, _) = cws(r)?;
        // An optional tag, then `{`: a definition (`struct lockref *f(...)` is a function).
        let r = ident(r).map_or(r, |(r2, _)| r2);
        let body = cws(r).is_ok_and(|(r3, _)| r3.fragment().starts_with('{'));
        if w == "typedef" || body {
            return hard(
                i,
                format!(
                    "`{w}` definitions are not supported: a test's shared data are separate \
                     locations passed to the threads (write a struct's fields as such)"
                ),
            );
        }
    }
    let (r, mut words) = words(i)?;
    let name = match words.last() {
        Some(n) if n != "*" && words.len() >= 2 => n.clone(),
        _ => {
            return hard(
                i,
                format!(
                    "expected a thread `P0(...)` or a function definition, found {}",
                    found(i)
                ),
            );
        }
    };
    words.pop();
    let (r, _) = expect("`(` after the function's name", char('('))(r)?;
    let (r, params) = params(r)?;
    let (r, _) = cws(r)?;
    let (r, body) = expect("`{` starting the function's body", block)(r)?;
    let ret: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| {
            !matches!(
                *w,
                "static" | "inline" | "__always_inline" | "noinline" | "extern"
            )
        })
        .collect();
    Ok((
        r,
        CFunc {
            ret: ret.join(" "),
            name,
            params,
            body,
            span: sp,
        },
    ))
}

fn thread(i: In) -> PResult<CThread> {
    let sp = span(i);
    let (r, d) =
        preceded(char('P'), digit1)(i).or_else(|_: nom::Err<super::error::ParseError>| {
            hard(
                i,
                format!("expected a thread `P0(...)`, found {}", found(i)),
            )
        })?;
    let Ok(proc) = d.fragment().parse() else {
        return hard(i, "bad thread number");
    };
    let (r, _) = cws(r)?;
    let (r, _) = expect("`(`", char('('))(r)?;
    let (r, params) = params(r)?;
    let (r, _) = cws(r)?;
    let (r, body) = expect("`{` starting the thread body", block)(r)?;
    Ok((
        r,
        CThread {
            proc,
            params,
            body,
            span: sp,
        },
    ))
}

/// `(int *x, spinlock_t *s)`, `(void)` or `()`, after the `(`.
fn params(mut i: In) -> PResult<Vec<CParam>> {
    let mut ps = Vec::new();
    loop {
        let (r, _) = cws(i)?;
        if let Ok((r, _)) = punct(")")(r) {
            return Ok((r, ps));
        }
        let (r, mut words) = words(r)?;
        match words.last().map(String::as_str) {
            Some("void") if words.len() == 1 => {}
            Some(name) if name != "*" && words.len() >= 2 => {
                let name = name.to_string();
                words.pop();
                ps.push(CParam {
                    ty: join_type(&words),
                    name,
                });
            }
            _ => {
                return hard(
                    r,
                    format!("expected a parameter `type name`, found {}", found(r)),
                );
            }
        }
        let (r2, _) = cws(r)?;
        if let Ok((r3, _)) = punct(",")(r2) {
            i = r3;
        } else {
            let (r3, _) = expect("`,` or `)`", punct(")"))(r2)?;
            return Ok((r3, ps));
        }
    }
}

/// `{ stmt* }`
fn block(i: In) -> PResult<Vec<Stmt>> {
    let (mut i, _) = punct("{")(i)?;
    let mut body = Vec::new();
    loop {
        let (r, _) = cws(i)?;
        if let Ok((r, _)) = punct("}")(r) {
            return Ok((r, body));
        }
        if r.fragment().is_empty() {
            return hard(r, "unexpected end of file: expected `}`");
        }
        let (r, mut s) = stmt(r)?;
        body.append(&mut s);
        i = r;
    }
}

/// A body of `if`/`while`/`for`: a block's statements, or a single statement.
fn body(i: In) -> PResult<Vec<Stmt>> {
    let (i, _) = cws(i)?;
    if i.fragment().starts_with('{') {
        return block(i);
    }
    stmt(i)
}

const C_KEYWORDS: &[&str] = &[
    "if", "else", "while", "do", "for", "break", "continue", "return", "sizeof", "goto", "switch",
    "case", "default",
];

/// A statement; a declaration with several declarators gives several.
fn stmt(i: In) -> PResult<Vec<Stmt>> {
    let (i, _) = cws(i)?;
    let (i, _nest) = nest(i)?;
    let sp = span(i);
    if i.fragment().starts_with('{') {
        let (r, b) = block(i)?;
        return Ok((r, vec![Stmt::Block(b)]));
    }
    if let Ok((r, _)) = punct(";")(i) {
        return Ok((r, vec![Stmt::Empty]));
    }
    let kw = ident(i).ok();
    match kw {
        Some((r, "if")) => {
            let (r, cond) = paren_expr(r)?;
            let (r, then) = body(r)?;
            let (r2, _) = cws(r)?;
            if let Ok((r2, _)) = keyword("else")(r2) {
                let (r2, els) = body(r2)?;
                return Ok((
                    r2,
                    vec![Stmt::If {
                        cond,
                        then,
                        els: Some(els),
                        span: sp,
                    }],
                ));
            }
            Ok((
                r,
                vec![Stmt::If {
                    cond,
                    then,
                    els: None,
                    span: sp,
                }],
            ))
        }
        Some((r, "while")) => {
            let (r, cond) = paren_expr(r)?;
            let (r, body) = body(r)?;
            Ok((
                r,
                vec![Stmt::While {
                    cond,
                    body,
                    span: sp,
                }],
            ))
        }
        Some((r, "do")) => {
            let (r, body) = body(r)?;
            let (r, _) = cws(r)?;
            let (r, _) = expect("`while`", keyword("while"))(r)?;
            let (r, cond) = paren_expr(r)?;
            let (r, _) = semi(r)?;
            Ok((
                r,
                vec![Stmt::DoWhile {
                    body,
                    cond,
                    span: sp,
                }],
            ))
        }
        Some((r, "for")) => for_stmt(r, sp),
        Some((r, "switch")) => {
            let (r, cond) = paren_expr(r)?;
            let (r, _) = cws(r)?;
            let (r, body) = expect("`{` starting the switch's body", block)(r)?;
            Ok((
                r,
                vec![Stmt::Switch {
                    cond,
                    body,
                    span: sp,
                }],
            ))
        }
        Some((r, "case")) => {
            let (r, v) = expect("a case value", expr)(r)?;
            let (r, _) = cws(r)?;
            let (r, _) = expect("`:` after the case value", punct(":"))(r)?;
            Ok((r, vec![Stmt::Case(Some(v), sp)]))
        }
        Some((r, "default")) => {
            let (r, _) = cws(r)?;
            let (r, _) = expect("`:` after `default`", punct(":"))(r)?;
            Ok((r, vec![Stmt::Case(None, sp)]))
        }
        Some((r, "goto")) => {
            let (r, _) = cws(r)?;
            let (r, l) = expect("a label", ident)(r)?;
            Ok((semi(r)?.0, vec![Stmt::Goto(l.to_string(), sp)]))
        }
        // The kernel's `fallthrough;` (a statement attribute) between cases.
        Some((r, "fallthrough")) if cws(r).and_then(|(r, _)| punct(";")(r)).is_ok() => {
            Ok((semi(r)?.0, vec![Stmt::Empty]))
        }
        Some((r, w)) if !C_KEYWORDS.contains(&w) && is_label_colon(r) => {
            let (r, _) = cws(r)?;
            let (r, _) = punct(":")(r)?;
            Ok((r, vec![Stmt::Label(w.to_string(), sp)]))
        }
        Some((r, "break")) => Ok((semi(r)?.0, vec![Stmt::Break(sp)])),
        Some((r, "continue")) => Ok((semi(r)?.0, vec![Stmt::Continue(sp)])),
        Some((r, "return")) => {
            let (r2, _) = cws(r)?;
            if let Ok((r3, _)) = punct(";")(r2) {
                return Ok((r3, vec![Stmt::Return(None, sp)]));
            }
            let (r, e) = expect("an expression", expr)(r2)?;
            Ok((semi(r)?.0, vec![Stmt::Return(Some(e), sp)]))
        }
        Some((_, w)) if starts_type(i, w) => {
            let (r, ds) = decl(i)?;
            Ok((semi(r)?.0, ds))
        }
        _ => {
            let (r, e) = expect("a statement", expr)(i)?;
            Ok((semi(r)?.0, vec![Stmt::Expr(e, sp)]))
        }
    }
}

/// Does `label:` end here (a `:` that is not `::`)?
fn is_label_colon(i: In) -> bool {
    let t = i.fragment().trim_start();
    t.starts_with(':') && !t.starts_with("::")
}

fn semi(i: In) -> PResult<()> {
    let (i, _) = cws(i)?;
    expect("`;`", punct(";"))(i)
}

fn paren_expr(i: In) -> PResult<Expr> {
    let (i, _) = cws(i)?;
    let (i, _) = expect("`(`", punct("("))(i)?;
    let (i, e) = expect("an expression", expr)(i)?;
    let (i, _) = cws(i)?;
    let (i, _) = expect("`)`", punct(")"))(i)?;
    Ok((i, e))
}

fn for_stmt(i: In, sp: Span) -> PResult<Vec<Stmt>> {
    let (i, _) = cws(i)?;
    let (i, _) = expect("`(`", punct("("))(i)?;
    let (i, _) = cws(i)?;
    let (i, init) = if let Ok((r, _)) = punct(";")(i) {
        (r, None)
    } else {
        let isp = span(i);
        let (r, s) = match ident(i) {
            Ok((_, w)) if starts_type(i, w) => {
                let (r, mut ds) = decl(i)?;
                if ds.len() != 1 {
                    return hard(i, "only one declaration is supported in a `for` header");
                }
                (r, ds.remove(0))
            }
            _ => {
                let (r, e) = expr(i)?;
                (r, Stmt::Expr(e, isp))
            }
        };
        (semi(r)?.0, Some(Box::new(s)))
    };
    let (i, _) = cws(i)?;
    let (i, cond) = if let Ok((r, _)) = punct(";")(i) {
        (r, None)
    } else {
        let (r, e) = expr(i)?;
        (semi(r)?.0, Some(e))
    };
    let (i, _) = cws(i)?;
    let (i, step) = if let Ok((r, _)) = punct(")")(i) {
        (r, None)
    } else {
        let (r, e) = expr(i)?;
        let (r, _) = cws(r)?;
        (expect("`)`", punct(")"))(r)?.0, Some(e))
    };
    let (i, body) = body(i)?;
    Ok((
        i,
        vec![Stmt::For {
            init,
            cond,
            step,
            body,
            span: sp,
        }],
    ))
}

/// Does a statement starting with word `w` declare variables?
fn starts_type(i: In, w: &str) -> bool {
    if !is_type_word(w) {
        return false;
    }
    // `atomic_t(...)` would be a call, not a declaration.
    let rest = &i.fragment()[w.len()..];
    !rest.trim_start().starts_with(['(', '=', ';'])
}

fn is_type_word(w: &str) -> bool {
    matches!(
        w,
        "int"
            | "char"
            | "short"
            | "long"
            | "unsigned"
            | "signed"
            | "void"
            | "const"
            | "volatile"
            | "bool"
            | "_Bool"
            | "float"
            | "double"
            | "struct"
            | "union"
            | "enum"
            | "static"
            | "register"
            | "_Atomic"
            // The kernel's fixed-size integers (include/linux/types.h).
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "s8"
            | "s16"
            | "s32"
            | "s64"
    ) || (w.ends_with("_t") && w.len() > 2)
}

/// `type [*]name [= e] (, [*]name [= e])*` without the `;`.
fn decl(i: In) -> PResult<Vec<Stmt>> {
    let (mut r, base) = base_type(i)?;
    let mut ds = Vec::new();
    loop {
        let (r2, _) = cws(r)?;
        let sp = span(r2);
        let (r2, stars) = stars(r2)?;
        let (r2, _) = cws(r2)?;
        let (r2, name) = expect("a variable name", ident)(r2)?;
        let mut ty = if stars == 0 {
            base.clone()
        } else {
            format!("{base} {}", "*".repeat(stars))
        };
        let (r2, _) = cws(r2)?;
        // `int t[2]`: the length joins the type, as in the init block (`int[2]`).
        let r2 = match punct("[")(r2) {
            Ok((r3, _)) => {
                let (r3, _) = cws(r3)?;
                let (r3, n) = expect("an array length", digit1)(r3)?;
                let (r3, _) = cws(r3)?;
                let (r3, _) = expect("`]`", punct("]"))(r3)?;
                ty = format!("{ty}[{}]", n.fragment());
                cws(r3)?.0
            }
            Err(_) => r2,
        };
        let (r2, init) = match punct("=")(r2) {
            Ok((r3, _)) => {
                let (r3, e) = expect("an initial value", expr)(r3)?;
                (r3, Some(e))
            }
            Err(_) => (r2, None),
        };
        ds.push(Stmt::Decl {
            ty,
            name: name.into(),
            init,
            span: sp,
        });
        let (r3, _) = cws(r2)?;
        match punct(",")(r3) {
            Ok((r3, _)) => r = r3,
            Err(_) => return Ok((r2, ds)),
        }
    }
}

/// Type words (`unsigned long`, `struct foo`, `atomic_t`), without stars.
fn base_type(i: In) -> PResult<String> {
    let (mut r, first) = ident(i)?;
    let mut words = vec![first.to_string()];
    let mut need_tag = matches!(first, "struct" | "union" | "enum");
    loop {
        let (r2, _) = cws(r)?;
        match ident(r2) {
            Ok((r3, w)) if need_tag || is_type_word(w) && !w.ends_with("_t") || is_qualifier(w) => {
                need_tag = matches!(w, "struct" | "union" | "enum");
                words.push(w.into());
                r = r3;
            }
            _ => return Ok((r, words.join(" "))),
        }
    }
}

fn is_qualifier(w: &str) -> bool {
    matches!(w, "const" | "volatile")
}

fn stars(mut i: In) -> PResult<usize> {
    let mut n = 0;
    loop {
        let (r, _) = cws(i)?;
        match punct("*")(r) {
            Ok((r, _)) => {
                n += 1;
                i = r;
            }
            Err(_) => return Ok((i, n)),
        }
    }
}

/// C's one-byte punctuators that begin no longer one.
static ALONE: [&str; 12] = ["~", "?", ":", "(", ")", "[", "]", "{", "}", ",", ";", "."];

/// C's punctuators that start with `b`, longest first.
fn puncts_from(b: u8) -> &'static [&'static str] {
    match b {
        b'<' => &["<<=", "<<", "<=", "<"],
        b'>' => &[">>=", ">>", ">=", ">"],
        b'-' => &["->", "--", "-=", "-"],
        b'+' => &["++", "+=", "+"],
        b'&' => &["&&", "&=", "&"],
        b'|' => &["||", "|=", "|"],
        b'=' => &["==", "="],
        b'!' => &["!=", "!"],
        b'*' => &["*=", "*"],
        b'/' => &["/=", "/"],
        b'%' => &["%=", "%"],
        b'^' => &["^=", "^"],
        _ => match ALONE.iter().position(|p| p.as_bytes()[0] == b) {
            Some(k) => std::slice::from_ref(&ALONE[k]),
            None => &[],
        },
    }
}

/// The longest punctuator at `i`. (Every parser that wants a symbol asks this, millions of
/// times in a batch: hence a table by first byte rather than a scan of them all.)
fn any_punct(i: In) -> PResult<&'static str> {
    let s = i.fragment().as_bytes();
    let found = s
        .first()
        .and_then(|&b| puncts_from(b).iter().find(|p| s.starts_with(p.as_bytes())));
    match found {
        Some(p) => Ok((take(p.len())(i)?.0, *p)),
        None => soft_want(i, Wanted::Nothing),
    }
}

/// Exactly the punctuator `p` (so `&` does not match the start of `&&`).
fn punct<'a>(p: &'static str) -> impl Fn(In<'a>) -> PResult<'a, ()> {
    move |i| match any_punct(i) {
        Ok((r, q)) if q == p => Ok((r, ())),
        _ => soft_want(i, Wanted::Sym(p)),
    }
}

/// Most levels an expression's tree may have. Later stages (lowering, macro expansion,
/// evaluation, printing) recurse on the tree, so the parser stops here, at the operator that
/// would go deeper: an operator chain (`1 + 1 + ...`) or a run of prefix operators adds a
/// level per term. Chains are parsed by loops, so reaching the limit takes linear time.
pub const MAX_EXPR_DEPTH: usize = 4096;

/// An expression and the height of its tree (a leaf is 1).
type Tall = (Expr, usize);

/// `h` levels, or a located error at `at` if that is more than [`MAX_EXPR_DEPTH`].
fn height(at: In, h: usize) -> PResult<usize> {
    if h > MAX_EXPR_DEPTH {
        return hard(
            at,
            format!(
                "expression more than {MAX_EXPR_DEPTH} levels deep (a chain of that many operators?)"
            ),
        );
    }
    Ok((at, h))
}

thread_local! {
    /// Statements and `?:` middle operands open around the parser's position: the parsers
    /// recurse on them without a bracket (which [`super::MAX_NESTING`] already bounds).
    static NEST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One level of [`NEST`], left when dropped; deeper than [`super::MAX_NESTING`] is an error.
struct Nest;

fn nest(i: In) -> PResult<Nest> {
    let n = NEST.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let g = Nest;
    if n > super::MAX_NESTING {
        return hard(
            i,
            format!(
                "more than {} statements or `?:` operands nested",
                super::MAX_NESTING
            ),
        );
    }
    Ok((i, g))
}

impl Drop for Nest {
    fn drop(&mut self) {
        NEST.with(|n| n.set(n.get() - 1));
    }
}

/// A full expression (assignment level; C's comma operator is not supported).
pub(crate) fn expr(i: In) -> PResult<Expr> {
    let (r, (e, _)) = assign(i)?;
    Ok((r, e))
}

fn assign_op(p: &str) -> Option<Option<BinOp>> {
    Some(match p {
        "=" => None,
        "+=" => Some(BinOp::Add),
        "-=" => Some(BinOp::Sub),
        "*=" => Some(BinOp::Mul),
        "/=" => Some(BinOp::Div),
        "%=" => Some(BinOp::Rem),
        "&=" => Some(BinOp::And),
        "|=" => Some(BinOp::Or),
        "^=" => Some(BinOp::Xor),
        "<<=" => Some(BinOp::Shl),
        ">>=" => Some(BinOp::Shr),
        _ => return None,
    })
}

/// `a = b += c`: right associative, so the targets are collected in a loop and the chain
/// folded from the right.
fn assign(i: In) -> PResult<Tall> {
    let mut targets: Vec<(Tall, Option<BinOp>, In)> = Vec::new();
    let (mut i, _) = cws(i)?;
    loop {
        let (r, lhs) = if targets.is_empty() {
            cond(i)?
        } else {
            expect("an expression", cond)(i)?
        };
        let (r2, _) = cws(r)?;
        match any_punct(r2)
            .ok()
            .and_then(|(r3, p)| Some((r3, assign_op(p)?)))
        {
            Some((r3, op)) => {
                height(r2, targets.len() + 2)?;
                targets.push((lhs, op, r2));
                i = cws(r3)?.0;
            }
            None => {
                let mut rhs = lhs;
                for ((lhs, lh), op, at) in targets.into_iter().rev() {
                    let (_, h) = height(at, 1 + lh.max(rhs.1))?;
                    let e = Expr::Assign {
                        op,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs.0),
                    };
                    rhs = (e, h);
                }
                return Ok((r, rhs));
            }
        }
    }
}

/// `c ? a : b ? d : e`: the `:` operands chain to the right, collected in a loop.
fn cond(i: In) -> PResult<Tall> {
    let mut arms: Vec<(Tall, Tall, In)> = Vec::new();
    let mut i = i;
    loop {
        let (r, c) = if arms.is_empty() {
            binary(i, 1)?
        } else {
            expect("an expression", |x| binary(x, 1))(i)?
        };
        let (r2, _) = cws(r)?;
        let Ok((r2, _)) = punct("?")(r2) else {
            let mut tail = c;
            for ((c, ch), (a, ah), at) in arms.into_iter().rev() {
                let (_, h) = height(at, 1 + ch.max(ah).max(tail.1))?;
                tail = (Expr::Cond(Box::new(c), Box::new(a), Box::new(tail.0)), h);
            }
            return Ok((r, tail));
        };
        let (r2, a) = {
            let (r2, _g) = nest(r2)?;
            expect("an expression", assign)(r2)?
        };
        let (r2, _) = cws(r2)?;
        let (r2, _) = expect("`:`", punct(":"))(r2)?;
        let (r2, _) = cws(r2)?;
        height(r2, arms.len() + 2)?;
        arms.push((c, a, r2));
        i = r2;
    }
}

/// Binary operators and their C precedence (higher binds tighter).
pub(crate) fn binop(p: &str) -> Option<(BinOp, u8)> {
    Some(match p {
        "||" => (BinOp::LOr, 1),
        "&&" => (BinOp::LAnd, 2),
        "|" => (BinOp::Or, 3),
        "^" => (BinOp::Xor, 4),
        "&" => (BinOp::And, 5),
        "==" => (BinOp::Eq, 6),
        "!=" => (BinOp::Ne, 6),
        "<" => (BinOp::Lt, 7),
        "<=" => (BinOp::Le, 7),
        ">" => (BinOp::Gt, 7),
        ">=" => (BinOp::Ge, 7),
        "<<" => (BinOp::Shl, 8),
        ">>" => (BinOp::Shr, 8),
        "+" => (BinOp::Add, 9),
        "-" => (BinOp::Sub, 9),
        "*" => (BinOp::Mul, 10),
        "/" => (BinOp::Div, 10),
        "%" => (BinOp::Rem, 10),
        _ => return None,
    })
}

/// Precedence climbing over [`binop`]; all binary operators are left associative, so a
/// chain of one precedence is a loop (the recursion is one level per precedence).
fn binary(i: In, min: u8) -> PResult<Tall> {
    let (mut r, mut lhs) = unary(i)?;
    loop {
        let (r2, _) = cws(r)?;
        let Ok((r3, p)) = any_punct(r2) else {
            return Ok((r, lhs));
        };
        match binop(p) {
            Some((op, prec)) if prec >= min => {
                let (r3, (rhs, rh)) = expect("an expression", |x| binary(x, prec + 1))(r3)?;
                let (_, h) = height(r2, 1 + lhs.1.max(rh))?;
                lhs = (Expr::Binary(op, Box::new(lhs.0), Box::new(rhs)), h);
                r = r3;
            }
            _ => return Ok((r, lhs)),
        }
    }
}

/// One prefix of a unary expression.
enum Prefix {
    Op(UnOp),
    Cast(String),
}

/// Prefix operators and casts, collected in a loop, then the postfix expression they apply to.
fn unary(i: In) -> PResult<Tall> {
    let mut prefixes: Vec<(Prefix, In)> = Vec::new();
    let mut i = i;
    loop {
        let (r, _) = cws(i)?;
        i = r;
        let Ok((r, p)) = any_punct(i) else { break };
        let op = match p {
            "!" => UnOp::Not,
            "~" => UnOp::BitNot,
            "-" => UnOp::Neg,
            "*" => UnOp::Deref,
            "&" => UnOp::AddrOf,
            "++" => UnOp::PreInc,
            "--" => UnOp::PreDec,
            "+" => {
                i = r;
                continue;
            }
            "(" => match cast_type(r) {
                Ok((r2, ty)) => {
                    height(i, prefixes.len() + 2)?;
                    prefixes.push((Prefix::Cast(ty), i));
                    i = r2;
                    continue;
                }
                Err(_) => break,
            },
            _ => break,
        };
        height(i, prefixes.len() + 2)?;
        prefixes.push((Prefix::Op(op), i));
        i = r;
    }
    let (r, (mut e, mut h)) = if prefixes.is_empty() {
        postfix(i)?
    } else {
        expect("an expression", postfix)(i)?
    };
    for (p, at) in prefixes.into_iter().rev() {
        h = height(at, h + 1)?.1;
        e = match p {
            Prefix::Op(op) => Expr::Unary(op, Box::new(e)),
            Prefix::Cast(ty) => Expr::Cast(ty, Box::new(e)),
        };
    }
    Ok((r, (e, h)))
}

/// `type)` after a `(`: a cast's type.
fn cast_type(i: In) -> PResult<String> {
    let (i, _) = cws(i)?;
    let (_, w) = ident(i)?;
    if !is_type_word(w) {
        return soft(i, "not a type");
    }
    let (r, base) = base_type(i)?;
    let (r, n) = stars(r)?;
    let (r, _) = cws(r)?;
    let (r, _) = punct(")")(r)?;
    Ok((
        r,
        if n == 0 {
            base
        } else {
            format!("{base} {}", "*".repeat(n))
        },
    ))
}

fn postfix(i: In) -> PResult<Tall> {
    let (mut r, (mut e, mut h)) = primary(i)?;
    loop {
        let (r2, _) = cws(r)?;
        let Ok((r3, p)) = any_punct(r2) else {
            return Ok((r, (e, h)));
        };
        match p {
            "[" => {
                let (r3, (idx, ih)) = expect("an expression", assign)(r3)?;
                let (r3, _) = cws(r3)?;
                let (r3, _) = expect("`]`", punct("]"))(r3)?;
                h = height(r2, 1 + h.max(ih))?.1;
                e = Expr::Index(Box::new(e), Box::new(idx));
                r = r3;
            }
            "." | "->" => {
                let (r3, _) = cws(r3)?;
                let (r3, f) = expect("a field name", ident)(r3)?;
                h = height(r2, h + 1)?.1;
                e = Expr::Field {
                    base: Box::new(e),
                    field: f.into(),
                    arrow: p == "->",
                };
                r = r3;
            }
            "++" | "--" => {
                h = height(r2, h + 1)?.1;
                let op = if p == "++" {
                    UnOp::PostInc
                } else {
                    UnOp::PostDec
                };
                e = Expr::Unary(op, Box::new(e));
                r = r3;
            }
            _ => return Ok((r, (e, h))),
        }
    }
}

fn primary(i: In) -> PResult<Tall> {
    let (i, _) = cws(i)?;
    match int(i) {
        Ok((r, v)) => {
            let (r, _) = nom::bytes::complete::take_while(|c: char| "uUlL".contains(c))(r)?;
            return Ok((r, (Expr::Int(v), 1)));
        }
        // A number too large is that, not a failed expression.
        Err(e @ nom::Err::Failure(_)) => return Err(e),
        Err(_) => {}
    }
    if let Ok((r, _)) = punct("(")(i) {
        let (r, e) = expect("an expression", assign)(r)?;
        let (r, _) = cws(r)?;
        let (r, _) = expect("`)`", punct(")"))(r)?;
        return Ok((r, e));
    }
    // Only names carry a position (finding the column scans the line).
    let sp = span(i);
    let (r, name) = ident(i).or_else(|_| soft_want(i, Wanted::Some("an expression")))?;
    if C_KEYWORDS.contains(&name) {
        return soft(i, format!("expected an expression, found keyword `{name}`"));
    }
    let (r2, _) = cws(r)?;
    if let Ok((mut r2, _)) = punct("(")(r2) {
        let mut args = Vec::new();
        let mut h = 1;
        let (r3, _) = cws(r2)?;
        if let Ok((r3, _)) = punct(")")(r3) {
            return Ok((
                r3,
                (
                    Expr::Call {
                        name: name.into(),
                        args,
                        span: sp,
                    },
                    1,
                ),
            ));
        }
        loop {
            let (r3, (a, ah)) = expect("an argument", assign)(r2)?;
            h = height(r2, h.max(ah + 1))?.1;
            args.push(a);
            let (r3, _) = cws(r3)?;
            if let Ok((r4, _)) = punct(",")(r3) {
                r2 = r4;
                continue;
            }
            let (r3, _) = expect("`,` or `)`", punct(")"))(r3)?;
            return Ok((
                r3,
                (
                    Expr::Call {
                        name: name.into(),
                        args,
                        span: sp,
                    },
                    h,
                ),
            ));
        }
    }
    Ok((r, (Expr::Var(name.into(), sp), 1)))
}
