//! Model and texture files as the viewport reads them: real models from the vendored projects,
//! and broken ones, which must give a clear reason and never a panic.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU32;
use std::time::Duration;

use glam::Vec3;
use scenetree::ui::files::load_document;
use scenetree_viewport::models::load::{gltf_to_decentraland, load_model, load_texture};
use scenetree_viewport::models::{AssetLibrary, AssetStatus};

fn gallery_file(rel: &str) -> PathBuf {
    crate::projects::gallery().join(rel)
}

const TREE: &str = "assets/asset-packs/green_sycamore_tree/TreeSycamore_03/TreeSycamore_03.glb";
const BENCH: &str = "assets/scene/Models/beam_bench/beam_bench.glb";

#[test]
fn a_model_is_placed_by_its_nodes_in_decentralands_frame_without_its_colliders() {
    let tree = load_model(&gallery_file(TREE)).expect("the tree loads");
    // The file holds the tree and its `_collider` mesh, each under a node rotated 90° about X
    // and scaled by 0.01; only the tree is drawn, standing upright on y = 0, a few meters tall.
    assert_eq!(tree.stats.parts, 1, "the collider mesh is left out");
    let size = tree.bounds.max - tree.bounds.min;
    assert!(tree.bounds.min.y.abs() < 0.05, "{:?}", tree.bounds);
    assert!(size.y > 2.0 && size.y < 10.0, "{size}");
    assert_eq!(tree.stats.triangles, tree.triangles.len());
    assert_eq!(tree.stats.textures, 1);
    // Every triangle lies in the bounds.
    for t in &tree.triangles {
        for p in t {
            assert!(p.cmpge(tree.bounds.min - 1e-4).all() && p.cmple(tree.bounds.max + 1e-4).all());
        }
    }
}

#[test]
fn gltf_right_handed_models_are_mirrored_in_x_into_left_handed_decentraland() {
    let m = gltf_to_decentraland();
    assert_eq!(
        m.transform_point3(Vec3::new(1.0, 2.0, 3.0)),
        Vec3::new(-1.0, 2.0, 3.0)
    );
    // What the mirror does to a real model: the bench's glTF vertices have +X and −X
    // extents; after loading, its bounds are the mirror image.
    let bench = load_model(&gallery_file(BENCH)).expect("the bench loads");
    assert!(bench.bounds.min.x < 0.0 && bench.bounds.max.x > 0.0);
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn broken_model_files_give_a_reason_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::read(gallery_file(TREE)).unwrap();
    let cases: Vec<(PathBuf, &str)> = vec![
        (dir.path().join("absent.glb"), "cannot read"),
        (write(dir.path(), "empty.glb", b""), "not a valid glTF"),
        (
            write(dir.path(), "text.glb", b"hello, not a model"),
            "not a valid glTF",
        ),
        (write(dir.path(), "half.glb", &real[..real.len() / 2]), ""),
        (write(dir.path(), "header.glb", &real[..40]), ""),
        (
            write(
                dir.path(),
                "noscene.gltf",
                br#"{"asset": {"version": "2.0"}}"#,
            ),
            "no scene",
        ),
        (
            write(
                dir.path(),
                "nobin.gltf",
                br#"{"asset": {"version": "2.0"}, "scenes": [{"nodes": []}],
                     "buffers": [{"uri": "missing.bin", "byteLength": 12}]}"#,
            ),
            "",
        ),
        (
            write(
                dir.path(),
                "empty_scene.gltf",
                br#"{"asset": {"version": "2.0"}, "scenes": [{"nodes": []}]}"#,
            ),
            "no triangles",
        ),
        (
            write(dir.path(), "model.obj", b"v 0 0 0"),
            "not a glTF model",
        ),
    ];
    for (path, expected) in cases {
        let err = load_model(&path)
            .expect_err(&path.display().to_string())
            .to_string();
        assert!(!err.is_empty());
        assert!(err.contains(expected), "{}: {err}", path.display());
    }
    // Every prefix of a real file fails cleanly or loads; none panics out of the loader.
    for cut in (0..real.len()).step_by(real.len() / 40) {
        let path = write(dir.path(), "cut.glb", &real[..cut]);
        let _ = load_model(&path);
    }
    let err = load_texture(&write(dir.path(), "bad.png", b"\x89PNG\r\n\x1a\nnope"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not an image"), "{err}");
}

#[test]
fn a_broken_model_in_a_project_keeps_its_placeholder_and_says_why() {
    // A copy of the gallery whose shelf model is garbage.
    let (_dir, root) = crate::projects::gallery_copy();
    std::fs::write(root.join("assets/scene/Models/shelf/shelf.glb"), b"garbage").unwrap();
    let doc = load_document(&root, &AtomicU32::new(0)).unwrap();
    let mut tab = scenetree::ui::viewport_tab::ViewportTab::default();
    tab.assets.set_project(doc.project.clone());
    let none = Default::default();
    tab.update_scene(&doc, &none, &none, 0.0);
    assert!(tab.assets.wait_until_loaded(Duration::from_secs(60)));
    tab.update_scene(&doc, &none, &none, 0.0);
    let shelf = scenetree_core::model::Entity(521);
    let item = tab
        .scene()
        .items
        .iter()
        .find(|i| i.entity == shelf)
        .unwrap();
    assert_eq!(item.shape, scenetree_viewport::Shape::GltfPlaceholder);
    match tab.model_state(&doc, shelf) {
        Some(scenetree::ui::viewport_tab::ModelState::Failed { path, reason }) => {
            assert!(path.ends_with("shelf.glb"));
            assert!(reason.contains("not a valid glTF"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let progress = tab.assets.progress();
    assert_eq!(progress.failed, 1, "{progress:?}");
    assert_eq!(progress.pending(), 0);
}

#[test]
fn the_library_loads_each_file_once_however_often_it_is_asked() {
    let mut library = AssetLibrary::new();
    let tree = gallery_file(TREE);
    let a = library.request_path(&tree);
    let b = library.request_path(&tree);
    assert_eq!(a, b);
    assert_eq!(library.progress().total, 1);
    assert!(matches!(library.status(a), AssetStatus::Loading));
    assert!(library.wait_until_loaded(Duration::from_secs(60)));
    assert!(library.model(a).is_some());
    // Without a project, a component's src cannot be resolved, and says so.
    let err = library.request_src("assets/x.glb").unwrap_err().to_string();
    assert!(err.contains("project"), "{err}");
}

#[test]
fn a_model_file_changed_on_disk_is_read_again_when_asked_and_the_old_one_drawn_until_then() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.glb");
    std::fs::copy(gallery_file(BENCH), &path).unwrap();
    let mut library = AssetLibrary::new();
    let id = library.request_path(&path);
    assert!(library.wait_until_loaded(Duration::from_secs(60)));
    let bench = library.model(id).unwrap().clone();
    assert_eq!(library.reload_changed(), 0, "nothing changed");
    // Exported again (another self-contained model at the same path).
    std::fs::copy(gallery_file("assets/scene/Models/shelf/shelf.glb"), &path).unwrap();
    assert_eq!(library.reload_changed(), 1);
    assert_eq!(library.reload_changed(), 0, "already being read again");
    assert!(
        std::sync::Arc::ptr_eq(library.model(id).unwrap(), &bench),
        "the old model is drawn until the new one is in"
    );
    assert!(library.wait_until_loaded(Duration::from_secs(60)));
    let shelf = match library.status(id) {
        AssetStatus::Ready(_) => library.model(id).unwrap().clone(),
        other => panic!("{other:?}"),
    };
    assert!(!std::sync::Arc::ptr_eq(&shelf, &bench));
    assert_ne!(shelf.triangles.len(), bench.triangles.len());
    assert_eq!(library.reload_changed(), 0, "read as it is now");
    // Saved half-written: the reason is shown, and the next good save is read again.
    std::fs::write(&path, b"glTF, cut short").unwrap();
    assert_eq!(library.reload_changed(), 1);
    assert!(library.wait_until_loaded(Duration::from_secs(60)));
    assert!(matches!(library.status(id), AssetStatus::Failed(_)));
    std::fs::copy(gallery_file(BENCH), &path).unwrap();
    assert_eq!(library.reload_changed(), 1);
    assert!(library.wait_until_loaded(Duration::from_secs(60)));
    assert_eq!(
        library.model(id).unwrap().triangles.len(),
        bench.triangles.len()
    );
}

/// A one-triangle .gltf whose vertices are in `tri.bin` beside it.
fn gltf_with_external_buffer(dir: &Path) -> PathBuf {
    let json = r#"{
  "asset": {"version": "2.0"},
  "scene": 0,
  "scenes": [{"nodes": [0]}],
  "nodes": [{"mesh": 0}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
  "buffers": [{"uri": "tri.bin", "byteLength": 36}],
  "bufferViews": [{"buffer": 0, "byteLength": 36}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                 "min": [0, 0, 0], "max": [9, 9, 0]}]
}"#;
    write(dir, "tri.gltf", json.as_bytes())
}

/// Writes the triangle (0,0,0), (size,0,0), (0,size,0) into `tri.bin`.
fn write_triangle(dir: &Path, size: f32) {
    let corners = [0.0, 0.0, 0.0, size, 0.0, 0.0, 0.0, size, 0.0f32];
    let bytes: Vec<u8> = corners.iter().flat_map(|c| c.to_le_bytes()).collect();
    write(dir, "tri.bin", &bytes);
}

#[test]
fn a_gltf_is_read_again_when_a_file_it_names_changes_or_appears() {
    let dir = tempfile::tempdir().unwrap();
    let path = gltf_with_external_buffer(dir.path());
    write_triangle(dir.path(), 1.0);
    let mut library = AssetLibrary::new();
    let id = library.request_path(&path);
    assert!(library.wait_until_loaded(Duration::from_secs(60)));
    let model = library.model(id).unwrap().clone();
    assert_eq!(model.dependencies, [dir.path().join("tri.bin")]);
    let width = |m: &scenetree_viewport::models::load::LoadedModel| m.bounds.max.y - m.bounds.min.y;
    assert!((width(&model) - 1.0).abs() < 1e-5);
    assert_eq!(library.reload_changed(), 0, "nothing changed");

    // The buffer is written again (the .gltf is not): the model is read again. Its new
    // modification time is set, not waited for (a file system may keep coarse times).
    write_triangle(dir.path(), 3.0);
    let later = std::time::SystemTime::now() + Duration::from_secs(60);
    let buffer = std::fs::File::options()
        .write(true)
        .open(dir.path().join("tri.bin"));
    buffer.unwrap().set_modified(later).unwrap();
    assert_eq!(library.reload_changed(), 1);
    assert!(library.wait_until_loaded(Duration::from_secs(60)));
    assert!((width(library.model(id).unwrap()) - 3.0).abs() < 1e-5);

    // Gone: the reason names it; back: read again without touching the .gltf.
    std::fs::remove_file(dir.path().join("tri.bin")).unwrap();
    assert_eq!(library.reload_changed(), 1);
    assert!(library.wait_until_loaded(Duration::from_secs(60)));
    match library.status(id) {
        AssetStatus::Failed(why) => assert!(why.to_string().contains("tri.bin"), "{why}"),
        other => panic!("{other:?}"),
    }
    write_triangle(dir.path(), 2.0);
    assert_eq!(library.reload_changed(), 1, "the missing file appeared");
    assert!(library.wait_until_loaded(Duration::from_secs(60)));
    assert!((width(library.model(id).unwrap()) - 2.0).abs() < 1e-5);
}
