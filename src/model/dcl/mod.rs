//! Decentraland component values scenetree understands: what they are called, how they decode,
//! and a short summary for the inspector.
//!
//! - [`ComponentCodec`]: every component's JSON ⇄ bytes, as `@dcl/ecs` 7.28.0 converts them:
//!   [`codec`] for the protobuf components (driven by the `.proto` files in `proto/`),
//!   [`schema`] for components a `jsonSchema` describes, and Transform's 44 bytes.
//! - Typed views for the editor and the viewport: [`Transform`], `core-schema::Name`,
//!   [`MeshShape`], [`GltfModel`], [`MaterialLook`], [`Visibility`].

mod builtin;
pub mod codec;
mod component_codec;
mod core_ids;
pub mod js;
pub mod json_forms;
mod looks;
pub mod nodes;
pub mod schema;
mod shapes;
pub mod tool_schemas;

use std::fmt::Write as _;

pub use builtin::builtin_json_schema;
pub use component_codec::ComponentCodec;
pub use core_ids::{
    CORE_COMPONENTS, core_component_id, core_component_name, core_protocol_buffer,
    is_core_grow_only,
};
pub use looks::{MATERIAL, MaterialLook, Shading, TextureSource, VISIBILITY, Visibility};
pub use shapes::{DEFAULT_CYLINDER_RADIUS, GltfModel, MeshShape, ViewportShape, viewport_shape};

use super::Transform;
use super::component::{component_id_from_name, component_name, decode_name, ids};

/// Names of non-core components that Decentraland's tools write into scenes (the Inspector's
/// `inspector::*` and the smart items' `asset-packs::*`), known here only to show their names.
/// Their ids are hashed from the names.
const TOOL_COMPONENT_NAMES: &[&str] = &[
    "composite::root",
    "inspector::Selection",
    "inspector::Nodes",
    "inspector::SceneMetadata",
    "inspector::SceneMetadata-v1",
    "inspector::TransformConfig",
    "inspector::Config",
    "inspector::Lock",
    "inspector::Hide",
    "inspector::UIState",
    "inspector::Ground",
    "inspector::Tile",
    "inspector::CustomAsset",
    "asset-packs::ActionTypes",
    "asset-packs::Actions",
    "asset-packs::Counter",
    "asset-packs::Triggers",
    "asset-packs::States",
    "asset-packs::AdminTools",
    "asset-packs::CounterBar",
    "asset-packs::Rewards",
    "asset-packs::VideoControlState",
    "asset-packs::Script",
];

/// The id the runtime gives a component name: the fixed number of a `core::*` component (`None`
/// when `@dcl/ecs` 7.28.0 has no such core component), else the hash of the name.
pub fn component_id(name: &str) -> Option<u32> {
    if name.starts_with("core::") {
        core_component_id(name)
    } else {
        Some(component_id_from_name(name))
    }
}

/// The component's name when scenetree knows it: core components, `core-schema::*`, and the
/// Inspector's and smart items' components.
pub fn known_component_name(id: u32) -> Option<&'static str> {
    core_component_name(id)
        .or_else(|| component_name(id))
        .or_else(|| {
            // The ids are hashes of the names: hashed once, not on every lookup (the
            // inspector and the peers' message table name components every frame).
            static TOOL_IDS: std::sync::OnceLock<Vec<(u32, &'static str)>> =
                std::sync::OnceLock::new();
            TOOL_IDS
                .get_or_init(|| {
                    (TOOL_COMPONENT_NAMES.iter())
                        .map(|&n| (component_id_from_name(n), n))
                        .collect()
                })
                .iter()
                .find(|&&(known, _)| known == id)
                .map(|&(_, name)| name)
        })
}

/// The component's name for display: its known name, else `component #<id>`.
pub fn display_component_name(id: u32) -> String {
    known_component_name(id).map_or_else(|| format!("component #{id}"), str::to_owned)
}

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
    use crate::model::encode_name;

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
