//! Nothing malformed leaves scenetree: every value a live session writes is checked with its
//! component's codec before it is sent. The data layer's host decodes what it receives, and a
//! value it cannot decode ends its process (a 12-byte Transform does), dropping every client.

use rustc_hash::FxHashMap;

use scenetree_core::model::{Entity, Transform, component};
use scenetree_dcl::ComponentCodec;
use scenetree_dcl::js::FieldError;

/// The codecs of the components written so far, built once each.
#[derive(Debug, Default)]
pub(super) struct Codecs {
    known: FxHashMap<u32, Option<ComponentCodec>>,
}

impl Codecs {
    /// Checks a value before it is written: a Transform is its 44 bytes with finite numbers
    /// and a rotation of non-zero length; a component scenetree knows a codec for (the
    /// runtime's, the Inspector's, the smart items') must decode with it and encode again. A
    /// component without a known codec passes: the host only relays values of components it
    /// does not define, and the editor writes such values only as copies of the host's own
    /// (a duplicate). Removing a component (`None`) always passes.
    pub fn check(&mut self, component: u32, value: Option<&[u8]>) -> Result<(), BadValue> {
        let Some(bytes) = value else {
            return Ok(());
        };
        if component::is_grow_only(component) {
            return Err(BadValue::GrowOnly);
        }
        if component == Transform::COMPONENT_ID {
            if bytes.len() != Transform::BYTE_LEN {
                return Err(BadValue::TransformLength { found: bytes.len() });
            }
            let t = Transform::from_bytes(bytes)
                .map_err(|_| BadValue::TransformLength { found: bytes.len() })?;
            if !t.is_finite() {
                return Err(BadValue::NotFinite);
            }
            if t.rotation.length_squared() < 1e-12 {
                return Err(BadValue::NoDirection);
            }
            return Ok(());
        }
        let codec = self
            .known
            .entry(component)
            .or_insert_with(|| ComponentCodec::known(component));
        match codec {
            Some(codec) => {
                let json = codec.decode(bytes)?;
                codec.encode(&json)?;
                Ok(())
            }
            None => Ok(()),
        }
    }
}

/// What is wrong with a value the data layer's host could not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadValue {
    /// A grow-only component (a sound event, say) takes appended values, not a put.
    #[error("a grow-only component's values are appended, not put")]
    GrowOnly,
    /// A Transform is [`Transform::BYTE_LEN`] bytes.
    #[error("a Transform is {} bytes, this one is {found}", Transform::BYTE_LEN)]
    TransformLength {
        /// The value's length in bytes.
        found: usize,
    },
    /// A Transform with a NaN or infinite number.
    #[error("a Transform's numbers must be finite")]
    NotFinite,
    /// A Transform whose rotation quaternion has (near) zero length.
    #[error("a Transform's rotation must have a direction")]
    NoDirection,
    /// The component's codec does not decode the value, or cannot encode what it decoded.
    #[error(transparent)]
    Codec(#[from] FieldError),
}

/// Why a value was not sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not sent to the data layer: entity {entity}'s {what} {reason}")]
pub struct Unsendable {
    /// The entity written.
    pub entity: Entity,
    /// The component, as people read it.
    pub what: String,
    /// What is wrong with the value.
    pub reason: BadValue,
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::model::ids;

    #[test]
    fn short_or_broken_values_are_refused() {
        let mut codecs = Codecs::default();
        let good = Transform::IDENTITY.to_bytes();
        assert!(codecs.check(ids::TRANSFORM, Some(&good)).is_ok());
        assert_eq!(
            codecs.check(ids::TRANSFORM, Some(&good[..12])),
            Err(BadValue::TransformLength { found: 12 })
        );
        let mut nan = Transform::IDENTITY;
        nan.position.x = f32::NAN;
        assert_eq!(
            codecs.check(ids::TRANSFORM, Some(&nan.to_bytes())),
            Err(BadValue::NotFinite)
        );
        // A Name is a schema string: a length prefix beyond the bytes does not decode.
        assert!(matches!(
            codecs.check(ids::NAME, Some(&[200, 0, 0, 0, b'a'])),
            Err(BadValue::Codec(_))
        ));
        let name = scenetree_core::model::encode_name("Lamp");
        assert!(codecs.check(ids::NAME, Some(&name)).is_ok());
        assert!(codecs.check(ids::NAME, None).is_ok());
        // No codec known: relayed by the host without decoding.
        assert!(codecs.check(987_654, Some(&[1, 2, 3])).is_ok());
    }
}
