//! What can go wrong, by layer: a frame that does not decode ([`FrameError`]), a host that
//! breaks the protocol ([`ProtocolError`]), a call the host refused ([`RemoteError`]), and the
//! connection's own errors ([`ConnectError`], [`DisconnectReason`], [`NotConnected`],
//! [`FlushError`], [`CloseError`]). Every one names what happened and where; none is a bare
//! string and nothing the host sends can make this crate panic.

use std::fmt;
use std::io;
use std::time::Duration;

use thiserror::Error;

use crate::phase::Phase;

/// A binary frame that is not a message of `@dcl/rpc`'s envelope.
#[derive(Debug, Error)]
pub enum FrameError {
    /// Not protobuf, truncated, or a field of the wrong wire type.
    #[error("a {len}-byte frame is not a valid @dcl/rpc message: {source}")]
    Malformed {
        /// The frame's length in bytes.
        len: usize,
        /// What prost found wrong.
        source: prost::DecodeError,
    },
    /// A message type outside `@dcl/rpc`'s 1–11.
    #[error(
        "a {len}-byte frame has message type {raw_type} (message #{number}), which @dcl/rpc does not define"
    )]
    UnknownType {
        /// The 4-bit type read from the message identifier.
        raw_type: u32,
        /// The message number read from the message identifier.
        number: u32,
        /// The frame's length in bytes.
        len: usize,
    },
    /// A text WebSocket frame where `@dcl/rpc` sends only binary ones.
    #[error("the host sent a {len}-byte text frame; @dcl/rpc sends binary frames only")]
    Text {
        /// The text's length in bytes.
        len: usize,
    },
}

/// A call of this client, named in errors: the two handshake requests and the procedures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Call {
    /// CREATE_PORT `scene-ctx`.
    CreatePort,
    /// REQUEST_MODULE `DataService`.
    RequestModule,
    /// The bidirectional `DataService.CrdtStream`.
    CrdtStream,
    /// The unary `DataService.Save`.
    Save,
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Call::CreatePort => "CREATE_PORT scene-ctx",
            Call::RequestModule => "REQUEST_MODULE DataService",
            Call::CrdtStream => "DataService.CrdtStream",
            Call::Save => "DataService.Save",
        })
    }
}

/// REMOTE_ERROR_RESPONSE: the host refused or failed one of our calls.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("the host failed {call}: {message} (error code {code})")]
pub struct RemoteError {
    /// The call that failed.
    pub call: Call,
    /// The host's error code (`@dcl/rpc` hosts always send 0).
    pub code: u32,
    /// The host's message (the JavaScript error's message).
    pub message: String,
}

/// One direction of the CrdtStream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamHalf {
    /// Host → client: the snapshot, then what other clients and the host write.
    FromHost,
    /// Client → host: our writes.
    ToHost,
}

impl fmt::Display for StreamHalf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StreamHalf::FromHost => "host → client",
            StreamHalf::ToHost => "client → host",
        })
    }
}

/// The host broke the protocol; the session cannot go on.
#[derive(Debug, Error)]
pub enum ProtocolError {
    /// A frame did not decode.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// A host must send SERVER_READY first.
    #[error("the host sent {got} before SERVER_READY")]
    BeforeServerReady {
        /// The type of the frame that came first.
        got: &'static str,
    },
    /// A frame a data layer never sends at this point (or never sends at all).
    #[error("the host sent {got} #{number} while {phase}")]
    Unexpected {
        /// The frame's type.
        got: &'static str,
        /// The frame's message number.
        number: u32,
        /// Where the session was.
        phase: Phase,
    },
    /// A response, stream element or acknowledgement for a message number this session
    /// never used (or has finished with).
    #[error(
        "the host sent {got} for message #{number}, which is no call or stream of this session"
    )]
    UnknownMessageNumber {
        /// The frame's type.
        got: &'static str,
        /// The message number it names.
        number: u32,
    },
    /// REQUEST_MODULE_RESPONSE lacks a procedure this client calls.
    #[error("the host's DataService has no procedure {procedure} (it has: {available})")]
    MissingProcedure {
        /// The procedure looked for.
        procedure: &'static str,
        /// The procedure names the host listed, comma-separated.
        available: String,
    },
    /// A stream element or acknowledgement out of the stop-and-wait order.
    #[error("the host sent sequence {got} on the CrdtStream ({half}) where {expected} was due")]
    Sequence {
        /// Which direction.
        half: StreamHalf,
        /// The sequence number due.
        expected: u32,
        /// The sequence number received.
        got: u32,
    },
    /// A CrdtStream element whose payload is not a `CrdtStreamMessage`.
    #[error("CrdtStream element {sequence} does not hold a CrdtStreamMessage: {source}")]
    Payload {
        /// The element's sequence number.
        sequence: u32,
        /// What prost found wrong.
        source: prost::DecodeError,
    },
    /// The host ended one direction of the CrdtStream.
    #[error("the host closed the CrdtStream ({half})")]
    StreamClosed {
        /// Which direction.
        half: StreamHalf,
    },
    /// The host refused a call the session cannot do without (the handshake, the stream).
    #[error(transparent)]
    Remote(RemoteError),
    /// A frame arrived after the session had ended (closed, or failed before).
    #[error("the session has already ended")]
    Ended,
}

/// [`crate::Session::save`] was asked before the host listed its procedures, or after the
/// session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("cannot call DataService.Save while {phase}")]
pub struct NotOpen {
    /// Where the session was.
    pub phase: Phase,
}

/// How far [`crate::LiveConnection::connect`] got when it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectStage {
    /// Opening the TCP connection.
    Tcp,
    /// The HTTP upgrade to a WebSocket.
    Upgrade,
    /// The `@dcl/rpc` handshake, in this phase.
    Rpc(Phase),
}

impl fmt::Display for ConnectStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectStage::Tcp => f.write_str("connecting"),
            ConnectStage::Upgrade => f.write_str("upgrading to a WebSocket"),
            ConnectStage::Rpc(phase) => phase.fmt(f),
        }
    }
}

/// [`crate::LiveConnection::connect`] failed; nothing is left running.
#[derive(Debug, Error)]
pub enum ConnectError {
    /// Not a `ws://host:port/path` URL.
    #[error("{url:?} is not a data-layer URL: {reason} (expected ws://127.0.0.1:8000/data-layer)")]
    InvalidUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The host is not a loopback address and [`crate::LiveOptions::allow_remote`] is off.
    #[error(
        "refusing to connect to {host}: it is not this machine, and the data layer has no \
         authentication (whoever reaches it can change the scene and the host's files); \
         allow remote hosts explicitly to connect anyway"
    )]
    RemoteNotAllowed {
        /// The URL's host.
        host: String,
    },
    /// The host name did not resolve.
    #[error("cannot resolve {host}: {source}")]
    Resolve {
        /// The URL's host.
        host: String,
        /// The resolver's error.
        source: io::Error,
    },
    /// Nothing accepted the TCP connection (no host running, wrong port).
    #[error("no data layer at {url}: {source}")]
    Unreachable {
        /// The URL.
        url: String,
        /// The connect error of the last address tried.
        source: io::Error,
    },
    /// An HTTP server answered, but did not upgrade `path` to a WebSocket.
    #[error(
        "{url} is not a data layer: the server answered HTTP {status} to the WebSocket upgrade"
    )]
    NotADataLayer {
        /// The URL.
        url: String,
        /// The HTTP status it answered.
        status: u16,
    },
    /// The host did not answer in time: it accepted no connection, or said nothing for a
    /// while at a step of the handshake before the snapshot.
    #[error("{}", timeout_text(url, *stage, *waited))]
    Timeout {
        /// The URL.
        url: String,
        /// What was awaited.
        stage: ConnectStage,
        /// The time allowed: [`crate::LiveOptions::connect_timeout`] for the TCP connection,
        /// else [`crate::LiveOptions::stall_timeout`] of silence.
        waited: Duration,
    },
    /// The host stopped sending while the scene snapshot was awaited or arriving: nothing
    /// came for [`crate::LiveOptions::stall_timeout`].
    #[error(
        "the host at {url} stopped sending while {stage}: nothing arrived for {} after {} \
         from it (a snapshot takes as long as the host keeps sending; it did not)",
        seconds(*waited),
        byte_size(*received)
    )]
    Stalled {
        /// The URL.
        url: String,
        /// What was awaited.
        stage: ConnectStage,
        /// Bytes received from the host before it stopped.
        received: u64,
        /// How long nothing came ([`crate::LiveOptions::stall_timeout`]).
        waited: Duration,
    },
    /// The host closed the connection during the handshake.
    #[error("the host at {url} closed the connection while {stage}")]
    Closed {
        /// The URL.
        url: String,
        /// Where the handshake was.
        stage: ConnectStage,
    },
    /// The WebSocket layer failed (bad upgrade answer, I/O error).
    #[error("WebSocket error with {url} while {stage}: {source}")]
    WebSocket {
        /// The URL.
        url: String,
        /// Where the handshake was.
        stage: ConnectStage,
        /// tungstenite's error.
        source: tungstenite::Error,
    },
    /// The host broke the `@dcl/rpc` protocol during the handshake.
    #[error("the host at {url} broke the data-layer protocol: {source}")]
    Protocol {
        /// The URL.
        url: String,
        /// What it did.
        source: ProtocolError,
    },
    /// The host refused a handshake call (e.g. it has no `DataService`).
    #[error("the host at {url} refused the connection: {source}")]
    Remote {
        /// The URL.
        url: String,
        /// The host's error.
        source: RemoteError,
    },
    /// A local I/O error (socket options, starting the worker thread).
    #[error("cannot set up the connection to {url}: {source}")]
    Io {
        /// The URL.
        url: String,
        /// The error.
        source: io::Error,
    },
}

/// Why a live connection ended ([`crate::LiveEvent::Disconnected`]).
#[derive(Debug, Error)]
pub enum DisconnectReason {
    /// This side closed it ([`crate::LiveConnection::close`] or drop).
    #[error("the connection was closed by this client")]
    ClosedHere,
    /// The host closed the WebSocket, or the connection dropped without a close (host killed).
    #[error("the host closed the connection{}", describe_close(*.code, .reason))]
    HostClosed {
        /// The WebSocket close code, if the host sent one.
        code: Option<u16>,
        /// The close reason it sent, or what happened instead.
        reason: String,
    },
    /// The host broke the protocol.
    #[error("the host broke the data-layer protocol: {0}")]
    Protocol(#[from] ProtocolError),
    /// The WebSocket or the socket failed.
    #[error("the connection failed: {0}")]
    Transport(tungstenite::Error),
}

/// A byte count as people read it: `512 bytes`, `48.2 kB`, `5.9 MB` (powers of 1,000).
pub(crate) fn byte_size(bytes: u64) -> String {
    match bytes {
        0..1_000 => format!("{bytes} bytes"),
        1_000..1_000_000 => format!("{:.1} kB", bytes as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", bytes as f64 / 1e6),
        _ => format!("{:.2} GB", bytes as f64 / 1e9),
    }
}

/// A duration in a message: `5 s`, `0.3 s`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

/// What [`ConnectError::Timeout`] says: what did not come, and, while nothing has shown the
/// server to be a data layer (no answer to the upgrade, no SERVER_READY), whether it is one.
fn timeout_text(url: &str, stage: ConnectStage, waited: Duration) -> String {
    let waited = seconds(waited);
    let is_it = "is it a Decentraland data layer (sdk-commands start --data-layer)?";
    match stage {
        ConnectStage::Tcp => {
            format!("the host at {url} did not accept a connection within {waited}")
        }
        ConnectStage::Upgrade => format!(
            "the host at {url} accepted the connection but did not answer the WebSocket \
             upgrade: nothing for {waited}: {is_it}"
        ),
        ConnectStage::Rpc(Phase::AwaitingServerReady) => format!(
            "the host at {url} opened a WebSocket but did not answer: nothing for {waited} \
             ({stage}): {is_it}"
        ),
        ConnectStage::Rpc(_) => format!(
            "the host at {url} stopped answering the handshake: nothing for {waited} ({stage})"
        ),
    }
}

fn describe_close(code: Option<u16>, reason: &str) -> String {
    match (code, reason.is_empty()) {
        (Some(code), true) => format!(" (code {code})"),
        (Some(code), false) => format!(" (code {code}: {reason})"),
        (None, true) => String::new(),
        (None, false) => format!(" ({reason})"),
    }
}

/// A write or a save was asked of a connection that has ended; nothing was queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("not connected to the data layer: nothing was sent")]
pub struct NotConnected;

/// [`crate::LiveConnection::wait_acknowledged`] gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum FlushError {
    /// The time ran out first.
    #[error("{pending} writes were still unacknowledged after {waited:?}")]
    Timeout {
        /// Writes still unacknowledged.
        pending: usize,
        /// The time waited.
        waited: Duration,
    },
    /// The connection ended first.
    #[error("the connection ended with {pending} writes unacknowledged")]
    Disconnected {
        /// Writes the host never acknowledged.
        pending: usize,
    },
}

/// [`crate::LiveConnection::close`] closed, but some writes were never acknowledged by the host
/// (they may or may not have been applied).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("closed with {pending} writes the host never acknowledged")]
pub struct CloseError {
    /// Writes the host never acknowledged.
    pub pending: usize,
}
