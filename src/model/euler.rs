//! Euler angles for *display* of a stored quaternion, in any of the six three-axis orders.
//!
//! Convention (documented once, used everywhere): an order names **intrinsic** rotations, read
//! left to right. `Xyz` with angles `(a, b, c)` turns the object about its X axis by `a`, then
//! about its *new* Y axis by `b`, then about its *newer* Z axis by `c`; as a quaternion that is
//! `Rx(a) * Ry(b) * Rz(c)`. Angles are degrees, positive by the rotation sense of glam's
//! `from_rotation_*` on the axis. Unity's inspector (extrinsic Z, X, Y) and Godot's default
//! both equal `Yxz` here.
//!
//! The model never stores Euler angles: the Transform holds a quaternion, the only rotation
//! peers exchange, so Euler angles are derived from it for the inspector; they are not unique
//! near gimbal lock (middle angle ±90°), which is one more reason not to keep them.

use glam::{EulerRot, Quat, Vec3};
use serde::{Deserialize, Serialize};

/// One of the six Tait–Bryan orders, as intrinsic rotations (see the module docs).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EulerOrder {
    /// X, then Y, then Z.
    #[default]
    Xyz,
    /// X, then Z, then Y.
    Xzy,
    /// Y, then X, then Z (Unity's and Godot's default).
    Yxz,
    /// Y, then Z, then X.
    Yzx,
    /// Z, then X, then Y.
    Zxy,
    /// Z, then Y, then X.
    Zyx,
}

impl EulerOrder {
    /// All six orders, in the order the inspector lists them.
    pub const ALL: [EulerOrder; 6] = [
        Self::Xyz,
        Self::Xzy,
        Self::Yxz,
        Self::Yzx,
        Self::Zxy,
        Self::Zyx,
    ];

    /// The order's name as users write it ("XYZ").
    pub const fn label(self) -> &'static str {
        match self {
            Self::Xyz => "XYZ",
            Self::Xzy => "XZY",
            Self::Yxz => "YXZ",
            Self::Yzx => "YZX",
            Self::Zxy => "ZXY",
            Self::Zyx => "ZYX",
        }
    }

    /// The axis letters in application order, for labelling the three angle fields.
    pub const fn axis_labels(self) -> [&'static str; 3] {
        match self {
            Self::Xyz => ["X", "Y", "Z"],
            Self::Xzy => ["X", "Z", "Y"],
            Self::Yxz => ["Y", "X", "Z"],
            Self::Yzx => ["Y", "Z", "X"],
            Self::Zxy => ["Z", "X", "Y"],
            Self::Zyx => ["Z", "Y", "X"],
        }
    }

    const fn glam(self) -> EulerRot {
        // glam's plain (non-`Ex`) variants are intrinsic rotations.
        match self {
            Self::Xyz => EulerRot::XYZ,
            Self::Xzy => EulerRot::XZY,
            Self::Yxz => EulerRot::YXZ,
            Self::Yzx => EulerRot::YZX,
            Self::Zxy => EulerRot::ZXY,
            Self::Zyx => EulerRot::ZYX,
        }
    }

    /// The three angles, in degrees, of `rotation` in this order: element `i` is the angle about
    /// the axis `axis_labels()[i]`. The quaternion need not be unit length.
    pub fn to_degrees(self, rotation: Quat) -> Vec3 {
        let q = rotation.normalize();
        let (a, b, c) = q.to_euler(self.glam());
        Vec3::new(a.to_degrees(), b.to_degrees(), c.to_degrees())
    }

    /// The unit quaternion for three angles in degrees, in this order.
    pub fn from_degrees(self, angles: Vec3) -> Quat {
        Quat::from_euler(
            self.glam(),
            angles.x.to_radians(),
            angles.y.to_radians(),
            angles.z.to_radians(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_rotation(a: Quat, b: Quat) -> bool {
        // q and -q are the same rotation.
        a.dot(b).abs() > 1.0 - 1e-5
    }

    #[test]
    fn xyz_means_rx_then_ry_then_rz_intrinsic() {
        let (a, b, c) = (0.3f32, -0.5f32, 1.1f32);
        let q =
            EulerOrder::Xyz.from_degrees(Vec3::new(a.to_degrees(), b.to_degrees(), c.to_degrees()));
        let expected =
            Quat::from_rotation_x(a) * Quat::from_rotation_y(b) * Quat::from_rotation_z(c);
        assert!(same_rotation(q, expected));
    }

    #[test]
    fn yxz_means_ry_then_rx_then_rz() {
        let q = EulerOrder::Yxz.from_degrees(Vec3::new(30.0, 20.0, 10.0));
        let expected = Quat::from_rotation_y(30f32.to_radians())
            * Quat::from_rotation_x(20f32.to_radians())
            * Quat::from_rotation_z(10f32.to_radians());
        assert!(same_rotation(q, expected));
    }

    #[test]
    fn every_order_round_trips_on_a_grid_away_from_gimbal_lock() {
        for order in EulerOrder::ALL {
            for a in (-170..=170).step_by(34) {
                for b in (-80..=80).step_by(20) {
                    for c in (-170..=170).step_by(34) {
                        let angles = Vec3::new(a as f32, b as f32, c as f32);
                        let q = order.from_degrees(angles);
                        let back = order.to_degrees(q);
                        assert!(
                            (back - angles).abs().max_element() < 1e-2,
                            "{order:?} {angles} -> {back}"
                        );
                        assert!(same_rotation(order.from_degrees(back), q));
                    }
                }
            }
        }
    }

    #[test]
    fn orders_disagree_on_the_same_quaternion() {
        let q = Quat::from_rotation_x(0.4) * Quat::from_rotation_y(0.7);
        let xyz = EulerOrder::Xyz.to_degrees(q);
        let yxz = EulerOrder::Yxz.to_degrees(q);
        assert!((xyz - yxz).abs().max_element() > 1.0, "{xyz} vs {yxz}");
    }

    #[test]
    fn non_unit_quaternions_are_normalized_for_display() {
        let q = Quat::from_rotation_z(0.5) * 3.0;
        let z = EulerOrder::Xyz.to_degrees(q).z;
        assert!((z - 0.5f32.to_degrees()).abs() < 1e-3);
    }
}
