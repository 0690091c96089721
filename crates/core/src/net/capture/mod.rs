//! Captures of real sessions (`scenetree-net-capture/1`): reading and writing them, importing
//! one from explorers' logs of the capture module, replaying one through the model, and the
//! report `net replay --json` prints.

mod first_tick;
mod format;
mod import;
mod infer;
mod replay;
mod replayed;
mod report;
mod search;

pub use first_tick::{FirstTickWrites, first_tick_writes};
pub use format::{
    Base64, Capture, CaptureError, CaptureHeader, CapturePlayer, CaptureTick, DialectName, FORMAT,
    SentItem,
};
pub use import::{
    ImportError, ImportOptions, Imported, LogFile, NetcapPart, console_strings, import_logs,
    parse_netcap,
};
pub use infer::{Inferred, infer_tick};
pub use replay::{Replay, replay, replay_with};
pub use replayed::ReplayedTick;
pub use report::{HazardEntry, MapEntry, PlayerReport, ReplayReport, TreeEntry, replay_json};
