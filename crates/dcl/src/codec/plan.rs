//! The message plans the codec walks: every message of the shipped protocol, compiled once from
//! its prost-reflect descriptor into the shape `@dcl/ecs`'s generated code (ts-proto) gives it.
//!
//! ts-proto writes and creates fields in *declaration* order (not field-number order), names
//! them in camel case, and represents a oneof as one property placed where its first member is
//! declared. prost-reflect's `fields()` iterates by number, so the plan reads the declaration
//! order from the raw `DescriptorProto`.

use std::collections::HashMap;

use prost_reflect::{Cardinality, DescriptorPool, FieldDescriptor, Kind, MessageDescriptor};

/// Every message of a descriptor pool, as plans indexed by position.
#[derive(Debug)]
pub(crate) struct Plans {
    pub(crate) messages: Vec<MessagePlan>,
    by_name: HashMap<String, usize>,
}

/// One message: its properties in ts-proto's order, and a lookup by field number.
#[derive(Debug)]
pub(crate) struct MessagePlan {
    /// The message's full name (`decentraland.sdk.components.PBMaterial`).
    pub(crate) full_name: String,
    /// The object's properties in the order ts-proto creates and encodes them.
    pub(crate) items: Vec<Item>,
    /// (field number, item index, case index for oneof members), sorted by number.
    by_number: Vec<(u32, usize, usize)>,
}

/// One property of a message object.
#[derive(Debug)]
pub(crate) enum Item {
    /// A plain field.
    Field(FieldPlan),
    /// A oneof: `{"$case": name, name: value}` under `key`.
    Oneof { key: String, cases: Vec<FieldPlan> },
}

/// One field.
#[derive(Debug)]
pub(crate) struct FieldPlan {
    /// The property name (ts-proto's camel case of the field name).
    pub(crate) key: String,
    /// The protobuf field number.
    pub(crate) number: u32,
    /// What its values are.
    pub(crate) kind: FieldKind,
    /// How many values and when it is written.
    pub(crate) shape: Shape,
}

/// How a field is present in the object and on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// proto3 implicit presence: written unless it holds the default (0, "", false).
    Implicit,
    /// Explicit presence (`optional`, or a message field): written unless `undefined`.
    Optional,
    /// `repeated`, packed (numbers and booleans): always written, even empty.
    Packed,
    /// `repeated` strings or messages: one record per value.
    Repeated,
    /// A member of a oneof: written when it is the case.
    OneofCase,
}

/// The value type of a field.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FieldKind {
    Float,
    Double,
    Int32,
    Uint32,
    Int64,
    Bool,
    String,
    /// An enum: its number as an int32.
    Enum,
    /// A nested message, by plan index.
    Message(usize),
    /// A kind the SDK's protocol does not use (bytes, sint*, fixed*, uint64, maps): refused.
    Unsupported(&'static str),
}

impl FieldKind {
    /// The protobuf wire type of one value (packed lists use length-delimited records).
    pub(crate) fn wire_type(self) -> u8 {
        match self {
            FieldKind::Float => 5,
            FieldKind::Double => 1,
            FieldKind::Int32
            | FieldKind::Uint32
            | FieldKind::Int64
            | FieldKind::Bool
            | FieldKind::Enum => 0,
            FieldKind::String | FieldKind::Message(_) | FieldKind::Unsupported(_) => 2,
        }
    }
}

impl Plans {
    /// Plans for every message in the pool.
    pub(crate) fn compile(pool: &DescriptorPool) -> Plans {
        let by_name: HashMap<String, usize> = pool
            .all_messages()
            .enumerate()
            .map(|(i, m)| (m.full_name().to_owned(), i))
            .collect();
        let messages = pool
            .all_messages()
            .map(|m| MessagePlan::compile(&m, &by_name))
            .collect();
        Plans { messages, by_name }
    }

    /// The plan index of a message by full name.
    pub(crate) fn index_of(&self, full_name: &str) -> Option<usize> {
        self.by_name.get(full_name).copied()
    }
}

impl MessagePlan {
    fn compile(message: &MessageDescriptor, by_name: &HashMap<String, usize>) -> MessagePlan {
        let mut items: Vec<Item> = Vec::new();
        let mut oneof_items: HashMap<String, usize> = HashMap::new();
        for raw in &message.descriptor_proto().field {
            let Some(field) = message.get_field(raw.number() as u32) else {
                continue;
            };
            let plan = field_plan(&field, by_name);
            match field.containing_oneof().filter(|o| !o.is_synthetic()) {
                Some(oneof) => {
                    let key = ts_proto_camel(oneof.name());
                    match oneof_items.get(&key) {
                        Some(&i) => {
                            if let Item::Oneof { cases, .. } = &mut items[i] {
                                cases.push(plan);
                            }
                        }
                        None => {
                            oneof_items.insert(key.clone(), items.len());
                            items.push(Item::Oneof {
                                key,
                                cases: vec![plan],
                            });
                        }
                    }
                }
                None => items.push(Item::Field(plan)),
            }
        }
        let mut by_number = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item {
                Item::Field(f) => by_number.push((f.number, i, 0)),
                Item::Oneof { cases, .. } => {
                    by_number.extend(cases.iter().enumerate().map(|(c, f)| (f.number, i, c)))
                }
            }
        }
        by_number.sort_unstable();
        MessagePlan {
            full_name: message.full_name().to_owned(),
            items,
            by_number,
        }
    }

    /// The item (and oneof case) a field number belongs to.
    pub(crate) fn find(&self, number: u32) -> Option<(usize, usize)> {
        self.by_number
            .binary_search_by_key(&number, |(n, _, _)| *n)
            .ok()
            .map(|i| (self.by_number[i].1, self.by_number[i].2))
    }
}

fn field_plan(field: &FieldDescriptor, by_name: &HashMap<String, usize>) -> FieldPlan {
    let kind = match field.kind() {
        _ if field.is_map() => FieldKind::Unsupported("map"),
        Kind::Float => FieldKind::Float,
        Kind::Double => FieldKind::Double,
        Kind::Int32 => FieldKind::Int32,
        Kind::Uint32 => FieldKind::Uint32,
        Kind::Int64 => FieldKind::Int64,
        Kind::Bool => FieldKind::Bool,
        Kind::String => FieldKind::String,
        Kind::Enum(_) => FieldKind::Enum,
        Kind::Message(m) => by_name
            .get(m.full_name())
            .map_or(FieldKind::Unsupported("message"), |&i| {
                FieldKind::Message(i)
            }),
        Kind::Bytes => FieldKind::Unsupported("bytes"),
        Kind::Sint32 | Kind::Sint64 => FieldKind::Unsupported("sint"),
        Kind::Fixed32 | Kind::Fixed64 | Kind::Sfixed32 | Kind::Sfixed64 => {
            FieldKind::Unsupported("fixed")
        }
        Kind::Uint64 => FieldKind::Unsupported("uint64"),
    };
    let in_oneof = field.containing_oneof().is_some_and(|o| !o.is_synthetic());
    let shape = if in_oneof {
        Shape::OneofCase
    } else if field.cardinality() == Cardinality::Repeated {
        if field.is_packed() {
            Shape::Packed
        } else {
            Shape::Repeated
        }
    } else if field.supports_presence() {
        Shape::Optional
    } else {
        Shape::Implicit
    };
    FieldPlan {
        key: ts_proto_camel(field.name()),
        number: field.number(),
        kind,
        shape,
    }
}

/// Appends `.name` to a field path (`.material` + `.pbr`).
pub(crate) fn push_key(path: &mut String, name: &str) {
    path.push('.');
    path.push_str(name);
}

/// ts-proto's `snakeToCamel`: words split at `_`, every word after the first capitalized; a
/// name without lower-case letters is lower-cased first.
pub(crate) fn ts_proto_camel(name: &str) -> String {
    let has_lower = name.chars().any(|c| c.is_ascii_lowercase());
    let mut out = String::with_capacity(name.len());
    for (i, word) in name.split('_').enumerate() {
        let word = if has_lower {
            word.to_owned()
        } else {
            word.to_ascii_lowercase()
        };
        let mut chars = word.chars();
        match chars.next() {
            Some(first) if i > 0 => {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
            _ => out.push_str(&word),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_ts_proto() {
        assert_eq!(ts_proto_camel("albedo_color"), "albedoColor");
        assert_eq!(ts_proto_camel("uvs"), "uvs");
        assert_eq!(
            ts_proto_camel("texture_move_continuous"),
            "textureMoveContinuous"
        );
        assert_eq!(ts_proto_camel("MTM_OPAQUE"), "mtmOpaque");
    }
}
