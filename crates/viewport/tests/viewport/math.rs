//! The viewport's math without a GPU: the camera's handedness and projections, picking, the
//! gizmo's placement and hit testing, and how a gizmo delta becomes local Transforms.

use glam::{Mat4, Quat, Vec2, Vec3};
use proptest::prelude::*;
use scenetree_core::model::{Entity, Transform};
use scenetree_viewport::gizmo::{GizmoFrame, hit_test};
use scenetree_viewport::{
    DrawItem, GizmoDelta, GizmoMode, GizmoSettings, GizmoTarget, Handle, OrbitCamera, Orientation,
    Shape, apply_delta, picking,
};

const SIZE: Vec2 = Vec2::new(800.0, 600.0);

fn close(a: Vec3, b: Vec3, eps: f32) -> bool {
    (a - b).length() <= eps
}

// --- camera -----------------------------------------------------------------------------

#[test]
fn default_camera_shows_plus_x_right_plus_y_up_and_plus_z_into_the_screen() {
    let cam = OrbitCamera::default();
    let centre = cam.project(Vec3::ZERO, SIZE).unwrap();
    let x = cam.project(Vec3::X, SIZE).unwrap();
    let y = cam.project(Vec3::Y, SIZE).unwrap();
    let z = cam.project(Vec3::Z, SIZE).unwrap();
    assert!(
        x.x > centre.x + 10.0 && (x.y - centre.y).abs() < 1.0,
        "+X goes right"
    );
    assert!(y.y < centre.y - 10.0, "+Y goes up (screen y shrinks)");
    assert!(z.z > centre.z, "+Z is farther away (greater depth)");
    let eye = cam.eye();
    assert!(
        eye.z < 0.0,
        "the default eye sits on the −Z side, looking along +Z"
    );
    // In view space, Decentraland's axes map to themselves: left-handed view, +Z forward.
    let view = cam.view_matrix();
    let fwd = view.transform_vector3(Vec3::Z);
    assert!(
        fwd.z > 0.8 && fwd.x.abs() < 1e-5,
        "world +Z is view +Z: {fwd}"
    );
    assert!(close(view.transform_vector3(Vec3::X), Vec3::X, 1e-5));
    assert!(
        view.determinant() > 0.0,
        "a proper rotation: no mirror in the view"
    );
}

#[test]
fn basis_is_left_handed_and_orthonormal_for_any_orientation() {
    for (yaw, pitch) in [(0.0, 0.0), (1.0, -0.5), (-2.5, 1.2), (3.0, -1.4)] {
        let cam = OrbitCamera {
            yaw,
            pitch,
            ..OrbitCamera::default()
        };
        let (r, u, f) = (cam.right(), cam.up(), cam.forward());
        for v in [r, u, f] {
            assert!((v.length() - 1.0).abs() < 1e-5);
        }
        assert!(r.dot(u).abs() < 1e-5 && u.dot(f).abs() < 1e-5 && r.dot(f).abs() < 1e-5);
        // Left-handed: right = up × forward with the usual cross product formula.
        assert!(close(u.cross(f), r, 1e-5), "yaw {yaw} pitch {pitch}");
        assert!(u.y > 0.0, "up keeps pointing up");
    }
}

proptest! {
    #[test]
    fn the_ray_through_a_pixel_projects_back_onto_that_pixel(
        px in 0.0f32..800.0, py in 0.0f32..600.0, t in 0.5f32..200.0,
        yaw in -3.0f32..3.0, pitch in -1.5f32..1.5, distance in 0.1f32..500.0,
    ) {
        let cam = OrbitCamera { yaw, pitch, distance, target: Vec3::new(3.0, 1.0, -2.0), ..OrbitCamera::default() };
        let ray = cam.ray(Vec2::new(px, py), SIZE);
        prop_assert!((ray.direction.length() - 1.0).abs() < 1e-4);
        let back = cam.project(ray.at(t), SIZE).unwrap();
        prop_assert!((back.x - px).abs() < 0.05 && (back.y - py).abs() < 0.05, "{back} vs {px},{py}");
    }
}

#[test]
fn panning_keeps_the_target_under_the_pointer() {
    let mut cam = OrbitCamera::default();
    let before = cam.target;
    cam.pan(Vec2::new(40.0, -25.0), SIZE.y);
    let moved = cam.project(before, SIZE).unwrap();
    assert!((moved.x - (400.0 + 40.0)).abs() < 0.5, "{moved}");
    assert!((moved.y - (300.0 - 25.0)).abs() < 0.5, "{moved}");
}

#[test]
fn orbit_zoom_and_frame_stay_within_limits() {
    let mut cam = OrbitCamera::default();
    cam.orbit(Vec2::new(0.0, 10_000.0));
    assert_eq!(cam.pitch, -OrbitCamera::PITCH_LIMIT);
    cam.orbit(Vec2::new(0.0, -100_000.0));
    assert_eq!(cam.pitch, OrbitCamera::PITCH_LIMIT);
    cam.orbit(Vec2::new(f32::NAN, 1.0));
    assert!(cam.yaw.is_finite());
    cam.zoom(1e6);
    assert_eq!(cam.distance, OrbitCamera::DISTANCE_MIN);
    cam.zoom(-1e6);
    assert_eq!(cam.distance, OrbitCamera::DISTANCE_MAX);

    let mut cam = OrbitCamera {
        yaw: 0.7,
        ..OrbitCamera::default()
    };
    let (min, max) = (Vec3::new(10.0, 0.0, 20.0), Vec3::new(30.0, 5.0, 26.0));
    cam.frame_bounds(min, max, SIZE.x / SIZE.y);
    assert!(close(cam.target, (min + max) * 0.5, 1e-5));
    for c in (scenetree_viewport::Aabb { min, max }).corners() {
        let s = cam.project(c, SIZE).unwrap();
        assert!(
            (0.0..=SIZE.x).contains(&s.x) && (0.0..=SIZE.y).contains(&s.y),
            "{c} at {s}"
        );
    }
    let before = cam.clone();
    cam.frame_bounds(Vec3::NAN, max, 1.0);
    cam.frame_bounds(max, min, 1.0);
    assert_eq!(cam, before, "bad boxes leave the camera alone");
}

#[test]
fn framing_a_flat_floor_fills_the_view_and_keeps_every_corner_in_it() {
    // A 32 m × 32 m floor seen from the default (slanted) camera: fitting the corners instead of
    // the bounding sphere brings it close enough to span most of the width or height.
    let mut cam = OrbitCamera::default();
    let (min, max) = (Vec3::new(0.0, -0.1, 0.0), Vec3::new(32.0, 0.0, 32.0));
    cam.frame_bounds(min, max, SIZE.x / SIZE.y);
    let corners: Vec<Vec3> = (scenetree_viewport::Aabb { min, max })
        .corners()
        .into_iter()
        .map(|c| cam.project(c, SIZE).unwrap())
        .collect();
    for s in &corners {
        assert!(
            (0.0..=SIZE.x).contains(&s.x) && (0.0..=SIZE.y).contains(&s.y),
            "{s}"
        );
    }
    let span = |f: fn(&Vec3) -> f32, size: f32| {
        let (lo, hi) = corners
            .iter()
            .map(f)
            .fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        (hi - lo) / size
    };
    let filled = span(|s| s.x, SIZE.x).max(span(|s| s.y, SIZE.y));
    assert!(
        filled > 0.85,
        "the floor spans {:.0} % of the view",
        filled * 100.0
    );
}

// --- picking ------------------------------------------------------------------------------

fn item(n: u16, shape: Shape, world: Mat4) -> DrawItem {
    DrawItem {
        entity: Entity::from_parts(n, 0),
        world,
        shape,
        color: eframe::egui::Color32::WHITE,
        selected: false,
        below_selected: false,
        texture: None,
    }
}

#[test]
fn picking_finds_the_nearest_item_under_the_pointer() {
    let cam = OrbitCamera::default();
    let items = [
        item(
            512,
            Shape::Box,
            Mat4::from_translation(Vec3::new(0.0, 0.5, 3.0)),
        ),
        item(
            513,
            Shape::Box,
            Mat4::from_translation(Vec3::new(0.0, 0.5, 0.0)),
        ),
        item(
            514,
            Shape::Sphere,
            Mat4::from_translation(Vec3::new(4.0, 0.5, 0.0)),
        ),
    ];
    let at = |p: Vec3| {
        let s = cam.project(p, SIZE).unwrap();
        picking::pick(
            &cam.ray(Vec2::new(s.x, s.y), SIZE),
            &items,
            &Default::default(),
            cam.marker_scale(),
        )
    };
    let hit = at(Vec3::new(0.0, 0.5, 0.0)).unwrap();
    assert_eq!(
        hit.entity,
        Entity::from_parts(513, 0),
        "the nearer of two boxes in line"
    );
    assert!((hit.distance - (cam.eye() - Vec3::new(0.0, 0.5, 0.0)).length()).abs() < 0.8);
    assert_eq!(
        at(Vec3::new(4.0, 0.5, 0.0)).unwrap().entity,
        Entity::from_parts(514, 0)
    );
    assert!(at(Vec3::new(-4.0, 0.0, 0.0)).is_none(), "empty ground");
}

#[test]
fn a_marker_keeps_its_size_on_screen_as_the_camera_zooms() {
    let marker = [item(520, Shape::Marker, Mat4::from_translation(Vec3::ZERO))];
    // The marker's half width on screen, in pixels, measured by picking: the farthest pixel
    // right of its centre that still hits it.
    let half_width = |cam: &OrbitCamera| {
        let centre = cam.project(Vec3::ZERO, SIZE).unwrap();
        (0..200)
            .take_while(|&dx| {
                let p = Vec2::new(centre.x + dx as f32, centre.y);
                picking::pick(
                    &cam.ray(p, SIZE),
                    &marker,
                    &Default::default(),
                    cam.marker_scale(),
                )
                .is_some()
            })
            .count()
    };
    let near = OrbitCamera {
        distance: 3.0,
        ..OrbitCamera::default()
    };
    let far = OrbitCamera {
        distance: 60.0,
        ..OrbitCamera::default()
    };
    let (at_default, at_near, at_far) = (
        half_width(&OrbitCamera::default()),
        half_width(&near),
        half_width(&far),
    );
    assert!(
        at_default >= 4,
        "a marker is a few pixels wide: {at_default}"
    );
    for (what, px) in [("zoomed in", at_near), ("zoomed out", at_far)] {
        assert!(
            px.abs_diff(at_default) <= 1,
            "{what}: {px} px against {at_default} px"
        );
    }
    assert_eq!(near.marker_scale(), 0.25);
    assert_eq!(OrbitCamera::default().marker_scale(), 1.0);
}

#[test]
fn overlapping_markers_are_picked_by_their_centre_and_hidden_by_a_shape_in_front() {
    // Zoomed out, a marker half a meter beside and two behind another overlaps it on screen;
    // each is still picked at its centre.
    let cam = OrbitCamera {
        distance: 60.0,
        ..OrbitCamera::default()
    };
    let behind = cam.forward() * 2.0 + cam.right() * 0.3;
    let mut items = vec![
        item(512, Shape::Marker, Mat4::IDENTITY),
        item(513, Shape::Marker, Mat4::from_translation(behind)),
    ];
    let pick_at = |items: &[DrawItem], p: Vec3| {
        let s = cam.project(p, SIZE).unwrap();
        let ray = cam.ray(Vec2::new(s.x, s.y), SIZE);
        picking::pick(&ray, items, &Default::default(), cam.marker_scale()).map(|h| h.entity)
    };
    for (p, n) in [(Vec3::ZERO, 512), (behind, 513)] {
        assert_eq!(pick_at(&items, p), Some(Entity::from_parts(n, 0)), "{p}");
    }
    // A wall between the camera and the markers hides them; behind them it does not.
    let wall = |z: f32| {
        item(
            600,
            Shape::Box,
            Mat4::from_scale_rotation_translation(
                Vec3::new(10.0, 10.0, 0.1),
                Quat::IDENTITY,
                Vec3::new(0.0, 0.0, z),
            ),
        )
    };
    items.push(wall(-5.0));
    assert_eq!(
        pick_at(&items, Vec3::ZERO),
        Some(Entity::from_parts(600, 0)),
        "in front"
    );
    items.pop();
    items.push(wall(5.0));
    assert_eq!(
        pick_at(&items, Vec3::ZERO),
        Some(Entity::from_parts(512, 0)),
        "behind"
    );
}

#[test]
fn picking_respects_rotation_and_non_uniform_scale() {
    // A 4 m × 0.2 m × 0.2 m bar turned 90° about Y: it lies along world Z.
    let bar = Mat4::from_scale_rotation_translation(
        Vec3::new(4.0, 0.2, 0.2),
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        Vec3::ZERO,
    );
    let down = |x: f32, z: f32| scenetree_viewport::Ray {
        origin: Vec3::new(x, 10.0, z),
        direction: -Vec3::Y,
    };
    let t = picking::intersect_shape(&down(0.0, 1.9), &Shape::Box, &bar).unwrap();
    assert!((t - 9.9).abs() < 1e-4, "top face at y = 0.1: {t}");
    assert!(picking::intersect_shape(&down(0.0, 2.1), &Shape::Box, &bar).is_none());
    assert!(picking::intersect_shape(&down(1.0, 0.0), &Shape::Box, &bar).is_none());
    // A sphere squashed to an ellipsoid 3 m wide along X.
    let wide = Mat4::from_scale(Vec3::new(3.0, 1.0, 1.0));
    assert!(picking::intersect_shape(&down(1.4, 0.0), &Shape::Sphere, &wide).is_some());
    assert!(picking::intersect_shape(&down(1.6, 0.0), &Shape::Sphere, &wide).is_none());
}

proptest! {
    #[test]
    fn a_box_hit_lies_on_the_box_surface(
        ox in -5.0f32..5.0, oy in -5.0f32..5.0, oz in -5.0f32..-2.0,
        tx in -0.4f32..0.4, ty in -0.4f32..0.4,
        angle in -3.0f32..3.0, sx in 0.2f32..3.0, sy in 0.2f32..3.0,
    ) {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(sx, sy, 1.0), Quat::from_rotation_y(angle * 0.2), Vec3::ZERO);
        let toward = m.transform_point3(Vec3::new(tx, ty, 0.0));
        let origin = Vec3::new(ox, oy, oz);
        let ray = scenetree_viewport::Ray { origin, direction: (toward - origin).normalize() };
        let t = picking::intersect_shape(&ray, &Shape::Box, &m);
        prop_assert!(t.is_some(), "aimed at the box centre plane");
        let local = m.inverse().transform_point3(ray.at(t.unwrap()));
        let face = local.abs().max_element();
        prop_assert!((face - 0.5).abs() < 1e-3, "local hit {local}");
    }
}

// --- gizmo ------------------------------------------------------------------------------

fn target(local: Transform, parent_world: Mat4) -> GizmoTarget {
    GizmoTarget {
        entity: Entity::from_parts(600, 0),
        local,
        parent_world,
    }
}

fn turned_parent() -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::splat(2.0),
        Quat::from_rotation_y(0.9),
        Vec3::new(5.0, 1.0, -3.0),
    )
}

fn child() -> Transform {
    Transform {
        position: Vec3::new(1.0, 0.5, 2.0),
        rotation: Quat::from_rotation_x(0.4),
        scale: Vec3::new(1.0, 2.0, 0.5),
        parent: Entity::from_parts(599, 0),
    }
}

#[test]
fn translating_moves_the_world_position_and_keeps_rotation_and_scale() {
    let t = target(child(), turned_parent());
    let d = Vec3::new(0.5, -1.0, 2.0);
    let out = apply_delta(&[t], Vec3::ZERO, &GizmoDelta::Translate(d));
    let before = t.world().w_axis.truncate();
    assert!(close(out[0].world.w_axis.truncate(), before + d, 1e-4));
    assert_eq!(out[0].local.rotation, t.local.rotation);
    assert_eq!(out[0].local.scale, t.local.scale);
    assert_eq!(out[0].local.parent, t.local.parent);
    assert!(
        out[0]
            .world
            .abs_diff_eq(turned_parent() * out[0].local.local_matrix(), 1e-5)
    );
}

#[test]
fn rotating_turns_about_the_pivot_in_world_space() {
    let t = target(child(), turned_parent());
    let pivot = Vec3::new(2.0, 0.0, 1.0);
    let q = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 0.5).normalize(), 0.8);
    let out = apply_delta(&[t], pivot, &GizmoDelta::Rotate(q));
    let expected = Mat4::from_translation(pivot)
        * Mat4::from_quat(q)
        * Mat4::from_translation(-pivot)
        * t.world();
    assert!(
        out[0].world.abs_diff_eq(expected, 1e-4),
        "{:?}\n{:?}",
        out[0].world,
        expected
    );
    assert!((out[0].local.rotation.length() - 1.0).abs() < 1e-5);
}

#[test]
fn scaling_multiplies_the_local_scale_and_keeps_the_position() {
    let t = target(child(), turned_parent());
    let out = apply_delta(
        &[t],
        Vec3::ZERO,
        &GizmoDelta::Scale(Vec3::new(2.0, 1.0, 0.5)),
    );
    assert_eq!(out[0].local.scale, Vec3::new(2.0, 2.0, 0.25));
    assert_eq!(out[0].local.position, t.local.position);
}

#[test]
fn a_degenerate_parent_keeps_the_start_transform() {
    let flat = Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0));
    let t = target(child(), flat);
    let out = apply_delta(&[t], Vec3::ZERO, &GizmoDelta::Translate(Vec3::X));
    assert_eq!(out[0].local, t.local);
}

#[test]
fn gizmo_sits_on_the_first_target_with_local_or_world_axes() {
    let t = target(child(), turned_parent());
    let cam = OrbitCamera::default();
    let mut settings = GizmoSettings::default();
    let world = GizmoFrame::new(&[t], &settings, &cam, SIZE).unwrap();
    assert!(close(world.origin, t.world().w_axis.truncate(), 1e-5));
    assert_eq!(world.axes, [Vec3::X, Vec3::Y, Vec3::Z]);
    settings.orientation = Orientation::Local;
    let local = GizmoFrame::new(&[t], &settings, &cam, SIZE).unwrap();
    let rot = Quat::from_rotation_y(0.9) * Quat::from_rotation_x(0.4);
    assert!(close(local.axes[0], rot * Vec3::X, 1e-4));
    assert!(close(local.axes[2], rot * Vec3::Z, 1e-4));
    // Scale handles always follow the local axes.
    settings.orientation = Orientation::World;
    settings.mode = GizmoMode::Scale;
    let scale = GizmoFrame::new(&[t], &settings, &cam, SIZE).unwrap();
    assert!(close(scale.axes[0], rot * Vec3::X, 1e-4));
    // Its handles are a constant size on screen: settings.size_points long.
    let a = cam.project(scale.origin, SIZE).unwrap();
    let b = cam
        .project(scale.origin + cam.right() * scale.length, SIZE)
        .unwrap();
    assert!(((b.x - a.x).abs() - settings.size_points).abs() < 2.0);
    assert!(GizmoFrame::new(&[], &settings, &cam, SIZE).is_none());
}

#[test]
fn hit_test_finds_axes_planes_centre_and_rings() {
    let cam = OrbitCamera::default();
    let t = target(
        Transform {
            position: Vec3::new(0.0, 0.0, 0.0),
            ..Transform::IDENTITY
        },
        Mat4::IDENTITY,
    );
    let settings = GizmoSettings::default();
    let f = GizmoFrame::new(&[t], &settings, &cam, SIZE).unwrap();
    let at = |p: Vec3| {
        let s = cam.project(p, SIZE).unwrap();
        Vec2::new(s.x, s.y)
    };
    let hit = |mode, p| hit_test(&f, mode, &cam, SIZE, p);
    let l = f.length;
    assert_eq!(
        hit(GizmoMode::Translate, at(Vec3::X * l * 0.8)),
        Some(Handle::Axis(0))
    );
    assert_eq!(
        hit(GizmoMode::Translate, at(Vec3::Y * l * 0.8)),
        Some(Handle::Axis(1))
    );
    assert_eq!(
        hit(GizmoMode::Translate, at(Vec3::ZERO)),
        Some(Handle::Center)
    );
    assert_eq!(
        hit(GizmoMode::Translate, at(Vec3::new(0.32, 0.0, 0.32) * l)),
        Some(Handle::Plane(1)),
        "the XZ square (normal Y)"
    );
    assert_eq!(
        hit(GizmoMode::Translate, at(Vec3::new(-1.0, 0.0, 0.0) * l)),
        None
    );
    // The Y ring lies in the XZ plane; this point of it is on the eye's (−Z) side.
    let on_y_ring = Vec3::new(1.0, 0.0, -1.0).normalize() * 0.85 * l;
    assert_eq!(hit(GizmoMode::Rotate, at(on_y_ring)), Some(Handle::Ring(1)));
    assert_eq!(
        hit(GizmoMode::Rotate, at(Vec3::X * l * 0.5)),
        None,
        "no axes in rotate mode"
    );
}
