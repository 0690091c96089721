//! The values of a scenario file that serde reads with their own checks and writes back in the
//! same form: entity and component references, lists of numbers, base64 bytes, CRDT streams and
//! delivery orders. Each refuses a bad value with a message that says what was expected.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeSeq, Serializer};

use crate::crdt::CrdtMessage;
use crate::crdt::message::encode_stream;
use crate::crdt::network::DeliveryOrder;
use crate::crdt::stream::{decode_state_stream, decode_stream};
use crate::model::{component, component_id_from_name, ids};

/// An entity as a file names it: its id, or a name declared in `initial.entities`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum EntityRef {
    /// An entity id (number and version).
    Id(u32),
    /// A declared name.
    Name(String),
}

impl Serialize for EntityRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            EntityRef::Id(id) => s.serialize_u32(*id),
            EntityRef::Name(name) => s.serialize_str(name),
        }
    }
}

impl<'de> Deserialize<'de> for EntityRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = EntityRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an entity id or a declared name")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<EntityRef, E> {
                u32::try_from(n)
                    .map(EntityRef::Id)
                    .map_err(|_| E::custom("expected a number below 2^32"))
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<EntityRef, E> {
                Ok(EntityRef::Name(name.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A component as a file names it: its id, or a known name (`"core::Transform"`,
/// `"Transform"`, `"Name"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ComponentRef {
    /// A component id.
    Id(u32),
    /// A component name.
    Name(String),
}

impl ComponentRef {
    /// The component id, or why the name is not known.
    pub(super) fn resolve(&self) -> Result<u32, String> {
        match self {
            ComponentRef::Id(id) => Ok(*id),
            ComponentRef::Name(name) => {
                let id = match name.as_str() {
                    "Transform" => ids::TRANSFORM,
                    "Name" => ids::NAME,
                    other => component_id_from_name(other),
                };
                component::component_name(id).map(|_| id).ok_or_else(|| {
                    format!(
                        "unknown component name \"{name}\"; give the component's id as a number"
                    )
                })
            }
        }
    }
}

impl Serialize for ComponentRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ComponentRef::Id(id) => s.serialize_u32(*id),
            ComponentRef::Name(name) => s.serialize_str(name),
        }
    }
}

impl<'de> Deserialize<'de> for ComponentRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ComponentRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a component id or name")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<ComponentRef, E> {
                u32::try_from(n)
                    .map(ComponentRef::Id)
                    .map_err(|_| E::custom("expected a number below 2^32"))
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<ComponentRef, E> {
                Ok(ComponentRef::Name(name.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A list of exactly `N` numbers that fit a 32-bit float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Floats<const N: usize>(pub [f32; N]);

/// Written as 64-bit numbers, the exact value of each 32-bit float (`0.1` is
/// `0.10000000149011612`), as files have always been written.
impl<const N: usize> Serialize for Floats<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(N))?;
        for x in self.0 {
            seq.serialize_element(&f64::from(x))?;
        }
        seq.end()
    }
}

impl<'de, const N: usize> Deserialize<'de> for Floats<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const N: usize>;
        impl<'de, const N: usize> Visitor<'de> for V<N> {
            type Value = Floats<N>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a list of {N} numbers")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Floats<N>, A::Error> {
                let wrong_length = || de::Error::custom(format!("expected a list of {N} numbers"));
                let mut out = [0.0; N];
                for slot in &mut out {
                    let x: f64 = seq.next_element()?.ok_or_else(wrong_length)?;
                    // Finite f64 beyond f32's range would become infinite.
                    if (x as f32).is_infinite() {
                        return Err(de::Error::custom(format!(
                            "{x} does not fit a 32-bit float"
                        )));
                    }
                    *slot = x as f32;
                }
                match seq.next_element::<de::IgnoredAny>()? {
                    Some(_) => Err(wrong_length()),
                    None => Ok(Floats(out)),
                }
            }
        }
        d.deserialize_seq(V::<N>)
    }
}

/// Bytes written as base64.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Base64Bytes(pub Vec<u8>);

impl Serialize for Base64Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&BASE64.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Base64Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        BASE64
            .decode(text)
            .map(Base64Bytes)
            .map_err(|e| de::Error::custom(format!("not valid base64: {e}")))
    }
}

/// CRDT messages written as base64 of their binary stream.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Stream(pub Vec<CrdtMessage>);

impl Serialize for Stream {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&BASE64.encode(encode_stream(&self.0)))
    }
}

impl<'de> Deserialize<'de> for Stream {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = Base64Bytes::deserialize(d)?.0;
        decode_stream(&bytes)
            .map(|decoded| Stream(decoded.messages))
            .map_err(|e| {
                de::Error::custom(format!("at byte {} of the stream: {}", e.offset, e.kind))
            })
    }
}

/// The state a scenario starts from, as base64 of its binary stream: read as a loaded state
/// is (a Transform PUT shorter than the Transform is refused at its byte offset, as @dcl/ecs
/// refuses it when loading a state).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct StateStream(pub Vec<CrdtMessage>);

impl Serialize for StateStream {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Stream(self.0.clone()).serialize(s)
    }
}

impl<'de> Deserialize<'de> for StateStream {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = Base64Bytes::deserialize(d)?.0;
        decode_state_stream(&bytes)
            .map(|decoded| StateStream(decoded.messages))
            .map_err(|e| {
                de::Error::custom(format!("at byte {} of the stream: {}", e.offset, e.kind))
            })
    }
}

/// The order `deliver_all` delivers in: `"send"`, `"reverse"` or `"random"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Order(pub DeliveryOrder);

impl Serialize for Order {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.as_str())
    }
}

impl<'de> Deserialize<'de> for Order {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        match text.as_str() {
            "send" => Ok(Order(DeliveryOrder::Send)),
            "reverse" => Ok(Order(DeliveryOrder::Reverse)),
            "random" => Ok(Order(DeliveryOrder::Random)),
            other => Err(de::Error::custom(format!(
                "expected \"send\", \"reverse\" or \"random\", found \"{other}\""
            ))),
        }
    }
}
