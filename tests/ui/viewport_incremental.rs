//! The incremental instance update draws what a full rebuild draws: a few items moved or
//! recoloured are rewritten in place in their batches' instance buffers, and the image must be
//! the same, byte for byte, as a fresh renderer's full upload of the same final scene. An edit
//! that moves an item to another batch takes the full path instead.

// The scenes' colours are content (what the pixels are checked against), not the look.
#![allow(clippy::disallowed_methods)]

use crate::egl::headless_gl;
use crate::render_support::{Image, render};

use eframe::egui::Color32;
use glam::{Mat4, Quat, Vec3};
use scenetree::ui::style;
use scenetree_core::model::Entity;
use scenetree_viewport::{
    DrawItem, GlowViewportRenderer, ItemChanges, OrbitCamera, Shape, ViewportScene,
};

const W: u32 = 320;
const H: u32 = 240;

/// 200 items of every shape kind on a grid, some selected (outlined) and some below a
/// selected one.
fn scene() -> ViewportScene {
    let shapes = [
        Shape::Box,
        Shape::Sphere,
        Shape::Cylinder {
            radius_top: 0.3,
            radius_bottom: 0.5,
        },
        Shape::Plane,
        Shape::Marker,
    ];
    let items = (0..200u16)
        .map(|i| {
            let at = Vec3::new(f32::from(i % 20) * 1.2, 0.5, f32::from(i / 20) * 1.2);
            DrawItem {
                entity: Entity::from_parts(512 + i, 0),
                world: Mat4::from_rotation_translation(Quat::from_rotation_y(f32::from(i)), at),
                shape: shapes[usize::from(i) % shapes.len()],
                color: Color32::from_rgb(
                    (40 + (u32::from(i) * 37) % 200) as u8,
                    (40 + (u32::from(i) * 91) % 200) as u8,
                    (40 + (u32::from(i) * 53) % 200) as u8,
                ),
                texture: None,
                selected: i % 31 == 0,
                below_selected: i % 31 == 1,
            }
        })
        .collect();
    ViewportScene {
        items,
        generation: 1,
        ..Default::default()
    }
}

fn camera(scene: &ViewportScene) -> OrbitCamera {
    let mut camera = OrbitCamera::default();
    let b = scene.all_bounds().expect("items");
    camera.frame_bounds(b.min, b.max, W as f32 / H as f32);
    camera
}

/// `before` edited by `edit`, one generation later, with the changed items named.
fn edited(before: &ViewportScene, edit: impl Fn(&mut [DrawItem])) -> ViewportScene {
    let mut after = before.clone();
    edit(&mut after.items);
    after.generation = before.generation + 1;
    after.changes = ItemChanges::between(before.generation, &before.items, &after.items, 512);
    after
}

fn draw(renderer: &mut GlowViewportRenderer, scene: &ViewportScene, camera: &OrbitCamera) -> Image {
    render(renderer, scene, camera, [W, H], style::VIEWPORT_BACKGROUND)
}

/// The image of `scene` from a renderer that never saw another.
fn fresh(
    gl: &std::sync::Arc<eframe::glow::Context>,
    scene: &ViewportScene,
    camera: &OrbitCamera,
) -> Image {
    let mut renderer = GlowViewportRenderer::new(gl.clone()).expect("renderer");
    let mut full = scene.clone();
    full.changes = None;
    let img = draw(&mut renderer, &full, camera);
    assert_eq!(renderer.stats().incremental_updates, 0);
    img
}

#[test]
fn viewport_incremental_update_draws_the_same_pixels_as_a_full_rebuild() {
    let gl = headless_gl().expect("surfaceless EGL on Mesa's software device");
    let before = scene();
    let camera = camera(&before);
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    let first = draw(&mut renderer, &before, &camera);
    // Three moved (a box, a selected box with its outline, a marker), one recoloured.
    let after = edited(&before, |items| {
        items[3].world = Mat4::from_translation(Vec3::new(2.0, 1.5, 3.0));
        items[62].world *= Mat4::from_translation(Vec3::new(0.4, 0.8, -0.3));
        items[124].world = Mat4::from_scale_rotation_translation(
            Vec3::splat(1.7),
            Quat::from_rotation_x(0.6),
            Vec3::new(5.0, 2.0, 6.0),
        );
        items[41].color = Color32::from_rgb(250, 20, 200);
    });
    assert_eq!(after.changes.as_ref().map(|c| c.items.len()), Some(4));
    let updated = draw(&mut renderer, &after, &camera);
    let stats = renderer.stats();
    assert_eq!(
        (stats.uploads, stats.incremental_updates),
        (1, 1),
        "one full upload, then in place"
    );
    updated.save("incremental-updated");
    assert_ne!(updated.rgba, first.rgba, "the edit shows");
    let full = fresh(&gl.gl, &after, &camera);
    full.save("incremental-full");
    let differing = (updated.rgba.chunks(4).zip(full.rgba.chunks(4))).filter(|(a, b)| a != b);
    assert_eq!(
        differing.count(),
        0,
        "pixels that differ from the full rebuild's"
    );

    // Another edit on top of the first, again in place.
    let again = edited(&after, |items| {
        items[3].color = Color32::from_rgb(20, 240, 240)
    });
    let updated = draw(&mut renderer, &again, &camera);
    assert_eq!(renderer.stats().incremental_updates, 2);
    assert!(
        updated.rgba == fresh(&gl.gl, &again, &camera).rgba,
        "second update"
    );

    // A moved subtree: consecutive items of every kind (two outlined, one below), written in
    // runs of consecutive instances per batch and pass.
    let subtree = edited(&again, |items| {
        for item in &mut items[90..160] {
            item.world = Mat4::from_translation(Vec3::new(0.3, 0.9, -0.6)) * item.world;
        }
    });
    assert_eq!(subtree.changes.as_ref().map(|c| c.items.len()), Some(70));
    let updated = draw(&mut renderer, &subtree, &camera);
    assert_eq!(renderer.stats().incremental_updates, 3);
    assert!(
        updated.rgba == fresh(&gl.gl, &subtree, &camera).rgba,
        "a run of consecutive items"
    );
}

#[test]
fn viewport_edit_that_changes_batch_falls_back_to_a_full_rebuild() {
    let gl = headless_gl().expect("surfaceless EGL on Mesa's software device");
    let before = scene();
    let camera = camera(&before);
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    draw(&mut renderer, &before, &camera);
    let edits: [fn(&mut [DrawItem]); 3] = [
        |items| items[10].shape = Shape::Sphere,     // another mesh
        |items| items[11].selected = true,           // the outlined pass
        |items| items[12].world.w_axis.x = f32::NAN, // no longer drawn
    ];
    let mut scene = before;
    for (n, edit) in edits.into_iter().enumerate() {
        scene = edited(&scene, edit);
        assert!(scene.changes.is_some());
        let img = draw(&mut renderer, &scene, &camera);
        let stats = renderer.stats();
        assert_eq!(
            (stats.uploads, stats.incremental_updates),
            (2 + n as u64, 0),
            "edit {n}"
        );
        assert!(img.rgba == fresh(&gl.gl, &scene, &camera).rgba, "edit {n}");
    }
}
