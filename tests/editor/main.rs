//! The editor and its window: commands and undo, panels driven with egui_kittest, the viewport.
//!
//! One test binary per area (fewer binaries, faster links).

use scenetree_viewport::headless as egl;
#[path = "../../crates/dcl/tests/common/dcl.rs"]
mod dcl;
#[path = "../../crates/dcl/tests/common/projects.rs"]
mod projects;

mod app_flows;
mod commands;
mod component_ui;
mod disk_changes;
mod editor;
mod file_dialogs;
mod inspector_nodes;
mod inspector_tree_ui;
mod layout;
mod model_files;
mod peers_flows;
mod peers_workspace;
mod policies_view;
mod project_flows;
mod render_support;
mod rotation_entry;
mod selections;
mod tree_habits;
mod ui_flows;
mod unsaved;
mod viewport_math;
mod viewport_models;
mod viewport_render;
mod viewport_ui;
