//! Euler angles for the inspector's read-out and entry of a stored quaternion, in any of the six
//! three-axis orders.
//!
//! Convention (documented once, used everywhere): an order names **intrinsic** rotations, read
//! left to right. `Xyz` with angles `(a, b, c)` turns the object about its X axis by `a`, then
//! about its *new* Y axis by `b`, then about its *newer* Z axis by `c`; as a quaternion that is
//! `Rx(a) * Ry(b) * Rz(c)`. Angles are degrees, positive by the rotation sense of glam's
//! `from_rotation_*` on the axis. Unity's inspector (extrinsic Z, X, Y), Godot's default and the
//! Decentraland Inspector (Babylon's `RotationYawPitchRoll`) all equal `Yxz` here, the default.
//!
//! The model never stores Euler angles: the Transform holds a quaternion, the only rotation
//! peers exchange, so Euler angles are derived from it. They are not unique: every rotation has
//! two triples, and near gimbal lock (middle angle ±90°) infinitely many. The read-out
//! ([`EulerOrder::to_degrees`]) therefore picks one canonical triple, computed in f64 so that a
//! quaternion stored as f32 reads back as the angles that made it.

use glam::{DQuat, EulerRot, Quat, Vec3};
use serde::{Deserialize, Serialize};

/// One of the six Tait–Bryan orders, as intrinsic rotations (see the module docs).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EulerOrder {
    /// X, then Y, then Z.
    Xyz,
    /// X, then Z, then Y.
    Xzy,
    /// Y, then X, then Z: the default, as in Unity, Godot and the Decentraland Inspector
    /// (Babylon's yaw, pitch, roll). Its middle angle is the pitch, so a turn about the
    /// vertical, the most common rotation in a scene, reads as itself at any angle ("0, 120,
    /// 0"), where XYZ would read 120° of yaw as "180, 60, 180".
    #[default]
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

    /// The axis (0 = X, 1 = Y, 2 = Z) of each of the three rotations, in application order.
    pub const fn axes(self) -> [usize; 3] {
        match self {
            Self::Xyz => [0, 1, 2],
            Self::Xzy => [0, 2, 1],
            Self::Yxz => [1, 0, 2],
            Self::Yzx => [1, 2, 0],
            Self::Zxy => [2, 0, 1],
            Self::Zyx => [2, 1, 0],
        }
    }

    /// The three angles, in degrees, of `rotation` in this order: element `i` is the angle about
    /// the axis `axis_labels()[i]`. The quaternion need not be unit length (a zero-length or
    /// non-finite one gives NaN angles).
    ///
    /// The triple is canonical: the middle angle in [−90°, 90°], the first and last in
    /// (−180°, 180°] (an angle within `WRAP_TOLERANCE_DEGREES` of −180° reads as 180°, so the
    /// read-out never prints both −180.00 and 180.00 for one turn). At gimbal lock (the middle
    /// angle within `GIMBAL_TOLERANCE_DEGREES` of ±90°) the middle angle is exactly ±90°, the
    /// last is 0 and the first carries the whole turn.
    pub fn to_degrees(self, rotation: Quat) -> Vec3 {
        let q = rotation.as_dquat();
        let length = q.length();
        if !(length.is_finite() && length > 0.0) {
            return Vec3::NAN;
        }
        let q = q / length;
        let (a, b, c) = q.to_euler(self.glam());
        let (mut a, mut b, mut c) = (a.to_degrees(), b.to_degrees(), c.to_degrees());
        if 90.0 - b.abs() < GIMBAL_TOLERANCE_DEGREES {
            b = 90f64.copysign(b);
            c = 0.0;
            // What is left after the middle turn is a turn about the first axis alone.
            let middle = DQuat::from_euler(self.glam(), 0.0, b.to_radians(), 0.0);
            let first = q * middle.inverse();
            let axis = self.axes()[0];
            a = (2.0 * first.xyz()[axis].atan2(first.w)).to_degrees();
        }
        Vec3::new(wrap(a) as f32, b as f32, wrap(c) as f32)
    }

    /// The unit quaternion for three angles in degrees, in this order (element `i` about
    /// `axis_labels()[i]`), computed in f64 and rounded once to f32.
    pub fn from_degrees(self, angles: Vec3) -> Quat {
        let a = angles.as_dvec3();
        DQuat::from_euler(
            self.glam(),
            a.x.to_radians(),
            a.y.to_radians(),
            a.z.to_radians(),
        )
        .normalize()
        .as_quat()
    }

    /// The read-out of [`Self::to_degrees`] rearranged by axis: `x` is the angle about X, `y`
    /// about Y, `z` about Z, whatever order they apply in (the inspector's columns, as Godot
    /// and Unity show them).
    pub fn to_xyz_degrees(self, rotation: Quat) -> Vec3 {
        let applied = self.to_degrees(rotation);
        let mut by_axis = Vec3::ZERO;
        for (i, axis) in self.axes().into_iter().enumerate() {
            by_axis[axis] = applied[i];
        }
        by_axis
    }

    /// The unit quaternion for angles given by axis (`x` about X, `y` about Y, `z` about Z, in
    /// degrees), applied in this order.
    pub fn from_xyz_degrees(self, by_axis: Vec3) -> Quat {
        let axes = self.axes();
        self.from_degrees(Vec3::new(
            by_axis[axes[0]],
            by_axis[axes[1]],
            by_axis[axes[2]],
        ))
    }
}

/// How close to ±90° the middle angle must be to count as gimbal lock, in degrees. A rotation
/// made at exactly ±90° and stored as an f32 quaternion reads back within 1e-6° of it in f64
/// (the middle angle's sine is at its maximum there, so rounding moves it only to second
/// order). Within this the first and last angles no longer mean anything apart.
pub const GIMBAL_TOLERANCE_DEGREES: f64 = 1e-3;

/// An angle this close above −180° reads as +180°, in degrees: half the inspector's last
/// decimal ([`super::present::Quantity::Degrees`]), so a turn of 180° never prints as −180.00.
pub const WRAP_TOLERANCE_DEGREES: f64 =
    0.5 / 10u32.pow(super::present::Quantity::Degrees.decimals() as u32) as f64;

/// `degrees` in (−180°, 180°], with angles within [`WRAP_TOLERANCE_DEGREES`] of −180° at 180°.
fn wrap(degrees: f64) -> f64 {
    let mut a = degrees.rem_euclid(360.0);
    if a > 180.0 {
        a -= 360.0;
    }
    if a <= -180.0 + WRAP_TOLERANCE_DEGREES {
        a += 360.0;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_rotation(a: Quat, b: Quat) -> bool {
        // q and -q are the same rotation.
        a.dot(b).abs() > 1.0 - 1e-5
    }

    #[test]
    fn the_default_order_reads_rotations_as_the_decentraland_inspector_enters_them() {
        let close = |a: Vec3, b: Vec3| (a - b).abs().max_element() < 1e-3;
        // A turn about the vertical reads as itself at any angle.
        let yaw = Quat::from_rotation_y(120f32.to_radians());
        let shown = EulerOrder::default().to_xyz_degrees(yaw);
        assert!(close(shown, Vec3::new(0.0, 120.0, 0.0)), "{shown}");
        // Babylon's RotationYawPitchRoll(yaw, pitch, roll), which the Inspector builds its
        // quaternion with from the fields (y, x, z): yaw about Y, then pitch about the new X,
        // then roll about the newer Z.
        let (x, y, z) = (30f32, 150f32, -10f32);
        let entered = Quat::from_rotation_y(y.to_radians())
            * Quat::from_rotation_x(x.to_radians())
            * Quat::from_rotation_z(z.to_radians());
        let shown = EulerOrder::default().to_xyz_degrees(entered);
        assert!(close(shown, Vec3::new(x, y, z)), "{shown}");
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
    fn the_read_out_is_in_the_canonical_range_of_its_order() {
        let mut seed = 0x9E37_79B9u32;
        let mut next = || {
            // xorshift: enough spread for a range check, no dependency.
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed as f32 / u32::MAX as f32) * 2.0 - 1.0
        };
        for _ in 0..2000 {
            let q = Quat::from_xyzw(next(), next(), next(), next()).normalize();
            for order in EulerOrder::ALL {
                let [a, b, c] = order.to_degrees(q).to_array();
                assert!(a > -180.0 && a <= 180.0, "{order:?} first {a}");
                assert!((-90.0..=90.0).contains(&b), "{order:?} middle {b}");
                assert!(c > -180.0 && c <= 180.0, "{order:?} last {c}");
                assert!(same_rotation(order.from_degrees(Vec3::new(a, b, c)), q));
            }
        }
    }

    #[test]
    fn a_half_turn_reads_as_plus_180_never_minus_180() {
        for q in [
            Quat::from_rotation_y(std::f32::consts::PI),
            Quat::from_rotation_y(-std::f32::consts::PI),
            Quat::from_xyzw(0.0, 1.0, 0.0, -1e-8),
            Quat::from_xyzw(0.0, -1.0, 0.0, 1e-8),
            Quat::from_rotation_x(std::f32::consts::PI - 1e-6),
            Quat::from_rotation_x(-std::f32::consts::PI + 1e-6),
        ] {
            for order in EulerOrder::ALL {
                let angles = order.to_degrees(q);
                for a in angles.to_array() {
                    assert!(a > -179.995, "{order:?} {q} reads {angles}");
                }
            }
        }
        // Under YXZ a turn about Y is the first angle alone.
        let y = EulerOrder::Yxz.to_degrees(Quat::from_rotation_y(-std::f32::consts::PI));
        assert!(
            (y - Vec3::new(180.0, 0.0, 0.0)).abs().max_element() < 1e-3,
            "{y}"
        );
    }

    #[test]
    fn at_gimbal_lock_the_middle_is_exact_and_the_first_angle_takes_the_turn() {
        for order in EulerOrder::ALL {
            for middle in [90.0f32, -90.0] {
                for (a, c) in [(30.0f32, 0.0f32), (10.0, 20.0), (-70.0, 45.0), (0.0, 0.0)] {
                    let q = order.from_degrees(Vec3::new(a, middle, c));
                    let read = order.to_degrees(q);
                    assert_eq!(read.y, middle, "{order:?} ({a}, {middle}, {c}) -> {read}");
                    assert_eq!(read.z, 0.0, "{order:?} ({a}, {middle}, {c}) -> {read}");
                    assert!(
                        same_rotation(order.from_degrees(read), q),
                        "{order:?} ({a}, {middle}, {c}) -> {read}"
                    );
                }
                // A single turn about the middle axis reads as exactly that.
                let q = order.from_degrees(Vec3::new(0.0, middle, 0.0));
                let read = order.to_degrees(q);
                assert!(
                    read.abs_diff_eq(Vec3::new(0.0, middle, 0.0), 1e-3),
                    "{read}"
                );
            }
        }
    }

    #[test]
    fn columns_by_axis_do_not_depend_on_the_order_for_a_single_turn() {
        for order in EulerOrder::ALL {
            let q = order.from_xyz_degrees(Vec3::new(0.0, 90.0, 0.0));
            let expected = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
            assert!(same_rotation(q, expected), "{order:?} {q}");
            let back = order.to_xyz_degrees(q);
            assert!(
                back.abs_diff_eq(Vec3::new(0.0, 90.0, 0.0), 1e-3),
                "{order:?} {back}"
            );
        }
        // Away from a single axis the column of each angle follows its axis, not its place.
        let q = EulerOrder::Zxy.from_degrees(Vec3::new(10.0, 20.0, 30.0)); // Z 10, X 20, Y 30
        let by_axis = EulerOrder::Zxy.to_xyz_degrees(q);
        assert!(
            by_axis.abs_diff_eq(Vec3::new(20.0, 30.0, 10.0), 1e-3),
            "{by_axis}"
        );
        assert!(same_rotation(EulerOrder::Zxy.from_xyz_degrees(by_axis), q));
    }

    #[test]
    fn zero_or_non_finite_quaternions_read_as_nan_not_a_panic() {
        assert!(
            EulerOrder::Xyz
                .to_degrees(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0))
                .is_nan()
        );
        assert!(
            EulerOrder::Xyz
                .to_degrees(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0))
                .is_nan()
        );
    }

    #[test]
    fn non_unit_quaternions_are_normalized_for_display() {
        let q = Quat::from_rotation_z(0.5) * 3.0;
        let z = EulerOrder::Xyz.to_degrees(q).z;
        assert!((z - 0.5f32.to_degrees()).abs() < 1e-3);
    }
}
