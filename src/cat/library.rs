//! The model files shipped inside the binary (everything in the crate's `cat/` directory).

include!(concat!(env!("OUT_DIR"), "/cat_library.rs"));

/// A shipped file by exact name (`"stdlib.cat"`), or a model by short name (`"lkmm"` finds
/// `lkmm.cat`).
pub fn get(name: &str) -> Option<(&'static str, &'static str)> {
    let exact = FILES.iter().find(|(n, _)| *n == name);
    let with_ext = || {
        FILES
            .iter()
            .find(|(n, _)| n.strip_suffix(".cat") == Some(name))
    };
    exact.or_else(with_ext).copied()
}

/// Names of the shipped models (the `.cat` files).
pub fn models() -> impl Iterator<Item = &'static str> {
    FILES.iter().filter_map(|(n, _)| n.strip_suffix(".cat"))
}

/// The stored tree of a shipped cat or bell file (see build.rs): its symbols, then the tree.
pub fn parsed(name: &str) -> Option<&'static [u8]> {
    PARSED.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}
