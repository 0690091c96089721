//! Decentraland's Transform component (`core::Transform`, component id 1) and its 44-byte
//! little-endian wire layout (ADR-153).

use glam::{Affine3A, Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::Entity;

/// A local transform: translation, rotation and scale relative to `parent`.
///
/// Space: everything is expressed in the parent's frame (left-handed, +Y up, +Z forward, meters).
/// The rotation is a quaternion stored as given on the wire (not forced to unit length; the
/// editor normalizes on commit). `parent` is the *declared* parent; the effective parent after
/// the root fallback lives in the derived scene layer.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transform {
    /// Translation in the parent's space, in meters.
    pub position: Vec3,
    /// Rotation relative to the parent, as a quaternion (x, y, z, w).
    pub rotation: Quat,
    /// Scale along the local axes (unitless factors).
    pub scale: Vec3,
    /// The declared parent entity; [`Entity::ROOT`] for top-level entities.
    pub parent: Entity,
}

/// Why 44 bytes could not be read as a Transform.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TransformDecodeError {
    /// The payload is not exactly [`Transform::BYTE_LEN`] bytes long.
    #[error("a Transform is {expected} bytes, found {found}")]
    WrongLength { expected: usize, found: usize },
}

impl Transform {
    /// The component id of `core::Transform`.
    pub const COMPONENT_ID: u32 = 1;
    /// Size of the wire layout: position f32×3, rotation f32×4, scale f32×3, parent u32.
    pub const BYTE_LEN: usize = 44;

    /// Position (0,0,0), rotation (0,0,0,1), scale (1,1,1), parent root.
    pub const IDENTITY: Transform = Transform {
        position: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
        parent: Entity::ROOT,
    };

    /// The identity transform under `parent`.
    pub const fn identity_under(parent: Entity) -> Transform {
        Transform {
            parent,
            ..Self::IDENTITY
        }
    }

    /// Encodes the 44-byte little-endian layout. Float bits are written unchanged (NaN payloads
    /// included), so `from_bytes(to_bytes(t))` reproduces every bit.
    pub fn to_bytes(&self) -> [u8; Self::BYTE_LEN] {
        let floats = [
            self.position.x,
            self.position.y,
            self.position.z,
            self.rotation.x,
            self.rotation.y,
            self.rotation.z,
            self.rotation.w,
            self.scale.x,
            self.scale.y,
            self.scale.z,
        ];
        let mut out = [0u8; Self::BYTE_LEN];
        for (chunk, value) in out.chunks_exact_mut(4).zip(floats) {
            chunk.copy_from_slice(&value.to_le_bytes());
        }
        out[40..44].copy_from_slice(&self.parent.0.to_le_bytes());
        out
    }

    /// Decodes the 44-byte little-endian layout; any other length is an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Transform, TransformDecodeError> {
        let bytes: &[u8; Self::BYTE_LEN] =
            bytes
                .try_into()
                .map_err(|_| TransformDecodeError::WrongLength {
                    expected: Self::BYTE_LEN,
                    found: bytes.len(),
                })?;
        Ok(Self::from_array(bytes))
    }

    /// Decodes an exact 44-byte array (cannot fail).
    #[inline]
    pub fn from_array(bytes: &[u8; Self::BYTE_LEN]) -> Transform {
        let f = |i: usize| f32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        Transform {
            position: Vec3::new(f(0), f(4), f(8)),
            rotation: Quat::from_xyzw(f(12), f(16), f(20), f(24)),
            scale: Vec3::new(f(28), f(32), f(36)),
            parent: Entity(u32::from_le_bytes([
                bytes[40], bytes[41], bytes[42], bytes[43],
            ])),
        }
    }

    /// The local matrix `T * R * S` (parent space from local space) as an affine transform.
    #[inline]
    pub fn local_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.position)
    }

    /// The local matrix `T * R * S` as a 4×4 column-major matrix.
    pub fn local_matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.position)
    }

    /// True when every float is finite (no NaN or infinity).
    pub fn is_finite(&self) -> bool {
        self.position.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }

    /// What keeps this Transform from giving a finite local matrix, or `None` when it gives
    /// one. `Some` exactly when [`Self::local_affine`] is not finite, which is what the render
    /// tree tests, so every place that reports it (load notes, `tree`, the hierarchy, the
    /// inspector) counts the same entities.
    pub fn problem(&self) -> Option<TransformProblem> {
        let (p, r, s) = (self.position, self.rotation, self.scale);
        let values = [
            ("position x", p.x),
            ("position y", p.y),
            ("position z", p.z),
            ("rotation x", r.x),
            ("rotation y", r.y),
            ("rotation z", r.z),
            ("rotation w", r.w),
            ("scale x", s.x),
            ("scale y", s.y),
            ("scale z", s.z),
        ];
        if let Some(&(field, value)) = values.iter().find(|(_, v)| !v.is_finite()) {
            return Some(TransformProblem::NotFinite { field, value });
        }
        if self.local_affine().is_finite() {
            return None;
        }
        // The rotation matrix squares the quaternion's components, as normalizing does.
        if !glam::Mat3::from_quat(r).is_finite() {
            return Some(TransformProblem::RotationNotNormalizable);
        }
        Some(TransformProblem::MatrixOverflow)
    }

    /// Builds the local transform that places an object at `world` when its parent sits at
    /// `parent_world` ("keep world transform" on reparent). Returns `None` when the parent's
    /// matrix cannot be inverted (zero scale) or the result is not finite.
    pub fn from_world_under(
        world: &Affine3A,
        parent_world: &Affine3A,
        parent: Entity,
    ) -> Option<Transform> {
        if parent_world.matrix3.determinant().abs() < 1e-12 {
            return None;
        }
        let local = parent_world.inverse() * *world;
        let (scale, rotation, position) = local.to_scale_rotation_translation();
        let t = Transform {
            position,
            rotation: rotation.normalize(),
            scale,
            parent,
        };
        t.is_finite().then_some(t)
    }
}

/// Why a Transform gives no finite local matrix, so that neither its entity nor anything below
/// it can be drawn (see [`Transform::problem`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TransformProblem {
    /// A value is not a finite number (NaN or an infinity): the first such field
    /// ("position x", "rotation w", "scale z") and its value.
    NotFinite {
        /// Which value.
        field: &'static str,
        /// The value itself.
        value: f32,
    },
    /// Every value is finite, but the rotation quaternion's components are so large (a
    /// component of `f32::MAX`, or `1e30`) that its squared length overflows: it cannot be
    /// normalized into a rotation.
    RotationNotNormalizable,
    /// Every value is finite and the rotation is usable, but the local matrix still overflows
    /// (a scale near `f32::MAX` times a rotation that is not of unit length).
    MatrixOverflow,
}

/// An affine matrix split into scale, rotation and translation (`M = T * R * S`), in the space
/// the matrix maps into (the scene's, for a world matrix).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decomposed {
    /// Factors along the object's own axes (a sheared matrix has no exact scale: the nearest).
    /// Negative on the x axis when the matrix mirrors.
    pub scale: Vec3,
    /// The rotation, a unit quaternion; `None` when a (near) zero scale on some axis flattens
    /// space onto a plane, a line or a point, where no rotation describes the matrix.
    pub rotation: Option<Quat>,
    /// Meters.
    pub translation: Vec3,
}

/// Splits `m` into scale, rotation and translation, saying when the rotation is undefined
/// instead of returning NaN, as a plain decomposition does for a zero scale.
pub fn decompose(m: &Affine3A) -> Decomposed {
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    // Below this the inverse scale the decomposition divides by is not meaningful in f32.
    const FLAT: f32 = 1e-12;
    let defined = m.matrix3.determinant().abs() > FLAT
        && rotation.is_finite()
        && rotation.length_squared() > 1e-6;
    Decomposed {
        scale,
        rotation: defined.then(|| rotation.normalize()),
        translation,
    }
}

/// The sign a quaternion is shown with: `q` and `-q` are the same rotation, so every
/// read-out picks the one with `w ≥ 0` (with `w = 0`, the first non-zero of x, y, z positive).
/// Found by hand: a root entity's local and world rotation were shown with opposite signs.
pub fn shown_quat(q: Quat) -> Quat {
    let first = [q.w, q.x, q.y, q.z].into_iter().find(|c| *c != 0.0);
    if first.is_some_and(|c| c < 0.0) {
        -q
    } else {
        q
    }
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decomposing_a_flattened_matrix_gives_no_rotation_instead_of_nan() {
        let turned = Quat::from_rotation_y(0.5);
        let m = Affine3A::from_scale_rotation_translation(
            Vec3::new(2.0, 1.0, 3.0),
            turned,
            Vec3::new(1.0, 2.0, 3.0),
        );
        let d = decompose(&m);
        assert!(d.rotation.unwrap().abs_diff_eq(turned, 1e-5), "{d:?}");
        assert!(d.scale.abs_diff_eq(Vec3::new(2.0, 1.0, 3.0), 1e-5));
        assert_eq!(d.translation, Vec3::new(1.0, 2.0, 3.0));
        for scale in [
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::ZERO,
            Vec3::new(1e-9, 1.0, 1e-9),
        ] {
            let flat = Affine3A::from_scale_rotation_translation(scale, turned, Vec3::X);
            let d = decompose(&flat);
            assert_eq!(d.rotation, None, "{scale}");
            assert!(d.scale.is_finite() && d.translation == Vec3::X, "{d:?}");
        }
    }

    #[test]
    fn identity_encodes_to_the_documented_bytes() {
        let bytes = Transform::IDENTITY.to_bytes();
        assert_eq!(bytes.len(), 44);
        assert_eq!(&bytes[24..28], &1.0f32.to_le_bytes(), "rotation.w = 1");
        assert_eq!(
            &bytes[28..40],
            [1.0f32.to_le_bytes(); 3].concat().as_slice(),
            "scale = 1"
        );
        assert_eq!(&bytes[40..44], &[0, 0, 0, 0], "parent = root");
    }

    #[test]
    fn layout_is_position_rotation_scale_parent_little_endian() {
        let t = Transform {
            position: Vec3::new(1.0, 2.0, 3.0),
            rotation: Quat::from_xyzw(0.1, 0.2, 0.3, 0.4),
            scale: Vec3::new(5.0, 6.0, 7.0),
            parent: Entity(0x0102_0304),
        };
        let b = t.to_bytes();
        assert_eq!(&b[0..4], &1.0f32.to_le_bytes());
        assert_eq!(&b[12..16], &0.1f32.to_le_bytes());
        assert_eq!(&b[36..40], &7.0f32.to_le_bytes());
        assert_eq!(&b[40..44], &[4, 3, 2, 1]);
        assert_eq!(Transform::from_bytes(&b).unwrap(), t);
    }

    #[test]
    fn nan_payloads_survive_a_round_trip_bit_for_bit() {
        let mut bytes = Transform::IDENTITY.to_bytes();
        bytes[0..4].copy_from_slice(&0x7F80_0001u32.to_le_bytes()); // a signalling NaN
        let t = Transform::from_bytes(&bytes).unwrap();
        assert!(t.position.x.is_nan());
        assert_eq!(t.to_bytes(), bytes);
    }

    #[test]
    fn wrong_length_is_a_specific_error() {
        assert_eq!(
            Transform::from_bytes(&[0; 43]),
            Err(TransformDecodeError::WrongLength {
                expected: 44,
                found: 43
            })
        );
    }

    #[test]
    fn a_problem_is_named_exactly_when_the_local_matrix_is_not_finite() {
        let with = |rotation: Quat, scale: Vec3| Transform {
            rotation,
            scale,
            ..Transform::IDENTITY
        };
        assert_eq!(Transform::IDENTITY.problem(), None);
        let nan = Transform {
            position: Vec3::new(0.0, f32::NAN, 0.0),
            ..Transform::IDENTITY
        };
        assert!(matches!(
            nan.problem(),
            Some(TransformProblem::NotFinite {
                field: "position y",
                ..
            })
        ));
        let max = with(Quat::from_xyzw(f32::MAX, 0.0, 0.0, 1.0), Vec3::ONE);
        assert_eq!(
            max.problem(),
            Some(TransformProblem::RotationNotNormalizable)
        );
        let huge = with(Quat::from_xyzw(1e30, 1e30, 1e30, 1e30), Vec3::ONE);
        assert_eq!(
            huge.problem(),
            Some(TransformProblem::RotationNotNormalizable)
        );
        let overflow = with(Quat::from_xyzw(1.0, 1.0, 0.0, 1.0), Vec3::splat(f32::MAX));
        assert_eq!(overflow.problem(), Some(TransformProblem::MatrixOverflow));
        // A large scale with a unit rotation is finite: no problem.
        let large = with(Quat::IDENTITY, Vec3::splat(f32::MAX));
        assert_eq!(large.problem(), None);
        for t in [Transform::IDENTITY, nan, max, huge, overflow, large] {
            assert_eq!(
                t.problem().is_some(),
                !t.local_affine().is_finite(),
                "{t:?}"
            );
        }
    }

    #[test]
    fn local_matrix_is_translate_rotate_scale() {
        let t = Transform {
            position: Vec3::new(1.0, 0.0, 0.0),
            rotation: Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
            scale: Vec3::splat(2.0),
            parent: Entity::ROOT,
        };
        // Scale first (x → 2x), then rotate 90° about Y (+X → −Z), then translate.
        let p = t.local_matrix().transform_point3(Vec3::X);
        assert!((p - Vec3::new(1.0, 0.0, -2.0)).length() < 1e-5, "{p}");
        assert!(
            t.local_affine()
                .transform_point3(Vec3::X)
                .abs_diff_eq(p, 1e-5)
        );
    }

    #[test]
    fn from_world_under_keeps_the_world_pose() {
        let parent = Transform {
            position: Vec3::new(3.0, 1.0, -2.0),
            rotation: Quat::from_rotation_z(0.7),
            scale: Vec3::new(2.0, 2.0, 2.0),
            parent: Entity::ROOT,
        };
        let child_world = Affine3A::from_scale_rotation_translation(
            Vec3::ONE,
            Quat::from_rotation_x(0.3),
            Vec3::new(-1.0, 4.0, 0.5),
        );
        let local =
            Transform::from_world_under(&child_world, &parent.local_affine(), Entity(600)).unwrap();
        let back = parent.local_affine() * local.local_affine();
        assert!(back.abs_diff_eq(child_world, 1e-4));
        assert_eq!(local.parent, Entity(600));
    }

    #[test]
    fn from_world_under_refuses_a_degenerate_parent() {
        let flat = Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0));
        assert!(Transform::from_world_under(&Affine3A::IDENTITY, &flat, Entity(600)).is_none());
    }
}
