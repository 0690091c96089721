//! Writing a replica as a `main.composite`, keeping what a [`CompositeDoc`] read.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use rustc_hash::FxHashSet;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

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
///
/// The text is printed straight from the document and the replica (see [`TopOut`]) rather than
/// from a `serde_json::Value` of the whole file, so a save holds one new value's JSON at a
/// time and copies no unchanged one.
pub fn composite_json(replica: &Replica, doc: &CompositeDoc) -> CompositeOutput {
    let mut lost = Vec::new();
    let mut components: Vec<ComponentOut> = Vec::with_capacity(doc.components.len());
    let mut written_ids = FxHashSet::default();
    for c in &doc.components {
        components.push(write_component(replica, c));
        written_ids.extend(c.id);
    }
    // Components the replica holds that the composite did not.
    let mut new_ids: Vec<u32> = saved_entities(replica)
        .flat_map(|e| replica.components_of(e))
        .filter(|id| !written_ids.contains(id))
        .collect::<FxHashSet<u32>>()
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
        let data = (holders.into_iter())
            .filter_map(|e| Some((e, EntryOut::encode(replica.component_data(e, id)?, false))))
            .collect();
        let mut fields = Map::new();
        fields.insert("name".into(), Value::String(name.into()));
        fields.insert("jsonSchema".into(), schema_json);
        fields.insert("data".into(), Value::Null); // its place: the data is written there
        components.push(ComponentOut {
            fields: Cow::Owned(fields),
            codec: Cow::Owned(codec_for_new(id)),
            data,
        });
    }
    let top = TopOut {
        fields: &doc.top,
        components: &components,
    };
    let text = doc.layout.write(&top);
    CompositeOutput { text, lost }
}

/// The top-level object as written: the document's keys in their order, `"components"`
/// holding the written components (appended when the document had none).
struct TopOut<'a> {
    fields: &'a Map<String, Value>,
    components: &'a [ComponentOut<'a>],
}

/// One component as written: its object's keys in their order, `"data"` holding `data`
/// (appended when the object had no `"data"` and there are values to write).
struct ComponentOut<'a> {
    fields: Cow<'a, Map<String, Value>>,
    /// How its new values are written.
    codec: Cow<'a, Codec>,
    /// The values to write, in the order to write them.
    data: Vec<(Entity, EntryOut<'a>)>,
}

/// One value as written: the entry as read (unchanged), or the replica's bytes, encoded as a
/// `{"json": …}` or `{"binary": …}` entry only when printed, so that a scene's worth of
/// JSON values never lives in memory at once.
enum EntryOut<'a> {
    Kept(&'a Value),
    Encoded {
        bytes: &'a [u8],
        /// The entry was `binary`: it stays so.
        prefer_binary: bool,
    },
}

impl<'a> EntryOut<'a> {
    fn encode(bytes: &'a [u8], prefer_binary: bool) -> Self {
        EntryOut::Encoded {
            bytes,
            prefer_binary,
        }
    }
}

impl Serialize for TopOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        const KEY: &str = "components";
        let appended = !self.fields.contains_key(KEY);
        let mut map = serializer.serialize_map(Some(self.fields.len() + usize::from(appended)))?;
        for (key, value) in self.fields {
            if key == KEY {
                map.serialize_entry(key, self.components)?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        if appended {
            map.serialize_entry(KEY, self.components)?;
        }
        map.end()
    }
}

impl Serialize for ComponentOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        const KEY: &str = "data";
        let appended = !self.fields.contains_key(KEY) && !self.data.is_empty();
        let mut map = serializer.serialize_map(Some(self.fields.len() + usize::from(appended)))?;
        for (key, value) in self.fields.iter() {
            if key == KEY {
                map.serialize_entry(key, &DataOut(self))?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        if appended {
            map.serialize_entry(KEY, &DataOut(self))?;
        }
        map.end()
    }
}

/// A component's `"data"` object: entity numbers as keys (JSON prints them quoted).
struct DataOut<'a>(&'a ComponentOut<'a>);

impl Serialize for DataOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let component = self.0;
        let mut map = serializer.serialize_map(Some(component.data.len()))?;
        for (entity, entry) in &component.data {
            map.serialize_key(&entity.0)?;
            match *entry {
                EntryOut::Kept(value) => map.serialize_value(value)?,
                EntryOut::Encoded {
                    bytes,
                    prefer_binary,
                } => map.serialize_value(&encode_data(&component.codec, bytes, prefer_binary))?,
            }
        }
        map.end()
    }
}

/// A new or changed value: `{"json": …}` or `{"binary": base64}`.
enum Encoded {
    Json(Value),
    Binary(String),
}

impl Serialize for Encoded {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Encoded::Json(json) => map.serialize_entry("json", json)?,
            Encoded::Binary(base64) => map.serialize_entry("binary", base64)?,
        }
        map.end()
    }
}

fn write_component<'a>(replica: &'a Replica, c: &'a CompositeComponent) -> ComponentOut<'a> {
    let mut data: Vec<(Entity, EntryOut<'a>)> = (c.entries.iter())
        .filter_map(|entry| Some((entry.entity, entry_data(replica, c, entry)?)))
        .collect();
    if let Some(id) = c.id.filter(|_| c.codec != Codec::Preserved) {
        let seen: FxHashSet<Entity> = c.entries.iter().map(|entry| entry.entity).collect();
        for e in entities_with(replica, id) {
            if !seen.contains(&e)
                && let Some(bytes) = replica.component_data(e, id)
            {
                data.push((e, EntryOut::encode(bytes, false)));
            }
        }
    }
    // JavaScript prints integer-like keys in ascending order: new entities go to their place
    // (unless the file itself was not in that order, which is then kept).
    if c.entries.windows(2).all(|w| w[0].entity < w[1].entity) {
        data.sort_by_key(|(e, _)| *e);
    }
    ComponentOut {
        fields: Cow::Borrowed(&c.raw),
        codec: Cow::Borrowed(&c.codec),
        data,
    }
}

/// What to write for a value the composite held: the original when unchanged, the new value
/// when changed, nothing when removed.
fn entry_data<'a>(
    replica: &'a Replica,
    c: &CompositeComponent,
    entry: &'a Entry,
) -> Option<EntryOut<'a>> {
    // A retired version of a number (see `saved_entities`) holds its values but saves none.
    let current = (c.id)
        .filter(|_| !replica.is_deleted(entry.entity))
        .and_then(|id| replica.component_data(entry.entity, id));
    match (&entry.loaded, current) {
        (Some(old), Some(now)) if old.as_slice() == now => Some(EntryOut::Kept(&entry.data)),
        (_, Some(now)) if c.codec != Codec::Preserved => {
            let was_binary = entry.data.get("json").is_none_or(Value::is_null);
            Some(EntryOut::encode(now, was_binary))
        }
        // Loaded and now gone: the component or its entity was removed.
        (Some(_), None) => None,
        // Preserved only: kept unless its entity was deleted.
        (None, _) => (!replica.is_deleted(entry.entity)).then_some(EntryOut::Kept(&entry.data)),
        (Some(_), Some(_)) => Some(EntryOut::Kept(&entry.data)),
    }
}

/// The entities whose values a composite holds: those holding components, less the versions
/// of a number retired by a newer one. `@dcl/ecs` ignores every message for a retired
/// version, so their values are shown as read but saved in no format (the loading note says
/// so); main.crdt and native files leave them out the same way.
fn saved_entities(replica: &Replica) -> impl Iterator<Item = Entity> + '_ {
    replica.live_entities().filter(|&e| !replica.is_deleted(e))
}

fn entities_with(replica: &Replica, id: u32) -> Vec<Entity> {
    let mut v: Vec<Entity> = saved_entities(replica)
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
fn encode_data(codec: &Codec, bytes: &[u8], prefer_binary: bool) -> Encoded {
    let json = match codec {
        Codec::Value(c) if !prefer_binary => c.exact_json(bytes),
        _ => None,
    };
    match json {
        Some(j) => Encoded::Json(j),
        None => Encoded::Binary(BASE64.encode(bytes)),
    }
}
