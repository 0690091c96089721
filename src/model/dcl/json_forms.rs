//! The JSON forms a `main.composite` gives the core components scenetree decodes.
//!
//! `core::Transform` is `{"position": {x,y,z}, "scale": {x,y,z}, "rotation": {x,y,z,w},
//! "parent": entity}`. Protocol-buffer components (MeshRenderer, GltfContainer) are the object
//! `@dcl/ecs`'s generated code (ts-proto) holds in memory: camel-case field names, and
//! `{"$case": name, name: value}` for a oneof. The runtime encodes these objects directly, so
//! the conversions here follow its encoders, and refuse what they would throw on.

use serde_json::{Map, Value, json};

use super::schema::{SchemaError, js_number, to_number, to_uint32};
use super::shapes::{GltfModel, MeshShape};
use crate::model::{Entity, Transform};

fn err<T>(path: &str, message: impl Into<String>) -> Result<T, SchemaError> {
    Err(SchemaError {
        path: path.to_owned(),
        message: message.into(),
    })
}

/// A composite's `core::MeshRenderer` JSON as the runtime reads it. An unknown `$case` is an
/// empty renderer, as the runtime's encoder writes nothing for it.
pub fn mesh_from_json(v: &Value) -> Result<MeshShape, SchemaError> {
    let Some(obj) = v.as_object() else {
        return err("", "expected an object");
    };
    let mesh = match obj.get("mesh") {
        None | Some(Value::Null) => return Ok(MeshShape::Empty),
        Some(Value::Object(m)) => m,
        Some(_) => return err(".mesh", "expected an object"),
    };
    let case = match mesh.get("$case") {
        None | Some(Value::Null) => return Ok(MeshShape::Empty),
        Some(Value::String(c)) => c.as_str(),
        Some(_) => return err(".mesh.$case", "expected a string"),
    };
    let body = |name: &str| -> Result<&Map<String, Value>, SchemaError> {
        match mesh.get(name) {
            Some(Value::Object(b)) => Ok(b),
            _ => err(&format!(".mesh.{name}"), "expected an object"),
        }
    };
    let uvs = |name: &str| -> Result<Vec<f32>, SchemaError> {
        let path = format!(".mesh.{name}.uvs");
        match body(name)?.get("uvs") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|x| match x.as_f64() {
                    Some(f) => Ok(f as f32),
                    None => err(&path, "expected numbers"),
                })
                .collect(),
            _ => err(&path, "expected a list of numbers"),
        }
    };
    Ok(match case {
        "box" => MeshShape::Box { uvs: uvs("box")? },
        "plane" => MeshShape::Plane { uvs: uvs("plane")? },
        "sphere" => MeshShape::Sphere,
        "cylinder" => {
            let b = body("cylinder")?;
            let radius = |key: &str| -> Result<Option<f32>, SchemaError> {
                match b.get(key) {
                    None => Ok(None),
                    Some(x) => match x.as_f64() {
                        Some(f) => Ok(Some(f as f32)),
                        None => err(&format!(".mesh.cylinder.{key}"), "expected a number"),
                    },
                }
            };
            MeshShape::Cylinder {
                radius_top: radius("radiusTop")?,
                radius_bottom: radius("radiusBottom")?,
            }
        }
        _ => MeshShape::Empty,
    })
}

/// The JSON the Inspector writes for a MeshRenderer value.
pub fn mesh_to_json(shape: &MeshShape) -> Value {
    let floats = |uvs: &[f32]| -> Vec<Value> { uvs.iter().map(|u| f32_json(*u)).collect() };
    match shape {
        MeshShape::Empty => json!({}),
        MeshShape::Box { uvs } => json!({"mesh": {"$case": "box", "box": {"uvs": floats(uvs)}}}),
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
                c.insert("radiusTop".into(), f32_json(*r));
            }
            if let Some(r) = radius_bottom {
                c.insert("radiusBottom".into(), f32_json(*r));
            }
            json!({"mesh": {"$case": "cylinder", "cylinder": c}})
        }
    }
}

/// A composite's `core::GltfContainer` JSON as the runtime reads it.
pub fn gltf_from_json(v: &Value) -> Result<GltfModel, SchemaError> {
    let Some(obj) = v.as_object() else {
        return err("", "expected an object");
    };
    let src = match obj.get("src") {
        Some(Value::String(s)) => s.clone(),
        _ => return err(".src", "expected the model path as a string"),
    };
    let mask = |key: &str| -> Result<Option<u32>, SchemaError> {
        match obj.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(Some(to_uint32(n.as_f64().unwrap_or(f64::NAN)))),
            Some(_) => err(&format!(".{key}"), "expected a number"),
        }
    };
    Ok(GltfModel {
        src,
        visible_meshes_collision_mask: mask("visibleMeshesCollisionMask")?,
        invisible_meshes_collision_mask: mask("invisibleMeshesCollisionMask")?,
    })
}

/// The JSON the Inspector writes for a GltfContainer value.
pub fn gltf_to_json(model: &GltfModel) -> Value {
    let mut obj = Map::new();
    obj.insert("src".into(), Value::String(model.src.clone()));
    if let Some(m) = model.visible_meshes_collision_mask {
        obj.insert("visibleMeshesCollisionMask".into(), m.into());
    }
    if let Some(m) = model.invisible_meshes_collision_mask {
        obj.insert("invisibleMeshesCollisionMask".into(), m.into());
    }
    Value::Object(obj)
}

/// A composite's `core::Transform` JSON → the 44 bytes the runtime stores. A missing
/// top-level key takes its identity default (the runtime's `extend`); a missing coordinate is
/// NaN, as in JavaScript.
pub fn transform_from_json(v: &Value) -> Result<[u8; Transform::BYTE_LEN], SchemaError> {
    let Some(obj) = v.as_object() else {
        return err("", "expected an object");
    };
    let floats = |key: &str, names: &[&str], default: &[f32]| -> Result<Vec<f32>, SchemaError> {
        match obj.get(key) {
            None => Ok(default.to_vec()),
            Some(Value::Object(o)) => names
                .iter()
                .map(|n| Ok(to_number(o.get(*n), &format!(".{key}.{n}"))? as f32))
                .collect(),
            Some(_) => err(&format!(".{key}"), "expected an object"),
        }
    };
    let p = floats("position", &["x", "y", "z"], &[0.0; 3])?;
    let s = floats("scale", &["x", "y", "z"], &[1.0; 3])?;
    let r = floats("rotation", &["x", "y", "z", "w"], &[0.0, 0.0, 0.0, 1.0])?;
    // `value.parent || 0`, then a u32 write.
    let parent = to_uint32(to_number(obj.get("parent"), ".parent")?);
    let mut out = [0u8; Transform::BYTE_LEN];
    for (i, f) in p.iter().chain(&r).chain(&s).enumerate() {
        let bits = if f.is_nan() { 0x7FC0_0000 } else { f.to_bits() };
        out[i * 4..i * 4 + 4].copy_from_slice(&bits.to_le_bytes());
    }
    out[40..].copy_from_slice(&parent.to_le_bytes());
    Ok(out)
}

/// The JSON the Inspector writes for a Transform (position, scale, rotation, parent).
pub fn transform_to_json(t: &Transform) -> Value {
    let v = |x: f32| f32_json(x);
    json!({
        "position": {"x": v(t.position.x), "y": v(t.position.y), "z": v(t.position.z)},
        "scale": {"x": v(t.scale.x), "y": v(t.scale.y), "z": v(t.scale.z)},
        "rotation": {"x": v(t.rotation.x), "y": v(t.rotation.y), "z": v(t.rotation.z), "w": v(t.rotation.w)},
        "parent": t.parent.0,
    })
}

/// The entity a Transform JSON names as parent (0, the root, when absent).
pub fn transform_json_parent(v: &Value) -> Entity {
    Entity(v.get("parent").and_then(Value::as_f64).map_or(0, to_uint32))
}

fn f32_json(v: f32) -> Value {
    js_number(v as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composite_mesh_json_gives_the_runtime_bytes() {
        // The fixture's plane, and the bytes @dcl/ecs 7.28.0 serializes it to.
        let plane = mesh_from_json(&json!({"mesh": {"$case": "plane", "plane": {"uvs": []}}}));
        assert_eq!(plane.as_ref().unwrap().encode(), [0x22, 0x02, 0x0a, 0x00]);
        assert_eq!(
            mesh_to_json(&plane.unwrap()),
            json!({"mesh": {"$case": "plane", "plane": {"uvs": []}}})
        );
        assert_eq!(mesh_from_json(&json!({})).unwrap(), MeshShape::Empty);
        assert!(mesh_from_json(&json!({"mesh": {"$case": "box", "box": {}}})).is_err());
    }

    #[test]
    fn transform_json_matches_the_runtime_layout() {
        let j = json!({"position": {"x": 11, "y": 11, "z": 16.25},
            "scale": {"x": 0.800000011920929, "y": 0.800000011920929, "z": 0.800000011920929},
            "rotation": {"x": 0, "y": 0, "z": 0, "w": 1}, "parent": 512});
        let bytes = transform_from_json(&j).unwrap();
        let t = Transform::from_bytes(&bytes).unwrap();
        assert_eq!(t.position, glam::Vec3::new(11.0, 11.0, 16.25));
        assert_eq!(t.scale, glam::Vec3::splat(0.8));
        assert_eq!(t.parent, Entity(512));
        assert_eq!(transform_to_json(&t), j);
        // Missing keys take the identity, as the runtime's `extend` does.
        let identity = transform_from_json(&json!({})).unwrap();
        assert_eq!(
            Transform::from_bytes(&identity).unwrap(),
            Transform::IDENTITY
        );
        assert!(transform_from_json(&json!({"position": [1, 2, 3]})).is_err());
    }

    #[test]
    fn gltf_json_round_trips() {
        let j = json!({"src": "assets/a.glb", "visibleMeshesCollisionMask": 0, "invisibleMeshesCollisionMask": 3});
        let m = gltf_from_json(&j).unwrap();
        assert_eq!(m.invisible_meshes_collision_mask, Some(3));
        assert_eq!(gltf_to_json(&m), j);
        assert!(gltf_from_json(&json!({"visibleMeshesCollisionMask": 0})).is_err());
    }
}
