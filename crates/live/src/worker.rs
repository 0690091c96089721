//! The worker thread of a [`crate::LiveConnection`]: it owns the non-blocking WebSocket and
//! the [`Session`], and sleeps on a [`Poller`] that wakes it when the host sends something or
//! when the app queues a command (`Poller::notify`), so it neither spins nor adds a polling
//! delay to a write.

use std::io;
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use polling::{Event, Events, Poller};
use tungstenite::protocol::CloseFrame;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::{Message, WebSocket};

use crate::error::{DisconnectReason, FrameError, ProtocolError};
use crate::event::{LiveEvent, Notify};
use crate::progress::CountedStream;
use crate::session::Session;

/// What the app and the worker both see.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    state: Mutex<SharedState>,
    pub(crate) changed: Condvar,
}

#[derive(Debug, Default)]
pub(crate) struct SharedState {
    /// Writes queued by the app and not yet acknowledged by the host.
    pub pending: usize,
    /// The worker is running (the connection has not ended).
    pub running: bool,
}

impl Shared {
    /// The state, even if a thread panicked while holding it (it holds two counters).
    pub(crate) fn lock(&self) -> MutexGuard<'_, SharedState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes whoever waits in [`crate::LiveConnection::wait_acknowledged`].
    pub(crate) fn changed(&self) {
        self.changed.notify_all();
    }
}

/// The poller key of the socket (the only source; wake-ups come through `notify`).
pub(crate) const SOCKET_KEY: usize = 0;

/// How long to wait for the host's answer to our WebSocket close before dropping the socket.
const CLOSE_GRACE: Duration = Duration::from_millis(500);

/// What the app asks of the worker.
#[derive(Debug)]
pub(crate) enum Command {
    /// Queue CRDT bytes.
    Write(Vec<u8>),
    /// Call `DataService.Save`.
    Save,
    /// Close once the queued writes are acknowledged, or at `deadline`.
    Close { deadline: Instant },
    /// The app took this many bytes of the host's elements.
    Took(usize),
}

/// Where a close is.
#[derive(Clone, Copy, Debug)]
enum Closing {
    /// Waiting for queued writes to be acknowledged, until `deadline`.
    Draining { deadline: Instant },
    /// The session and the WebSocket close are sent; waiting for the host's close frame.
    Handshake { deadline: Instant },
}

pub(crate) struct Worker {
    ws: WebSocket<CountedStream>,
    session: Session,
    poller: Arc<Poller>,
    commands: Receiver<Command>,
    events: Sender<LiveEvent>,
    shared: Arc<Shared>,
    notify: Option<Notify>,
    closing: Option<Closing>,
    /// The socket refused part of a write: wait for it to become writable too.
    want_write: bool,
}

impl Worker {
    /// A worker for a WebSocket whose socket is non-blocking and registered in `poller`.
    pub(crate) fn new(
        ws: WebSocket<CountedStream>,
        session: Session,
        poller: Arc<Poller>,
        commands: Receiver<Command>,
        events: Sender<LiveEvent>,
        shared: Arc<Shared>,
        notify: Option<Notify>,
    ) -> Worker {
        Worker {
            ws,
            session,
            poller,
            commands,
            events,
            shared,
            notify,
            closing: None,
            want_write: false,
        }
    }

    /// Serves until the connection ends, then reports why ([`LiveEvent::Disconnected`]).
    pub(crate) fn run(mut self) {
        let reason = self.serve();
        if !matches!(reason, DisconnectReason::ClosedHere) {
            // Tell the host why, if the socket still takes it; it is going away either way.
            let code = match reason {
                DisconnectReason::Protocol(_) => CloseCode::Protocol,
                _ => CloseCode::Away,
            };
            let frame = CloseFrame {
                code,
                reason: "".into(),
            };
            let _ = self.ws.close(Some(frame));
        }
        self.shared.lock().running = false;
        self.shared.changed();
        // The app may have stopped listening; there is nobody else to tell.
        let _ = self.events.send(LiveEvent::Disconnected(reason));
        if let Some(notify) = &self.notify {
            notify();
        }
    }

    fn serve(&mut self) -> DisconnectReason {
        let mut ready = Events::new();
        loop {
            if let Err(reason) = self.turn() {
                return reason;
            }
            let socket = self.ws.get_ref().tcp();
            let interest = if self.want_write {
                Event::all(SOCKET_KEY)
            } else {
                Event::readable(SOCKET_KEY)
            };
            if let Err(e) = self.poller.modify(socket, interest) {
                return DisconnectReason::Transport(tungstenite::Error::Io(e));
            }
            let timeout = self.closing.map(|closing| match closing {
                Closing::Draining { deadline } | Closing::Handshake { deadline } => {
                    deadline.saturating_duration_since(Instant::now())
                }
            });
            ready.clear();
            match self.poller.wait(&mut ready, timeout) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return DisconnectReason::Transport(tungstenite::Error::Io(e)),
            }
        }
    }

    /// One pass: commands in, frames in, frames out, events out.
    fn turn(&mut self) -> Result<(), DisconnectReason> {
        self.take_commands();
        self.read()?;
        self.advance_close()?;
        self.transmit()?;
        self.forward_events();
        Ok(())
    }

    fn take_commands(&mut self) {
        loop {
            match self.commands.try_recv() {
                // A write or save after the session closed is dropped; `pending` keeps counting
                // the write, which is what the app needs to know.
                Ok(Command::Write(bytes)) => {
                    let _ = self.session.send_crdt(bytes);
                }
                Ok(Command::Save) => {
                    let _ = self.session.save();
                }
                Ok(Command::Close { deadline }) => self.begin_close(deadline),
                Ok(Command::Took(bytes)) => self.session.took(bytes),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.begin_close(Instant::now());
                    break;
                }
            }
        }
    }

    fn begin_close(&mut self, deadline: Instant) {
        if self.closing.is_none() {
            self.closing = Some(Closing::Draining { deadline });
        }
    }

    /// Closes the session once nothing is left to acknowledge (or time is up), then the
    /// WebSocket; ends the worker when the host has not answered the close in time.
    fn advance_close(&mut self) -> Result<(), DisconnectReason> {
        let now = Instant::now();
        match self.closing {
            Some(Closing::Draining { deadline })
                if self.session.pending() == 0 || now >= deadline =>
            {
                self.session.close();
                self.transmit()?;
                match self.ws.close(None) {
                    Ok(()) => {}
                    Err(tungstenite::Error::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {
                        self.want_write = true;
                    }
                    Err(e) => return Err(self.lost(e)),
                }
                self.closing = Some(Closing::Handshake {
                    deadline: now + CLOSE_GRACE,
                });
                Ok(())
            }
            Some(Closing::Handshake { deadline }) if now >= deadline => {
                Err(DisconnectReason::ClosedHere)
            }
            _ => Ok(()),
        }
    }

    /// Reads every frame the socket has, until it would block.
    fn read(&mut self) -> Result<(), DisconnectReason> {
        let closed_here = matches!(self.closing, Some(Closing::Handshake { .. }));
        loop {
            match self.ws.read() {
                // After our close the session is over: late frames are dropped.
                Ok(Message::Binary(_) | Message::Text(_)) if closed_here => {}
                Ok(Message::Binary(frame)) => self.session.receive(&frame)?,
                Ok(Message::Text(text)) => {
                    let error = FrameError::Text { len: text.len() };
                    return Err(ProtocolError::from(error).into());
                }
                Ok(Message::Close(frame)) => {
                    // Sends tungstenite's queued answer to the close; the host leaves anyway.
                    let _ = self.ws.flush();
                    if closed_here {
                        return Err(DisconnectReason::ClosedHere);
                    }
                    return Err(DisconnectReason::HostClosed {
                        code: frame.as_ref().map(|f| u16::from(f.code)),
                        reason: frame.map(|f| f.reason.to_string()).unwrap_or_default(),
                    });
                }
                // tungstenite answers pings itself.
                Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => {}
                Err(tungstenite::Error::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {
                    return Ok(());
                }
                Err(tungstenite::Error::Io(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.lost(e)),
            }
        }
    }

    /// Writes every frame the session has queued, then flushes as far as the socket takes.
    fn transmit(&mut self) -> Result<(), DisconnectReason> {
        while let Some(frame) = self.session.poll_transmit() {
            match self.ws.write(Message::binary(frame)) {
                Ok(()) => {}
                // The frame is buffered by tungstenite and goes out with a later flush.
                Err(tungstenite::Error::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(self.lost(e)),
            }
        }
        match self.ws.flush() {
            Ok(()) => self.want_write = false,
            Err(tungstenite::Error::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {
                self.want_write = true;
            }
            Err(e) => return Err(self.lost(e)),
        }
        Ok(())
    }

    /// Hands the session's events to the app, with `pending` counted across both threads.
    fn forward_events(&mut self) {
        let mut any = false;
        while let Some(event) = self.session.poll_event() {
            let event = match event {
                LiveEvent::Acknowledged { writes, .. } => {
                    let pending = {
                        let mut state = self.shared.lock();
                        state.pending = state.pending.saturating_sub(writes);
                        state.pending
                    };
                    self.shared.changed();
                    LiveEvent::Acknowledged { writes, pending }
                }
                other => other,
            };
            let _ = self.events.send(event);
            any = true;
        }
        if any && let Some(notify) = &self.notify {
            notify();
        }
    }

    /// Why a WebSocket error ended the connection: the host went away, or the socket failed.
    fn lost(&self, error: tungstenite::Error) -> DisconnectReason {
        use tungstenite::Error as E;
        if matches!(self.closing, Some(Closing::Handshake { .. })) {
            return DisconnectReason::ClosedHere;
        }
        let dropped = DisconnectReason::HostClosed {
            code: None,
            reason: "the connection dropped without a WebSocket close".to_owned(),
        };
        match error {
            E::ConnectionClosed | E::AlreadyClosed => DisconnectReason::HostClosed {
                code: None,
                reason: String::new(),
            },
            E::Protocol(tungstenite::error::ProtocolError::ResetWithoutClosingHandshake) => dropped,
            E::Io(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionReset
                        | io::ErrorKind::ConnectionAborted
                        | io::ErrorKind::UnexpectedEof
                        | io::ErrorKind::BrokenPipe
                ) =>
            {
                dropped
            }
            other => DisconnectReason::Transport(other),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Required before the socket is dropped (see the `Poller::add` in `connect`).
        let _ = self.poller.delete(self.ws.get_ref().tcp());
    }
}
