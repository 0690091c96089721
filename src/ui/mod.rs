//! The user interface: thin egui panels and the 3D viewport. They read the document (and
//! derived data) and return the user's intent as actions; the editor turns those into CRDT
//! writes.

pub mod action;
pub mod app;
pub mod files;
pub mod hierarchy_panel;
pub mod inspector_panel;
pub mod viewport;
pub mod viewport_tab;
pub mod workbench;

pub use action::{Action, SelectAction};
pub use workbench::{Tab, Workbench};
