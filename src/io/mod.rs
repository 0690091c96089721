//! Files in and out: scenetree's native JSON, Decentraland's `main.crdt`, scenario files,
//! atomic saves.
//! Every reader is all or nothing and reports the file, the place in it, and what was wrong.

pub mod atomic;
pub mod dcl_crdt;
mod error;
pub mod native;

/// Scenario files of the peers simulation.
pub mod scenario;

use std::path::Path;

pub use atomic::write_atomic;
pub use error::{LoadError, Location};

use crate::crdt::Replica;

/// The file formats scenetree reads and writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SceneFormat {
    /// `*.json` in the native `scenetree/1` format.
    Native,
    /// Decentraland's binary `main.crdt` (`*.crdt`).
    DclCrdt,
}

impl SceneFormat {
    /// The format a path's extension names, if any.
    pub fn from_path(path: &Path) -> Option<SceneFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(SceneFormat::Native),
            "crdt" => Some(SceneFormat::DclCrdt),
            _ => None,
        }
    }
}

/// Loads a scene file of any supported format into a fresh replica.
pub fn load_scene(path: &Path) -> Result<Replica, LoadError> {
    match SceneFormat::from_path(path) {
        Some(SceneFormat::Native) => native::read_native(path),
        Some(SceneFormat::DclCrdt) => dcl_crdt::load_replica(path),
        None => Err(LoadError::file(
            path,
            "unknown file type: scenetree opens .json (native) and .crdt (Decentraland) files",
        )),
    }
}

/// The bytes a replica is saved as in `format`.
pub fn scene_bytes(replica: &Replica, format: SceneFormat) -> Vec<u8> {
    match format {
        SceneFormat::Native => native::to_native_json(replica).into_bytes(),
        SceneFormat::DclCrdt => dcl_crdt::to_crdt_bytes(replica),
    }
}

/// Saves a replica atomically in the format the path's extension names.
pub fn save_scene(replica: &Replica, path: &Path) -> Result<(), LoadError> {
    let format = SceneFormat::from_path(path).ok_or_else(|| {
        LoadError::file(
            path,
            "unknown file type: save as .json (native) or .crdt (Decentraland)",
        )
    })?;
    write_atomic(path, &scene_bytes(replica, format))
        .map_err(|e| LoadError::file(path, format!("cannot save: {e}")))
}
