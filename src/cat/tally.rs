//! How often something was tried, and how often it paid: the engine tries its shortcuts
//! (bounds of prefixes, plans, settling) only where they have been paying.

use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// Tries and wins, by key.
#[derive(Default)]
pub struct Tally(RefCell<FxHashMap<(usize, usize), (u32, u32)>>);

impl Tally {
    /// Tries and wins so far under `key`.
    pub fn get(&self, key: (usize, usize)) -> (u32, u32) {
        self.0.borrow().get(&key).copied().unwrap_or_default()
    }

    /// Counts one try under `key`, and whether it paid.
    pub fn count(&self, key: (usize, usize), won: bool) {
        let mut m = self.0.borrow_mut();
        let s = m.entry(key).or_default();
        s.0 = s.0.saturating_add(1);
        s.1 += u32::from(won);
    }

    /// Whether it is still worth trying under `key`: fewer than `trial` tries so far, or at
    /// least one win in `one_in` of them.
    pub fn worth(&self, key: (usize, usize), trial: u32, one_in: u32) -> bool {
        let (tried, won) = self.get(key);
        tried < trial || won.saturating_mul(one_in) >= tried
    }
}
