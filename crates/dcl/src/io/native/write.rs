//! Writing scenetree's native JSON (the format is described in `native.rs`) straight into the
//! output text, in one pass over the replica's state.
//!
//! Building a `serde_json::Value` tree first and printing it cost 1.6 s for the 65,024-entity
//! example (a million small allocations, most of the time in `malloc` and `free`), long enough
//! to freeze the window on every save and autosave. Here only the values of the components that
//! `ComponentCodec` decodes become `Value`s (they are small); Transforms, names, tombstones,
//! base64 and the document's frame are written directly, byte for byte as the tree printer
//! writes them (the golden file in `tests/fixtures/native/every_kind.json` holds the layout).

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::Value;

use super::FORMAT;
use crate::ComponentCodec;
use scenetree_core::crdt::{CrdtMessage, Replica};
use scenetree_core::model::{Transform, component, decode_name, encode_name, ids};

/// Lists of at most this many numbers or strings are written on one line.
const INLINE_ITEMS: usize = 16;

/// Serializes a replica as native JSON (pretty-printed, newline-terminated).
pub fn to_native_json(replica: &Replica) -> String {
    let mut messages = replica.state_messages();
    // A value of a deleted entity (one a newer version of its number retired still holds
    // its values, as in @dcl/ecs) would contradict `deleted_entities`: the runtime ignores
    // every message for it, so only its tombstones, which say it holds nothing, are written.
    messages.retain(|m| {
        matches!(m, CrdtMessage::DeleteComponent { .. }) || !replica.is_deleted(m.entity())
    });
    // state_messages is sorted by (component, entity); the file groups by entity.
    messages.sort_by_key(|m| (m.entity(), m.component()));
    // About 300 bytes per entity with a Transform and a name.
    let mut out = String::with_capacity(64 + messages.len() * 160);
    out.push_str("{\n  \"format\": ");
    push_string(&mut out, FORMAT);
    out.push_str(",\n  \"entities\": ");
    let entities = messages.chunk_by(|a, b| a.entity() == b.entity());
    let mut any = false;
    for (i, group) in entities.enumerate() {
        out.push_str(if i == 0 { "[\n" } else { ",\n" });
        pad(&mut out, 4);
        write_entity(&mut out, group);
        any = true;
    }
    out.push_str(if any { "\n  ]" } else { "[]" });
    out.push_str(",\n  \"deleted_entities\": ");
    let deleted = replica.deleted_entities();
    write_list(&mut out, 2, deleted.len(), |out, i| {
        write!(out, "{}", deleted[i].0).expect("writing to a String cannot fail");
    });
    out.push_str("\n}\n");
    out
}

/// One entity's object, opened at the current position, its fields at indent 6.
fn write_entity(out: &mut String, messages: &[CrdtMessage]) {
    let entity = messages[0].entity();
    write!(
        out,
        "{{\n      \"entity\": {},\n      \"components\": ",
        entity.0
    )
    .expect("writing to a String cannot fail");
    let mut fields = 0;
    let mut appended: Vec<(u32, Vec<&[u8]>)> = Vec::new();
    for msg in messages {
        let Some(id) = msg.component() else { continue };
        match msg {
            CrdtMessage::PutComponent {
                timestamp, data, ..
            } => {
                open_field(out, &mut fields, 8, id);
                write_value(out, id, *timestamp, data);
            }
            CrdtMessage::DeleteComponent { timestamp, .. } => {
                open_field(out, &mut fields, 8, id);
                write!(
                    out,
                    "{{\n          \"timestamp\": {timestamp},\n          \"deleted\": true\n        }}"
                )
                .expect("writing to a String cannot fail");
            }
            CrdtMessage::AppendValue { data, .. } => match appended.last_mut() {
                Some((last, values)) if *last == id => values.push(data),
                _ => appended.push((id, vec![data])),
            },
            _ => {}
        }
    }
    close_object(out, fields, 6);
    if !appended.is_empty() {
        out.push_str(",\n      \"appended\": ");
        let mut keys = 0;
        for (id, values) in &appended {
            open_field(out, &mut keys, 8, *id);
            write_list(out, 8, values.len(), |out, i| {
                push_string(out, &BASE64.encode(values[i]));
            });
        }
        close_object(out, keys, 6);
    }
    out.push_str("\n    }");
}

/// Starts the next member `"key": ` of an object whose members sit at `indent` (the object's
/// `{` when it is the first).
fn open_field(out: &mut String, fields: &mut usize, indent: usize, id: u32) {
    out.push_str(if *fields == 0 { "{\n" } else { ",\n" });
    *fields += 1;
    pad(out, indent);
    match component::component_name(id) {
        Some(name) => push_string(out, name),
        None => write!(out, "\"{id}\"").expect("writing to a String cannot fail"),
    }
    out.push_str(": ");
}

/// Ends an object of `fields` members whose closing brace sits at `indent` (`{}` when empty).
fn close_object(out: &mut String, fields: usize, indent: usize) {
    if fields == 0 {
        out.push_str("{}");
    } else {
        out.push('\n');
        pad(out, indent);
        out.push('}');
    }
}

/// A list of `len` scalars: on one line when short, else one per line at `indent + 2`.
fn write_list(out: &mut String, indent: usize, len: usize, item: impl Fn(&mut String, usize)) {
    if len <= INLINE_ITEMS {
        out.push('[');
        for i in 0..len {
            if i > 0 {
                out.push_str(", ");
            }
            item(out, i);
        }
        out.push(']');
    } else {
        out.push_str("[\n");
        for i in 0..len {
            if i > 0 {
                out.push_str(",\n");
            }
            pad(out, indent + 2);
            item(out, i);
        }
        out.push('\n');
        pad(out, indent);
        out.push(']');
    }
}

/// A component's `{ "timestamp", "value" | "base64" }` object, its members at indent 10. The
/// value is written decoded only when encoding it back gives the exact bytes.
fn write_value(out: &mut String, id: u32, timestamp: u32, data: &[u8]) {
    write!(out, "{{\n          \"timestamp\": {timestamp},\n          ")
        .expect("writing to a String cannot fail");
    let transform = (id == ids::TRANSFORM)
        .then(|| Transform::from_bytes(data).ok())
        .flatten()
        .filter(|t| t.is_finite() && t.to_bytes() == data);
    if let Some(t) = transform {
        out.push_str("\"value\": {\n");
        for (name, values) in [
            ("position", &t.position.to_array()[..]),
            ("rotation", &t.rotation.to_array()[..]),
            ("scale", &t.scale.to_array()[..]),
        ] {
            write!(out, "            \"{name}\": ").expect("writing to a String cannot fail");
            write_list(out, 12, values.len(), |out, i| {
                // Debug is the shortest text that reads back to the same f32.
                write!(out, "{:?}", values[i]).expect("writing to a String cannot fail");
            });
            out.push_str(",\n");
        }
        write!(out, "            \"parent\": {}\n          }}", t.parent.0)
            .expect("writing to a String cannot fail");
    } else if let Some(name) = (id == ids::NAME)
        .then(|| decode_name(data))
        .flatten()
        .filter(|n| encode_name(n) == data)
    {
        out.push_str("\"value\": ");
        push_string(out, &name);
    } else if let Some(value) = ComponentCodec::builtin(id).and_then(|c| c.exact_json(data)) {
        out.push_str("\"value\": ");
        write_pretty(&value, 10, out);
    } else {
        out.push_str("\"base64\": ");
        push_string(out, &BASE64.encode(data));
    }
    out.push_str("\n        }");
}

/// Pretty JSON that keeps short lists of scalars on one line (`"position": [8, 0, 8]`) and
/// writes numbers that are exactly f32 values in their shortest f32 form (`0.70710677`, not
/// `0.7071067690849304`), which reads back to the identical f32.
fn write_pretty(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut fields = 0;
            for (key, v) in map {
                out.push_str(if fields == 0 { "{\n" } else { ",\n" });
                fields += 1;
                pad(out, indent + 2);
                push_string(out, key);
                out.push_str(": ");
                write_pretty(v, indent + 2, out);
            }
            close_object(out, fields, indent);
        }
        Value::Array(items) if items.iter().all(|v| !v.is_object() && !v.is_array()) => {
            write_list(out, indent, items.len(), |out, i| {
                write_pretty(&items[i], indent, out)
            });
        }
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                pad(out, indent + 2);
                write_pretty(v, indent + 2, out);
            }
            out.push('\n');
            pad(out, indent);
            out.push(']');
        }
        Value::Number(n) => out.push_str(&shortest_number(n)),
        Value::String(s) => push_string(out, s),
        other => out.push_str(&other.to_string()),
    }
}

fn shortest_number(n: &serde_json::Number) -> String {
    if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
        let single = f as f32;
        if single as f64 == f && single.is_finite() {
            let short = format!("{single:?}");
            if short.parse::<f64>().is_ok_and(|back| back as f32 == single) {
                return short;
            }
        }
    }
    n.to_string()
}

/// A JSON string literal, escaped as serde_json escapes it (quote, backslash and control
/// characters; everything else as is).
fn push_string(out: &mut String, s: &str) {
    if s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(&serde_json::to_string(s).expect("strings serialize"));
    } else {
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use scenetree_core::model::Entity;

    /// Every kind of entry, and every layout rule: decoded Transforms (shortest f32 text,
    /// negative zero, tiny and huge values), a NaN one as base64, a name that needs escapes,
    /// a codec value, opaque bytes, a tombstone, short and long lists of grow-only values, an
    /// entity with only grow-only values, and more deleted entities than fit on a line.
    pub(in crate::io) fn every_kind() -> Replica {
        let mut r = Replica::new();
        let mut lamp = Transform::identity_under(Entity(513));
        lamp.position.x = 0.1;
        lamp.position.y = -0.0;
        lamp.position.z = 1e-7;
        lamp.scale.z = 3.4e38;
        for (entity, t) in [(512, lamp), (513, Transform::IDENTITY)] {
            r.put_transform(Entity(entity), &t).unwrap();
        }
        let name = encode_name("Lamp \"A\"\n\t\u{1} é ✓ \\");
        r.put(Entity(512), ids::NAME, name).unwrap();
        r.put(Entity(513), 1018, vec![0x1a, 0x00]).unwrap(); // MeshRenderer: a cylinder
        let mut nan = Transform::IDENTITY;
        nan.scale.y = f32::NAN;
        r.put_transform(Entity(900), &nan).unwrap();
        r.put(Entity(900), 7000, vec![1, 2, 3]).unwrap();
        r.put(Entity(901), 7000, vec![4]).unwrap();
        r.delete_component(Entity(901), 7000).unwrap();
        let append = |r: &mut Replica, entity: u32, data: Vec<u8>| {
            r.apply(&CrdtMessage::AppendValue {
                entity: Entity(entity),
                component: 1063,
                timestamp: 0,
                data,
            });
        };
        for i in 0..2 {
            append(&mut r, 900, vec![8, i]);
        }
        for i in 0..17 {
            append(&mut r, 903, vec![i]);
        }
        for e in 1000..1017 {
            r.delete_entity(Entity(e)).unwrap();
        }
        r
    }

    #[test]
    fn the_layout_is_the_golden_files_byte_for_byte() {
        // Written by the Value-tree printer this writer replaced; files must not change.
        let golden = include_str!("../../../../../tests/fixtures/native/every_kind.json");
        assert_eq!(to_native_json(&every_kind()), golden);
    }

    #[test]
    fn an_empty_replica_is_an_empty_document() {
        assert_eq!(
            to_native_json(&Replica::new()),
            "{\n  \"format\": \"scenetree/1\",\n  \"entities\": [],\n  \"deleted_entities\": []\n}\n"
        );
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        for s in [
            "plain",
            "quote \" here",
            "back\\slash",
            "tab\t",
            "\u{1f}",
            "é ✓ \u{7f}",
        ] {
            let mut out = String::new();
            push_string(&mut out, s);
            assert_eq!(out, serde_json::to_string(s).unwrap());
        }
    }
}
