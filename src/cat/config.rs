//! herd `.cfg` files and the search for model files (herd's order, then the shipped files).

use super::{CatError, ModelOptions, library};
use std::path::{Path, PathBuf};

/// Where a model file was found.
pub enum Source {
    Disk(PathBuf),
    Embedded(&'static str, &'static str),
    /// Model text handed over directly (`Model::from_source`).
    Text(String, String),
}

impl Source {
    pub fn display(&self) -> String {
        match self {
            Source::Disk(p) => p.display().to_string(),
            Source::Embedded(n, _) => format!("<builtin>/{n}"),
            Source::Text(n, _) => n.clone(),
        }
    }
    pub fn dir(&self) -> Option<PathBuf> {
        match self {
            Source::Disk(p) => p.parent().map(Path::to_path_buf),
            Source::Embedded(..) | Source::Text(..) => None,
        }
    }
    pub fn read(&self) -> Result<String, String> {
        match self {
            Source::Disk(p) => crate::source::read_text(p).map_err(|e| e.to_string()),
            Source::Embedded(_, s) => Ok(s.to_string()),
            Source::Text(_, s) => Ok(s.clone()),
        }
    }
}

/// Looks for `name` as herd7 does (its `lib/myLib.ml`): a path that starts at a folder of
/// its own (`/x.cat`, `./x.cat`, `../x.cat`) is taken as given; any other name is looked
/// for in each of `dirs` in turn (the caller lists herd's order there: `.`, the `-I`
/// folders, `$HERDLIB`, the library folder), then in `first` (the including file's
/// folder: where herd would fall back on its installed library, we find the files that
/// came with the model), then among the shipped files, by their own name or by the herd
/// file name they stand in for (`ppc.cat` is our `power.cat`; see [`library::stand_in`]).
pub fn find(name: &str, first: Option<&Path>, dirs: &[PathBuf]) -> Option<Source> {
    if !is_implicit(name) {
        let p = Path::new(name);
        // Whatever is there is read, and refused then if it is no regular file.
        return p.exists().then(|| Source::Disk(p.to_path_buf()));
    }
    for d in dirs.iter().map(PathBuf::as_path).chain(first) {
        let q = d.join(name);
        if q.is_file() {
            return Some(Source::Disk(q));
        }
    }
    library::get(name)
        .or_else(|| library::stand_in(name))
        .map(|(n, s)| Source::Embedded(n, s))
}

/// OCaml's `Filename.is_implicit`: the name neither is absolute nor starts with `./` or
/// `../`, so herd searches its path for it.
pub fn is_implicit(name: &str) -> bool {
    let p = Path::new(name);
    !(p.is_absolute() || name.starts_with("./") || name.starts_with("../") || name == ".")
}

/// Reads a herd `.cfg` file: the model options and the C macros file, if any.
/// Options herd uses for graphs and printing are ignored.
pub fn load_cfg(path: &Path) -> Result<(ModelOptions, Option<String>), CatError> {
    read_cfg(&Source::Disk(path.to_path_buf()))
}

/// [`load_cfg`] for a configuration found anywhere (a shipped one stands in for herd's
/// `linux-kernel.cfg`). The names it gives are looked up later, on the search path; the
/// folder of a configuration on disk (and a catalogue's `../cats` next to it) comes
/// after that path, where herd would find nothing.
pub fn read_cfg(src: &Source) -> Result<(ModelOptions, Option<String>), CatError> {
    let name = src.display();
    let text = match src {
        Source::Disk(path) => crate::source::read_text(path).map_err(|e| {
            let (line, col) = match &e {
                crate::source::SourceError::NotUtf8 { line, col, .. } => (*line, *col),
                _ => (0, 0),
            };
            CatError {
                file: name.clone(),
                line,
                col,
                msg: e.to_string(),
                fatal: None,
            }
        }),
        _ => src.read().map_err(|e| CatError {
            file: name.clone(),
            line: 0,
            col: 0,
            msg: e,
            fatal: None,
        }),
    }?;
    let dir = src.dir().unwrap_or_default();
    let mut opts = ModelOptions::default();
    if src.dir().is_some() {
        opts.include_dirs.push(dir.clone());
        // The catalogue keeps cfgs/ next to cats/.
        let cats = dir.join("../cats");
        if cats.is_dir() {
            opts.include_dirs.push(cats);
        }
    }
    let mut macros = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // `key value` or `key = value`.
        let (key, val) = line
            .split_once(|c: char| c.is_whitespace() || c == '=')
            .unwrap_or((line, ""));
        let val = val.trim().trim_start_matches('=').trim().to_string();
        let key = key.trim_start_matches('-');
        let need = |v: &str| {
            if v.is_empty() {
                Err(CatError {
                    file: name.clone(),
                    line: i as u32 + 1,
                    col: 1,
                    msg: format!("option {key} expects a value"),
                    fatal: None,
                })
            } else {
                Ok(())
            }
        };
        match key {
            "model" | "cat" => {
                need(&val)?;
                opts.cat_named_at = Some(super::Place {
                    file: name.clone(),
                    line: i as u32 + 1,
                    col: raw
                        .rfind(val.as_str())
                        .map_or(1, |k| raw[..k].chars().count() as u32 + 1),
                });
                opts.cat = val;
            }
            "bell" => {
                need(&val)?;
                opts.bell = Some(val);
            }
            "macros" => {
                need(&val)?;
                macros = Some(val);
            }
            "variant" => {
                need(&val)?;
                opts.variants
                    .extend(val.split(',').map(|v| v.trim().to_string()));
            }
            "catpath" | "libdir" | "I" | "include" | "set-libdir" => {
                need(&val)?;
                for d in val.split(':') {
                    let p = PathBuf::from(d);
                    opts.include_dirs
                        .push(if p.is_absolute() { p } else { dir.join(p) });
                }
            }
            _ => {}
        }
    }
    Ok((opts, macros))
}
