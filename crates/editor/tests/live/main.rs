//! Live documents against Decentraland's real data layer (`sdk-commands start --data-layer`
//! 7.28.0 from `oracle-live/`, started by the live crate's harness) and against fake hosts
//! that misbehave: the editor's side of a session, with no window (the window's side is in
//! the app's `tests/ui/live_window.rs`, the `scenetree live` commands in `tests/cli/live_cli.rs`).
//! Without `oracle-live/node_modules` these fail with the command to run.
//!
//! One test binary per area (fewer binaries, faster links).

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::live_docs as support;
use scenetree_test_support::{dcl_host, fake_host};

mod bounded;
mod faults;
mod flows;
mod large_scene;
mod recording;
