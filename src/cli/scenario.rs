//! `scenetree scenario run [--policy NAME|all] [--json] FILE`: replays a scenario headlessly
//! and prints every event with each peer's digest and re-rooted entities (and, with
//! `--policy`, its tree under each policy and whether the peers agree), then whether the peers
//! converged. The replay and the report are `scenetree_editor::replay`'s; this reads the file
//! and writes to stdout as the report goes.

use std::io::{BufWriter, Write};
use std::path::Path;

use scenetree_core::scene::policy::TreePolicy;
use scenetree_dcl::io;
use scenetree_editor::replay::{Replay, report};

/// Runs the scenario in `file` and prints the report; `policies` (may be empty) adds each
/// peer's tree under those tree policies.
pub(super) fn run(file: &Path, as_json: bool, policies: &[TreePolicy]) -> Result<(), String> {
    let player = io::scenario::read_played(file).map_err(|e| e.to_string())?;
    let mut replay = Replay::new(player).map_err(|e| e.to_string())?;
    let format = if as_json {
        report::Format::Json
    } else {
        report::Format::Text
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result =
        report::write_report(&mut replay, policies, format, &mut out).and_then(|()| out.flush());
    // The process ends with the command: freeing a run of millions of events one by one only
    // costs time (a tenth of a million-step replay), and the system takes the memory back.
    std::mem::forget(replay);
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| format!("cannot write output: {e}")),
    }
}
