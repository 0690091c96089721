//! Another program changing the document's file while it is open (the Decentraland Inspector
//! autosaving main.composite, a text editor, git): the bar that says so, Reload from Disk,
//! and the question before a save replaces their changes.

use std::path::Path;
use std::time::{Duration, Instant};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::ui::app::{Launch, ScenetreeApp};
use scenetree_core::examples::showroom;
use scenetree_core::model::{Entity, decode_name, encode_name, ids};
use scenetree_dcl::io;
use scenetree_editor::Command;

use super::app_flows::{app, rename_lamp, settle};

const LAMP: Entity = Entity(519);
const SHELF: Entity = Entity(521);
/// The art gallery's shelf (entity "shelf.glb", drawn by Models/shelf/shelf.glb).
const GALLERY_SHELF: Entity = Entity(521);
const CHANGED: &str = "was changed on disk by another program";

/// The showroom saved at `path` and opened in the app.
pub(crate) fn app_on_showroom(path: &Path) -> Harness<'static, ScenetreeApp> {
    io::save_scene(&showroom(), path).unwrap();
    app(
        Launch {
            file: Some(path.to_path_buf()),
            ..Launch::default()
        },
        None,
    )
}

/// Another program saves the showroom at `path` with the shelf renamed.
fn they_rename_the_shelf(path: &Path, name: &str) {
    let mut theirs = showroom();
    theirs.put(SHELF, ids::NAME, encode_name(name)).unwrap();
    io::save_scene(&theirs, path).unwrap();
}

pub(crate) fn name_in_editor(h: &Harness<'static, ScenetreeApp>, entity: Entity) -> Option<String> {
    let doc = &h.state().workbench().doc;
    decode_name(doc.replica().component_data(entity, ids::NAME)?)
}

pub(crate) fn name_on_disk(path: &Path, entity: Entity) -> Option<String> {
    decode_name(
        io::load_scene(path)
            .unwrap()
            .component_data(entity, ids::NAME)?,
    )
}

/// The window gets the keyboard focus back (the user returns from the other program).
fn focus_window(h: &mut Harness<'static, ScenetreeApp>) {
    h.event(egui::Event::WindowFocused(true));
    h.run();
}

fn bar_shown(h: &Harness<'static, ScenetreeApp>) -> bool {
    h.query_by_label_contains(CHANGED).is_some()
}

/// How often the watcher looks while a test waits on it (the app's own is once a second).
const QUICK_LOOKS: Duration = Duration::from_millis(20);
/// The longest a test waits for the watcher: generous for a busy CI machine.
const WATCH_DEADLINE: Duration = Duration::from_secs(20);

/// Runs frames, without any input, until the changed-on-disk bar shows.
fn wait_for_bar(h: &mut Harness<'static, ScenetreeApp>) {
    h.state_mut().set_disk_watch_interval(QUICK_LOOKS);
    let deadline = Instant::now() + WATCH_DEADLINE;
    while !bar_shown(h) {
        assert!(Instant::now() < deadline, "the change was never noticed");
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
}

/// Runs frames, without input, until the watcher has looked at the document's file twice
/// more (a look under way may have begun before the call), so it has seen the file as it is
/// now and the window has taken what it saw.
fn watcher_looks_again(h: &mut Harness<'static, ScenetreeApp>) {
    h.state_mut().set_disk_watch_interval(QUICK_LOOKS);
    let from = h.state().disk_watch_looks();
    let deadline = Instant::now() + WATCH_DEADLINE;
    while h.state().disk_watch_looks() < from + 2 {
        assert!(
            Instant::now() < deadline,
            "the watcher never looked at the file"
        );
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    h.step();
}

#[test]
fn a_change_on_disk_shows_a_bar_and_reload_reads_the_file_keeping_the_selection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("showroom.json");
    let mut h = app_on_showroom(&path);
    h.state_mut().workbench_mut().doc.selection.set([LAMP]);
    they_rename_the_shelf(&path, "Their shelf");
    // Nobody touches the window: the watcher notices on its own within a second or two.
    wait_for_bar(&mut h);
    assert_ne!(name_in_editor(&h, SHELF).as_deref(), Some("Their shelf"));
    h.get_by_label("Reload").click();
    h.step(); // the load shows its progress, repainting until done
    settle(&mut h);
    assert_eq!(name_in_editor(&h, SHELF).as_deref(), Some("Their shelf"));
    let doc = &h.state().workbench().doc;
    assert!(!doc.is_modified());
    assert_eq!(doc.selection.entities(), &[LAMP], "the selection stays");
    assert!(!bar_shown(&h));
    assert!(
        h.query_by_label_contains("Reloaded showroom.json from disk")
            .is_some()
    );
    // The reloaded file is the editor's again: saving does not ask.
    rename_lamp(&mut h, "Desk lamp");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    assert!(h.query_by_label("The file changed on disk").is_none());
    assert_eq!(name_on_disk(&path, LAMP).as_deref(), Some("Desk lamp"));
    assert_eq!(name_on_disk(&path, SHELF).as_deref(), Some("Their shelf"));
}

#[test]
fn reloading_over_unsaved_changes_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("showroom.json");
    let mut h = app_on_showroom(&path);
    rename_lamp(&mut h, "Desk lamp");
    they_rename_the_shelf(&path, "Their shelf");
    for answer in ["Cancel", "Discard changes and reload"] {
        h.get_by_label("File").click();
        h.run();
        h.get_by_label_contains("Reload from Disk").click();
        h.run();
        assert!(
            h.query_by_label("Reload and lose your changes?").is_some(),
            "{answer}: asked before dropping unsaved changes"
        );
        h.get_by_label(answer).click();
        h.step(); // the load shows its progress, repainting until done
        settle(&mut h);
        assert!(h.query_by_label("Reload and lose your changes?").is_none());
    }
    // Cancel kept the change; Reload dropped it and read their file.
    assert_eq!(name_in_editor(&h, LAMP).as_deref(), Some("Lamp"));
    assert_eq!(name_in_editor(&h, SHELF).as_deref(), Some("Their shelf"));
    assert!(!h.state().workbench().doc.is_modified());
}

#[test]
fn keep_this_version_hides_the_bar_until_the_file_changes_again_and_a_save_still_asks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("showroom.json");
    let mut h = app_on_showroom(&path);
    focus_window(&mut h);
    assert!(!bar_shown(&h), "nothing changed yet");
    they_rename_the_shelf(&path, "Their shelf");
    focus_window(&mut h);
    assert!(bar_shown(&h), "noticed when the window is focused again");
    h.get_by_label("Keep this version").click();
    h.run();
    focus_window(&mut h);
    assert!(!bar_shown(&h), "kept: not shown again for the same change");
    they_rename_the_shelf(&path, "Their other shelf");
    focus_window(&mut h);
    assert!(bar_shown(&h), "a new change is shown");
    h.get_by_label("Keep this version").click();
    h.run();
    rename_lamp(&mut h, "Desk lamp");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    assert!(
        h.query_by_label("The file changed on disk").is_some(),
        "keeping this version does not agree to overwrite theirs"
    );
    h.get_by_label("Save anyway").click();
    settle(&mut h);
    assert_eq!(name_on_disk(&path, LAMP).as_deref(), Some("Desk lamp"));
    focus_window(&mut h);
    assert!(!bar_shown(&h));
    // A file that disappears is said once; Save writes it again.
    std::fs::remove_file(&path).unwrap();
    focus_window(&mut h);
    assert!(h.query_by_label_contains("is no longer on disk").is_some());
    h.get_by_label("Dismiss").click();
    h.run();
    focus_window(&mut h);
    assert!(h.query_by_label_contains("is no longer on disk").is_none());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    assert_eq!(name_on_disk(&path, LAMP).as_deref(), Some("Desk lamp"));
}

#[test]
fn reloading_a_project_reads_the_project_again() {
    use super::project_flows::{app_with, settle as settle_with_models};
    let (_dir, root) = super::projects::gallery_copy();
    let mut h = app_with(Some(root.clone()));
    let composite = root.join("assets/scene/main.composite");
    let before = std::fs::read_to_string(&composite).unwrap();
    let theirs = before.replacen("\"Elevator\"", "\"Their lift\"", 1);
    assert_ne!(before, theirs, "the gallery names an entity Elevator");
    std::fs::write(&composite, theirs).unwrap();
    // Models keep the window repainting while they load: step, not run.
    h.event(egui::Event::WindowFocused(true));
    h.step();
    h.get_by_label("Reload").click();
    h.step();
    settle_with_models(&mut h);
    let doc = &h.state().workbench().doc;
    assert!(doc.saves_as_project, "still the project's scene");
    assert!(doc.project.is_some());
    let names: Vec<String> = (doc.view().entities())
        .filter_map(|e| decode_name(doc.replica().component_data(e, ids::NAME)?))
        .collect();
    assert!(names.iter().any(|n| n == "Their lift"), "{names:?}");
    assert!(!names.iter().any(|n| n == "Elevator"));
}

#[test]
fn saving_over_a_file_another_program_changed_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("showroom.json");
    io::save_scene(&scenetree_core::examples::showroom(), &path).unwrap();
    let launch = Launch {
        file: Some(path.clone()),
        ..Launch::default()
    };
    let mut h = app(launch, None);
    // Another program (the Inspector, a text editor, git) rewrites the file…
    let mut theirs = scenetree_core::examples::showroom();
    theirs
        .put(
            Entity(521),
            scenetree_core::model::ids::NAME,
            scenetree_core::model::encode_name("Their shelf"),
        )
        .unwrap();
    io::save_scene(&theirs, &path).unwrap();
    let their_bytes = std::fs::read(&path).unwrap();
    // …while the editor holds an unsaved change.
    rename_lamp(&mut h, "Desk lamp");
    let lamp_name = |path: &std::path::Path| {
        let saved = io::load_scene(path).unwrap();
        scenetree_core::model::decode_name(
            saved
                .component_data(Entity(519), scenetree_core::model::ids::NAME)
                .unwrap(),
        )
    };
    for answer in ["Cancel", "Save anyway"] {
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
        settle(&mut h);
        assert!(
            h.query_by_label("The file changed on disk").is_some(),
            "{answer}: asked before replacing their changes"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            their_bytes,
            "nothing written yet"
        );
        h.get_by_label(answer).click();
        h.run();
        assert!(h.query_by_label("The file changed on disk").is_none());
        let doc = &h.state().workbench().doc;
        if answer == "Cancel" {
            assert_eq!(std::fs::read(&path).unwrap(), their_bytes);
            assert!(doc.is_modified());
        } else {
            assert_eq!(lamp_name(&path).as_deref(), Some("Desk lamp"));
            assert!(!doc.is_modified());
        }
    }
    // Once saved, the file is the editor's again: the next save does not ask.
    rename_lamp(&mut h, "Floor lamp");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    assert!(h.query_by_label("The file changed on disk").is_none());
    assert_eq!(lamp_name(&path).as_deref(), Some("Floor lamp"));
}

#[test]
fn recovered_project_work_stays_the_projects_and_asks_before_replacing_a_newer_file() {
    use super::app_flows::unsettled_app;
    use super::project_flows::settle as settle_with_models;
    let (dir, root) = super::projects::gallery_copy();
    let recovery = dir.path().join("recovery");
    let open_project = |recovery: &Path| {
        let mut h = unsettled_app(
            Launch {
                file: Some(root.clone()),
                ..Launch::default()
            },
            Some(recovery.to_path_buf()),
        );
        settle_with_models(&mut h);
        h
    };
    let entity_named = |h: &Harness<'static, ScenetreeApp>, name: &str| {
        let doc = &h.state().workbench().doc;
        doc.view()
            .entities()
            .find(|&e| doc.name_of(e).as_deref() == Some(name))
    };
    // An editor renames the elevator, autosaves, and crashes.
    let mut h = open_project(&recovery);
    h.state_mut()
        .set_autosave_timing(Duration::from_secs(3600), Duration::ZERO);
    let elevator = entity_named(&h, "Elevator").expect("the gallery has an Elevator");
    h.state_mut()
        .workbench_mut()
        .doc
        .apply(scenetree_editor::Command::Rename {
            entity: elevator,
            name: "Lift".into(),
        })
        .unwrap();
    h.step();
    drop(h);
    // Meanwhile another program (the Inspector) saves the project.
    let composite = root.join("assets/scene/main.composite");
    let theirs = std::fs::read_to_string(&composite).unwrap().replacen(
        "\"Ostrich Ferns\"",
        "\"Their ferns\"",
        1,
    );
    std::fs::write(&composite, &theirs).unwrap();
    // The next start offers the work back, as the project's scene, once the watcher has looked
    // at the file as the start read it.
    let mut h = open_project(&recovery);
    watcher_looks_again(&mut h);
    h.get_by_label("Recover").click();
    h.step();
    settle_with_models(&mut h);
    // The watcher tells that the file changed after the work was autosaved.
    wait_for_bar(&mut h);
    let doc = &h.state().workbench().doc;
    assert!(doc.is_modified());
    assert_eq!(doc.name_of(elevator).as_deref(), Some("Lift"));
    assert!(
        doc.saves_as_project,
        "saved as the project, not a lone composite"
    );
    let project = doc
        .project
        .as_ref()
        .expect("its project, whose models it draws");
    assert_eq!(project.root, root);
    // Their save came after the autosave: replacing it is asked first.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    assert!(h.query_by_label("The file changed on disk").is_some());
    assert_eq!(std::fs::read_to_string(&composite).unwrap(), theirs);
    h.get_by_label("Save anyway").click();
    settle(&mut h);
    let saved = std::fs::read_to_string(&composite).unwrap();
    assert!(saved.contains("\"Lift\""));
    let names = std::fs::read_to_string(root.join("assets/scene/entity-names.ts")).unwrap();
    assert!(
        names.contains("Lift = "),
        "the project's files are written: {names}"
    );
}

#[test]
fn models_changed_on_disk_are_read_again_when_the_window_is_focused() {
    use super::project_flows::{app_with, settle as settle_with_models};
    let (_dir, root) = super::projects::gallery_copy();
    let mut h = app_with(Some(root.clone()));
    let models = root.join("assets/scene/Models");
    std::fs::copy(
        models.join("beam_bench/beam_bench.glb"),
        models.join("shelf/shelf.glb"),
    )
    .unwrap();
    h.event(egui::Event::WindowFocused(true));
    h.step();
    assert!(
        h.query_by_label_contains("Reading 1 changed model or texture file(s) again")
            .is_some()
    );
    settle_with_models(&mut h);
    let viewport = &h.state().workbench().viewport;
    let shelf = (viewport.scene().items.iter())
        .find(|i| i.entity == GALLERY_SHELF)
        .map(|i| i.shape);
    let Some(scenetree_viewport::Shape::Model { asset: shelf, .. }) = shelf else {
        panic!("the shelf is drawn as its model: {shelf:?}");
    };
    let assets = &viewport.assets;
    let bench =
        scenetree_viewport::models::load::load_model(&models.join("beam_bench/beam_bench.glb"))
            .unwrap();
    assert_eq!(
        assets.model(shelf).unwrap().triangles.len(),
        bench.triangles.len(),
        "the shelf's file now holds the bench"
    );
}

#[test]
fn a_file_whose_folder_is_gone_points_to_save_as() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("scenes");
    std::fs::create_dir(&folder).unwrap();
    let mut h = app_on_showroom(&folder.join("showroom.json"));
    std::fs::remove_dir_all(&folder).unwrap();
    focus_window(&mut h);
    assert!(
        h.query_by_label_contains("Its folder is gone too: use Save As…")
            .is_some()
    );
}

#[test]
fn a_missing_model_added_to_the_project_is_drawn_once_the_window_is_focused() {
    use super::project_flows::{app_with, settle as settle_with_models};
    use scenetree_viewport::Shape;
    // The gallery building's model is missing from the project (as in its source snapshot).
    let building = Entity(523);
    let (_dir, root) = super::projects::gallery_copy();
    let mut h = app_with(Some(root.clone()));
    let shape = |h: &Harness<'static, ScenetreeApp>| {
        (h.state().workbench().viewport.scene().items.iter())
            .find(|i| i.entity == building)
            .map(|i| i.shape)
    };
    assert_eq!(shape(&h), Some(Shape::GltfPlaceholder));
    assert!(h.query_by_label("△ file").is_some());
    let folder = root.join("assets/scene/Models/art_gallery");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        root.join("assets/scene/Models/shelf/shelf.glb"),
        folder.join("art_gallery.glb"),
    )
    .unwrap();
    h.event(egui::Event::WindowFocused(true));
    h.step();
    settle_with_models(&mut h);
    assert!(
        matches!(shape(&h), Some(Shape::Model { .. })),
        "{:?}",
        shape(&h)
    );
    assert!(
        h.query_by_label("△ file").is_none(),
        "the row's badge goes with the problem"
    );
}

#[test]
fn a_project_save_that_fails_halfway_says_which_files_it_wrote_and_blames_no_other_program() {
    use super::project_flows::app_with;
    let (_dir, root) = super::projects::gallery_copy();
    let mut h = app_with(Some(root.clone()));
    h.state_mut()
        .workbench_mut()
        .doc
        .apply(Command::Rename {
            entity: GALLERY_SHELF,
            name: "Book shelf".into(),
        })
        .unwrap();
    // A folder (with something in it) stands where main.crdt goes: the composite is renamed
    // into place, main.crdt cannot be.
    let crdt = root.join("main.crdt");
    std::fs::remove_file(&crdt).unwrap();
    std::fs::create_dir_all(crdt.join("in-the-way")).unwrap();
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(
        h.query_by_label_contains(
            "Could not save everything. main.composite now holds this scene; main.crdt, \
             entity-names.ts still hold the previous save"
        )
        .is_some()
    );
    assert!(
        h.state().workbench().doc.is_modified(),
        "the scene stays unsaved"
    );
    h.get_by_label("OK").click();
    h.run();
    // scenetree wrote the composite itself: no bar about another program, then or later.
    focus_window(&mut h);
    watcher_looks_again(&mut h);
    h.run();
    assert!(!bar_shown(&h));
    // With the way cleared, the next save writes everything.
    std::fs::remove_dir_all(&crdt).unwrap();
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Saved the project Art Gallery Template")
            .is_some()
    );
    assert_eq!(
        name_on_disk(&crdt, GALLERY_SHELF).as_deref(),
        Some("Book shelf")
    );
}

#[test]
fn untitled_work_in_a_project_is_recovered_with_the_projects_models() {
    use super::app_flows::unsettled_app;
    use super::project_flows::settle as settle_with_models;
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let start = || {
        let mut h = unsettled_app(Launch::default(), Some(recovery.clone()));
        settle_with_models(&mut h);
        h
    };
    // The bundled Cozy House opens untitled (a save asks where) with its project's models.
    let mut h = start();
    h.state_mut()
        .set_autosave_timing(Duration::from_secs(3600), Duration::ZERO);
    h.get_by_label("File").click();
    h.run();
    h.get_by_label_contains("Open Example").hover();
    h.run();
    h.get_by_label_contains("Cozy House").click();
    settle_with_models(&mut h);
    let house = (h.state().workbench().doc.view().entities())
        .find(|e| e.0 >= 512)
        .unwrap();
    h.state_mut()
        .workbench_mut()
        .doc
        .apply(scenetree_editor::Command::Rename {
            entity: house,
            name: "Renamed before the crash".into(),
        })
        .unwrap();
    h.step();
    drop(h);

    let mut h = start();
    let offer = format!(
        "untitled scene of the project {}",
        scenetree::ui::app::cozy_house_dir().display()
    );
    assert!(h.query_by_label_contains(&offer).is_some());
    h.get_by_label("Recover").click();
    h.step();
    settle_with_models(&mut h);
    let doc = &h.state().workbench().doc;
    assert_eq!(
        doc.name_of(house).as_deref(),
        Some("Renamed before the crash")
    );
    assert!(doc.file.is_none() && doc.is_modified());
    let project = doc
        .project
        .as_ref()
        .expect("its project, whose models it draws");
    assert_eq!(project.root, scenetree::ui::app::cozy_house_dir());
    let progress = h.state().workbench().viewport.assets.progress();
    assert!(progress.ready >= 26, "{progress:?}");
}

/// Another program writes the bytes the file already holds (`cp` of the same file, `git
/// checkout`, a save with nothing changed), a minute later than the editor last saw it.
fn rewritten_with_the_same_bytes(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(path, bytes).unwrap();
    let later = std::time::SystemTime::now() + Duration::from_secs(60);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(later).unwrap();
}

#[test]
fn the_same_bytes_written_again_are_not_a_change_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("showroom.json");
    let mut h = app_on_showroom(&path);
    rename_lamp(&mut h, "Desk lamp");
    rewritten_with_the_same_bytes(&path);
    focus_window(&mut h);
    watcher_looks_again(&mut h);
    assert!(!bar_shown(&h), "the same bytes: no bar");
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(h.query_by_label("The file changed on disk").is_none());
    assert_eq!(name_on_disk(&path, LAMP).as_deref(), Some("Desk lamp"));
    // Other bytes still are one, after a save too.
    they_rename_the_shelf(&path, "Their shelf");
    wait_for_bar(&mut h);
}

#[test]
fn recovered_work_over_a_file_written_again_with_the_same_bytes_shows_no_bar() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("showroom.json");
    let recovery = dir.path().join("recovery");
    io::save_scene(&showroom(), &path).unwrap();
    let launch = || Launch {
        file: Some(path.clone()),
        ..Launch::default()
    };
    // An editor renames the lamp, autosaves, and crashes.
    let mut h = app(launch(), Some(recovery.clone()));
    h.state_mut()
        .set_autosave_timing(Duration::from_secs(3600), Duration::ZERO);
    rename_lamp(&mut h, "Desk lamp");
    h.step();
    drop(h);
    rewritten_with_the_same_bytes(&path);
    let mut h = app(launch(), Some(recovery));
    watcher_looks_again(&mut h);
    h.get_by_label("Recover").click();
    h.step();
    settle(&mut h);
    assert_eq!(name_in_editor(&h, LAMP).as_deref(), Some("Desk lamp"));
    watcher_looks_again(&mut h);
    assert!(!bar_shown(&h), "the file holds what the work was made from");
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(h.query_by_label("The file changed on disk").is_none());
    assert_eq!(name_on_disk(&path, LAMP).as_deref(), Some("Desk lamp"));
}
