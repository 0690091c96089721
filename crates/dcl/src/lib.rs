//! Decentraland's side of scenetree: the component values it understands (what they are
//! called, how they decode, a short summary for the inspector) and every file it reads and
//! writes ([`io`]: native JSON, main.crdt, main.composite, projects, scenarios, recovery).
//!
//! - [`ComponentCodec`]: every component's JSON ⇄ bytes, as `@dcl/ecs` 7.28.0 converts them:
//!   [`codec`] for the protobuf components (driven by the `.proto` files in `proto/`),
//!   [`schema`] for components a `jsonSchema` describes, and Transform's 44 bytes.
//! - Typed views for the editor and the viewport: [`Transform`], `core-schema::Name`,
//!   [`MeshShape`], [`GltfModel`], [`MaterialLook`], [`Visibility`].

mod builtin;
pub mod codec;
mod component_codec;
pub mod io;
pub mod js;
pub mod json_forms;
mod looks;
pub mod nodes;
pub mod schema;
mod shapes;
pub mod tool_schemas;

use std::fmt::Write as _;

pub use builtin::builtin_json_schema;
pub use component_codec::{ComponentCodec, NoCodec};
// Component names and ids are the core's (the CRDT layer names components too); they are
// re-exported here beside the codecs that use them.
pub use looks::{MATERIAL, MaterialLook, Shading, TextureSource, VISIBILITY, Visibility};
pub use scenetree_core::model::{
    CORE_COMPONENTS, component_id, core_component_id, core_component_name, core_protocol_buffer,
    display_component_name, is_core_grow_only, known_component_name,
};
pub use shapes::{DEFAULT_CYLINDER_RADIUS, GltfModel, MeshShape, ViewportShape, viewport_shape};

use scenetree_core::model::{Transform, decode_name, ids};

/// A component value scenetree understands.
#[derive(Clone, Debug, PartialEq)]
pub enum DecodedComponent {
    /// `core::Transform`: local position (meters), rotation, scale and parent, in the parent's space.
    Transform(Transform),
    /// `core-schema::Name`: the entity's name.
    Name(String),
    /// `core::MeshRenderer`: a primitive shape.
    MeshRenderer(MeshShape),
    /// `core::GltfContainer`: a glTF model by path.
    GltfContainer(GltfModel),
}

/// Decodes a value of a component scenetree understands. `None` for other components, and for
/// bytes that are not a valid value of the component.
pub fn decode(component_id: u32, bytes: &[u8]) -> Option<DecodedComponent> {
    match component_id {
        ids::TRANSFORM => Transform::from_bytes(bytes)
            .ok()
            .map(DecodedComponent::Transform),
        ids::NAME => decode_name(bytes).map(DecodedComponent::Name),
        ids::MESH_RENDERER => MeshShape::decode(bytes).map(DecodedComponent::MeshRenderer),
        ids::GLTF_CONTAINER => GltfModel::decode(bytes).map(DecodedComponent::GltfContainer),
        _ => None,
    }
}

/// One line about a component value for the inspector: its name, its size, and its key
/// fields when scenetree decodes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentSummary {
    /// The component's name, or `component #<id>`.
    pub name: String,
    /// Size of the serialized value in bytes.
    pub byte_len: usize,
    /// Key fields (`box`, `"Lamp"`, the model path …); for components scenetree does not
    /// decode, empty; for bytes that fail to decode, says so.
    pub detail: String,
}

impl std::fmt::Display for ComponentSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} bytes)", self.name, self.byte_len)?;
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

/// Summarizes a component value (see [`ComponentSummary`]).
pub fn summarize(component_id: u32, bytes: &[u8]) -> ComponentSummary {
    let detail = match decode(component_id, bytes) {
        Some(DecodedComponent::Transform(t)) => {
            let p = t.position;
            let s = t.scale;
            let q = t.rotation;
            format!(
                "position ({}, {}, {}) m, rotation ({}, {}, {}, {}), scale ({}, {}, {}), parent {}",
                p.x, p.y, p.z, q.x, q.y, q.z, q.w, s.x, s.y, s.z, t.parent
            )
        }
        Some(DecodedComponent::Name(n)) => format!("{n:?}"),
        Some(DecodedComponent::MeshRenderer(m)) => mesh_detail(&m),
        Some(DecodedComponent::GltfContainer(g)) => g.src,
        None if matches!(
            component_id,
            ids::TRANSFORM | ids::NAME | ids::MESH_RENDERER | ids::GLTF_CONTAINER
        ) =>
        {
            "not a valid value of this component".into()
        }
        None => String::new(),
    };
    ComponentSummary {
        name: display_component_name(component_id),
        byte_len: bytes.len(),
        detail,
    }
}

fn mesh_detail(m: &MeshShape) -> String {
    let mut out = m.kind().to_owned();
    match m {
        MeshShape::Box { uvs } | MeshShape::Plane { uvs } if !uvs.is_empty() => {
            let _ = write!(out, " ({} UV values)", uvs.len());
        }
        MeshShape::Cylinder {
            radius_top,
            radius_bottom,
        } => {
            let r = |v: &Option<f32>| v.unwrap_or(DEFAULT_CYLINDER_RADIUS);
            let _ = write!(
                out,
                " (top radius {} m, bottom radius {} m)",
                r(radius_top),
                r(radius_bottom)
            );
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::model::encode_name;

    #[test]
    fn names_cover_core_schema_and_tool_components() {
        assert_eq!(component_id("core::Animator"), Some(1042));
        assert_eq!(component_id("core::NoSuchThing"), None);
        assert_eq!(component_id("core-schema::Name"), Some(ids::NAME));
        // Ids seen in the official templates' main.crdt.
        assert_eq!(
            known_component_name(2_357_605_385),
            Some("inspector::TransformConfig")
        );
        assert_eq!(
            known_component_name(1_763_575_366),
            Some("inspector::Config")
        );
        assert_eq!(known_component_name(1102), Some("core::Tween"));
        assert_eq!(display_component_name(7), "component #7");
    }

    #[test]
    fn summaries_name_the_component_and_its_key_fields() {
        let s = summarize(ids::NAME, &encode_name("Lamp"));
        assert_eq!(s.to_string(), "core-schema::Name (8 bytes): \"Lamp\"");
        let mesh = MeshShape::Cylinder {
            radius_top: None,
            radius_bottom: Some(1.0),
        };
        assert_eq!(
            summarize(ids::MESH_RENDERER, &mesh.encode()).detail,
            "cylinder (top radius 0.5 m, bottom radius 1 m)"
        );
        let gltf = GltfModel {
            src: "assets/lamp.glb".into(),
            visible_meshes_collision_mask: None,
            invisible_meshes_collision_mask: None,
        };
        assert_eq!(
            summarize(ids::GLTF_CONTAINER, &gltf.encode()).detail,
            "assets/lamp.glb"
        );
        assert_eq!(
            summarize(ids::GLTF_CONTAINER, &[0xff]).detail,
            "not a valid value of this component"
        );
        assert_eq!(
            summarize(1017, &[1, 2, 3]).to_string(),
            "core::Material (3 bytes)"
        );
    }
}
