//! The derived render tree of one replica: parents, root fallback, children, world matrices.

mod hierarchy;
pub mod order_explorer;
mod propagate;
mod source;

pub use hierarchy::{Fallback, SceneView, UpdateStats};
pub use source::{TransformSource, TransformTable};
