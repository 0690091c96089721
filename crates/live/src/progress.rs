//! How far a [`crate::LiveConnection::connect`] has got, for a caller on another thread (the
//! app's Connect dialog): the stage, and what the host has sent so far. A large scene's
//! snapshot takes seconds to build and to arrive (8.2 MB for 65,024 entities), so a caller
//! shows that bytes are coming instead of a frozen "connecting…".

use std::fmt;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::error::{ConnectStage, byte_size};
use crate::event::Notify;
use crate::phase::Phase;

/// A handle on a connection attempt's progress: give a clone to
/// [`crate::LiveOptions::progress`] and read [`ConnectProgress::status`] from any thread while
/// `connect` runs (and after it returned). Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct ConnectProgress {
    state: Arc<Mutex<Option<Tracked>>>,
}

/// What a connection attempt had done when [`ConnectProgress::status`] was asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectStatus {
    /// Where the attempt is (the stage it waits in).
    pub stage: ConnectStage,
    /// Bytes received from the host so far (the WebSocket upgrade's answer included).
    pub bytes: u64,
    /// WebSocket messages received from the host so far (the snapshot is one, however large).
    pub messages: u64,
    /// Time since the attempt started.
    pub elapsed: Duration,
    /// Time since the host last sent a byte (since the start while it has sent none).
    pub quiet: Duration,
}

/// The counters behind a [`ConnectProgress`].
#[derive(Clone, Copy, Debug)]
struct Tracked {
    stage: ConnectStage,
    bytes: u64,
    messages: u64,
    started: Instant,
    last_byte: Instant,
    /// When the caller was last told (rate-limits `notify`).
    last_notified: Instant,
}

/// The shortest time between two progress notifications (repaints of a dialog).
const NOTIFY_EVERY: Duration = Duration::from_millis(100);

impl ConnectProgress {
    /// A handle for one attempt (reusable: each `connect` starts it over).
    pub fn new() -> ConnectProgress {
        ConnectProgress::default()
    }

    /// Where the last attempt given this handle stands; `None` before one started.
    pub fn status(&self) -> Option<ConnectStatus> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.map(|t| {
            let now = Instant::now();
            ConnectStatus {
                stage: t.stage,
                bytes: t.bytes,
                messages: t.messages,
                elapsed: now.saturating_duration_since(t.started),
                quiet: now.saturating_duration_since(t.last_byte),
            }
        })
    }

    fn update(&self, change: impl FnOnce(&mut Tracked)) -> Option<Tracked> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let tracked = state.as_mut()?;
        change(tracked);
        Some(*tracked)
    }
}

/// The `connect` side of a [`ConnectProgress`]: counts, and tells the caller now and then.
#[derive(Clone)]
pub(crate) struct Tracker {
    /// The caller's handle, or one of its own (a stalled snapshot's error says how much came).
    progress: ConnectProgress,
    /// Called as the attempt progresses, when the caller asked for progress.
    notify: Option<Notify>,
}

impl Tracker {
    /// Starts tracking an attempt in `progress` (one of its own if the caller gave none).
    pub(crate) fn start(progress: Option<ConnectProgress>, notify: Option<Notify>) -> Tracker {
        let notify = notify.filter(|_| progress.is_some());
        let progress = progress.unwrap_or_default();
        let now = Instant::now();
        *progress
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Tracked {
            stage: ConnectStage::Tcp,
            bytes: 0,
            messages: 0,
            started: now,
            last_byte: now,
            last_notified: now,
        });
        Tracker { progress, notify }
    }

    /// The attempt moved on to `stage`.
    pub(crate) fn stage(&self, stage: ConnectStage) {
        self.record(true, |t| t.stage = stage);
    }

    /// A whole WebSocket message arrived.
    pub(crate) fn message(&self) {
        self.record(false, |t| t.messages += 1);
    }

    fn bytes(&self, n: usize) {
        self.record(false, |t| {
            t.bytes += n as u64;
            t.last_byte = Instant::now();
        });
    }

    /// Bytes received so far.
    pub(crate) fn received(&self) -> u64 {
        self.progress.status().map_or(0, |s| s.bytes)
    }

    fn record(&self, always_notify: bool, change: impl FnOnce(&mut Tracked)) {
        let now = Instant::now();
        let mut tell = false;
        self.progress.update(|t| {
            change(t);
            if always_notify || now.saturating_duration_since(t.last_notified) >= NOTIFY_EVERY {
                t.last_notified = now;
                tell = true;
            }
        });
        if tell && let Some(notify) = &self.notify {
            notify();
        }
    }
}

impl fmt::Display for ConnectStatus {
    /// `waiting for the scene snapshot: 3.1 MB received in 2 messages, 4.2 s` (and how long
    /// the host has been quiet, once that is a second or more).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} received in {} message(s), {:.1} s",
            self.stage,
            byte_size(self.bytes),
            self.messages,
            self.elapsed.as_secs_f64()
        )?;
        if self.quiet >= Duration::from_secs(1) && self.quiet < self.elapsed {
            write!(f, " (nothing for {:.0} s)", self.quiet.as_secs_f64())?;
        }
        Ok(())
    }
}

/// The TCP stream under the WebSocket, counting what it reads into a [`Tracker`] while
/// `connect` runs (the worker stops the counting: a session's traffic is not progress).
pub(crate) struct CountedStream {
    tcp: TcpStream,
    tracker: Option<Tracker>,
}

impl CountedStream {
    pub(crate) fn new(tcp: TcpStream, tracker: Tracker) -> CountedStream {
        CountedStream {
            tcp,
            tracker: Some(tracker),
        }
    }

    /// The socket itself (timeouts, the poller).
    pub(crate) fn tcp(&self) -> &TcpStream {
        &self.tcp
    }

    /// Stops counting: the connection is made.
    pub(crate) fn stop_counting(&mut self) {
        self.tracker = None;
    }
}

impl Read for CountedStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.tcp.read(buf)?;
        if let Some(tracker) = &self.tracker {
            tracker.bytes(n);
        }
        Ok(n)
    }
}

impl Write for CountedStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tcp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tcp.flush()
    }
}

/// True in the phases where the host sends the snapshot: then the wait is for progress, not
/// for an answer.
pub(crate) fn receiving_snapshot(phase: Phase) -> bool {
    matches!(phase, Phase::AwaitingSnapshot | Phase::AwaitingFirstTick)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_read_as_people_write_them() {
        assert_eq!(byte_size(0), "0 bytes");
        assert_eq!(byte_size(999), "999 bytes");
        assert_eq!(byte_size(48_213), "48.2 kB");
        assert_eq!(byte_size(5_912_345), "5.9 MB");
        assert_eq!(byte_size(3_000_000_000), "3.00 GB");
    }

    #[test]
    fn a_status_says_the_stage_what_arrived_and_a_quiet_host() {
        let status = ConnectStatus {
            stage: ConnectStage::Rpc(Phase::AwaitingSnapshot),
            bytes: 3_100_000,
            messages: 5,
            elapsed: Duration::from_millis(4_200),
            quiet: Duration::from_secs(3),
        };
        assert_eq!(
            status.to_string(),
            "waiting for the scene snapshot: 3.1 MB received in 5 message(s), 4.2 s \
             (nothing for 3 s)"
        );
    }

    #[test]
    fn a_tracker_counts_into_the_callers_handle_and_tells_it() {
        let told = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = Arc::clone(&told);
        let notify: Notify = Arc::new(move || {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        let progress = ConnectProgress::new();
        assert_eq!(progress.status(), None, "nothing started yet");
        let tracker = Tracker::start(Some(progress.clone()), Some(notify));
        tracker.stage(ConnectStage::Upgrade);
        tracker.bytes(100);
        tracker.bytes(20);
        tracker.message();
        let status = progress.status().expect("started");
        assert_eq!(status.stage, ConnectStage::Upgrade);
        assert_eq!((status.bytes, status.messages), (120, 1));
        assert_eq!(tracker.received(), 120);
        // A stage change always tells; bytes within 100 ms of it do not.
        assert_eq!(told.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
