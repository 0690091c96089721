//! The editor layer without a window: every command, its validation, undo and redo as CRDT
//! writes, and `inspector::Nodes` checked against the Decentraland Inspector's own rules.
//! The panels and the window are tested in the app's `tests/ui`.

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::dcl;

mod editor;
mod entity_numbers;
mod inspector_nodes;
mod replay;
