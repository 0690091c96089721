//! The file format of a multiplayer lesson, `scenetree-net-scenario/1` (JSON). One set of serde
//! structs is both the reader and the writer, so what one writes the other reads:
//!
//! ```json
//! {
//!   "format": "scenetree-net-scenario/1",
//!   "title": "Child before parent",
//!   "explanation": "Shown before the first step.",
//!   "players": [ { "address": "0xaaaa…", "name": "A" }, { "address": "0xbbbb…", "name": "B" } ],
//!   "rounds": [
//!     { "A": [], "B": [] },
//!     { "A": [ { "op": "transform", "entity": "P", "position": [4, 0, 4] },
//!              { "op": "sync", "entity": "P" } ], "B": [] }
//!   ],
//!   "steps": [
//!     { "text": "A makes P.", "actions": [ { "do": "play", "ticks": 4 } ] },
//!     { "actions": [ { "do": "delay", "from": "A", "tick": 1, "to": "B", "ticks": 2 } ] }
//!   ]
//! }
//! ```
//!
//! - `rounds`: in each, the players named tick in the order written, each with its scene's
//!   writes (a player absent from a round does not tick: a late joiner starts at its first
//!   round). A player's ticks are numbered from 0.
//! - Writes (`"op"`): `transform` (`entity`, `position`? in meters, `parent`? the raw parent
//!   number, 0 unless given: setting it on a synced entity is hazard 2), `name` (`entity`,
//!   `name`), `sync` (`entity`, `components`? ids, Transform unless given, `fixed_id`?),
//!   `parent` (`entity`, `parent`: `parentEntity`), `remove_parent` (`entity`), `remove`
//!   (`entity`: `removeEntity`), `put` (`entity`, `component`, `base64`), `delete` (`entity`,
//!   `component`).
//! - Entities: a name of the player's own scene entities (each new name is the scene's next
//!   `engine.addEntity()`), a number (that entity as the player numbers it), `{"player": "A",
//!   "entity": 512}` (A's entity 512, through the network map), or `{"fixed": 1}`
//!   (`syncEntity`'s fixed id).
//! - Step actions (`"do"`): `play` (`ticks`? the timeline moves on so many ticks, to the end
//!   unless given), `seek` (`step`: the timeline goes there, back or forth), and the delivery controls `deliver`, `drop`, `duplicate`, `delay`
//!   (`ticks`), `reorder` (`before`: another delivery to the same player), each naming a
//!   delivery by `from`, `tick` (the sender's), `to` and `item`? (its position among the
//!   items that tick sent, 0 unless given).
//!
//! Unknown fields are errors; every error names its JSON path (a [`ScenarioError`], as for
//! the peers' scenarios).

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::crdt::scenario::{ErrorAt, ScenarioError};
use crate::net::capture::{Base64, CapturePlayer};

/// The `format` value.
pub const NET_FORMAT: &str = "scenetree-net-scenario/1";

/// A multiplayer lesson file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetScenario {
    /// Always [`NET_FORMAT`].
    pub format: String,
    /// A short title.
    pub title: String,
    /// Shown before the first step.
    #[serde(default)]
    pub explanation: String,
    /// The players; each needs a name, which the rounds and actions use.
    pub players: Vec<CapturePlayer>,
    /// The rounds of ticks.
    pub rounds: Vec<Round>,
    /// The steps a person plays one at a time.
    pub steps: Vec<NetStep>,
}

/// One round: the players that tick, in order, each with its scene's writes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Round(pub Vec<(String, Vec<OpJson>)>);

/// An entity as a lesson names it (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntityJson {
    /// One of the player's own scene entities, by the name the lesson gives it.
    Named(String),
    /// An entity number as the player holds it.
    Number(u32),
    /// Another player's entity, by its number there.
    Remote { player: String, entity: u32 },
    /// A fixed id of `syncEntity`.
    Fixed(u32),
}

/// One write of a scene (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum OpJson {
    /// `Transform.createOrReplace`.
    Transform {
        entity: EntityJson,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        position: Option<[f32; 3]>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent: Option<u32>,
    },
    /// `Name.createOrReplace`.
    Name { entity: EntityJson, name: String },
    /// `syncEntity`.
    Sync {
        entity: EntityJson,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        components: Option<Vec<u32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fixed_id: Option<u32>,
    },
    /// `parentEntity`.
    Parent {
        entity: EntityJson,
        parent: EntityJson,
    },
    /// `removeParent`.
    RemoveParent { entity: EntityJson },
    /// `engine.removeEntity`.
    Remove { entity: EntityJson },
    /// Any component's bytes.
    Put {
        entity: EntityJson,
        component: u32,
        base64: Base64,
    },
    /// `Component.deleteFrom`.
    Delete { entity: EntityJson, component: u32 },
}

/// A delivery as an action names it: the frame `from` sent at its tick `tick` to `to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameJson {
    /// The sender's name.
    pub from: String,
    /// The sender's tick.
    pub tick: u32,
    /// The receiver's name.
    pub to: String,
    /// Its position among the items that tick sent.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub item: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One action of a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum ActionJson {
    /// The timeline moves on `ticks` steps (to the end when absent).
    Play {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ticks: Option<usize>,
    },
    /// The timeline goes to step `step` (0: before any tick), back or forth.
    Seek { step: usize },
    /// The delivery arrives at its receiver's next tick.
    Deliver {
        #[serde(flatten)]
        frame: FrameJson,
    },
    /// The delivery is lost.
    Drop {
        #[serde(flatten)]
        frame: FrameJson,
    },
    /// A second copy arrives right after it.
    Duplicate {
        #[serde(flatten)]
        frame: FrameJson,
    },
    /// The delivery waits `ticks` more of its receiver's ticks.
    Delay {
        #[serde(flatten)]
        frame: FrameJson,
        ticks: usize,
    },
    /// The delivery arrives just before another one to the same player.
    Reorder {
        #[serde(flatten)]
        frame: FrameJson,
        before: FrameJson,
    },
}

/// One step: its text and actions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetStep {
    /// What to look at after the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// What it does, in order.
    pub actions: Vec<ActionJson>,
}

impl Serialize for Round {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (player, ops) in &self.0 {
            map.serialize_entry(player, ops)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Round {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RoundVisitor;
        impl<'de> Visitor<'de> for RoundVisitor {
            type Value = Round;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object from player names to their writes, in tick order")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Round, M::Error> {
                let mut round = Vec::new();
                while let Some(player) = map.next_key::<String>()? {
                    let ops: Vec<OpJson> = map.next_value()?;
                    round.push((player, ops));
                }
                Ok(Round(round))
            }
        }
        deserializer.deserialize_map(RoundVisitor)
    }
}

impl Serialize for EntityJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            EntityJson::Named(name) => serializer.serialize_str(name),
            EntityJson::Number(n) => serializer.serialize_u32(*n),
            EntityJson::Remote { player, entity } => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("player", player)?;
                map.serialize_entry("entity", entity)?;
                map.end()
            }
            EntityJson::Fixed(id) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("fixed", id)?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for EntityJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntityVisitor;
        impl<'de> Visitor<'de> for EntityVisitor {
            type Value = EntityJson;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "an entity: a name of the player's own, a number, {\"player\": NAME, \
                     \"entity\": N} or {\"fixed\": N}",
                )
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<EntityJson, E> {
                Ok(EntityJson::Named(name.to_string()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<EntityJson, E> {
                u32::try_from(n).map(EntityJson::Number).map_err(|_| {
                    E::custom(format!("{n} is not an entity number (at most 2^32 - 1)"))
                })
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<EntityJson, M::Error> {
                let (mut player, mut entity, mut fixed) = (None, None, None);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "player" => player = Some(map.next_value::<String>()?),
                        "entity" => entity = Some(map.next_value::<u32>()?),
                        "fixed" => fixed = Some(map.next_value::<u32>()?),
                        other => {
                            return Err(de::Error::unknown_field(
                                other,
                                &["player", "entity", "fixed"],
                            ));
                        }
                    }
                }
                match (player, entity, fixed) {
                    (Some(player), Some(entity), None) => Ok(EntityJson::Remote { player, entity }),
                    (None, None, Some(id)) => Ok(EntityJson::Fixed(id)),
                    _ => Err(de::Error::custom(
                        "expected {\"player\": NAME, \"entity\": N} or {\"fixed\": N}",
                    )),
                }
            }
        }
        deserializer.deserialize_any(EntityVisitor)
    }
}

/// True when `text` is a JSON object whose `format` is [`NET_FORMAT`] (so a scenario reader
/// can tell the two kinds apart without reading the whole file twice).
pub fn is_net_scenario(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Tag {
        format: Option<String>,
    }
    serde_json::from_str::<Tag>(text).is_ok_and(|t| t.format.as_deref() == Some(NET_FORMAT))
}

impl NetScenario {
    /// Reads a lesson file; see [`super::NetLesson::new`] for whether it plays.
    pub fn parse(text: &str) -> Result<NetScenario, ScenarioError> {
        let mut json = serde_json::Deserializer::from_str(text);
        let scenario: NetScenario = serde_path_to_error::deserialize(&mut json).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let at = if inner.is_syntax() || inner.is_eof() || path == "." {
                ErrorAt::Syntax {
                    line: inner.line(),
                    column: inner.column(),
                }
            } else {
                ErrorAt::Path(path)
            };
            let message = crate::model::present::json_syntax_problem(&inner);
            ScenarioError { at, message }
        })?;
        if scenario.format != NET_FORMAT {
            return Err(ScenarioError::at(
                "format",
                format!("expected {NET_FORMAT:?}, found {:?}", scenario.format),
            ));
        }
        Ok(scenario)
    }

    /// The lesson as pretty-printed JSON, newline-terminated.
    pub fn to_json(&self) -> String {
        // Plain data with string keys: serializing cannot fail.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}
