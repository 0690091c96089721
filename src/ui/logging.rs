//! The process's logger: library warnings (eframe, three-d, rfd, scenetree's own) reach the
//! terminal, filtered by `RUST_LOG` as env_logger reads it (warnings and errors by default).

use std::cell::Cell;

use log::{LevelFilter, Log, Metadata, Record};

thread_local! {
    /// Set when rfd logs, on this thread, that its last way to show a dialog failed.
    static DIALOG_FAILED: Cell<bool> = const { Cell::new(false) };
}

/// Before a system file dialog on this thread: makes sure the logger is installed and forgets
/// an earlier failure.
pub fn watch_for_dialog_failure() {
    install();
    DIALOG_FAILED.with(|f| f.set(false));
}

/// Whether rfd logged on this thread, since [`watch_for_dialog_failure`], that it could not
/// show a system dialog (its portal backend falls back to zenity; an error about zenity means
/// no dialog), so the pick is told from a cancel.
pub fn dialog_failed() -> bool {
    DIALOG_FAILED.with(Cell::get)
}

fn notice_dialog_failure(record: &Record) {
    if record.level() <= log::Level::Error
        && record.target().starts_with("rfd")
        && record.args().to_string().contains("zenity")
    {
        DIALOG_FAILED.with(|f| f.set(true));
    }
}

/// env_logger, and a look at each record for what the file dialogs need to know.
struct AppLogger {
    inner: env_logger::Logger,
}

impl Log for AppLogger {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= log::Level::Error || self.inner.enabled(metadata)
    }

    fn log(&self, record: &Record) {
        notice_dialog_failure(record);
        if self.inner.matches(record) {
            self.inner.log(record);
        }
    }

    fn flush(&self) {
        self.inner.flush();
    }
}

/// Installs the logger for this process (once; later calls, or a logger a host installed
/// first, leave the existing one). The binary installs it at start; a file dialog makes sure
/// of it, since it learns from rfd's log that no system dialog could be shown.
pub fn install() {
    let inner =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).build();
    // Errors always reach `AppLogger::log`: the file dialogs look for rfd's.
    let max_level = inner.filter().max(LevelFilter::Error);
    if log::set_boxed_logger(Box::new(AppLogger { inner })).is_ok() {
        log::set_max_level(max_level);
    }
}
