//! Dragging a gizmo handle: pointer movement → a world-space delta → new local Transforms.
//!
//! Every update is computed from the state captured when the drag began (pivot, axes, the
//! targets' start Transforms), never from the previous frame, so a drag does not drift and a
//! cancelled drag restores exactly what was there.

use glam::{Quat, Vec2, Vec3};

use super::{
    GizmoTarget,
    camera::{OrbitCamera, Ray},
    gizmo::{GizmoFrame, GizmoMode, GizmoSettings, Handle, SnapSteps, world_rotation},
};
use scenetree_core::model::{Entity, Transform};

/// Smallest scale factor a drag produces; zero would make the entity (and its children)
/// collapse and its matrix non-invertible.
pub const MIN_SCALE_FACTOR: f32 = 0.01;

/// The phase of a gizmo drag, so the app can coalesce one drag into one undo step.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DragPhase {
    /// The handle was grabbed; the targets are still at their start values.
    Begin,
    /// The pointer moved; the targets hold the new values.
    Update,
    /// The handle was released; the targets hold the final values.
    End,
    /// Escape was pressed; the targets hold the start values to restore.
    Cancel,
}

/// One entity's new pose during a drag.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct DragTarget {
    /// The entity.
    pub entity: Entity,
    /// The new local Transform (parent space, same `parent` as before): what the app writes.
    pub local: Transform,
    /// The resulting world matrix (`parent_world * local`), Decentraland world space.
    pub world: glam::Mat4,
}

/// A gizmo drag event for the app.
#[derive(Clone, Debug, PartialEq)]
pub struct GizmoEvent {
    /// Begin, Update, End or Cancel.
    pub phase: DragPhase,
    /// The mode the drag runs in.
    pub mode: GizmoMode,
    /// New poses of every dragged entity (the gizmo targets when the drag began).
    pub targets: Vec<DragTarget>,
}

/// A change the gizmo applies, relative to the targets' start poses.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum GizmoDelta {
    /// Move by this world-space vector, meters.
    Translate(Vec3),
    /// Turn by this world-space rotation about the pivot.
    Rotate(Quat),
    /// Multiply each target's local scale by these factors (local axes).
    Scale(Vec3),
    /// As [`GizmoDelta::Scale`], each scaled value then snapped to a multiple of the step
    /// (Ctrl held): 1.3 grown by half is 2.0, not 1.95.
    ScaleSnapped(Vec3, f32),
}

/// Applies `delta` to every target's start pose and returns the new local Transforms and world
/// matrices. Rotation turns positions about `pivot` (world space) and orientations in world
/// space. A target whose parent matrix cannot be inverted keeps its start Transform.
pub fn apply_delta(targets: &[GizmoTarget], pivot: Vec3, delta: &GizmoDelta) -> Vec<DragTarget> {
    targets
        .iter()
        .map(|t| {
            let mut local = t.local;
            let det = t.parent_world.determinant();
            if det.is_finite() && det.abs() > 1e-12 {
                let parent_inv = t.parent_world.inverse();
                let world_pos = t.world().w_axis.truncate();
                match *delta {
                    GizmoDelta::Translate(d) => {
                        local.position = parent_inv.transform_point3(world_pos + d);
                    }
                    GizmoDelta::Rotate(q) => {
                        local.position =
                            parent_inv.transform_point3(pivot + q * (world_pos - pivot));
                        // World rotation = parent * local, so the new local one is
                        // parent⁻¹ · q · parent · local (exact for uniformly scaled parents).
                        let parent_rot = world_rotation(&t.parent_world);
                        local.rotation =
                            (parent_rot.inverse() * q * parent_rot * t.local.rotation).normalize();
                    }
                    GizmoDelta::Scale(f) => local.scale = t.local.scale * f,
                    GizmoDelta::ScaleSnapped(f, step) => {
                        local.scale = snapped_scale(t.local.scale, f, step);
                    }
                }
                if !local.is_finite() {
                    local = t.local;
                }
            }
            DragTarget {
                entity: t.entity,
                local,
                world: t.parent_world * local.local_matrix(),
            }
        })
        .collect()
}

/// `scale` times `factors`, each value that changes snapped to a multiple of `step` (never
/// to 0: a zero scale collapses the entity; the smallest is one step, with the sign kept).
fn snapped_scale(scale: Vec3, factors: Vec3, step: f32) -> Vec3 {
    let mut out = scale;
    for i in 0..3 {
        if factors[i] != 1.0 {
            let v = snap(scale[i] * factors[i], step);
            out[i] = if v.abs() < step * 0.5 {
                step.copysign(scale[i])
            } else {
                v
            };
        }
    }
    out
}

/// The point on the line `origin + s·axis` closest to the ray, as `s` (meters along the unit
/// axis); `None` when the ray runs parallel to the axis.
pub(super) fn closest_param_on_axis(ray: &Ray, origin: Vec3, axis: Vec3) -> Option<f32> {
    let w0 = origin - ray.origin;
    let b = axis.dot(ray.direction);
    let denom = 1.0 - b * b;
    if denom < 1e-6 {
        return None;
    }
    let (d, e) = (axis.dot(w0), ray.direction.dot(w0));
    Some((b * e - d) / denom)
}

/// Where the ray meets the plane through `point` with normal `normal`, if in front of it.
pub(super) fn ray_plane(ray: &Ray, point: Vec3, normal: Vec3) -> Option<Vec3> {
    let denom = ray.direction.dot(normal);
    if denom.abs() < 1e-6 {
        return None;
    }
    let t = (point - ray.origin).dot(normal) / denom;
    (t >= 0.0).then(|| ray.at(t))
}

fn snap(value: f32, step: f32) -> f32 {
    if step > 0.0 && step.is_finite() {
        (value / step).round() * step
    } else {
        value
    }
}

/// What was measured when the handle was grabbed.
#[derive(Copy, Clone, Debug)]
enum Grab {
    /// Axis handles: the grabbed point's parameter along the axis.
    Axis(f32),
    /// Plane and centre handles: the grabbed point on the drag plane (and its normal).
    Plane(Vec3, Vec3),
    /// Rings not seen edge-on: the turn is the pointer's angle around the ring's centre on
    /// screen, as in Blender, Godot and Unity (`center` and `start` in points; `sign` maps a
    /// clockwise-on-screen angle to a turn about the axis, by how the ring faces the eye).
    RingScreen {
        center: Vec2,
        start: Vec2,
        sign: f32,
    },
    /// Rings seen edge-on: dragging `radius` points along the screen direction `tangent`
    /// turns by +1 radian.
    RingTangent { tangent: Vec2, radius: f32 },
    /// Uniform scale: only the pointer's start matters.
    Screen,
}

/// A drag in progress.
#[derive(Clone, Debug)]
pub(super) struct ActiveGizmoDrag {
    pub handle: Handle,
    pub mode: GizmoMode,
    frame: GizmoFrame,
    grab: Grab,
    start_pointer: Vec2,
    size_points: f32,
    pub targets: Vec<GizmoTarget>,
}

impl ActiveGizmoDrag {
    /// Starts dragging `handle` grabbed at `pointer` (points, viewport-relative). `None` when
    /// the grab point cannot be measured (a ray parallel to the handle).
    pub fn begin(
        handle: Handle,
        frame: GizmoFrame,
        settings: &GizmoSettings,
        targets: &[GizmoTarget],
        camera: &OrbitCamera,
        size: Vec2,
        pointer: Vec2,
    ) -> Option<ActiveGizmoDrag> {
        let mode = settings.mode;
        let ray = camera.ray(pointer, size);
        let grab = match (handle, mode) {
            (Handle::Axis(i), _) => {
                Grab::Axis(closest_param_on_axis(&ray, frame.origin, frame.axes[i])?)
            }
            (Handle::Plane(i), _) => {
                let n = frame.axes[i];
                Grab::Plane(ray_plane(&ray, frame.origin, n)?, n)
            }
            (Handle::Center, GizmoMode::Scale) => Grab::Screen,
            (Handle::Center, _) => {
                let n = camera.forward();
                Grab::Plane(ray_plane(&ray, frame.origin, n)?, n)
            }
            (Handle::Ring(i), _) => ring_screen(&frame, frame.axes[i], camera, size, pointer)
                .or_else(|| ring_tangent(&frame, frame.axes[i], camera, size))?,
        };
        Some(ActiveGizmoDrag {
            handle,
            mode,
            frame,
            grab,
            start_pointer: pointer,
            size_points: settings.size_points,
            targets: targets.to_vec(),
        })
    }

    /// The delta for the pointer now at `pointer`; snapped to `steps` when `snapping`.
    pub fn delta(
        &self,
        camera: &OrbitCamera,
        size: Vec2,
        pointer: Vec2,
        snapping: bool,
        steps: &SnapSteps,
    ) -> GizmoDelta {
        let ray = camera.ray(pointer, size);
        let f = &self.frame;
        let step = |v: f32, s: f32| if snapping { snap(v, s) } else { v };
        match (self.grab, self.handle) {
            (Grab::Axis(s0), Handle::Axis(i)) => {
                let moved =
                    closest_param_on_axis(&ray, f.origin, f.axes[i]).map_or(0.0, |s| s - s0);
                if self.mode == GizmoMode::Scale {
                    let factor = (1.0 + moved / f.length).max(MIN_SCALE_FACTOR);
                    let mut v = Vec3::ONE;
                    v[i] = factor;
                    scale_delta(v, snapping, steps.scale)
                } else {
                    GizmoDelta::Translate(f.axes[i] * step(moved, steps.translate))
                }
            }
            (Grab::Plane(p0, n), _) => {
                let d = ray_plane(&ray, f.origin, n).map_or(Vec3::ZERO, |p| p - p0);
                // Snap in the gizmo's own axes; components along the plane normal stay 0.
                let snapped: Vec3 = f
                    .axes
                    .iter()
                    .map(|a| *a * step(d.dot(*a), steps.translate))
                    .sum();
                GizmoDelta::Translate(if snapping { snapped } else { d })
            }
            (Grab::Screen, _) => {
                let moved = pointer - self.start_pointer;
                let factor = 1.0 + (moved.x - moved.y) / self.size_points.max(1.0);
                scale_delta(
                    Vec3::splat(factor.max(MIN_SCALE_FACTOR)),
                    snapping,
                    steps.scale,
                )
            }
            (
                Grab::RingScreen {
                    center,
                    start,
                    sign,
                },
                Handle::Ring(i),
            ) => {
                let (v0, v1) = (start - center, pointer - center);
                // At the centre itself the angle is undefined: no turn rather than a jump.
                let angle = if v1.length() < 1.0 {
                    0.0
                } else {
                    sign * v0.perp_dot(v1).atan2(v0.dot(v1))
                };
                GizmoDelta::Rotate(Quat::from_axis_angle(f.axes[i], step(angle, steps.rotate)))
            }
            (Grab::RingTangent { tangent, radius }, Handle::Ring(i)) => {
                let angle = (pointer - self.start_pointer).dot(tangent) / radius;
                GizmoDelta::Rotate(Quat::from_axis_angle(f.axes[i], step(angle, steps.rotate)))
            }
            _ => GizmoDelta::Translate(Vec3::ZERO), // grab kinds always match their handle
        }
    }

    /// The targets' poses for `delta`. A scale also moves each target's origin away from the
    /// pivot along the gizmo's axes, as Unity and Godot scale a selection about its pivot or
    /// centre (the one target at the pivot stays where it is).
    pub fn apply(&self, delta: &GizmoDelta) -> Vec<DragTarget> {
        let mut out = apply_delta(&self.targets, self.frame.origin, delta);
        let factors = match *delta {
            GizmoDelta::Scale(f) | GizmoDelta::ScaleSnapped(f, _) => f,
            _ => return out,
        };
        let pivot = self.frame.origin;
        for (moved, start) in out.iter_mut().zip(&self.targets) {
            let det = start.parent_world.determinant();
            if !(det.is_finite() && det.abs() > 1e-12) {
                continue;
            }
            let offset = start.world().w_axis.truncate() - pivot;
            let grown: Vec3 = (0..3)
                .map(|i| self.frame.axes[i] * factors[i] * offset.dot(self.frame.axes[i]))
                .sum();
            let position = start.parent_world.inverse().transform_point3(pivot + grown);
            if position.is_finite() {
                moved.local.position = position;
                moved.world = start.parent_world * moved.local.local_matrix();
            }
        }
        out
    }
}

/// A scale by `factors`, its values snapped to `step` when `snapping`.
fn scale_delta(factors: Vec3, snapping: bool, step: f32) -> GizmoDelta {
    if snapping && step > 0.0 && step.is_finite() {
        GizmoDelta::ScaleSnapped(factors, step)
    } else {
        GizmoDelta::Scale(factors)
    }
}

/// A ring grabbed at `pointer`: turns follow the pointer's angle around the ring's projected
/// centre. `None` for a ring seen nearly edge-on (its projection is almost a line, so the angle
/// on screen says little) or a grab too close to the centre to give a direction.
fn ring_screen(
    frame: &GizmoFrame,
    axis: Vec3,
    camera: &OrbitCamera,
    size: Vec2,
    pointer: Vec2,
) -> Option<Grab> {
    let to_eye = (camera.eye() - frame.origin).try_normalize()?;
    if axis.dot(to_eye).abs() < 0.15 {
        return None;
    }
    let project = |p: Vec3| camera.project(p, size).map(|s| Vec2::new(s.x, s.y));
    let center = project(frame.origin)?;
    // Which way a positive turn goes on screen: turn a point of the ring a little and look.
    let radial = axis.any_orthonormal_vector() * frame.length;
    let a = project(frame.origin + radial)? - center;
    let b = project(frame.origin + Quat::from_axis_angle(axis, 0.1) * radial)? - center;
    let sign = a.perp_dot(b).signum();
    let screen_radius = a.length().max(b.length());
    ((pointer - center).length() > screen_radius * 0.1).then_some(Grab::RingScreen {
        center,
        start: pointer,
        sign,
    })
}

/// For a ring seen (nearly) edge-on, where the angle around its centre is unreliable: dragging along the
/// screen direction in which the ring's point nearest the viewer moves turns it.
fn ring_tangent(frame: &GizmoFrame, axis: Vec3, camera: &OrbitCamera, size: Vec2) -> Option<Grab> {
    let radial = (camera.eye() - frame.origin)
        .reject_from(axis)
        .try_normalize()
        .or_else(|| camera.up().reject_from(axis).try_normalize())?;
    let r = frame.length * 0.85;
    let p = frame.origin + radial * r;
    // A point p turned by a small angle θ about `axis` moves by θ · (axis × p).
    let ahead = p + axis.cross(radial) * (r * 0.1);
    let (a, b) = (camera.project(p, size)?, camera.project(ahead, size)?);
    let screen = Vec2::new(b.x - a.x, b.y - a.y);
    let points_per_radian = screen.length() / 0.1;
    (points_per_radian > 1e-3).then(|| Grab::RingTangent {
        tangent: screen.normalize(),
        radius: points_per_radian,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat4;

    #[test]
    fn ctrl_snaps_the_scaled_value_to_tenths_not_the_factor() {
        // Found by hand: a scale of 1.3 grown with Ctrl went to 1.95 (the factor 1.5 snapped),
        // where Unity and Godot show 2.0 (the value snapped).
        let target = GizmoTarget {
            entity: Entity::from_parts(512, 0),
            local: Transform {
                scale: Vec3::new(1.3, 0.7, -1.0),
                ..Transform::IDENTITY
            },
            parent_world: Mat4::IDENTITY,
        };
        let out = apply_delta(
            &[target],
            Vec3::ZERO,
            &GizmoDelta::ScaleSnapped(Vec3::new(1.6, 1.0, 0.01), 0.1),
        );
        let s = out[0].local.scale;
        assert!((s.x - 2.1).abs() < 1e-5, "{s}");
        assert_eq!(s.y, 0.7, "an axis not scaled keeps its value");
        assert!((s.z + 0.1).abs() < 1e-6, "never 0, the sign kept: {s}");
    }
    use scenetree_core::model::Transform;

    const SIZE: Vec2 = Vec2::new(800.0, 600.0);

    fn setup(mode: GizmoMode) -> (OrbitCamera, GizmoSettings, Vec<GizmoTarget>, GizmoFrame) {
        setup_seen_from(OrbitCamera::default(), mode)
    }

    /// One entity at the origin with the gizmo in `mode`, seen by `camera`.
    fn setup_seen_from(
        camera: OrbitCamera,
        mode: GizmoMode,
    ) -> (OrbitCamera, GizmoSettings, Vec<GizmoTarget>, GizmoFrame) {
        let settings = GizmoSettings {
            mode,
            ..GizmoSettings::default()
        };
        let targets = vec![GizmoTarget {
            entity: Entity::from_parts(512, 0),
            local: Transform::IDENTITY,
            parent_world: Mat4::IDENTITY,
        }];
        let frame = GizmoFrame::new(&targets, &settings, &camera, SIZE).unwrap();
        (camera, settings, targets, frame)
    }

    fn at(camera: &OrbitCamera, p: Vec3) -> Vec2 {
        let s = camera.project(p, SIZE).unwrap();
        Vec2::new(s.x, s.y)
    }

    #[test]
    fn axis_drag_follows_the_pointer_and_snaps() {
        let (cam, settings, targets, f) = setup(GizmoMode::Translate);
        let grab = f.axes[0] * f.length * 0.5;
        let drag = ActiveGizmoDrag::begin(
            Handle::Axis(0),
            f,
            &settings,
            &targets,
            &cam,
            SIZE,
            at(&cam, grab),
        )
        .unwrap();
        let to = at(&cam, grab + Vec3::new(1.1, 0.7, 0.0)); // off-axis motion is ignored
        let free = drag.delta(&cam, SIZE, to, false, &settings.snap);
        let GizmoDelta::Translate(d) = free else {
            panic!("{free:?}")
        };
        assert!((d - Vec3::new(1.1, 0.0, 0.0)).length() < 0.3, "{d}");
        assert_eq!(d.y, 0.0);
        let snapped = drag.delta(
            &cam,
            SIZE,
            at(&cam, grab + Vec3::X * 1.1),
            true,
            &settings.snap,
        );
        assert_eq!(snapped, GizmoDelta::Translate(Vec3::new(1.0, 0.0, 0.0)));
    }

    #[test]
    fn a_ring_seen_face_on_turns_by_the_angle_swept_and_snaps_to_steps() {
        // Looking straight along +Z: the Z ring is a circle around the screen's centre.
        let face_on = OrbitCamera {
            pitch: 0.0,
            ..OrbitCamera::default()
        };
        let (camera, settings, targets, f) = setup_seen_from(face_on, GizmoMode::Rotate);
        let start = Vec3::X * f.length * 0.85;
        let drag = ActiveGizmoDrag::begin(
            Handle::Ring(2),
            f,
            &settings,
            &targets,
            &camera,
            SIZE,
            at(&camera, start),
        )
        .unwrap();
        let turned = Quat::from_rotation_z(0.5) * start;
        let d = drag.delta(&camera, SIZE, at(&camera, turned), false, &settings.snap);
        let GizmoDelta::Rotate(q) = d else {
            panic!("{d:?}")
        };
        assert!(q.angle_between(Quat::from_rotation_z(0.5)) < 1e-3, "{q:?}");
        let snapped = drag.delta(&camera, SIZE, at(&camera, turned), true, &settings.snap);
        let GizmoDelta::Rotate(q) = snapped else {
            panic!()
        };
        let (axis, angle) = q.to_axis_angle();
        assert!((angle - 30f32.to_radians()).abs() < 1e-4 && axis.abs_diff_eq(Vec3::Z, 1e-4));
    }

    #[test]
    fn a_slanted_ring_turns_by_the_pointer_angle_around_its_centre_on_screen() {
        // The default camera looks down at the Y ring: an ellipse on screen.
        let (cam, settings, targets, f) = setup(GizmoMode::Rotate);
        let centre = at(&cam, f.origin);
        let side = Vec3::X * f.length * 0.85; // the end of the ellipse's long axis
        let grab = at(&cam, side);
        let drag =
            ActiveGizmoDrag::begin(Handle::Ring(1), f, &settings, &targets, &cam, SIZE, grab)
                .unwrap();
        // 48 points down along the ring turn by the angle seen from the centre, not by the
        // (much larger) angle that spot makes on the tilted ring's plane.
        let to = grab + Vec2::new(0.0, 48.0);
        let (v0, v1) = (grab - centre, to - centre);
        let seen = v0.perp_dot(v1).atan2(v0.dot(v1)).abs();
        let d = drag.delta(&cam, SIZE, to, false, &settings.snap);
        let GizmoDelta::Rotate(q) = d else {
            panic!("{d:?}")
        };
        let (_, angle) = q.to_axis_angle();
        assert!((angle - seen).abs() < 1e-3, "{angle} against {seen}");
        assert!(angle.to_degrees() < 35.0, "{}", angle.to_degrees());
        // The grabbed side follows the pointer: dragged down, it moves down on screen.
        let moved = at(&cam, q * side);
        assert!(moved.y > grab.y + 10.0, "{moved} from {grab}");
    }

    #[test]
    fn edge_on_rings_turn_by_dragging_across_them() {
        // Looking straight along +Z at the Z ring's edge: the X ring is edge-on.
        let face_on = OrbitCamera {
            pitch: 0.0,
            ..OrbitCamera::default()
        };
        let (camera, settings, targets, f) = setup_seen_from(face_on, GizmoMode::Rotate);
        let p = at(&camera, Vec3::new(0.0, 0.0, -f.length * 0.85)); // the ring's near point
        let drag =
            ActiveGizmoDrag::begin(Handle::Ring(0), f, &settings, &targets, &camera, SIZE, p)
                .unwrap();
        // Turning +θ about +X moves the near (−Z) point by θ·(X × −Z) = +Y: up the screen.
        let turn = |delta: Vec2| match drag.delta(&camera, SIZE, p + delta, false, &settings.snap) {
            GizmoDelta::Rotate(q) => q * Vec3::NEG_Z,
            other => panic!("{other:?}"),
        };
        assert!(
            turn(Vec2::new(0.0, -30.0)).y > 0.1,
            "dragging up turns the near side up"
        );
        assert!(turn(Vec2::new(0.0, 30.0)).y < -0.1);
        assert!(
            turn(Vec2::new(30.0, 0.0)).abs_diff_eq(Vec3::NEG_Z, 1e-3),
            "sideways does nothing"
        );
    }

    #[test]
    fn scale_axis_doubles_at_one_handle_length_and_never_reaches_zero() {
        let (cam, settings, targets, f) = setup(GizmoMode::Scale);
        let tip = f.axes[0] * f.length;
        let drag = ActiveGizmoDrag::begin(
            Handle::Axis(0),
            f,
            &settings,
            &targets,
            &cam,
            SIZE,
            at(&cam, tip),
        )
        .unwrap();
        let d = drag.delta(&cam, SIZE, at(&cam, tip * 2.0), false, &settings.snap);
        let GizmoDelta::Scale(f) = d else {
            panic!("{d:?}")
        };
        assert!(f.abs_diff_eq(Vec3::new(2.0, 1.0, 1.0), 0.05), "{f}");
        let d = drag.delta(&cam, SIZE, at(&cam, -tip * 3.0), false, &settings.snap);
        assert_eq!(d, GizmoDelta::Scale(Vec3::new(MIN_SCALE_FACTOR, 1.0, 1.0)));
    }
}
