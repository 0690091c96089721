//! The connection behind a live session, and connecting without blocking: `connect` runs on a
//! thread of its own (it may wait up to its timeout for a host that never answers), and a
//! connection that is let go is closed on one too (closing waits for acknowledgements), so
//! the window's frame never waits on the network.

use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use scenetree_live::{Backoff, ConnectError, ConnectProgress, LiveConnection, LiveOptions, Notify};

use super::recorder::RecordTo;

/// The most bytes of the host's elements that wait for a session to take them (see
/// [`LiveOptions::incoming_limit`]).
pub const INCOMING_LIMIT: usize = 64 << 20;

/// How a live session connects (and reconnects).
#[derive(Clone, Default)]
pub struct LiveSettings {
    /// Connect to a host that is not this machine (the data layer has no authentication).
    pub allow_remote: bool,
    /// The longest one connection attempt waits for the TCP connection, and then for the
    /// host while it says nothing (`None`: the client's defaults, 5 s and 120 s); the
    /// handshake and the snapshot take as long as the host keeps answering.
    pub connect_timeout: Option<Duration>,
    /// Called from other threads when something arrived or an attempt ended (the window's
    /// repaint request).
    pub notify: Option<Notify>,
    /// Where connection attempts report how far they got (the Connect dialog's line).
    pub progress: Option<ConnectProgress>,
    /// Where the session's recording goes (default: a temporary file of at most 1 GiB).
    pub record: RecordTo,
}

impl std::fmt::Debug for LiveSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSettings")
            .field("allow_remote", &self.allow_remote)
            .field("connect_timeout", &self.connect_timeout)
            .field("record", &self.record)
            .finish_non_exhaustive()
    }
}

impl LiveSettings {
    /// The client's options for these settings.
    pub fn options(&self) -> LiveOptions {
        let mut options = LiveOptions {
            allow_remote: self.allow_remote,
            notify: self.notify.clone(),
            progress: self.progress.clone(),
            // The session says what it took (`traffic.rs`): a host that sends faster than the
            // editor applies waits instead of filling memory.
            incoming_limit: Some(INCOMING_LIMIT),
            ..LiveOptions::default()
        };
        if let Some(timeout) = self.connect_timeout {
            options.connect_timeout = timeout;
            options.stall_timeout = timeout;
        }
        options
    }
}

/// A connection attempt running on its own thread.
#[derive(Debug)]
pub struct Attempt {
    result: Receiver<Result<LiveConnection, ConnectError>>,
}

impl Attempt {
    /// Starts connecting to `url` on a new thread.
    pub fn start(url: &str, settings: &LiveSettings) -> Attempt {
        let (tx, result) = mpsc::channel();
        let url = url.to_owned();
        let options = settings.options();
        let notify = settings.notify.clone();
        let spawned = std::thread::Builder::new()
            .name("scenetree-live-connect".to_owned())
            .spawn(move || {
                let _ = tx.send(LiveConnection::connect(&url, options));
                if let Some(notify) = notify {
                    notify();
                }
            });
        if let Err(e) = spawned {
            // No thread: the attempt reports the failure as its result.
            let (tx, rx) = mpsc::channel();
            let _ = tx.send(Err(ConnectError::Io {
                url: String::new(),
                source: e,
            }));
            return Attempt { result: rx };
        }
        Attempt { result }
    }

    /// The attempt's result once it ended; waits up to `wait` for it.
    pub fn poll(&self, wait: Option<Duration>) -> Option<Result<LiveConnection, ConnectError>> {
        let received = match wait {
            Some(wait) => self.result.recv_timeout(wait).map_err(|e| match e {
                mpsc::RecvTimeoutError::Timeout => TryRecvError::Empty,
                mpsc::RecvTimeoutError::Disconnected => TryRecvError::Disconnected,
            }),
            None => self.result.try_recv(),
        };
        match received {
            Ok(result) => Some(result),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(ConnectError::Io {
                url: String::new(),
                source: std::io::Error::other("the connecting thread ended without an answer"),
            })),
        }
    }
}

/// Where a session's connection stands.
#[derive(Debug)]
pub(super) enum Link {
    /// Open: writes go out, messages come in.
    Connected(LiveConnection),
    /// Reconnecting: an attempt runs on its own thread.
    Connecting(Attempt),
    /// No connection: the next attempt starts at `next_try` (`None`: only when asked).
    Offline { next_try: Option<Instant> },
}

/// The reconnect timing: waits that double from 250 ms to 10 s, reset by a success.
#[derive(Debug, Default)]
pub(super) struct Retry {
    pub backoff: Backoff,
    /// Failed attempts since the connection was lost.
    pub failures: u32,
    /// Why the connection was lost or the last attempt failed.
    pub reason: Option<String>,
}

/// Closes a connection on a thread of its own: closing waits up to 2 s for the host to
/// acknowledge what was sent.
pub(super) fn close_in_background(connection: LiveConnection) {
    let spawned = std::thread::Builder::new()
        .name("scenetree-live-close".to_owned())
        .spawn(move || drop(connection));
    // Without a thread the connection was dropped here already (closing it in this thread).
    drop(spawned);
}
