//! `scenetree net …`: multiplayer captures.
//! - `replay CAPTURE --json|--text`: a capture replayed, each player's network map, renderer
//!   tree and hazards (with their causes), or the JSON of
//!   `scenetree_core::net::capture::ReplayReport`; without either flag the capture opens in the
//!   window (`open_capture.rs`);
//! - `capture-module`: the TypeScript module a scene imports first to log its traffic;
//! - `import-log LOG…`: one capture from that module's lines in explorers' logs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Subcommand;

use scenetree_core::net::capture::{
    Capture, ImportOptions, LogFile, ReplayReport, import_logs, replay_with,
};
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
    /// Print the capture module, a TypeScript file to save as `src/net-capture.ts` and import
    /// first in `src/index.ts`: in preview it logs what the scene's sync sends and receives,
    /// and what reaches its renderer, as `NETCAP` lines for `net import-log`.
    CaptureModule,
    /// Build one capture from the capture module's lines in explorers' logs, one log per
    /// player (godot-explorer Scene Inspector JSONL, bevy-explorer `--scene_log_to_console`
    /// output, the Unity explorer's copied console or MCP `get_scene_logs` answers).
    ImportLog {
        /// The logs; players are listed in this order, and ticks at the same time go in it.
        #[arg(required = true)]
        logs: Vec<PathBuf>,
        /// Write the capture here instead of standard output.
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// A player whose scene reloaded (several sessions): keep its last session.
        #[arg(long)]
        last_session: bool,
        /// Missing records (a log that began late, an explorer that dropped lines): import
        /// what is there instead of failing.
        #[arg(long)]
        allow_gaps: bool,
        /// The SDK version the scene ran, for the header.
        #[arg(long, default_value = "7.28.0")]
        sdk: String,
    },
}

/// The capture module (see `NetAction::CaptureModule`), checked inside the real SDK by
/// `oracle-net/check-capture-module.mjs`.
pub const CAPTURE_MODULE: &str = include_str!("../../assets/net-capture.ts");

/// Runs `net …`.
pub(super) fn run(action: &NetAction) -> Result<(), String> {
    match action {
        NetAction::Replay { json, capture, .. } => replay(capture, *json),
        NetAction::CaptureModule => print(CAPTURE_MODULE.trim_end()),
        NetAction::ImportLog {
            logs,
            out,
            last_session,
            allow_gaps,
            sdk,
        } => {
            let options = ImportOptions {
                sdk: sdk.clone(),
                last_session: *last_session,
                allow_gaps: *allow_gaps,
            };
            import_log(logs, out.as_deref(), &options)
        }
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

fn import_log(
    paths: &[PathBuf],
    out: Option<&Path>,
    options: &ImportOptions,
) -> Result<(), String> {
    let mut texts = Vec::with_capacity(paths.len());
    for path in paths {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        // Logs copied from consoles may hold stray bytes; the module's lines are ASCII.
        texts.push((
            path.display().to_string(),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }
    let logs: Vec<LogFile<'_>> = (texts.iter())
        .map(|(name, text)| LogFile { name, text })
        .collect();
    let imported = import_logs(&logs, options).map_err(|e| e.to_string())?;
    for warning in &imported.warnings {
        eprintln!("warning: {warning}");
    }
    let text = imported.capture.to_jsonl();
    match out {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => print(text.trim_end()),
    }
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
