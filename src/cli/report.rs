//! `litmus report`: the records of `check --format jsonl` runs (the shards of one batch)
//! merged into that batch's output, as one run would have printed it.

use clap::Args;
use litmus::report::{record, record::Record, table};
use std::path::PathBuf;

#[derive(Args, Clone, Debug, PartialEq)]
pub struct ReportArgs {
    /// Files of JSON lines written by `litmus check --format jsonl` (`-`: stdin).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output: herd (herd7's blocks), table (tests × models), jsonl (the records merged).
    #[arg(long, default_value = "auto", value_parser = ["auto", "herd", "table", "json", "jsonl"])]
    pub format: String,
}

pub fn run(a: &ReportArgs) -> i32 {
    let mut recs: Vec<Record> = Vec::new();
    for f in &a.files {
        let text = if f.as_os_str() == "-" {
            std::io::read_to_string(std::io::stdin()).map_err(|e| e.to_string())
        } else {
            std::fs::read_to_string(f).map_err(|e| e.to_string())
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                say!("{}: error: {e}", f.display());
                return 2;
            }
        };
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Record>(line) {
                Ok(r) => recs.push(r),
                Err(e) => {
                    say!(
                        "{}:{}: error: not a record of `litmus check --format jsonl`: {e}",
                        f.display(),
                        n + 1
                    );
                    return 2;
                }
            }
        }
    }
    // The whole batch's order; a record given twice (a shard run twice) counts once. A C
    // test's compiled forms are one record per mapping, in the order they were made.
    // (The shipped mappings' names sort as the kernel's default first.)
    recs.sort_by(|x, y| {
        (x.index, x.column, &x.file, &x.mapping).cmp(&(y.index, y.column, &y.file, &y.mapping))
    });
    recs.dedup_by(|x, y| {
        (x.index, x.column, &x.file, &x.mapping) == (y.index, y.column, &y.file, &y.mapping)
    });
    let mut columns: Vec<String> = Vec::new();
    for r in &recs {
        if columns.len() <= r.column {
            columns.resize(r.column + 1, String::new());
        }
        if columns[r.column].is_empty() {
            columns[r.column] = r.column_name.clone();
        }
    }
    let format = match a.format.as_str() {
        "auto" if columns.len() > 1 => "table",
        "auto" => "herd",
        f => f,
    };
    let out = match format {
        "herd" => record::herd_blocks(&recs),
        "table" => table::render(&columns, &recs, 0),
        _ => record::lines(&recs),
    };
    if let Err(e) = super::write_stdout(&out) {
        say!("error: cannot write the output: {e}");
        return 2;
    }
    if format != "table" {
        let mut files: Vec<&str> = recs.iter().map(|r| r.file.as_str()).collect();
        files.sort();
        files.dedup();
        super::summary_to_stderr(files.len(), &recs, 0);
    }
    // As `check` would end: 2 when some input was not judged, else 3 when one ran out.
    if recs.iter().any(|r| r.status == "error") {
        2
    } else if recs.iter().any(|r| r.limited()) {
        3
    } else {
        0
    }
}
