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
//! The actions are read by serde (`parse_action.rs`: the `"do"` tag, then that action's
//! fields as a derived struct; `values.rs`: the values with their own checks), the document
//! around them by a small walker over the JSON that keeps each value's path.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use glam::{Quat, Vec3};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::values::EntityRef;
use super::{ErrorAt, FORMAT, InitialEntity, InitialState, Scenario, ScenarioError, ScenarioStep};
use crate::crdt::network::{MAX_PEERS, MIN_PEERS, PeerId};
use crate::crdt::stream::decode_stream;
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
    let top: Result<TopLevel, _> = serde_json::from_str(text);
    let (doc, steps) = match top {
        Ok(TopLevel(fields)) => {
            // Everything but the steps as values (small); the steps as their text.
            let mut doc = serde_json::Map::new();
            let mut steps = None;
            for (key, raw) in fields {
                if key == "steps" {
                    steps = Some(raw);
                    doc.insert(key, Value::Null);
                } else {
                    doc.insert(key, serde_json::from_str(raw.get()).map_err(syntax)?);
                }
            }
            (Value::Object(doc), steps)
        }
        // Not an object (or not JSON): the value reader says which, where.
        Err(_) => (serde_json::from_str(text).map_err(syntax)?, None),
    };
    let root = Node::root(&doc);
    root.only(&[
        "format",
        "title",
        "explanation",
        "peers",
        "peer_names",
        "seed",
        "one_message_per_tick",
        "replies",
        "initial",
        "steps",
    ])?;
    match root.get("format") {
        None => {
            return Err(root.error(format!(
                "missing \"format\": a scenario starts with \"format\": \"{FORMAT}\""
            )));
        }
        Some(f) => {
            let tag = f.str()?;
            if tag != FORMAT {
                return Err(f.error(format!("expected \"{FORMAT}\", found \"{tag}\"")));
            }
        }
    }
    let peers_node = root.req("peers")?;
    let peers = peers_node.uint()?;
    if !(MIN_PEERS as u64..=MAX_PEERS as u64).contains(&peers) {
        return Err(peers_node.error(format!(
            "a scenario has {MIN_PEERS} to {MAX_PEERS} peers, not {peers}"
        )));
    }
    let peer_names = match root.get("peer_names") {
        None => Vec::new(),
        Some(node) => {
            let names = (node.array()?.iter())
                .map(|n| n.str().map(str::to_owned))
                .collect::<Result<Vec<_>, _>>()?;
            if names.len() as u64 != peers {
                return Err(node.error(format!(
                    "one name per peer: {peers} peers, {} names",
                    names.len()
                )));
            }
            names
        }
    };
    let mut p = Parser {
        peers: peers as usize,
        names: BTreeMap::new(),
    };
    let initial = match root.get("initial") {
        Some(node) => p.initial(&node)?,
        None => InitialState::default(),
    };
    let steps_node = root.req("steps")?;
    let steps = match steps.map(|raw| serde_json::from_str::<Vec<&RawValue>>(raw.get())) {
        Some(Ok(list)) => (list.into_iter().enumerate())
            .map(|(i, raw)| {
                let value: Value = serde_json::from_str(raw.get()).map_err(syntax)?;
                p.step(&Node {
                    value: &value,
                    path: format!("steps[{i}]"),
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(steps_node.error("expected a list")),
    };
    Ok(Scenario {
        title: root.opt_str("title")?.unwrap_or_default(),
        explanation: root.opt_str("explanation")?.unwrap_or_default(),
        peers: peers as usize,
        peer_names,
        seed: root.get("seed").map(|s| s.uint()).transpose()?.unwrap_or(0),
        one_message_per_tick: root
            .get("one_message_per_tick")
            .map(|b| b.bool())
            .transpose()?
            .unwrap_or(false),
        replies: (root.get("replies").map(|b| b.bool()).transpose()?).unwrap_or(true),
        initial,
        steps,
    })
}

/// A JSON value with its path.
pub(super) struct Node<'a> {
    pub(super) value: &'a Value,
    path: String,
}

impl<'a> Node<'a> {
    fn root(value: &'a Value) -> Self {
        Node {
            value,
            path: String::new(),
        }
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
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
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

    /// Refuses fields other than `allowed` (and refuses non-objects).
    pub(super) fn only(&self, allowed: &[&str]) -> Result<(), ScenarioError> {
        let map = self
            .value
            .as_object()
            .ok_or_else(|| self.error("expected an object"))?;
        match map.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(self.error(format!(
                "unknown field \"{k}\" (expected one of: {})",
                allowed.join(", ")
            ))),
            None => Ok(()),
        }
    }

    pub(super) fn array(&self) -> Result<Vec<Node<'a>>, ScenarioError> {
        let list = self
            .value
            .as_array()
            .ok_or_else(|| self.error("expected a list"))?;
        Ok(list
            .iter()
            .enumerate()
            .map(|(i, value)| Node {
                value,
                path: format!("{}[{i}]", self.path),
            })
            .collect())
    }

    pub(super) fn str(&self) -> Result<&'a str, ScenarioError> {
        self.value
            .as_str()
            .ok_or_else(|| self.error("expected a string"))
    }

    pub(super) fn opt_str(&self, key: &str) -> Result<Option<String>, ScenarioError> {
        self.get(key)
            .map(|n| n.str().map(str::to_owned))
            .transpose()
    }

    pub(super) fn uint(&self) -> Result<u64, ScenarioError> {
        self.value
            .as_u64()
            .ok_or_else(|| self.error(format!("expected a whole number ≥ 0, found {}", self.value)))
    }

    pub(super) fn u32(&self) -> Result<u32, ScenarioError> {
        u32::try_from(self.uint()?).map_err(|_| self.error("expected a number below 2^32"))
    }

    pub(super) fn bool(&self) -> Result<bool, ScenarioError> {
        self.value
            .as_bool()
            .ok_or_else(|| self.error("expected true or false"))
    }

    pub(super) fn floats<const N: usize>(&self) -> Result<[f32; N], ScenarioError> {
        let list = self
            .value
            .as_array()
            .filter(|l| l.len() == N)
            .ok_or_else(|| self.error(format!("expected a list of {N} numbers")))?;
        let mut out = [0.0; N];
        for (slot, v) in out.iter_mut().zip(list) {
            let x = v
                .as_f64()
                .ok_or_else(|| self.error(format!("{v} is not a number")))?;
            // Finite f64 beyond f32's range would become infinite.
            if (x as f32).is_infinite() {
                return Err(self.error(format!("{x} does not fit a 32-bit float")));
            }
            *slot = x as f32;
        }
        Ok(out)
    }

    pub(super) fn base64(&self) -> Result<Vec<u8>, ScenarioError> {
        BASE64
            .decode(self.str()?)
            .map_err(|e| self.error(format!("not valid base64: {e}")))
    }
}

/// Parsing state: the peer count and the declared entity names.
pub(super) struct Parser {
    peers: usize,
    names: BTreeMap<String, Entity>,
}

impl Parser {
    fn initial(&mut self, node: &Node) -> Result<InitialState, ScenarioError> {
        node.only(&["entities", "stream"])?;
        let mut state = InitialState::default();
        if let Some(stream) = node.get("stream") {
            let bytes = stream.base64()?;
            let decoded = decode_stream(&bytes).map_err(|e| {
                stream.error(format!("at byte {} of the stream: {}", e.offset, e.kind))
            })?;
            state.stream = decoded.messages;
        }
        let Some(entities) = node.get("entities") else {
            return Ok(state);
        };
        let entities = entities.array()?;
        // Names first, so a parent may be declared after its child.
        for e in &entities {
            if let Some(name) = e.get("name") {
                let entity = Entity(e.req("entity")?.u32()?);
                if let Some(old) = self.names.insert(name.str()?.to_string(), entity)
                    && old != entity
                {
                    return Err(name.error(format!(
                        "the name is already used by entity {old}; names must be unique"
                    )));
                }
            }
        }
        for e in &entities {
            e.only(&[
                "entity",
                "name",
                "parent",
                "position",
                "rotation",
                "scale",
                "transform",
                "timestamp",
            ])?;
            let has_transform = e.get("transform").map(|t| t.bool()).transpose()?;
            let transform = if has_transform == Some(false) {
                for field in ["parent", "position", "rotation", "scale"] {
                    if let Some(f) = e.get(field) {
                        return Err(f.error("this entity has \"transform\": false"));
                    }
                }
                None
            } else {
                let mut t = Transform::IDENTITY;
                self.transform_fields(e, &mut t)?;
                Some(t)
            };
            state.entities.push(InitialEntity {
                entity: Entity(e.req("entity")?.u32()?),
                name: e.opt_str("name")?,
                transform,
                timestamp: e
                    .get("timestamp")
                    .map(|t| t.u32())
                    .transpose()?
                    .unwrap_or(1),
            });
        }
        Ok(state)
    }

    /// Reads `parent`, `position`, `rotation`, `scale` into `t` where given.
    fn transform_fields(&self, node: &Node, t: &mut Transform) -> Result<(), ScenarioError> {
        if let Some(p) = node.get("parent") {
            t.parent = self.entity(&p)?;
        }
        if let Some(p) = node.get("position") {
            t.position = Vec3::from_array(p.floats::<3>()?);
        }
        if let Some(r) = node.get("rotation") {
            t.rotation = Quat::from_array(r.floats::<4>()?);
        }
        if let Some(s) = node.get("scale") {
            t.scale = Vec3::from_array(s.floats::<3>()?);
        }
        Ok(())
    }

    pub(super) fn entity(&self, node: &Node) -> Result<Entity, ScenarioError> {
        let reference = match node.value {
            Value::String(name) => EntityRef::Name(name.clone()),
            _ => EntityRef::Id(
                node.u32()
                    .map_err(|_| node.error("expected an entity id or a declared name"))?,
            ),
        };
        self.resolve_entity(&reference).map_err(|m| node.error(m))
    }

    /// The entity `reference` names, or why none.
    pub(super) fn resolve_entity(&self, reference: &EntityRef) -> Result<Entity, String> {
        match reference {
            EntityRef::Id(id) => Ok(Entity(*id)),
            EntityRef::Name(name) => self.names.get(name).copied().ok_or_else(|| {
                let known: Vec<&str> = self.names.keys().map(String::as_str).collect();
                format!(
                    "no entity is named \"{name}\" in initial.entities (names: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )
            }),
        }
    }

    /// Peer number `n` (from 1), or why it is not one of the scenario's.
    pub(super) fn peer_number(&self, n: u64) -> Result<PeerId, String> {
        if n == 0 || n > self.peers as u64 {
            return Err(format!("peers are numbered 1 to {}, found {n}", self.peers));
        }
        Ok(PeerId(n as u8))
    }

    fn step(&self, node: &Node) -> Result<ScenarioStep, ScenarioError> {
        node.only(&["text", "actions"])?;
        Ok(ScenarioStep {
            text: node.opt_str("text")?,
            actions: node
                .req("actions")?
                .array()?
                .iter()
                .map(|a| self.action(a))
                .collect::<Result<_, _>>()?,
        })
    }
}
