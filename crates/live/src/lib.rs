#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod connection;
pub mod envelope;
mod error;
mod event;
mod reconnect;
mod session;
mod target;
mod worker;

pub use connection::{LiveConnection, LiveOptions, Notify};
pub use error::{
    Call, CloseError, ConnectError, ConnectStage, DisconnectReason, FlushError, FrameError,
    NotConnected, NotOpen, ProtocolError, RemoteError, StreamHalf,
};
pub use event::{LiveEvent, Phase};
pub use reconnect::Backoff;
pub use session::{CRDT_STREAM, MAX_ITEM_BYTES, MODULE_NAME, PORT_NAME, SAVE, Session};
