//! [`LiveConnection`]: a [`Session`] driven over a WebSocket by a worker thread. `connect`
//! does the whole handshake on the caller's thread, so a wrong URL, a host that never answers
//! or a server that is not a data layer fail there with a clear error. Past the TCP connection
//! it limits only silence, never the whole: a host builds a large scene's snapshot for seconds,
//! answering nobody meanwhile, and a [`ConnectProgress`] shows how far it got. Then a worker
//! owns the socket and the session, and the app talks to it through channels.

use std::fmt;
use std::io;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use polling::{Event, Poller};
use tungstenite::handshake::HandshakeError;
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

use crate::error::{
    CloseError, ConnectError, ConnectStage, FlushError, FrameError, NotConnected, ProtocolError,
};
use crate::event::{LiveEvent, Notify};
use crate::phase::Phase;
use crate::progress::{ConnectProgress, CountedStream, Tracker, receiving_snapshot};
use crate::session::Session;
use crate::target::{self, Target};
use crate::worker::{Command, SOCKET_KEY, Shared, Worker};

/// The largest WebSocket message (and frame) accepted from the host, in bytes: a whole
/// scene's snapshot comes as one frame, and tungstenite's default frame limit (16 MiB) is
/// smaller than a large scene.
const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// How to connect.
#[derive(Clone)]
pub struct LiveOptions {
    /// The longest `connect` waits for the TCP connection to open. Default 5 s.
    pub connect_timeout: Duration,
    /// From then on, the longest the host may send nothing while `connect` waits for it: for
    /// the answer to the WebSocket upgrade, each answer of the handshake, and the scene's
    /// snapshot. Nothing limits the whole, and this is generous, because the host answers
    /// nobody while it builds a snapshot: for the 65,024-entity example (the most entities a
    /// scene holds) it was silent 6–13 s, and 60–64 s on 2 cores at load average 13, then
    /// sent 8.2 MB within 2 s; a client connecting meanwhile waits as long for the answer to
    /// its upgrade. Default 120 s.
    pub stall_timeout: Duration,
    /// The longest `close` (or drop) waits for queued writes to be acknowledged before it
    /// closes anyway. Default 2 s.
    pub close_timeout: Duration,
    /// Connect to a host that is not this machine. Off by default: the data layer has no
    /// authentication, so whoever reaches it can read and change the scene and the host's
    /// files; turn it on only when the user asked for that host explicitly.
    pub allow_remote: bool,
    /// Called from the worker thread after it queues one or more events, and, when
    /// `progress` is given, from the connecting thread as it progresses (at most every 100 ms).
    pub notify: Option<Notify>,
    /// Where `connect` reports how far it got (stage, bytes and messages received), to read
    /// from another thread meanwhile (a Connect dialog's progress line).
    pub progress: Option<ConnectProgress>,
    /// The most bytes of the host's elements that may wait for the app: beyond it the host
    /// gets no credit for its next element until the app says it took them
    /// ([`LiveConnection::took`]). `None` (the default): no limit, and no need to say.
    pub incoming_limit: Option<usize>,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            connect_timeout: Duration::from_secs(5),
            stall_timeout: Duration::from_secs(120),
            close_timeout: Duration::from_secs(2),
            allow_remote: false,
            notify: None,
            progress: None,
            incoming_limit: None,
        }
    }
}

impl fmt::Debug for LiveOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveOptions")
            .field("connect_timeout", &self.connect_timeout)
            .field("stall_timeout", &self.stall_timeout)
            .field("close_timeout", &self.close_timeout)
            .field("allow_remote", &self.allow_remote)
            .field("notify", &self.notify.is_some())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// A live connection to a Decentraland data layer (`sdk-commands start --data-layer`),
/// carrying SDK7 CRDT bytes both ways. Dropping it closes it cleanly (see
/// [`LiveConnection::close`]).
pub struct LiveConnection {
    url: String,
    commands: Sender<Command>,
    events: Receiver<LiveEvent>,
    poller: Arc<Poller>,
    shared: Arc<Shared>,
    worker: Option<JoinHandle<()>>,
    close_timeout: Duration,
}

impl fmt::Debug for LiveConnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveConnection")
            .field("url", &self.url)
            .field("pending_acks", &self.pending_acks())
            .field("connected", &self.is_connected())
            .finish()
    }
}

impl LiveConnection {
    /// Connects to `url` (e.g. `ws://127.0.0.1:8000/data-layer`) within
    /// `options.connect_timeout`, then does the handshake and receives the snapshot for as
    /// long as the host is not silent for `options.stall_timeout`, reporting to
    /// `options.progress`. On success the host's snapshot is already the first of
    /// [`LiveConnection::events`].
    pub fn connect(url: &str, options: LiveOptions) -> Result<LiveConnection, ConnectError> {
        let tracker = Tracker::start(options.progress.clone(), options.notify.clone());
        let deadline = Instant::now() + options.connect_timeout;
        let target = target::resolve(url, options.allow_remote)?;
        let io_error = |source| ConnectError::Io {
            url: url.to_owned(),
            source,
        };
        let stream = connect_tcp(&target, deadline, options.connect_timeout)?;
        // Frames are small and latency matters more than packet count.
        stream.set_nodelay(true).map_err(io_error)?;
        // Each read and write may wait this long: a limit on silence, not on the whole.
        let stall = Some(options.stall_timeout);
        (stream.set_read_timeout(stall))
            .and_then(|()| stream.set_write_timeout(stall))
            .map_err(io_error)?;
        tracker.stage(ConnectStage::Upgrade);
        let stream = CountedStream::new(stream, tracker.clone());
        let mut ws = upgrade(&target, stream, options.stall_timeout)?;
        let mut session = Session::new();
        session.set_incoming_limit(options.incoming_limit);
        let (event_tx, events) = mpsc::channel();
        handshake(
            &target,
            &mut ws,
            &mut session,
            options.stall_timeout,
            &tracker,
        )?;
        while let Some(event) = session.poll_event() {
            let _ = event_tx.send(event);
        }
        ws.get_mut().stop_counting();

        // From here the worker waits on the poller for socket input and for commands.
        let socket = ws.get_ref().tcp();
        socket.set_read_timeout(None).map_err(io_error)?;
        socket.set_write_timeout(None).map_err(io_error)?;
        socket.set_nonblocking(true).map_err(io_error)?;
        let poller = Arc::new(Poller::new().map_err(io_error)?);
        // SAFETY: the socket is deleted from the poller before it is dropped: the worker owns
        // it from here on and deletes it in its Drop (and `Worker::new` is infallible).
        #[allow(unsafe_code)]
        unsafe {
            poller
                .add(socket, Event::readable(SOCKET_KEY))
                .map_err(io_error)?;
        }
        let shared = Arc::new(Shared::default());
        shared.lock().running = true;
        let (commands, command_rx) = mpsc::channel();
        let worker = Worker::new(
            ws,
            session,
            Arc::clone(&poller),
            command_rx,
            event_tx,
            Arc::clone(&shared),
            options.notify.clone(),
        );
        let handle = std::thread::Builder::new()
            .name("scenetree-live".to_owned())
            .spawn(move || worker.run());
        let handle = match handle {
            Ok(handle) => handle,
            Err(source) => return Err(io_error(source)),
        };
        if let Some(notify) = &options.notify {
            notify();
        }
        Ok(LiveConnection {
            url: url.to_owned(),
            commands,
            events,
            poller,
            shared,
            worker: Some(handle),
            close_timeout: options.close_timeout,
        })
    }

    /// The URL this connection was made to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Queues a write: SDK7 CRDT messages back to back, sent as they are (this crate does not
    /// look inside; the app must only send values the host can decode, see the crate docs).
    /// Writes go out one stream element per credit, with everything queued since batched
    /// into it, and are acknowledged in order. Empty writes are ignored.
    pub fn send_crdt(&self, bytes: Vec<u8>) -> Result<(), NotConnected> {
        if bytes.is_empty() {
            return Ok(());
        }
        {
            let mut state = self.shared.lock();
            if !state.running {
                return Err(NotConnected);
            }
            state.pending += 1;
        }
        if self.commands.send(Command::Write(bytes)).is_err() {
            self.shared.lock().pending -= 1;
            return Err(NotConnected);
        }
        // A failed wake-up only delays the write to the next socket event; nothing to report.
        let _ = self.poller.notify();
        Ok(())
    }

    /// Asks the host to write main.composite now (`DataService.Save`), including every write
    /// queued before: the call waits for their acknowledgement. Answered by
    /// [`LiveEvent::Saved`] or [`LiveEvent::RemoteError`].
    pub fn save(&self) -> Result<(), NotConnected> {
        if !self.shared.lock().running || self.commands.send(Command::Save).is_err() {
            return Err(NotConnected);
        }
        let _ = self.poller.notify();
        Ok(())
    }

    /// What happened, in order: [`LiveEvent::Snapshot`] first, [`LiveEvent::Disconnected`]
    /// last. Poll it with `try_recv` (e.g. once per UI frame) or block on it. Without an
    /// [`LiveOptions::incoming_limit`], events queue without bound (the host's elements are
    /// acknowledged as they arrive), so read them; with one, say what was taken.
    pub fn events(&self) -> &Receiver<LiveEvent> {
        &self.events
    }

    /// Says that the app took `bytes` of the host's elements (an [`LiveEvent::Incoming`]'s
    /// data) off [`Self::events`]: with an [`LiveOptions::incoming_limit`], the host gets its
    /// next credit once what waits is within it.
    pub fn took(&self, bytes: usize) {
        if self.commands.send(Command::Took(bytes)).is_ok() {
            // A failed wake-up only delays the credit to the next socket event.
            let _ = self.poller.notify();
        }
    }

    /// Writes queued with [`LiveConnection::send_crdt`] that the host has not acknowledged yet.
    pub fn pending_acks(&self) -> usize {
        self.shared.lock().pending
    }

    /// False once the connection has ended (the host left, or a protocol or socket error);
    /// [`LiveEvent::Disconnected`] says why.
    pub fn is_connected(&self) -> bool {
        self.shared.lock().running
    }

    /// Blocks until every write so far is acknowledged, the connection ends, or `timeout`.
    pub fn wait_acknowledged(&self, timeout: Duration) -> Result<(), FlushError> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        loop {
            if state.pending == 0 {
                return Ok(());
            }
            if !state.running {
                return Err(FlushError::Disconnected {
                    pending: state.pending,
                });
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(FlushError::Timeout {
                    pending: state.pending,
                    waited: timeout,
                });
            }
            state = match self.shared.changed.wait_timeout(state, deadline - now) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Closes cleanly: waits up to [`LiveOptions::close_timeout`] for queued writes to be
    /// acknowledged, closes both stream directions, destroys the port, closes the WebSocket
    /// and joins the worker. Fails only to report writes that were never acknowledged.
    pub fn close(mut self) -> Result<(), CloseError> {
        match self.shutdown() {
            0 => Ok(()),
            pending => Err(CloseError { pending }),
        }
    }

    /// Stops the worker (if running) and returns the writes left unacknowledged.
    fn shutdown(&mut self) -> usize {
        if let Some(worker) = self.worker.take() {
            let deadline = Instant::now() + self.close_timeout;
            if self.commands.send(Command::Close { deadline }).is_ok() {
                let _ = self.poller.notify();
            }
            // The worker never panics by design; if it did, its state is gone either way.
            let _ = worker.join();
        }
        self.shared.lock().pending
    }
}

impl Drop for LiveConnection {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Opens the TCP connection to the first target address that accepts.
fn connect_tcp(
    target: &Target,
    deadline: Instant,
    allowed: Duration,
) -> Result<TcpStream, ConnectError> {
    let mut last_error = io::Error::new(io::ErrorKind::NotFound, "no address to connect to");
    for addr in &target.addrs {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            break;
        }
        match TcpStream::connect_timeout(addr, remaining) {
            Ok(stream) => return Ok(stream),
            Err(e) => last_error = e,
        }
    }
    if last_error.kind() == io::ErrorKind::TimedOut || Instant::now() >= deadline {
        return Err(ConnectError::Timeout {
            url: target.url.clone(),
            stage: ConnectStage::Tcp,
            waited: allowed,
        });
    }
    Err(ConnectError::Unreachable {
        url: target.url.clone(),
        source: last_error,
    })
}

/// The HTTP upgrade to a WebSocket, on a socket whose reads wait at most `stall`.
fn upgrade(
    target: &Target,
    stream: CountedStream,
    stall: Duration,
) -> Result<WebSocket<CountedStream>, ConnectError> {
    let stage = ConnectStage::Upgrade;
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES));
    match tungstenite::client::client_with_config(target.url.as_str(), stream, Some(config)) {
        Ok((ws, _response)) => Ok(ws),
        // A read timeout surfaces as WouldBlock, which tungstenite reports as an interruption.
        Err(HandshakeError::Interrupted(_)) => Err(ConnectError::Timeout {
            url: target.url.clone(),
            stage,
            waited: stall,
        }),
        Err(HandshakeError::Failure(tungstenite::Error::Http(response))) => {
            Err(ConnectError::NotADataLayer {
                url: target.url.clone(),
                status: response.status().as_u16(),
            })
        }
        Err(HandshakeError::Failure(source)) => Err(transport_error(target, stage, stall, source)),
    }
}

/// The `@dcl/rpc` handshake through the snapshot, on a socket whose reads wait at most
/// `stall`: it takes as long as the host keeps answering.
fn handshake(
    target: &Target,
    ws: &mut WebSocket<CountedStream>,
    session: &mut Session,
    stall: Duration,
    tracker: &Tracker,
) -> Result<(), ConnectError> {
    let protocol = |source| ConnectError::Protocol {
        url: target.url.clone(),
        source,
    };
    let mut reported = None;
    while session.phase() != Phase::Open {
        let stage = ConnectStage::Rpc(session.phase());
        if reported != Some(stage) {
            tracker.stage(stage);
            reported = Some(stage);
        }
        let frame = match ws.read() {
            Ok(Message::Binary(frame)) => {
                tracker.message();
                frame
            }
            Ok(Message::Text(text)) => {
                let len = text.len();
                return Err(protocol(FrameError::Text { len }.into()));
            }
            Ok(Message::Close(_)) => {
                return Err(ConnectError::Closed {
                    url: target.url.clone(),
                    stage,
                });
            }
            Ok(_) => continue,
            // The snapshot's silence is told apart: bytes of it may have come.
            Err(e) if receiving_snapshot(session.phase()) && is_timeout(&e) => {
                return Err(ConnectError::Stalled {
                    url: target.url.clone(),
                    stage,
                    received: tracker.received(),
                    waited: stall,
                });
            }
            Err(e) => return Err(transport_error(target, stage, stall, e)),
        };
        match session.receive(&frame) {
            Ok(()) => {}
            Err(ProtocolError::Remote(source)) => {
                return Err(ConnectError::Remote {
                    url: target.url.clone(),
                    source,
                });
            }
            Err(e) => return Err(protocol(e)),
        }
        while let Some(out) = session.poll_transmit() {
            if let Err(e) = ws.send(Message::binary(out)) {
                return Err(transport_error(target, stage, stall, e));
            }
        }
    }
    Ok(())
}

/// A read or write that waited out the socket's timeout.
fn is_timeout(error: &tungstenite::Error) -> bool {
    matches!(
        error,
        tungstenite::Error::Io(e)
            if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
    )
}

/// A tungstenite error during `connect`, told apart: a timeout, the host leaving, or else.
fn transport_error(
    target: &Target,
    stage: ConnectStage,
    allowed: Duration,
    error: tungstenite::Error,
) -> ConnectError {
    use tungstenite::Error as E;
    let url = target.url.clone();
    match error {
        E::Io(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            ConnectError::Timeout {
                url,
                stage,
                waited: allowed,
            }
        }
        E::ConnectionClosed
        | E::AlreadyClosed
        | E::Protocol(tungstenite::error::ProtocolError::ResetWithoutClosingHandshake) => {
            ConnectError::Closed { url, stage }
        }
        E::Io(e)
            if matches!(
                e.kind(),
                io::ErrorKind::ConnectionReset
                    | io::ErrorKind::ConnectionAborted
                    | io::ErrorKind::UnexpectedEof
                    | io::ErrorKind::BrokenPipe
            ) =>
        {
            ConnectError::Closed { url, stage }
        }
        source => ConnectError::WebSocket { url, stage, source },
    }
}
