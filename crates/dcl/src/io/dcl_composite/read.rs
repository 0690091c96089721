//! Reading a `main.composite` into a replica and a [`CompositeDoc`].

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Value};

use super::{Codec, CompositeComponent, CompositeDoc, CompositeReport, Entry};
use crate::io::error::LoadError;
use crate::{ComponentCodec, component_id, is_core_grow_only};
use scenetree_core::crdt::replica::canonical_transform_bytes;
use scenetree_core::crdt::{CrdtMessage, Replica};
use scenetree_core::model::Entity;
use scenetree_core::model::present::{MESSAGE_CHARS, VALUE_CHARS, excerpt, quoted};

/// Reads a `main.composite`.
pub fn load_composite(path: &Path) -> Result<(Replica, CompositeDoc, CompositeReport), LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    parse_composite(path, &text)
}

/// Parses a composite's text. Structural problems (not JSON, no component list, a data key
/// that is not an entity, bad base64) are errors naming the JSON path; a value whose bytes
/// cannot be produced is kept unchanged and reported in [`CompositeReport::warnings`].
pub fn parse_composite(
    path: &Path,
    text: &str,
) -> Result<(Replica, CompositeDoc, CompositeReport), LoadError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| LoadError::json_syntax(path, &e))?;
    let fail = |at: &str, message: String| LoadError::at_json(path, at, message);
    let Value::Object(mut top) = doc else {
        return Err(LoadError::file(
            path,
            "not a main.composite: expected a JSON object",
        ));
    };
    // The list moves into the components read from it; the key keeps its place in `top` (a
    // save writes the components there).
    let Some(list) = top.get_mut("components") else {
        return Err(fail(
            "components",
            "missing: a main.composite has a \"components\" list".into(),
        ));
    };
    let Value::Array(list) = std::mem::replace(list, Value::Array(Vec::new())) else {
        return Err(fail("components", "expected a list".into()));
    };
    let mut report = CompositeReport::default();
    let mut components: Vec<CompositeComponent> = Vec::with_capacity(list.len());
    for (i, item) in list.into_iter().enumerate() {
        let at = format!("components[{i}]");
        let component = read_component(item, &at, &mut report).map_err(|(p, m)| fail(&p, m))?;
        if components.iter().any(|c| c.name == component.name) {
            return Err(fail(
                &format!("{at}.name"),
                format!("component {} is listed twice", quoted(&component.name)),
            ));
        }
        components.push(component);
    }
    let mut replica = Replica::new();
    for c in &components {
        let (Some(id), loaded) = (c.id, c.entries.iter().filter(|e| e.loaded.is_some())) else {
            continue;
        };
        for e in loaded {
            replica.apply(&CrdtMessage::PutComponent {
                entity: e.entity,
                component: id,
                timestamp: 0,
                data: e.loaded.clone().expect("filtered"),
            });
        }
    }
    let layout = super::JsonLayout::detect(text);
    Ok((
        replica,
        CompositeDoc {
            top,
            components,
            layout,
        },
        report,
    ))
}

type ReadError = (String, String);

/// Reads one component object; its values move into the entries, its `"data"` key keeps its
/// place in [`CompositeComponent::raw`] (a save writes the values there).
fn read_component(
    item: Value,
    at: &str,
    report: &mut CompositeReport,
) -> Result<CompositeComponent, ReadError> {
    let Value::Object(mut raw) = item else {
        return Err((at.into(), "expected a component object".into()));
    };
    let name = match raw.get("name") {
        Some(Value::String(n)) => n.clone(),
        _ => return Err((format!("{at}.name"), "expected the component's name".into())),
    };
    let data = match raw.get_mut("data") {
        None => Map::new(),
        Some(Value::Object(d)) => std::mem::take(d),
        Some(_) => return Err((format!("{at}.data"), "expected an object".into())),
    };
    let id = component_id(&name);
    let (codec, why) = choose_codec(&name, id, raw.get("jsonSchema"), !data.is_empty());
    let mut entries = Vec::with_capacity(data.len());
    let mut seen = rustc_hash::FxHashSet::default();
    for (key, value) in data {
        // The entry's JSON path is spelled out only for a message: building it for each entry
        // costs a tenth of reading a large composite.
        let place = ValuePlace {
            component_at: at,
            key: &key,
            component: &name,
            entity: Entity(0),
        };
        let entity = parse_entity_key(&key).ok_or_else(|| {
            (
                place.at(),
                "a data key is an entity number (a decimal integer below 2^32)".to_string(),
            )
        })?;
        if !seen.insert(entity) {
            return Err((place.at(), format!("entity {entity} appears twice")));
        }
        let place = ValuePlace { entity, ..place };
        let loaded = match load_value(&codec, id, &value, &place)? {
            Ok(bytes) => Some(bytes),
            Err(Some(warning)) => {
                report.warnings.push(warning);
                None
            }
            Err(None) => None,
        };
        entries.push(Entry {
            entity,
            data: value,
            loaded,
        });
    }
    let n_loaded = entries.iter().filter(|e| e.loaded.is_some()).count();
    if n_loaded > 0 {
        report.loaded.push((name.clone(), n_loaded));
    }
    if n_loaded < entries.len() {
        let reason = why.unwrap_or_else(|| "some values could not be read (see warnings)".into());
        report
            .preserved
            .push((name.clone(), entries.len() - n_loaded, reason));
    }
    Ok(CompositeComponent {
        name,
        id,
        raw,
        codec,
        entries,
    })
}

/// The codec for a component, and why its JSON values cannot be loaded when they cannot.
fn choose_codec(
    name: &str,
    id: Option<u32>,
    json_schema: Option<&Value>,
    has_data: bool,
) -> (Codec, Option<String>) {
    let Some(id) = id else {
        return (
            Codec::Preserved,
            Some("@dcl/ecs 7.28.0 has no core component of this name".into()),
        );
    };
    if name == "composite::root" && has_data {
        return (
            Codec::Preserved,
            Some("nested composites are not expanded by scenetree".into()),
        );
    }
    match ComponentCodec::for_component(name, id, json_schema) {
        Ok(codec) => (Codec::Value(codec), None),
        Err(why) if is_core_grow_only(id) => (Codec::Preserved, Some(why.to_string())),
        Err(why) => (Codec::BinaryOnly, Some(why.to_string())),
    }
}

/// The bytes of one data entry: `Ok(Ok(bytes))`; `Ok(Err(Some(warning)))` when the value is
/// kept unloaded for a reason worth telling; `Ok(Err(None))` when the component is preserved
/// as a whole; `Err` for a malformed entry.
fn load_value(
    codec: &Codec,
    id: Option<u32>,
    value: &Value,
    place: &ValuePlace,
) -> Result<Result<Vec<u8>, Option<String>>, ReadError> {
    let Value::Object(entry) = value else {
        return Err((
            place.at(),
            "expected {\"json\": value} or {\"binary\": base64}".into(),
        ));
    };
    let warn = |path: &str, e: String| Ok(Err(Some(place.warning(path, &e))));
    // The runtime takes "json" when it is set (not null), else "binary".
    if let Some(json) = entry.get("json").filter(|j| !j.is_null()) {
        let bytes = match codec {
            Codec::Value(c) => c.encode(json),
            Codec::BinaryOnly | Codec::Preserved => return Ok(Err(None)),
        };
        return match bytes {
            Ok(b) => Ok(Ok(b)),
            Err(e) => warn(&format!(".json{}", e.path), e.message),
        };
    }
    let Some(binary) = entry.get("binary") else {
        return Err((
            place.at(),
            "expected {\"json\": value} or {\"binary\": base64}".into(),
        ));
    };
    let bytes = binary
        .as_str()
        .and_then(|s| BASE64.decode(s).ok())
        .ok_or_else(|| {
            (
                format!("{}.binary", place.at()),
                "expected a base64 string".to_string(),
            )
        })?;
    if id.is_none() || *codec == Codec::Preserved {
        return Ok(Err(None));
    }
    // Binary values are taken as given, as the replica keeps every value but a Transform as
    // opaque bytes. (The runtime deserializes and re-serializes them, which changes only
    // non-canonical encodings.) A Transform is re-encoded exactly as the runtime does.
    Ok(match codec {
        Codec::Value(ComponentCodec::Transform) => match canonical_transform_bytes(&bytes) {
            Some(canonical) => Ok(canonical.to_vec()),
            None => {
                return warn(
                    ".binary",
                    format!("a Transform is 44 bytes, found {}", bytes.len()),
                );
            }
        },
        _ => Ok(bytes),
    })
}

/// Where a data entry is: its component's JSON path and its key, and the component and entity
/// it gives a value.
struct ValuePlace<'a> {
    component_at: &'a str,
    key: &'a str,
    component: &'a str,
    entity: Entity,
}

impl ValuePlace<'_> {
    /// The entry's JSON path: `components[5].data["534"]` (a key that is no number cut to
    /// a readable length).
    fn at(&self) -> String {
        format!("{}.data[{}]", self.component_at, quoted(self.key))
    }

    /// `core::Material on entity 534, field .material.pbr.albedoColor.r: expected a number
    /// (at components[5].data["534"].json.material…); kept unchanged`.
    fn warning(&self, path: &str, problem: &str) -> String {
        let field = path
            .strip_prefix(".json")
            .or_else(|| path.strip_prefix(".binary"))
            .unwrap_or(path);
        let field = if field.is_empty() {
            String::new()
        } else {
            format!(", field {field}")
        };
        // The component's name, the field's path and the problem may all repeat the file.
        let warning = format!(
            "{} on entity {}{field}: {problem} (at {}{path}); kept unchanged",
            excerpt(self.component, VALUE_CHARS),
            self.entity,
            self.at()
        );
        excerpt(&warning, MESSAGE_CHARS).into_owned()
    }
}

/// A data key as an entity: a canonical decimal integer below 2³².
fn parse_entity_key(key: &str) -> Option<Entity> {
    let n: u32 = key.parse().ok()?;
    (n.to_string() == key).then_some(Entity(n))
}
