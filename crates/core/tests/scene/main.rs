//! The derived render tree: root fallback, incremental updates, propagation, tree policies.
//!
//! One test binary per area (fewer binaries, faster links).

#[path = "../common/furnished.rs"]
mod furnished;
mod parallel;

mod scene_hierarchy;
mod scene_incremental;
mod tree_policies;
