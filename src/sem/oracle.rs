//! Where a run's reads get their values and its choices their outcomes.
//!
//! Two enumerations run threads. The domain enumerator (`exec::threads`) gives every read
//! each value its location may hold, one run per combination: [`Oracle::Choices`]. The
//! growing exploration (`exec::grow`) gives a read the value of the write it reads from,
//! chosen as the execution grows: [`Oracle::Script`]. A read whose write is not chosen yet
//! is *unknown*: the run goes on past it with a placeholder value, tracking what depends
//! on it, and stops ([`Need`]) only where the code needs its value — a branch, an address
//! — or the script ends. The exploration then extends the script and runs the thread
//! again from its start: semantics are deterministic, so the same script gives the same
//! events.

use super::{Deps, LocId, Value};

/// One choice of a scripted run, in the order the run makes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// The outcome of `Tracer::choose(n)`.
    Choice(usize),
    /// A read's value; `None` while the write it reads from is not chosen.
    Read(Option<Value>),
    /// The outcome of decision number `at` of the run (counting every decision, known or
    /// not), made before the values it depends on were known; checked once they are.
    Decide { at: u32, taken: bool },
    /// The location of access number `at` whose address was not known yet; checked once
    /// it is.
    Locate { at: u32, loc: LocId },
}

/// What a scripted run needs before it can go on: the next entry of its script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// One of `n` alternatives (`Entry::Choice`).
    Choice(usize),
    /// The value of a read of `loc` (`Entry::Read`).
    Read(LocId),
    /// The outcome of decision `at`, on values not known yet (`Entry::Decide`);
    /// `ordered`: every later event of the run is ctrl-dependent on those values (a branch
    /// of an assembly thread, whose `ctrl` reaches everything after it).
    Decide { at: u32, ordered: bool },
    /// The location of an access at an address not known yet (`Entry::Locate`).
    Locate(u32),
}

/// Values each location may hold, as the domain enumerator currently knows them.
pub trait Domain {
    fn values(&self, loc: LocId) -> &[Value];
}

/// The source of a run's choices (see the module doc).
pub enum Oracle<'a> {
    Choices {
        choices: &'a [usize],
        next: usize,
        domain: &'a dyn Domain,
    },
    Script {
        script: &'a [Entry],
        next: usize,
    },
}

/// The value a read not known yet holds while the run goes on: what depends on it is
/// tracked ([`Deps`]) and never decides anything unchecked.
pub const PLACEHOLDER: Value = Value::Int(0);

impl Oracle<'_> {
    /// The next scripted entry, if the script has one.
    fn peek(&self) -> Option<Entry> {
        match self {
            Oracle::Script { script, next } => script.get(*next).copied(),
            Oracle::Choices { .. } => None,
        }
    }

    fn advance(&mut self) {
        if let Oracle::Script { next, .. } = self {
            *next += 1;
        }
    }

    /// Whether the whole script was used (a run that ends with entries left made other
    /// choices than those scripted: it is not the run the script describes).
    pub fn used_up(&self) -> bool {
        match self {
            Oracle::Script { script, next } => *next == script.len(),
            Oracle::Choices { .. } => true,
        }
    }
}

impl Oracle<'_> {
    /// One of `n` alternatives (`n` > 1); the need when the oracle has no answer.
    pub(super) fn choose(&mut self, n: usize) -> Result<usize, Need> {
        match self {
            Oracle::Choices {
                choices, next: i, ..
            } => match choices.get(*i) {
                Some(&c) => {
                    *i += 1;
                    Ok(c)
                }
                None => Err(Need::Choice(n)),
            },
            Oracle::Script { .. } => match self.peek() {
                Some(Entry::Choice(c)) => {
                    self.advance();
                    Ok(c)
                }
                _ => Err(Need::Choice(n)),
            },
        }
    }

    /// A scripted read's value (`None`: not known yet).
    pub(super) fn scripted_read(&mut self, loc: LocId) -> Result<Option<Value>, Need> {
        match self.peek() {
            Some(Entry::Read(v)) => {
                self.advance();
                Ok(v)
            }
            _ => Err(Need::Read(loc)),
        }
    }

    /// Decision number `at`, whose value is `guess` and depends on unknown reads when
    /// `unknown`. `Ok(None)`: the scripted outcome contradicts the known value.
    pub(super) fn decide(
        &mut self,
        at: u32,
        guess: bool,
        unknown: bool,
        ordered: bool,
    ) -> Result<Option<bool>, Need> {
        match self.peek() {
            Some(Entry::Decide { at: a, taken }) if a == at => {
                self.advance();
                Ok((unknown || taken == guess).then_some(taken))
            }
            _ if !unknown => Ok(Some(guess)),
            _ => Err(Need::Decide { at, ordered }),
        }
    }

    /// Access number `at`, at `guess` when its address is known (`!unknown`).
    /// `Ok(None)`: the scripted location contradicts the known address.
    pub(super) fn locate(
        &mut self,
        at: u32,
        guess: Value,
        unknown: bool,
    ) -> Result<Option<Value>, Need> {
        match self.peek() {
            Some(Entry::Locate { at: a, loc }) if a == at => {
                self.advance();
                Ok((unknown || guess == Value::Addr(loc)).then_some(Value::Addr(loc)))
            }
            _ if !unknown => Ok(Some(guess)),
            _ => Err(Need::Locate(at)),
        }
    }
}

/// Whether a value computed from `deps` is known, in a run whose unknown reads are
/// `unknown`.
pub fn known(deps: Deps, unknown: Deps) -> bool {
    deps.0 & unknown.0 == 0
}
