//! `scenetree net replay CAPTURE --json|--text`: a multiplayer capture replayed, each player's
//! network map, renderer tree and hazards (with their causes), or the JSON of
//! `scenetree_core::net::capture::ReplayReport`. Without either flag the capture opens in the
//! window (`open_capture.rs`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Subcommand;

use scenetree_core::net::capture::{Capture, ReplayReport, replay_with};
use scenetree_core::net::hazard::identity_label;
use scenetree_core::net::short_address;

/// `scenetree net …`
#[derive(Debug, Subcommand)]
pub enum NetAction {
    /// Replay a `scenetree-net-capture/1` capture and open it in the Peers workspace (a column
    /// per player, the deliveries to move); with `--json` or `--text`, print each player's
    /// network map, what its renderer holds, and the hazards, with where the model could not
    /// reproduce a tick.
    Replay {
        /// Print the JSON report (`players[]` with `network_map`, `renderer_tree`, `hazards`).
        #[arg(long, conflicts_with = "text")]
        json: bool,
        /// Print the report as text instead of opening the window.
        #[arg(long)]
        text: bool,
        /// A capture (JSON Lines).
        capture: PathBuf,
    },
}

/// Runs `net …`.
pub(super) fn run(action: &NetAction) -> Result<(), String> {
    match action {
        NetAction::Replay { json, capture, .. } => replay(capture, *json),
    }
}

fn replay(path: &Path, json: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let capture = Capture::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut unmatched = Vec::new();
    let replay = replay_with(&capture, |tick| {
        if !tick.matches() {
            let player = &capture.header.players[tick.player].address;
            unmatched.push(format!(
                "line {}: {} tick {}: the model sends other bytes than the capture{}",
                tick.line,
                short_address(player),
                tick.output.tick,
                tick.notes
                    .first()
                    .map_or(String::new(), |n| format!(" ({n})"))
            ));
        }
    });
    let report = ReplayReport::of(&replay);
    if json {
        return print(&report.to_json());
    }
    let mut out = String::new();
    for ((player, header), hazards) in report
        .players
        .iter()
        .zip(&capture.header.players)
        .zip(&replay.hazards)
    {
        let name = header
            .name
            .as_deref()
            .map_or(String::new(), |n| format!("{n} "));
        let _ = writeln!(
            out,
            "{name}{} (network id {})",
            player.address, player.network_id
        );
        let _ = writeln!(out, "  network map:");
        for entry in &player.network_map {
            let owner =
                u32::try_from(entry.network_id)
                    .ok()
                    .and_then(|net| {
                        capture.header.players.iter().find(|p| {
                            scenetree_core::net::network_id_from_address(&p.address) == net
                        })
                    })
                    .map(|p| p.address.as_str());
            let identity = scenetree_core::net::NetworkIdentity {
                network_id: entry.network_id,
                entity_id: entry.entity_id,
            };
            let _ = writeln!(
                out,
                "    {} = {}",
                scenetree_core::model::Entity(entry.entity),
                identity_label(identity, owner)
            );
        }
        let _ = writeln!(out, "  renderer tree:");
        for entry in &player.renderer_tree {
            let _ = writeln!(
                out,
                "    {} → {}",
                scenetree_core::model::Entity(entry.entity),
                scenetree_core::model::Entity(entry.parent)
            );
        }
        let _ = writeln!(out, "  hazards: {}", hazards.len());
        for hazard in hazards {
            let _ = writeln!(
                out,
                "    tick {} {} on {}: {}",
                hazard.tick, hazard.kind, hazard.entity, hazard.cause
            );
        }
    }
    if unmatched.is_empty() {
        let _ = writeln!(out, "every tick reproduced byte for byte");
    } else {
        let _ = writeln!(out, "{} ticks not reproduced:", unmatched.len());
        for line in &unmatched {
            let _ = writeln!(out, "  {line}");
        }
    }
    print(out.trim_end())
}

/// Writes `text` and a newline on standard output; a closed pipe is the reader's choice.
pub(super) fn print(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| format!("cannot write output: {e}")),
    }
}
