//! Syntax tree of cat and bell files.
//!
//! Names are interned ([`Sym`]) when parsed so the evaluator compares integers, and every
//! node keeps its [`Pos`] so run-time errors point into the right file.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::RefCell;

/// An interned identifier; its text is in the model's symbol table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// A source position: file index (into the model's file table), line and column (1-based).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

// The shipped models are parsed when the crate is built (build.rs) and stored serialized:
// a tree is read back into a model whose symbol table and file table differ, so symbols
// and file indices are translated while reading.
thread_local! {
    static RELOCATE: RefCell<Option<(Vec<Sym>, u32)>> = const { RefCell::new(None) };
}

/// Runs `read` with the symbols of a stored tree translated through `syms` and its
/// positions placed in file `file`.
pub fn relocated<T>(syms: Vec<Sym>, file: u32, read: impl FnOnce() -> T) -> T {
    RELOCATE.with(|r| *r.borrow_mut() = Some((syms, file)));
    let out = read();
    RELOCATE.with(|r| *r.borrow_mut() = None);
    out
}

impl Serialize for Sym {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.0)
    }
}

impl<'de> Deserialize<'de> for Sym {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Sym, D::Error> {
        let x = u32::deserialize(d)?;
        RELOCATE.with(|r| match &*r.borrow() {
            Some((syms, _)) => syms
                .get(x as usize)
                .copied()
                .ok_or_else(|| serde::de::Error::custom("symbol out of range")),
            None => Ok(Sym(x)),
        })
    }
}

impl Serialize for Pos {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.line, self.col).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Pos {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pos, D::Error> {
        let (line, col) = <(u32, u32)>::deserialize(d)?;
        let file = RELOCATE.with(|r| r.borrow().as_ref().map_or(0, |(_, f)| *f));
        Ok(Pos { file, line, col })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op1 {
    Plus,
    Star,
    Opt,
    Comp,
    Inv,
    /// `[S]`: lift a set to the identity on it.
    ToId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op2 {
    Union,
    Inter,
    Diff,
    Seq,
    Cartesian,
    /// `e ++ S`: add an element to a set.
    Add,
    Tuple,
}

/// A binding pattern: one name (`None` for `_`) or a tuple of them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Pat {
    Var(Option<Sym>),
    Tuple(Vec<Option<Sym>>),
}

impl Pat {
    pub fn vars(&self) -> Vec<Option<Sym>> {
        match self {
            Pat::Var(x) => vec![*x],
            Pat::Tuple(xs) => xs.clone(),
        }
    }
}

/// A function literal; `free` lists the variables its body needs from outside,
/// so a closure captures only those.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FunDef {
    pub pos: Pos,
    pub pat: Pat,
    pub body: Expr,
    pub free: Vec<Sym>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Binding {
    pub pos: Pos,
    pub pat: Pat,
    pub expr: Expr,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum VariantCond {
    Variant(String),
    Not(Box<VariantCond>),
    And(Box<VariantCond>, Box<VariantCond>),
    Or(Box<VariantCond>, Box<VariantCond>),
}

impl Expr {
    /// Calls `f` on each direct sub-expression: operands, the right-hand sides and body of
    /// a `let ... in`, a function's body, match clauses, conditions.
    pub fn for_each_child<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        match self {
            Expr::EmptyRel(_) | Expr::Universe(_) | Expr::Tag(..) | Expr::Var(..) => {}
            Expr::Op1(_, _, a) => f(a),
            Expr::Op(_, _, v) | Expr::ExplicitSet(_, v) => v.iter().for_each(f),
            Expr::App(_, a, b) | Expr::Try(_, a, b) => {
                f(a);
                f(b);
            }
            Expr::Bind(_, bds, body) | Expr::BindRec(_, bds, body) => {
                bds.iter().for_each(|b| f(&b.expr));
                f(body);
            }
            Expr::Fun(d) => f(&d.body),
            Expr::Match(_, a, cls, d) => {
                f(a);
                cls.iter().for_each(|(_, c)| f(c));
                if let Some(d) = d {
                    f(d);
                }
            }
            Expr::MatchSet(_, a, em, cl) => {
                f(a);
                f(em);
                match &**cl {
                    SetClause::EltRem(_, _, b) | SetClause::PreEltPost(_, _, _, b) => f(b),
                }
            }
            Expr::If(_, c, a, b) => {
                if let Cond::Eq(x, y) | Cond::Subset(x, y) | Cond::In(x, y) = &**c {
                    f(x);
                    f(y);
                }
                f(a);
                f(b);
            }
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Cond {
    Eq(Expr, Expr),
    Subset(Expr, Expr),
    In(Expr, Expr),
    Variant(VariantCond),
}

/// The non-empty clause of a match over a set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum SetClause {
    /// `x ++ rest -> e`
    EltRem(Option<Sym>, Option<Sym>, Expr),
    /// `pre | x ++ post -> e`
    PreEltPost(Option<Sym>, Option<Sym>, Option<Sym>, Expr),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Expr {
    /// `0`: the empty relation.
    EmptyRel(Pos),
    /// `_`: all events (or the universal relation).
    Universe(Pos),
    Tag(Pos, String),
    Var(Pos, Sym),
    Op1(Pos, Op1, Box<Expr>),
    Op(Pos, Op2, Vec<Expr>),
    App(Pos, Box<Expr>, Box<Expr>),
    Bind(Pos, Vec<Binding>, Box<Expr>),
    BindRec(Pos, Vec<Binding>, Box<Expr>),
    Fun(Box<FunDef>),
    ExplicitSet(Pos, Vec<Expr>),
    Match(Pos, Box<Expr>, Vec<(String, Expr)>, Option<Box<Expr>>),
    MatchSet(Pos, Box<Expr>, Box<Expr>, Box<SetClause>),
    Try(Pos, Box<Expr>, Box<Expr>),
    If(Pos, Box<Cond>, Box<Expr>, Box<Expr>),
}

impl Expr {
    pub fn pos(&self) -> Pos {
        match self {
            Expr::EmptyRel(p)
            | Expr::Universe(p)
            | Expr::Tag(p, _)
            | Expr::Var(p, _)
            | Expr::Op1(p, _, _)
            | Expr::Op(p, _, _)
            | Expr::App(p, _, _)
            | Expr::Bind(p, _, _)
            | Expr::BindRec(p, _, _)
            | Expr::ExplicitSet(p, _)
            | Expr::Match(p, _, _, _)
            | Expr::MatchSet(p, _, _, _)
            | Expr::Try(p, _, _)
            | Expr::If(p, _, _, _) => *p,
            Expr::Fun(f) => f.pos,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TestKind {
    Acyclic,
    Irreflexive,
    Empty,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TestType {
    Check,
    UndefinedUnless,
    Flag,
    Assert,
}

/// `[~]acyclic|irreflexive|empty e [as name]`, with the source text of `e`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Test {
    pub pos: Pos,
    pub kind: TestKind,
    pub negated: bool,
    pub expr: Expr,
    pub name: Option<String>,
    pub text: String,
}

/// Instructions keep their positions even where the interpreter has no message to give.
#[allow(dead_code)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Ins {
    Let(Pos, Vec<Binding>),
    Rec(Pos, Vec<Binding>, Option<Test>),
    Match(Pos, Expr, Vec<(String, Vec<Ins>)>, Option<Vec<Ins>>),
    Test(Test, TestType),
    Show(Pos),
    /// `include "file"`; `file` is the loaded file's index, filled in by the loader.
    Include {
        pos: Pos,
        name: String,
        file: Option<usize>,
    },
    Procedure(Pos, Sym, Pat, Vec<Ins>, bool),
    Call(Pos, Sym, Expr, Option<String>),
    Enum(Pos, Sym, Vec<String>),
    Forall(Pos, Sym, Expr, Vec<Ins>),
    Debug(Pos, Expr),
    WithFrom(Pos, Sym, Expr),
    /// Bell `instructions`/`default` declarations: ignored when running a model.
    Events(Pos),
    IfVariant(Pos, VariantCond, Vec<Ins>, Vec<Ins>),
}

/// A parsed file: its optional title and its instructions.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Program {
    pub title: Option<String>,
    /// `catdep`: the model computes dependencies itself (herd's `-variant deps`).
    pub catdep: bool,
    pub body: Vec<Ins>,
}
