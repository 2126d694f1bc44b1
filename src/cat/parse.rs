//! Recursive-descent parser for cat/bell files, following herd's grammar and
//! operator precedences (loosest first): `|`, `++`, `;`, `\`, `&`, `*` and the unary
//! operators, `^`.

use super::ast::*;
use super::lex::{Tok, Token, lex};
use rustc_hash::FxHashMap;

/// The symbol table shared by every file of a model.
#[derive(Default, Debug)]
pub struct Names {
    ids: FxHashMap<String, Sym>,
    names: Vec<String>,
}

impl Names {
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&x) = self.ids.get(s) {
            return x;
        }
        let x = Sym(self.names.len() as u32);
        self.names.push(s.to_string());
        self.ids.insert(s.to_string(), x);
        x
    }
    /// Room for `n` more names.
    pub fn reserve(&mut self, n: usize) {
        self.ids.reserve(n);
        self.names.reserve(n);
    }
    pub fn get(&self, s: &str) -> Option<Sym> {
        self.ids.get(s).copied()
    }
    pub fn name(&self, x: Sym) -> &str {
        &self.names[x.0 as usize]
    }
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.names.len()
    }
}

/// A parse error: where, and what was expected.
pub type ParseError = (Pos, String);

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token<'a>>,
    i: usize,
    names: &'a mut Names,
}

type R<T> = Result<T, ParseError>;

/// Parses one file's text; `file` is its index in the model's file table.
pub fn parse(src: &str, file: u32, names: &mut Names) -> R<Program> {
    let toks = lex(src, file)?;
    let mut p = Parser {
        src,
        toks,
        i: 0,
        names,
    };
    p.program()
}

fn show_tok(t: &Tok) -> String {
    match t {
        Tok::Name(s) => format!("name '{s}'"),
        Tok::Tag(s) => format!("tag '{s}"),
        Tok::Str(s) => format!("string \"{s}\""),
        Tok::Kw(k) => format!("keyword '{k}'"),
        Tok::Sym(s) => format!("'{s}'"),
        Tok::Eof => "end of file".into(),
    }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok<'a> {
        &self.toks[self.i].tok
    }
    fn peek_at(&self, k: usize) -> &Tok<'a> {
        let j = (self.i + k).min(self.toks.len() - 1);
        &self.toks[j].tok
    }
    fn pos(&self) -> Pos {
        self.toks[self.i].pos
    }
    fn bump(&mut self) -> Tok<'a> {
        let t = self.toks[self.i].tok;
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if same(x, s))
    }
    fn is_kw(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Kw(x) if same(x, s))
    }
    fn eat_sym(&mut self, s: &str) -> bool {
        let b = self.is_sym(s);
        if b {
            self.bump();
        }
        b
    }
    fn eat_kw(&mut self, s: &str) -> bool {
        let b = self.is_kw(s);
        if b {
            self.bump();
        }
        b
    }
    fn fail<T>(&self, what: &str) -> R<T> {
        Err((
            self.pos(),
            format!("expected {what}, found {}", show_tok(self.peek())),
        ))
    }
    fn expect_sym(&mut self, s: &str) -> R<()> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            self.fail(&format!("'{s}'"))
        }
    }
    fn expect_kw(&mut self, s: &str) -> R<()> {
        if self.eat_kw(s) {
            Ok(())
        } else {
            self.fail(&format!("'{s}'"))
        }
    }
    fn name(&mut self) -> R<String> {
        self.name_str().map(str::to_string)
    }
    fn name_str(&mut self) -> R<&'a str> {
        match *self.peek() {
            Tok::Name(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.fail("a name"),
        }
    }
    fn var(&mut self) -> R<Sym> {
        let s = self.name_str()?;
        Ok(self.names.intern(s))
    }
    fn string(&mut self) -> R<String> {
        match *self.peek() {
            Tok::Str(s) => {
                self.bump();
                Ok(s.to_string())
            }
            _ => self.fail("a string"),
        }
    }

    fn program(&mut self) -> R<Program> {
        // Optional title: `NAME NAME`, `NAME "text"`, `NAME` or `"text"`.
        let mut title = None;
        match *self.peek() {
            Tok::Name(a) => {
                self.bump();
                title = Some(match *self.peek() {
                    Tok::Name(b) | Tok::Str(b) => {
                        self.bump();
                        format!("{a} {b}")
                    }
                    _ => a.to_string(),
                });
            }
            Tok::Str(s) => {
                self.bump();
                title = Some(s.to_string());
            }
            _ => {}
        }
        let catdep = self.eat_kw("catdep");
        let body = self.ins_list()?;
        if *self.peek() != Tok::Eof {
            return self.fail("an instruction");
        }
        Ok(Program {
            title,
            catdep,
            body,
        })
    }

    /// Instructions up to `end`, `else`, `||` or end of file.
    fn ins_list(&mut self) -> R<Vec<Ins>> {
        let mut v = Vec::new();
        loop {
            match self.peek() {
                Tok::Eof => break,
                Tok::Kw("end" | "else") => break,
                Tok::Sym("||") => break,
                _ => v.push(self.ins()?),
            }
        }
        Ok(v)
    }

    fn ins(&mut self) -> R<Ins> {
        let pos = self.pos();
        match *self.peek() {
            Tok::Kw("let") => {
                self.bump();
                if self.eat_kw("rec") {
                    let bds = self.bindings()?;
                    let test = if self.eat_kw("when") {
                        Some(self.app_test()?)
                    } else {
                        None
                    };
                    self.eat_kw("in");
                    Ok(Ins::Rec(pos, bds, test))
                } else {
                    let bds = self.bindings()?;
                    self.eat_kw("in");
                    Ok(Ins::Let(pos, bds))
                }
            }
            Tok::Kw("match") => {
                self.bump();
                let e = self.expr()?;
                self.expect_kw("with")?;
                self.eat_sym("||");
                let (cls, dflt) = self.tag_clauses(Self::ins_list)?;
                self.expect_kw("end")?;
                Ok(Ins::Match(pos, e, cls, dflt))
            }
            Tok::Kw("acyclic" | "irreflexive" | "empty") | Tok::Sym("~") => {
                Ok(Ins::Test(self.app_test()?, TestType::Check))
            }
            Tok::Kw("undefined_unless") => {
                self.bump();
                Ok(Ins::Test(self.app_test()?, TestType::UndefinedUnless))
            }
            Tok::Kw("flag") => {
                self.bump();
                Ok(Ins::Test(self.app_test()?, TestType::Flag))
            }
            Tok::Kw("assert") => {
                self.bump();
                Ok(Ins::Test(self.app_test()?, TestType::Assert))
            }
            Tok::Kw("show") => {
                self.bump();
                let e = self.base()?;
                if self.eat_kw("as") {
                    self.name()?;
                } else {
                    if !matches!(e, Expr::Var(..)) {
                        return self.fail("'as'");
                    }
                    while self.eat_sym(",") {
                        self.name()?;
                    }
                }
                Ok(Ins::Show(pos))
            }
            Tok::Kw("unshow") => {
                self.bump();
                self.name()?;
                while self.eat_sym(",") {
                    self.name()?;
                }
                Ok(Ins::Show(pos))
            }
            Tok::Kw("include") => {
                self.bump();
                let name = self.string()?;
                Ok(Ins::Include {
                    pos,
                    name,
                    file: None,
                })
            }
            Tok::Kw("procedure") => {
                self.bump();
                let is_rec = self.eat_kw("rec");
                let name = self.var()?;
                let pat = self.params()?;
                self.expect_sym("=")?;
                let body = self.ins_list()?;
                self.expect_kw("end")?;
                Ok(Ins::Procedure(pos, name, pat, body, is_rec))
            }
            Tok::Kw("call") => {
                self.bump();
                let name = self.var()?;
                let arg = self.simple()?;
                let as_name = if self.eat_kw("as") {
                    Some(self.name()?)
                } else {
                    None
                };
                Ok(Ins::Call(pos, name, arg, as_name))
            }
            Tok::Kw("debug") => {
                self.bump();
                Ok(Ins::Debug(pos, self.expr()?))
            }
            Tok::Kw("forall") => {
                self.bump();
                let x = self.var()?;
                self.expect_kw("in")?;
                let e = self.expr()?;
                self.expect_kw("do")?;
                let body = self.ins_list()?;
                self.expect_kw("end")?;
                Ok(Ins::Forall(pos, x, e, body))
            }
            Tok::Kw("with") => {
                self.bump();
                let x = self.var()?;
                self.expect_kw("from")?;
                Ok(Ins::WithFrom(pos, x, self.expr()?))
            }
            Tok::Kw("if") => {
                self.bump();
                let c = self.variant()?;
                let yes = self.ins_list()?;
                let no = if self.eat_kw("else") {
                    self.ins_list()?
                } else {
                    Vec::new()
                };
                self.expect_kw("end")?;
                Ok(Ins::IfVariant(pos, c, yes, no))
            }
            Tok::Kw("instructions" | "default") => {
                self.bump();
                self.name()?;
                self.expect_sym("[")?;
                self.args("]")?;
                self.expect_sym("]")?;
                Ok(Ins::Events(pos))
            }
            Tok::Kw("enum") => {
                self.bump();
                let x = self.var()?;
                self.expect_sym("=")?;
                self.eat_sym("||");
                let mut tags = Vec::new();
                loop {
                    match self.bump() {
                        Tok::Tag(t) => tags.push(t.to_string()),
                        _ => {
                            self.i -= 1;
                            return self.fail("a tag");
                        }
                    }
                    if !self.eat_sym("||") {
                        break;
                    }
                }
                Ok(Ins::Enum(pos, x, tags))
            }
            _ => self.fail("an instruction"),
        }
    }

    fn app_test(&mut self) -> R<Test> {
        let pos = self.pos();
        let negated = self.eat_sym("~");
        let kind = match self.bump() {
            Tok::Kw("acyclic") => TestKind::Acyclic,
            Tok::Kw("irreflexive") => TestKind::Irreflexive,
            Tok::Kw("empty") => TestKind::Empty,
            _ => {
                self.i -= 1;
                return self.fail("'acyclic', 'irreflexive' or 'empty'");
            }
        };
        let start = self.toks[self.i].start;
        let expr = self.expr()?;
        let end = self.toks[self.i - 1].end;
        let text = self.src[start..end.max(start)]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let name = if self.eat_kw("as") {
            Some(self.name()?)
        } else {
            None
        };
        Ok(Test {
            pos,
            kind,
            negated,
            expr,
            name,
            text,
        })
    }

    fn variant(&mut self) -> R<VariantCond> {
        let mut l = self.variant_and()?;
        while self.eat_sym("||") {
            let r = self.variant_and()?;
            l = VariantCond::Or(Box::new(l), Box::new(r));
        }
        Ok(l)
    }
    fn variant_and(&mut self) -> R<VariantCond> {
        let mut l = self.variant_atom()?;
        while self.eat_sym("&&") {
            let r = self.variant_atom()?;
            l = VariantCond::And(Box::new(l), Box::new(r));
        }
        Ok(l)
    }
    fn variant_atom(&mut self) -> R<VariantCond> {
        if self.eat_kw("not") {
            return Ok(VariantCond::Not(Box::new(self.variant_atom()?)));
        }
        if self.eat_sym("(") {
            let v = self.variant()?;
            self.expect_sym(")")?;
            return Ok(v);
        }
        self.eat_kw("variant");
        Ok(VariantCond::Variant(self.string()?))
    }

    fn pat0(&mut self) -> R<Option<Sym>> {
        if self.eat_sym("_") {
            Ok(None)
        } else {
            Ok(Some(self.var()?))
        }
    }

    fn formals(&mut self) -> R<Vec<Option<Sym>>> {
        let mut v = Vec::new();
        if self.is_sym(")") {
            return Ok(v);
        }
        v.push(self.pat0()?);
        while self.eat_sym(",") {
            v.push(self.pat0()?);
        }
        Ok(v)
    }

    fn bindings(&mut self) -> R<Vec<Binding>> {
        let mut v = vec![self.binding()?];
        while self.eat_kw("and") {
            v.push(self.binding()?);
        }
        Ok(v)
    }

    fn binding(&mut self) -> R<Binding> {
        let pos = self.pos();
        if self.eat_sym("(") {
            let f = self.formals()?;
            self.expect_sym(")")?;
            self.expect_sym("=")?;
            let expr = self.expr()?;
            return Ok(Binding {
                pos,
                pat: tuple_pat(f),
                expr,
            });
        }
        if let Tok::Name(_) = self.peek() {
            // `f x = e`, `f(x, y) = e`: function definitions.
            let next = *self.peek_at(1);
            let is_fun = matches!(next, Tok::Sym("(") | Tok::Sym("_") | Tok::Name(_));
            if is_fun {
                let f = self.var()?;
                let pat = self.params()?;
                self.expect_sym("=")?;
                let body = self.expr()?;
                return Ok(Binding {
                    pos,
                    pat: Pat::Var(Some(f)),
                    expr: make_fun(pos, pat, body),
                });
            }
        }
        let mut f = vec![self.pat0()?];
        while self.eat_sym(",") {
            f.push(self.pat0()?);
        }
        self.expect_sym("=")?;
        let expr = self.expr()?;
        Ok(Binding {
            pos,
            pat: tuple_pat(f),
            expr,
        })
    }

    pub fn expr(&mut self) -> R<Expr> {
        let pos = self.pos();
        match self.peek() {
            Tok::Kw("let") => {
                self.bump();
                let is_rec = self.eat_kw("rec");
                let bds = self.bindings()?;
                self.expect_kw("in")?;
                let body = Box::new(self.expr()?);
                Ok(if is_rec {
                    Expr::BindRec(pos, bds, body)
                } else {
                    Expr::Bind(pos, bds, body)
                })
            }
            Tok::Kw("fun") => {
                self.bump();
                let pat = self.params()?;
                self.expect_sym("->")?;
                let body = self.expr()?;
                Ok(make_fun(pos, pat, body))
            }
            Tok::Kw("try") => {
                self.bump();
                let a = self.expr()?;
                self.expect_kw("with")?;
                let b = self.expr()?;
                Ok(Expr::Try(pos, Box::new(a), Box::new(b)))
            }
            Tok::Kw("if") => {
                self.bump();
                let c = self.cond()?;
                self.expect_kw("then")?;
                let a = self.expr()?;
                self.expect_kw("else")?;
                let b = self.expr()?;
                Ok(Expr::If(pos, Box::new(c), Box::new(a), Box::new(b)))
            }
            Tok::Kw("match") => {
                self.bump();
                let e = Box::new(self.expr()?);
                self.expect_kw("with")?;
                self.eat_sym("||");
                let r = self.match_body(pos, e)?;
                self.expect_kw("end")?;
                Ok(r)
            }
            _ => {
                let b = self.base()?;
                if self.is_sym(",") {
                    let mut v = vec![b];
                    while self.eat_sym(",") {
                        v.push(self.base()?);
                    }
                    Ok(Expr::Op(pos, Op2::Tuple, v))
                } else {
                    Ok(b)
                }
            }
        }
    }

    /// The parameters of a function or procedure: `(x, y)` or a single `x`.
    fn params(&mut self) -> R<Pat> {
        if self.eat_sym("(") {
            let f = self.formals()?;
            self.expect_sym(")")?;
            Ok(tuple_pat(f))
        } else {
            Ok(Pat::Var(self.pat0()?))
        }
    }

    /// `'tag -> body || ... || _ -> body`, for match instructions and expressions alike.
    #[allow(clippy::type_complexity)]
    fn tag_clauses<T>(
        &mut self,
        mut body: impl FnMut(&mut Self) -> R<T>,
    ) -> R<(Vec<(String, T)>, Option<T>)> {
        let mut cls = Vec::new();
        loop {
            if self.eat_sym("_") {
                self.expect_sym("->")?;
                return Ok((cls, Some(body(self)?)));
            }
            let t = match self.bump() {
                Tok::Tag(t) => t.to_string(),
                _ => {
                    self.i -= 1;
                    return self.fail("a tag or '_'");
                }
            };
            self.expect_sym("->")?;
            cls.push((t, body(self)?));
            if !self.eat_sym("||") {
                return Ok((cls, None));
            }
        }
    }

    fn match_body(&mut self, pos: Pos, e: Box<Expr>) -> R<Expr> {
        let tag_clauses = matches!(self.peek(), Tok::Tag(_))
            || (self.is_sym("_") && matches!(self.peek_at(1), Tok::Sym("->")));
        if tag_clauses {
            let (cls, dflt) = self.tag_clauses(Self::expr)?;
            return Ok(Expr::Match(pos, e, cls, dflt.map(Box::new)));
        }
        let mut empty = None;
        let mut elt = None;
        for k in 0..2 {
            if k == 1 {
                self.expect_sym("||")?;
            }
            if self.eat_sym("{") {
                self.expect_sym("}")?;
                self.expect_sym("->")?;
                if empty.is_some() {
                    return self.fail("an element clause");
                }
                empty = Some(self.expr()?);
            } else {
                let a = self.pat0()?;
                if self.eat_sym("++") {
                    let b = self.pat0()?;
                    self.expect_sym("->")?;
                    elt = Some(SetClause::EltRem(a, b, self.expr()?));
                } else if self.eat_sym("|") {
                    let x = self.pat0()?;
                    self.expect_sym("++")?;
                    let b = self.pat0()?;
                    self.expect_sym("->")?;
                    elt = Some(SetClause::PreEltPost(a, x, b, self.expr()?));
                } else {
                    return self.fail("'++' or '|'");
                }
            }
        }
        match (empty, elt) {
            (Some(em), Some(el)) => Ok(Expr::MatchSet(pos, e, Box::new(em), Box::new(el))),
            _ => self.fail("one empty clause and one element clause"),
        }
    }

    fn cond(&mut self) -> R<Cond> {
        let starts_variant = match self.peek() {
            Tok::Str(_) | Tok::Kw("not" | "variant") => true,
            Tok::Sym("(") => matches!(self.peek_at(1), Tok::Str(_) | Tok::Kw("not" | "variant")),
            _ => false,
        };
        if starts_variant {
            return Ok(Cond::Variant(self.variant()?));
        }
        let a = self.expr()?;
        if self.eat_sym("=") {
            Ok(Cond::Eq(a, self.expr()?))
        } else if self.eat_kw("subset") {
            Ok(Cond::Subset(a, self.expr()?))
        } else if self.eat_kw("in") {
            Ok(Cond::In(a, self.expr()?))
        } else {
            self.fail("'=', 'subset' or 'in'")
        }
    }

    /// Binary operators by precedence level (0 loosest).
    fn base(&mut self) -> R<Expr> {
        self.binary(0)
    }

    /// The binary operator at the current token and its precedence level.
    fn binop(&self) -> Option<(u8, Op2)> {
        let Tok::Sym(s) = self.peek() else {
            return None;
        };
        Some(match s.as_bytes() {
            b"|" => (0, Op2::Union),
            b"++" => (1, Op2::Add),
            b";" => (2, Op2::Seq),
            b"\\" => (3, Op2::Diff),
            b"&" => (4, Op2::Inter),
            b"*" if self.starts_operand(1) => (5, Op2::Cartesian),
            _ => return None,
        })
    }

    /// Whether the token `k` ahead can start an operand (deciding binary vs postfix `*`).
    fn starts_operand(&self, k: usize) -> bool {
        matches!(
            self.peek_at(k),
            Tok::Name(_)
                | Tok::Tag(_)
                | Tok::Kw("begin")
                | Tok::Sym("(" | "{" | "[" | "_" | "0" | "~")
        )
    }

    /// Operators of `level` and tighter. An operand is parsed once, then the operators
    /// that follow it are taken from the tightest level out (precedence climbing): the
    /// same trees as one recursive call per level, without six calls per operand.
    fn binary(&mut self, level: u8) -> R<Expr> {
        let pos = self.pos();
        let mut e = self.unary()?;
        for lv in (level..=5).rev() {
            match self.binop() {
                Some((l, _)) if l >= lv => e = self.operators(lv, pos, e)?,
                // Nothing at this level or tighter follows: the looser levels may still.
                Some(_) => {}
                None => break,
            }
        }
        Ok(e)
    }

    /// The operators of exactly `level` after its first operand `lhs`.
    fn operators(&mut self, level: u8, pos: Pos, lhs: Expr) -> R<Expr> {
        let op = match self.binop() {
            Some((l, op)) if l == level => op,
            _ => return Ok(lhs),
        };
        match op {
            // Left-associative difference.
            Op2::Diff => {
                let mut l = lhs;
                while self.binop() == Some((level, Op2::Diff)) {
                    self.bump();
                    let r = self.binary(level + 1)?;
                    l = Expr::Op(pos, Op2::Diff, vec![l, r]);
                }
                Ok(l)
            }
            // Non-associative cartesian product.
            Op2::Cartesian => {
                self.bump();
                let r = self.binary(level + 1)?;
                Ok(Expr::Op(pos, Op2::Cartesian, vec![lhs, r]))
            }
            // Right-associative; `|` and `;` flatten into n-ary nodes.
            _ => {
                self.bump();
                let r = self.binary(level)?;
                Ok(match (op, r) {
                    (Op2::Union | Op2::Seq, Expr::Op(_, op2, mut rs)) if op2 == op => {
                        let mut v = flatten(op, lhs);
                        v.append(&mut rs);
                        Expr::Op(pos, op, v)
                    }
                    (Op2::Union | Op2::Seq, r) => {
                        let mut v = flatten(op, lhs);
                        v.push(r);
                        Expr::Op(pos, op, v)
                    }
                    (_, r) => Expr::Op(pos, op, vec![lhs, r]),
                })
            }
        }
    }

    /// `~e`, then postfix `* + ? ^-1` (and `^+ ^* ^?`).
    fn unary(&mut self) -> R<Expr> {
        let pos = self.pos();
        let mut e = if self.eat_sym("~") {
            let inner = self.unary_noclosure()?;
            Expr::Op1(pos, Op1::Comp, Box::new(inner))
        } else {
            self.unary_noclosure()?
        };
        loop {
            if self.is_sym("*") && !self.starts_operand(1) {
                self.bump();
                e = Expr::Op1(pos, Op1::Star, Box::new(e));
            } else if self.eat_sym("+") {
                e = Expr::Op1(pos, Op1::Plus, Box::new(e));
            } else if self.eat_sym("?") {
                e = Expr::Op1(pos, Op1::Opt, Box::new(e));
            } else if self.is_sym("^") {
                e = self.hat(pos, e)?;
            } else {
                return Ok(e);
            }
        }
    }

    fn hat(&mut self, pos: Pos, e: Expr) -> R<Expr> {
        self.expect_sym("^")?;
        let op = match self.bump() {
            Tok::Sym("-1") => Op1::Inv,
            Tok::Sym("+") => Op1::Plus,
            Tok::Sym("*") => Op1::Star,
            Tok::Sym("?") => Op1::Opt,
            _ => {
                self.i -= 1;
                return self.fail("'-1', '+', '*' or '?' after '^'");
            }
        };
        Ok(Expr::Op1(pos, op, Box::new(e)))
    }

    /// An operand with only `^` postfixes, which bind tighter than `~`.
    fn unary_noclosure(&mut self) -> R<Expr> {
        let pos = self.pos();
        let mut e = if self.is_sym("~") {
            self.bump();
            let inner = self.unary_noclosure()?;
            Expr::Op1(pos, Op1::Comp, Box::new(inner))
        } else {
            self.app()?
        };
        while self.is_sym("^") {
            e = self.hat(pos, e)?;
        }
        Ok(e)
    }

    /// Application `f a b`: only a name can be applied.
    fn app(&mut self) -> R<Expr> {
        let pos = self.pos();
        if let Tok::Name(_) = self.peek() {
            let f = self.var()?;
            let mut e = Expr::Var(pos, f);
            while self.starts_arg() {
                let apos = self.pos();
                let a = if let Tok::Name(_) = self.peek() {
                    Expr::Var(apos, self.var()?)
                } else {
                    self.simple()?
                };
                e = Expr::App(pos, Box::new(e), Box::new(a));
            }
            return Ok(e);
        }
        self.simple()
    }

    fn starts_arg(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Name(_) | Tok::Tag(_) | Tok::Kw("begin") | Tok::Sym("(" | "{" | "[" | "_" | "0")
        )
    }

    fn simple(&mut self) -> R<Expr> {
        let pos = self.pos();
        match self.bump() {
            Tok::Sym("0") => Ok(Expr::EmptyRel(pos)),
            Tok::Sym("_") => Ok(Expr::Universe(pos)),
            Tok::Tag(t) => Ok(Expr::Tag(pos, t.to_string())),
            Tok::Name(s) => Ok(Expr::Var(pos, self.names.intern(s))),
            Tok::Sym("{") => {
                let v = self.args("}")?;
                self.expect_sym("}")?;
                Ok(Expr::ExplicitSet(pos, v))
            }
            Tok::Sym("(") => {
                if self.eat_sym(")") {
                    return Ok(Expr::Op(pos, Op2::Tuple, Vec::new()));
                }
                let e = self.expr()?;
                self.expect_sym(")")?;
                Ok(e)
            }
            Tok::Kw("begin") => {
                let e = self.expr()?;
                self.expect_kw("end")?;
                Ok(e)
            }
            Tok::Sym("[") => {
                let e = self.expr()?;
                self.expect_sym("]")?;
                Ok(Expr::Op1(pos, Op1::ToId, Box::new(e)))
            }
            _ => {
                self.i -= 1;
                self.fail("an expression")
            }
        }
    }

    fn args(&mut self, close: &str) -> R<Vec<Expr>> {
        let mut v = Vec::new();
        if self.is_sym(close) {
            return Ok(v);
        }
        v.push(self.base()?);
        while self.eat_sym(",") {
            v.push(self.base()?);
        }
        Ok(v)
    }
}

/// String equality for short operators and keywords, without a call to `memcmp`.
#[inline]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

fn flatten(op: Op2, e: Expr) -> Vec<Expr> {
    match e {
        Expr::Op(_, op2, v) if op2 == op => v,
        e => vec![e],
    }
}

fn tuple_pat(mut f: Vec<Option<Sym>>) -> Pat {
    if f.len() == 1 {
        Pat::Var(f.pop().flatten())
    } else {
        Pat::Tuple(f)
    }
}

fn make_fun(pos: Pos, pat: Pat, body: Expr) -> Expr {
    let mut bound: Vec<Sym> = pat.vars().into_iter().flatten().collect();
    let mut free = Vec::new();
    free_vars(&body, &mut bound, &mut |x| free.push(x));
    free.sort();
    free.dedup();
    Expr::Fun(Box::new(FunDef {
        pos,
        pat,
        body,
        free,
    }))
}

fn bind_pat(p: &Pat, bound: &mut Vec<Sym>) {
    bound.extend(p.vars().into_iter().flatten());
}

/// Calls `out` on each occurrence of a variable of `e` not in `bound` (a stack, restored
/// on return).
pub(super) fn free_vars(e: &Expr, bound: &mut Vec<Sym>, out: &mut impl FnMut(Sym)) {
    let mark = bound.len();
    match e {
        Expr::Var(_, x) => {
            if !bound.contains(x) {
                out(*x);
            }
        }
        Expr::Bind(_, bds, body) => {
            for b in bds {
                free_vars(&b.expr, bound, out);
            }
            bds.iter().for_each(|b| bind_pat(&b.pat, bound));
            free_vars(body, bound, out);
        }
        Expr::BindRec(_, bds, body) => {
            bds.iter().for_each(|b| bind_pat(&b.pat, bound));
            for b in bds {
                free_vars(&b.expr, bound, out);
            }
            free_vars(body, bound, out);
        }
        // Its free names were collected when it was parsed.
        Expr::Fun(f) => {
            for x in &f.free {
                if !bound.contains(x) {
                    out(*x);
                }
            }
        }
        Expr::MatchSet(_, a, em, cl) => {
            free_vars(a, bound, out);
            free_vars(em, bound, out);
            match &**cl {
                SetClause::EltRem(x, xs, b) => {
                    bound.extend([*x, *xs].into_iter().flatten());
                    free_vars(b, bound, out);
                }
                SetClause::PreEltPost(a1, x, a2, b) => {
                    bound.extend([*a1, *x, *a2].into_iter().flatten());
                    free_vars(b, bound, out);
                }
            }
        }
        _ => e.for_each_child(&mut |c| free_vars(c, bound, out)),
    }
    bound.truncate(mark);
}
