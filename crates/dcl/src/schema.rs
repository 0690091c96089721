//! The `@dcl/ecs` schema codec, driven by a component's `jsonSchema`: the JSON value a
//! `main.composite` holds ⇄ the bytes the runtime stores (little-endian, no tags).
//!
//! It follows `@dcl/ecs` 7.28.0 (`schemas/`, `Schemas.fromJson`) exactly where the JavaScript
//! is well defined: numbers are converted as `DataView` converts them (`ToInt32`, `ToUint32`,
//! float32 rounding), booleans by JavaScript truthiness, a missing optional writes a 0 byte, a
//! top-level map fills missing keys with their defaults (the runtime's `extend`), and map keys
//! that look like array indexes come first in ascending order (JavaScript's property order).
//! Where the runtime would throw, or would coerce exotically (a string where a number is
//! expected), encoding returns an error instead, and the caller keeps the value it cannot
//! produce untouched.

use serde_json::{Map, Value};

pub use super::js::FieldError as SchemaError;
use super::js::{field_err, js_number, to_int32, to_number, to_uint32, truthy};

/// A component value's layout, built from its `jsonSchema`.
#[derive(Clone, Debug, PartialEq)]
pub enum Schema {
    /// `boolean`: one byte, 1 or 0.
    Bool,
    /// `int8`, `int16`, `int32`: little-endian two's complement of that many bits.
    Int(IntWidth),
    /// `int64`: eight bytes, from a JavaScript number through `BigInt`.
    Int64,
    /// `float32`.
    Float32,
    /// `float64`.
    Float64,
    /// `utf8-string`: u32 byte length, then UTF-8.
    String,
    /// `entity`: u32.
    Entity,
    /// `vector3` (x, y, z), `quaternion` (x, y, z, w), `color3` (r, g, b), `color4`
    /// (r, g, b, a): float32 fields in this order.
    Floats(&'static [&'static str]),
    /// `enum-int`: an int32, with the schema's default.
    IntEnum { default: Option<Value> },
    /// `enum-string`: a utf8-string, with the schema's default.
    StringEnum { default: Option<Value> },
    /// `map`: the fields back to back, in JavaScript property order.
    Map(Vec<(String, Schema)>),
    /// `array`: u32 count, then the items.
    Array(Box<Schema>),
    /// `optional`: a byte 1 then the value, or a byte 0.
    Optional(Box<Schema>),
    /// `one-of`: a byte (0: no case; else 1 + the case's index), then the case's value.
    OneOf(Vec<(String, Schema)>),
}

/// Width of a small integer field.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntWidth {
    /// `int8`
    I8,
    /// `int16`
    I16,
    /// `int32`
    I32,
}

fn err<T>(path: &str, message: impl Into<String>) -> Result<T, SchemaError> {
    field_err(path, message)
}

const XYZ: &[&str] = &["x", "y", "z"];
const XYZW: &[&str] = &["x", "y", "z", "w"];
const RGB: &[&str] = &["r", "g", "b"];
const RGBA: &[&str] = &["r", "g", "b", "a"];

/// Deepest schema nesting accepted; deeper input is refused rather than risk the stack.
const MAX_DEPTH: usize = 64;

impl Schema {
    /// Builds the layout from a `jsonSchema` as `Schemas.fromJson` does. Serialization types
    /// it does not support (`protocol-buffer`, `transform`, unknown ones) are errors.
    pub fn from_json_schema(json: &Value) -> Result<Schema, SchemaError> {
        Self::build(json, "", 0)
    }

    fn build(json: &Value, path: &str, depth: usize) -> Result<Schema, SchemaError> {
        if depth > MAX_DEPTH {
            return err(path, "schema nested too deeply");
        }
        let Some(kind) = json.get("serializationType").and_then(Value::as_str) else {
            return err(path, "no \"serializationType\"");
        };
        let fields = |key: &str| -> Result<Vec<(String, Schema)>, SchemaError> {
            let Some(props) = json.get(key).and_then(Value::as_object) else {
                return err(
                    path,
                    format!("a {kind} schema needs \"{key}\" as an object"),
                );
            };
            js_property_order(props)
                .into_iter()
                .map(|(k, v)| {
                    Ok((
                        k.clone(),
                        Self::build(v, &format!("{path}.{k}"), depth + 1)?,
                    ))
                })
                .collect()
        };
        Ok(match kind {
            "boolean" => Schema::Bool,
            "int8" => Schema::Int(IntWidth::I8),
            "int16" => Schema::Int(IntWidth::I16),
            "int32" => Schema::Int(IntWidth::I32),
            "int64" => Schema::Int64,
            "float32" => Schema::Float32,
            "float64" => Schema::Float64,
            "utf8-string" => Schema::String,
            "entity" => Schema::Entity,
            "vector3" => Schema::Floats(XYZ),
            "quaternion" => Schema::Floats(XYZW),
            "color3" => Schema::Floats(RGB),
            "color4" => Schema::Floats(RGBA),
            "enum-int" => Schema::IntEnum {
                default: json.get("default").cloned(),
            },
            "enum-string" => Schema::StringEnum {
                default: json.get("default").cloned(),
            },
            "map" => Schema::Map(fields("properties")?),
            "one-of" => Schema::OneOf(fields("properties")?),
            "array" => match json.get("items") {
                Some(items) => Schema::Array(Box::new(Self::build(
                    items,
                    &format!("{path}[]"),
                    depth + 1,
                )?)),
                None => return err(path, "an array schema needs \"items\""),
            },
            "optional" => match json.get("optionalJsonSchema") {
                Some(inner) => Schema::Optional(Box::new(Self::build(inner, path, depth + 1)?)),
                None => return err(path, "an optional schema needs \"optionalJsonSchema\""),
            },
            other => {
                return err(
                    path,
                    format!("serialization type \"{other}\" is not supported"),
                );
            }
        })
    }

    /// Encodes a component value as the runtime does when it stores a composite's value
    /// (`create` with `extend`, then `serialize`).
    pub fn encode_component(&self, value: &Value) -> Result<Vec<u8>, SchemaError> {
        let mut out = Vec::new();
        match (self, value) {
            (Schema::Map(fields), Value::Object(obj)) => {
                for (key, schema) in fields {
                    let path = format!(".{key}");
                    match obj.get(key) {
                        Some(v) => schema.encode_into(Some(v), &path, &mut out, 0)?,
                        None => schema.encode_default(&path, &mut out, 0)?,
                    }
                }
            }
            _ => self.encode_into(Some(value), "", &mut out, 0)?,
        }
        Ok(out)
    }

    /// Writes the value `create()` gives (what `extend` puts in for a missing key).
    fn encode_default(
        &self,
        path: &str,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Result<(), SchemaError> {
        match self {
            Schema::String => {
                write_string("", out);
                Ok(())
            }
            Schema::Floats(names) => {
                out.resize(out.len() + 4 * names.len(), 0);
                Ok(())
            }
            Schema::IntEnum { default } | Schema::StringEnum { default } => {
                self.encode_into(default.as_ref(), path, out, depth)
            }
            Schema::Map(fields) => fields
                .iter()
                .try_for_each(|(k, s)| s.encode_default(&format!("{path}.{k}"), out, depth + 1)),
            Schema::Array(_) => {
                out.extend_from_slice(&0u32.to_le_bytes());
                Ok(())
            }
            Schema::OneOf(_) => {
                out.push(0);
                Ok(())
            }
            // undefined: 0 for numbers and booleans, absent for optionals.
            _ => self.encode_into(None, path, out, depth),
        }
    }

    /// `serialize` of one (possibly missing: `None` = `undefined`) value.
    fn encode_into(
        &self,
        value: Option<&Value>,
        path: &str,
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Result<(), SchemaError> {
        if depth > MAX_DEPTH {
            return err(path, "value nested too deeply");
        }
        match self {
            Schema::Bool => out.push(truthy(value) as u8),
            Schema::Int(width) => {
                let n = to_int32(to_number(value, path)?);
                match width {
                    IntWidth::I8 => out.push(n as u8),
                    IntWidth::I16 => out.extend_from_slice(&(n as i16).to_le_bytes()),
                    IntWidth::I32 => out.extend_from_slice(&n.to_le_bytes()),
                }
            }
            Schema::IntEnum { .. } => {
                out.extend_from_slice(&to_int32(to_number(value, path)?).to_le_bytes())
            }
            Schema::Int64 => {
                let Some(v) = value.filter(|v| !v.is_null()) else {
                    return err(
                        path,
                        "an int64 needs a number (the runtime's BigInt throws)",
                    );
                };
                let n = to_number(Some(v), path)?;
                out.extend_from_slice(&bigint_as_i64(n, path)?.to_le_bytes());
            }
            Schema::Float32 => write_f32(to_number(value, path)? as f32, out),
            Schema::Float64 => out.extend_from_slice(&to_number(value, path)?.to_le_bytes()),
            Schema::Entity => {
                out.extend_from_slice(&to_uint32(to_number(value, path)?).to_le_bytes())
            }
            Schema::String | Schema::StringEnum { .. } => match value {
                Some(Value::String(s)) => write_string(s, out),
                _ => return err(path, "expected a string"),
            },
            Schema::Floats(names) => {
                let Some(Value::Object(obj)) = value else {
                    return err(
                        path,
                        format!("expected an object with {}", names.join(", ")),
                    );
                };
                for name in *names {
                    let v = obj.get(*name);
                    write_f32(to_number(v, &format!("{path}.{name}"))? as f32, out);
                }
            }
            Schema::Map(fields) => {
                let Some(Value::Object(obj)) = value else {
                    return err(path, "expected an object");
                };
                for (key, schema) in fields {
                    schema.encode_into(obj.get(key), &format!("{path}.{key}"), out, depth + 1)?;
                }
            }
            Schema::Array(item) => {
                let Some(Value::Array(items)) = value else {
                    return err(path, "expected a list");
                };
                out.extend_from_slice(&(items.len() as u32).to_le_bytes());
                for (i, v) in items.iter().enumerate() {
                    item.encode_into(Some(v), &format!("{path}[{i}]"), out, depth + 1)?;
                }
            }
            Schema::Optional(inner) => match value {
                None | Some(Value::Null) => out.push(0),
                Some(v) => {
                    out.push(1);
                    inner.encode_into(Some(v), path, out, depth + 1)?;
                }
            },
            Schema::OneOf(cases) => {
                let Some(Value::Object(obj)) = value else {
                    return err(path, "expected an object with \"$case\" and \"value\"");
                };
                match obj.get("$case") {
                    None => out.push(0),
                    Some(Value::String(case)) => {
                        let Some(index) = cases.iter().position(|(k, _)| k == case) else {
                            return err(path, format!("unknown case \"{case}\""));
                        };
                        out.push(index as u8 + 1);
                        cases[index].1.encode_into(
                            obj.get("value"),
                            &format!("{path}.value"),
                            out,
                            depth + 1,
                        )?;
                    }
                    Some(_) => return err(path, "\"$case\" must be a string"),
                }
            }
        }
        Ok(())
    }

    /// Decodes bytes as `deserialize` does, into the JSON a composite would hold (a value
    /// `JSON.stringify` would print). Errors on truncated data, invalid UTF-8 and trailing
    /// bytes. Non-finite floats become `null`, as in JavaScript's JSON.
    pub fn decode(&self, bytes: &[u8]) -> Result<Value, SchemaError> {
        let mut reader = Reader { bytes, pos: 0 };
        let value = self.decode_from(&mut reader, "", 0)?;
        if reader.pos != bytes.len() {
            return err("", format!("{} bytes left over", bytes.len() - reader.pos));
        }
        Ok(value.unwrap_or(Value::Null))
    }

    /// One value; `None` is JavaScript's `undefined` (an absent optional).
    fn decode_from(
        &self,
        r: &mut Reader,
        path: &str,
        depth: usize,
    ) -> Result<Option<Value>, SchemaError> {
        if depth > MAX_DEPTH {
            return err(path, "value nested too deeply");
        }
        Ok(Some(match self {
            Schema::Bool => Value::Bool(r.take::<1>(path)?[0] == 1),
            Schema::Int(IntWidth::I8) => Value::from(r.take::<1>(path)?[0] as i8),
            Schema::Int(IntWidth::I16) => Value::from(i16::from_le_bytes(r.take(path)?)),
            Schema::Int(IntWidth::I32) | Schema::IntEnum { .. } => {
                Value::from(i32::from_le_bytes(r.take(path)?))
            }
            // Number(bigint): exact up to 2^53, rounded beyond, as the runtime sees it.
            Schema::Int64 => js_number(i64::from_le_bytes(r.take(path)?) as f64),
            Schema::Float32 => js_number(f32::from_le_bytes(r.take(path)?) as f64),
            Schema::Float64 => js_number(f64::from_le_bytes(r.take(path)?)),
            Schema::Entity => Value::from(u32::from_le_bytes(r.take(path)?)),
            Schema::String | Schema::StringEnum { .. } => {
                let len = u32::from_le_bytes(r.take(path)?) as usize;
                let text = r.slice(len, path)?;
                match std::str::from_utf8(text) {
                    Ok(s) => Value::String(s.to_owned()),
                    Err(_) => return err(path, "string is not valid UTF-8"),
                }
            }
            Schema::Floats(names) => {
                let mut obj = Map::new();
                for name in *names {
                    obj.insert(
                        (*name).into(),
                        js_number(f32::from_le_bytes(r.take(path)?) as f64),
                    );
                }
                Value::Object(obj)
            }
            Schema::Map(fields) => {
                let mut obj = Map::new();
                for (key, schema) in fields {
                    if let Some(v) = schema.decode_from(r, &format!("{path}.{key}"), depth + 1)? {
                        obj.insert(key.clone(), v);
                    }
                }
                Value::Object(obj)
            }
            Schema::Array(item) => {
                let count = u32::from_le_bytes(r.take(path)?) as usize;
                // Every item takes at least one byte... except empty maps; bound by input size.
                let mut items = Vec::with_capacity(count.min(r.remaining()));
                for i in 0..count {
                    if i > r.bytes.len() {
                        return err(path, format!("{count} items do not fit in the data"));
                    }
                    let v = item.decode_from(r, &format!("{path}[{i}]"), depth + 1)?;
                    items.push(v.unwrap_or(Value::Null));
                }
                Value::Array(items)
            }
            Schema::Optional(inner) => {
                // The runtime reads an int8 and treats any non-zero as present.
                if r.take::<1>(path)?[0] == 0 {
                    return Ok(None);
                }
                return inner.decode_from(r, path, depth + 1);
            }
            Schema::OneOf(cases) => {
                let index = r.take::<1>(path)?[0] as i8;
                if index == 0 {
                    Value::Object(Map::new())
                } else {
                    // The runtime reads the index as an int8: 0x80.. are negative, never a case.
                    let Some((case, schema)) = usize::try_from(i16::from(index) - 1)
                        .ok()
                        .and_then(|i| cases.get(i))
                    else {
                        return err(path, format!("case index {index} is out of range"));
                    };
                    let mut obj = Map::new();
                    obj.insert("$case".into(), Value::String(case.clone()));
                    let v = schema.decode_from(r, &format!("{path}.value"), depth + 1)?;
                    obj.insert("value".into(), v.unwrap_or(Value::Null));
                    Value::Object(obj)
                }
            }
        }))
    }
}

/// The order JavaScript iterates an object's keys: integer-like keys (array indexes) first,
/// ascending, then the others in insertion order.
pub fn js_property_order(obj: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let is_index = |k: &str| {
        k.parse::<u32>()
            .is_ok_and(|n| n != u32::MAX && n.to_string() == k)
    };
    let mut indexes: Vec<(&String, &Value)> = obj.iter().filter(|(k, _)| is_index(k)).collect();
    indexes.sort_by_key(|(k, _)| k.parse::<u32>().unwrap_or(u32::MAX));
    indexes.extend(obj.iter().filter(|(k, _)| !is_index(k)));
    indexes
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take<const N: usize>(&mut self, path: &str) -> Result<[u8; N], SchemaError> {
        let s = self.slice(N, path)?;
        Ok(s.try_into().expect("slice has length N"))
    }

    fn slice(&mut self, n: usize, path: &str) -> Result<&'a [u8], SchemaError> {
        match self.bytes.get(self.pos..).and_then(|rest| rest.get(..n)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => err(
                path,
                format!("data ends at byte {} (needed {n} more)", self.bytes.len()),
            ),
        }
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }
}

fn write_f32(v: f32, out: &mut Vec<u8>) {
    // A DataView writes NaN as the canonical quiet NaN.
    let bits = if v.is_nan() { 0x7FC0_0000 } else { v.to_bits() };
    out.extend_from_slice(&bits.to_le_bytes());
}

fn write_string(s: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// `BigInt(n)` then `setBigInt64` (wraps modulo 2⁶⁴); non-integers make `BigInt` throw.
fn bigint_as_i64(n: f64, path: &str) -> Result<i64, SchemaError> {
    if !n.is_finite() || n.fract() != 0.0 {
        return err(
            path,
            format!("{n} is not an integer (the runtime's BigInt throws)"),
        );
    }
    Ok(super::js::to_uint64(n) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(j: Value) -> Schema {
        Schema::from_json_schema(&j).unwrap()
    }

    #[test]
    fn name_schema_writes_a_length_prefixed_string() {
        let s = schema(json!({"type":"object","serializationType":"map",
            "properties":{"value":{"type":"string","serializationType":"utf8-string"}}}));
        let bytes = s.encode_component(&json!({"value": "Lamp"})).unwrap();
        assert_eq!(bytes, [4, 0, 0, 0, b'L', b'a', b'm', b'p']);
        assert_eq!(s.decode(&bytes).unwrap(), json!({"value": "Lamp"}));
        // A missing top-level key takes its default, as the runtime's `extend` does.
        assert_eq!(s.encode_component(&json!({})).unwrap(), [0, 0, 0, 0]);
    }

    #[test]
    fn int64_converts_like_bigint() {
        assert_eq!(bigint_as_i64(2f64.powi(64) + 4096.0, "").unwrap(), 4096);
        assert!(bigint_as_i64(1.5, "").is_err());
    }

    #[test]
    fn optional_one_of_and_arrays_follow_the_runtime_layout() {
        let s = schema(json!({"serializationType":"map","properties":{
            "a":{"serializationType":"optional","optionalJsonSchema":{"serializationType":"boolean"}},
            "b":{"serializationType":"one-of","properties":{
                "n":{"serializationType":"int8"},"s":{"serializationType":"utf8-string"}}},
            "c":{"serializationType":"array","items":{"serializationType":"entity"}}}}));
        let v = json!({"a": false, "b": {"$case": "s", "value": "x"}, "c": [512, 513]});
        let bytes = s.encode_component(&v).unwrap();
        assert_eq!(
            bytes,
            [
                1, 0, 2, 1, 0, 0, 0, b'x', 2, 0, 0, 0, 0, 2, 0, 0, 1, 2, 0, 0
            ]
        );
        assert_eq!(s.decode(&bytes).unwrap(), v);
        let absent = s.encode_component(&json!({"b": {}, "c": []})).unwrap();
        assert_eq!(absent, [0, 0, 0, 0, 0, 0]);
        assert_eq!(s.decode(&absent).unwrap(), json!({"b": {}, "c": []}));
    }

    #[test]
    fn integer_like_keys_come_first_as_in_javascript() {
        let s = schema(json!({"serializationType":"map","properties":{
            "b":{"serializationType":"int8"},"10":{"serializationType":"int8"},
            "2":{"serializationType":"int8"},"a":{"serializationType":"int8"}}}));
        let bytes = s
            .encode_component(&json!({"a": 4, "b": 3, "2": 1, "10": 2}))
            .unwrap();
        assert_eq!(bytes, [1, 2, 3, 4]);
    }

    #[test]
    fn values_the_runtime_would_throw_on_are_errors() {
        let s = schema(json!({"serializationType":"map","properties":{
            "p":{"serializationType":"vector3"},"s":{"serializationType":"utf8-string"}}}));
        let e = s.encode_component(&json!({"p": 5, "s": "x"})).unwrap_err();
        assert_eq!(e.path, ".p");
        let e = s
            .encode_component(&json!({"p": {"x": 1}, "s": 7}))
            .unwrap_err();
        assert_eq!(e.path, ".s");
        assert!(Schema::from_json_schema(&json!({"serializationType":"protocol-buffer"})).is_err());
        assert!(s.decode(&[0; 5]).is_err(), "truncated");
        // Found by the fuzzer: a one-of index byte of 0x80 reads as -128.
        let one_of = schema(json!({"serializationType":"one-of","properties":{
            "n":{"serializationType":"int8"}}}));
        assert!(one_of.decode(&[0x80]).is_err());
        assert!(one_of.decode(&[0x02, 0]).is_err(), "no second case");
        let mut ok = s.encode_component(&json!({"p": {}, "s": ""})).unwrap();
        ok.push(0);
        assert!(s.decode(&ok).is_err(), "trailing byte");
    }
}
