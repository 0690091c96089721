//! Protobuf bytes → the JSON of the object `@dcl/ecs` 7.28.0's generated decoders (ts-proto)
//! return, as `JSON.stringify` prints it.
//!
//! The object starts as ts-proto's `createBase…()`: implicit-presence fields at their default
//! (`0`, `""`, `false`, `[]`), optional fields, messages and oneofs absent; properties in
//! declaration order. Records then set their field (a repeated message or string appends; a
//! singular message is *replaced*, not merged; a packed list accepts both encodings). Unknown
//! fields and records of the wrong wire type are skipped, as the generated code skips them.
//! Truncated or malformed records, invalid UTF-8 and integers JavaScript cannot hold exactly
//! are errors naming the field.

use serde_json::{Map, Value};

use super::plan::{FieldKind, FieldPlan, Item, Plans, Shape, push_key};
use crate::js::{FieldError, field_err, js_number};

/// Deepest message nesting accepted.
const MAX_DEPTH: usize = 32;

pub(crate) struct Decoder<'a, 'b> {
    pub(crate) plans: &'a Plans,
    pub(crate) bytes: &'b [u8],
    pub(crate) pos: usize,
}

impl Decoder<'_, '_> {
    /// Reads message `index` from the current position up to `end`.
    pub(crate) fn message(
        &mut self,
        index: usize,
        end: usize,
        path: &mut String,
        depth: usize,
    ) -> Result<Value, FieldError> {
        if depth > MAX_DEPTH {
            return field_err(path, "message nested too deeply");
        }
        let plans = self.plans;
        let plan = &plans.messages[index];
        let mut slots: Vec<Option<Value>> = plan
            .items
            .iter()
            .map(|item| match item {
                Item::Field(f) => default_value(f),
                Item::Oneof { .. } => None,
            })
            .collect();
        while self.pos < end {
            let at = self.pos;
            let tag = self.varint(path)?;
            let (number, wire) = ((tag >> 3) as u32, (tag & 7) as u8);
            if number == 0 {
                return field_err(path, format!("byte {at}: field number 0 is not a field"));
            }
            let Some((item, case)) = plan.find(number) else {
                self.skip(wire, end, path)?;
                continue;
            };
            match &plan.items[item] {
                Item::Field(f) => {
                    let len = path.len();
                    push_key(path, &f.key);
                    let slot = &mut slots[item];
                    let r = self.field(f, wire, slot, end, path, depth);
                    path.truncate(len);
                    if !r? {
                        self.skip(wire, end, path)?;
                    }
                }
                Item::Oneof { key, cases } => {
                    let f = &cases[case];
                    if wire != f.kind.wire_type() {
                        self.skip(wire, end, path)?;
                        continue;
                    }
                    let len = path.len();
                    push_key(path, key);
                    push_key(path, &f.key);
                    let v = self.one(f.kind, end, path, depth);
                    path.truncate(len);
                    let mut union = Map::new();
                    union.insert("$case".into(), Value::String(f.key.clone()));
                    union.insert(f.key.clone(), v?);
                    slots[item] = Some(Value::Object(union));
                }
            }
        }
        if self.pos != end {
            return field_err(path, "a field runs past the end of its message");
        }
        let mut obj = Map::new();
        for (item, slot) in plan.items.iter().zip(slots) {
            if let Some(v) = slot {
                let key = match item {
                    Item::Field(f) => &f.key,
                    Item::Oneof { key, .. } => key,
                };
                obj.insert(key.clone(), v);
            }
        }
        Ok(Value::Object(obj))
    }

    /// Applies one record to its field's slot; `Ok(false)` when the wire type does not fit
    /// (the caller skips the record, as the generated code does).
    fn field(
        &mut self,
        f: &FieldPlan,
        wire: u8,
        slot: &mut Option<Value>,
        end: usize,
        path: &mut String,
        depth: usize,
    ) -> Result<bool, FieldError> {
        let one_wire = f.kind.wire_type();
        match f.shape {
            Shape::Packed if wire == 2 && one_wire != 2 => {
                let len = self.varint(path)?;
                let stop = self.sub_end(len, end, path)?;
                let list = list_of(slot);
                while self.pos < stop {
                    list.push(self.one(f.kind, stop, path, depth)?);
                }
                if self.pos != stop {
                    return field_err(path, "a packed list does not end on a value");
                }
            }
            Shape::Packed | Shape::Repeated if wire == one_wire => {
                let v = self.one(f.kind, end, path, depth)?;
                list_of(slot).push(v);
            }
            Shape::Implicit | Shape::Optional if wire == one_wire => {
                *slot = Some(self.one(f.kind, end, path, depth)?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// One value of `kind` (its key already read).
    fn one(
        &mut self,
        kind: FieldKind,
        end: usize,
        path: &mut String,
        depth: usize,
    ) -> Result<Value, FieldError> {
        Ok(match kind {
            FieldKind::Float => {
                let b = self.fixed::<4>(end, path)?;
                js_number(f64::from(f32::from_le_bytes(b)))
            }
            FieldKind::Double => js_number(f64::from_le_bytes(self.fixed::<8>(end, path)?)),
            // `reader.int32()`: the low 32 bits, signed.
            FieldKind::Int32 | FieldKind::Enum => Value::from(self.varint(path)? as u32 as i32),
            FieldKind::Uint32 => Value::from(self.varint(path)? as u32),
            FieldKind::Int64 => {
                let n = self.varint(path)? as i64;
                // ts-proto's `longToNumber` throws above Number.MAX_SAFE_INTEGER.
                if n > 9_007_199_254_740_991 {
                    return field_err(
                        path,
                        format!("{n} is larger than JavaScript numbers hold exactly"),
                    );
                }
                js_number(n as f64)
            }
            FieldKind::Bool => Value::Bool(self.varint(path)? != 0),
            FieldKind::String => {
                let len = self.varint(path)?;
                let stop = self.sub_end(len, end, path)?;
                let text = &self.bytes[self.pos..stop];
                self.pos = stop;
                match std::str::from_utf8(text) {
                    Ok(s) => Value::String(s.to_owned()),
                    Err(_) => return field_err(path, "text is not valid UTF-8"),
                }
            }
            FieldKind::Message(index) => {
                let len = self.varint(path)?;
                let stop = self.sub_end(len, end, path)?;
                self.message(index, stop, path, depth + 1)?
            }
            FieldKind::Unsupported(what) => {
                return field_err(path, format!("{what} fields are not supported"));
            }
        })
    }

    /// Skips one record of an unknown field (or of the wrong wire type).
    fn skip(&mut self, wire: u8, end: usize, path: &str) -> Result<(), FieldError> {
        match wire {
            0 => {
                self.varint(path)?;
            }
            1 => {
                self.fixed::<8>(end, path)?;
            }
            2 => {
                let len = self.varint(path)?;
                self.pos = self.sub_end(len, end, path)?;
            }
            5 => {
                self.fixed::<4>(end, path)?;
            }
            other => {
                return field_err(
                    path,
                    format!(
                        "byte {}: wire type {other} is not used by the protocol",
                        self.pos
                    ),
                );
            }
        }
        Ok(())
    }

    fn varint(&mut self, path: &str) -> Result<u64, FieldError> {
        let mut value = 0u64;
        for shift in 0..10 {
            let Some(&b) = self.bytes.get(self.pos) else {
                return field_err(
                    path,
                    format!("data ends at byte {} inside a number", self.pos),
                );
            };
            self.pos += 1;
            value |= u64::from(b & 0x7F) << (shift * 7);
            if b < 0x80 {
                return Ok(value);
            }
        }
        field_err(
            path,
            format!("byte {}: a number longer than 10 bytes", self.pos),
        )
    }

    fn fixed<const N: usize>(&mut self, end: usize, path: &str) -> Result<[u8; N], FieldError> {
        let stop = self.sub_end(N as u64, end, path)?;
        let b = self.bytes[self.pos..stop].try_into().expect("N bytes");
        self.pos = stop;
        Ok(b)
    }

    /// The end of a `len`-byte run at the current position, refused past `end`.
    fn sub_end(&self, len: u64, end: usize, path: &str) -> Result<usize, FieldError> {
        match usize::try_from(len)
            .ok()
            .and_then(|l| self.pos.checked_add(l))
        {
            Some(stop) if stop <= end => Ok(stop),
            _ => field_err(
                path,
                format!(
                    "byte {}: {len} bytes do not fit in the {} left",
                    self.pos,
                    end - self.pos.min(end)
                ),
            ),
        }
    }
}

/// ts-proto's `createBase` value of a field: `None` for `undefined`.
fn default_value(f: &FieldPlan) -> Option<Value> {
    match f.shape {
        Shape::Packed | Shape::Repeated => Some(Value::Array(Vec::new())),
        Shape::Optional | Shape::OneofCase => None,
        Shape::Implicit => match f.kind {
            FieldKind::Bool => Some(Value::Bool(false)),
            FieldKind::String => Some(Value::String(String::new())),
            FieldKind::Message(_) | FieldKind::Unsupported(_) => None,
            _ => Some(Value::from(0)),
        },
    }
}

fn list_of(slot: &mut Option<Value>) -> &mut Vec<Value> {
    if !matches!(slot, Some(Value::Array(_))) {
        *slot = Some(Value::Array(Vec::new()));
    }
    match slot {
        Some(Value::Array(list)) => list,
        _ => unreachable!("just set to a list"),
    }
}
