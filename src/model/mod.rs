//! Plain values of the scene model: entities, transforms, Euler displays, component ids.
//! No I/O, no UI; glam for the math.

pub mod component;
pub mod dcl;
mod entity;
pub(crate) mod entity_index;
mod euler;
mod huge_pages;
mod prefetch;
pub mod present;
mod transform;

pub use component::{component_id_from_name, component_name, decode_name, encode_name, ids};
pub use entity::Entity;
pub use euler::EulerOrder;
pub use huge_pages::HugePageAlloc;
pub use prefetch::prefetch;
pub use transform::{Decomposed, Transform, TransformDecodeError, TransformProblem, decompose};
