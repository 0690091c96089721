//! What a [`crate::Session`] reports: where it is ([`Phase`]) and what happened ([`LiveEvent`]).

use std::fmt;

use crate::error::{DisconnectReason, RemoteError};

/// Where a [`crate::Session`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Nothing received yet; the host speaks first.
    AwaitingServerReady,
    /// CREATE_PORT sent.
    CreatingPort,
    /// REQUEST_MODULE sent.
    LoadingModule,
    /// The CrdtStream REQUEST sent, its offer not yet received.
    OpeningStream,
    /// The stream is open; its first element, the host's dump of its scene, has not arrived.
    AwaitingSnapshot,
    /// The dump has arrived; the element of the host's first engine tick after our stream
    /// opened, which completes it, has not.
    AwaitingFirstTick,
    /// The snapshot has arrived; writes and incoming messages flow.
    Open,
    /// This side closed the session.
    Closed,
    /// The host broke the protocol; the session is over.
    Failed,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::AwaitingServerReady => "waiting for SERVER_READY",
            Phase::CreatingPort => "creating port scene-ctx",
            Phase::LoadingModule => "loading module DataService",
            Phase::OpeningStream => "opening the CrdtStream",
            Phase::AwaitingSnapshot => "waiting for the scene snapshot",
            Phase::AwaitingFirstTick => "waiting for the host's first tick after the snapshot",
            Phase::Open => "open",
            Phase::Closed => "closed",
            Phase::Failed => "failed",
        })
    }
}

/// What a live session reports, in order.
#[derive(Debug)]
pub enum LiveEvent {
    /// The host's whole scene as SDK7 CRDT messages back to back (PUTs and DELETE_COMPONENT
    /// tombstones): the first two CrdtStream elements, concatenated. The first is the host's
    /// dump of its engine; the second, from the engine tick the host runs when a stream
    /// opens, carries what the host had loaded but not yet committed (after a restart, when
    /// no migration ran, the dump is empty and the whole scene comes in that tick). Always
    /// the first event.
    Snapshot(Vec<u8>),
    /// A later element with CRDT messages from another client or the host itself (never an
    /// echo of our own writes). The host's empty keep-alive elements are not reported.
    Incoming(Vec<u8>),
    /// The host took the element holding `writes` of our writes (a write is one
    /// `send_crdt`); `pending` writes are still unacknowledged, queued ones included.
    Acknowledged {
        /// Writes acknowledged by this ACK.
        writes: usize,
        /// Writes still waiting for an ACK.
        pending: usize,
    },
    /// A `Save` call returned: the host has written main.composite.
    Saved,
    /// The host failed a `Save` call; the connection goes on.
    RemoteError(RemoteError),
    /// The connection ended; always the last event of a [`crate::LiveConnection`] (a bare
    /// [`crate::Session`] never emits it).
    Disconnected(DisconnectReason),
}
