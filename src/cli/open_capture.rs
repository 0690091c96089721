//! `scenetree net replay CAPTURE` without `--json` or `--text`: the capture is read here (so a
//! file that cannot be read or parsed is an error on the terminal, with its line and field, and
//! no window opens), then the window shows it in the Peers workspace.

use std::path::{Path, PathBuf};

use scenetree_core::net::capture::Capture;

use super::net::NetAction;
use super::{Cli, Command};

/// The capture the window should open, read and parsed: its file (made whole) and contents;
/// `None` when the command line asks for no capture.
pub fn capture_to_open(cli: &Cli) -> Result<Option<(PathBuf, Capture)>, String> {
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

fn read(path: &Path) -> Result<(PathBuf, Capture), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let capture = Capture::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((scenetree_dcl::io::whole_path(path), capture))
}
