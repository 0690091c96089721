//! Writing a replica as a `main.composite`, keeping what a [`CompositeDoc`] read.

use std::collections::HashSet;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Value, json};

use super::{Codec, CompositeComponent, CompositeDoc, Entry};
use crate::nodes::inspector_json_schema;
use crate::tool_schemas::tool_json_schema;
use crate::{
    ComponentCodec, builtin_json_schema, display_component_name, is_core_grow_only,
    known_component_name,
};
use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, component};

/// A composite written from a replica.
#[derive(Clone, Debug, PartialEq)]
pub struct CompositeOutput {
    /// The file's text, laid out as the file it was read from (two-space indented JSON, as
    /// the Inspector writes it, for a new composite), numbers as JavaScript prints them.
    pub text: String,
    /// What the replica holds that a composite cannot: values of components with no known
    /// name or schema, and grow-only values. Empty when nothing was lost.
    pub lost: Vec<String>,
}

/// Writes `replica` as a composite, keeping `doc`'s structure and untouched values (see the
/// module docs). Pass [`CompositeDoc::new`] for a scene that was not read from a composite.
pub fn composite_json(replica: &Replica, doc: &CompositeDoc) -> CompositeOutput {
    let mut lost = Vec::new();
    let mut components: Vec<Value> = Vec::with_capacity(doc.components.len());
    let mut written_ids = HashSet::new();
    for c in &doc.components {
        components.push(Value::Object(write_component(replica, c)));
        written_ids.extend(c.id);
    }
    // Components the replica holds that the composite did not.
    let mut new_ids: Vec<u32> = replica
        .live_entities()
        .flat_map(|e| replica.components_of(e))
        .filter(|id| !written_ids.contains(id))
        .collect::<HashSet<u32>>()
        .into_iter()
        .collect();
    new_ids.sort_unstable();
    // `composite::root` values are the runtime's record of instancing a composite (its path
    // and the entity mapping; older SDKs also wrote them into main.crdt): a main.composite
    // never carries them for itself, as the Inspector's show, so a scene read from such a
    // main.crdt loses nothing without them.
    let composite_root = component::component_id_from_name("composite::root");
    for id in new_ids.into_iter().filter(|&id| id != composite_root) {
        let holders: Vec<Entity> = entities_with(replica, id);
        if component::is_grow_only(id) || is_core_grow_only(id) {
            lost.push(format!(
                "{}: grow-only values on {} entit(ies) (a composite holds none)",
                display_component_name(id),
                holders.len()
            ));
            continue;
        }
        let known = builtin_json_schema(id)
            .or_else(|| inspector_json_schema(id))
            .or_else(|| tool_json_schema(id));
        let Some((name, schema_json)) = known else {
            let unknown = if known_component_name(id).is_some() {
                "its jsonSchema"
            } else {
                "its name and jsonSchema"
            };
            lost.push(format!(
                "{} ({} value(s)): scenetree does not know {unknown}",
                display_component_name(id),
                holders.len()
            ));
            continue;
        };
        let codec = codec_for_new(id);
        let mut data = Map::new();
        for e in holders {
            if let Some(bytes) = replica.component_data(e, id) {
                data.insert(e.0.to_string(), encode_data(&codec, bytes, false));
            }
        }
        let mut obj = Map::new();
        obj.insert("name".into(), Value::String(name.into()));
        obj.insert("jsonSchema".into(), schema_json);
        obj.insert("data".into(), Value::Object(data));
        components.push(Value::Object(obj));
    }
    let mut top = doc.top.clone();
    top.insert("components".into(), Value::Array(components));
    let text = doc.layout.write(&Value::Object(top));
    CompositeOutput { text, lost }
}

fn write_component(replica: &Replica, c: &CompositeComponent) -> Map<String, Value> {
    let mut data = Map::new();
    let mut seen = HashSet::new();
    for entry in &c.entries {
        seen.insert(entry.entity);
        if let Some(value) = entry_data(replica, c, entry) {
            data.insert(entry.entity.0.to_string(), value);
        }
    }
    if let Some(id) = c.id.filter(|_| c.codec != Codec::Preserved) {
        for e in entities_with(replica, id) {
            if !seen.contains(&e)
                && let Some(bytes) = replica.component_data(e, id)
            {
                data.insert(e.0.to_string(), encode_data(&c.codec, bytes, false));
            }
        }
    }
    // JavaScript prints integer-like keys in ascending order: new entities go to their place
    // (unless the file itself was not in that order, which is then kept).
    if c.entries.windows(2).all(|w| w[0].entity < w[1].entity) {
        let mut sorted: Vec<(String, Value)> = std::mem::take(&mut data).into_iter().collect();
        sorted.sort_by(|a, b| entity_key_order(&a.0).cmp(&entity_key_order(&b.0)));
        data = sorted.into_iter().collect();
    }
    let mut raw = c.raw.clone();
    // A component read with no "data" key gets one only when it now holds values.
    if raw.contains_key("data") || !data.is_empty() {
        raw.insert("data".into(), Value::Object(data));
    }
    raw
}

/// What to write for a value the composite held: the original when unchanged, the new value
/// when changed, nothing when removed.
fn entry_data(replica: &Replica, c: &CompositeComponent, entry: &Entry) -> Option<Value> {
    let current = c.id.and_then(|id| replica.component_data(entry.entity, id));
    match (&entry.loaded, current) {
        (Some(old), Some(now)) if old.as_slice() == now => Some(entry.data.clone()),
        (_, Some(now)) if c.codec != Codec::Preserved => {
            let was_binary = entry.data.get("json").is_none_or(Value::is_null);
            Some(encode_data(&c.codec, now, was_binary))
        }
        // Loaded and now gone: the component or its entity was removed.
        (Some(_), None) => None,
        // Preserved only: kept unless its entity was deleted.
        (None, _) => (!replica.is_deleted(entry.entity)).then(|| entry.data.clone()),
        (Some(_), Some(_)) => Some(entry.data.clone()),
    }
}

fn entity_key_order(key: &str) -> (u64, &str) {
    (key.parse::<u32>().map_or(u64::MAX, u64::from), key)
}

fn entities_with(replica: &Replica, id: u32) -> Vec<Entity> {
    let mut v: Vec<Entity> = replica
        .live_entities()
        .filter(|e| replica.component_data(*e, id).is_some())
        .collect();
    v.sort_unstable();
    v
}

fn codec_for_new(id: u32) -> Codec {
    ComponentCodec::known(id).map_or(Codec::BinaryOnly, Codec::Value)
}

/// A data entry for bytes: `{"json": …}` when that JSON reads back as exactly these bytes,
/// else `{"binary": base64}`.
fn encode_data(codec: &Codec, bytes: &[u8], prefer_binary: bool) -> Value {
    let json = match codec {
        Codec::Value(c) if !prefer_binary => c.exact_json(bytes),
        _ => None,
    };
    match json {
        Some(j) => json!({ "json": j }),
        None => json!({ "binary": BASE64.encode(bytes) }),
    }
}
