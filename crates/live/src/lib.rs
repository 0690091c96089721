#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod connection;
pub mod envelope;
mod error;
mod event;
mod phase;
mod progress;
mod reconnect;
mod session;
mod target;
mod worker;

pub use connection::{LiveConnection, LiveOptions};
pub use error::{
    Call, CloseError, ConnectError, ConnectStage, DisconnectReason, FlushError, FrameError,
    NotConnected, NotOpen, ProtocolError, RemoteError, StreamHalf,
};
pub use event::{LiveEvent, Notify};
pub use phase::Phase;
pub use progress::{ConnectProgress, ConnectStatus};
pub use reconnect::Backoff;
pub use session::{CRDT_STREAM, MAX_ITEM_BYTES, MODULE_NAME, PORT_NAME, SAVE, Session};
