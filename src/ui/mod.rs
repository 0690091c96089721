//! The user interface: thin egui panels and the 3D viewport. They read the document (and
//! derived data) and return the user's intent as actions; the editor turns those into CRDT
//! writes.

pub mod action;
pub mod app;
pub mod command;
pub mod drop_hint;
pub mod file_dialog;
pub mod files;
pub mod hierarchy;
pub mod inspector_panel;
pub mod layout;
pub mod lessons;
pub mod logging;
pub mod multiplayer;
pub mod peers_panel;
pub mod style;
pub mod tree_row;
pub mod viewport_tab;
pub mod workbench;

pub use action::{Action, MultiplayerAction, PeersAction, SelectAction};
pub use layout::Tab;
pub use workbench::Workbench;
