//! Reading a scenario from JSON text, with every error naming its JSON path.
//!
//! Top level: `format` (must be `"scenetree-scenario/1"`), `title`, `explanation` (optional),
//! `peers` (2 to 8), `peer_names` (optional: one name per peer, peer 1 first), `seed`
//! (optional, 0), `one_message_per_tick` (optional, false: files written before the setting
//! existed keep their meaning), `replies` (optional, true: whether deliveries send replies and
//! announcements), `initial` (optional), `steps`.
//!
//! `initial`: `entities`, a list of `{ "entity": id, "name"?, "parent"?, "position"?,
//! "rotation"?, "scale"?, "transform"?: false, "timestamp"?: 1 }` (a Transform is written unless
//! `"transform": false`; position in meters, rotation a quaternion `[x, y, z, w]`), and
//! `stream`, base64 of CRDT messages applied before the entities.
//!
//! Each step: `{ "text"?: "...", "actions": [ ... ] }`. Each action is an object with `"do"`:
//!
//! | do | fields |
//! |---|---|
//! | `move` | `peer`, `entity`, and any of `parent`, `position`, `rotation`, `scale` |
//! | `rename` | `peer`, `entity`, `name` |
//! | `put`, `append` | `peer`, `entity`, `component`, `base64` |
//! | `delete_component` | `peer`, `entity`, `component` |
//! | `delete_entity` | `peer`, `entity` |
//! | `authored` | `peer`, `stream` (base64 CRDT messages the peer wrote outside the network) |
//! | `deliver`, `drop`, `duplicate` | a message: `id`, or `from` and/or `to` with `nth` (from 1, default 1) |
//! | `deliver_all` | `order`? (`"send"`, `"reverse"`, `"random"`), `from`?, `to`? |
//! | `reorder` | a message (as for `deliver`) and `index` (its new position, from 0) |
//! | `offline`, `online` | `peer` |
//! | `tick`, `advance` | `ticks` |
//! | `auto_delivery` | `latency` and `jitter`? to turn it on, or `"off": true` |
//! | `one_message_per_tick` | `on` (true or false) |
//!
//! Entities are ids (numbers) or names declared in `initial.entities`; components are ids or
//! known names (`"core::Transform"`, or `"Transform"`, `"Name"`). Unknown fields are errors, so
//! a typo never goes unnoticed.
//!
//! serde reads the file into the schema's structs (`schema.rs`, which the writer writes too;
//! `values.rs`: the values with their own checks); then the names, the peer numbers and each
//! action (once its `"do"` is known: `parse_action.rs`) are resolved, each error at its JSON
//! path.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use super::schema::{EntityFile, InitialFile, ScenarioFile, StepFile};
use super::values::EntityRef;
use super::{ErrorAt, FORMAT, InitialEntity, InitialState, Scenario, ScenarioError, ScenarioStep};
use crate::crdt::network::{MAX_PEERS, MIN_PEERS, PeerId};
use crate::model::{Entity, Transform};

/// The top-level fields of a document, in order, each still as its text: the steps of a long
/// run are then read one at a time (a tree of every step's values took gigabytes and most of
/// the time for a run of a million steps).
struct TopLevel<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for TopLevel<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = TopLevel<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Self::Value, M::Error> {
                let mut fields = Vec::new();
                while let Some(field) = map.next_entry::<String, &'de RawValue>()? {
                    fields.push(field);
                }
                Ok(TopLevel(fields))
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// Reads a scenario from JSON text.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let syntax = |e: serde_json::Error| ScenarioError {
        at: ErrorAt::Syntax {
            line: e.line(),
            column: e.column(),
        },
        message: format!(
            "not valid JSON: {}",
            crate::model::present::json_syntax_problem(&e)
        ),
    };
    // Everything but the steps as a value (small); the steps kept as their text, and read
    // one at a time below. An empty list stands in for them while the rest is read.
    let (doc, steps) = match serde_json::from_str::<TopLevel>(text) {
        Ok(TopLevel(fields)) => {
            let mut doc = serde_json::Map::new();
            let mut steps = None;
            for (key, raw) in fields {
                let value = if key == "steps" {
                    steps = Some(raw);
                    Value::Array(Vec::new())
                } else {
                    serde_json::from_str(raw.get()).map_err(syntax)?
                };
                doc.insert(key, value);
            }
            (Value::Object(doc), steps)
        }
        // Not an object (or not JSON): the value reader says which, and where.
        Err(_) => (serde_json::from_str(text).map_err(syntax)?, None),
    };
    // The tag first: a file of another format is told so, not that its fields are unknown.
    if let Value::Object(fields) = &doc {
        match fields.get("format") {
            None => {
                return Err(ScenarioError::at(
                    "",
                    format!("missing \"format\": a scenario starts with \"format\": \"{FORMAT}\""),
                ));
            }
            Some(Value::String(tag)) if tag != FORMAT => {
                return Err(ScenarioError::at(
                    "format",
                    format!("expected \"{FORMAT}\", found \"{tag}\""),
                ));
            }
            Some(_) => {}
        }
    }
    objects_where_the_schema_has_structs(&doc)?;
    let file: ScenarioFile<Value> = read(&Node::root(&doc))?;
    let peers = file.peers;
    if !(MIN_PEERS as u64..=MAX_PEERS as u64).contains(&peers) {
        return Err(ScenarioError::at(
            "peers",
            format!("a scenario has {MIN_PEERS} to {MAX_PEERS} peers, not {peers}"),
        ));
    }
    if let Some(names) = &file.peer_names
        && names.len() as u64 != peers
    {
        return Err(ScenarioError::at(
            "peer_names",
            format!("one name per peer: {peers} peers, {} names", names.len()),
        ));
    }
    let mut p = Parser {
        peers: peers as usize,
        names: Names::Declared(BTreeMap::new()),
    };
    let initial = p.initial(file.initial)?;
    let steps = match steps {
        Some(raw) => p.steps(raw)?,
        None => Vec::new(),
    };
    Ok(Scenario {
        title: file.title,
        explanation: file.explanation,
        peers: peers as usize,
        peer_names: file.peer_names.unwrap_or_default(),
        seed: file.seed,
        one_message_per_tick: file.one_message_per_tick,
        replies: file.replies,
        initial,
        steps,
    })
}

/// Refuses a list where the schema has a struct: serde would read it as the struct's fields
/// in order, and a file writes objects (actions are checked as they are read).
fn objects_where_the_schema_has_structs(doc: &Value) -> Result<(), ScenarioError> {
    let object = |value: &Value, path: &dyn Fn() -> String| match value.is_array() {
        true => Err(ScenarioError::at(path(), "expected an object")),
        false => Ok(()),
    };
    object(doc, &String::new)?;
    let list = |key: &str| doc.get(key).and_then(Value::as_array).into_iter().flatten();
    for (i, step) in list("steps").enumerate() {
        object(step, &|| format!("steps[{i}]"))?;
    }
    if let Some(initial) = doc.get("initial") {
        object(initial, &|| "initial".to_owned())?;
        let entities = initial.get("entities").and_then(Value::as_array);
        for (i, entity) in entities.into_iter().flatten().enumerate() {
            object(entity, &|| format!("initial.entities[{i}]"))?;
        }
    }
    Ok(())
}

/// `outer.inner` as a JSON path (`steps[0]` and `actions[1]` make `steps[0].actions[1]`;
/// either may be empty).
pub(super) fn join_path(outer: &str, inner: &str) -> String {
    match (outer, inner) {
        ("", inner) => inner.to_owned(),
        (outer, "") => outer.to_owned(),
        (outer, inner) if inner.starts_with('[') => format!("{outer}{inner}"),
        (outer, inner) => format!("{outer}.{inner}"),
    }
}

/// Reads `node` as `T`; an error names its JSON path below `node`'s and says what was
/// expected in the file's words ("a list", "a whole number ≥ 0"), not Rust's.
pub(super) fn read<T: DeserializeOwned>(node: &Node) -> Result<T, ScenarioError> {
    // Without tracking the path first: tracking it costs more than the read, and only an
    // error needs it (a million-step run spent most of its reading there).
    if let Ok(value) = T::deserialize(node.value) {
        return Ok(value);
    }
    serde_path_to_error::deserialize(node.value).map_err(|e| {
        let inner = match e.path().to_string() {
            root if root == "." => String::new(),
            inner => inner,
        };
        ScenarioError::at(
            join_path(node.path(), &inner),
            in_the_files_words(&e.into_inner().to_string()),
        )
    })
}

/// Reads `text` (a value the document's parse found well formed) as `T`, straight from the
/// text, with errors as [`read`] gives them below `path`: a step's actions become values in
/// one pass, not a value tree copied into another.
fn read_text<T: DeserializeOwned>(text: &str, path: &str) -> Result<T, ScenarioError> {
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let inner = match e.path().to_string() {
            root if root == "." => String::new(),
            inner => inner,
        };
        // serde_json names the line and column within the step: the path says where.
        let message = e.into_inner().to_string();
        let message = message.split(" at line ").next().unwrap_or(&message);
        ScenarioError::at(join_path(path, &inner), in_the_files_words(message))
    })
}

/// serde's message with the file's words for what was expected.
fn in_the_files_words(message: &str) -> String {
    let mut message = message.replace('`', "\"");
    // A derived struct expects "struct ScenarioFile": in the file, an object.
    if let Some(at) = message.find("expected struct ") {
        message.replace_range(at.., "expected an object");
    }
    for (serde_words, file_words) in [
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected u32", "expected a whole number below 2^32"),
        ("expected a sequence", "expected a list"),
        ("expected a boolean", "expected true or false"),
        ("expected a map", "expected an object"),
    ] {
        message = message.replace(serde_words, file_words);
    }
    message
}

/// A JSON value with its path.
pub(super) struct Node<'a> {
    pub(super) value: &'a Value,
    path: String,
}

impl<'a> Node<'a> {
    pub(super) fn root(value: &'a Value) -> Self {
        Node::at(value, String::new())
    }

    pub(super) fn at(value: &'a Value, path: String) -> Self {
        Node { value, path }
    }

    pub(super) fn error(&self, message: impl Into<String>) -> ScenarioError {
        ScenarioError::at(self.path.clone(), message)
    }

    /// This value's JSON path (empty for the document).
    pub(super) fn path(&self) -> &str {
        &self.path
    }

    /// The JSON path of this object's field `key`.
    pub(super) fn child_path(&self, key: &str) -> String {
        join_path(&self.path, key)
    }

    /// Refuses anything but an object.
    pub(super) fn only_object(&self) -> Result<(), ScenarioError> {
        match self.value.is_object() {
            true => Ok(()),
            false => Err(self.error("expected an object")),
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<Node<'a>> {
        let value = self.value.get(key)?;
        Some(Node {
            value,
            path: self.child_path(key),
        })
    }

    pub(super) fn req(&self, key: &str) -> Result<Node<'a>, ScenarioError> {
        self.get(key)
            .ok_or_else(|| self.error(format!("missing \"{key}\"")))
    }
}

/// What entity names mean.
pub(super) enum Names<'a> {
    /// The names declared in `initial.entities`.
    Declared(BTreeMap<String, Entity>),
    /// Looked up by the caller (in a live scene, say), or why the name means no entity.
    Lookup(&'a dyn Fn(&str) -> Result<Entity, String>),
}

/// Parsing state: the peer count and what entity names mean.
pub(super) struct Parser<'a> {
    pub(super) peers: usize,
    pub(super) names: Names<'a>,
}

impl Parser<'_> {
    fn initial(&mut self, file: InitialFile) -> Result<InitialState, ScenarioError> {
        let at = |i: usize, field: &str| format!("initial.entities[{i}].{field}");
        // Names first, so a parent may be declared after its child.
        if let Names::Declared(names) = &mut self.names {
            for (i, e) in file.entities.iter().enumerate() {
                if let Some(name) = &e.name
                    && let Some(old) = names.insert(name.clone(), Entity(e.entity))
                    && old != Entity(e.entity)
                {
                    return Err(ScenarioError::at(
                        at(i, "name"),
                        format!("the name is already used by entity {old}; names must be unique"),
                    ));
                }
            }
        }
        let mut entities = Vec::with_capacity(file.entities.len());
        for (i, e) in file.entities.into_iter().enumerate() {
            let transform = self
                .transform(&e)
                .map_err(|(field, message)| ScenarioError::at(at(i, field), message))?;
            entities.push(InitialEntity {
                entity: Entity(e.entity),
                name: e.name,
                transform,
                timestamp: e.timestamp.unwrap_or(1),
            });
        }
        Ok(InitialState {
            entities,
            stream: file.stream.map(|s| s.0).unwrap_or_default(),
        })
    }

    /// The Transform `e` declares (identity where a field is left out), or `None` with
    /// `"transform": false`; an error names its field.
    fn transform(&self, e: &EntityFile) -> Result<Option<Transform>, (&'static str, String)> {
        if e.transform == Some(false) {
            let given = [
                ("parent", e.parent.is_some()),
                ("position", e.position.is_some()),
                ("rotation", e.rotation.is_some()),
                ("scale", e.scale.is_some()),
            ];
            return match given.into_iter().find(|(_, given)| *given) {
                Some((field, _)) => Err((field, "this entity has \"transform\": false".into())),
                None => Ok(None),
            };
        }
        let identity = Transform::IDENTITY;
        Ok(Some(Transform {
            parent: match &e.parent {
                Some(p) => self.resolve_entity(p).map_err(|m| ("parent", m))?,
                None => identity.parent,
            },
            position: e.position.map_or(identity.position, |v| v.0.into()),
            rotation: e
                .rotation
                .map_or(identity.rotation, |r| glam::Quat::from_array(r.0)),
            scale: e.scale.map_or(identity.scale, |v| v.0.into()),
        }))
    }

    /// The entity `reference` names, or why none.
    pub(super) fn resolve_entity(&self, reference: &EntityRef) -> Result<Entity, String> {
        match (reference, &self.names) {
            (EntityRef::Id(id), _) => Ok(Entity(*id)),
            (EntityRef::Name(name), Names::Lookup(lookup)) => lookup(name),
            (EntityRef::Name(name), Names::Declared(names)) => {
                names.get(name).copied().ok_or_else(|| {
                    let known: Vec<&str> = names.keys().map(String::as_str).collect();
                    format!(
                        "no entity is named \"{name}\" in initial.entities (names: {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    )
                })
            }
        }
    }

    /// Peer number `n` (from 1), or why it is not one of the scenario's.
    pub(super) fn peer_number(&self, n: u64) -> Result<PeerId, String> {
        match u8::try_from(n) {
            Ok(p) if p != 0 && n <= self.peers as u64 => Ok(PeerId(p)),
            _ => Err(format!("peers are numbered 1 to {}, found {n}", self.peers)),
        }
    }

    /// The steps, from the text of their list: each is read into a value, checked and
    /// resolved before the next is read.
    fn steps(&self, list: &RawValue) -> Result<Vec<ScenarioStep>, ScenarioError> {
        let raw: Vec<&RawValue> = serde_json::from_str(list.get())
            .map_err(|_| ScenarioError::at("steps", "expected a list"))?;
        (raw.into_iter().enumerate())
            .map(|(i, raw)| {
                let path = format!("steps[{i}]");
                // A list would be read as the struct's fields in order: a file writes objects.
                if raw.get().starts_with('[') {
                    return Err(ScenarioError::at(path, "expected an object"));
                }
                self.step(i, &read_text(raw.get(), &path)?)
            })
            .collect()
    }

    fn step(&self, index: usize, step: &StepFile<Value>) -> Result<ScenarioStep, ScenarioError> {
        let actions = (step.actions.iter().enumerate())
            .map(|(j, a)| self.action(&Node::at(a, format!("steps[{index}].actions[{j}]"))))
            .collect::<Result<_, _>>()?;
        Ok(ScenarioStep {
            text: step.text.clone(),
            actions,
        })
    }
}
