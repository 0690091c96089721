//! The derived render tree: root fallback, incremental updates, propagation, tree policies.
//!
//! One test binary per area (each links the whole editor; fewer binaries, faster builds).

#[path = "../common/furnished.rs"]
mod furnished;
mod parallel;

mod scene_hierarchy;
mod scene_incremental;
mod tree_policies;
