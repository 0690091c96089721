//! scenetree's editor, without a window: user intent to replica writes. The open
//! [`Document`] and its backends (a solo replica, simulated peers, a live session on
//! Decentraland's data layer), [`Command`]s and their validation, the undo [`History`], the
//! [`Selection`], the Decentraland Inspector's tree (`inspector::Nodes`) kept in step.
//!
//! The one layer that writes to a replica: the app's panels only read a document and return
//! commands. It builds on scenetree-core (the protocol and the derived tree), scenetree-dcl
//! (component codecs and files) and scenetree-live (the data-layer client), and on nothing
//! with a window: the compiler keeps egui, eframe and three-d out of it.

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
pub mod replay;
mod saved;
mod selection;
pub mod tree;

pub use command::{Command, EditError, add_model};
pub use document::{Applied, Document, SceneFile};
pub use history::{HISTORY_LIMIT, History, RegisterChange, ReplayError, Reselect, Step};
pub use inspector::InspectorFlags;
pub use inspector_repair::{InspectorTreeRepair, NodesMove};
pub use live::{
    Attempt, BadValue, Direction, FIRST_LIVE_NUMBER, HOST, INCOMING_LIMIT, IdRange,
    LOG_BYTES_LIMIT, LOG_LIMIT, LinkState, LiveError, LiveNote, LiveSaveError, LiveSession,
    LiveSettings, LogEntry, MessageLog, RecordTo, Recorded, RecordingSummary, SPOOL_LIMIT,
    THIS_EDITOR, Unsendable, WriteRefused, recording_of,
};
pub use nodes_check::{
    MisplacedCause, NodesCheck, NodesMismatch, NodesMismatches, describe_leftover, nodes_mismatches,
};
pub use order::SiblingOrder;
pub use peers::Simulation;
pub use selection::Selection;
