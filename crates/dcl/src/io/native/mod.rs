//! scenetree's own scene format: readable JSON (`"format": "scenetree/1"`) that holds the whole
//! replica state, so a saved scene resumes as the same CRDT state.
//!
//! ```json
//! {
//!   "format": "scenetree/1",
//!   "entities": [
//!     { "entity": 512,
//!       "components": {
//!         "core::Transform":   { "timestamp": 3, "value": { "position": [0, 1, 0], "rotation": [0, 0, 0, 1],
//!                                                          "scale": [1, 1, 1], "parent": 0 } },
//!         "core-schema::Name": { "timestamp": 1, "value": "Lamp" },
//!         "core::MeshRenderer": { "timestamp": 2, "value": { "mesh": { "$case": "sphere", "sphere": {} } } },
//!         "2905536298":        { "timestamp": 1, "base64": "AQ==" },
//!         "core::GltfContainer": { "timestamp": 4, "deleted": true } },
//!       "appended": { "core::PointerEventsResult": ["CAE="] } }
//!   ],
//!   "deleted_entities": [514, 66048]
//! }
//! ```
//!
//! Components are keyed by name when scenetree knows it (core components, `core-schema::*`),
//! else by their id. A value is written decoded (`value`) only when encoding the decoded form
//! gives back the exact bytes (so a Transform holding NaN, or a malformed Name, is kept as
//! `base64`): Transform and Name as above, every other core component in the JSON form of
//! `scenetree_dcl::ComponentCodec` (what a main.composite holds); everything else is base64.
//! `deleted` records a tombstone with its timestamp. A deleted entity, or one a newer version
//! of its number retired, is never written with values (tombstones only: a runtime's own
//! main.crdt keeps those, and a round trip keeps them byte for byte). Entities are sorted by
//! id and components by id, so files diff well.

mod read;
mod write;

use std::path::Path;

use serde_json::{Value, json};

use super::error::LoadError;
use scenetree_core::crdt::Replica;
use scenetree_core::model::{Transform, component_id_from_name};

/// The format tag this version writes and reads.
pub const FORMAT: &str = "scenetree/1";

pub use write::to_native_json;

/// A Transform's position (meters), rotation (quaternion x, y, z, w) and scale, in the parent's
/// space, as this format writes them, without the parent: what the editor's Copy Transform
/// puts on the system clipboard.
pub fn pose_json(t: &Transform) -> Value {
    json!({
        "position": t.position.to_array(),
        "rotation": t.rotation.to_array(),
        "scale": t.scale.to_array(),
    })
}

/// Reads native JSON into a fresh replica. Any problem is an error naming the JSON path (or
/// the line and column of broken JSON).
pub fn parse_native(path: &Path, text: &str) -> Result<Replica, LoadError> {
    read::read_native_text(path, text)
}

pub(super) fn parse_component_key(key: &str) -> u32 {
    key.parse::<u32>().unwrap_or_else(|_| {
        crate::core_component_id(key).unwrap_or_else(|| component_id_from_name(key))
    })
}

/// Reads a native scene file.
pub fn read_native(path: &Path) -> Result<Replica, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    parse_native(path, &text)
}
