//! The values inside a native component entry that the reader checks itself: a Transform's
//! fields and the lists of numbers in it, each problem named with its field.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{Key, TRANSFORM_KEYS};
use scenetree_core::model::{Entity, Transform, present};

/// A decoded Transform as the file writes it: numbers read as f64, then rounded to f32. What
/// is wrong with it is the inner `Err`, naming the field (`position: expected 3 numbers,
/// found 2`); only broken JSON fails the reader here.
pub(super) struct TransformValue;

seed!(
    TransformValue,
    Result<Transform, String>,
    deserialize_map,
    "a Transform (an object with \"position\", \"rotation\", \"scale\" and \"parent\")",
    {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut position, mut rotation, mut scale) = (None, None, None);
            let mut parent = Entity::ROOT;
            let mut problem: Option<String> = None;
            let mut note = |p: String| {
                problem.get_or_insert(p);
            };
            while let Some(key) = map.next_key_seed(Key)? {
                match &*key {
                    "position" => match map.next_value_seed(Floats::<3>("position"))? {
                        Ok(v) => position = Some(v),
                        Err(p) => note(p),
                    },
                    "rotation" => match map.next_value_seed(Floats::<4>("rotation"))? {
                        Ok(v) => rotation = Some(v),
                        Err(p) => note(p),
                    },
                    "scale" => match map.next_value_seed(Floats::<3>("scale"))? {
                        Ok(v) => scale = Some(v),
                        Err(p) => note(p),
                    },
                    "parent" => match map.next_value::<Value>()?.as_u64().map(u32::try_from) {
                        Some(Ok(id)) => parent = Entity(id),
                        _ => note("parent: expected an entity id".into()),
                    },
                    _ => {
                        let keys = TRANSFORM_KEYS.join(", ");
                        note(format!(
                            "value: unknown key {} (expected {keys}; a file from a newer \
                             scenetree?)",
                            present::quoted(&key)
                        ));
                        map.next_value::<Value>()?;
                    }
                }
            }
            if let Some(problem) = problem {
                return Ok(Err(problem));
            }
            let missing = |field: &str, n: usize| format!("{field}: expected a list of {n} numbers");
            let build = || -> Result<Transform, String> {
                let [px, py, pz] = position.ok_or_else(|| missing("position", 3))?;
                let [rx, ry, rz, rw] = rotation.ok_or_else(|| missing("rotation", 4))?;
                let [sx, sy, sz] = scale.ok_or_else(|| missing("scale", 3))?;
                Ok(Transform {
                    position: glam::Vec3::new(px, py, pz),
                    rotation: glam::Quat::from_xyzw(rx, ry, rz, rw),
                    scale: glam::Vec3::new(sx, sy, sz),
                    parent,
                })
            };
            Ok(build())
        }
    }
);

/// Visits of a scalar where [`Floats`] wanted a list: a problem with the value, not the JSON.
macro_rules! not_a_list {
    ($($visit:ident: $ty:ty),*) => {$(
        fn $visit<E: de::Error>(self, _: $ty) -> Result<Self::Value, E> {
            Ok(Err(self.not_a_list()))
        }
    )*};
}

/// A field of `N` numbers (`self.0` names it), rounded to f32; `Err` says what is wrong.
struct Floats<const N: usize>(&'static str);

impl<'de, const N: usize> DeserializeSeed<'de> for Floats<N> {
    type Value = Result<[f32; N], String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for Floats<N> {
    type Value = Result<[f32; N], String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a list of {N} numbers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let field = self.0;
        let mut out = [0.0; N];
        let (mut count, mut problem) = (0, None);
        // Elements are read as JSON values (a number allocates nothing), so a wrong one is
        // named in the message and the list is still read to its end.
        while let Some(x) = seq.next_element::<Value>()? {
            match (x.as_f64(), out.get_mut(count)) {
                (Some(v), Some(slot)) => *slot = v as f32,
                (None, _) => {
                    problem.get_or_insert_with(|| format!("{field}: {x} is not a number"));
                }
                (Some(_), None) => {}
            }
            count += 1;
        }
        Ok(match problem {
            Some(p) => Err(p),
            None if count != N => Err(format!("{field}: expected {N} numbers, found {count}")),
            None => Ok(out),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<Value, Value>()?.is_some() {}
        Ok(Err(self.not_a_list()))
    }

    not_a_list!(visit_str: &str, visit_f64: f64, visit_u64: u64, visit_i64: i64, visit_bool: bool);

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Err(self.not_a_list()))
    }
}

impl<const N: usize> Floats<N> {
    fn not_a_list(&self) -> String {
        format!("{}: expected a list of {N} numbers", self.0)
    }
}
