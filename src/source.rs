//! Reading the user's files: litmus tests, cat, bell, cfg and def files, and the folders
//! they sit in.
//!
//! Only regular files are read (a FIFO would block, `/dev/zero` never ends), none larger
//! than [`MAX_BYTES`], and text that is not UTF-8 is an error at the line and column of
//! its first bad byte. Folders are walked once per real folder, so a symbolic link back
//! up the tree neither loops nor judges a test twice.

use std::collections::BTreeSet;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest input file read: litmus and model files are kilobytes.
pub const MAX_BYTES: u64 = 16 << 20;

/// Why a file could not be read as text.
#[derive(Debug)]
pub enum SourceError {
    Io(PathBuf, std::io::Error),
    /// Not a regular file (a folder, a FIFO, a device).
    NotAFile(PathBuf, &'static str),
    TooLarge(PathBuf, u64),
    /// Not UTF-8: the 1-based line and column of the first bad byte, and the byte.
    NotUtf8 {
        path: PathBuf,
        line: u32,
        col: u32,
        byte: u8,
    },
}

impl SourceError {
    /// What is wrong, without the file's name and place (for messages that give them).
    pub fn reason(&self) -> String {
        match self {
            SourceError::Io(_, e) => e.to_string(),
            SourceError::NotAFile(_, what) => format!("is {what}, not a regular file"),
            SourceError::TooLarge(_, n) => format!(
                "{n} bytes, more than the {} MiB an input may have",
                MAX_BYTES >> 20
            ),
            SourceError::NotUtf8 { byte, .. } => format!("not UTF-8 text (byte 0x{byte:02x})"),
        }
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SourceError::NotUtf8 {
                path, line, col, ..
            } => write!(f, "{}:{line}:{col}: {}", path.display(), self.reason()),
            SourceError::Io(p, _) | SourceError::NotAFile(p, _) | SourceError::TooLarge(p, _) => {
                write!(f, "{}: {}", p.display(), self.reason())
            }
        }
    }
}

impl std::error::Error for SourceError {}

/// What a path is, when it is not a regular file.
fn kind_of(m: &std::fs::Metadata) -> &'static str {
    let t = m.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Reads a regular file of at most [`MAX_BYTES`] as UTF-8 text.
pub fn read_text(path: &Path) -> Result<String, SourceError> {
    let io = |e| SourceError::Io(path.to_path_buf(), e);
    // Asked before opening: opening a FIFO waits for a writer.
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(SourceError::NotAFile(path.to_path_buf(), kind_of(&meta)));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(io)?
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(SourceError::TooLarge(path.to_path_buf(), meta.len()));
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let (line, col) = line_col(&bytes[..at]);
        SourceError::NotUtf8 {
            path: path.to_path_buf(),
            line,
            col,
            byte: bytes[at],
        }
    })
}

/// The 1-based line and column (in characters) just after valid UTF-8 `text`.
fn line_col(text: &[u8]) -> (u32, u32) {
    let text = std::str::from_utf8(text).unwrap_or_default();
    let line = text.matches('\n').count() + 1;
    let last = text.rsplit('\n').next().unwrap_or("");
    (line as u32, last.chars().count() as u32 + 1)
}

/// The files of a walk, and what could not be walked.
#[derive(Debug, Default)]
pub struct Walk {
    /// Files as given, then each folder's `*.{ext}` files, sorted, each real file once.
    pub files: Vec<PathBuf>,
    /// Paths that could not be read, or folders with no such file when no path gave
    /// any, with why: each a diagnostic ready to print (`PATH: error: WHY`).
    pub problems: Vec<String>,
    /// Folders with no such file when other paths gave some: likely a mistake (a wrong
    /// folder, a misspelt name) but no reason to stop the batch; each a diagnostic ready
    /// to print (`PATH: warning: WHY`).
    pub warnings: Vec<String>,
}

/// Expands `paths`: a file is kept as given; a folder is searched, recursively, for
/// files ending in `.{ext}`. A folder reached twice (through a symbolic link) is walked
/// once, and a file reached twice is listed once.
pub fn walk(paths: &[PathBuf], ext: &str) -> Walk {
    let mut w = Walk::default();
    let mut seen_dirs = BTreeSet::new();
    let mut seen_files = BTreeSet::new();
    let mut empty = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                let mut found = Vec::new();
                let walked = walk_dir(p, ext, &mut seen_dirs, &mut found, &mut w.problems);
                // (A folder walked before through another path is no empty folder.)
                if walked && found.is_empty() {
                    empty.push(p);
                }
                found.sort();
                for f in found {
                    if seen_files.insert(real(&f)) {
                        w.files.push(f);
                    }
                }
            }
            // Files as given, even when not regular: reading them says why not.
            Ok(_) => {
                if seen_files.insert(real(p)) {
                    w.files.push(p.clone());
                }
            }
            Err(e) => w.problems.push(format!("{}: error: {e}", p.display())),
        }
    }
    // With nothing to check at all, an empty folder is the error; beside other tests,
    // a warning.
    let (what, into) = match w.files.is_empty() {
        true => ("error", &mut w.problems),
        false => ("warning", &mut w.warnings),
    };
    for p in empty {
        into.push(format!(
            "{}: {what}: no *.{ext} files in this folder (no tests to check)",
            p.display()
        ));
    }
    w
}

fn real(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn walk_dir(
    dir: &Path,
    ext: &str,
    seen: &mut BTreeSet<PathBuf>,
    out: &mut Vec<PathBuf>,
    problems: &mut Vec<String>,
) -> bool {
    if !seen.insert(real(dir)) {
        return false;
    }
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            problems.push(format!("{}: error: {e}", dir.display()));
            return false;
        }
    };
    for e in rd.flatten() {
        let p = e.path();
        match std::fs::metadata(&p) {
            Ok(m) if m.is_dir() => {
                walk_dir(&p, ext, seen, out, problems);
            }
            Ok(m) if m.is_file() && p.extension().is_some_and(|x| x == ext) => out.push(p),
            // Dangling links and other kinds of file are not tests.
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("litmus-source-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn bad_utf8_is_located() {
        let d = scratch("utf8");
        let f = d.join("t.litmus");
        std::fs::write(&f, b"C t\n{}\nP0(int *x) { \xff }\n").unwrap();
        match read_text(&f) {
            Err(SourceError::NotUtf8 {
                line, col, byte, ..
            }) => assert_eq!((line, col, byte), (3, 14, 0xff)),
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_folder_is_not_read_as_a_file() {
        let d = scratch("dir");
        assert!(matches!(
            read_text(&d),
            Err(SourceError::NotAFile(_, "a folder"))
        ));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_loop_is_walked_once() {
        let d = scratch("loop");
        std::fs::write(d.join("a.litmus"), "C a").unwrap();
        std::os::unix::fs::symlink(".", d.join("self")).unwrap();
        let w = walk(std::slice::from_ref(&d), "litmus");
        assert_eq!(w.files.len(), 1, "{w:?}");
        assert!(w.problems.is_empty(), "{w:?}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_empty_folder_is_a_problem() {
        let d = scratch("empty");
        let w = walk(std::slice::from_ref(&d), "litmus");
        assert!(w.files.is_empty());
        assert_eq!(w.problems.len(), 1);
        assert!(
            w.problems[0].contains(": error: no *.litmus files"),
            "{w:?}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_empty_folder_beside_tests_is_a_warning() {
        let d = scratch("empty-beside");
        std::fs::create_dir_all(d.join("none")).unwrap();
        std::fs::write(d.join("a.litmus"), "C a").unwrap();
        let paths = [d.join("a.litmus"), d.join("none")];
        let w = walk(&paths, "litmus");
        assert_eq!(w.files.len(), 1, "{w:?}");
        assert!(w.problems.is_empty(), "{w:?}");
        assert_eq!(w.warnings.len(), 1, "{w:?}");
        assert!(
            w.warnings[0].contains("none: warning: no *.litmus files"),
            "{w:?}"
        );
        // A folder walked twice is not empty the second time.
        let w = walk(&[d.clone(), d.clone()], "litmus");
        assert!(w.problems.is_empty() && w.warnings.is_empty(), "{w:?}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
