//! The `litmus` command line.

mod cli;

fn main() {
    let code = cli::main(std::env::args().collect());
    std::process::exit(code);
}
