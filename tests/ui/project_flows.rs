//! Whole-window flows with Decentraland projects: opening a project folder (title, recent
//! projects, models loading with progress), saving it as main.composite plus main.crdt, a
//! broken scene.json, the bundled Cozy House example.

use std::path::PathBuf;
use std::time::Duration;

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::ui::app::{Launch, ScenetreeApp, cozy_house_dir};
use scenetree_core::model::{Entity, Transform, ids};
use scenetree_dcl::io;
use scenetree_editor::Command;
use scenetree_viewport::NullRenderer;

use crate::projects::{gallery, gallery_copy};

pub(crate) fn app_with(file: Option<PathBuf>) -> Harness<'static, ScenetreeApp> {
    let ctx = egui::Context::default();
    let launch = Launch {
        file,
        ..Launch::default()
    };
    let app = ScenetreeApp::with_storage(&ctx, launch, None, None);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, app: &mut ScenetreeApp| app.draw(ui, &mut NullRenderer::default()),
            app,
        );
    settle(&mut h);
    h
}

/// Runs frames until the scene and every model it names have loaded (or failed).
pub(crate) fn settle(h: &mut Harness<'static, ScenetreeApp>) {
    for _ in 0..6000 {
        h.step();
        let app = h.state();
        let assets = &app.workbench().viewport.assets;
        let models_pending = assets.progress().pending() > 0 || assets.is_reloading();
        if !app.is_loading() && !app.is_saving() && !models_pending {
            h.run_steps(3);
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("loading never finished");
}

#[test]
fn a_project_folder_opens_its_scene_with_its_title_models_and_a_recent_entry() {
    let mut h = app_with(Some(gallery()));
    let app = h.state();
    let doc = &app.workbench().doc;
    assert!(doc.saves_as_project);
    assert!(
        doc.file
            .as_ref()
            .is_some_and(|f| f.path.ends_with("assets/scene/main.composite"))
    );
    assert_eq!(app.title(), "Art Gallery Template — scenetree");
    // The scene summary names the project.
    assert!(h.query_by_label("Art Gallery Template").is_some());
    // The status bar: models loaded, the missing building counted.
    let progress = h.state().workbench().viewport.assets.progress();
    assert_eq!(
        (progress.pending(), progress.missing),
        (0, 1),
        "{progress:?}"
    );
    // Its row in the hierarchy says so, and only its row.
    assert_eq!(h.query_all_by_label("△ file").count(), 1);
    assert_eq!(
        h.state().workbench().hierarchy.file_problems,
        [Entity(523)].into()
    );
    // Clicking the warning selects the building, and the inspector shows why it is a box.
    h.get_by_label_contains("1 model or texture file(s) missing or unreadable")
        .click();
    h.run();
    assert_eq!(
        h.state().workbench().doc.selection.entities(),
        [Entity(523)]
    );
    assert!(
        h.query_by_label_contains("Selected the entity whose model or texture did not load")
            .is_some()
    );
    assert!(
        h.query_by_label_contains("art_gallery.glb does not exist")
            .is_some()
    );
    // Opening a file from a project remembers the project's folder.
    let recent = h.state().recent().to_vec();
    assert_eq!(recent[0], gallery().canonicalize().unwrap());
}

#[test]
fn saving_a_project_writes_main_composite_and_the_matching_main_crdt() {
    let (_dir, root) = gallery_copy();
    let mut h = app_with(Some(root.clone()));
    let shelf = Entity(521);
    let mut moved = h.state().workbench().doc.local_transform(shelf);
    moved.position.y += 1.25;
    h.state_mut()
        .workbench_mut()
        .doc
        .apply(Command::SetTransforms(vec![(shelf, moved)]))
        .unwrap();
    h.run();
    assert!(h.state().title().contains('•'), "{}", h.state().title());
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Saved the project Art Gallery Template")
            .is_some()
    );
    assert!(!h.state().title().contains('•'));
    for file in ["assets/scene/main.composite", "main.crdt"] {
        let replica = io::load_scene(&root.join(file)).unwrap();
        let t = Transform::from_bytes(replica.component_data(shelf, ids::TRANSFORM).unwrap());
        assert_eq!(t.unwrap().position, moved.position, "{file}");
    }
}

#[test]
fn a_broken_scene_json_opens_the_project_with_a_note() {
    let (_dir, root) = gallery_copy();
    std::fs::write(root.join("scene.json"), "{ \"display\": ").unwrap();
    let h = app_with(Some(root.join("assets/scene/Models")));
    assert!(h.state().workbench().doc.saves_as_project);
    assert_eq!(
        h.state().title(),
        "gallery — scenetree",
        "the folder names it"
    );
    assert!(
        h.query_by_label_contains("scene.json: not valid JSON at line 1")
            .is_some()
    );
}

#[test]
fn a_project_whose_main_crdt_is_damaged_offers_its_readable_messages_in_the_project() {
    let (_dir, root) = gallery_copy();
    std::fs::remove_file(root.join("assets/scene/main.composite")).unwrap();
    let crdt = root.join("main.crdt");
    let whole = std::fs::read(&crdt).unwrap();
    std::fs::write(&crdt, &whole[..whole.len() / 2]).unwrap();
    let mut h = app_with(Some(root.clone()));
    assert!(h.query_by_label_contains("can still be read").is_some());
    // Found by hand: the folder is a project, so opening its main.crdt alone is no way out
    // (it fails the same); only a folder that is not a project offers its scene file.
    assert!(h.query_by_label("Open main.crdt").is_none());
    h.get_by_label_contains("readable message(s)").click();
    settle(&mut h);
    let doc = &h.state().workbench().doc;
    assert!(doc.replica().live_entity_count() > 0);
    assert!(
        doc.file.is_none() && !doc.saves_as_project,
        "a save asks where"
    );
    assert_eq!(
        h.state().title(),
        "Untitled (Art Gallery Template) • — scenetree"
    );
    let readable = doc.replica().digest();

    // Ctrl+S asks where, proposing a name beside the damaged file; the user accepts it.
    fn accepts_the_suggestion(pick: &scenetree::ui::file_dialog::FilePick) -> Option<PathBuf> {
        assert_eq!(
            pick.purpose,
            scenetree::ui::file_dialog::DialogPurpose::SaveAs
        );
        pick.suggested.clone()
    }
    h.state_mut().set_native_file_picker(accepts_the_suggestion);
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    for _ in 0..500 {
        h.step();
        if h.state().workbench().doc.file.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let saved = root.join("main-recovered.crdt");
    assert_eq!(
        h.state().workbench().doc.file.as_ref().map(|f| &f.path),
        Some(&saved)
    );
    let reread = io::open_scene(&saved).unwrap().replica;
    assert_eq!(reread.digest(), readable);
    assert_eq!(
        std::fs::read(&crdt).unwrap(),
        whole[..whole.len() / 2],
        "left as it is"
    );
}

#[test]
fn the_cozy_house_example_opens_with_every_model_and_saves_only_where_asked() {
    assert!(cozy_house_dir().is_dir());
    let mut h = app_with(None);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label_contains("Open Example").hover();
    h.run();
    h.get_by_label_contains("Cozy House").click();
    settle(&mut h);
    let app = h.state();
    let doc = &app.workbench().doc;
    assert_eq!(doc.file, None, "the bundled copy is never saved over");
    assert!(doc.project.is_some());
    let progress = app.workbench().viewport.assets.progress();
    assert_eq!(progress.failed + progress.missing, 0, "{progress:?}");
    assert!(progress.ready >= 26, "{progress:?}");
    assert!(app.recent().is_empty(), "examples are not recent files");
}

#[test]
fn ctrl_shift_o_picks_a_project_folder_and_opens_it() {
    fn picks_the_gallery(pick: &scenetree::ui::file_dialog::FilePick) -> Option<PathBuf> {
        assert_eq!(
            pick.purpose,
            scenetree::ui::file_dialog::DialogPurpose::OpenProject
        );
        Some(gallery())
    }
    let mut h = app_with(None);
    h.state_mut().set_native_file_picker(picks_the_gallery);
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::O);
    for _ in 0..500 {
        h.step();
        if h.state().workbench().doc.project.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    settle(&mut h);
    assert_eq!(h.state().title(), "Art Gallery Template — scenetree");
}

/// A file dragged from a file manager (egui leaves the file type to the integration).
#[derive(Debug)]
struct DroppedPath(PathBuf);

impl egui::DroppedFile for DroppedPath {
    fn path(&self) -> &std::path::Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

/// Drops files on the window, as a file manager does.
fn drop_files(h: &mut Harness<'static, ScenetreeApp>, files: &[PathBuf]) {
    h.input_mut().dropped_files.extend(
        (files.iter())
            .map(|f| std::sync::Arc::new(DroppedPath(f.clone())) as egui::DroppedFileHandle),
    );
    h.step();
    h.step();
}

#[test]
fn a_model_dropped_on_the_window_is_added_where_the_view_looks_and_saved_as_the_inspector_would() {
    use scenetree_dcl::GltfModel;
    let (dir, root) = gallery_copy();
    let mut h = app_with(Some(root.clone()));
    let before: Vec<Entity> = h.state().workbench().doc.view().entities().collect();
    let looked_at = h.state().workbench().viewport.placement_point();
    drop_files(&mut h, &[root.join("assets/scene/Models/shelf/shelf.glb")]);
    let doc = &h.state().workbench().doc;
    let added: Vec<Entity> = (doc.view().entities())
        .filter(|e| !before.contains(e))
        .collect();
    assert_eq!(added.len(), 1, "one entity for one model");
    let model = added[0];
    assert_eq!(
        doc.selection.entities(),
        &[model],
        "the new entity is selected"
    );
    assert_eq!(doc.name_of(model).as_deref(), Some("shelf"));
    assert_eq!(doc.local_transform(model).position, looked_at);
    let gltf = GltfModel::decode(
        doc.replica()
            .component_data(model, ids::GLTF_CONTAINER)
            .unwrap(),
    );
    assert_eq!(
        gltf.map(|g| g.src).as_deref(),
        Some("assets/scene/Models/shelf/shelf.glb")
    );
    assert_eq!(doc.history().undo_label(), Some("Create shelf"));
    // Saved: main.composite holds it, entity-names.ts names it.
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    let saved = io::load_scene(&root.join("assets/scene/main.composite")).unwrap();
    assert!(saved.component_data(model, ids::GLTF_CONTAINER).is_some());
    let names = std::fs::read_to_string(root.join("assets/scene/entity-names.ts")).unwrap();
    assert!(names.contains("shelf = \"shelf\""), "{names}");
    // Undone like any creation.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.step();
    assert!(!h.state().workbench().doc.view().contains(model));
    // A model outside the project cannot be named by the scene: said, nothing added.
    let outside = dir.path().join("elsewhere.glb");
    std::fs::copy(root.join("assets/scene/Models/shelf/shelf.glb"), &outside).unwrap();
    let count = h.state().workbench().doc.view().entities().count();
    drop_files(&mut h, &[outside]);
    assert!(h.query_by_label_contains("copy the file into").is_some());
    assert_eq!(h.state().workbench().doc.view().entities().count(), count);
}

/// The model the stand-in file dialog of the next test picks (a picker is a plain function).
static MODEL_TO_PICK: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);

#[test]
fn add_model_picks_a_model_of_the_project_starting_in_its_assets() {
    fn picks_the_model(pick: &scenetree::ui::file_dialog::FilePick) -> Option<PathBuf> {
        assert_eq!(
            pick.purpose,
            scenetree::ui::file_dialog::DialogPurpose::AddModel
        );
        let model = MODEL_TO_PICK.lock().unwrap().clone().unwrap();
        let root = model.ancestors().nth(5).unwrap().to_path_buf();
        let start = pick.suggested.as_ref().and_then(|s| s.parent());
        assert_eq!(start, Some(root.join("assets").as_path()));
        Some(model)
    }
    let (_dir, root) = gallery_copy();
    let model = root.join("assets/scene/Models/beam_bench/beam_bench.glb");
    *MODEL_TO_PICK.lock().unwrap() = Some(model);
    let mut h = app_with(Some(root.clone()));
    h.state_mut().set_native_file_picker(picks_the_model);
    let before = h.state().workbench().doc.view().entities().count();
    h.get_by_label("Edit").click();
    h.step();
    h.get_by_label_contains("Add Model…").click();
    for _ in 0..500 {
        h.step();
        if h.state().workbench().doc.view().entities().count() > before {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let doc = &h.state().workbench().doc;
    assert_eq!(doc.view().entities().count(), before + 1);
    let added = doc.selection.entities()[0];
    let gltf = scenetree_dcl::GltfModel::decode(
        doc.replica()
            .component_data(added, ids::GLTF_CONTAINER)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(gltf.src, "assets/scene/Models/beam_bench/beam_bench.glb");
    assert!(
        doc.name_of(added).unwrap().starts_with("beam_bench"),
        "{:?}",
        doc.name_of(added)
    );
}

#[test]
fn things_are_placed_where_the_centre_of_the_view_meets_the_scene_or_the_ground() {
    use glam::Vec3;
    use scenetree_viewport::OrbitCamera;
    // The gallery opens framed: the centre of the view meets a surface or the ground, never
    // a point in the air behind them.
    let (_dir, root) = gallery_copy();
    let h = app_with(Some(root));
    let tab = &h.state().workbench().viewport;
    let camera = tab.viewport.camera.clone();
    let point = tab.placement_point();
    let towards = (point - camera.eye()).normalize();
    assert!(
        towards.dot(camera.forward()) > 0.999,
        "on the view's centre line"
    );
    assert!(point.y > -1e-3, "not below the ground: {point}");
    // An empty scene: the ground, or the pivot when the camera looks up.
    let mut empty = scenetree::ui::viewport_tab::ViewportTab::default();
    empty.viewport.camera = OrbitCamera {
        target: Vec3::new(3.0, 2.0, 4.0),
        pitch: -0.5,
        ..OrbitCamera::default()
    };
    let on_ground = empty.placement_point();
    assert!(on_ground.y.abs() < 1e-3, "{on_ground}");
    empty.viewport.camera.pitch = 0.4;
    assert_eq!(empty.placement_point(), Vec3::new(3.0, 2.0, 4.0));
}

#[test]
fn a_hidden_entitys_missing_model_gets_its_badge_once_the_inspector_has_looked_for_it() {
    // The gallery's main.crdt outside its project: no model file can be found. Admin Tools
    // (535) is invisible (`VisibilityComponent { visible: false }`), so the viewport never
    // asks for its model; the inspector does when it is selected, and from then on the status
    // bar counts the file and the row carries the badge, as for every other such entity.
    let crdt = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/dcl/art-gallery-template/main.crdt");
    let mut h = app_with(Some(crdt));
    let admin_tools = Entity(535);
    let badges = |h: &Harness<'static, ScenetreeApp>| h.query_all_by_label("△ file").count();
    let before = badges(&h);
    assert!(before > 0);
    assert!(
        !h.state()
            .workbench()
            .hierarchy
            .file_problems
            .contains(&admin_tools)
    );
    h.get_by_label("Admin Tools  ·  535").click();
    h.run();
    assert!(
        h.query_all_by_label_contains("admin_toolkit.glb").count() > 0,
        "the inspector says why"
    );
    assert!(
        h.state()
            .workbench()
            .hierarchy
            .file_problems
            .contains(&admin_tools)
    );
    assert_eq!(badges(&h), before + 1);
}
