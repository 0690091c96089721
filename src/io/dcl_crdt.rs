//! Decentraland's `main.crdt`: a stream of CRDT messages, read into a replica and written back
//! as the canonical stream.

use std::path::Path;

use super::error::{LoadError, Location};
use crate::crdt::{CrdtMessage, Replica, decode_stream, encode_stream};

/// A `main.crdt` read into memory.
#[derive(Debug)]
pub struct CrdtFile {
    /// The messages as they appear in the file.
    pub messages: Vec<CrdtMessage>,
    /// Unknown message types skipped while reading: (byte offset, type).
    pub skipped_unknown: Vec<(usize, u32)>,
}

/// Decodes the bytes of a `.crdt` file; errors name the file and the byte offset.
pub fn parse_crdt(path: &Path, bytes: &[u8]) -> Result<CrdtFile, LoadError> {
    let decoded = decode_stream(bytes).map_err(|e| LoadError {
        path: path.to_path_buf(),
        location: Location::Byte(e.offset),
        message: e.kind.to_string(),
    })?;
    Ok(CrdtFile {
        messages: decoded.messages,
        skipped_unknown: decoded.skipped_unknown,
    })
}

/// Reads and decodes a `.crdt` file.
pub fn read_crdt(path: &Path) -> Result<CrdtFile, LoadError> {
    let bytes =
        std::fs::read(path).map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    parse_crdt(path, &bytes)
}

/// Applies a file's messages, in order, to a fresh replica.
pub fn load_replica(path: &Path) -> Result<Replica, LoadError> {
    Ok(Replica::from_messages(&read_crdt(path)?.messages))
}

/// The canonical `main.crdt` bytes of a replica (see [`Replica::canonical_messages`]).
pub fn to_crdt_bytes(replica: &Replica) -> Vec<u8> {
    encode_stream(&replica.canonical_messages())
}
