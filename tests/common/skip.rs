//! What a test needs from outside the crate, and what it does when that is missing.
//!
//! A test that needs an outside program or data says so loudly and skips: `cargo test`
//! passes on a machine with only a Rust toolchain. `.ci/run` installs the programs it can
//! and sets the variable of each kind it provides, which turns every such skip into a
//! failure, so that CI always runs them:
//! - `LITMUS_REQUIRE_TOOLS`: programs from the distribution (GNU parallel, Graphviz, tmux,
//!   the AArch64 cross-compiler and qemu);
//! - `LITMUS_REQUIRE_CORPUS`: the shared corpus and the kernel's `tools/memory-model`
//!   (`../shared`), set when CI finds them beside the checkout;
//! - `LITMUS_REQUIRE_HERD`: herd7 and its library (`HERD7`, or `herd7` on `PATH`), which
//!   no script of ours fetches or builds.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// A kind of outside need, and the variable that makes its absence a failure.
#[derive(Clone, Copy)]
pub enum Need {
    Tool,
    Corpus,
    Herd,
}

impl Need {
    fn var(self) -> &'static str {
        match self {
            Need::Tool => "LITMUS_REQUIRE_TOOLS",
            Need::Corpus => "LITMUS_REQUIRE_CORPUS",
            Need::Herd => "LITMUS_REQUIRE_HERD",
        }
    }
}

/// `test` cannot run without `what`: a loud line on the real stderr (the harness
/// captures `eprintln!`), or a failure when the need's variable is set.
pub fn skip(need: Need, test: &str, what: &str) {
    let var = need.var();
    if std::env::var_os(var).is_some_and(|v| !v.is_empty() && v != "0") {
        panic!("{test}: {what}, and {var} is set: this test must run here");
    }
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED {test}: {what} (set {var}=1 to make this a failure) ***\n"
    );
}

/// Whether `program` runs (`program ARGS` exits successfully and prints `expect`, when
/// given); if not, [`skip`] with why.
pub fn program(test: &str, program: &str, args: &[&str], expect: Option<&str>) -> bool {
    let ok = Command::new(program).args(args).output().is_ok_and(|o| {
        let out = String::from_utf8_lossy(&o.stdout) + String::from_utf8_lossy(&o.stderr);
        o.status.success() && expect.is_none_or(|e| out.contains(e))
    });
    if !ok {
        skip(Need::Tool, test, &format!("`{program}` is not installed"));
    }
    ok
}

/// herd7 7.58: `HERD7`, else `herd7` on `PATH`; `None` after [`skip`].
pub fn herd7(test: &str) -> Option<PathBuf> {
    let p = std::env::var_os("HERD7")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("herd7"));
    let ok = Command::new(&p)
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some(p)
    } else {
        skip(
            Need::Herd,
            test,
            &format!(
                "no herd7 at `{}` (set HERD7 or put herd7 on PATH)",
                p.display()
            ),
        );
        None
    }
}

/// herd7's library folder (`herd7 -libdir`), where its model files are.
pub fn herd_libdir(test: &str) -> Option<PathBuf> {
    let h = herd7(test)?;
    let o = Command::new(h).arg("-libdir").output().ok()?;
    let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    if dir.join("stdlib.cat").is_file() {
        Some(dir)
    } else {
        skip(
            Need::Herd,
            test,
            &format!(
                "herd7's library folder `{}` has no stdlib.cat",
                dir.display()
            ),
        );
        None
    }
}

/// A folder of `../shared` (the corpus, the kernel's memory model), or `None` after
/// [`skip`].
pub fn shared(test: &str, rel: &str, marker: &str) -> Option<PathBuf> {
    let dir = super::root().join("../shared").join(rel);
    if dir.join(marker).exists() {
        Some(dir)
    } else {
        skip(
            Need::Corpus,
            test,
            &format!("no {} (looked for {marker} in it)", dir.display()),
        );
        None
    }
}

/// A herdtools program installed beside herd7 (`mselect7`, `mshowhashes7`), or `None`
/// after [`skip`].
pub fn herd_tool(test: &str, name: &str) -> Option<PathBuf> {
    let h = herd7(test)?;
    let beside = which(&h).and_then(|p| Some(p.parent()?.join(name)));
    match beside.filter(|p| p.is_file()) {
        Some(p) => Some(p),
        None => {
            skip(
                Need::Herd,
                test,
                &format!("herd's `{name}` is not beside herd7"),
            );
            None
        }
    }
}

/// `p` itself when it names a path, else where `PATH` finds it.
fn which(p: &std::path::Path) -> Option<PathBuf> {
    if p.components().count() > 1 {
        return Some(p.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(p))
        .find(|c| c.is_file())
}
