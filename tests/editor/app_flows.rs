//! Whole-window flows without a display: opening files (good and bad), the unsaved-changes
//! prompt, and crash recovery.

use std::path::PathBuf;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::editor::Command;
use scenetree::io;
use scenetree::model::Entity;
use scenetree::ui::app::{Launch, ScenetreeApp};
use scenetree::ui::viewport::NullRenderer;

fn app(launch: Launch, recovery: Option<PathBuf>) -> Harness<'static, ScenetreeApp> {
    let ctx = egui::Context::default();
    let app = ScenetreeApp::with_storage(&ctx, launch, None, recovery);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, app: &mut ScenetreeApp| app.draw(ui, &mut NullRenderer::default()),
            app,
        );
    settle(&mut h);
    h
}

/// Runs frames until background loading has finished (generous: CI machines can be busy).
fn settle(h: &mut Harness<'static, ScenetreeApp>) {
    for _ in 0..3000 {
        h.step(); // the progress dialog keeps repainting, so step instead of run
        if !h.state().is_loading() {
            h.run();
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("loading never finished");
}

#[test]
fn starts_on_the_bundled_showroom() {
    let h = app(Launch::default(), None);
    assert!(h.query_by_label("Lamp  ·  519").is_some());
    assert_eq!(h.state().workbench().doc.replica().live_entity_count(), 17);
}

#[test]
fn a_corrupt_file_shows_an_error_and_leaves_the_open_scene_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.crdt");
    std::fs::write(&bad, [40, 0, 0, 0, 1, 0, 0, 0, 0, 2]).unwrap();
    let mut h = app(Launch::default(), None);
    let digest = h.state().workbench().doc.replica().digest();
    h.state_mut().open(bad);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Could not open the scene. Nothing was changed.")
            .is_some()
    );
    assert!(
        h.query_by_label_contains("broken.crdt: at byte 0")
            .is_some()
    );
    assert_eq!(h.state().workbench().doc.replica().digest(), digest);
    h.get_by_label("OK").click();
    h.run();
    assert!(h.query_by_label_contains("Could not open").is_none());
}

#[test]
fn opening_a_file_shows_its_entities_and_names_it_in_the_title() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("room.json");
    io::save_scene(&scenetree::editor::examples::large(40), &path).unwrap();
    let mut h = app(
        Launch {
            file: Some(path.clone()),
            ..Launch::default()
        },
        None,
    );
    settle(&mut h);
    assert_eq!(h.state().workbench().doc.replica().live_entity_count(), 40);
    assert_eq!(
        h.state()
            .workbench()
            .doc
            .file
            .as_ref()
            .map(|f| f.path.clone()),
        Some(path)
    );
}

#[test]
fn unsaved_changes_are_confirmed_before_they_are_lost() {
    let mut h = app(Launch::default(), None);
    h.state_mut()
        .workbench_mut()
        .doc
        .apply(Command::Rename {
            entity: Entity(519),
            name: "Desk lamp".into(),
        })
        .unwrap();
    h.state_mut().new_scene();
    h.run();
    assert!(h.query_by_label("Unsaved changes").is_some());
    h.get_by_label("Cancel").click();
    h.run();
    assert_eq!(
        h.state().workbench().doc.name_of(Entity(519)).as_deref(),
        Some("Desk lamp"),
        "cancel keeps the work"
    );
    h.state_mut().new_scene();
    h.run();
    h.get_by_label("Don't save").click();
    h.run();
    assert_eq!(
        h.state().workbench().doc.replica().live_entity_count(),
        0,
        "a new, empty scene"
    );
}

#[test]
fn work_left_by_a_crash_is_offered_back() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let mut lost = scenetree::editor::examples::showroom();
    lost.put(
        Entity(600),
        scenetree::model::ids::NAME,
        scenetree::model::encode_name("Unsaved chair"),
    )
    .unwrap();
    io::recovery::write_recovery(&recovery, &lost, None).unwrap();
    let mut h = app(Launch::default(), Some(recovery.clone()));
    assert!(h.query_by_label("Recover unsaved work?").is_some());
    h.get_by_label("Recover").click();
    h.run();
    let doc = &h.state().workbench().doc;
    assert_eq!(doc.name_of(Entity(600)).as_deref(), Some("Unsaved chair"));
    assert!(doc.is_modified(), "recovered work must be saved to be kept");
}
