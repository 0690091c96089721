//! `core::MeshRenderer` and `core::GltfContainer` as typed values over the component codec
//! ([`super::codec`]), and the shapes the viewport draws.

use serde_json::{Map, Value, json};

use super::codec::ProtoMessage;
use super::js::js_number;
use scenetree_core::model::component::ids;

/// Default radius of a cylinder end when the value leaves it unset, in meters.
pub const DEFAULT_CYLINDER_RADIUS: f32 = 0.5;

/// The shape a `core::MeshRenderer` asks for. Dimensions are in the entity's local space, in
/// meters, before its Transform's scale.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshShape {
    /// No `mesh` case is set: the renderer draws nothing.
    Empty,
    /// A unit cube centred on the origin. `uvs`: the texture map (96 values when given).
    Box { uvs: Vec<f32> },
    /// A sphere of radius 0.5 centred on the origin.
    Sphere,
    /// A truncated cone of height 1 along local Y, centred on the origin. Radii in meters;
    /// `None` means the default 0.5.
    Cylinder {
        radius_top: Option<f32>,
        radius_bottom: Option<f32>,
    },
    /// A 1 × 1 square in the local XY plane, centred on the origin. `uvs`: 16 values when given.
    Plane { uvs: Vec<f32> },
}

impl MeshShape {
    /// Decodes a MeshRenderer value. `None` when the bytes are not a valid `PBMeshRenderer`.
    pub fn decode(bytes: &[u8]) -> Option<MeshShape> {
        let json = mesh_message().decode(bytes).ok()?;
        Some(MeshShape::from_json(&json))
    }

    /// The shape a decoded MeshRenderer JSON names (an unknown or missing case is empty).
    fn from_json(json: &Value) -> MeshShape {
        let mesh = &json["mesh"];
        let floats = |v: &Value| -> Vec<f32> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .map(|x| x.as_f64().unwrap_or(f64::NAN) as f32)
                        .collect()
                })
                .unwrap_or_default()
        };
        let radius = |v: &Value| v.as_f64().map(|r| r as f32);
        match mesh["$case"].as_str() {
            Some("box") => MeshShape::Box {
                uvs: floats(&mesh["box"]["uvs"]),
            },
            Some("plane") => MeshShape::Plane {
                uvs: floats(&mesh["plane"]["uvs"]),
            },
            Some("sphere") => MeshShape::Sphere,
            Some("cylinder") => MeshShape::Cylinder {
                radius_top: radius(&mesh["cylinder"]["radiusTop"]),
                radius_bottom: radius(&mesh["cylinder"]["radiusBottom"]),
            },
            _ => MeshShape::Empty,
        }
    }

    /// The bytes `@dcl/ecs` 7.28.0 writes for this value (a box or plane always carries its
    /// `uvs` list, `0a 00` when empty).
    pub fn encode(&self) -> Vec<u8> {
        mesh_message()
            .encode(&self.to_json())
            .expect("a MeshShape's JSON is always encodable")
    }

    /// The JSON the Inspector writes for it (`{"mesh": {"$case": "box", "box": {"uvs": []}}}`).
    pub fn to_json(&self) -> Value {
        let floats =
            |uvs: &[f32]| -> Vec<Value> { uvs.iter().map(|u| js_number(f64::from(*u))).collect() };
        match self {
            MeshShape::Empty => json!({}),
            MeshShape::Box { uvs } => {
                json!({"mesh": {"$case": "box", "box": {"uvs": floats(uvs)}}})
            }
            MeshShape::Plane { uvs } => {
                json!({"mesh": {"$case": "plane", "plane": {"uvs": floats(uvs)}}})
            }
            MeshShape::Sphere => json!({"mesh": {"$case": "sphere", "sphere": {}}}),
            MeshShape::Cylinder {
                radius_top,
                radius_bottom,
            } => {
                let mut c = Map::new();
                if let Some(r) = radius_top {
                    c.insert("radiusTop".into(), js_number(f64::from(*r)));
                }
                if let Some(r) = radius_bottom {
                    c.insert("radiusBottom".into(), js_number(f64::from(*r)));
                }
                json!({"mesh": {"$case": "cylinder", "cylinder": c}})
            }
        }
    }

    /// The lower-case name Decentraland uses for the shape (`"box"`, …; `"none"` when empty).
    pub fn kind(&self) -> &'static str {
        match self {
            MeshShape::Empty => "none",
            MeshShape::Box { .. } => "box",
            MeshShape::Sphere => "sphere",
            MeshShape::Cylinder { .. } => "cylinder",
            MeshShape::Plane { .. } => "plane",
        }
    }

    /// What the viewport draws for it (`None` for an empty renderer).
    pub fn viewport_shape(&self) -> Option<ViewportShape> {
        Some(match self {
            MeshShape::Empty => return None,
            MeshShape::Box { .. } => ViewportShape::Box,
            MeshShape::Sphere => ViewportShape::Sphere,
            MeshShape::Cylinder {
                radius_top,
                radius_bottom,
            } => ViewportShape::Cylinder {
                radius_top: radius_top.unwrap_or(DEFAULT_CYLINDER_RADIUS),
                radius_bottom: radius_bottom.unwrap_or(DEFAULT_CYLINDER_RADIUS),
            },
            MeshShape::Plane { .. } => ViewportShape::Plane,
        })
    }
}

/// A `core::GltfContainer` value: a glTF model loaded from the scene's files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GltfModel {
    /// The model's path inside the scene, as the manifest lists it (`assets/…/x.glb`).
    pub src: String,
    /// Collision layers of the model's visible meshes (`None`: the default, 0).
    pub visible_meshes_collision_mask: Option<u32>,
    /// Collision layers of its invisible (`_collider`) meshes (`None`: pointer | physics).
    pub invisible_meshes_collision_mask: Option<u32>,
}

impl GltfModel {
    /// Decodes a GltfContainer value. `None` when the bytes are not a valid `PBGltfContainer`.
    pub fn decode(bytes: &[u8]) -> Option<GltfModel> {
        let json = gltf_message().decode(bytes).ok()?;
        let mask = |key: &str| json.get(key).and_then(Value::as_u64).map(|m| m as u32);
        Some(GltfModel {
            src: json["src"].as_str()?.to_owned(),
            visible_meshes_collision_mask: mask("visibleMeshesCollisionMask"),
            invisible_meshes_collision_mask: mask("invisibleMeshesCollisionMask"),
        })
    }

    /// The bytes `@dcl/ecs` writes for it.
    pub fn encode(&self) -> Vec<u8> {
        let mut obj = Map::new();
        obj.insert("src".into(), Value::String(self.src.clone()));
        if let Some(m) = self.visible_meshes_collision_mask {
            obj.insert("visibleMeshesCollisionMask".into(), m.into());
        }
        if let Some(m) = self.invisible_meshes_collision_mask {
            obj.insert("invisibleMeshesCollisionMask".into(), m.into());
        }
        gltf_message()
            .encode(&Value::Object(obj))
            .expect("a GltfModel's JSON is always encodable")
    }
}

fn mesh_message() -> ProtoMessage {
    ProtoMessage::of_component(ids::MESH_RENDERER).expect("the protocol has PBMeshRenderer")
}

fn gltf_message() -> ProtoMessage {
    ProtoMessage::of_component(ids::GLTF_CONTAINER).expect("the protocol has PBGltfContainer")
}

/// A shape the viewport draws for an entity, in the entity's local space, in meters, before the
/// Transform's scale. Centred on the local origin.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ViewportShape {
    /// A unit cube (half-extent 0.5 m).
    Box,
    /// A sphere of radius 0.5 m.
    Sphere,
    /// A truncated cone, 1 m tall along local Y, with these end radii in meters.
    Cylinder { radius_top: f32, radius_bottom: f32 },
    /// A 1 m × 1 m square in the local XY plane, visible from both sides.
    Plane,
    /// A glTF model scenetree does not load: drawn as a unit cube placeholder.
    ModelPlaceholder,
}

/// The shape to draw for an entity from its `core::MeshRenderer` and `core::GltfContainer`
/// values (either may be absent). A MeshRenderer with a shape wins; a GltfContainer alone (or
/// beside an undecodable or empty MeshRenderer) gives the placeholder box.
pub fn viewport_shape(
    mesh_renderer: Option<&[u8]>,
    gltf_container: Option<&[u8]>,
) -> Option<ViewportShape> {
    mesh_renderer
        .and_then(MeshShape::decode)
        .and_then(|m| m.viewport_shape())
        .or_else(|| gltf_container.map(|_| ViewportShape::ModelPlaceholder))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_uv_lists_are_written_as_dcl_ecs_writes_them() {
        // Bytes printed by @dcl/ecs 7.28.0's MeshRendererSchema.serialize.
        assert_eq!(
            MeshShape::Box { uvs: vec![] }.encode(),
            [0x0a, 0x02, 0x0a, 0x00]
        );
        assert_eq!(
            MeshShape::Plane { uvs: vec![] }.encode(),
            [0x22, 0x02, 0x0a, 0x00]
        );
        assert_eq!(MeshShape::Sphere.encode(), [0x12, 0x00]);
        assert_eq!(MeshShape::Empty.encode(), Vec::<u8>::new());
        assert_eq!(
            MeshShape::Cylinder {
                radius_top: Some(1.0),
                radius_bottom: None
            }
            .encode(),
            [0x1a, 0x05, 0x0d, 0x00, 0x00, 0x80, 0x3f]
        );
    }

    #[test]
    fn shapes_round_trip_through_the_codec() {
        let shapes = [
            MeshShape::Empty,
            MeshShape::Box { uvs: vec![] },
            MeshShape::Box {
                uvs: vec![0.0, 1.0, 0.5],
            },
            MeshShape::Sphere,
            MeshShape::Cylinder {
                radius_top: Some(0.25),
                radius_bottom: Some(2.0),
            },
            MeshShape::Plane { uvs: vec![1.0; 16] },
        ];
        for shape in shapes {
            assert_eq!(MeshShape::decode(&shape.encode()), Some(shape.clone()));
        }
    }

    #[test]
    fn gltf_model_round_trips_and_keeps_an_explicit_zero_mask() {
        let model = GltfModel {
            src: "assets/scene/Models/lamp.glb".into(),
            visible_meshes_collision_mask: Some(0),
            invisible_meshes_collision_mask: Some(3),
        };
        let bytes = model.encode();
        assert_eq!(&bytes[bytes.len() - 4..], [0x20, 0x00, 0x28, 0x03]);
        assert_eq!(GltfModel::decode(&bytes), Some(model));
    }

    #[test]
    fn viewport_prefers_the_mesh_and_falls_back_to_a_placeholder() {
        let sphere = MeshShape::Sphere.encode();
        let gltf = GltfModel {
            src: "a.glb".into(),
            visible_meshes_collision_mask: None,
            invisible_meshes_collision_mask: None,
        }
        .encode();
        assert_eq!(
            viewport_shape(Some(&sphere), Some(&gltf)),
            Some(ViewportShape::Sphere)
        );
        assert_eq!(
            viewport_shape(None, Some(&gltf)),
            Some(ViewportShape::ModelPlaceholder)
        );
        assert_eq!(viewport_shape(Some(&MeshShape::Empty.encode()), None), None);
        assert_eq!(
            viewport_shape(Some(&[0xff, 0xff]), None),
            None,
            "garbage is not a shape"
        );
        let cylinder = MeshShape::Cylinder {
            radius_top: None,
            radius_bottom: Some(1.0),
        };
        assert_eq!(
            cylinder.viewport_shape(),
            Some(ViewportShape::Cylinder {
                radius_top: 0.5,
                radius_bottom: 1.0
            })
        );
    }
}
