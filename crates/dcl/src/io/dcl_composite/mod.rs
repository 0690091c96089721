//! Decentraland's `main.composite`: the JSON the Decentraland Inspector writes.
//!
//! ```json
//! { "version": 1,
//!   "components": [
//!     { "name": "core::Transform", "jsonSchema": { … "serializationType": "transform" },
//!       "data": { "512": { "json": { "position": {"x": 8, "y": 0, "z": 8}, … } } } },
//!     { "name": "core::Material", "jsonSchema": { … "serializationType": "protocol-buffer" },
//!       "data": { "534": { "json": { "material": { "$case": "pbr", … } } } } },
//!     { "name": "inspector::Lock", "jsonSchema": { … "serializationType": "map" },
//!       "data": { "523": { "binary": "AQ==" } } } ] }
//! ```
//!
//! Reading turns every value into a replica value (timestamp 0, as the SDK's main.crdt has
//! them) with the bytes `@dcl/ecs` 7.28.0 would produce ([`ComponentCodec`]):
//!
//! - any `{"binary": base64}` value of a component with a known id (the bytes themselves);
//! - the JSON of `core::Transform`, of every protocol-buffer component (Material, Animator, …),
//!   and of every component with a schema-described layout: `core-schema::*`, `inspector::*`,
//!   `asset-packs::*`, and any scene-defined component.
//!
//! Only these are *preserved only*: unknown `core::` names, grow-only components, nested
//! composites (`composite::root` with data), and values the runtime itself would reject (each
//! reported with the component, the entity and the field). They are not in the replica, and a
//! composite saved from the document writes them back unchanged.
//!
//! Writing keeps the file's structure: unknown keys, component order, entity order, and the
//! original JSON of every value that has not changed since it was read. Changed or new values
//! are written as JSON when scenetree can encode that JSON back to the same bytes, otherwise
//! as `binary`. Entries of deleted entities or removed components are left out.

mod read;
mod write;

use serde_json::{Map, Value};

pub use read::{load_composite, parse_composite};
pub use write::{CompositeOutput, composite_json};

use crate::ComponentCodec;
use crate::io::CrdtLayout;
use crate::js::{stringify, stringify_pretty};
use scenetree_core::model::Entity;
use scenetree_core::model::component::ids;

/// A composite as read: everything in it, and how each component's values map to replica
/// values. Kept beside the replica so a save writes the file back faithfully.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompositeDoc {
    /// The top-level object as read; its `"components"` key keeps its place (a save writes
    /// the components there), the list itself moved into `components`.
    top: Map<String, Value>,
    /// The components in file order.
    components: Vec<CompositeComponent>,
    /// How the file was laid out (indentation, what followed the JSON).
    layout: JsonLayout,
}

/// The text layout of a JSON file, kept so that a save writes it the same way: the Inspector
/// writes `JSON.stringify(composite, null, 2)`, other tools minify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonLayout {
    /// The indentation of one level (`"  "`), or `None` for minified JSON.
    indent: Option<String>,
    /// What followed the JSON value (a final newline, or nothing).
    trailer: String,
}

impl Default for JsonLayout {
    /// The Inspector's layout: two spaces, no final newline.
    fn default() -> JsonLayout {
        JsonLayout {
            indent: Some("  ".into()),
            trailer: String::new(),
        }
    }
}

impl JsonLayout {
    /// The layout of a JSON text: indented when its first line break is followed by spaces or
    /// tabs (that run is one level), minified when it has no line break before its end.
    pub fn detect(text: &str) -> JsonLayout {
        let body = text.trim_end();
        let trailer = text[body.len()..].to_owned();
        let indent = body.find('\n').map(|i| {
            body[i + 1..]
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect()
        });
        JsonLayout { indent, trailer }
    }

    /// `value` written in this layout, numbers as JavaScript prints them.
    pub fn write(&self, value: &(impl serde::Serialize + ?Sized)) -> String {
        let mut text = match &self.indent {
            Some(indent) => stringify_pretty(value, indent),
            None => stringify(value),
        };
        text.push_str(&self.trailer);
        text
    }
}

/// One entry of the composite's `components` list.
#[derive(Clone, Debug, PartialEq)]
struct CompositeComponent {
    /// The component's name (`core::Transform`).
    name: String,
    /// The runtime's id for it; `None` for a `core::` name `@dcl/ecs` 7.28.0 does not have.
    id: Option<u32>,
    /// The object as read (name, jsonSchema, data, and any other keys, in order); its
    /// `"data"` key keeps its place, the values themselves moved into `entries`.
    raw: Map<String, Value>,
    /// How its JSON values become bytes.
    codec: Codec,
    /// The `data` entries in file order.
    entries: Vec<Entry>,
}

/// One `data` entry: an entity's value.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    /// The entity (the data key).
    entity: Entity,
    /// The entry's object exactly as read (`{"json": …}` or `{"binary": …}`).
    data: Value,
    /// The bytes it was loaded into the replica as; `None` when preserved only.
    loaded: Option<Vec<u8>>,
}

/// How a component's JSON values become the bytes the runtime stores.
#[derive(Clone, Debug, PartialEq)]
enum Codec {
    /// JSON and binary values load through the component's codec.
    Value(ComponentCodec),
    /// Bytes are known only for `binary` values (no codec fits the JSON).
    BinaryOnly,
    /// Nothing is loaded: kept as read (the reason is in the load warnings).
    Preserved,
}

/// What reading a composite gave, beyond the replica.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompositeReport {
    /// Components whose values went into the replica: (name, values loaded).
    pub loaded: Vec<(String, usize)>,
    /// Components kept only as JSON: (name, values kept, why).
    pub preserved: Vec<(String, usize, String)>,
    /// Individual values that could not be loaded (JSON path and reason); kept unchanged.
    pub warnings: Vec<String>,
}

impl CompositeDoc {
    /// An empty composite (`{"version": 1, "components": []}`), for saving a scene that was
    /// not read from one.
    pub fn new() -> CompositeDoc {
        let mut top = Map::new();
        top.insert("version".into(), Value::from(1));
        top.insert("components".into(), Value::Array(Vec::new()));
        CompositeDoc {
            top,
            components: Vec::new(),
            layout: JsonLayout::default(),
        }
    }

    /// The order in which the SDK writes this composite's values as a main.crdt (what
    /// `sdk-commands build` and the Inspector's `dumpEngineToCrdtCommands` produce): components
    /// in the engine's definition order — Transform, `core-schema::Network-Entity` and
    /// `-Parent`, which every engine defines first, then the composite's order — and each
    /// component's entities in ascending order (the order JavaScript iterates its data keys).
    pub fn sdk_crdt_layout(&self) -> CrdtLayout {
        const ENGINE_FIRST: [u32; 3] = [ids::TRANSFORM, ids::NETWORK_ENTITY, ids::NETWORK_PARENT];
        let mut order: Vec<(usize, &CompositeComponent)> = self
            .components
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let first = ENGINE_FIRST.iter().position(|f| Some(*f) == c.id);
                (first.unwrap_or(ENGINE_FIRST.len() + i), c)
            })
            .collect();
        order.sort_by_key(|(rank, _)| *rank);
        CrdtLayout::from_registers(order.into_iter().flat_map(|(_, c)| {
            let mut entities: Vec<Entity> = c
                .entries
                .iter()
                .filter(|e| e.loaded.is_some())
                .map(|e| e.entity)
                .collect();
            entities.sort_unstable();
            let id = c.id;
            entities.into_iter().filter_map(move |e| Some((e, id?)))
        }))
    }

    /// Names of the components kept only as JSON, with how many values each holds.
    pub fn preserved_components(&self) -> Vec<(&str, usize)> {
        self.components
            .iter()
            .filter(|c| c.entries.iter().any(|e| e.loaded.is_none()))
            .map(|c| {
                let n = c.entries.iter().filter(|e| e.loaded.is_none()).count();
                (c.name.as_str(), n)
            })
            .collect()
    }

    /// The component names and ids the composite declares (for naming hashed ids).
    pub fn component_names(&self) -> impl Iterator<Item = (&str, Option<u32>)> {
        self.components.iter().map(|c| (c.name.as_str(), c.id))
    }

    /// The codec the composite's schema gives a component id, when its values load.
    pub fn codec_of(&self, id: u32) -> Option<&ComponentCodec> {
        self.components
            .iter()
            .find(|c| c.id == Some(id))
            .and_then(|c| match &c.codec {
                Codec::Value(codec) => Some(codec),
                _ => None,
            })
    }

    /// The name the composite gives a component id (scene-defined components included).
    pub fn name_of(&self, id: u32) -> Option<&str> {
        self.components
            .iter()
            .find(|c| c.id == Some(id))
            .map(|c| c.name.as_str())
    }

    /// The values an entity has that are kept only as JSON (not in the replica), for the
    /// inspector to list: (component name, size of the value's JSON text in bytes).
    pub fn preserved_for(&self, entity: Entity) -> Vec<(&str, usize)> {
        self.components
            .iter()
            .flat_map(|c| {
                c.entries
                    .iter()
                    .filter(move |e| e.entity == entity && e.loaded.is_none())
                    .map(move |e| (c.name.as_str(), e.data.to_string().len()))
            })
            .collect()
    }
}
