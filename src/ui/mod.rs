//! The user interface: thin egui panels and the 3D viewport. They read the document (and
//! derived data) and return the user's intent as actions; the editor turns those into CRDT
//! writes.

pub mod action;
pub mod app;
pub mod command;
mod component_fields;
pub mod file_dialog;
pub mod files;
mod hierarchy_drop;
pub mod hierarchy_panel;
mod hierarchy_rows;
mod inspector_model;
pub mod inspector_panel;
pub mod layout;
pub mod lessons;
pub mod peers_panel;
pub mod style;
pub mod tree_row;
pub mod viewport;
pub mod viewport_tab;
pub mod workbench;

pub use action::{Action, PeersAction, SelectAction};
pub use workbench::{Tab, Workbench};
