//! The derived render tree of one replica: parents, root fallback, children, world matrices.

mod cycles;
mod hierarchy;
mod layout;
pub mod order_explorer;
pub mod policy;
mod propagate;
mod records;
mod shared;
mod slots;
mod source;
mod sweep;
#[cfg(test)]
mod tests;
mod update;

pub use hierarchy::{Fallback, SceneView, UpdateStats};
pub use source::{NO_HINT, Prefetch, TransformSource, TransformTable};
