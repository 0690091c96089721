//! Click picking: a world-space ray against each item's exact shape (box, sphere, cone or
//! cylinder, plane, a model's triangles) under its instance matrix, nearest hit wins.
//!
//! Each test moves the ray into the shape's own space with the inverse instance matrix and
//! keeps the direction unnormalised, so the ray parameter `t` found there is the same
//! distance in meters along the world ray. Rotation, non-uniform scale and shear are exact.

use glam::{Mat4, Vec3};

use super::{
    DrawItem, bounds::Aabb, camera::Ray, models::SceneAssets, shape::MARKER_SIZE, shape::Shape,
};
use scenetree_core::model::Entity;

/// The nearest item under a ray.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Hit {
    /// Index into the items that were tested.
    pub index: usize,
    /// The entity of that item.
    pub entity: Entity,
    /// Distance from the ray origin to the hit point, meters (world space).
    pub distance: f32,
}

/// The nearest item the ray hits (in front of its origin), if any. Items whose matrix cannot
/// be inverted (a zero scale) or is not finite cannot be hit. Models are hit on their
/// triangles (`assets` holds them; a model missing there is hit on its bounds). Markers are
/// hit as drawn, `marker_scale` times their size ([`crate::OrbitCamera::marker_scale`]); since
/// they keep their size on screen, markers far away overlap, so among the markers hit the one
/// whose centre is nearest the ray wins, and it wins over a shape only in front of it.
pub fn pick(ray: &Ray, items: &[DrawItem], assets: &SceneAssets, marker_scale: f32) -> Option<Hit> {
    let mut nearest_shape: Option<Hit> = None;
    // The marker hit and its centre's distance from the ray, meters.
    let mut closest_marker: Option<(Hit, f32)> = None;
    for (index, item) in items.iter().enumerate() {
        let mut instance = item.shape.instance_matrix(&item.world);
        let is_marker = item.shape == Shape::Marker;
        if is_marker {
            instance *= Mat4::from_scale(Vec3::splat(marker_scale));
        }
        let hit = match item.shape {
            Shape::Model { asset, bounds } => match assets.models.get(&asset) {
                Some(model) => intersect_triangles(ray, &bounds, &model.triangles, &instance),
                None => intersect_shape(ray, &item.shape, &instance),
            },
            _ => intersect_shape(ray, &item.shape, &instance),
        };
        let Some(distance) = hit else { continue };
        let hit = Hit {
            index,
            entity: item.entity,
            distance,
        };
        if is_marker {
            let off_ray = distance_from_ray(ray, instance.w_axis.truncate());
            if closest_marker.is_none_or(|(_, best)| off_ray < best) {
                closest_marker = Some((hit, off_ray));
            }
        } else if nearest_shape.is_none_or(|b| distance < b.distance) {
            nearest_shape = Some(hit);
        }
    }
    match (nearest_shape, closest_marker) {
        (Some(shape), Some((marker, _))) if shape.distance <= marker.distance => Some(shape),
        (_, Some((marker, _))) => Some(marker),
        (shape, None) => shape,
    }
}

/// How far `point` lies from the line of `ray`, meters (world space).
fn distance_from_ray(ray: &Ray, point: Vec3) -> f32 {
    let direction = ray.direction.normalize_or_zero();
    let to_point = point - ray.origin;
    (to_point - direction * to_point.dot(direction)).length()
}

/// Distance in meters along `ray` (world space) to the first point of `shape` placed by
/// `instance` (shape space → world space), or `None` when the ray misses, the shape is behind
/// the ray's origin, or `instance` is degenerate. A ray that starts inside hits the far side.
pub fn intersect_shape(ray: &Ray, shape: &Shape, instance: &Mat4) -> Option<f32> {
    if !instance.is_finite() || instance.determinant().abs() < 1e-12 {
        return None;
    }
    let inv = instance.inverse();
    let o = inv.transform_point3(ray.origin);
    let d = inv.transform_vector3(ray.direction);
    let t = match *shape {
        Shape::Box | Shape::GltfPlaceholder => ray_box(o, d, Vec3::splat(0.5)),
        Shape::Sphere => ray_sphere(o, d, 0.5),
        Shape::Marker => ray_sphere(o, d, MARKER_SIZE * 0.5),
        Shape::Cylinder {
            radius_top,
            radius_bottom,
        } => ray_cone(o, d, radius_top, radius_bottom),
        Shape::Plane => ray_unit_quad(o, d),
        Shape::Model { bounds, .. } => ray_aabb(o, d, &bounds),
    }?;
    (t.is_finite() && t >= 0.0).then_some(t)
}

/// Distance in meters along `ray` (world space) to the nearest of `triangles` (model space,
/// inside `bounds`) placed by `instance`; `None` on a miss or a degenerate matrix. The bounds
/// are tested first, so a click far from the model costs one box test.
pub fn intersect_triangles(
    ray: &Ray,
    bounds: &Aabb,
    triangles: &[[Vec3; 3]],
    instance: &Mat4,
) -> Option<f32> {
    if !instance.is_finite() || instance.determinant().abs() < 1e-12 {
        return None;
    }
    let inv = instance.inverse();
    let o = inv.transform_point3(ray.origin);
    let d = inv.transform_vector3(ray.direction);
    ray_aabb(o, d, bounds)?;
    triangles
        .iter()
        .filter_map(|t| ray_triangle(o, d, t))
        .min_by(f32::total_cmp)
}

/// Möller–Trumbore, both sides: the `t` where `o + t d` crosses the triangle, if `t >= 0`.
fn ray_triangle(o: Vec3, d: Vec3, [a, b, c]: &[Vec3; 3]) -> Option<f32> {
    let e1 = *b - *a;
    let e2 = *c - *a;
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None; // parallel, or a degenerate triangle
    }
    let inv_det = 1.0 / det;
    let s = o - *a;
    let u = s.dot(p) * inv_det;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) * inv_det;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv_det;
    (t.is_finite() && t >= 0.0).then_some(t)
}

/// A box that need not be centred on the origin.
fn ray_aabb(o: Vec3, d: Vec3, b: &Aabb) -> Option<f32> {
    let centre = (b.min + b.max) * 0.5;
    ray_box(o - centre, d, (b.max - b.min) * 0.5)
}

/// First non-negative `t` where `o + t d` meets a box centred on the origin (slab method).
fn ray_box(o: Vec3, d: Vec3, half: Vec3) -> Option<f32> {
    let inv = d.recip(); // ±inf on axis-parallel rays is what the slab test wants
    let t0 = (-half - o) * inv;
    let t1 = (half - o) * inv;
    let near = t0.min(t1).max_element();
    let far = t0.max(t1).min_element();
    if near.is_nan() || far.is_nan() || far < near.max(0.0) {
        return None;
    }
    Some(if near >= 0.0 { near } else { far })
}

fn ray_sphere(o: Vec3, d: Vec3, radius: f32) -> Option<f32> {
    let a = d.dot(d);
    let b = o.dot(d);
    let c = o.dot(o) - radius * radius;
    let disc = b * b - a * c;
    if disc < 0.0 || a == 0.0 {
        return None;
    }
    let s = disc.sqrt();
    [(-b - s) / a, (-b + s) / a].into_iter().find(|t| *t >= 0.0)
}

/// A truncated cone along local Y from y = −0.5 (radius `rb`) to y = +0.5 (radius `rt`),
/// with both caps.
fn ray_cone(o: Vec3, d: Vec3, rt: f32, rb: f32) -> Option<f32> {
    let slope = rt - rb;
    let mid = (rt + rb) * 0.5;
    let radius_at = |y: f32| mid + slope * y;
    let mut best = f32::INFINITY;
    let mut consider = |t: f32, ok: bool| {
        if ok && t >= 0.0 && t < best {
            best = t;
        }
    };
    // Side: x² + z² = r(y)², a quadratic in t.
    let k = mid + slope * o.y;
    let a = d.x * d.x + d.z * d.z - slope * slope * d.y * d.y;
    let b = 2.0 * (o.x * d.x + o.z * d.z - k * slope * d.y);
    let c = o.x * o.x + o.z * o.z - k * k;
    if a.abs() > 1e-12 {
        let disc = b * b - 4.0 * a * c;
        if disc >= 0.0 {
            let s = disc.sqrt();
            for t in [(-b - s) / (2.0 * a), (-b + s) / (2.0 * a)] {
                let y = o.y + t * d.y;
                consider(t, (-0.5..=0.5).contains(&y) && radius_at(y) >= 0.0);
            }
        }
    } else if b.abs() > 1e-12 {
        let t = -c / b;
        let y = o.y + t * d.y;
        consider(t, (-0.5..=0.5).contains(&y) && radius_at(y) >= 0.0);
    }
    // Caps.
    if d.y.abs() > 1e-12 {
        for (y, r) in [(0.5, rt), (-0.5, rb)] {
            let t = (y - o.y) / d.y;
            let p = o + d * t;
            consider(t, p.x * p.x + p.z * p.z <= r * r);
        }
    }
    best.is_finite().then_some(best)
}

/// The 1 × 1 quad in the local XY plane, centred.
fn ray_unit_quad(o: Vec3, d: Vec3) -> Option<f32> {
    if d.z.abs() < 1e-12 {
        return None;
    }
    let t = -o.z / d.z;
    let p = o + d * t;
    (p.x.abs() <= 0.5 && p.y.abs() <= 0.5).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ray(origin: Vec3, toward: Vec3) -> Ray {
        Ray {
            origin,
            direction: (toward - origin).normalize(),
        }
    }

    #[test]
    fn cone_side_and_caps() {
        let cone = Shape::Cylinder {
            radius_top: 0.0,
            radius_bottom: 0.5,
        };
        // Horizontal ray at y = 0: the cone's radius there is 0.25.
        let r = ray(Vec3::new(-5.0, 0.0, 0.0), Vec3::ZERO);
        let t = intersect_shape(&r, &cone, &Mat4::IDENTITY).unwrap();
        assert!((t - 4.75).abs() < 1e-4, "{t}");
        // From below: the bottom cap at y = -0.5.
        let r = ray(Vec3::new(0.2, -5.0, 0.0), Vec3::new(0.2, 0.0, 0.0));
        let t = intersect_shape(&r, &cone, &Mat4::IDENTITY).unwrap();
        assert!((t - 4.5).abs() < 1e-4, "{t}");
        // Just outside the tip's radius at y = 0.4 (radius there 0.05).
        let r = ray(Vec3::new(-5.0, 0.4, 0.0), Vec3::new(0.0, 0.4, 0.2));
        assert!(intersect_shape(&r, &cone, &Mat4::IDENTITY).is_none());
    }

    #[test]
    fn plane_is_thin_and_bounded() {
        let r = ray(Vec3::new(0.4, 0.4, -3.0), Vec3::new(0.4, 0.4, 0.0));
        assert!((intersect_shape(&r, &Shape::Plane, &Mat4::IDENTITY).unwrap() - 3.0).abs() < 1e-5);
        let r = ray(Vec3::new(0.6, 0.0, -3.0), Vec3::new(0.6, 0.0, 0.0));
        assert!(intersect_shape(&r, &Shape::Plane, &Mat4::IDENTITY).is_none());
    }

    #[test]
    fn a_ray_starting_inside_hits_the_far_side_and_behind_is_a_miss() {
        let r = ray(Vec3::ZERO, Vec3::X);
        assert!((intersect_shape(&r, &Shape::Box, &Mat4::IDENTITY).unwrap() - 0.5).abs() < 1e-6);
        let r = ray(Vec3::new(2.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0));
        assert!(intersect_shape(&r, &Shape::Box, &Mat4::IDENTITY).is_none());
        assert!(intersect_shape(&r, &Shape::Sphere, &Mat4::IDENTITY).is_none());
    }

    #[test]
    fn degenerate_matrices_are_never_hit() {
        let r = ray(Vec3::new(0.0, 0.0, -3.0), Vec3::ZERO);
        let flat = Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0));
        assert!(intersect_shape(&r, &Shape::Box, &flat).is_none());
        let nan = Mat4::from_translation(Vec3::NAN);
        assert!(intersect_shape(&r, &Shape::Sphere, &nan).is_none());
    }
}
