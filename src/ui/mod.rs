//! The user interface: thin egui panels that read the document and return actions.

pub mod action;
pub mod app;
pub mod files;
pub mod hierarchy_panel;
pub mod inspector_panel;
pub mod workbench;

pub use action::{Action, SelectAction};
pub use workbench::{Tab, Workbench};
