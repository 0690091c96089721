//! The derived render tree: root fallback, incremental updates, propagation, tree policies
//! (the MoveOpSkip policy checked against Loro's movable tree).
//!
//! One test binary per area (fewer binaries, faster links).

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::furnished;

mod loro_crosscheck;
mod loro_reference;
mod parallel;
mod scene_hierarchy;
mod scene_incremental;
mod tree_policies;
