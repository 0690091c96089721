//! The reader of native JSON: typed serde straight into a [`Replica`], with no
//! `serde_json::Value` tree for the document (only a non-Transform, non-Name decoded value is
//! read as a small `Value`, for its component codec). A problem is reported at its JSON path:
//! the text is read again with `serde_path_to_error` following where the reader is.
//!
//! Each seed below reads one level of the format and says what it expected; a problem found
//! after a value was read (a key the format does not have, a value its component's codec
//! refuses) is reported at the object that holds it, with the key in the message.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{FORMAT, parse_component_key};
use crate::ComponentCodec;
use crate::io::error::LoadError;
use scenetree_core::crdt::{CrdtMessage, Replica};
use scenetree_core::model::present::{json_syntax_problem, quoted};
use scenetree_core::model::{Entity, Transform, component, encode_name, ids};

/// The keys of the document, an entity, a component entry and a Transform value.
const DOCUMENT_KEYS: [&str; 3] = ["format", "entities", "deleted_entities"];
const ENTITY_KEYS: [&str; 3] = ["entity", "components", "appended"];
const ENTRY_KEYS: [&str; 4] = ["timestamp", "deleted", "base64", "value"];
const TRANSFORM_KEYS: [&str; 4] = ["position", "rotation", "scale", "parent"];

/// Reads a native document into a fresh replica; any problem is an error naming its place.
pub(super) fn read_native_text(path: &Path, text: &str) -> Result<Replica, LoadError> {
    let mut loader = Loader::default();
    let mut json = serde_json::Deserializer::from_str(text);
    // Following the path costs as much as the parse itself (a 31 MB scene: 2x), so the text
    // is read without it, and again with it only to place a problem.
    let result = Document(&mut loader)
        .deserialize(&mut json)
        .and_then(|()| json.end());
    if let Err(e) = result {
        return Err(placed_error(path, text, e));
    }
    // Deletions last: entity ids only grow with versions, and a value of an old version that
    // the file still holds (the reference keeps those) must be stored before it is retired.
    for entity in std::mem::take(&mut loader.deletes) {
        loader.replica.apply(&CrdtMessage::DeleteEntity { entity });
    }
    Ok(loader.replica)
}

/// `problem`, found by the untracked read of `text`, at its JSON path: the same reader on the
/// same text meets it at the same place, this time following where it is.
fn placed_error(path: &Path, text: &str, problem: serde_json::Error) -> LoadError {
    if problem.classify() != serde_json::error::Category::Data {
        return LoadError::json_syntax(path, &problem);
    }
    let mut json = serde_json::Deserializer::from_str(text);
    let mut track = serde_path_to_error::Track::new();
    let again = Document(&mut Loader::default())
        .deserialize(serde_path_to_error::Deserializer::new(
            &mut json, &mut track,
        ))
        .and_then(|()| json.end());
    let (e, at) = match again {
        Err(e) => (e, json_path(&track.path())),
        Ok(()) => (problem, String::new()), // the reader is deterministic: not expected
    };
    let message = json_syntax_problem(&e);
    if at.is_empty() {
        LoadError::file(path, message)
    } else {
        LoadError::at_json(path, at, message)
    }
}

/// A path as the format's errors name it: `entities[3].components["core::Transform"]` (keys
/// that are not plain words are quoted in brackets, as a component's name or number is).
fn json_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                let word = !key.is_empty()
                    && !key.starts_with(|c: char| c.is_ascii_digit())
                    && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if word {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                } else {
                    out.push_str(&format!("[{}]", quoted(key)));
                }
            }
            Segment::Unknown => out.push_str("[?]"),
        }
    }
    out
}

/// What the reader builds while it goes.
#[derive(Default)]
struct Loader {
    replica: Replica,
    deletes: Vec<Entity>,
    /// The current entity's writes, applied once its id is known (a key order is not given).
    pending: Vec<Pending>,
}

/// One write read from an entity's object.
enum Pending {
    Transform {
        timestamp: u32,
        value: [u8; Transform::BYTE_LEN],
    },
    Put {
        component: u32,
        timestamp: u32,
        data: Vec<u8>,
    },
    Delete {
        component: u32,
        timestamp: u32,
    },
    Append {
        component: u32,
        data: Vec<u8>,
    },
}

fn fail<E: de::Error>(message: impl fmt::Display) -> E {
    E::custom(message)
}

fn unknown_key<E: de::Error>(key: &str, keys: &[&str]) -> E {
    fail(format!(
        "unknown key {} (expected {}; a file from a newer scenetree?)",
        quoted(key),
        keys.join(", ")
    ))
}

/// Marks a key as seen: JSON does not say which of two equal keys counts, so neither does.
fn first_time<E: de::Error>(seen: &mut bool, key: &str) -> Result<(), E> {
    if std::mem::replace(seen, true) {
        return Err(fail(format!("the key {} is given twice", quoted(key))));
    }
    Ok(())
}

/// A seed that reads itself with its own visitor: the `DeserializeSeed` and `Visitor` impls of
/// `$ty`, given the value, the `deserialize_*` call, what is expected and the `visit_*`
/// methods (in braces, so that rustfmt leaves them as items).
macro_rules! seed {
    ($ty:ty, $value:ty, $how:ident, $expecting:literal, { $($visit:tt)* }) => {
        impl<'de> DeserializeSeed<'de> for $ty {
            type Value = $value;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<$value, D::Error> {
                d.$how(self)
            }
        }

        impl<'de> Visitor<'de> for $ty {
            type Value = $value;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str($expecting)
            }
            $($visit)*
        }
    };
}

/// A map key, borrowed from the text when it has no escapes.
struct Key;

seed!(Key, Cow<'de, str>, deserialize_str, "a key", {
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
});

/// An unsigned 32-bit number: an entity id or a timestamp (`$expecting` says which).
macro_rules! u32_seed {
    ($name:ident, $expecting:literal) => {
        struct $name;

        seed!($name, u32, deserialize_u64, $expecting, {
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<u32, E> {
                u32::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
        });
    };
}

u32_seed!(EntityId, "an entity id (an integer below 2^32)");
u32_seed!(Timestamp, "a timestamp (an integer below 2^32)");

// The value seeds (a Transform, lists of numbers) live beside; declared after the macros they use.
mod values;
use values::TransformValue;

/// A base64 string, decoded.
struct Base64;

seed!(Base64, Vec<u8>, deserialize_str, "a base64 string", {
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
        BASE64
            .decode(v)
            .map_err(|_| fail(format!("{v:?} is not valid base64")))
    }
});

struct Document<'l>(&'l mut Loader);

seed!(
    Document<'_>,
    (),
    deserialize_map,
    "a native scene (a JSON object)",
    {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let (mut format, mut entities, mut deleted) = (false, false, false);
            while let Some(key) = map.next_key_seed(Key)? {
                match &*key {
                    "format" => {
                        first_time(&mut format, &key)?;
                        map.next_value_seed(Format)?;
                    }
                    "entities" => {
                        first_time(&mut entities, &key)?;
                        map.next_value_seed(Entities(&mut *self.0))?;
                    }
                    "deleted_entities" => {
                        first_time(&mut deleted, &key)?;
                        map.next_value_seed(DeletedEntities(&mut self.0.deletes))?;
                    }
                    _ => return Err(unknown_key(&key, &DOCUMENT_KEYS)),
                }
            }
            if !format {
                return Err(fail(format!(
                    "\"format\" is missing; a native scene starts with \"format\": \"{FORMAT}\""
                )));
            }
            if !entities {
                return Err(fail("\"entities\" is missing: expected a list of entities"));
            }
            Ok(())
        }
    }
);

/// The format tag: this version's, or a clear word that the file is newer.
struct Format;

seed!(
    Format,
    (),
    deserialize_str,
    "the format tag \"scenetree/1\"",
    {
        fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
            if v != FORMAT {
                return Err(fail(format!(
                    "expected \"{FORMAT}\", found \"{v}\" (a newer scenetree?)"
                )));
            }
            Ok(())
        }
    }
);

struct DeletedEntities<'d>(&'d mut Vec<Entity>);

seed!(
    DeletedEntities<'_>,
    (),
    deserialize_seq,
    "a list of entity ids",
    {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(id) = seq.next_element_seed(EntityId)? {
                self.0.push(Entity(id));
            }
            Ok(())
        }
    }
);

struct Entities<'l>(&'l mut Loader);

seed!(Entities<'_>, (), deserialize_seq, "a list of entities", {
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(EntityObject(&mut *self.0))?.is_some() {}
        Ok(())
    }
});

struct EntityObject<'l>(&'l mut Loader);

seed!(
    EntityObject<'_>,
    (),
    deserialize_map,
    "an entity (an object with \"entity\" and \"components\")",
    {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let loader = self.0;
            loader.pending.clear();
            let mut entity = None;
            let (mut components, mut appended) = (false, false);
            while let Some(key) = map.next_key_seed(Key)? {
                match &*key {
                    "entity" => {
                        if entity
                            .replace(Entity(map.next_value_seed(EntityId)?))
                            .is_some()
                        {
                            return Err(fail("the key \"entity\" is given twice"));
                        }
                    }
                    "components" => {
                        first_time(&mut components, &key)?;
                        map.next_value_seed(Components(&mut loader.pending))?;
                    }
                    "appended" => {
                        first_time(&mut appended, &key)?;
                        map.next_value_seed(Appended(&mut loader.pending))?;
                    }
                    _ => return Err(unknown_key(&key, &ENTITY_KEYS)),
                }
            }
            let entity = entity.ok_or_else(|| {
                fail::<A::Error>(
                    "\"entity\" is missing: expected an entity id (an integer below 2^32)",
                )
            })?;
            apply_pending(&mut loader.replica, entity, &mut loader.pending);
            Ok(())
        }
    }
);

/// Writes an entity's values, read before its id was known, into the replica.
fn apply_pending(replica: &mut Replica, entity: Entity, pending: &mut Vec<Pending>) {
    for write in pending.drain(..) {
        let message = match write {
            Pending::Transform { timestamp, value } => {
                replica.receive_transform_put(entity, timestamp, &value);
                continue;
            }
            Pending::Put {
                component,
                timestamp,
                data,
            } => CrdtMessage::PutComponent {
                entity,
                component,
                timestamp,
                data,
            },
            Pending::Delete {
                component,
                timestamp,
            } => CrdtMessage::DeleteComponent {
                entity,
                component,
                timestamp,
            },
            Pending::Append { component, data } => CrdtMessage::AppendValue {
                entity,
                component,
                timestamp: 0,
                data,
            },
        };
        replica.apply(&message);
    }
}

struct Components<'p>(&'p mut Vec<Pending>);

seed!(
    Components<'_>,
    (),
    deserialize_map,
    "an object of components",
    {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            // One component under its id and its name is two writes; the newer wins, as any two
            // writes of a register.
            while let Some(key) = map.next_key_seed(Key)? {
                let write = map.next_value_seed(ComponentEntry(parse_component_key(&key)))?;
                self.0.push(write);
            }
            Ok(())
        }
    }
);

/// A decoded value, read by what its component is; `Err` says what is wrong with it (reported
/// at the component entry, naming the field).
enum Decoded {
    Transform(Result<Transform, String>),
    Name(String),
    Other(Value),
}

struct ComponentEntry(u32);

seed!(
    ComponentEntry,
    Pending,
    deserialize_map,
    "a component entry (an object with \"timestamp\" and \"value\", \"base64\" or \"deleted\")",
    {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pending, A::Error> {
            let id = self.0;
            let mut timestamp: Option<u32> = None;
            let mut deleted: Option<bool> = None;
            let mut base64: Option<Vec<u8>> = None;
            let mut value: Option<Decoded> = None;
            while let Some(key) = map.next_key_seed(Key)? {
                let twice = match &*key {
                    "timestamp" => timestamp.replace(map.next_value_seed(Timestamp)?).is_some(),
                    "deleted" => deleted.replace(map.next_value()?).is_some(),
                    "base64" => base64.replace(map.next_value_seed(Base64)?).is_some(),
                    "value" => {
                        let decoded = match id {
                            ids::TRANSFORM => {
                                Decoded::Transform(map.next_value_seed(TransformValue)?)
                            }
                            ids::NAME => Decoded::Name(
                                map.next_value()
                                    .map_err(|_| fail::<A::Error>("a Name value is a string"))?,
                            ),
                            _ => Decoded::Other(map.next_value()?),
                        };
                        value.replace(decoded).is_some()
                    }
                    _ => return Err(unknown_key(&key, &ENTRY_KEYS)),
                };
                if twice {
                    return Err(fail(format!("the key {} is given twice", quoted(&key))));
                }
            }
            let timestamp = timestamp.ok_or_else(|| {
                fail::<A::Error>(
                    "\"timestamp\" is missing: expected a timestamp (an integer below 2^32)",
                )
            })?;
            if deleted == Some(true) {
                return Ok(Pending::Delete {
                    component: id,
                    timestamp,
                });
            }
            let data = match (base64, value) {
                (Some(data), _) => data,
                (None, Some(Decoded::Transform(transform))) => {
                    let transform = transform.map_err(fail::<A::Error>)?;
                    return Ok(Pending::Transform {
                        timestamp,
                        value: transform.to_bytes(),
                    });
                }
                (None, Some(Decoded::Name(name))) => encode_name(&name),
                (None, Some(Decoded::Other(json))) => ComponentCodec::builtin(id)
                    .ok_or_else(|| {
                        fail::<A::Error>(
                            "scenetree cannot encode a decoded value of this component; give it as \
                             \"base64\"",
                        )
                    })?
                    .encode(&json)
                    .map_err(fail::<A::Error>)?,
                (None, None) => {
                    return Err(fail("expected \"value\", \"base64\" or \"deleted\": true"));
                }
            };
            if id == ids::TRANSFORM {
                let value = data.as_slice().try_into().map_err(|_| {
                    fail::<A::Error>(format!("a Transform is 44 bytes, found {}", data.len()))
                })?;
                return Ok(Pending::Transform { timestamp, value });
            }
            Ok(Pending::Put {
                component: id,
                timestamp,
                data,
            })
        }
    }
);

struct Appended<'p>(&'p mut Vec<Pending>);

seed!(
    Appended<'_>,
    (),
    deserialize_map,
    "an object of appended values",
    {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key_seed(Key)? {
                let id = parse_component_key(&key);
                if !component::is_grow_only(id) {
                    return Err(fail(format!("component {key} is not a grow-only set")));
                }
                map.next_value_seed(AppendedValues {
                    component: id,
                    out: &mut *self.0,
                })?;
            }
            Ok(())
        }
    }
);

struct AppendedValues<'p> {
    component: u32,
    out: &'p mut Vec<Pending>,
}

seed!(
    AppendedValues<'_>,
    (),
    deserialize_seq,
    "a list of base64 strings",
    {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(data) = seq.next_element_seed(Base64)? {
                self.out.push(Pending::Append {
                    component: self.component,
                    data,
                });
            }
            Ok(())
        }
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::native::to_native_json;
    use crate::io::native::write::tests::every_kind;

    #[test]
    fn what_the_writer_writes_reads_back_as_the_same_state() {
        let original = every_kind();
        let text = to_native_json(&original);
        let read = read_native_text(Path::new("m.json"), &text).unwrap();
        assert_eq!(read.digest(), original.digest());
        assert_eq!(read.deleted_entities(), original.deleted_entities());
        for kind in [
            "\"base64\"",
            "\"deleted\": true",
            "\"value\": \"Lamp",
            "\"mesh\"",
        ] {
            assert!(text.contains(kind), "{kind} in {text}");
        }
    }

    #[test]
    fn paths_name_keys_as_the_format_writes_them() {
        let text = r#"{"format":"scenetree/1","entities":[{"entity":512,"components":{"core::Transform":{"timestamp":"x"}}}]}"#;
        let err = read_native_text(Path::new("p.json"), text).unwrap_err();
        assert_eq!(
            err.location,
            crate::io::error::Location::JsonPath(
                "entities[0].components[\"core::Transform\"].timestamp".into()
            ),
            "{err}"
        );
        assert!(err.message.contains("a timestamp"), "{err}");
    }
}
