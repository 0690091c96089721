//! Axis-aligned bounds: of a shape, a model, or what several views draw.

use glam::{Mat4, Vec3};

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
