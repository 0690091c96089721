//! Plain values of the scene model: entities, transforms, Euler displays, component ids.
//! No I/O, no UI; glam for the math.

pub mod component;
mod core_ids;
mod entity;
pub(crate) mod entity_index;
mod euler;
mod huge_pages;
mod prefetch;
pub mod present;
mod transform;

pub use component::{
    MAX_STATIC_COMPONENT, component_id, component_id_from_name, component_name, decode_name,
    display_component_name, encode_name, ids, known_component_name,
};
pub use core_ids::{
    CORE_COMPONENTS, core_component_id, core_component_name, core_protocol_buffer,
    is_core_grow_only,
};
pub use entity::Entity;
pub use euler::EulerOrder;
pub use huge_pages::HugePageAlloc;
pub use prefetch::{prefetch, prefetch_at};
pub use transform::{
    Decomposed, Transform, TransformDecodeError, TransformProblem, decompose, shown_quat,
};
