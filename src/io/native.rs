//! scenetree's own scene format: readable JSON (`"format": "scenetree/1"`) that holds the whole
//! replica state, so a saved scene resumes as the same CRDT state.
//!
//! ```json
//! {
//!   "format": "scenetree/1",
//!   "entities": [
//!     { "entity": 512,
//!       "components": {
//!         "core::Transform":   { "timestamp": 3, "value": { "position": [0, 1, 0], "rotation": [0, 0, 0, 1],
//!                                                          "scale": [1, 1, 1], "parent": 0 } },
//!         "core-schema::Name": { "timestamp": 1, "value": "Lamp" },
//!         "core::MeshRenderer": { "timestamp": 2, "value": { "mesh": { "$case": "sphere", "sphere": {} } } },
//!         "2905536298":        { "timestamp": 1, "base64": "AQ==" },
//!         "core::GltfContainer": { "timestamp": 4, "deleted": true } },
//!       "appended": { "core::PointerEventsResult": ["CAE="] } }
//!   ],
//!   "deleted_entities": [514, 66048]
//! }
//! ```
//!
//! Components are keyed by name when scenetree knows it (core components, `core-schema::*`),
//! else by their id. A value is written decoded (`value`) only when encoding the decoded form
//! gives back the exact bytes (so a Transform holding NaN, or a malformed Name, is kept as
//! `base64`): Transform and Name as above, every other core component in the JSON form of
//! `model::dcl::ComponentCodec` (what a main.composite holds); everything else is base64.
//! `deleted` records a tombstone with its timestamp. A deleted entity, or one a newer version
//! of its number retired, is never written with values (tombstones only: a runtime's own
//! main.crdt keeps those, and a round trip keeps them byte for byte). Entities are sorted by
//! id and components
//! by id, so files diff well.

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::model::dcl::{self, ComponentCodec};
use serde_json::{Map, Value, json};

use super::error::LoadError;
use crate::crdt::{CrdtMessage, Replica};
use crate::model::{Entity, Transform, component, component_id_from_name, encode_name, ids};

/// The format tag this version writes and reads.
pub const FORMAT: &str = "scenetree/1";

pub use super::native_write::to_native_json;

/// A Transform's position (meters), rotation (quaternion x, y, z, w) and scale, in the parent's
/// space, as this format writes them, without the parent: what the editor's Copy Transform
/// puts on the system clipboard.
pub fn pose_json(t: &Transform) -> Value {
    json!({
        "position": t.position.to_array(),
        "rotation": t.rotation.to_array(),
        "scale": t.scale.to_array(),
    })
}

/// Reads native JSON into a fresh replica. Any problem is an error naming the JSON path.
///
/// A well-formed file is read by the typed reader (`native_read.rs`: no `Value` tree, 10×
/// faster on large scenes); only when it gives up does the detailed reader below decide, and
/// name the place of the problem.
pub fn parse_native(path: &Path, text: &str) -> Result<Replica, LoadError> {
    if let Some(replica) = super::native_read::read_fast(text) {
        return Ok(replica);
    }
    parse_native_detailed(path, text)
}

/// The detailed reader: the whole document as a `Value` tree, every problem named by its JSON
/// path. The reference for what a native file means (the fast reader agrees with it).
pub fn parse_native_detailed(path: &Path, text: &str) -> Result<Replica, LoadError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| LoadError::json_syntax(path, &e))?;
    let err = |json_path: &str, message: String| LoadError::at_json(path, json_path, message);
    // The format's keys only: a misspelt one ("parnet") would otherwise be dropped unseen.
    let known_keys = |v: &Value, at: &str, keys: &[&str]| -> Result<(), LoadError> {
        match unknown_key(v, keys) {
            Some(key) if at.is_empty() => {
                Err(LoadError::file(path, unknown_key_message(key, keys)))
            }
            Some(key) => Err(err(at, unknown_key_message(key, keys))),
            None => Ok(()),
        }
    };
    known_keys(&doc, "", &["format", "entities", "deleted_entities"])?;
    match doc.get("format").and_then(Value::as_str) {
        Some(FORMAT) => {}
        Some(other) => {
            return Err(err(
                "format",
                format!("expected \"{FORMAT}\", found \"{other}\" (a newer scenetree?)"),
            ));
        }
        None => {
            return Err(err(
                "format",
                format!("missing; a native scene starts with \"format\": \"{FORMAT}\""),
            ));
        }
    }
    let mut messages: Vec<CrdtMessage> = Vec::new();
    let entities = doc
        .get("entities")
        .and_then(Value::as_array)
        .ok_or_else(|| err("entities", "expected a list".into()))?;
    for (i, item) in entities.iter().enumerate() {
        let at = format!("entities[{i}]");
        known_keys(item, &at, &["entity", "components", "appended"])?;
        let entity = item
            .get("entity")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .map(Entity)
            .ok_or_else(|| {
                err(
                    &format!("{at}.entity"),
                    "expected an entity id (an integer below 2^32)".into(),
                )
            })?;
        let components = match item.get("components") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => {
                return Err(err(
                    &format!("{at}.components"),
                    "expected an object".into(),
                ));
            }
        };
        for (key, value) in &components {
            let at = format!("{at}.components[{key:?}]");
            known_keys(value, &at, &["timestamp", "deleted", "base64", "value"])?;
            let id = parse_component_key(key);
            let timestamp = value
                .get("timestamp")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    err(
                        &format!("{at}.timestamp"),
                        "expected a timestamp (an integer below 2^32)".into(),
                    )
                })?;
            if value.get("deleted").and_then(Value::as_bool) == Some(true) {
                messages.push(CrdtMessage::DeleteComponent {
                    entity,
                    component: id,
                    timestamp,
                });
                continue;
            }
            let data = decode_value(id, value).map_err(|m| err(&at, m))?;
            if id == ids::TRANSFORM && data.len() != Transform::BYTE_LEN {
                return Err(err(
                    &at,
                    format!("a Transform is 44 bytes, found {}", data.len()),
                ));
            }
            messages.push(CrdtMessage::PutComponent {
                entity,
                component: id,
                timestamp,
                data,
            });
        }
        if let Some(appended) = item.get("appended") {
            let appended = appended
                .as_object()
                .ok_or_else(|| err(&format!("{at}.appended"), "expected an object".into()))?;
            for (key, values) in appended {
                let at = format!("{at}.appended[{key:?}]");
                let id = parse_component_key(key);
                if !component::is_grow_only(id) {
                    return Err(err(&at, format!("component {key} is not a grow-only set")));
                }
                let values = values
                    .as_array()
                    .ok_or_else(|| err(&at, "expected a list of base64 strings".into()))?;
                for (j, v) in values.iter().enumerate() {
                    let data = v
                        .as_str()
                        .and_then(|s| BASE64.decode(s).ok())
                        .ok_or_else(|| {
                            err(&format!("{at}[{j}]"), "expected a base64 string".into())
                        })?;
                    messages.push(CrdtMessage::AppendValue {
                        entity,
                        component: id,
                        timestamp: 0,
                        data,
                    });
                }
            }
        }
    }
    if let Some(deleted) = doc.get("deleted_entities") {
        let deleted = deleted
            .as_array()
            .ok_or_else(|| err("deleted_entities", "expected a list of entity ids".into()))?;
        for (i, d) in deleted.iter().enumerate() {
            let entity = d
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    err(
                        &format!("deleted_entities[{i}]"),
                        "expected an entity id".into(),
                    )
                })?;
            messages.push(CrdtMessage::DeleteEntity {
                entity: Entity(entity),
            });
        }
    }
    // Deletions last: entity ids only grow with versions, and a value of an old version that
    // the file still holds (the reference keeps those) must be stored before it is retired.
    let (deletes, values): (Vec<_>, Vec<_>) = messages
        .into_iter()
        .partition(|m| matches!(m, CrdtMessage::DeleteEntity { .. }));
    let mut replica = Replica::new();
    for m in values.iter().chain(&deletes) {
        replica.apply(m);
    }
    Ok(replica)
}

pub(super) fn parse_component_key(key: &str) -> u32 {
    key.parse::<u32>().unwrap_or_else(|_| {
        dcl::core_component_id(key).unwrap_or_else(|| component_id_from_name(key))
    })
}

fn decode_value(id: u32, value: &Value) -> Result<Vec<u8>, String> {
    if let Some(b64) = value.get("base64") {
        return b64
            .as_str()
            .and_then(|s| BASE64.decode(s).ok())
            .ok_or_else(|| "\"base64\" is not valid base64".to_string());
    }
    let decoded = value
        .get("value")
        .ok_or("expected \"value\", \"base64\" or \"deleted\": true")?;
    match id {
        ids::TRANSFORM => parse_transform(decoded).map(|t| t.to_bytes().to_vec()),
        ids::NAME => decoded
            .as_str()
            .map(encode_name)
            .ok_or_else(|| "a Name value is a string".to_string()),
        _ => match ComponentCodec::builtin(id) {
            Some(codec) => codec.encode(decoded).map_err(|e| e.to_string()),
            None => Err(
                "scenetree cannot encode a decoded value of this component; give it as \"base64\""
                    .into(),
            ),
        },
    }
}

/// The first key of object `v` that is not one of `keys`.
fn unknown_key<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v str> {
    v.as_object()?
        .keys()
        .map(String::as_str)
        .find(|k| !keys.contains(k))
}

fn unknown_key_message(key: &str, keys: &[&str]) -> String {
    format!(
        "unknown key {key:?} (expected {}; a file from a newer scenetree?)",
        keys.join(", ")
    )
}

const TRANSFORM_KEYS: [&str; 4] = ["position", "rotation", "scale", "parent"];

fn parse_transform(v: &Value) -> Result<Transform, String> {
    if let Some(key) = unknown_key(v, &TRANSFORM_KEYS) {
        return Err(format!(
            "value: {}",
            unknown_key_message(key, &TRANSFORM_KEYS)
        ));
    }
    let floats = |field: &str, n: usize| -> Result<Vec<f32>, String> {
        let list = v
            .get(field)
            .and_then(Value::as_array)
            .ok_or(format!("{field}: expected a list of {n} numbers"))?;
        if list.len() != n {
            return Err(format!(
                "{field}: expected {n} numbers, found {}",
                list.len()
            ));
        }
        list.iter()
            .map(|x| {
                x.as_f64()
                    .map(|f| f as f32)
                    .ok_or(format!("{field}: {x} is not a number"))
            })
            .collect()
    };
    let p = floats("position", 3)?;
    let r = floats("rotation", 4)?;
    let s = floats("scale", 3)?;
    let parent = match v.get("parent") {
        None => 0,
        Some(p) => p
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or("parent: expected an entity id")?,
    };
    Ok(Transform {
        position: glam::Vec3::new(p[0], p[1], p[2]),
        rotation: glam::Quat::from_xyzw(r[0], r[1], r[2], r[3]),
        scale: glam::Vec3::new(s[0], s[1], s[2]),
        parent: Entity(parent),
    })
}

/// Reads a native scene file.
pub fn read_native(path: &Path) -> Result<Replica, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    parse_native(path, &text)
}
