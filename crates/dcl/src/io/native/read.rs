//! The fast reader of native JSON: typed serde straight into a [`Replica`], with no
//! `serde_json::Value` tree for the document (only a non-Transform, non-Name decoded value is
//! read as a small `Value`, for its component codec).
//!
//! It reads exactly the documents [`super::native::parse_native`] accepts, with the same
//! result, and gives up (`None`) on anything else: a malformed file, and also a few valid but
//! unusual ones (a key given twice, an escaped component key). The caller then runs the
//! detailed reader, which accepts what it accepts and names the JSON path of any problem, so
//! an error costs a second read while a good file is read once.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::native::{FORMAT, parse_component_key};
use crate::ComponentCodec;
use scenetree_core::crdt::{CrdtMessage, Replica};
use scenetree_core::model::{Entity, Transform, component, encode_name, ids};

/// Reads a native document, or `None` when the detailed reader must decide (see the module
/// docs).
pub(super) fn read_fast(text: &str) -> Option<Replica> {
    let mut loader = Loader::default();
    let mut de = serde_json::Deserializer::from_str(text);
    Document(&mut loader).deserialize(&mut de).ok()?;
    de.end().ok()?;
    // Deletions last, as the detailed reader does.
    for entity in std::mem::take(&mut loader.deletes) {
        loader.replica.apply(&CrdtMessage::DeleteEntity { entity });
    }
    Some(loader.replica)
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
        component_key: u32,
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

impl Pending {
    /// The component of a `components` entry (appends are not).
    fn registered(&self) -> Option<u32> {
        match self {
            Pending::Transform { component_key, .. } => Some(*component_key),
            Pending::Put { component, .. } | Pending::Delete { component, .. } => Some(*component),
            Pending::Append { .. } => None,
        }
    }
}

fn fail<E: de::Error>(what: &str) -> E {
    E::custom(what)
}

/// Marks a key as seen; a key given twice is left to the detailed reader.
fn first_time<E: de::Error>(seen: &mut bool) -> Result<(), E> {
    if std::mem::replace(seen, true) {
        return Err(fail("a key given twice"));
    }
    Ok(())
}

/// A seed that reads itself with its own visitor: the `DeserializeSeed` and `Visitor` impls of
/// `$ty`, given the value, the `deserialize_*` call, what is expected and the `visit_*`
/// methods.
macro_rules! seed {
    ($ty:ty, $value:ty, $how:ident, $expecting:literal, $($visit:tt)*) => {
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

/// A map key read without allocating when it has no escapes.
struct Key<'de>(&'de str);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'de str>::deserialize(d).map(Key)
    }
}

struct Document<'l>(&'l mut Loader);

seed!(
    Document<'_>,
    (),
    deserialize_map,
    "a native scene",
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (mut format, mut entities, mut deleted) = (false, false, false);
        while let Some(Key(key)) = map.next_key()? {
            match key {
                "format" => {
                    first_time(&mut format)?;
                    if map.next_value::<&str>()? != FORMAT {
                        return Err(fail("another format"));
                    }
                }
                "entities" => {
                    first_time(&mut entities)?;
                    map.next_value_seed(Entities(&mut *self.0))?;
                }
                "deleted_entities" => {
                    first_time(&mut deleted)?;
                    let ids: Vec<u32> = map.next_value()?;
                    self.0.deletes.extend(ids.into_iter().map(Entity));
                }
                // The detailed reader names the unknown key.
                _ => return Err(fail("an unknown key")),
            }
        }
        if !(format && entities) {
            return Err(fail("format or entities missing"));
        }
        Ok(())
    }
);

struct Entities<'l>(&'l mut Loader);

seed!(
    Entities<'_>,
    (),
    deserialize_seq,
    "a list of entities",
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(EntityObject(&mut *self.0))?.is_some() {}
        Ok(())
    }
);

struct EntityObject<'l>(&'l mut Loader);

seed!(
    EntityObject<'_>,
    (),
    deserialize_map,
    "an entity",
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let loader = self.0;
        loader.pending.clear();
        let mut entity = None;
        let (mut components, mut appended) = (false, false);
        while let Some(Key(key)) = map.next_key()? {
            match key {
                "entity" => {
                    if entity.replace(Entity(map.next_value::<u32>()?)).is_some() {
                        return Err(fail("a key given twice"));
                    }
                }
                "components" => {
                    first_time(&mut components)?;
                    map.next_value_seed(Components(&mut loader.pending))?;
                }
                "appended" => {
                    first_time(&mut appended)?;
                    map.next_value_seed(Appended(&mut loader.pending))?;
                }
                // The detailed reader names the unknown key.
                _ => return Err(fail("an unknown key")),
            }
        }
        let entity = entity.ok_or_else(|| fail("an entity without its id"))?;
        let replica = &mut loader.replica;
        for write in loader.pending.drain(..) {
            match write {
                Pending::Transform {
                    timestamp, value, ..
                } => replica.receive_transform_put(entity, timestamp, &value),
                Pending::Put {
                    component,
                    timestamp,
                    data,
                } => {
                    replica.apply(&CrdtMessage::PutComponent {
                        entity,
                        component,
                        timestamp,
                        data,
                    });
                }
                Pending::Delete {
                    component,
                    timestamp,
                } => {
                    replica.apply(&CrdtMessage::DeleteComponent {
                        entity,
                        component,
                        timestamp,
                    });
                }
                Pending::Append { component, data } => {
                    replica.apply(&CrdtMessage::AppendValue {
                        entity,
                        component,
                        timestamp: 0,
                        data,
                    });
                }
            }
        }
        Ok(())
    }
);

struct Components<'p>(&'p mut Vec<Pending>);

seed!(
    Components<'_>,
    (),
    deserialize_map,
    "an object of components",
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(Key(key)) = map.next_key()? {
            let id = parse_component_key(key);
            // Two keys naming one component (an id and a name): both are applied by the
            // detailed reader, in an order this reader does not keep.
            if self.0.iter().any(|p| p.registered() == Some(id)) {
                return Err(fail("a component given twice"));
            }
            let write = map.next_value_seed(ComponentEntry(id))?;
            self.0.push(write);
        }
        Ok(())
    }
);

/// A decoded Transform as the file writes it (numbers read as f64, then rounded to f32, as
/// the detailed reader does).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TransformJson {
    position: [f64; 3],
    rotation: [f64; 4],
    scale: [f64; 3],
    #[serde(default)]
    parent: u32,
}

impl TransformJson {
    fn to_bytes(&self) -> [u8; Transform::BYTE_LEN] {
        let [px, py, pz] = self.position.map(|v| v as f32);
        let [rx, ry, rz, rw] = self.rotation.map(|v| v as f32);
        let [sx, sy, sz] = self.scale.map(|v| v as f32);
        Transform {
            position: glam::Vec3::new(px, py, pz),
            rotation: glam::Quat::from_xyzw(rx, ry, rz, rw),
            scale: glam::Vec3::new(sx, sy, sz),
            parent: Entity(self.parent),
        }
        .to_bytes()
    }
}

/// A decoded value, read by what its component is.
enum Decoded {
    Transform([u8; Transform::BYTE_LEN]),
    Name(String),
    Other(Value),
}

struct ComponentEntry(u32);

seed!(
    ComponentEntry,
    Pending,
    deserialize_map,
    "a component entry",
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pending, A::Error> {
        let id = self.0;
        let mut timestamp: Option<u32> = None;
        let mut deleted: Option<bool> = None;
        let mut base64: Option<&'de str> = None;
        let mut value: Option<Decoded> = None;
        while let Some(Key(key)) = map.next_key()? {
            let twice = match key {
                "timestamp" => timestamp.replace(map.next_value()?).is_some(),
                "deleted" => deleted.replace(map.next_value()?).is_some(),
                "base64" => base64.replace(map.next_value()?).is_some(),
                "value" => {
                    let decoded = match id {
                        ids::TRANSFORM => {
                            Decoded::Transform(map.next_value::<TransformJson>()?.to_bytes())
                        }
                        ids::NAME => Decoded::Name(map.next_value()?),
                        _ => Decoded::Other(map.next_value()?),
                    };
                    value.replace(decoded).is_some()
                }
                _ => return Err(fail("an unknown key")),
            };
            if twice {
                return Err(fail("a key given twice"));
            }
        }
        let timestamp = timestamp.ok_or_else(|| fail("no timestamp"))?;
        if deleted == Some(true) {
            return Ok(Pending::Delete {
                component: id,
                timestamp,
            });
        }
        let data = match (base64, value) {
            (Some(text), _) => BASE64
                .decode(text)
                .map_err(|_| fail::<A::Error>("bad base64"))?,
            (None, Some(Decoded::Transform(value))) => {
                return Ok(Pending::Transform {
                    component_key: id,
                    timestamp,
                    value,
                });
            }
            (None, Some(Decoded::Name(name))) => encode_name(&name),
            (None, Some(Decoded::Other(json))) => ComponentCodec::builtin(id)
                .ok_or_else(|| fail::<A::Error>("no codec"))?
                .encode(&json)
                .map_err(|_| fail::<A::Error>("the codec refused the value"))?,
            (None, None) => return Err(fail("no value")),
        };
        if id == ids::TRANSFORM {
            let value = data
                .as_slice()
                .try_into()
                .map_err(|_| fail::<A::Error>("a Transform is 44 bytes"))?;
            return Ok(Pending::Transform {
                component_key: id,
                timestamp,
                value,
            });
        }
        Ok(Pending::Put {
            component: id,
            timestamp,
            data,
        })
    }
);

struct Appended<'p>(&'p mut Vec<Pending>);

seed!(
    Appended<'_>,
    (),
    deserialize_map,
    "an object of appended values",
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(Key(key)) = map.next_key()? {
            let id = parse_component_key(key);
            if !component::is_grow_only(id) {
                return Err(fail("not a grow-only set"));
            }
            for text in map.next_value::<Vec<&'de str>>()? {
                let data = BASE64
                    .decode(text)
                    .map_err(|_| fail::<A::Error>("bad base64"))?;
                self.0.push(Pending::Append {
                    component: id,
                    data,
                });
            }
        }
        Ok(())
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::native::{parse_native_detailed, to_native_json};
    use crate::io::native_write::tests::every_kind;

    #[test]
    fn written_files_take_the_fast_reader_and_read_as_the_detailed_one_does() {
        let original = every_kind();
        let text = to_native_json(&original);
        let fast = read_fast(&text).expect("a file scenetree wrote is read by the fast reader");
        let detailed = parse_native_detailed(std::path::Path::new("m.json"), &text).unwrap();
        assert_eq!(fast.state_messages(), detailed.state_messages());
        assert_eq!(fast.deleted_entities(), detailed.deleted_entities());
        assert_eq!(fast.digest(), original.digest());
        for kind in [
            "\"base64\"",
            "\"deleted\": true",
            "\"value\": \"Lamp",
            "\"mesh\"",
        ] {
            assert!(text.contains(kind), "{kind} in {text}");
        }
    }
}
