//! A test made ready to run: its locations interned, its initial state, and one semantic
//! function per thread.

use crate::litmus::ast::{Arch, InitEntry, LocRef, Operand, Prop, Test, Thread, ValueLit};
use crate::sem::{self, Stop, Symbols, ThreadInit, Tracer, Value, c::Macros, vmsa};
use std::collections::BTreeMap;

/// Why a test cannot be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineError {
    pub msg: String,
    /// Where in the test (1-based line and column), when the error is about its code.
    pub at: Option<(u32, u32)>,
    /// The test ran out of its budget: its answer is undetermined.
    pub exhausted: Option<crate::budget::Exhausted>,
    /// How far it got then.
    pub explored: crate::budget::Explored,
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.at {
            Some((line, col)) => write!(f, "{line}:{col}: {}", self.msg),
            None => f.write_str(&self.msg),
        }
    }
}

impl EngineError {
    pub fn new(msg: impl Into<String>) -> EngineError {
        EngineError {
            msg: msg.into(),
            at: None,
            exhausted: None,
            explored: Default::default(),
        }
    }

    pub fn exhausted(e: crate::budget::Exhausted) -> EngineError {
        EngineError {
            msg: e.to_string(),
            at: None,
            exhausted: Some(e),
            explored: Default::default(),
        }
    }
}

pub struct Program<'t> {
    pub test: &'t Test,
    pub symbols: Symbols,
    /// Initial value of every memory location (0 unless the init block says otherwise).
    pub init_mem: Vec<Value>,
    pub thread_regs: Vec<BTreeMap<String, Value>>,
    pub macros: Option<&'t Macros>,
    /// Threads also record register events (models that compute dependencies, `catdep`).
    pub reg_events: bool,
    /// Some location holds code (herd's instruction fetches: a read's value is an
    /// instruction the thread then runs).
    pub code: bool,
    /// Per C thread, its code as every run executes it, made at the first run.
    c_code: Vec<std::sync::OnceLock<Result<sem::c::Code, Stop>>>,
}

impl<'t> Program<'t> {
    pub fn new(test: &'t Test, macros: Option<&'t Macros>) -> Result<Program<'t>, EngineError> {
        let mut symbols = Symbols::default();
        collect_symbols(test, &mut symbols);
        let entries = vmsa_symbols(test, &mut symbols);
        let value = |ty: Option<&str>, v: &ValueLit, symbols: &Symbols| match v {
            ValueLit::Int(i) => Value::Int(*i),
            ValueLit::Addr { name, .. } => {
                let name = instr_literal(test.arch, ty, name)
                    .and_then(Result::ok)
                    .or_else(|| symbols.vmsa.then(|| vmsa::canonical_entry(name)).flatten())
                    .unwrap_or_else(|| name.clone());
                Value::Addr(symbols.get(&name).expect("interned"))
            }
        };
        let mut init_mem = vec![Value::ZERO; symbols.len()];
        code_memory(test, &symbols, &mut init_mem);
        for (pte, e) in entries {
            init_mem[pte.0 as usize] = Value::Addr(e);
        }
        let mut thread_regs = vec![BTreeMap::new(); test.threads.len()];
        for InitEntry { ty, loc, value: v } in &test.init {
            let Some(v) = v else { continue };
            if let (Some((_, len)), LocRef::Global(g)) = (ty.as_deref().and_then(array_type), loc) {
                init_array(&symbols, g, len, v, &mut init_mem)?;
                continue;
            }
            if let ValueLit::Addr { name, .. } = v
                && let Some(Err(e)) = instr_literal(test.arch, ty.as_deref(), name)
            {
                return Err(e);
            }
            let v = value(ty.as_deref(), v, &symbols);
            match loc {
                // PPC symbolic registers (`%x0=x`) belong to whichever thread names them.
                LocRef::Global(g) if g.starts_with('%') => {
                    for regs in &mut thread_regs {
                        regs.insert(g.clone(), v);
                    }
                }
                LocRef::Global(g) => init_mem[symbols.get(g).expect("interned").0 as usize] = v,
                LocRef::Reg { proc, reg } => {
                    let idx = test
                        .threads
                        .iter()
                        .position(|t| t.proc() == *proc)
                        .ok_or_else(|| {
                            EngineError::new(format!(
                                "init names thread {proc}, which the test does not have"
                            ))
                        })?;
                    thread_regs[idx].insert(reg.clone(), v);
                }
            }
        }
        if test.arch == Arch::C && macros.is_none() {
            return Err(EngineError::new("C tests need a macro (.def) file"));
        }
        let code = (0..symbols.len())
            .any(|l| code_location(test, symbols.name(sem::LocId(l as u32))).is_some());
        Ok(Program {
            test,
            symbols,
            init_mem,
            thread_regs,
            macros,
            reg_events: false,
            code,
            c_code: test.threads.iter().map(|_| Default::default()).collect(),
        })
    }

    /// Run thread `idx` once against `t`.
    pub fn run_thread(&self, idx: usize, t: &mut Tracer) -> Result<BTreeMap<String, Value>, Stop> {
        let thread = &self.test.threads[idx];
        t.reg_events = self.reg_events;
        let init = ThreadInit {
            arch: self.test.arch,
            proc: thread.proc(),
            regs: self.thread_regs[idx].clone(),
            symbols: &self.symbols,
        };
        match (thread, self.test.arch) {
            (Thread::C(c), _) => {
                let macros = self.macros.expect("checked in new");
                let code = self.c_code[idx]
                    .get_or_init(|| sem::c::prepare(c, &self.test.functions, macros));
                sem::c::run(c, code.as_ref().map_err(Clone::clone)?, &init, macros, t)
            }
            (Thread::Asm(a), Arch::X86 | Arch::X86_64) => sem::x86::run(a, &init, t),
            (Thread::Asm(a), Arch::AArch64) => sem::aarch64::run(a, &init, t),
            (Thread::Asm(a), Arch::PPC) => sem::ppc::run(a, &init, t),
            (Thread::Asm(_), Arch::C) => Err(Stop::error(None, "assembly thread in a C test")),
        }
    }

    /// Memory locations whose final value the test observes (condition, `locations`, filter).
    pub fn observed_globals(&self) -> Vec<sem::LocId> {
        let mut out = Vec::new();
        let mut add = |l: &LocRef| {
            if let LocRef::Global(g) = l
                && let Some(id) = self.symbols.get(g)
                && !out.contains(&id)
            {
                out.push(id);
            }
        };
        for l in &self.test.locations {
            add(l);
        }
        prop_locs(&self.test.condition.prop, &mut add);
        if let Some(f) = &self.test.filter {
            prop_locs(f, &mut add);
        }
        out
    }
}

/// Visit every location a proposition mentions.
pub fn prop_locs(p: &Prop, f: &mut impl FnMut(&LocRef)) {
    match p {
        Prop::True | Prop::False => {}
        Prop::Eq(l, _) | Prop::Ne(l, _) => f(l),
        Prop::EqLoc(a, b) => {
            f(a);
            f(b)
        }
        Prop::Not(a) => prop_locs(a, f),
        Prop::And(xs) | Prop::Or(xs) => xs.iter().for_each(|x| prop_locs(x, f)),
        Prop::Implies(a, b) => {
            prop_locs(a, f);
            prop_locs(b, f)
        }
    }
}

fn prop_values(p: &Prop, f: &mut impl FnMut(&ValueLit)) {
    match p {
        Prop::Eq(_, v) | Prop::Ne(_, v) => f(v),
        Prop::Not(a) => prop_values(a, f),
        Prop::And(xs) | Prop::Or(xs) => xs.iter().for_each(|x| prop_values(x, f)),
        Prop::Implies(a, b) => {
            prop_values(a, f);
            prop_values(b, f)
        }
        _ => {}
    }
}

/// `int[2]` (an init type with an array size): the element type and the length.
pub fn array_type(ty: &str) -> Option<(&str, usize)> {
    let (elem, rest) = ty.split_once('[')?;
    let len = rest.strip_suffix(']')?.trim().parse().ok()?;
    Some((elem.trim(), len))
}

/// Size in bytes of a scalar type, as herd lays out arrays (64-bit targets).
pub fn type_bytes(ty: &str) -> i64 {
    if ty.ends_with('*') {
        return 8;
    }
    match ty
        .trim_start_matches("unsigned ")
        .trim_start_matches("signed ")
    {
        "char" | "int8_t" | "uint8_t" => 1,
        "short" | "int16_t" | "uint16_t" => 2,
        "long" | "long long" | "int64_t" | "uint64_t" | "intptr_t" | "uintptr_t" => 8,
        _ => 4,
    }
}

/// Initial values of an array's cells from `{1,2}` (or one value for every cell).
fn init_array(
    symbols: &Symbols,
    name: &str,
    len: usize,
    v: &ValueLit,
    init_mem: &mut [Value],
) -> Result<(), EngineError> {
    let vals: Vec<i64> = match v {
        ValueLit::Int(i) => vec![*i; len],
        ValueLit::Addr { name: text, .. } => {
            let inner = text
                .trim()
                .strip_prefix('{')
                .and_then(|t| t.strip_suffix('}'))
                .ok_or_else(|| EngineError::new(format!("bad initial value {text} of {name}")))?;
            inner
                .split(',')
                .map(|x| x.trim())
                .filter(|x| !x.is_empty())
                .map(|x| {
                    x.parse()
                        .map_err(|_| EngineError::new(format!("bad array element {x} of {name}")))
                })
                .collect::<Result<_, _>>()?
        }
    };
    if vals.len() > len {
        return Err(EngineError::new(format!(
            "{name} has {len} cells but {} initial values",
            vals.len()
        )));
    }
    for (i, v) in vals.into_iter().enumerate() {
        let cell = if i == 0 {
            symbols.get(name)
        } else {
            symbols.get(&format!("{name}[{i}]"))
        };
        let cell = cell.expect("array cells are interned");
        init_mem[cell.0 as usize] = Value::Int(v);
    }
    Ok(())
}

/// The symbol naming an instruction value, `instr:"B .+8"`, when an init value is one:
/// written `instr:"..."`, or anything given type `ins_t`. The text is parsed and printed
/// back, so that equal instructions are equal values.
fn instr_literal(arch: Arch, ty: Option<&str>, name: &str) -> Option<Result<String, EngineError>> {
    let text = match name.strip_prefix("instr:") {
        Some(q) => q.trim().trim_matches('"'),
        None if ty.is_some_and(|t| t.trim() == "ins_t") => name,
        None => return None,
    };
    Some(instr_symbol(arch, text))
}

/// `instr:"TEXT"` with TEXT the canonical spelling of the instruction `text`.
fn instr_symbol(arch: Arch, text: &str) -> Result<String, EngineError> {
    let i = crate::litmus::parse_instr(text, arch)
        .map_err(|e| EngineError::new(format!("bad instruction value `{text}`: {}", e.msg)))?;
    Ok(instr_name(&i, arch))
}

fn instr_name(i: &crate::litmus::ast::Instr, arch: Arch) -> String {
    format!("instr:\"{}\"", crate::litmus::print_instr(i, arch))
}

/// A code location `P:label` (herd's `label:"P1:m0"`): the thread and the instruction the
/// label names (the first at or after the label's line).
pub fn code_location<'a>(
    test: &'a Test,
    name: &str,
) -> Option<(u32, &'a crate::litmus::ast::Instr)> {
    let (p, label) = name.split_once(':')?;
    let proc: u32 = p.trim_start_matches('P').parse().ok()?;
    let Thread::Asm(a) = test.threads.iter().find(|t| t.proc() == proc)? else {
        return None;
    };
    let at = a
        .code
        .iter()
        .position(|l| l.label.as_deref() == Some(label))?;
    a.code[at..]
        .iter()
        .find_map(|l| l.instr.as_ref())
        .map(|i| (proc, i))
}

/// Code whose address the test exposes is memory: each code location initially holds
/// its instruction (herd's `ifetch` variant).
fn code_memory(test: &Test, s: &Symbols, init_mem: &mut [Value]) {
    for (l, v) in init_mem.iter_mut().enumerate() {
        if let Some((_, i)) = code_location(test, s.name(sem::LocId(l as u32))) {
            *v = Value::Addr(s.get(&instr_name(i, test.arch)).expect("interned"));
        }
    }
}

/// herd's virtual-memory variant (`Variant=vmsa`, `kvm`): turn it on in `s` and intern
/// each virtual location's entry `PTE(x)`, page `page(x)` and identity entry value, and
/// the canonical spelling of every entry in the init. Returns each entry location with
/// its initial (identity) value, which the init may override.
fn vmsa_symbols(test: &Test, s: &mut Symbols) -> Vec<(sem::LocId, sem::LocId)> {
    let variant = test
        .info
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Variant"))
        .map(|(_, v)| v.to_ascii_lowercase())
        .unwrap_or_default();
    let has = |w: &str| variant.split([',', ' ']).any(|f| f.trim() == w);
    if test.arch != Arch::AArch64 || !(has("vmsa") || has("kvm")) {
        return Vec::new();
    }
    s.vmsa = true;
    // herd's default fault handling is `fatal`; `faultToNext` (and `handled`, whose
    // handlers we do not run) go on with the next instruction.
    s.fatal = !(has("handled") || has("faulttonext"));
    let virt: Vec<String> = (0..s.len())
        .map(|i| s.name(sem::LocId(i as u32)).to_string())
        .filter(|n| vmsa::is_virtual(n))
        .collect();
    let mut out = Vec::new();
    for x in &virt {
        let pte = s.intern(&vmsa::pte_of(x));
        s.intern(&vmsa::page_of(x));
        out.push((pte, s.intern(&vmsa::identity_entry(x))));
    }
    for e in &test.init {
        if let Some(ValueLit::Addr { name, .. }) = &e.value
            && let Some(c) = vmsa::canonical_entry(name)
        {
            s.intern(&c);
        }
    }
    out
}

/// Intern every name that denotes a memory location.
fn collect_symbols(test: &Test, s: &mut Symbols) {
    for e in &test.init {
        if let (Some((elem, len)), LocRef::Global(g)) =
            (e.ty.as_deref().and_then(array_type), &e.loc)
        {
            s.intern_array(g, len, type_bytes(elem));
            continue;
        }
        if let LocRef::Global(g) = &e.loc
            && !g.starts_with('%')
        {
            s.intern(g);
        }
        if let Some(ValueLit::Addr { name, .. }) = &e.value {
            match instr_literal(test.arch, e.ty.as_deref(), name) {
                Some(Ok(sym)) => s.intern(&sym),
                Some(Err(_)) => continue,
                None => s.intern(name),
            };
            // The instruction a code location initially holds is a value too.
            if let Some((_, i)) = code_location(test, name) {
                s.intern(&instr_name(i, test.arch));
            }
        }
    }
    for t in &test.threads {
        match t {
            Thread::C(c) => {
                for p in &c.params {
                    s.intern(&p.name);
                }
            }
            Thread::Asm(a) => {
                let labels: Vec<&str> = a.code.iter().filter_map(|l| l.label.as_deref()).collect();
                let all_labels: Vec<String> = test
                    .threads
                    .iter()
                    .filter_map(|t| match t {
                        Thread::Asm(a) => Some(a.code.iter().filter_map(|l| l.label.clone())),
                        _ => None,
                    })
                    .flatten()
                    .collect();
                let is_label = |n: &str| labels.contains(&n) || all_labels.iter().any(|l| l == n);
                for line in &a.code {
                    let Some(i) = &line.instr else { continue };
                    for op in &i.args {
                        match op {
                            Operand::Sym(n) if !is_label(n) && !is_branch(&i.op) => {
                                s.intern(n);
                            }
                            Operand::Mem(m) => {
                                if let crate::litmus::ast::MemBase::Sym(n) = &m.base {
                                    s.intern(n);
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    let mut add = |l: &LocRef| {
        if let LocRef::Global(g) = l {
            s.intern(g);
        }
    };
    for l in &test.locations {
        add(l);
    }
    prop_locs(&test.condition.prop, &mut add);
    if let Some(f) = &test.filter {
        prop_locs(f, &mut add);
    }
    let mut addv = |v: &ValueLit| {
        if let ValueLit::Addr { name, .. } = v {
            s.intern(name);
        }
    };
    prop_values(&test.condition.prop, &mut addv);
    if let Some(f) = &test.filter {
        prop_values(f, &mut addv);
    }
}

fn is_branch(op: &str) -> bool {
    let o = op.to_ascii_lowercase();
    o.starts_with('b') || o.starts_with('j') || o.starts_with("cb") || o.starts_with("tb")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program_of(src: &str) -> (Test, Symbols, Vec<Value>) {
        let t = crate::litmus::parse(src).expect("parses");
        let p = Program::new(&t, None).expect("runs");
        let (s, m) = (p.symbols.clone(), p.init_mem.clone());
        (t, s, m)
    }

    #[test]
    fn an_array_is_one_location_per_cell_with_its_initial_value() {
        let src = "AArch64 A\n{ int x[3]={1,2}; 0:X2=x; }\n P0 ;\n LDR W0,[X2,#8] ;\n\
                   exists (x[1]=2)\n";
        let (_, s, m) = program_of(src);
        let cell = |n| s.get(n).expect("interned").0 as usize;
        assert_eq!(m[cell("x")], Value::Int(1));
        assert_eq!(m[cell("x[1]")], Value::Int(2));
        assert_eq!(m[cell("x[2]")], Value::Int(0));
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn more_initial_values_than_cells_is_an_error() {
        let t = crate::litmus::parse(
            "AArch64 A\n{ int x[1]={1,2}; }\n P0 ;\n NOP ;\nexists (0:X0=0)\n",
        )
        .expect("parses");
        assert!(Program::new(&t, None).is_err());
    }

    #[test]
    fn instructions_are_values_and_exposed_code_is_memory() {
        let src = "AArch64 A\n{ ins_t 0:X0=NOP; 0:X1=instr:\"nop\"; 0:X2=1:L0; }\n\
                   P0 | P1 ;\n NOP | L0: B L1 ;\n | L1: ;\nexists (0:X0=0)\n";
        let t = crate::litmus::parse(src).expect("parses");
        let p = Program::new(&t, None).expect("runs");
        let nop = p
            .symbols
            .get("instr:\"NOP\"")
            .expect("canonical instruction value");
        assert_eq!(p.thread_regs[0]["X0"], Value::Addr(nop));
        assert_eq!(p.thread_regs[0]["X1"], Value::Addr(nop));
        let code = p.symbols.get("1:L0").expect("code location");
        let b = p
            .symbols
            .get("instr:\"B L1\"")
            .expect("initial instruction");
        assert_eq!(p.init_mem[code.0 as usize], Value::Addr(b));
    }

    #[test]
    fn a_bad_instruction_value_is_an_error() {
        let t = crate::litmus::parse(
            "AArch64 A\n{ ins_t 0:X0=FROB; }\n P0 ;\n NOP ;\nexists (0:X0=0)\n",
        )
        .expect("parses");
        assert!(Program::new(&t, None).is_err());
    }
}
