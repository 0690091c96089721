//! A document fed by a live session with a data layer: starting one, following it, saving
//! through the host, and ending it. The session itself is `live`; this adds what the
//! document does around it (its view, selection and unsaved state follow every poll).

use std::time::{Duration, Instant};

use scenetree_core::crdt::Replica;
use scenetree_live::LiveConnection;

use super::document::Document;
use super::live::{
    LiveError, LiveNote, LiveSaveError, LiveSession, LiveSettings, RecordingSummary,
};
use super::peers::Backend;

impl Document {
    /// A document showing a data layer's scene, over a connection just opened to `url`.
    pub fn from_live(
        url: &str,
        connection: LiveConnection,
        settings: LiveSettings,
    ) -> Result<Document, LiveError> {
        let session = LiveSession::start(url, connection, settings)?;
        Ok(Document::over_session(session))
    }

    /// Connects to `url` and shows its scene (blocks up to the connect timeout; the window
    /// connects on a thread instead).
    pub fn connect_live(url: &str, settings: LiveSettings) -> Result<Document, LiveError> {
        LiveSession::connect(url, settings).map(Document::over_session)
    }

    fn over_session(session: LiveSession) -> Document {
        let mut doc = Document::new(Replica::new(), None);
        doc.set_backend(Backend::Live(Box::new(session)));
        doc.clear_history();
        doc.mark_unmodified();
        doc
    }

    /// The live session, when the document is one.
    pub fn live(&self) -> Option<&LiveSession> {
        match self.backend() {
            Backend::Live(session) => Some(session),
            _ => None,
        }
    }

    fn live_mut(&mut self) -> Option<&mut LiveSession> {
        match self.backend_mut() {
            Backend::Live(session) => Some(session),
            _ => None,
        }
    }

    /// Takes what arrived from the host (waiting up to `wait` when nothing has), sends what
    /// waits, reconnects when due, and brings the view up to date. Returns what the user
    /// should hear about. Nothing for a document that is not live.
    pub fn poll_live(&mut self, wait: Option<Duration>) -> Vec<LiveNote> {
        let Some(session) = self.live_mut() else {
            return Vec::new();
        };
        session.poll(wait);
        let notes = session.take_notes();
        self.refresh();
        notes
    }

    /// Polls until `done` holds for the document or `timeout` passes; false on timeout.
    /// For the command line and tests (the window polls once per frame instead).
    pub fn poll_live_until(
        &mut self,
        timeout: Duration,
        mut done: impl FnMut(&Document) -> bool,
        notes: &mut Vec<LiveNote>,
    ) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if done(self) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            notes.extend(self.poll_live(Some(left.min(Duration::from_millis(50)))));
        }
    }

    /// Asks the host to write main.composite (it owns the file while clients are connected).
    pub fn save_live(&mut self) -> Result<(), LiveSaveError> {
        match self.live_mut() {
            Some(session) => session.save(),
            None => Err(LiveSaveError::NotLive),
        }
    }

    /// Writes the live session's recording so far to `path` (the recording goes on).
    pub fn save_live_recording(
        &mut self,
        path: &std::path::Path,
    ) -> Result<RecordingSummary, String> {
        match self.live_mut() {
            Some(session) => session.save_recording(path),
            None => Err("the document is not live".into()),
        }
    }

    /// Ends the live session's recording (a recording to a file takes its place now).
    pub fn finish_live_recording(&mut self) -> Result<RecordingSummary, String> {
        match self.live_mut() {
            Some(session) => session.finish_recording(),
            None => Err("the document is not live".into()),
        }
    }

    /// Tries to reconnect now instead of waiting for the next attempt.
    pub fn reconnect_live(&mut self) {
        if let Some(session) = self.live_mut() {
            session.reconnect_now();
        }
        self.refresh();
    }

    /// Leaves the live session: the scene stays open as an untitled document (with its undo
    /// history); the connection closes in the background. False when it was not live.
    pub fn end_live(&mut self) -> bool {
        let Some(session) = self.live_mut() else {
            return false;
        };
        let unsent = session.waiting();
        let replica = session.end();
        self.set_backend(Backend::Solo(replica));
        if unsent == 0 {
            // The host holds all of it; writes it never took make the copy modified.
            self.mark_unmodified();
        }
        true
    }

    /// Closes the connection, waiting up to 2 s for the host to acknowledge what was sent
    /// (the command line, before its process ends).
    pub fn close_live_and_wait(&mut self) {
        if let Some(session) = self.live_mut() {
            session.close_and_wait();
        }
    }
}
