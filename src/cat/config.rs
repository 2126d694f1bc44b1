//! herd `.cfg` files and the search for model files.

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

/// Looks for `name` in `first` (the including file's directory), then the include
/// directories, then as given (from the current folder, as herd7 does), then the shipped
/// files. An absolute path is taken as it is.
pub fn find(name: &str, first: Option<&Path>, dirs: &[PathBuf]) -> Option<Source> {
    let p = Path::new(name);
    if p.is_absolute() {
        return p.is_file().then(|| Source::Disk(p.to_path_buf()));
    }
    let candidates = first
        .into_iter()
        .map(Path::to_path_buf)
        .chain(dirs.iter().cloned());
    for d in candidates {
        let q = d.join(name);
        if q.is_file() {
            return Some(Source::Disk(q));
        }
    }
    if p.is_file() {
        return Some(Source::Disk(p.to_path_buf()));
    }
    library::get(name).map(|(n, s)| Source::Embedded(n, s))
}

/// Reads a herd `.cfg` file: the model options and the C macros file, if any.
/// Options herd uses for graphs and printing are ignored.
pub fn load_cfg(path: &Path) -> Result<(ModelOptions, Option<String>), CatError> {
    let text = crate::source::read_text(path).map_err(|e| {
        let (line, col) = match &e {
            crate::source::SourceError::NotUtf8 { line, col, .. } => (*line, *col),
            _ => (0, 0),
        };
        CatError {
            file: path.display().to_string(),
            line,
            col,
            msg: e.to_string(),
            fatal: None,
        }
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut opts = ModelOptions::default();
    opts.include_dirs.push(dir.clone());
    // The catalogue keeps cfgs/ next to cats/.
    let cats = dir.join("../cats");
    if cats.is_dir() {
        opts.include_dirs.push(cats);
    }
    let mut macros = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, val) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let val = val.trim().to_string();
        let key = key.trim_start_matches('-');
        let need = |v: &str| {
            if v.is_empty() {
                Err(CatError {
                    file: path.display().to_string(),
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
            "catpath" | "libdir" | "I" | "set-libdir" => {
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
