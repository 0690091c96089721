//! Headless rendering: the real three-d renderer draws into its offscreen FBO on Mesa's
//! software EGL device (no display needed) and the pixels are checked.
//!
//! Set `SCENETREE_RENDER_OUT=dir` to also write the images as PNG files for a look.

// The scenes' colours are content (what the pixels are checked against), not the look.
#![allow(clippy::disallowed_methods)]

use crate::egl;
use crate::render_support::{Image, render};

use eframe::egui::Color32;
use egl::{Headless, headless_gl};
use glam::{Mat4, Vec2, Vec3};
use scenetree::ui::style;
use scenetree_core::model::Entity;
use scenetree_viewport::{
    DrawItem, GlowViewportRenderer, OrbitCamera, Shape, ViewportScene, demo, picking,
};

const W: u32 = 400;
const H: u32 = 300;
const BACKGROUND: Color32 = style::VIEWPORT_BACKGROUND;
const OUTLINE: [u8; 3] = [
    style::SELECTION.r(),
    style::SELECTION.g(),
    style::SELECTION.b(),
];

fn near(c: [u8; 3], want: [u8; 3], tol: i32) -> bool {
    c.iter()
        .zip(want)
        .all(|(a, b)| (*a as i32 - b as i32).abs() <= tol)
}

/// Channel `i` is bright and at least twice each other channel.
fn dominant(c: [u8; 3], i: usize) -> bool {
    let c = c.map(u32::from);
    c[i] > 60 && (0..3).all(|j| j == i || c[i] >= 2 * c[j])
}

fn is_background(c: [u8; 3]) -> bool {
    near(c, [BACKGROUND.r(), BACKGROUND.g(), BACKGROUND.b()], 3)
}

struct Rig {
    _gl: Headless,
    renderer: GlowViewportRenderer,
}

impl Rig {
    fn new() -> Rig {
        let gl = headless_gl().expect("surfaceless EGL on Mesa's software device");
        let renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
        Rig { _gl: gl, renderer }
    }
    fn render(&mut self, scene: &ViewportScene, camera: &OrbitCamera, name: &str) -> Image {
        let img = render(&mut self.renderer, scene, camera, [W, H], BACKGROUND);
        img.save(name);
        img
    }
}

fn item(n: u16, shape: Shape, at: Vec3, color: Color32, selected: bool) -> DrawItem {
    DrawItem {
        entity: Entity::from_parts(n, 0),
        world: Mat4::from_translation(at),
        shape,
        color,
        selected,
        below_selected: false,
        texture: None,
    }
}

fn screen(camera: &OrbitCamera, p: Vec3) -> (u32, u32) {
    let s = camera.project(p, Vec2::new(W as f32, H as f32)).unwrap();
    (s.x.round() as u32, s.y.round() as u32)
}

#[test]
fn the_grid_and_the_positive_axes_show_decentralands_frame() {
    let mut rig = Rig::new();
    let camera = OrbitCamera::default();
    let img = rig.render(&ViewportScene::default(), &camera, "grid");
    // Grid lines cover a visible share of the ground (the whole image is ground here).
    let lines = img.count(|_, _, c| !is_background(c));
    let total = (W * H) as usize;
    assert!(
        lines > total / 50 && lines < total / 2,
        "grid pixels: {lines} of {total}"
    );
    // The bright red +X axis runs to the right of the origin, the dim −X half to the left.
    let (ox, oy) = screen(&camera, Vec3::ZERO);
    let bright_red = |c: [u8; 3]| c[0] > 180 && c[1] < 110 && c[2] < 110;
    let right = img.count(|x, _, c| x > ox + 3 && bright_red(c));
    let left = img.count(|x, _, c| x + 3 < ox && bright_red(c));
    assert!(
        right > 60 && left == 0,
        "+X red pixels right {right}, left {left}"
    );
    // The bright blue +Z axis goes away from the viewer: up the screen from the origin.
    let bright_blue = |c: [u8; 3]| c[2] > 180 && c[0] < 110;
    let above = img.count(|_, y, c| y + 3 < oy && bright_blue(c));
    let below = img.count(|_, y, c| y > oy + 3 && bright_blue(c));
    assert!(
        above > 30 && below == 0,
        "+Z blue pixels above {above}, below {below}"
    );
}

#[test]
fn plus_x_is_right_and_plus_z_is_into_the_screen() {
    let mut rig = Rig::new();
    let camera = OrbitCamera::default();
    let red = Color32::from_rgb(220, 30, 30);
    let green = Color32::from_rgb(30, 200, 30);
    // Red box at +X; a green box behind a red one along +Z.
    let scene = ViewportScene {
        items: vec![
            item(512, Shape::Box, Vec3::new(4.0, 0.5, 0.0), red, false),
            item(513, Shape::Box, Vec3::new(0.0, 0.5, 0.0), red, false),
            item(514, Shape::Box, Vec3::new(0.0, 0.5, 3.0), green, false),
        ],
        generation: 1,
        gizmo_targets: vec![],
        ..Default::default()
    };
    let img = rig.render(&scene, &camera, "handedness");
    let reddish = |c: [u8; 3]| dominant(c, 0);
    let red_right = img.count(|x, _, c| x > W / 2 + 20 && reddish(c));
    assert!(
        red_right > 200,
        "the +X box is in the right half: {red_right} red pixels"
    );
    // The box at z = 0 hides the middle of the box at z = 3 behind it.
    let (cx, cy) = screen(&camera, Vec3::new(0.0, 0.5, 0.0));
    assert!(
        reddish(img.px(cx, cy)),
        "front box at its centre: {:?}",
        img.px(cx, cy)
    );
    let greenish = |c: [u8; 3]| dominant(c, 1);
    let green_total = img.count(|_, _, c| greenish(c));
    assert!(green_total > 0, "the far box peeks out above the near one");
    let (gx, gy) = screen(&camera, Vec3::new(0.0, 1.0, 3.0));
    assert!(
        gy < cy && gx.abs_diff(cx) < 3,
        "farther along +Z is higher on screen"
    );
    // Its visible part is above the front box: +Z recedes.
    let green_below_front = img.count(|_, y, c| y > cy && greenish(c));
    assert_eq!(green_below_front, 0);
}

#[test]
fn showroom_selection_is_outlined_and_every_shape_is_drawn_where_picking_finds_it() {
    let mut rig = Rig::new();
    let camera = OrbitCamera::default();
    let mut scene = demo::showroom();
    let img = rig.render(&scene, &camera, "showroom");

    // Coverage: the shapes and the grid, but mostly background-ish ground.
    let covered = img.count(|_, _, c| !is_background(c));
    let total = (W * H) as usize;
    assert!(
        covered > total / 20 && covered < total * 3 / 4,
        "coverage {covered}/{total}"
    );

    // The selected box (512) has outline pixels around it; nothing else does.
    let selected = scene.items.iter().find(|i| i.selected).unwrap();
    let (sx, sy) = screen(&camera, selected.world.w_axis.truncate());
    let outline_near =
        img.count(|x, y, c| x.abs_diff(sx) < 45 && y.abs_diff(sy) < 45 && near(c, OUTLINE, 12));
    let outline_far =
        img.count(|x, y, c| (x.abs_diff(sx) >= 45 || y.abs_diff(sy) >= 45) && near(c, OUTLINE, 12));
    assert!(
        outline_near > 40,
        "outline pixels near the selected box: {outline_near}"
    );
    assert_eq!(outline_far, 0, "outline colour elsewhere");

    // Every shape is drawn at its centre, in its own hue, and picking there finds it.
    let size = Vec2::new(W as f32, H as f32);
    for it in &scene.items {
        let centre = it.world.w_axis.truncate();
        let (x, y) = screen(&camera, centre);
        let c = img.px(x, y);
        assert!(!is_background(c), "{:?} drawn at ({x},{y})", it.shape);
        let want = [it.color.r(), it.color.g(), it.color.b()];
        let hue_of = |c: [u8; 3]| (0..3).max_by_key(|&i| c[i]).unwrap();
        if want.iter().max() != want.iter().min() && !it.selected {
            assert_eq!(hue_of(c), hue_of(want), "{:?}: {c:?} vs {want:?}", it.shape);
        }
        let hit = picking::pick(
            &camera.ray(Vec2::new(x as f32 + 0.5, y as f32 + 0.5), size),
            &scene.items,
            &scene.assets,
            camera.marker_scale(),
        );
        assert_eq!(hit.map(|h| h.entity), Some(it.entity), "{:?}", it.shape);
    }

    // Deselect: the outline is gone (and a new generation re-uploads the instances).
    for it in &mut scene.items {
        it.selected = false;
    }
    scene.generation += 1;
    let img = rig.render(&scene, &camera, "showroom_unselected");
    assert_eq!(img.count(|_, _, c| near(c, OUTLINE, 12)), 0);
    assert_eq!(rig.renderer.stats().uploads, 2);
}

#[test]
fn selecting_a_floor_leaves_what_stands_in_front_of_it_untouched() {
    // A see-through highlight of hidden selected parts (tried, then dropped) tinted everything
    // that stood on a selected floor.
    let mut rig = Rig::new();
    let camera = OrbitCamera::default();
    let blue = Color32::from_rgb(40, 70, 210);
    let mut floor = item(
        512,
        Shape::Box,
        Vec3::ZERO,
        Color32::from_rgb(20, 120, 20),
        false,
    );
    floor.world = Mat4::from_scale_rotation_translation(
        Vec3::new(12.0, 0.1, 12.0),
        glam::Quat::IDENTITY,
        Vec3::new(0.0, -0.05, 0.0),
    );
    let standing = Vec3::new(0.0, 0.5, 0.0);
    let mut scene = ViewportScene {
        items: vec![floor, item(513, Shape::Box, standing, blue, false)],
        generation: 1,
        ..Default::default()
    };
    let plain = rig.render(&scene, &camera, "floor_unselected");
    scene.items[0].selected = true;
    scene.generation += 1;
    let selected = rig.render(&scene, &camera, "floor_selected");
    let (x, y) = screen(&camera, standing);
    assert!(
        near(selected.px(x, y), plain.px(x, y), 2),
        "the box on the selected floor: {:?}, {:?} with nothing selected",
        selected.px(x, y),
        plain.px(x, y)
    );
    // The floor itself is selected: tinted where it shows.
    let (fx, fy) = screen(&camera, Vec3::new(3.0, 0.0, -2.0));
    assert!(!near(selected.px(fx, fy), plain.px(fx, fy), 2));
}

#[test]
fn what_lies_below_the_selection_is_outlined_in_the_child_colour() {
    let mut rig = Rig::new();
    let camera = OrbitCamera::default();
    let grey = Color32::from_rgb(120, 120, 120);
    let (parent_at, child_at) = (Vec3::new(-2.0, 0.5, 0.0), Vec3::new(2.0, 0.5, 0.0));
    let mut child = item(513, Shape::Box, child_at, grey, false);
    child.below_selected = true;
    let scene = ViewportScene {
        items: vec![item(512, Shape::Box, parent_at, grey, true), child],
        generation: 1,
        ..Default::default()
    };
    let img = rig.render(&scene, &camera, "child_outline");
    let child_colour = [
        style::SELECTION_CHILD.r(),
        style::SELECTION_CHILD.g(),
        style::SELECTION_CHILD.b(),
    ];
    let around = |(x, y): (u32, u32), colour: [u8; 3]| {
        img.count(|px, py, c| px.abs_diff(x) < 45 && py.abs_diff(y) < 45 && near(c, colour, 12))
    };
    let (parent, child) = (screen(&camera, parent_at), screen(&camera, child_at));
    assert!(around(parent, OUTLINE) > 40, "the selected box's outline");
    assert_eq!(around(parent, child_colour), 0);
    assert!(around(child, child_colour) > 40, "the child's outline");
    assert_eq!(around(child, OUTLINE), 0);
    // Only the selected box is tinted: the child keeps its grey at its centre.
    let [r, g, b] = img.px(child.0, child.1);
    assert!(
        r.abs_diff(b) < 12 && r.abs_diff(g) < 12,
        "untinted: {:?}",
        [r, g, b]
    );
}

#[test]
fn static_frames_do_not_reupload_and_65535_items_render() {
    let mut rig = Rig::new();
    let scene = demo::stress(65_535);
    let mut camera = OrbitCamera::default();
    let bounds = scene.focus_bounds().unwrap();
    camera.frame_bounds(bounds.min, bounds.max, W as f32 / H as f32);
    let img = rig.render(&scene, &camera, "stress");
    camera.orbit(Vec2::new(30.0, 0.0));
    rig.render(&scene, &camera, "stress_orbit");
    let stats = rig.renderer.stats();
    assert_eq!(stats.instances, 65_535);
    assert_eq!(stats.uploads, 1, "same generation, no second upload");
    assert_eq!(stats.frames, 2);
    // The middle of the field is densely covered (items are about a pixel each here).
    let (cx, cy) = screen(&camera, (bounds.min + bounds.max) * 0.5);
    let window = img.count(|x, y, _| x.abs_diff(cx) <= 30 && y.abs_diff(cy) <= 30);
    let covered =
        img.count(|x, y, c| x.abs_diff(cx) <= 30 && y.abs_diff(cy) <= 30 && !is_background(c));
    assert!(
        covered * 10 > window * 6,
        "a dense field of items: {covered} of {window}"
    );
}

#[test]
fn a_marker_covers_the_same_pixels_at_any_zoom() {
    let mut rig = Rig::new();
    let magenta = Color32::from_rgb(230, 30, 230);
    let scene = ViewportScene {
        items: vec![item(
            520,
            Shape::Marker,
            Vec3::new(0.0, 1.0, 0.0),
            magenta,
            false,
        )],
        generation: 1,
        gizmo_targets: vec![],
        ..Default::default()
    };
    let marker_pixels = |rig: &mut Rig, distance: f32| {
        let camera = OrbitCamera {
            target: Vec3::new(0.0, 1.0, 0.0),
            distance,
            ..OrbitCamera::default()
        };
        let img = rig.render(&scene, &camera, &format!("marker-at-{distance}m"));
        img.count(|_, _, c| c[0] > 90 && c[2] > 90 && u32::from(c[1]) * 2 < u32::from(c[0]))
    };
    let at_default = marker_pixels(&mut rig, 12.0);
    assert!(at_default > 12, "the marker is drawn: {at_default} pixels");
    for distance in [3.0, 48.0] {
        let pixels = marker_pixels(&mut rig, distance);
        let ratio = pixels as f32 / at_default as f32;
        assert!(
            (0.8..1.25).contains(&ratio),
            "{pixels} pixels at {distance} m against {at_default} at 12 m"
        );
    }
}

/// Whether a GL renderer name is one of Mesa's software rasterizers.
fn is_software_renderer(name: &str) -> bool {
    name.contains("llvmpipe") || name.contains("softpipe")
}

#[test]
fn a_headless_context_draws_on_the_device_asked_for() {
    let software = egl::headless_gl_on(egl::EglDevice::Software).expect("Mesa's software device");
    let name = software.renderer_name();
    assert!(
        is_software_renderer(&name),
        "software device drew with {name}"
    );
    drop(software);
    // A machine without a GPU says it has none; one with a GPU draws there.
    match egl::headless_gl_on(egl::EglDevice::Hardware) {
        Ok(gpu) => {
            let name = gpu.renderer_name();
            assert!(
                !is_software_renderer(&name),
                "hardware device drew with {name}"
            );
        }
        Err(e) => assert!(
            e.step == "EGL devices" && e.reason.contains("no hardware device"),
            "{e}"
        ),
    }
}
