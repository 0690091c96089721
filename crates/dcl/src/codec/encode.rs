//! JSON → protobuf bytes exactly as `@dcl/ecs` 7.28.0's generated encoders (ts-proto over
//! protobuf.js) write the same JavaScript object.
//!
//! Per field, as the generated `encode` does it: an implicit-presence number is written unless
//! it is `0` (so a missing one, `undefined`, *is* written: NaN for a float, 0 for an integer), a
//! string unless `""`, a boolean only when `true`; an optional field or a message unless
//! `undefined`; a packed list always (`0a 00` when empty); a oneof by its `$case`. Numbers
//! convert as protobuf.js converts them. Where the JavaScript would throw (a missing string, a
//! `null` message) or coerce exotically (a string where a number is expected), this returns an
//! error naming the field instead.

use serde_json::{Map, Value};

use super::plan::{FieldKind, FieldPlan, Item, Plans, Shape, push_key};
use crate::js::{FieldError, field_err, to_number, to_uint32, to_uint64, truthy};

/// Deepest message nesting accepted (the protocol nests a few levels; JSON could nest more).
const MAX_DEPTH: usize = 32;

pub(crate) struct Encoder<'a> {
    pub(crate) plans: &'a Plans,
    pub(crate) out: Vec<u8>,
}

impl Encoder<'_> {
    /// Writes the fields of message `index` from `value` (an object).
    pub(crate) fn message(
        &mut self,
        index: usize,
        value: &Value,
        path: &mut String,
        depth: usize,
    ) -> Result<(), FieldError> {
        if depth > MAX_DEPTH {
            return field_err(path, "value nested too deeply");
        }
        let plans = self.plans;
        let items = &plans.messages[index].items;
        // The generated encoder of a message without fields never looks at its argument.
        if items.is_empty() {
            return Ok(());
        }
        let Value::Object(obj) = value else {
            return field_err(path, "expected an object");
        };
        for item in items {
            match item {
                Item::Field(f) => self.field(f, obj, path, depth)?,
                Item::Oneof { key, cases } => {
                    // `switch (message.key?.$case)`: anything but a known case writes nothing.
                    let Some(Value::Object(union)) = obj.get(key) else {
                        continue;
                    };
                    let Some(Value::String(case)) = union.get("$case") else {
                        continue;
                    };
                    let Some(f) = cases.iter().find(|f| &f.key == case) else {
                        continue;
                    };
                    let len = path.len();
                    push_key(path, key);
                    push_key(path, &f.key);
                    self.one(f, union.get(&f.key), path, depth)?;
                    path.truncate(len);
                }
            }
        }
        Ok(())
    }

    fn field(
        &mut self,
        f: &FieldPlan,
        obj: &Map<String, Value>,
        path: &mut String,
        depth: usize,
    ) -> Result<(), FieldError> {
        let v = obj.get(&f.key);
        let write = match f.shape {
            Shape::Implicit => match f.kind {
                FieldKind::Bool => v == Some(&Value::Bool(true)),
                FieldKind::String => v != Some(&Value::String(String::new())),
                FieldKind::Message(_) => v.is_some(),
                // `!== 0`: undefined, null, booleans and every other number are written.
                _ => !v.is_some_and(|x| x.as_f64() == Some(0.0)),
            },
            Shape::Optional => v.is_some(),
            Shape::Packed | Shape::Repeated => true,
            Shape::OneofCase => unreachable!("oneof members are written by their oneof"),
        };
        if !write {
            return Ok(());
        }
        let len = path.len();
        push_key(path, &f.key);
        let result = match f.shape {
            Shape::Packed => self.packed(f, v, path),
            Shape::Repeated => self.repeated(f, v, path, depth),
            _ => self.one(f, v, path, depth),
        };
        path.truncate(len);
        result
    }

    /// One record: key, then the value.
    fn one(
        &mut self,
        f: &FieldPlan,
        v: Option<&Value>,
        path: &mut String,
        depth: usize,
    ) -> Result<(), FieldError> {
        self.key(f.number, f.kind.wire_type());
        match f.kind {
            FieldKind::Message(index) => {
                let start = self.out.len();
                self.message(index, v.unwrap_or(&Value::Null), path, depth + 1)?;
                self.length_prefix(start);
                Ok(())
            }
            _ => self.scalar(f.kind, v, path),
        }
    }

    /// `writer.uint32(tag).fork(); for (v of list) writer.kind(v); writer.ldelim()`.
    fn packed(
        &mut self,
        f: &FieldPlan,
        v: Option<&Value>,
        path: &mut String,
    ) -> Result<(), FieldError> {
        self.key(f.number, 2);
        let start = self.out.len();
        each_item(v, path, |item, path| self.scalar(f.kind, Some(item), path))?;
        self.length_prefix(start);
        Ok(())
    }

    /// `for (v of list) writer.uint32(tag).kind(v)`.
    fn repeated(
        &mut self,
        f: &FieldPlan,
        v: Option<&Value>,
        path: &mut String,
        depth: usize,
    ) -> Result<(), FieldError> {
        each_item(v, path, |item, path| self.one(f, Some(item), path, depth))
    }

    /// One scalar value, converted as protobuf.js's writer converts it.
    fn scalar(&mut self, kind: FieldKind, v: Option<&Value>, path: &str) -> Result<(), FieldError> {
        match kind {
            FieldKind::Float => {
                let f = to_number(v, path)? as f32;
                // A Float32Array stores NaN as the canonical quiet NaN.
                let bits = if f.is_nan() { 0x7FC0_0000 } else { f.to_bits() };
                self.out.extend_from_slice(&bits.to_le_bytes());
            }
            FieldKind::Double => {
                let f = to_number(v, path)?;
                let bits = if f.is_nan() {
                    0x7FF8_0000_0000_0000
                } else {
                    f.to_bits()
                };
                self.out.extend_from_slice(&bits.to_le_bytes());
            }
            FieldKind::Int32 | FieldKind::Enum => {
                let n = to_number(v, path)?;
                // `value < 0 ? LongBits.fromNumber(value) (10 bytes) : uint32(value >>> 0)`.
                if n < 0.0 {
                    let bits = to_uint64(n);
                    if bits == 0 {
                        // protobuf.js reserves 10 bytes and writes one: a corrupt record.
                        return field_err(
                            path,
                            format!("{n} is not an integer the runtime can write"),
                        );
                    }
                    self.varint(bits);
                } else {
                    self.varint(u64::from(to_uint32(n)));
                }
            }
            FieldKind::Uint32 => {
                let n = to_number(v, path)?;
                self.varint(u64::from(to_uint32(n)));
            }
            FieldKind::Int64 => match v {
                Some(Value::Number(n)) => self.varint(to_uint64(n.as_f64().unwrap_or(0.0))),
                // `LongBits.from(true)` reads `.low`/`.high` of a boolean: zero.
                Some(Value::Bool(_)) => self.varint(0),
                _ => return field_err(path, "expected a number (the runtime throws otherwise)"),
            },
            FieldKind::Bool => self.out.push(truthy(v) as u8),
            FieldKind::String => {
                let Some(Value::String(s)) = v else {
                    return field_err(path, "expected a string");
                };
                self.varint(s.len() as u64);
                self.out.extend_from_slice(s.as_bytes());
            }
            FieldKind::Message(_) => unreachable!("messages are written by `one`"),
            FieldKind::Unsupported(what) => {
                return field_err(path, format!("{what} fields are not supported"));
            }
        }
        Ok(())
    }

    fn key(&mut self, number: u32, wire_type: u8) {
        self.varint(u64::from(number << 3 | u32::from(wire_type)));
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.out.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }

    /// Puts the length of everything written since `start` in front of it (`ldelim`).
    fn length_prefix(&mut self, start: usize) {
        let len = (self.out.len() - start) as u64;
        let mut prefix = [0u8; 10];
        let mut n = 0;
        let mut v = len;
        while v >= 0x80 {
            prefix[n] = v as u8 | 0x80;
            v >>= 7;
            n += 1;
        }
        prefix[n] = v as u8;
        n += 1;
        self.out.splice(start..start, prefix[..n].iter().copied());
    }
}

/// Calls `f` on each item of a list (`for (const v of list)`, which throws on a non-list), with
/// `[i]` on the path.
fn each_item(
    v: Option<&Value>,
    path: &mut String,
    mut f: impl FnMut(&Value, &mut String) -> Result<(), FieldError>,
) -> Result<(), FieldError> {
    use std::fmt::Write as _;
    let Some(Value::Array(items)) = v else {
        return field_err(path, "expected a list");
    };
    for (i, item) in items.iter().enumerate() {
        let len = path.len();
        let _ = write!(path, "[{i}]");
        f(item, path)?;
        path.truncate(len);
    }
    Ok(())
}
