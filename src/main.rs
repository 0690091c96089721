//! The scenetree binary: headless commands, or the editor window.

use std::process::ExitCode;

use clap::Parser as _;

/// Huge pages under the large arrays that propagation and CRDT apply read at random (see
/// `model::HugePageAlloc`).
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

fn main() -> ExitCode {
    scenetree::ui::logging::install();
    let cli = scenetree::cli::Cli::parse();
    if let Some(code) = scenetree::cli::run_headless(&cli) {
        return code;
    }
    let capture = match scenetree::cli::capture_to_open(&cli) {
        Ok(capture) => capture,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let launch = scenetree::ui::app::Launch {
        file: cli.file,
        screenshot: cli.screenshot,
        select: cli
            .select
            .into_iter()
            .map(scenetree_core::model::Entity)
            .collect(),
        lesson_steps: cli.steps.unwrap_or(0),
        window_size: cli.window_size,
        connect: cli.connect,
        allow_remote: cli.allow_remote,
        capture,
    };
    match scenetree::ui::app::run(launch) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
