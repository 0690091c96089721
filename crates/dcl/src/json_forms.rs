//! The JSON form a `main.composite` gives `core::Transform`: `{"position": {x,y,z}, "scale":
//! {x,y,z}, "rotation": {x,y,z,w}, "parent": entity}` (the Inspector's key order). The
//! conversions follow the runtime's `TransformSchema` and refuse what it would throw on.

use serde_json::{Value, json};

use super::js::{js_number, to_number, to_uint32};
use super::schema::SchemaError;
use scenetree_core::model::{Entity, Transform};

fn err<T>(path: &str, message: impl Into<String>) -> Result<T, SchemaError> {
    Err(SchemaError {
        path: path.to_owned(),
        message: message.into(),
    })
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
}
