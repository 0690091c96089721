//! Termination signals (SIGTERM at logout or from `kill`, SIGHUP when the terminal goes,
//! SIGINT from Ctrl+C in it). By default they end the process at once, losing the edits made
//! since the last autosave (up to 2 s of them). Instead the editor writes the unsaved work for
//! recovery and closes without asking, since nobody may be there to answer; the next start
//! offers the work back, as after a crash. A second signal ends the process at once, so a
//! frame that never comes cannot make the editor unkillable.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::ScenetreeApp;

impl ScenetreeApp {
    /// The flag a termination signal sets; the next frame ends the editor (see the module
    /// docs). Tests set it by hand.
    pub fn termination_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.closing.signal)
    }

    /// What must happen even while no frame is drawn (the window covered or minimized): a
    /// termination signal writes the unsaved work and closes the window.
    pub fn logic_without_ui(&mut self, ctx: &egui::Context) {
        self.end_on_signal();
        if self.closing.allowed && !std::mem::replace(&mut self.closing.sent, true) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    /// Once the flag is set: writes the unsaved work for recovery now (not after the usual
    /// rest), keeps it past the exit, and closes the window.
    pub(super) fn end_on_signal(&mut self) {
        if self.closing.on_signal || !self.closing.signal.load(Ordering::SeqCst) {
            return;
        }
        self.closing.on_signal = true;
        let doc = &self.bench.doc;
        if doc.is_modified() && !self.autosave.holds(doc.replica().version()) {
            let written = (self.autosave).write_now(doc, &super::autosave::work_origin(doc));
            if let Err(e) = &written {
                // Nobody may see the status bar now; the log may reach the session's.
                log::error!("autosave on termination failed: {e}");
            }
            self.report_autosave(written);
        }
        self.closing.allowed = true;
    }
}

/// Sets `flag` and wakes the window on SIGTERM, SIGHUP or SIGINT; a second one exits at once.
#[cfg(unix)]
pub(super) fn watch_termination_signals(flag: Arc<AtomicBool>, ctx: egui::Context) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    const SIGNALS: [i32; 3] = [SIGTERM, SIGHUP, SIGINT];
    // Registered before the handler that sets the flag, so the first signal finds it unset.
    for signal in SIGNALS {
        if let Err(e) =
            signal_hook::flag::register_conditional_shutdown(signal, 1, Arc::clone(&flag))
        {
            log::warn!("cannot watch signal {signal}: {e}");
        }
    }
    let mut signals = match signal_hook::iterator::Signals::new(SIGNALS) {
        Ok(signals) => signals,
        Err(e) => {
            log::warn!("cannot watch termination signals: {e}");
            return;
        }
    };
    let watcher = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for _ in signals.forever() {
                flag.store(true, Ordering::SeqCst);
                ctx.request_repaint();
            }
        });
    if let Err(e) = watcher {
        log::warn!("cannot watch termination signals: {e}");
    }
}

/// Elsewhere the system's default handling stays.
#[cfg(not(unix))]
pub(super) fn watch_termination_signals(_flag: Arc<AtomicBool>, _ctx: egui::Context) {}
