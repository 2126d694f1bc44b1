//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// The crate's root folder.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A final state with its items sorted and spaces dropped, so that states compare as sets of
/// `location=value` items, as herd's own comparisons (and `conform`) do.
pub fn norm(s: &str) -> String {
    let mut items: Vec<String> = s
        .split(';')
        .map(|x| x.replace(' ', ""))
        .filter(|x| !x.is_empty())
        .collect();
    items.sort();
    items.join(";")
}
