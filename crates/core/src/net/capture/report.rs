//! The JSON `scenetree net replay CAPTURE --json` prints:
//!
//! ```text
//! {"players":[{"address":"0x…","network_id":N,
//!   "network_map":[{"entity":LOCAL,"network_id":N,"entity_id":E},…],
//!   "renderer_tree":[{"entity":LOCAL,"parent":PARENT},…],
//!   "hazards":[{"kind":K,"entity":LOCAL,"tick":N},…]}]}
//! ```
//!
//! - `network_map`: the player's map at the end: every local entity holding NetworkEntity (its
//!   own included), sorted by entity;
//! - `renderer_tree`: sorted by entity, every entity whose Transform the player's renderer holds
//!   (its number with version bits, as the renderer saw it) and that Transform's declared parent
//!   field as received;
//! - `hazards`: in tick order, `kind` one of `self_parent`, `raw_parent`, `unmapped_parent`,
//!   `repeated_state_response`, `wrong_entity_deleted`, `parent_not_removed`.

use serde::Serialize;

use super::super::hazard::HazardKind;
use super::format::Capture;
use super::replay::{Replay, replay};

/// The whole report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplayReport {
    /// One entry per player, in the header's order.
    pub players: Vec<PlayerReport>,
}

/// One player's entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerReport {
    /// The player's address.
    pub address: String,
    /// Its network id.
    pub network_id: u32,
    /// Its network map at the end.
    pub network_map: Vec<MapEntry>,
    /// What its renderer holds at the end.
    pub renderer_tree: Vec<TreeEntry>,
    /// Its hazards.
    pub hazards: Vec<HazardEntry>,
}

/// A local entity and the network entity it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MapEntry {
    /// The local entity.
    pub entity: u32,
    /// The owner's network id (0 for fixed ids), as the Int64 it is stored as.
    pub network_id: i64,
    /// The owner's entity, or the fixed id.
    pub entity_id: u32,
}

/// An entity of the renderer and its Transform's declared parent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TreeEntry {
    /// The entity.
    pub entity: u32,
    /// The parent field.
    pub parent: u32,
}

/// One hazard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HazardEntry {
    /// Its kind.
    pub kind: HazardKind,
    /// The entity, in the player's numbers.
    pub entity: u32,
    /// The player's tick.
    pub tick: u32,
}

impl ReplayReport {
    /// The report of a finished replay.
    pub fn of(replay: &Replay) -> ReplayReport {
        let players = replay
            .players
            .iter()
            .zip(&replay.hazards)
            .map(|(player, hazards)| {
                let mut network_map: Vec<MapEntry> = (player.engine().network_map().into_iter())
                    .map(|(entity, identity)| MapEntry {
                        entity: entity.0,
                        network_id: identity.network_id,
                        entity_id: identity.entity_id,
                    })
                    .collect();
                network_map.sort_by_key(|e| e.entity);
                PlayerReport {
                    address: player.address().to_string(),
                    network_id: player.network_id(),
                    network_map,
                    renderer_tree: (player.renderer().tree().into_iter())
                        .map(|(entity, parent)| TreeEntry {
                            entity: entity.0,
                            parent: parent.0,
                        })
                        .collect(),
                    hazards: hazards
                        .iter()
                        .map(|h| HazardEntry {
                            kind: h.kind,
                            entity: h.entity.0,
                            tick: h.tick,
                        })
                        .collect(),
                }
            })
            .collect();
        ReplayReport { players }
    }

    /// The report as `net replay --json` prints it (one line).
    pub fn to_json(&self) -> String {
        // Plain data with string keys: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Replays a capture and returns the `net replay --json` text.
pub fn replay_json(capture: &Capture) -> String {
    ReplayReport::of(&replay(capture)).to_json()
}
