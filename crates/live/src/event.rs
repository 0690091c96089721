//! What a [`crate::Session`] reports: what happened ([`LiveEvent`]).

use std::sync::Arc;

use crate::error::{DisconnectReason, RemoteError};

/// A callback called after events are queued, and as a connection attempt progresses (e.g.
/// egui's `request_repaint`), from the connection's threads.
pub type Notify = Arc<dyn Fn() + Send + Sync>;

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
