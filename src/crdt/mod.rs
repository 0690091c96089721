//! The Decentraland CRDT protocol: message codec, stream reader and the replica with the exact
//! last-writer-wins rules of `@dcl/ecs`.

pub mod message;
pub mod replica;
pub mod stream;

pub use message::{CrdtMessage, MessageType, encode_stream};
pub use replica::{ApplyOutcome, LwwEntry, Replica, WriteError};
pub use stream::{
    DecodeError, DecodeErrorKind, DecodedStream, StreamItem, StreamReader, decode_stream,
};
