//! Files in and out: scenetree's native JSON, Decentraland's `main.crdt`, atomic saves.
//! Every reader is all or nothing and reports the file, the place in it, and what was wrong.

pub mod atomic;
pub mod dcl_crdt;
mod error;
pub mod native;
pub mod recovery;

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

/// Parses the bytes of a scene file (already read) by the format its path names.
pub fn parse_scene_bytes(path: &Path, bytes: &[u8]) -> Result<Replica, LoadError> {
    match SceneFormat::from_path(path) {
        Some(SceneFormat::Native) => {
            let text = std::str::from_utf8(bytes).map_err(|e| LoadError {
                path: path.to_path_buf(),
                location: Location::Byte(e.valid_up_to()),
                message: "not UTF-8 text; a native scene is JSON".into(),
            })?;
            native::parse_native(path, text)
        }
        Some(SceneFormat::DclCrdt) => Ok(Replica::from_messages(
            &dcl_crdt::parse_crdt(path, bytes)?.messages,
        )),
        None => Err(unknown_type(path)),
    }
}

fn unknown_type(path: &Path) -> LoadError {
    LoadError::file(
        path,
        "unknown file type: scenetree opens .json (native) and .crdt (Decentraland) files",
    )
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
