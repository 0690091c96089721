//! `scenetree net replay CAPTURE` without `--json` or `--text`: the capture is read here (so a
//! file that cannot be read or parsed is an error on the terminal, with its line and field, and
//! no window opens), then the window shows it in the Peers workspace.

use std::path::Path;

use scenetree_core::net::capture::Capture;

use super::net::NetAction;
use super::{Cli, Command};

/// The capture the window should open, read and parsed: its title (the file's name) and
/// contents; `None` when the command line asks for no capture.
pub fn capture_to_open(cli: &Cli) -> Result<Option<(String, Capture)>, String> {
    let Some(Command::Net {
        action:
            NetAction::Replay {
                json: false,
                text: false,
                capture,
            },
    }) = &cli.command
    else {
        return Ok(None);
    };
    read(capture).map(Some)
}

fn read(path: &Path) -> Result<(String, Capture), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let capture = Capture::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let title = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok((title, capture))
}
