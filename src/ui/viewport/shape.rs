//! What the viewport draws for an entity, its size in local space, and the decoder that reads
//! it from Decentraland's `core::MeshRenderer` component.

use glam::{Mat4, Quat, Vec3};

/// The shape drawn for an entity. Sizes follow Decentraland's MeshRenderer, in the entity's
/// local space (meters, before its Transform's scale):
///
/// * `Box`: a 1 m cube centred on the origin.
/// * `Sphere`: radius 0.5 m, centred.
/// * `Cylinder`: 1 m tall along local +Y, centred, with the given radii at the top (y = +0.5)
///   and bottom (y = −0.5); a radius of 0 makes a cone.
/// * `Plane`: 1 m × 1 m in the local XY plane, centred, visible from both sides.
/// * `Marker`: a 0.25 m diamond for entities without a mesh. It follows the entity's world
///   position and rotation but not its scale, so it stays visible under scaled parents.
/// * `GltfPlaceholder`: a 1 m cube standing in for a `GltfContainer` model (models are not
///   loaded).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Shape {
    /// MeshRenderer box.
    Box,
    /// MeshRenderer sphere.
    Sphere,
    /// MeshRenderer cylinder (a truncated cone when the radii differ), radii in meters.
    Cylinder {
        /// Radius at local y = +0.5, meters.
        radius_top: f32,
        /// Radius at local y = −0.5, meters.
        radius_bottom: f32,
    },
    /// MeshRenderer plane.
    Plane,
    /// An entity with no mesh.
    Marker,
    /// An entity with a `GltfContainer` (drawn as a box).
    GltfPlaceholder,
}

/// Size of [`Shape::Marker`] tip to tip, meters.
pub const MARKER_SIZE: f32 = 0.25;

/// Decentraland's default cylinder radius, meters.
pub const DEFAULT_CYLINDER_RADIUS: f32 = 0.5;

/// An axis-aligned box: `min` and `max` corners in whatever space the caller says.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// The box around the given points; `None` for no points.
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Option<Aabb> {
        let mut it = points.into_iter();
        let first = it.next()?;
        Some(it.fold(
            Aabb {
                min: first,
                max: first,
            },
            |b, p| Aabb {
                min: b.min.min(p),
                max: b.max.max(p),
            },
        ))
    }

    /// The smallest box holding both.
    pub fn union(self, other: Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The eight corners.
    pub fn corners(&self) -> [Vec3; 8] {
        let (a, b) = (self.min, self.max);
        [
            Vec3::new(a.x, a.y, a.z),
            Vec3::new(b.x, a.y, a.z),
            Vec3::new(a.x, b.y, a.z),
            Vec3::new(b.x, b.y, a.z),
            Vec3::new(a.x, a.y, b.z),
            Vec3::new(b.x, a.y, b.z),
            Vec3::new(a.x, b.y, b.z),
            Vec3::new(b.x, b.y, b.z),
        ]
    }

    /// The box around this box's corners after `m` (a box in the space `m` maps into).
    pub fn transformed(&self, m: &Mat4) -> Aabb {
        let corners = self.corners().map(|c| m.transform_point3(c));
        Aabb::from_points(corners).expect("eight corners")
    }
}

impl Shape {
    /// The box around the shape in *shape space*, the space [`Shape::instance_matrix`] maps
    /// to world space (meters).
    pub fn local_bounds(&self) -> Aabb {
        let half = match *self {
            Shape::Box | Shape::GltfPlaceholder | Shape::Sphere => Vec3::splat(0.5),
            Shape::Cylinder {
                radius_top,
                radius_bottom,
            } => {
                let r = radius_top.max(radius_bottom);
                Vec3::new(r, 0.5, r)
            }
            Shape::Plane => Vec3::new(0.5, 0.5, 0.0),
            Shape::Marker => Vec3::splat(MARKER_SIZE * 0.5),
        };
        Aabb {
            min: -half,
            max: half,
        }
    }

    /// The matrix from shape space to world space for an entity whose world matrix is
    /// `world`. Rendering and picking both use it. It is `world` itself except for markers,
    /// which drop the scale (see [`Shape::Marker`]).
    pub fn instance_matrix(&self, world: &Mat4) -> Mat4 {
        match self {
            Shape::Marker => {
                let (_, rotation, translation) = world.to_scale_rotation_translation();
                let rotation = if rotation.is_finite() && rotation.length_squared() > 1e-6 {
                    rotation.normalize()
                } else {
                    Quat::IDENTITY // degenerate (zero-scale) parents: keep the marker upright
                };
                Mat4::from_rotation_translation(rotation, translation)
            }
            _ => *world,
        }
    }

    /// The shape to draw for an entity, from its `core::MeshRenderer` bytes (if any) and
    /// whether it has a `core::GltfContainer`. A MeshRenderer that does not decode, or
    /// names no mesh, falls back to the glTF placeholder or the marker.
    pub fn for_entity(mesh_renderer: Option<&[u8]>, has_gltf: bool) -> Shape {
        match mesh_renderer.map(Shape::from_mesh_renderer) {
            Some(Ok(Some(shape))) => shape,
            _ if has_gltf => Shape::GltfPlaceholder,
            _ => Shape::Marker,
        }
    }

    /// Decodes `core::MeshRenderer` (component 1018, protobuf `PBMeshRenderer` as written by
    /// `@dcl/ecs`): field 1 box, 2 sphere, 3 cylinder (radius_top = 1, radius_bottom = 2, f32,
    /// default 0.5), 4 plane; the last mesh field wins, as in protobuf. `Ok(None)` when no
    /// mesh is set. Unknown fields are skipped; malformed bytes are an error.
    pub fn from_mesh_renderer(bytes: &[u8]) -> Result<Option<Shape>, MeshDecodeError> {
        let mut shape = None;
        let mut r = ProtoReader { bytes, pos: 0 };
        while let Some((field, wire)) = r.tag()? {
            match (field, wire) {
                (1, WIRE_LEN) => shape = r.message().map(|_| Some(Shape::Box))?,
                (2, WIRE_LEN) => shape = r.message().map(|_| Some(Shape::Sphere))?,
                (3, WIRE_LEN) => shape = Some(decode_cylinder(r.message()?)?),
                (4, WIRE_LEN) => shape = r.message().map(|_| Some(Shape::Plane))?,
                _ => r.skip(wire)?,
            }
        }
        Ok(shape)
    }
}

fn decode_cylinder(bytes: &[u8]) -> Result<Shape, MeshDecodeError> {
    let (mut top, mut bottom) = (DEFAULT_CYLINDER_RADIUS, DEFAULT_CYLINDER_RADIUS);
    let mut r = ProtoReader { bytes, pos: 0 };
    while let Some((field, wire)) = r.tag()? {
        match (field, wire) {
            (1, WIRE_FIXED32) => top = r.f32()?,
            (2, WIRE_FIXED32) => bottom = r.f32()?,
            _ => r.skip(wire)?,
        }
    }
    // A radius that is negative or not a number is drawn as the default, not as garbage.
    let sane = |r: f32| {
        if r.is_finite() && r >= 0.0 {
            r
        } else {
            DEFAULT_CYLINDER_RADIUS
        }
    };
    Ok(Shape::Cylinder {
        radius_top: sane(top),
        radius_bottom: sane(bottom),
    })
}

/// Why MeshRenderer bytes could not be read. Offsets are byte offsets into the component data.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MeshDecodeError {
    /// The data ends inside a varint, a fixed-size value or a length-delimited field.
    #[error("MeshRenderer data ends early at byte {offset}")]
    Truncated {
        /// Where the cut-off value starts.
        offset: usize,
    },
    /// A varint longer than 10 bytes.
    #[error("MeshRenderer varint at byte {offset} is too long")]
    BadVarint {
        /// Where the varint starts.
        offset: usize,
    },
    /// A protobuf wire type this decoder cannot skip (groups, or 6/7).
    #[error("MeshRenderer uses unsupported protobuf wire type {wire} at byte {offset}")]
    UnsupportedWireType {
        /// The wire type found.
        wire: u8,
        /// Where its tag starts.
        offset: usize,
    },
}

const WIRE_VARINT: u8 = 0;
const WIRE_FIXED64: u8 = 1;
const WIRE_LEN: u8 = 2;
const WIRE_FIXED32: u8 = 5;

/// Just enough protobuf to read PBMeshRenderer: tags, varints, fixed32 and nested messages.
struct ProtoReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ProtoReader<'a> {
    fn varint(&mut self) -> Result<u64, MeshDecodeError> {
        let start = self.pos;
        let mut value = 0u64;
        for shift in 0..10 {
            let byte = *self
                .bytes
                .get(self.pos)
                .ok_or(MeshDecodeError::Truncated { offset: start })?;
            self.pos += 1;
            value |= u64::from(byte & 0x7F) << (7 * shift);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(MeshDecodeError::BadVarint { offset: start })
    }

    /// The next field number and wire type, or `None` at the end.
    fn tag(&mut self) -> Result<Option<(u64, u8)>, MeshDecodeError> {
        if self.pos >= self.bytes.len() {
            return Ok(None);
        }
        let start = self.pos;
        let tag = self.varint()?;
        let wire = (tag & 7) as u8;
        if !matches!(wire, WIRE_VARINT | WIRE_FIXED64 | WIRE_LEN | WIRE_FIXED32) {
            return Err(MeshDecodeError::UnsupportedWireType {
                wire,
                offset: start,
            });
        }
        Ok(Some((tag >> 3, wire)))
    }

    fn take(&mut self, n: usize, start: usize) -> Result<&'a [u8], MeshDecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(MeshDecodeError::Truncated { offset: start })?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn message(&mut self) -> Result<&'a [u8], MeshDecodeError> {
        let start = self.pos;
        let len = self.varint()?;
        let len = usize::try_from(len).map_err(|_| MeshDecodeError::Truncated { offset: start })?;
        self.take(len, start)
    }

    fn f32(&mut self) -> Result<f32, MeshDecodeError> {
        let start = self.pos;
        let b = self.take(4, start)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn skip(&mut self, wire: u8) -> Result<(), MeshDecodeError> {
        let start = self.pos;
        match wire {
            WIRE_VARINT => self.varint().map(drop),
            WIRE_FIXED64 => self.take(8, start).map(drop),
            WIRE_LEN => self.message().map(drop),
            _ => self.take(4, start).map(drop), // WIRE_FIXED32; others are refused in tag()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_each_mesh_kind_as_dcl_ecs_writes_it() {
        // Bytes as PBMeshRenderer.encode writes them (tags 10, 18, 26, 34; empty sub-messages).
        assert_eq!(Shape::from_mesh_renderer(&[10, 0]), Ok(Some(Shape::Box)));
        assert_eq!(Shape::from_mesh_renderer(&[18, 0]), Ok(Some(Shape::Sphere)));
        assert_eq!(Shape::from_mesh_renderer(&[34, 0]), Ok(Some(Shape::Plane)));
        assert_eq!(
            Shape::from_mesh_renderer(&[26, 0]),
            Ok(Some(Shape::Cylinder {
                radius_top: 0.5,
                radius_bottom: 0.5
            }))
        );
        assert_eq!(Shape::from_mesh_renderer(&[]), Ok(None), "no mesh set");
    }

    #[test]
    fn reads_cylinder_radii_and_skips_unknown_fields() {
        let mut cyl = vec![13];
        cyl.extend(0.0f32.to_le_bytes());
        cyl.extend([21]);
        cyl.extend(2.0f32.to_le_bytes());
        cyl.extend([24, 0x96, 0x01]); // unknown varint field 3
        let mut bytes = vec![10, 2, 8, 1]; // a box with an unknown field, overridden below
        bytes.push(26);
        bytes.push(cyl.len() as u8);
        bytes.extend(&cyl);
        assert_eq!(
            Shape::from_mesh_renderer(&bytes),
            Ok(Some(Shape::Cylinder {
                radius_top: 0.0,
                radius_bottom: 2.0
            }))
        );
    }

    #[test]
    fn malformed_bytes_are_specific_errors_and_fall_back_to_a_marker() {
        assert_eq!(
            Shape::from_mesh_renderer(&[10, 5, 0]),
            Err(MeshDecodeError::Truncated { offset: 1 })
        );
        assert_eq!(
            Shape::from_mesh_renderer(&[11]),
            Err(MeshDecodeError::UnsupportedWireType { wire: 3, offset: 0 })
        );
        assert_eq!(
            Shape::from_mesh_renderer(&[0xFF; 11]),
            Err(MeshDecodeError::BadVarint { offset: 0 })
        );
        assert_eq!(Shape::for_entity(Some(&[10, 5]), false), Shape::Marker);
        assert_eq!(
            Shape::for_entity(Some(&[10, 5]), true),
            Shape::GltfPlaceholder
        );
        assert_eq!(Shape::for_entity(None, false), Shape::Marker);
        assert_eq!(Shape::for_entity(Some(&[18, 0]), true), Shape::Sphere);
    }

    #[test]
    fn nonsense_radii_draw_as_the_default() {
        let mut cyl = vec![26, 5, 13];
        cyl.extend(f32::NAN.to_le_bytes());
        assert_eq!(
            Shape::from_mesh_renderer(&cyl),
            Ok(Some(Shape::Cylinder {
                radius_top: 0.5,
                radius_bottom: 0.5
            }))
        );
    }

    #[test]
    fn marker_drops_scale_but_keeps_position_and_rotation() {
        let world = Mat4::from_scale_rotation_translation(
            Vec3::splat(10.0),
            Quat::from_rotation_y(0.5),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let m = Shape::Marker.instance_matrix(&world);
        let (s, r, t) = m.to_scale_rotation_translation();
        assert!(s.abs_diff_eq(Vec3::ONE, 1e-5));
        assert!(r.abs_diff_eq(Quat::from_rotation_y(0.5), 1e-5));
        assert!(t.abs_diff_eq(Vec3::new(1.0, 2.0, 3.0), 1e-5));
        let flat = Shape::Marker.instance_matrix(&Mat4::from_scale(Vec3::ZERO));
        assert!(
            flat.is_finite(),
            "a zero-scale parent still gives a drawable marker"
        );
        assert_eq!(Shape::Box.instance_matrix(&world), world);
    }
}
