//! The transform gizmo's handles: where they are (world space, sized to stay constant on
//! screen), which one is under the pointer, and how they are painted over the 3D image with
//! the egui painter. The drag math lives in `gizmo_drag.rs`.
//!
//! Screen positions here are egui points relative to the viewport's top-left corner; the
//! camera's projection depends only on the aspect ratio, so points and pixels agree.

use eframe::egui::{self, Pos2, Stroke};
use glam::{Quat, Vec2, Vec3};

use super::{GizmoTarget, camera::OrbitCamera};
use crate::style;

/// What dragging the gizmo does.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum GizmoMode {
    /// Move along an axis, in a plane, or in the screen plane (W).
    #[default]
    Translate,
    /// Turn about an axis through the pivot (E).
    Rotate,
    /// Scale along the entities' local axes, or uniformly (R).
    Scale,
}

/// Which axes the translate and rotate handles follow. Scaling always uses the entities' own
/// local axes (a Transform cannot hold a scale along other axes).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Orientation {
    /// The pivot entity's world rotation.
    Local,
    /// The world axes.
    #[default]
    World,
}

/// Where rotate and scale turn and grow a selection about, as Unity's Pivot/Center toggle and
/// Godot's pivot modes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum PivotMode {
    /// The active entity's origin (the gizmo's first target).
    #[default]
    Pivot,
    /// The centre of the selection's bounds (with what lies below it, as drawn).
    Center,
}

/// Increments used while Ctrl is held during a gizmo drag.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SnapSteps {
    /// Translation step along each gizmo axis, meters.
    pub translate: f32,
    /// Rotation step, radians.
    pub rotate: f32,
    /// Scale factor step (factors snap to 1 ± k × step).
    pub scale: f32,
}

impl Default for SnapSteps {
    /// 0.25 m, 15°, 0.1.
    fn default() -> Self {
        SnapSteps {
            translate: 0.25,
            rotate: 15f32.to_radians(),
            scale: 0.1,
        }
    }
}

/// The gizmo's user settings; the app may change them (e.g. from a toolbar) at any time.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GizmoSettings {
    /// Translate, rotate or scale.
    pub mode: GizmoMode,
    /// Local or world axes for translate and rotate.
    pub orientation: Orientation,
    /// What rotate and scale turn and grow about.
    pub pivot: PivotMode,
    /// Snapping increments (used while Ctrl is held).
    pub snap: SnapSteps,
    /// Length of an axis handle on screen, points.
    pub size_points: f32,
}

impl Default for GizmoSettings {
    fn default() -> Self {
        GizmoSettings {
            mode: GizmoMode::Translate,
            orientation: Orientation::World,
            pivot: PivotMode::Pivot,
            snap: SnapSteps::default(),
            size_points: 90.0,
        }
    }
}

/// One grabbable part of the gizmo. Axis indices: 0 = X, 1 = Y, 2 = Z of the gizmo's axes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Handle {
    /// Translate or scale along one axis.
    Axis(usize),
    /// Translate in the plane perpendicular to this axis.
    Plane(usize),
    /// Translate in the screen plane, or scale uniformly.
    Center,
    /// Rotate about this axis.
    Ring(usize),
}

/// How close (points) the pointer must be to a handle to grab it.
pub const GRAB_DISTANCE: f32 = 8.0;
/// Radius of the centre handle, points.
pub const CENTER_RADIUS: f32 = 7.0;
const RING_SEGMENTS: usize = 64;
const RING_RADIUS: f32 = 0.85; // of the handle length
const PLANE_SPAN: (f32, f32) = (0.22, 0.42); // plane squares, along the two in-plane axes
const MIN_AXIS_POINTS: f32 = 12.0; // shorter on screen = pointing at the viewer: hidden

/// The gizmo placed in the world for one frame.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GizmoFrame {
    /// The pivot: the first target's world position, or the selection's centre (meters).
    pub origin: Vec3,
    /// Unit handle directions, world space (X, Y, Z of the chosen orientation).
    pub axes: [Vec3; 3],
    /// World length of an axis handle at the pivot's depth, meters.
    pub length: f32,
}

impl GizmoFrame {
    /// Places the gizmo for `targets` (first = pivot); `None` without targets or when the
    /// pivot is not finite. `size` is the viewport size in points.
    pub fn new(
        targets: &[GizmoTarget],
        settings: &GizmoSettings,
        camera: &OrbitCamera,
        size: Vec2,
    ) -> Option<GizmoFrame> {
        Self::new_at(targets, settings, camera, size, None)
    }

    /// [`Self::new`] with the gizmo at `center` (world space, meters) instead of the first
    /// target's origin when given (the selection's bounds centre, [`PivotMode::Center`]); the
    /// axes stay the first target's.
    pub fn new_at(
        targets: &[GizmoTarget],
        settings: &GizmoSettings,
        camera: &OrbitCamera,
        size: Vec2,
        center: Option<Vec3>,
    ) -> Option<GizmoFrame> {
        let world = targets.first()?.world();
        let origin = center
            .filter(|c| c.is_finite())
            .unwrap_or_else(|| world.w_axis.truncate());
        if !origin.is_finite() {
            return None;
        }
        let local = settings.mode == GizmoMode::Scale || settings.orientation == Orientation::Local;
        let rotation = if local {
            world_rotation(&world)
        } else {
            Quat::IDENTITY
        };
        Some(GizmoFrame {
            origin,
            axes: [rotation * Vec3::X, rotation * Vec3::Y, rotation * Vec3::Z],
            length: camera.meters_per_pixel(origin, size.y) * settings.size_points,
        })
    }
}

/// The rotation part of a world matrix, or identity when it has none (zero scale, NaN).
pub(super) fn world_rotation(m: &glam::Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    if r.is_finite() && r.length_squared() > 1e-6 {
        r.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// The handle under `pointer` (points, relative to the viewport's top-left), if any.
pub fn hit_test(
    frame: &GizmoFrame,
    mode: GizmoMode,
    camera: &OrbitCamera,
    size: Vec2,
    pointer: Vec2,
) -> Option<Handle> {
    let shapes = layout(frame, mode, camera, size)?;
    let mut best: Option<(Handle, f32)> = None;
    for (handle, distance) in shapes.distances(pointer) {
        if distance <= GRAB_DISTANCE && best.is_none_or(|(_, d)| distance < d) {
            best = Some((handle, distance));
        }
    }
    best.map(|(h, _)| h)
}

/// The gizmo projected to the screen (points).
struct Layout {
    origin: Vec2,
    /// End of each axis handle; `None` when it points at the viewer.
    axis_ends: [Option<Vec2>; 3],
    /// Corners of each plane handle; `None` when seen edge-on or not in this mode.
    planes: [Option<[Vec2; 4]>; 3],
    /// Ring polylines with a facing flag per point (true = front half).
    rings: [Vec<(Vec2, bool)>; 3],
    has_center: bool,
}

fn layout(frame: &GizmoFrame, mode: GizmoMode, camera: &OrbitCamera, size: Vec2) -> Option<Layout> {
    let project = |p: Vec3| camera.project(p, size).map(|s| Vec2::new(s.x, s.y));
    let origin = project(frame.origin)?;
    let (o, l, a) = (frame.origin, frame.length, frame.axes);
    let mut out = Layout {
        origin,
        axis_ends: [None; 3],
        planes: [None; 3],
        rings: Default::default(),
        has_center: mode != GizmoMode::Rotate,
    };
    if mode != GizmoMode::Rotate {
        for (end, axis) in out.axis_ends.iter_mut().zip(a) {
            *end = project(o + axis * l).filter(|end| end.distance(origin) >= MIN_AXIS_POINTS);
        }
    }
    if mode == GizmoMode::Translate {
        for i in 0..3 {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            let (s0, s1) = (PLANE_SPAN.0 * l, PLANE_SPAN.1 * l);
            let corners = [
                o + a[j] * s0 + a[k] * s0,
                o + a[j] * s1 + a[k] * s0,
                o + a[j] * s1 + a[k] * s1,
                o + a[j] * s0 + a[k] * s1,
            ];
            let projected: Option<Vec<Vec2>> = corners.iter().map(|&c| project(c)).collect();
            out.planes[i] = projected
                .filter(|q| polygon_area(q) > 20.0)
                .map(|q| [q[0], q[1], q[2], q[3]]);
        }
    }
    if mode == GizmoMode::Rotate {
        let to_eye = camera.eye() - o;
        for i in 0..3 {
            let (u, v) = (a[(i + 1) % 3], a[(i + 2) % 3]);
            out.rings[i] = (0..=RING_SEGMENTS)
                .filter_map(|s| {
                    let angle = s as f32 / RING_SEGMENTS as f32 * std::f32::consts::TAU;
                    let dir = u * angle.cos() + v * angle.sin();
                    let p = o + dir * (l * RING_RADIUS);
                    project(p).map(|q| (q, dir.dot(to_eye) >= 0.0))
                })
                .collect();
        }
    }
    Some(out)
}

impl Layout {
    /// Distance (points) from `p` to every visible handle; 0 inside filled handles.
    fn distances(&self, p: Vec2) -> Vec<(Handle, f32)> {
        let mut out = Vec::new();
        if self.has_center {
            out.push((
                Handle::Center,
                (p.distance(self.origin) - CENTER_RADIUS).max(0.0),
            ));
        }
        for (i, quad) in self.planes.iter().enumerate() {
            if let Some(q) = quad
                && point_in_convex(p, q)
            {
                out.push((Handle::Plane(i), 0.0));
            }
        }
        for (i, end) in self.axis_ends.iter().enumerate() {
            if let Some(end) = end {
                out.push((Handle::Axis(i), segment_distance(p, self.origin, *end)));
            }
        }
        for (i, ring) in self.rings.iter().enumerate() {
            // The back half is hidden behind the front one, so only the front grabs.
            let d = ring
                .windows(2)
                .filter(|w| w[0].1 && w[1].1)
                .map(|w| segment_distance(p, w[0].0, w[1].0))
                .fold(f32::INFINITY, f32::min);
            if d.is_finite() {
                out.push((Handle::Ring(i), d));
            }
        }
        out
    }
}

fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

fn polygon_area(q: &[Vec2]) -> f32 {
    let n = q.len();
    (0..n)
        .map(|i| q[i].perp_dot(q[(i + 1) % n]))
        .sum::<f32>()
        .abs()
        * 0.5
}

fn point_in_convex(p: Vec2, q: &[Vec2; 4]) -> bool {
    let signs: Vec<f32> = (0..4)
        .map(|i| (q[(i + 1) % 4] - q[i]).perp_dot(p - q[i]))
        .collect();
    signs.iter().all(|s| *s >= 0.0) || signs.iter().all(|s| *s <= 0.0)
}

/// Paints the gizmo over the viewport whose top-left corner is `offset` (screen points).
/// `hot` is the hovered or dragged handle, drawn highlighted.
pub fn paint(
    painter: &egui::Painter,
    offset: Pos2,
    frame: &GizmoFrame,
    mode: GizmoMode,
    camera: &OrbitCamera,
    size: Vec2,
    hot: Option<Handle>,
) {
    let Some(shapes) = layout(frame, mode, camera, size) else {
        return;
    };
    let at = |v: Vec2| offset + egui::vec2(v.x, v.y);
    let color = |h: Handle, i: usize| {
        if hot == Some(h) {
            style::HANDLE_HIGHLIGHT
        } else {
            style::AXIS_COLORS[i]
        }
    };
    for (i, ring) in shapes.rings.iter().enumerate() {
        let c = color(Handle::Ring(i), i);
        for w in ring.windows(2) {
            let front = w[0].1 && w[1].1;
            let stroke = if front {
                Stroke::new(2.5, c)
            } else {
                Stroke::new(1.0, c.gamma_multiply(0.35))
            };
            painter.line_segment([at(w[0].0), at(w[1].0)], stroke);
        }
    }
    for (i, quad) in shapes.planes.iter().enumerate() {
        if let Some(q) = quad {
            let c = color(Handle::Plane(i), i);
            painter.add(egui::Shape::convex_polygon(
                q.iter().map(|&v| at(v)).collect(),
                c.gamma_multiply(0.45),
                Stroke::new(1.0, c),
            ));
        }
    }
    for (i, end) in shapes.axis_ends.iter().enumerate() {
        let Some(end) = *end else { continue };
        let c = color(Handle::Axis(i), i);
        let (o, e) = (at(shapes.origin), at(end));
        painter.line_segment([o, e], Stroke::new(3.0, c));
        let dir = (e - o).normalized();
        match mode {
            GizmoMode::Scale => {
                painter.rect_filled(
                    egui::Rect::from_center_size(e, egui::vec2(10.0, 10.0)),
                    1.0,
                    c,
                );
            }
            _ => {
                let side = egui::vec2(-dir.y, dir.x) * 6.0;
                let tip = e + dir * 14.0;
                painter.add(egui::Shape::convex_polygon(
                    vec![tip, e + side, e - side],
                    c,
                    Stroke::NONE,
                ));
            }
        }
    }
    if shapes.has_center {
        let c = if hot == Some(Handle::Center) {
            style::HANDLE_HIGHLIGHT
        } else {
            style::HANDLE_CENTER
        };
        painter.circle(
            at(shapes.origin),
            CENTER_RADIUS,
            c.gamma_multiply(0.5),
            Stroke::new(1.5, c),
        );
    }
}
