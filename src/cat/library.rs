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

/// herd's standard file names and the shipped files that stand in for them when no file
/// of that name is on the search path (a library folder's own `ppc.cat` comes first).
pub const STAND_INS: &[(&str, &str)] = &[
    ("ppc.cat", "power.cat"),
    ("aarch64.cat", "armv8.cat"),
    ("x86tso-mixed.cat", "x86tso.cat"),
    ("linux-kernel.cfg", "lkmm.cfg"),
    ("linux-kernel.cat", "lkmm.cat"),
    ("linux-kernel.bell", "lkmm.bell"),
    ("linux-kernel.def", "lkmm.def"),
];

/// The shipped file standing in for herd's file `name` (`ppc.cat`: our `power.cat`).
pub fn stand_in(name: &str) -> Option<(&'static str, &'static str)> {
    let (_, ours) = STAND_INS.iter().find(|(herd, _)| *herd == name)?;
    get(ours)
}

/// Names of the shipped models (the `.cat` files).
pub fn models() -> impl Iterator<Item = &'static str> {
    FILES.iter().filter_map(|(n, _)| n.strip_suffix(".cat"))
}

/// The stored tree of a shipped cat or bell file (see build.rs): its symbols, then the tree.
pub fn parsed(name: &str) -> Option<&'static [u8]> {
    PARSED.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}
