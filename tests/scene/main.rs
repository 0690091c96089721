//! The derived render tree: root fallback, incremental updates, propagation.
//!
//! One test binary per area (each links the whole editor; fewer binaries, faster builds).

mod parallel;
mod scene_hierarchy;
mod scene_incremental;
