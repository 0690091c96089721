//! The scenetree binary: headless commands, or the editor window.

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    let cli = scenetree::cli::Cli::parse();
    if let Some(code) = scenetree::cli::run_headless(&cli) {
        return code;
    }
    eprintln!("the editor window is not built yet; try `scenetree tree FILE`");
    ExitCode::FAILURE
}
