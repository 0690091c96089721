//! The window: panels driven with egui_kittest (click, drag and drop, keys), whole-app flows
//! (files, dialogs, disk changes, projects), the Peers workspace, and the viewport's pixels on
//! Mesa's software GL.
//!
//! One test binary per area (fewer binaries, faster links).

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::live_docs as support;
use scenetree_test_support::{dcl_host, projects};
use scenetree_viewport::headless as egl;

mod app_flows;
mod background_save;
mod clipping;
mod commands;
mod component_ui;
mod disk_changes;
mod editor_habits;
mod file_dialogs;
mod file_safety_ui;
mod found_by_hand;
mod inspector_tree_ui;
mod layout;
mod layout_fit;
mod live_window;
mod model_files;
mod multi_selection;
mod multiplayer_mode;
mod peers_flows;
mod peers_teaching;
mod peers_workspace;
mod policies_view;
mod project_flows;
mod render_support;
mod rotation_entry;
mod selections;
mod small_ones;
mod tree_habits;
mod ui_flows;
mod unsaved;
mod viewport_incremental;
mod viewport_models;
mod viewport_render;
mod viewport_tab_incremental;
mod viewport_ui;
