//! Real scenes with their glTF models: the art gallery project loaded, rendered headlessly
//! (surfaceless EGL on Mesa's software device) and checked pixel by pixel; models picked by
//! their triangles.
//!
//! Set `SCENETREE_RENDER_OUT=dir` to also write the images as PNG files for a look.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

use eframe::egui::{self, Color32};
use egui_kittest::Harness;
use glam::{Vec2, Vec3};
use scenetree::ui::files::load_document;
use scenetree::ui::viewport_tab::{ModelState, ViewportTab};
use scenetree::ui::workbench::Workbench;
use scenetree_core::model::Entity;
use scenetree_editor::Document;
use scenetree_viewport::{GlowViewportRenderer, OrbitCamera, Shape, ViewportScene, picking};

use crate::egl::headless_gl;
use crate::projects::{cozy_house, gallery};
use crate::render_support::{self, Image};
use crate::ui_flows::click_at;

const W: u32 = 640;
const H: u32 = 400;
const BACKGROUND: Color32 = scenetree_viewport::style::VIEWPORT_BACKGROUND;

/// The gallery building; its model is missing from the project (as in the source snapshot).
const GALLERY_BUILDING: Entity = Entity(523);
/// The three beam benches share one model file.
const BENCHES: [Entity; 3] = [Entity(522), Entity(532), Entity(534)];
/// The shelf (one untextured model).
const SHELF: Entity = Entity(521);
/// The green sycamore tree (a textured model).
const TREE: Entity = Entity(539);
/// The YouTube link on the shelf (a textured model: red logo on white).
const YOUTUBE: Entity = Entity(537);

/// Opens a project as the app does and builds its viewport scene with every model loaded.
pub fn open_loaded(path: &Path) -> (Document, ViewportTab) {
    let doc = load_document(path, &AtomicU32::new(0)).expect("the project opens");
    let mut tab = ViewportTab::default();
    tab.assets.set_project(doc.project.clone());
    let none = HashSet::new();
    tab.update_scene(&doc, &none, &none, 0.0);
    assert!(
        tab.assets.wait_until_loaded(Duration::from_secs(60)),
        "every model loads or fails within a minute"
    );
    tab.update_scene(&doc, &none, &none, 0.0);
    (doc, tab)
}

/// Renders until every model is uploaded and reads the image back.
fn render(
    renderer: &mut GlowViewportRenderer,
    scene: &ViewportScene,
    camera: &OrbitCamera,
) -> Image {
    render_support::render(renderer, scene, camera, [W, H], BACKGROUND)
}

/// The on-screen rectangle (pixels, clamped to the image) of an item's world bounds.
fn screen_rect(scene: &ViewportScene, camera: &OrbitCamera, e: Entity) -> (u32, u32, u32, u32) {
    let item = scene.items.iter().find(|i| i.entity == e).expect("drawn");
    let bounds = item.shape.local_bounds().transformed(&item.world);
    let size = Vec2::new(W as f32, H as f32);
    let points: Vec<Vec3> = bounds
        .corners()
        .iter()
        .map(|&c| camera.project(c, size).expect("in front of the camera"))
        .collect();
    let min = points.iter().fold(Vec2::MAX, |m, p| m.min(p.truncate()));
    let max = points.iter().fold(Vec2::MIN, |m, p| m.max(p.truncate()));
    let clamp = |v: f32, hi: u32| v.clamp(0.0, (hi - 1) as f32) as u32;
    (
        clamp(min.x, W),
        clamp(min.y, H),
        clamp(max.x, W),
        clamp(max.y, H),
    )
}

/// Pixels inside `rect` that `pred` accepts.
fn count_in(
    img: &Image,
    (x0, y0, x1, y1): (u32, u32, u32, u32),
    pred: impl Fn([u8; 3]) -> bool,
) -> usize {
    (y0..=y1)
        .flat_map(|y| (x0..=x1).map(move |x| (x, y)))
        .filter(|&(x, y)| pred(img.px(x, y)))
        .count()
}

/// A camera seeing a plane item face on, framed to fill the image.
fn face_on(item: &scenetree_viewport::DrawItem) -> OrbitCamera {
    let bounds = item.shape.local_bounds().transformed(&item.world);
    let normal = item.world.transform_vector3(Vec3::Z).normalize();
    let mut camera = OrbitCamera {
        yaw: normal.x.atan2(normal.z),
        pitch: 0.0,
        ..OrbitCamera::default()
    };
    camera.frame_bounds(bounds.min, bounds.max, W as f32 / H as f32);
    camera
}

/// A camera looking at the gallery's shelf corner, where textured models stand close together.
fn shelf_corner_camera() -> OrbitCamera {
    OrbitCamera {
        target: Vec3::new(22.8, 2.2, 24.8),
        yaw: 0.35,
        pitch: -0.2,
        distance: 6.5,
        ..OrbitCamera::default()
    }
}

#[test]
fn the_art_gallery_renders_its_models_and_the_missing_ones_placeholder() {
    let (doc, mut tab) = open_loaded(&gallery());
    let scene = tab.scene().clone();
    // Every model but the missing building is loaded and drawn as a model.
    let shape_of = |e: Entity| scene.items.iter().find(|i| i.entity == e).map(|i| i.shape);
    assert_eq!(shape_of(GALLERY_BUILDING), Some(Shape::GltfPlaceholder));
    for e in BENCHES.into_iter().chain([SHELF, TREE, YOUTUBE]) {
        assert!(
            matches!(shape_of(e), Some(Shape::Model { .. })),
            "{e}: {:?}",
            shape_of(e)
        );
    }
    // One load per distinct file: the three benches share one model.
    let bench_assets: HashSet<_> = BENCHES
        .iter()
        .filter_map(|&e| match shape_of(e) {
            Some(Shape::Model { asset, .. }) => Some(asset),
            _ => None,
        })
        .collect();
    assert_eq!(bench_assets.len(), 1);
    // The inspector says why the building is a box.
    match tab.model_state(&doc, GALLERY_BUILDING) {
        Some(ModelState::BadPath { src, reason }) => {
            assert!(src.ends_with("art_gallery.glb"));
            assert!(reason.to_string().contains("does not exist"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        tab.model_state(&doc, SHELF),
        Some(ModelState::Loaded { .. })
    ));

    let gl = headless_gl().expect("surfaceless EGL");
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    let camera = shelf_corner_camera();
    let img = render(&mut renderer, &scene, &camera);
    img.save("gallery_shelf_corner");
    // Texture colours where the models' bounds project: the YouTube logo's red, the tree's
    // green leaves and brown trunk. The models' own material colours are all white, so these
    // come from their base-colour textures.
    let youtube_red = |c: [u8; 3]| c[0] > 170 && c[1] < 90 && c[2] < 90;
    let [r, g, b] = [0, 1, 2];
    let leaf_green = |c: [u8; 3]| {
        let c = c.map(i32::from);
        c[g] > 90 && c[g] > c[r] + 20 && c[g] > c[b] + 30
    };
    let trunk_brown = |c: [u8; 3]| {
        let c = c.map(i32::from);
        c[r] > 70 && c[r] > c[g] + 15 && c[g] > c[b] + 5
    };
    let youtube = screen_rect(&scene, &camera, YOUTUBE);
    let tree = screen_rect(&scene, &camera, TREE);
    assert!(
        count_in(&img, youtube, youtube_red) > 20,
        "YouTube red in {youtube:?}"
    );
    assert!(count_in(&img, tree, leaf_green) > 400, "leaves in {tree:?}");
    assert!(count_in(&img, tree, trunk_brown) > 20, "trunk in {tree:?}");
    // Outside every model's bounds, no such colours (the background, grid and other shapes).
    let everywhere = (0, 0, W - 1, H - 1);
    let red_total = count_in(&img, everywhere, youtube_red);
    assert_eq!(
        red_total,
        count_in(&img, youtube, youtube_red),
        "red only on the logo"
    );

    // The missing building's placeholder stands where the building would: its 1 m box at the
    // entity's origin, in the entity's palette colour; a ray there picks the building.
    let camera = OrbitCamera {
        target: Vec3::ZERO,
        distance: 6.0,
        ..OrbitCamera::default()
    };
    let img = render(&mut renderer, &scene, &camera);
    img.save("gallery_missing_building");
    let building = scene
        .items
        .iter()
        .find(|i| i.entity == GALLERY_BUILDING)
        .unwrap();
    let centre = camera
        .project(Vec3::ZERO, Vec2::new(W as f32, H as f32))
        .unwrap();
    let (x, y) = (centre.x as u32, centre.y as u32);
    let c = img.px(x, y);
    let want = [building.color.r(), building.color.g(), building.color.b()];
    let hue = |c: [u8; 3]| (0..3).max_by_key(|&i| c[i]).unwrap();
    assert_eq!(
        hue(c),
        hue(want),
        "placeholder colour at ({x},{y}): {c:?} vs {want:?}"
    );
    assert!(
        c.iter()
            .zip(want)
            .all(|(a, b)| (*a as i32 - b as i32).abs() < 90),
        "{c:?} vs {want:?}"
    );
    let ray = camera.ray(
        Vec2::new(x as f32 + 0.5, y as f32 + 0.5),
        Vec2::new(W as f32, H as f32),
    );
    assert_eq!(
        picking::pick(&ray, &scene.items, &scene.assets, camera.marker_scale()).map(|h| h.entity),
        Some(GALLERY_BUILDING)
    );
    let _ = &mut tab;
}

#[test]
fn material_textures_colour_shapes_and_invisible_entities_are_not_drawn() {
    // The project opens its main.composite; its Material and VisibilityComponent values
    // load through the component codec.
    let (_doc, tab) = open_loaded(&cozy_house());
    let scene = tab.scene().clone();
    // Opening framed the scene again once its models were in, on their real bounds: the
    // house and its yard, far larger than the 1 m boxes that stood in while loading.
    let centre = |b: scenetree_viewport::Aabb| (b.min + b.max) * 0.5;
    let real = scene.all_bounds().unwrap();
    let mut placeholders = scene.clone();
    for item in &mut placeholders.items {
        if matches!(item.shape, Shape::Model { .. }) {
            item.shape = Shape::GltfPlaceholder;
        }
    }
    let boxes = placeholders.all_bounds().unwrap();
    assert!(tab.viewport.camera.target.distance(centre(real)) < 1e-3);
    assert!(
        centre(real).distance(centre(boxes)) > 1.0,
        "{real:?} vs {boxes:?}"
    );
    let image = Entity(534); // a plane with a Material whose texture is art_placeholder.jpg
    let item = scene
        .items
        .iter()
        .find(|i| i.entity == image)
        .expect("drawn");
    assert_eq!(item.shape, Shape::Plane);
    let texture = item.texture.expect("the Material's texture");
    assert!(
        scene.assets.textures[&texture]
            .path
            .ends_with("art_placeholder.jpg")
    );
    // The albedo colour is white: the plane shows the texture's own colours.
    assert_eq!(item.color, Color32::WHITE);
    // VisibilityComponent { visible: false }: not drawn, and so not pickable.
    for hidden in [Entity(541), Entity(544), Entity(545)] {
        assert!(
            scene.items.iter().all(|i| i.entity != hidden),
            "{hidden} is drawn"
        );
    }

    // Rendered: the plane shows the image (not a flat colour), seen face on.
    let gl = headless_gl().expect("surfaceless EGL");
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    let camera = face_on(item);
    let img = render(&mut renderer, &scene, &camera);
    img.save("cozy_image_plane");
    let rect = screen_rect(&scene, &camera, image);
    let mut colours = HashSet::new();
    let (x0, y0, x1, y1) = rect;
    for y in (y0..=y1).step_by(3) {
        for x in (x0..=x1).step_by(3) {
            colours.insert(img.px(x, y).map(|c| c / 32));
        }
    }
    assert!(
        colours.len() > 12,
        "a textured image has many colours: {}",
        colours.len()
    );
}

/// The editor window's workbench with the real renderer on a headless GL context.
struct Window {
    bench: Workbench,
    renderer: GlowViewportRenderer,
}

#[test]
fn clicking_a_model_selects_its_entity_by_its_triangles_and_f_frames_its_real_bounds() {
    let gl = headless_gl().expect("surfaceless EGL");
    let doc = load_document(&gallery(), &AtomicU32::new(0)).expect("the project opens");
    let mut bench = Workbench::new(Document::default());
    bench.set_document(doc);
    let window = Window {
        bench,
        renderer: GlowViewportRenderer::new(gl.gl.clone()).expect("renderer"),
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, w: &mut Window| w.bench.ui(ui, &mut w.renderer), window);
    // One frame starts the loads; `run` would fail while they keep the progress bar repainting.
    h.step();
    assert!(
        h.state_mut()
            .bench
            .viewport
            .assets
            .wait_until_loaded(Duration::from_secs(60))
    );
    // Frames keep running while the renderer uploads the models (in time-boxed slices, so a
    // loaded machine needs more of them), then settle. A frame comes first: the flag is from
    // the frame before the loads finished, when no model was waiting yet, and checking it
    // then skipped the uploads and left them to `run`'s four steps (it failed so on a loaded
    // machine). The cap only stops a hang.
    for _ in 0..20_000 {
        h.step();
        if !h.state().renderer.models_waiting() {
            break;
        }
    }
    h.run();
    assert!(!h.state().renderer.models_waiting());

    // Look at the tree, then click a point on its trunk: the tree is selected.
    let rect = h
        .state()
        .bench
        .viewport
        .rect()
        .expect("the viewport is shown");
    let size = Vec2::new(rect.width(), rect.height());
    h.state_mut().bench.viewport.viewport.camera = shelf_corner_camera();
    h.run();
    let scene = h.state().bench.viewport.scene().clone();
    let camera = h.state().bench.viewport.viewport.camera.clone();
    let tree = scene.items.iter().find(|i| i.entity == TREE).unwrap();
    let Shape::Model { asset, bounds } = tree.shape else {
        panic!("the tree is a model")
    };
    let model = scene.assets.models[&asset].clone();
    let on_screen = |p: Vec3| {
        let s = camera
            .project(tree.world.transform_point3(p), size)
            .unwrap();
        rect.min + egui::vec2(s.x, s.y)
    };
    // The lowest part of the trunk: a triangle within 30 cm of the ground.
    let trunk = model
        .triangles
        .iter()
        .map(|t| (t[0] + t[1] + t[2]) / 3.0)
        .filter(|c| c.y < bounds.min.y + 0.3)
        .min_by(|a, b| a.y.total_cmp(&b.y))
        .expect("the trunk reaches the ground");
    click_at(&mut h, on_screen(trunk + Vec3::Y * 0.2));
    assert_eq!(h.state().bench.doc.selection.entities(), [TREE]);

    // A point inside the tree's box where the ray meets no leaf (near a corner of the box)
    // hits nothing of the tree: picking tests triangles, not the box.
    let centre = (bounds.min + bounds.max) * 0.5;
    let empty = bounds
        .corners()
        .into_iter()
        .map(|c| centre + (c - centre) * 0.95)
        .find(|&p| {
            let s = on_screen(p) - rect.min;
            let ray = camera.ray(Vec2::new(s.x, s.y), size);
            picking::intersect_shape(&ray, &tree.shape, &tree.world).is_some()
                && picking::intersect_triangles(&ray, &bounds, &model.triangles, &tree.world)
                    .is_none()
        })
        .expect("a corner of the box with no leaf in front or behind");
    click_at(&mut h, on_screen(empty));
    assert!(
        !h.state().bench.doc.selection.contains(TREE),
        "{:?}",
        h.state().bench.doc.selection.entities()
    );

    // Select the tree again; F frames its real bounds (a 1 m placeholder box would not).
    click_at(&mut h, on_screen(trunk + Vec3::Y * 0.2));
    h.hover_at(rect.center());
    h.run();
    h.key_press(egui::Key::F);
    h.run();
    let camera = &h.state().bench.viewport.viewport.camera;
    let world = bounds.transformed(&tree.world);
    let centre = (world.min + world.max) * 0.5;
    assert!(
        camera.target.distance(centre) < 0.01,
        "{} vs {centre}",
        camera.target
    );
    let radius = (world.max - world.min).length() * 0.5;
    assert!(radius > 2.0, "the tree is a few meters tall: {radius}");
    assert!(camera.distance > radius, "{} > {radius}", camera.distance);
}

#[test]
fn load_progress_counts_only_the_open_projects_files() {
    // Found by hand: after the gallery, a plain scene still said "N model files loaded".
    let (_, mut tab) = open_loaded(&gallery());
    let loaded = tab.assets.progress();
    assert!(loaded.ready > 0, "{loaded:?}");
    tab.assets.set_project(None);
    let after = tab.assets.progress();
    assert_eq!((after.total, after.ready, after.missing), (0, 0, 0));
}

#[test]
fn a_model_exported_again_is_drawn_anew_once_read_again() {
    let (_dir, root) = crate::projects::gallery_copy();
    let (doc, mut tab) = open_loaded(&root);
    let gl = headless_gl().expect("surfaceless EGL");
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    let camera = shelf_corner_camera();
    let youtube_red = |c: [u8; 3]| c[0] > 170 && c[1] < 90 && c[2] < 90;
    let scene = tab.scene().clone();
    let logo = screen_rect(&scene, &camera, YOUTUBE);
    let before = render(&mut renderer, &scene, &camera);
    assert!(
        count_in(&before, logo, youtube_red) > 20,
        "the red logo first"
    );
    // The logo's file is replaced with the (white, untextured) shelf, as an artist exporting
    // over it would.
    let asset = match scene
        .items
        .iter()
        .find(|i| i.entity == YOUTUBE)
        .unwrap()
        .shape
    {
        Shape::Model { asset, .. } => asset,
        other => panic!("{other:?}"),
    };
    let file = tab.assets.path(asset).to_path_buf();
    std::fs::copy(root.join("assets/scene/Models/shelf/shelf.glb"), &file).unwrap();
    assert_eq!(tab.assets.reload_changed(), 1);
    assert!(tab.assets.wait_until_loaded(Duration::from_secs(60)));
    let none = HashSet::new();
    let scene = tab.update_scene(&doc, &none, &none, 0.0).clone();
    let after = render(&mut renderer, &scene, &camera);
    after.save("gallery_logo_exported_again");
    assert_eq!(
        count_in(&after, logo, youtube_red),
        0,
        "the new model replaced the old one on the GPU"
    );
}

#[test]
fn a_texture_changed_on_disk_is_drawn_anew_once_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cozy");
    crate::projects::copy_dir(&cozy_house(), &root);
    let (doc, mut tab) = open_loaded(&root);
    let image = Entity(534); // a plane whose Material's texture is art_placeholder.jpg
    let scene = tab.scene().clone();
    let item = scene.items.iter().find(|i| i.entity == image).unwrap();
    let camera = face_on(item);
    let gl = headless_gl().expect("surfaceless EGL");
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    let (x0, y0, x1, y1) = screen_rect(&scene, &camera, image);
    let mean = |img: &Image| {
        let mut sum = [0u64; 3];
        let mut n = 0;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let c = img.px(x, y);
                (0..3).for_each(|i| sum[i] += u64::from(c[i]));
                n += 1;
            }
        }
        sum.map(|s| s / n)
    };
    let before = mean(&render(&mut renderer, &scene, &camera));
    // The image is replaced by another picture (the house's sketch).
    let images = root.join("assets/scene/Images");
    std::fs::copy(
        images.join("sketch_cozy_house_4.jpg"),
        images.join("art_placeholder.jpg"),
    )
    .unwrap();
    assert!(tab.assets.reload_changed() >= 1);
    assert!(tab.assets.wait_until_loaded(Duration::from_secs(60)));
    let none = HashSet::new();
    let scene = tab.update_scene(&doc, &none, &none, 0.0).clone();
    let shown = render(&mut renderer, &scene, &camera);
    shown.save("cozy_image_plane_changed");
    let after = mean(&shown);
    let moved: i64 = (0..3)
        .map(|i| (before[i] as i64 - after[i] as i64).abs())
        .sum();
    assert!(
        moved > 30,
        "the plane shows the new picture: mean {before:?} -> {after:?}"
    );
}

#[test]
fn the_entities_behind_the_status_bars_file_warning_are_the_ones_whose_files_failed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cozy");
    crate::projects::copy_dir(&cozy_house(), &root);
    let (doc, mut tab) = open_loaded(&root);
    let every = || doc.replica().live_entities().collect::<Vec<_>>();
    assert_eq!(tab.entities_with_asset_problems(&doc, every()), []);
    let campfire = Entity(530);
    let Some(ModelState::Loaded { path: model, .. }) = tab.model_state(&doc, campfire) else {
        panic!("the campfire's model loads");
    };
    let image = Entity(534); // a plane whose Material's texture is art_placeholder.jpg
    // The model's file is cut short and the plane's picture is deleted.
    std::fs::write(&model, b"glTF").unwrap();
    std::fs::remove_file(root.join("assets/scene/Images/art_placeholder.jpg")).unwrap();
    assert!(tab.assets.reload_changed() >= 2);
    assert!(tab.assets.wait_until_loaded(Duration::from_secs(60)));
    let mut found = tab.entities_with_asset_problems(&doc, every());
    found.sort();
    let users_of_the_model: Vec<Entity> = every()
        .into_iter()
        .filter(|&e| matches!(tab.model_state(&doc, e), Some(ModelState::Failed { path, .. }) if path == model))
        .collect();
    assert!(users_of_the_model.contains(&campfire));
    let mut expected = users_of_the_model;
    expected.push(image);
    expected.sort();
    assert_eq!(found, expected);
}

#[test]
fn moving_model_entities_updates_their_items_in_place_and_draws_what_a_full_rebuild_draws() {
    use scenetree_editor::Command;
    let (mut doc, mut tab) = open_loaded(&gallery());
    let gl = headless_gl().expect("surfaceless EGL");
    let mut renderer = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    let camera = shelf_corner_camera();
    let first = render(&mut renderer, tab.scene(), &camera);
    // A gizmo drag's step: the textured tree and the untextured shelf move a little.
    let moves = [TREE, SHELF]
        .map(|e| {
            let mut t = doc.local_transform(e);
            t.position += Vec3::new(0.4, 0.3, -0.5);
            t.rotation *= glam::Quat::from_rotation_y(0.3);
            (e, t)
        })
        .to_vec();
    doc.apply_coalesced(Command::SetTransforms(moves), 7)
        .expect("the move applies");
    let none = HashSet::new();
    let (full_builds, incremental) = (tab.full_builds(), tab.incremental_updates());
    let scene = tab.update_scene(&doc, &none, &none, 0.0).clone();
    assert_eq!(
        (tab.full_builds(), tab.incremental_updates()),
        (full_builds, incremental + 1),
        "the tab updated the moved items in place"
    );
    let moved: Vec<Entity> = (scene.changes.as_ref().expect("changes named").items.iter())
        .map(|&i| scene.items[i as usize].entity)
        .collect();
    assert_eq!(moved.len(), 2, "{moved:?}");
    assert!(moved.contains(&TREE) && moved.contains(&SHELF), "{moved:?}");
    // The same items as building all of them again.
    tab.rebuild_next();
    let rebuilt = tab.update_scene(&doc, &none, &none, 0.0).clone();
    assert!(
        rebuilt.items == scene.items,
        "items differ from a full build's"
    );

    let updated = render(&mut renderer, &scene, &camera);
    let stats = renderer.stats();
    assert_eq!(
        (stats.uploads, stats.incremental_updates),
        (1, 1),
        "the models' instances were rewritten, not every instance uploaded again"
    );
    updated.save("gallery_models_moved_incremental");
    assert!(updated.rgba != first.rgba, "the move shows");
    let mut fresh = GlowViewportRenderer::new(gl.gl.clone()).expect("renderer");
    let mut full = scene.clone();
    full.changes = None;
    let expected = render(&mut fresh, &full, &camera);
    expected.save("gallery_models_moved_full");
    assert_eq!(fresh.stats().incremental_updates, 0);
    let differing = (updated.rgba.chunks(4).zip(expected.rgba.chunks(4))).filter(|(a, b)| a != b);
    assert_eq!(
        differing.count(),
        0,
        "pixels that differ from the full rebuild's"
    );
}
