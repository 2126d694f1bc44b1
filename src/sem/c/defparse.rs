//! Parser for herd's `.def` macro files: `NAME(ARGS) EXPR` defines an expression macro,
//! `NAME(ARGS) { STMTS }` a statement macro; bodies use herd's C primitives.

use super::ir::{Annot, Ex, Guard, Loop, RmwOp, St, Yield};
use crate::litmus::ast::{BinOp, Span, UnOp};
use crate::sem::SemError;
use std::sync::OnceLock;

/// One macro definition.
#[derive(Debug)]
pub enum Def {
    Expr(String, Vec<String>, Ex),
    Stmt(String, Vec<String>, St),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok<'a> {
    Name(&'a str),
    Int(i64),
    Punct(&'static str),
}

struct Lexed<'a> {
    toks: Vec<(Tok<'a>, Span)>,
    /// Where the input ends, for "unexpected end" errors.
    end: Span,
}

/// The operator at the start of `b`, longest first.
fn punct(b: &[u8]) -> Option<&'static str> {
    Some(match b {
        [b'=', b'=', ..] => "==",
        [b'!', b'=', ..] => "!=",
        [b'<', b'=', ..] => "<=",
        [b'>', b'=', ..] => ">=",
        [b'&', b'&', ..] => "&&",
        [b'|', b'|', ..] => "||",
        [b'<', b'<', ..] => "<<",
        [b'>', b'>', ..] => ">>",
        [b'(', ..] => "(",
        [b')', ..] => ")",
        [b'{', ..] => "{",
        [b'}', ..] => "}",
        [b',', ..] => ",",
        [b';', ..] => ";",
        [b'*', ..] => "*",
        [b'+', ..] => "+",
        [b'-', ..] => "-",
        [b'/', ..] => "/",
        [b'%', ..] => "%",
        [b'&', ..] => "&",
        [b'|', ..] => "|",
        [b'^', ..] => "^",
        [b'~', ..] => "~",
        [b'!', ..] => "!",
        [b'=', ..] => "=",
        [b'<', ..] => "<",
        [b'>', ..] => ">",
        [b'?', ..] => "?",
        [b':', ..] => ":",
        _ => return None,
    })
}

fn err(span: Span, msg: impl Into<String>) -> SemError {
    SemError {
        span: Some(span),
        msg: msg.into(),
    }
}

/// Where the run of bytes from `i` satisfying `f` ends.
fn end_of(b: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    i + b[i..].iter().position(|&c| !f(c)).unwrap_or(b.len() - i)
}

/// Cuts `src` into tokens, walking its bytes (columns count characters).
fn lex(src: &str) -> Result<Lexed<'_>, SemError> {
    let b = src.as_bytes();
    let (mut i, mut line, mut col) = (0, 1u32, 1u32);
    let mut toks = Vec::with_capacity(src.len() / 4);
    // Line/column after the bytes `from..to`.
    let step = |from: usize, to: usize, line: &mut u32, col: &mut u32| {
        for &c in &b[from..to] {
            if c == b'\n' {
                *line += 1;
                *col = 1;
            } else if c & 0xC0 != 0x80 {
                *col += 1;
            }
        }
    };
    while i < b.len() {
        let c = b[i];
        // Blanks are most of the file: step over them without the general case.
        if c == b'\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c == b' ' || c == b'\t' {
            i += 1;
            col += 1;
            continue;
        }
        let span = Span { line, col };
        let next = b.get(i + 1).copied();
        // Where this token, blank or comment ends.
        let to = if c.is_ascii_whitespace() {
            i + 1
        } else if c == b'/' && next == Some(b'/') {
            end_of(b, i, |c| c != b'\n')
        } else if c == b'/' && next == Some(b'*') {
            match src[i + 2..].find("*/") {
                Some(k) => i + 2 + k + 2,
                None => return Err(err(span, "unterminated comment")),
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let to = end_of(b, i, |c| c.is_ascii_alphanumeric() || c == b'_');
            toks.push((Tok::Name(&src[i..to]), span));
            to
        } else if c.is_ascii_digit() {
            let to = end_of(b, i, |c| c.is_ascii_alphanumeric());
            let text = &src[i..to];
            let v = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                Some(hex) => i64::from_str_radix(hex, 16),
                None => text.parse(),
            }
            .map_err(|_| err(span, format!("bad number `{text}`")))?;
            toks.push((Tok::Int(v), span));
            to
        } else if let Some(p) = punct(&b[i..]) {
            toks.push((Tok::Punct(p), span));
            i + p.len()
        } else {
            match src[i..].chars().next() {
                Some(ch) if ch.is_whitespace() => i + ch.len_utf8(),
                ch => {
                    let ch = ch.unwrap_or('?');
                    return Err(err(span, format!("unexpected character `{ch}`")));
                }
            }
        };
        step(i, to, &mut line, &mut col);
        i = to;
    }
    Ok(Lexed {
        toks,
        end: Span { line, col },
    })
}

/// Parse a whole `.def` file.
/// A macro file whose definitions are found by name and parsed on first use.
#[derive(Debug)]
pub struct LazyDefs {
    /// Per name, its last definition: the line it starts on and its text.
    entries: rustc_hash::FxHashMap<String, Entry>,
}

#[derive(Debug)]
struct Entry {
    line: usize,
    text: &'static str,
    def: OnceLock<Option<Def>>,
}

impl LazyDefs {
    /// Indexes a file with one definition per line (`NAME(...) ...`; `//` comments and
    /// blank lines between them); `None` for any other layout, which must be parsed whole.
    pub fn index(src: &'static str) -> Option<LazyDefs> {
        let mut entries = rustc_hash::FxHashMap::default();
        entries.reserve(src.len() / 40);
        for (k, line) in src.lines().enumerate() {
            let t = line.trim_start();
            if t.is_empty() || t.starts_with("//") {
                continue;
            }
            let name_len = t
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(t.len());
            if name_len == 0 || !t[name_len..].starts_with('(') || line.contains("/*") {
                return None;
            }
            let entry = Entry {
                line: k,
                text: line,
                def: OnceLock::new(),
            };
            entries.insert(t[..name_len].to_string(), entry);
        }
        Some(LazyDefs { entries })
    }

    /// The definition of `name`, parsed on first use (`None`: no such macro, or its line
    /// does not parse, which the shipped file's tests rule out).
    pub fn get(&self, name: &str) -> Option<&Def> {
        let e = self.entries.get(name)?;
        e.def
            .get_or_init(|| {
                // Blank lines before it keep the positions of the whole file.
                let src = format!("{}{}", "\n".repeat(e.line), e.text);
                let mut defs = parse_defs(&src).ok()?;
                (defs.len() == 1).then(|| defs.pop()).flatten()
            })
            .as_ref()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }
}

pub fn parse_defs(src: &str) -> Result<Vec<Def>, SemError> {
    let lexed = lex(src)?;
    let mut p = Parser {
        toks: lexed.toks,
        pos: 0,
        end: lexed.end,
    };
    let mut defs = Vec::new();
    while p.pos < p.toks.len() {
        defs.push(p.def()?);
    }
    Ok(defs)
}

struct Parser<'a> {
    toks: Vec<(Tok<'a>, Span)>,
    pos: usize,
    end: Span,
}

/// Words that start a declaration (`int r = ...;`).
const TYPE_WORDS: [&str; 19] = [
    "int",
    "char",
    "long",
    "short",
    "unsigned",
    "signed",
    "void",
    "const",
    "volatile",
    "_Atomic",
    "struct",
    "atomic_t",
    "spinlock_t",
    "intptr_t",
    "uintptr_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
];

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&Tok<'a>> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok<'a>> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }
    fn span(&self) -> Span {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.pos += 1;
        }
        yes
    }
    fn expect(&mut self, p: &str) -> Result<(), SemError> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }
    fn unexpected(&self, wanted: &str) -> SemError {
        match self.peek() {
            None => err(self.end, format!("expected {wanted}, found end of file")),
            Some(t) => {
                let found = match t {
                    Tok::Name(n) => n.to_string(),
                    Tok::Int(i) => i.to_string(),
                    Tok::Punct(p) => p.to_string(),
                };
                err(self.span(), format!("expected {wanted}, found `{found}`"))
            }
        }
    }
    fn name(&mut self) -> Result<String, SemError> {
        match self.peek() {
            Some(Tok::Name(n)) => {
                let n = n.to_string();
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.unexpected("a name")),
        }
    }
    fn is_name(&self, n: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(m)) if *m == n)
    }

    fn def(&mut self) -> Result<Def, SemError> {
        let name = self.name()?;
        self.expect("(")?;
        let mut formals = Vec::new();
        if !self.eat(")") {
            loop {
                formals.push(self.name()?);
                if self.eat(")") {
                    break;
                }
                self.expect(",")?;
            }
        }
        if self.is("{") {
            Ok(Def::Stmt(name, formals, self.block()?))
        } else {
            Ok(Def::Expr(name, formals, self.expr()?))
        }
    }

    fn block(&mut self) -> Result<St, SemError> {
        self.expect("{")?;
        let mut body = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return Err(self.unexpected("`}`"));
            }
            body.push(self.stmt()?);
        }
        Ok(St::Seq(body))
    }

    /// `{a,b-c}` after a primitive's name.
    fn annot(&mut self) -> Result<Annot, SemError> {
        self.expect("{")?;
        let mut annot = Vec::new();
        loop {
            let mut a = self.name()?;
            while self.eat("-") {
                a.push('-');
                a.push_str(&self.name()?);
            }
            annot.push(a);
            if self.eat("}") {
                return Ok(annot);
            }
            self.expect(",")?;
        }
    }

    fn rmw_op(&mut self) -> Result<RmwOp, SemError> {
        let op = if self.eat("+") {
            RmwOp::Add
        } else if self.eat("-") {
            RmwOp::Sub
        } else if self.eat("&") {
            if self.eat("~") {
                RmwOp::AndNot
            } else {
                RmwOp::And
            }
        } else if self.eat("|") {
            RmwOp::Or
        } else if self.eat("^") {
            RmwOp::Xor
        } else {
            return Err(self.unexpected("an atomic operation (+ - & | ^ &~)"));
        };
        Ok(op)
    }

    /// `(e1, e2, ...)` with exactly `n` arguments.
    fn args_n(&mut self, n: usize) -> Result<Vec<Ex>, SemError> {
        self.expect("(")?;
        let mut args = Vec::new();
        for k in 0..n {
            if k > 0 {
                self.expect(",")?;
            }
            args.push(self.expr()?);
        }
        self.expect(")")?;
        Ok(args)
    }

    /// `(loc, op, val)` of the atomic-operation primitives.
    fn op_args(&mut self) -> Result<(Ex, RmwOp, Ex), SemError> {
        self.expect("(")?;
        let loc = self.expr()?;
        self.expect(",")?;
        let op = self.rmw_op()?;
        self.expect(",")?;
        let val = self.expr()?;
        self.expect(")")?;
        Ok((loc, op, val))
    }

    fn stmt(&mut self) -> Result<St, SemError> {
        let span = self.span();
        if self.is("{") {
            return self.block();
        }
        if self.eat(";") {
            return Ok(St::Seq(Vec::new()));
        }
        let kw = match self.peek() {
            Some(&Tok::Name(n)) => n,
            _ => "",
        };
        let st = match kw {
            "if" => {
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                let t = self.stmt()?;
                let e = if self.is_name("else") {
                    self.pos += 1;
                    Some(self.stmt()?)
                } else {
                    None
                };
                return Ok(St::if_(c, t, e, span));
            }
            "while" | "do" | "for" | "__spin" => return self.loop_stmt(span),
            "break" | "continue" | "return" => {
                self.pos += 1;
                match kw {
                    "break" => St::Break(span),
                    "continue" => St::Continue(span),
                    _ => St::Return(span),
                }
            }
            "__store" => {
                self.pos += 1;
                let a = self.annot()?;
                let mut args = self.args_n(2)?;
                let v = args.pop().unwrap_or(Ex::Int(0));
                St::Store(args.pop().unwrap_or(Ex::Int(0)), v, a, span)
            }
            "__fence" => {
                self.pos += 1;
                St::Fence(self.annot()?, span)
            }
            "__lock" | "__unlock" => {
                self.pos += 1;
                let l = self.args_n(1)?.pop().unwrap_or(Ex::Int(0));
                if kw == "__lock" {
                    St::Lock(l, span)
                } else {
                    St::Unlock(l, span)
                }
            }
            "__atomic_op" => {
                self.pos += 1;
                let a = if self.is("{") {
                    self.annot()?
                } else {
                    Vec::new()
                };
                let (loc, op, val) = self.op_args()?;
                St::AtomicOp(loc, op, val, a, span)
            }
            "__srcu" => {
                self.pos += 1;
                let a = self.annot()?;
                self.expect("(")?;
                let loc = self.expr()?;
                let val = if self.eat(",") {
                    Some(self.expr()?)
                } else {
                    None
                };
                self.expect(")")?;
                St::Srcu(loc, a, val, span)
            }
            w if TYPE_WORDS.contains(&w) => {
                self.skip_type();
                let r = self.name()?;
                if self.eat("=") {
                    St::SetReg(r, self.expr()?, span)
                } else {
                    St::Decl(r)
                }
            }
            _ => self.simple_stmt(span)?,
        };
        self.expect(";")?;
        Ok(st)
    }

    /// An assignment, a call or an expression, without its `;`.
    fn simple_stmt(&mut self, span: Span) -> Result<St, SemError> {
        let e = self.expr()?;
        Ok(if self.eat("=") {
            let rhs = self.expr()?;
            match e {
                Ex::Reg(r, _) => St::SetReg(r, rhs, span),
                Ex::Load(addr, a) if a.is_empty() => St::Store(*addr, rhs, a, span),
                _ => return Err(err(span, "bad assignment target")),
            }
        } else if let Ex::Call(f, args, s) = e {
            St::Call(f, args, s)
        } else {
            St::Eval(e, span)
        })
    }

    /// `while (c) s`, `do s while (c);`, `for (init; c; step) s`, each optionally after
    /// `__spin` (a spin-wait whose exit orders what follows: [`Loop::ctrl_after`]).
    fn loop_stmt(&mut self, span: Span) -> Result<St, SemError> {
        let ctrl_after = self.is_name("__spin");
        if ctrl_after {
            self.pos += 1;
        }
        let kw = self.name()?;
        let mut lp = Loop {
            cond: None,
            test_first: true,
            body: Box::new(St::Seq(Vec::new())),
            step: None,
            ctrl_after,
            span,
        };
        let mut init = None;
        match kw.as_str() {
            "while" => {
                self.expect("(")?;
                lp.cond = Some(self.expr()?);
                self.expect(")")?;
                lp.body = Box::new(self.stmt()?);
            }
            "do" => {
                lp.body = Box::new(self.stmt()?);
                if !self.is_name("while") {
                    return Err(self.unexpected("`while`"));
                }
                self.pos += 1;
                self.expect("(")?;
                lp.cond = Some(self.expr()?);
                self.expect(")")?;
                self.expect(";")?;
                lp.test_first = false;
            }
            "for" => {
                self.expect("(")?;
                if !self.eat(";") {
                    init = Some(self.stmt()?);
                }
                if !self.eat(";") {
                    lp.cond = Some(self.expr()?);
                    self.expect(";")?;
                }
                if !self.eat(")") {
                    lp.step = Some(Box::new(self.simple_stmt(self.span())?));
                    self.expect(")")?;
                }
                lp.body = Box::new(self.stmt()?);
            }
            _ => return Err(err(span, "expected `while`, `do` or `for` after `__spin`")),
        }
        Ok(match init {
            Some(i) => St::Seq(vec![i, St::Loop(lp)]),
            None => St::Loop(lp),
        })
    }

    fn skip_type(&mut self) {
        while let Some(Tok::Name(n)) = self.peek() {
            if TYPE_WORDS.contains(n) {
                let is_struct = *n == "struct";
                self.pos += 1;
                if is_struct && matches!(self.peek(), Some(Tok::Name(_))) {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
        while self.eat("*") {}
    }

    fn is_type_start(&self, k: usize) -> bool {
        matches!(self.peek_at(k), Some(Tok::Name(n)) if TYPE_WORDS.contains(n))
    }

    fn expr(&mut self) -> Result<Ex, SemError> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let t = self.expr()?;
            self.expect(":")?;
            let f = self.expr()?;
            return Ok(Ex::Cond(Box::new(c), Box::new(t), Box::new(f)));
        }
        Ok(c)
    }

    fn binary(&mut self, min: u8) -> Result<Ex, SemError> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Punct(p)) = self.peek() {
            let Some((prec, op)) = bin_op(p).filter(|(prec, _)| *prec >= min) else {
                break;
            };
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = Ex::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Ex, SemError> {
        if self.eat("*") {
            return Ok(Ex::Load(Box::new(self.unary()?), Vec::new()));
        }
        if self.eat("-") {
            return Ok(match self.unary()? {
                Ex::Int(i) => Ex::Int(i.wrapping_neg()),
                e => Ex::Un(UnOp::Neg, Box::new(e)),
            });
        }
        if self.eat("!") {
            return Ok(Ex::Un(UnOp::Not, Box::new(self.unary()?)));
        }
        if self.eat("~") {
            return Ok(Ex::Un(UnOp::BitNot, Box::new(self.unary()?)));
        }
        if self.is("(") && self.is_type_start(1) {
            // A cast: herd ignores the type.
            self.pos += 1;
            self.skip_type();
            self.expect(")")?;
            return self.unary();
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Ex, SemError> {
        let span = self.span();
        match self.peek().cloned() {
            Some(Tok::Int(i)) => {
                self.pos += 1;
                Ok(Ex::Int(i))
            }
            Some(Tok::Punct("(")) if matches!(self.peek_at(1), Some(Tok::Punct("{"))) => {
                self.stmt_expr()
            }
            Some(Tok::Punct("(")) => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Some(Tok::Name(n)) => {
                self.pos += 1;
                self.after_name(n, span)
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    /// `({ s1; ...; e; })`: a GNU statement expression, yielding its last expression.
    fn stmt_expr(&mut self) -> Result<Ex, SemError> {
        self.expect("(")?;
        let span = self.span();
        let St::Seq(mut body) = self.block()? else {
            unreachable!("a block is a sequence")
        };
        self.expect(")")?;
        match body.pop() {
            Some(St::Eval(e, _)) => Ok(Ex::Seq(Box::new(St::Seq(body)), Box::new(e))),
            Some(St::SetReg(r, e, sp)) => {
                body.push(St::SetReg(r.clone(), e, sp));
                Ok(Ex::Seq(Box::new(St::Seq(body)), Box::new(Ex::Reg(r, sp))))
            }
            _ => Err(err(
                span,
                "a statement expression must end with an expression",
            )),
        }
    }

    /// A name just read: a primitive, a macro call or a variable.
    fn after_name(&mut self, n: &str, span: Span) -> Result<Ex, SemError> {
        let b = Box::new;
        let one = |p: &mut Parser| p.args_n(1).map(|mut a| b(a.pop().unwrap_or(Ex::Int(0))));
        Ok(match n {
            "__load" => {
                let a = self.annot()?;
                Ex::Load(one(self)?, a)
            }
            "__srcu" => {
                let a = self.annot()?;
                Ex::Srcu(one(self)?, a)
            }
            "__trylock" => Ex::TryLock(one(self)?),
            "__islocked" => Ex::IsLocked(one(self)?),
            "__xchg" => {
                let a = self.annot()?;
                let mut args = self.args_n(2)?.into_iter();
                let (l, v) = (args.next(), args.next());
                Ex::Xchg(b(l.unwrap_or(Ex::Int(0))), b(v.unwrap_or(Ex::Int(0))), a)
            }
            "__cmpxchg" | "__try_cmpxchg" => {
                let a = self.annot()?;
                let mut args = self.args_n(3)?.into_iter().map(Box::new);
                let mut next = || args.next().unwrap_or(b(Ex::Int(0)));
                let (x, y, z) = (next(), next(), next());
                if n == "__cmpxchg" {
                    Ex::CmpXchg(x, y, z, a)
                } else {
                    Ex::TryCmpXchg(x, y, z, a)
                }
            }
            "__atomic_add_unless" | "__atomic_fetch_add_unless" => {
                let annot = self.annot()?;
                let mut args = self.args_n(3)?.into_iter().map(Box::new);
                let mut next = || args.next().unwrap_or(b(Ex::Int(0)));
                let (loc, add, unless) = (next(), next(), next());
                Ex::AddUnless {
                    loc,
                    add,
                    guard: Guard::Equals(unless),
                    yields: if n == "__atomic_add_unless" {
                        Yield::Added
                    } else {
                        Yield::Old
                    },
                    annot,
                }
            }
            "__atomic_add_unless_negative" => {
                let annot = self.annot()?;
                let mut args = self.args_n(2)?.into_iter().map(Box::new);
                let mut next = || args.next().unwrap_or(b(Ex::Int(0)));
                let (loc, add) = (next(), next());
                Ex::AddUnless {
                    loc,
                    add,
                    guard: Guard::NegativeSum,
                    yields: Yield::Sum,
                    annot,
                }
            }
            "__atomic_op_return" | "__atomic_fetch_op" => {
                let annot = self.annot()?;
                let (loc, op, val) = self.op_args()?;
                Ex::AtomicRet {
                    loc: b(loc),
                    op,
                    val: b(val),
                    fetch: n == "__atomic_fetch_op",
                    annot,
                }
            }
            _ if self.is("(") => {
                self.pos += 1;
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.expr()?);
                        if self.eat(")") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Ex::Call(n.to_string(), args, span)
            }
            _ => Ex::Reg(n.to_string(), span),
        })
    }
}

/// Precedence (higher binds tighter) and operator of a binary token.
fn bin_op(p: &str) -> Option<(u8, BinOp)> {
    Some(match p {
        "||" => (1, BinOp::LOr),
        "&&" => (2, BinOp::LAnd),
        "|" => (3, BinOp::Or),
        "^" => (4, BinOp::Xor),
        "&" => (5, BinOp::And),
        "==" => (6, BinOp::Eq),
        "!=" => (6, BinOp::Ne),
        "<" => (7, BinOp::Lt),
        "<=" => (7, BinOp::Le),
        ">" => (7, BinOp::Gt),
        ">=" => (7, BinOp::Ge),
        "<<" => (8, BinOp::Shl),
        ">>" => (8, BinOp::Shr),
        "+" => (9, BinOp::Add),
        "-" => (9, BinOp::Sub),
        "*" => (10, BinOp::Mul),
        "/" => (10, BinOp::Div),
        "%" => (10, BinOp::Rem),
        _ => return None,
    })
}
