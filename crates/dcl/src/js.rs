//! JavaScript value semantics both component codecs follow: how `@dcl/ecs` turns the JSON a
//! composite holds into numbers (`ToNumber`, `ToInt32`, `ToUint32`), when a value counts as
//! true, and how a number reads back as JSON. One error type, [`FieldError`], names the field.

use serde_json::{Number, Value};

/// Why a value, a schema or some bytes could not be handled. `path` locates the field inside
/// the value (`.material.pbr.albedoColor.r`, `.spawnPoints[0].name`), empty for the value
/// itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if path.is_empty() { String::new() } else { format!("at {path}: ") })]
pub struct FieldError {
    /// Where in the value (or schema).
    pub path: String,
    /// What was wrong.
    pub message: String,
}

/// `Err(FieldError)` at `path`.
pub(crate) fn field_err<T>(path: &str, message: impl Into<String>) -> Result<T, FieldError> {
    Err(FieldError {
        path: path.to_owned(),
        message: message.into(),
    })
}

/// A JSON number for a JavaScript number, as `JSON.stringify` prints it: integral values as
/// integers, `-0` as `0`, and `null` when not finite.
pub fn js_number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        Value::from(v as i64)
    } else {
        Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

/// True when a `null` appears anywhere in the value: where a decoded number was NaN or
/// infinite (JSON cannot say it), so the JSON no longer holds the exact value.
pub fn contains_null(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.iter().any(contains_null),
        Value::Object(o) => o.values().any(contains_null),
        _ => false,
    }
}

/// JavaScript truthiness of a JSON value (`undefined` = `None` is false).
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// `ToNumber` for the JSON values it is plain on: numbers, booleans, `null` (0) and
/// `undefined` (NaN). Strings, lists and objects are refused: the runtime would coerce them
/// exotically (`"1.5"` → 1.5, `[]` → 0), which no editor should rely on.
pub fn to_number(v: Option<&Value>, path: &str) -> Result<f64, FieldError> {
    match v {
        None => Ok(f64::NAN),
        Some(Value::Null) => Ok(0.0),
        Some(Value::Bool(b)) => Ok(*b as u8 as f64),
        Some(Value::Number(n)) => Ok(n.as_f64().unwrap_or(f64::NAN)),
        Some(_) => field_err(path, "expected a number"),
    }
}

/// ECMAScript `ToInt32`: truncate, then wrap modulo 2³² (NaN and infinities give 0).
pub fn to_int32(v: f64) -> i32 {
    to_uint32(v) as i32
}

/// ECMAScript `ToUint32`.
pub fn to_uint32(v: f64) -> u32 {
    to_uint64(v) as u32
}

/// The low 64 bits of `trunc(v)` (0 for NaN and infinities): the modular integer conversion
/// behind `ToUint32` and protobuf.js's `LongBits.fromNumber`.
pub fn to_uint64(v: f64) -> u64 {
    if !v.is_finite() {
        return 0;
    }
    let t = v.trunc();
    // |t| < 2^64 is exact in i128; beyond, a double is m·2^e with e ≥ 12: keep the low 64 bits.
    if t.abs() < 1.8e19 {
        return (t as i128).rem_euclid(1 << 64) as u64;
    }
    let bits = t.to_bits();
    let exp = ((bits >> 52) & 0x7FF) as i64 - 1075;
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    let low = if exp >= 64 { 0 } else { mantissa << exp };
    if t < 0.0 { low.wrapping_neg() } else { low }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_convert_like_javascript() {
        assert_eq!(to_int32(4_294_967_297.0), 1);
        assert_eq!(to_int32(-1.9), -1);
        assert_eq!(to_int32(f64::NAN), 0);
        assert_eq!(to_uint32(-1.0), u32::MAX);
        assert_eq!(to_uint32(1e30), 0);
        assert_eq!(to_uint64(2f64.powi(64) + 4096.0), 4096);
        assert_eq!(to_uint64(-(2f64.powi(64) + 4096.0)), 4096u64.wrapping_neg());
        assert_eq!(js_number(-0.0), Value::from(0));
        assert_eq!(js_number(f64::NAN), Value::Null);
        assert_eq!(js_number(0.5), serde_json::json!(0.5));
    }
}

/// `JSON.stringify(value)`: compact, numbers as JavaScript prints them (`0.0000010051146546175005`,
/// `1e+21`), strings escaped as JavaScript escapes them.
pub fn stringify(value: &(impl serde::Serialize + ?Sized)) -> String {
    write_json(value, serde_json::ser::CompactFormatter)
}

/// `JSON.stringify(value, null, indent)`: one member per line, indented by `indent`.
pub fn stringify_pretty(value: &(impl serde::Serialize + ?Sized), indent: &str) -> String {
    write_json(
        value,
        serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes()),
    )
}

fn write_json<F: serde_json::ser::Formatter>(
    value: &(impl serde::Serialize + ?Sized),
    layout: F,
) -> String {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, JsNumbers(layout));
    value
        .serialize(&mut ser)
        .expect("writing JSON into memory cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// A serde_json layout whose floating-point numbers print as JavaScript's `Number#toString`
/// does (ryu-js); everything else is the wrapped layout's. serde_json's own float format
/// (`1.0051146546175005e-6`) differs from JavaScript's for small and large magnitudes.
struct JsNumbers<F>(F);

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for JsNumbers<F> {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f64) -> std::io::Result<()> {
        w.write_all(ryu_js::Buffer::new().format(v).as_bytes())
    }
    fn write_f32<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f32) -> std::io::Result<()> {
        self.write_f64(w, f64::from(v))
    }
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod stringify_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_and_layout_print_as_javascript_prints_them() {
        let v: Value = serde_json::from_str(
            r#"{"a": 0.0000010051146546175005, "b": 1e21, "c": 16, "d": [], "e": {}, "f": 0.5, "g": "\u0001é"}"#,
        )
        .unwrap();
        assert_eq!(
            stringify(&v),
            r#"{"a":0.0000010051146546175005,"b":1e+21,"c":16,"d":[],"e":{},"f":0.5,"g":"\u0001é"}"#
        );
        assert_eq!(
            stringify_pretty(&json!({"a": [1], "b": {}}), "  "),
            "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}"
        );
    }
}
