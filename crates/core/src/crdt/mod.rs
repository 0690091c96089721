//! The Decentraland CRDT protocol: message codec, stream reader and the replica with the exact
//! last-writer-wins rules of `@dcl/ecs`; the simulated multi-peer network on top of replicas,
//! and scenario files that script runs of it.

pub mod message;
pub mod network;
pub mod replica;
pub mod scenario;
pub mod stream;

pub use message::{CrdtMessage, MessageType, encode_stream};
pub use network::{
    AutoDelivery, Convergence, DeliveryOrder, DeliveryReport, Event, EventKind, InFlight,
    LocalWrite, MessageFilter, MessageId, MessageKind, Network, NetworkError, Op, PeerId,
    WriteReceipt,
};
pub use replica::{ApplyOutcome, DigestCache, LwwEntry, Replica, ReplicaVersion, WriteError};
pub use scenario::{Scenario, ScenarioAction, ScenarioError, ScenarioPlayer, ScenarioStep};
pub use stream::{
    DecodeError, DecodeErrorKind, DecodedStream, StreamItem, StreamReader, decode_state_stream,
    decode_state_stream_prefix, decode_stream, decode_stream_prefix,
};
