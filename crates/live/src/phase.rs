//! Where a session stands in the handshake and after it.

use std::fmt;

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
