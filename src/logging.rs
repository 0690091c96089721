//! The process's logger: library warnings (eframe, three-d, rfd, scenetree's own) reach the
//! terminal, filtered by `RUST_LOG` as env_logger reads it (warnings and errors by default).

use log::{LevelFilter, Log, Metadata, Record};

/// env_logger, and a look at each record for what the file dialogs need to know.
struct AppLogger {
    inner: env_logger::Logger,
}

impl Log for AppLogger {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= log::Level::Error || self.inner.enabled(metadata)
    }

    fn log(&self, record: &Record) {
        crate::ui::file_dialog::notice_dialog_failure(record);
        if self.inner.matches(record) {
            self.inner.log(record);
        }
    }

    fn flush(&self) {
        self.inner.flush();
    }
}

/// Installs the logger for this process (once; later calls, or a logger a host installed
/// first, leave the existing one).
pub fn install() {
    let inner =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).build();
    // Errors always reach `AppLogger::log`: the file dialogs look for rfd's.
    let max_level = inner.filter().max(LevelFilter::Error);
    if log::set_boxed_logger(Box::new(AppLogger { inner })).is_ok() {
        log::set_max_level(max_level);
    }
}
