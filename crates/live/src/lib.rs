#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod connection;
pub mod envelope;
mod error;
mod session;
mod target;
mod worker;

pub use connection::{LiveConnection, LiveOptions, Notify};
pub use error::{
    Call, CloseError, ConnectError, ConnectStage, DisconnectReason, FlushError, FrameError,
    NotConnected, NotOpen, ProtocolError, RemoteError, StreamHalf,
};
pub use session::{
    CRDT_STREAM, LiveEvent, MAX_ITEM_BYTES, MODULE_NAME, PORT_NAME, Phase, SAVE, Session,
};
