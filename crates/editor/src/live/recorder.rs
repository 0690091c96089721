//! A live session's recording, written to disk as the session goes: the scenario's head (the
//! host's snapshot as `initial`, this editor as peer 1, the host as peer 2) when a connection
//! begins, then one step per message written or arrived, with its writer and time. The
//! session's network keeps no timeline, so this is the only copy: memory holds one step at a
//! time, and saving costs a copy of the file. See [`RecordTo`] for where it goes.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use scenetree_core::crdt::network::{Event, EventKind, Network};
use scenetree_core::crdt::scenario::{Scenario, ScenarioAction, ScenarioStep, ScenarioWriter};
use scenetree_dcl::io::{StreamedFile, WriteConsent};

use super::recording::{Recorded, step_text};
use super::{HOST, THIS_EDITOR};

/// The most a window's recording holds by default (1 GiB): a host that sends without pause
/// would otherwise fill the disk.
pub const SPOOL_LIMIT: u64 = 1 << 30;

/// Where a live session's recording goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordTo {
    /// Nowhere (`scenetree live URL tree`, `run`).
    Off,
    /// A temporary file (deleted with the session) that
    /// [`super::LiveSession::save_recording`] copies; recording stops, and says so, once it
    /// holds `limit` bytes (the window).
    Spool {
        /// The most bytes the file may hold.
        limit: u64,
    },
    /// This file, replaced all or nothing when [`super::LiveSession::finish_recording`] ends
    /// it (`scenetree live URL record`).
    File(PathBuf),
}

impl Default for RecordTo {
    fn default() -> Self {
        RecordTo::Spool { limit: SPOOL_LIMIT }
    }
}

/// What a recording holds so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordingSummary {
    /// Steps written.
    pub steps: u64,
    /// Messages the host wrote (another client's, relayed, or its own): each arrived.
    pub arrived: u64,
    /// Messages this editor wrote.
    pub written: u64,
    /// Bytes of the file so far.
    pub bytes: u64,
    /// Why recording stopped before the session's end (its limit, a failed write), if it did.
    pub stopped: Option<String>,
}

/// A writer that counts what it passes on.
#[derive(Debug)]
struct Counted<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Where the bytes land.
#[derive(Debug)]
enum Sink {
    /// An anonymous temporary file.
    Spool(File),
    /// The temporary beside the target file, renamed over it at the end (boxed: it is large,
    /// and a session has one).
    Target(Box<StreamedFile>),
}

impl Sink {
    fn file(&mut self) -> &mut File {
        match self {
            Sink::Spool(file) => file,
            Sink::Target(streamed) => streamed.file(),
        }
    }
}

/// A recording in progress. See the module documentation.
#[derive(Debug)]
pub(super) struct Recorder {
    sink: Sink,
    /// Writes into a second handle of the sink's file.
    writer: Option<ScenarioWriter<Counted<BufWriter<File>>>>,
    /// The actions of events that do not end a step (ticks), waiting for the next one.
    pending: Vec<ScenarioAction>,
    limit: Option<u64>,
    summary: RecordingSummary,
}

impl Recorder {
    /// Starts a recording of `network` (fresh: its start is the snapshot, nothing happened
    /// yet) as `to` says; `None` for [`RecordTo::Off`].
    pub fn start(to: &RecordTo, head: &Scenario) -> io::Result<Option<Recorder>> {
        let (sink, limit) = match to {
            RecordTo::Off => return Ok(None),
            RecordTo::Spool { limit } => (Sink::Spool(tempfile::tempfile()?), Some(*limit)),
            RecordTo::File(path) => {
                let streamed = StreamedFile::create_with(path, WriteConsent::default())
                    .map_err(|e| io::Error::other(e.reason()))?;
                (Sink::Target(Box::new(streamed)), None)
            }
        };
        let mut recorder = Recorder {
            sink,
            writer: None,
            pending: Vec::new(),
            limit,
            summary: RecordingSummary::default(),
        };
        recorder.restart(head)?;
        Ok(Some(recorder))
    }

    /// Empties the file and starts it again with `head` (a new connection's snapshot).
    pub fn restart(&mut self, head: &Scenario) -> io::Result<()> {
        self.writer = None;
        let file = self.sink.file();
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        let out = Counted {
            inner: BufWriter::new(file.try_clone()?),
            bytes: 0,
        };
        self.pending.clear();
        self.summary = RecordingSummary::default();
        let mut writer = ScenarioWriter::start(head, out)?;
        self.summary.bytes = writer.get_mut().bytes;
        self.writer = Some(writer);
        Ok(())
    }

    /// What it holds so far.
    pub fn summary(&self) -> &RecordingSummary {
        &self.summary
    }

    /// Writes `events` (just taken from `network`, which is in the state after them) as
    /// steps. Returns why recording stopped, the first time it does.
    pub fn record(&mut self, network: &Network, events: &[Event]) -> Option<String> {
        if self.summary.stopped.is_some() {
            return None;
        }
        self.writer.as_ref()?;
        for event in events {
            self.pending.push(ScenarioAction::of_event(&event.kind));
            let Some(text) = step_text(network, event, Recorded::Live) else {
                continue;
            };
            if let EventKind::Write { peer, messages, .. } = &event.kind {
                let count = messages.len() as u64;
                match *peer {
                    THIS_EDITOR => self.summary.written += count,
                    HOST => self.summary.arrived += count,
                    _ => {}
                }
            }
            if let Some(why) = self.write_step(text) {
                return Some(why);
            }
        }
        None
    }

    /// Writes a step of `text` alone (with the actions waiting for a step): something the
    /// session said, at its time in the recording. Returns why recording stopped, the first
    /// time it does.
    pub fn note(&mut self, text: String) -> Option<String> {
        if self.summary.stopped.is_some() || self.writer.is_none() {
            return None;
        }
        self.write_step(text)
    }

    fn write_step(&mut self, text: String) -> Option<String> {
        let writer = self.writer.as_mut()?;
        let step = ScenarioStep {
            text: Some(text),
            actions: std::mem::take(&mut self.pending),
        };
        if let Err(e) = writer.step(&step) {
            return self.stop(format!("writing it failed: {e}"));
        }
        self.summary.steps += 1;
        self.summary.bytes = writer.get_mut().bytes;
        match self.limit {
            Some(limit) if self.summary.bytes >= limit => self.stop(format!(
                "it reached its limit of {} MiB; later messages are not in it",
                limit >> 20
            )),
            _ => None,
        }
    }

    fn stop(&mut self, why: String) -> Option<String> {
        self.summary.stopped = Some(why.clone());
        Some(why)
    }

    /// Copies what was recorded, as a complete scenario file, to `path` (atomically); the
    /// recording goes on. Costs the file's size.
    pub fn copy_to(&mut self, path: &Path) -> io::Result<RecordingSummary> {
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| io::Error::other("no recording"))?;
        writer.get_mut().flush()?;
        let length = writer.get_mut().bytes;
        let mut target = StreamedFile::create_with(path, WriteConsent::default())
            .map_err(|e| io::Error::other(e.reason()))?;
        let source = self.sink.file();
        source.seek(SeekFrom::Start(0))?;
        let copied = io::copy(&mut (&mut *source).take(length), target.file());
        // The writer goes on from the end, whatever the copy did.
        source.seek(SeekFrom::End(0))?;
        copied?;
        let end = ScenarioWriter::<Counted<BufWriter<File>>>::END;
        target.file().write_all(end.as_bytes())?;
        (target.finish().and_then(|prepared| prepared.commit()))
            .map_err(|e| io::Error::other(e.reason()))?;
        Ok(self.summary.clone())
    }

    /// Ends the recording: closes the document and, for [`RecordTo::File`], puts the file in
    /// place of its target.
    pub fn finish(mut self) -> io::Result<RecordingSummary> {
        let writer = self
            .writer
            .take()
            .ok_or_else(|| io::Error::other("no recording"))?;
        let mut out = writer.finish()?;
        out.flush()?;
        self.summary.bytes = out.bytes;
        if let Sink::Target(streamed) = self.sink {
            (streamed.finish().and_then(|prepared| prepared.commit()))
                .map_err(|e| io::Error::other(e.reason()))?;
        }
        Ok(self.summary)
    }
}

impl super::LiveSession {
    /// Takes the network's events since the last call and records them (a session that
    /// records nothing drops them: the network keeps no timeline either way).
    pub(super) fn record_events(&mut self) {
        let events = self.network.take_events();
        if events.is_empty() {
            return;
        }
        if let Some(recorder) = &mut self.recorder
            && let Some(why) = recorder.record(&self.network, &events)
        {
            self.notes.push(super::LiveNote::RecordingStopped(format!(
                "The session recording stopped: {why}."
            )));
        }
    }

    /// Tells the user `note` (a problem with what the host sent) and writes it in the
    /// recording as a step at its time, where the replay shows it.
    pub(super) fn say_problem(&mut self, note: super::LiveNote) {
        if let (Some(recorder), super::LiveNote::Problem(text) | super::LiveNote::Refused(text)) =
            (&mut self.recorder, &note)
        {
            let at = self.network.now() as f64 / 1000.0;
            if let Some(why) = recorder.note(format!("{at:.3} s · {text}")) {
                self.notes.push(super::LiveNote::RecordingStopped(format!(
                    "The session recording stopped: {why}."
                )));
            }
        }
        self.notes.push(note);
    }

    /// A new connection: the recording starts again from its snapshot.
    pub(super) fn restart_recording(&mut self) {
        let head = super::recording_head(&self.network, &self.url, self.connections);
        if let Some(recorder) = &mut self.recorder
            && let Err(e) = recorder.restart(&head)
        {
            self.recorder = None;
            self.notes.push(super::LiveNote::RecordingStopped(format!(
                "The session recording stopped: starting it again after reconnecting failed: {e}."
            )));
        }
    }

    /// What the recording holds so far (`None`: the session records nothing).
    pub fn recording_summary(&self) -> Option<&RecordingSummary> {
        self.recorder.as_ref().map(Recorder::summary)
    }

    /// Writes the recording so far (the session since its last (re)connection) to `path` as a
    /// scenario file the Peers workspace replays; the recording goes on. Costs a copy of it.
    pub fn save_recording(&mut self, path: &Path) -> Result<RecordingSummary, String> {
        self.record_events();
        let recorder = (self.recorder.as_mut()).ok_or("this session records nothing")?;
        recorder
            .copy_to(path)
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Ends the recording (for [`RecordTo::File`], puts the file in its place) and says what
    /// it holds.
    pub fn finish_recording(&mut self) -> Result<RecordingSummary, String> {
        self.record_events();
        let recorder = (self.recorder.take()).ok_or("this session records nothing")?;
        recorder.finish().map_err(|e| e.to_string())
    }
}
