//! What the viewport draws for an entity, its size in local space, and the decoder that reads
//! it from Decentraland's `core::MeshRenderer` component.

use glam::{Mat4, Quat, Vec3};

use super::models::AssetId;
use crate::bounds::Aabb;
use scenetree_dcl::{ViewportShape, viewport_shape};

/// The shape drawn for an entity. Sizes follow Decentraland's MeshRenderer, in the entity's
/// local space (meters, before its Transform's scale):
///
/// * `Box`: a 1 m cube centred on the origin.
/// * `Sphere`: radius 0.5 m, centred.
/// * `Cylinder`: 1 m tall along local +Y, centred, with the given radii at the top (y = +0.5)
///   and bottom (y = −0.5); a radius of 0 makes a cone.
/// * `Plane`: 1 m × 1 m in the local XY plane, centred, visible from both sides.
/// * `Marker`: a diamond for entities without a mesh, 0.25 m across at the camera's default
///   distance and the same size on screen at any zoom (see `OrbitCamera::marker_scale`). It
///   follows the entity's world position and rotation but not its scale, so it stays visible
///   under scaled parents.
/// * `GltfPlaceholder`: a 1 m cube standing in for a `GltfContainer` model that is loading,
///   missing or broken.
/// * `Model`: a loaded glTF model, in the entity's local space as the model file places it.
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
    /// An entity with a `GltfContainer` whose model is not loaded (drawn as a box).
    GltfPlaceholder,
    /// A loaded glTF model (see [`super::models`]).
    Model {
        /// The model in the scene's [`super::models::SceneAssets`].
        asset: AssetId,
        /// The box around the model's vertices, the entity's local space (meters).
        bounds: Aabb,
    },
}

/// Size of [`Shape::Marker`] tip to tip, meters.
pub const MARKER_SIZE: f32 = 0.25;

/// Decentraland's default cylinder radius, meters.
pub const DEFAULT_CYLINDER_RADIUS: f32 = 0.5;

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
            Shape::Model { bounds, .. } => return bounds,
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

    /// The shape to draw for an entity, from its `core::MeshRenderer` and `core::GltfContainer`
    /// values (either may be absent), decoded with prost by [`scenetree_dcl::viewport_shape`].
    /// A MeshRenderer that does not decode, or names no mesh, falls back to the glTF placeholder
    /// or, without a model, the marker.
    pub fn for_entity(mesh_renderer: Option<&[u8]>, gltf_container: Option<&[u8]>) -> Shape {
        match viewport_shape(mesh_renderer, gltf_container) {
            Some(ViewportShape::Box) => Shape::Box,
            Some(ViewportShape::Sphere) => Shape::Sphere,
            Some(ViewportShape::Cylinder {
                radius_top,
                radius_bottom,
            }) => {
                // A radius that is negative or not a number is drawn as the default.
                let sane = |r: f32| {
                    if r.is_finite() && r >= 0.0 {
                        r
                    } else {
                        DEFAULT_CYLINDER_RADIUS
                    }
                };
                Shape::Cylinder {
                    radius_top: sane(radius_top),
                    radius_bottom: sane(radius_bottom),
                }
            }
            Some(ViewportShape::Plane) => Shape::Plane,
            Some(ViewportShape::ModelPlaceholder) => Shape::GltfPlaceholder,
            None => Shape::Marker,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GLTF: Option<&[u8]> = Some(&[0x0a, 0x01, b'm']);

    #[test]
    fn each_mesh_kind_as_dcl_ecs_writes_it_becomes_its_shape() {
        // Bytes as @dcl/ecs's PBMeshRenderer.encode writes them (tags 10, 18, 26, 34).
        assert_eq!(Shape::for_entity(Some(&[10, 2, 10, 0]), None), Shape::Box);
        assert_eq!(Shape::for_entity(Some(&[18, 0]), None), Shape::Sphere);
        assert_eq!(Shape::for_entity(Some(&[34, 2, 10, 0]), None), Shape::Plane);
        assert_eq!(
            Shape::for_entity(Some(&[26, 0]), None),
            Shape::Cylinder {
                radius_top: 0.5,
                radius_bottom: 0.5
            }
        );
        assert_eq!(
            Shape::for_entity(Some(&[]), None),
            Shape::Marker,
            "no mesh set"
        );
    }

    #[test]
    fn cylinder_radii_are_read() {
        let mut cyl = vec![13];
        cyl.extend(0.0f32.to_le_bytes());
        cyl.extend([21]);
        cyl.extend(2.0f32.to_le_bytes());
        let mut bytes = vec![26, cyl.len() as u8];
        bytes.extend(&cyl);
        assert_eq!(
            Shape::for_entity(Some(&bytes), None),
            Shape::Cylinder {
                radius_top: 0.0,
                radius_bottom: 2.0
            }
        );
    }

    #[test]
    fn malformed_bytes_fall_back_to_the_model_placeholder_or_a_marker() {
        assert_eq!(Shape::for_entity(Some(&[10, 5]), None), Shape::Marker);
        assert_eq!(
            Shape::for_entity(Some(&[10, 5]), GLTF),
            Shape::GltfPlaceholder
        );
        assert_eq!(Shape::for_entity(None, None), Shape::Marker);
        assert_eq!(
            Shape::for_entity(Some(&[18, 0]), GLTF),
            Shape::Sphere,
            "a mesh wins over a model"
        );
    }

    #[test]
    fn nonsense_radii_draw_as_the_default() {
        let mut cyl = vec![26, 5, 13];
        cyl.extend(f32::NAN.to_le_bytes());
        assert_eq!(
            Shape::for_entity(Some(&cyl), None),
            Shape::Cylinder {
                radius_top: 0.5,
                radius_bottom: 0.5
            }
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
