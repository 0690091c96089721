//! User intent to replica writes: commands, the open document, undo history, selection.
//! The one layer that writes to a replica; the UI only reads and returns commands.

mod command;
mod document;
mod history;
mod inspector;
mod inspector_repair;
mod live;
mod live_cycles;
mod live_document;
mod names;
mod nodes_check;
mod order;
mod peers;
mod plan;
mod saved;
mod selection;
pub mod tree;

pub use command::{Command, EditError, add_model};
pub use document::{Applied, Document, SceneFile};
pub use history::{HISTORY_LIMIT, History, RegisterChange, ReplayError, Reselect, Step};
pub use inspector::InspectorFlags;
pub use live::{
    Attempt, Direction, FIRST_LIVE_NUMBER, HOST, IdRange, LOG_LIMIT, LinkState, LiveError,
    LiveNote, LiveSession, LiveSettings, LogEntry, MessageLog, Recorded, THIS_EDITOR, recording_of,
};
pub use inspector_repair::{InspectorTreeRepair, NodesMove};
pub use nodes_check::{
    MisplacedCause, NodesCheck, NodesMismatch, NodesMismatches, describe_leftover,
    nodes_mismatches,
};
pub use order::SiblingOrder;
pub use peers::Simulation;
pub use selection::Selection;
