//! The derived render tree: root fallback, incremental updates, propagation, tree policies.
//!
//! One test binary per area (each links the whole editor; fewer binaries, faster builds).

mod parallel;
#[path = "../common/furnished.rs"]
mod furnished;

mod scene_hierarchy;
mod scene_incremental;
mod tree_policies;
