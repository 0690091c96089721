//! Whole-window flows without a display: opening files (good and bad), the unsaved-changes
//! prompt, and crash recovery.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::ui::app::{Launch, ScenetreeApp};
use scenetree_core::model::Entity;
use scenetree_dcl::io;
use scenetree_editor::Command;
use scenetree_viewport::NullRenderer;

pub(crate) fn app(launch: Launch, recovery: Option<PathBuf>) -> Harness<'static, ScenetreeApp> {
    let mut h = unsettled_app(launch, recovery);
    settle(&mut h);
    h
}

/// The window before its first frame.
pub(crate) fn unsettled_app(
    launch: Launch,
    recovery: Option<PathBuf>,
) -> Harness<'static, ScenetreeApp> {
    let ctx = egui::Context::default();
    let app = ScenetreeApp::with_storage(&ctx, launch, None, recovery);
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, app: &mut ScenetreeApp| app.draw(ui, &mut NullRenderer::default()),
            app,
        )
}

/// Runs frames until background loading and saving have finished (generous: CI machines can
/// be busy).
pub(crate) fn settle(h: &mut Harness<'static, ScenetreeApp>) {
    for _ in 0..3000 {
        h.step(); // the progress dialog keeps repainting, so step instead of run
        if !h.state().is_loading() && !h.state().is_saving() {
            h.run();
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("loading or saving never finished");
}

/// `replica` saved at `path`, opened in the app.
fn app_on_file(
    path: &std::path::Path,
    replica: &scenetree_core::crdt::Replica,
) -> Harness<'static, ScenetreeApp> {
    io::save_scene(replica, path).unwrap();
    let mut h = app(
        Launch {
            file: Some(path.to_path_buf()),
            ..Launch::default()
        },
        None,
    );
    settle(&mut h);
    h
}

/// Renames the showroom's Lamp (519): an unsaved change.
pub(crate) fn rename_lamp(h: &mut Harness<'static, ScenetreeApp>, name: &str) {
    h.state_mut()
        .workbench_mut()
        .doc
        .apply(Command::Rename {
            entity: Entity(519),
            name: name.into(),
        })
        .unwrap();
}

/// The file the app's document belongs to.
pub(crate) fn document_path(h: &Harness<'static, ScenetreeApp>) -> Option<PathBuf> {
    h.state()
        .workbench()
        .doc
        .file
        .as_ref()
        .map(|f| f.path.clone())
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
    let h = app_on_file(&path, &scenetree_core::examples::large(40));
    assert_eq!(h.state().workbench().doc.replica().live_entity_count(), 40);
    assert_eq!(document_path(&h), Some(path));
}

#[test]
fn unsaved_changes_are_confirmed_before_they_are_lost() {
    let mut h = app(Launch::default(), None);
    rename_lamp(&mut h, "Desk lamp");
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
fn escape_cancels_a_question_and_closes_an_error_but_never_answers_the_recovery_offer() {
    let mut h = app(Launch::default(), None);
    rename_lamp(&mut h, "Desk lamp");
    h.state_mut()
        .workbench_mut()
        .doc
        .selection
        .set([Entity(519)]);
    h.state_mut().new_scene();
    h.run();
    assert!(h.query_by_label("Unsaved changes").is_some());
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(
        h.query_by_label("Unsaved changes").is_none(),
        "Escape closes the prompt"
    );
    let doc = &h.state().workbench().doc;
    assert_eq!(
        doc.name_of(Entity(519)).as_deref(),
        Some("Desk lamp"),
        "as Cancel: the work stays"
    );
    assert!(doc.is_modified());
    assert!(
        doc.selection.contains(Entity(519)),
        "the Escape went to the dialog, not to Select nothing"
    );

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.crdt");
    std::fs::write(&bad, [40, 0, 0, 0, 1, 0, 0, 0, 0, 2]).unwrap();
    h.state_mut().open(bad);
    settle(&mut h);
    h.get_by_label("Don't save").click();
    settle(&mut h);
    assert!(h.query_by_label("△ Problem").is_some());
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(h.query_by_label("△ Problem").is_none(), "Escape is OK");

    let recovery = dir.path().join("recovery");
    let crashed = io::recovery::RecoverySession::start(&recovery).unwrap();
    crashed
        .write(&scenetree_core::examples::showroom(), &Default::default())
        .unwrap();
    drop(crashed);
    let mut h = app(Launch::default(), Some(recovery));
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(
        h.query_by_label("Recover unsaved work?").is_some(),
        "either answer loses something: only a click answers"
    );
}

#[test]
fn escape_closes_the_shortcuts_window_before_it_clears_the_selection() {
    let mut h = app(Launch::default(), None);
    h.state_mut()
        .workbench_mut()
        .doc
        .selection
        .set([Entity(519)]);
    h.get_by_label("Help").click();
    h.run();
    h.get_by_label_contains("Keyboard Shortcuts").click();
    h.run();
    assert!(h.state().is_showing_shortcuts());
    h.key_press(egui::Key::Escape);
    h.run();
    assert!(
        !h.state().is_showing_shortcuts(),
        "the first Escape closes the window"
    );
    let selection = || h.state().workbench().doc.selection.entities().to_vec();
    assert_eq!(selection(), [Entity(519)], "and only that");
    h.key_press(egui::Key::Escape);
    h.run();
    assert_eq!(
        h.state().workbench().doc.selection.entities(),
        [],
        "the next one selects nothing"
    );
}

#[test]
fn a_file_named_relatively_is_kept_by_its_whole_path() {
    // A folder under the working folder (the repository root; `target` is ignored by git).
    std::fs::create_dir_all("target").unwrap();
    let dir = tempfile::tempdir_in("target").unwrap();
    let relative = Path::new("target")
        .join(dir.path().file_name().unwrap())
        .join("room.json");
    io::save_scene(&scenetree_core::examples::showroom(), &relative).unwrap();
    assert!(relative.is_relative() && relative.exists());
    let recovery = dir.path().join("recovery");
    let mut h = app(
        Launch {
            file: Some(relative),
            ..Launch::default()
        },
        Some(recovery.clone()),
    );
    let whole = dir.path().canonicalize().unwrap().join("room.json");
    assert_eq!(document_path(&h), Some(whole.clone()));
    h.state_mut()
        .set_autosave_timing(Duration::ZERO, Duration::ZERO);
    rename_lamp(&mut h, "Desk lamp");
    h.run();
    drop(h); // a crash: the recovery folder stays
    // The autosave thread holds the folder's lock until its write is done.
    let mut found = Vec::new();
    for _ in 0..500 {
        found = io::recovery::find_orphaned_work(&recovery);
        if !found.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let work = found.pop().expect("the autosave was written");
    assert_eq!(
        work.original(),
        Some(whole.as_path()),
        "the next start may run in another folder"
    );
    work.discard();
}

#[test]
fn work_recorded_under_a_relative_path_by_an_older_editor_opens_untitled() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let crashed = io::recovery::RecoverySession::start(&recovery).unwrap();
    crashed
        .write(
            &scenetree_core::examples::showroom(),
            &io::recovery::WorkOrigin {
                file: Some(dir.path().join("large.json")),
                ..Default::default()
            },
        )
        .unwrap();
    // What an older scenetree wrote: the path as typed, relative to a folder not recorded.
    for entry in std::fs::read_dir(crashed.dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".meta.json") {
            std::fs::write(&path, r#"{"original": "large.json", "saved_at_unix": 1}"#).unwrap();
        }
    }
    drop(crashed);
    let mut h = app(Launch::default(), Some(recovery));
    assert!(
        h.query_by_label_contains("large.json (in a folder an older scenetree did not record")
            .is_some()
    );
    h.get_by_label("Recover").click();
    h.run();
    assert_eq!(document_path(&h), None, "a save asks where");
    assert_eq!(h.state().workbench().doc.replica().live_entity_count(), 17);
}

#[test]
fn work_left_by_a_crash_is_offered_back() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let mut lost = scenetree_core::examples::showroom();
    lost.put(
        Entity(600),
        scenetree_core::model::ids::NAME,
        scenetree_core::model::encode_name("Unsaved chair"),
    )
    .unwrap();
    // An editor that autosaved and then crashed (dropping the session releases its lock).
    let crashed = io::recovery::RecoverySession::start(&recovery).unwrap();
    crashed.write(&lost, &Default::default()).unwrap();
    drop(crashed);
    let mut h = app(Launch::default(), Some(recovery.clone()));
    assert!(h.query_by_label("Recover unsaved work?").is_some());
    h.get_by_label("Recover").click();
    h.run();
    let doc = &h.state().workbench().doc;
    assert_eq!(doc.name_of(Entity(600)).as_deref(), Some("Unsaved chair"));
    assert!(doc.is_modified(), "recovered work must be saved to be kept");
}

/// The showroom saved as a file in `dir`, opened in the app, with one unsaved rename.
fn edited_showroom_file(dir: &std::path::Path) -> (Harness<'static, ScenetreeApp>, PathBuf) {
    let path = dir.join("showroom.json");
    let mut h = app_on_file(&path, &scenetree_core::examples::showroom());
    // Frames settle at once.
    h.state_mut()
        .workbench_mut()
        .viewport
        .animate_remote_changes = false;
    rename_lamp(&mut h, "Desk lamp");
    h.run();
    (h, path)
}

#[test]
fn opening_a_lesson_asks_first_and_becomes_its_own_untitled_document() {
    let dir = tempfile::tempdir().unwrap();
    let (mut h, path) = edited_showroom_file(dir.path());
    let on_disk = std::fs::read(&path).unwrap();
    h.get_by_label_contains("1. Two peers reparent at once")
        .click();
    h.run();
    assert!(
        h.query_by_label("Unsaved changes").is_some(),
        "a lesson replaces the open scene: ask first"
    );
    h.get_by_label("Cancel").click();
    h.run();
    let doc = &h.state().workbench().doc;
    assert_eq!(doc.name_of(Entity(519)).as_deref(), Some("Desk lamp"));
    assert!(doc.simulation().is_none(), "cancel keeps the scene");

    h.get_by_label_contains("1. Two peers reparent at once")
        .click();
    h.run();
    h.get_by_label("Don't save").click();
    h.run();
    let doc = &h.state().workbench().doc;
    assert!(doc.simulation().is_some(), "the lesson is open");
    assert_eq!(doc.file, None, "a lesson is not showroom.json");
    assert!(!doc.is_modified(), "nothing was done in it yet");
    // Stopping keeps a peer's state; it still has no file, so Save cannot overwrite the scene.
    h.get_by_label("More ▾").click();
    h.run();
    h.get_by_label_contains("Stop, keeping").click();
    h.run();
    assert_eq!(h.state().workbench().doc.file, None);
    assert_eq!(std::fs::read(&path).unwrap(), on_disk);
}

#[test]
fn a_request_waits_for_a_save_that_needs_confirming_and_then_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // A main.crdt holding a value of a component whose schema scenetree does not know.
    let crdt = dir.path().join("main.crdt");
    let mut scene = io::load_scene(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/dcl/Cozy-House-Template/main.crdt"),
    )
    .unwrap();
    scene.put(Entity(512), 0x5eed_0001, vec![1, 2, 3]).unwrap();
    io::save_scene(&scene, &crdt).unwrap();
    let mut h = app(
        Launch {
            file: Some(crdt),
            ..Launch::default()
        },
        None,
    );
    settle(&mut h);
    // The document belongs to a main.composite, which cannot hold that value without its
    // schema: saving needs the user's confirmation first.
    let composite = dir.path().join("main.composite");
    let doc = &mut h.state_mut().workbench_mut().doc;
    doc.file = Some(scenetree_editor::SceneFile {
        path: composite.clone(),
        format: io::SceneFormat::DclComposite,
    });
    let someone = doc.view().entities().find(|e| !e.is_reserved()).unwrap();
    doc.apply(Command::Rename {
        entity: someone,
        name: "Renamed".into(),
    })
    .unwrap();
    for answer in ["Cancel", "Save anyway"] {
        h.state_mut().new_scene();
        h.run();
        h.get_by_label("Save").click();
        settle(&mut h);
        assert!(h.query_by_label("Save would lose data").is_some());
        h.get_by_label(answer).click();
        h.run();
        assert!(h.query_by_label("Unsaved changes").is_none());
        let doc = &h.state().workbench().doc;
        if answer == "Cancel" {
            assert!(!composite.exists(), "nothing saved");
            assert!(
                doc.name_of(someone).as_deref() == Some("Renamed") && doc.is_modified(),
                "a cancelled save cancels the New it was for"
            );
        } else {
            assert!(composite.exists(), "saved");
            assert_eq!(
                doc.replica().live_entity_count(),
                0,
                "the New that waited for the save went ahead"
            );
        }
    }
}

#[test]
fn quit_without_saving_leaves_nothing_to_recover() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let mut h = app(Launch::default(), Some(recovery.clone()));
    h.state_mut()
        .set_autosave_timing(Duration::ZERO, Duration::ZERO);
    rename_lamp(&mut h, "Desk lamp");
    h.run(); // autosaved
    h.state_mut().request_quit();
    h.run();
    assert!(h.query_by_label("Unsaved changes").is_some());
    h.get_by_label("Don't save").click();
    h.run();
    assert!(h.state().is_quitting());
    // The window takes a few more frames to close; a change in one of them (a simulated
    // peer's auto-delivery, say) is due for autosave…
    rename_lamp(&mut h, "Floor lamp");
    h.run();
    drop(h); // the window closed
    // …but the user said not to keep it: the next start offers nothing.
    let h = app(Launch::default(), Some(recovery));
    assert!(h.query_by_label("Recover unsaved work?").is_none());
}

#[test]
fn unsaved_work_is_autosaved_once_editing_rests_without_waiting_for_the_interval() {
    let offered_after_a_crash = |interval: Duration, rest: Duration| {
        let dir = tempfile::tempdir().unwrap();
        let recovery = dir.path().join("recovery");
        let mut h = app(Launch::default(), Some(recovery.clone()));
        h.state_mut().set_autosave_timing(interval, rest);
        rename_lamp(&mut h, "Desk lamp");
        h.run();
        drop(h); // a crash
        let h = app(Launch::default(), Some(recovery));
        h.query_by_label("Recover unsaved work?").is_some()
    };
    let hour = Duration::from_secs(3600);
    assert!(
        offered_after_a_crash(hour, Duration::ZERO),
        "the scene rested: written although the interval is an hour"
    );
    assert!(
        !offered_after_a_crash(hour, hour),
        "neither the rest nor the interval came: nothing was written"
    );
}

#[test]
fn a_termination_signal_writes_unsaved_work_at_once_and_keeps_it_for_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let mut h = app(Launch::default(), Some(recovery.clone()));
    // No autosave would come for an hour: only the signal writes it.
    let hour = Duration::from_secs(3600);
    h.state_mut().set_autosave_timing(hour, hour);
    rename_lamp(&mut h, "Desk lamp");
    h.run();
    h.state().termination_flag().store(true, Ordering::SeqCst);
    h.run();
    assert!(h.state().is_quitting(), "the window closes without asking");
    assert!(h.query_by_label("Unsaved changes").is_none());
    // The exit eframe runs after the window closed keeps the work.
    eframe::App::on_exit(h.state_mut(), None);
    drop(h);
    let h = app(Launch::default(), Some(recovery));
    assert!(h.query_by_label("Recover unsaved work?").is_some());

    // Without unsaved work, a signal is a clean exit: nothing is offered next time.
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let mut h = app(Launch::default(), Some(recovery.clone()));
    h.state().termination_flag().store(true, Ordering::SeqCst);
    h.run();
    assert!(h.state().is_quitting());
    eframe::App::on_exit(h.state_mut(), None);
    drop(h);
    let h = app(Launch::default(), Some(recovery));
    assert!(h.query_by_label("Recover unsaved work?").is_none());
}

#[test]
fn a_termination_signal_is_handled_while_the_window_draws_no_frame() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let mut h = app(Launch::default(), Some(recovery.clone()));
    let hour = Duration::from_secs(3600);
    h.state_mut().set_autosave_timing(hour, hour);
    rename_lamp(&mut h, "Desk lamp");
    h.run();
    // Covered by another window: eframe runs the app's logic, never its ui.
    h.state().termination_flag().store(true, Ordering::SeqCst);
    let ctx = h.ctx.clone();
    h.state_mut().logic_without_ui(&ctx);
    assert!(
        h.state().is_quitting(),
        "the window closes without being shown"
    );
    eframe::App::on_exit(h.state_mut(), None);
    drop(h);
    let h = app(Launch::default(), Some(recovery));
    assert!(
        h.query_by_label("Recover unsaved work?").is_some(),
        "the work was kept"
    );
}

#[test]
fn a_new_scene_drops_the_last_scenes_status_message() {
    let mut h = app(Launch::default(), None);
    h.state_mut().workbench_mut().status = Some((
        "Delivered 2 message(s)".into(),
        scenetree::ui::action::Severity::Info,
    ));
    h.run();
    assert!(h.query_by_label("Delivered 2 message(s)").is_some());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::N);
    h.run();
    assert_eq!(
        h.state().workbench().doc.replica().live_entity_count(),
        0,
        "a new scene"
    );
    assert!(h.query_by_label("Delivered 2 message(s)").is_none());
    assert!(h.query_by_label("Ready").is_some());
}

#[test]
fn a_save_while_an_autosave_is_being_written_leaves_nothing_to_recover() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let path = dir.path().join("showroom.json");
    io::save_scene(&scenetree_core::examples::showroom(), &path).unwrap();
    let launch = Launch {
        file: Some(path.clone()),
        ..Launch::default()
    };
    let mut h = app(launch, Some(recovery.clone()));
    h.state_mut()
        .set_autosave_timing(Duration::ZERO, Duration::ZERO);
    rename_lamp(&mut h, "Desk lamp");
    h.run(); // the autosave is written on its own thread
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    assert!(!h.state().workbench().doc.is_modified(), "saved");
    drop(h); // the editor crashes right after the save
    let h = app(Launch::default(), Some(recovery));
    assert!(
        h.query_by_label("Recover unsaved work?").is_none(),
        "the save's work is in the file; the autosave must not outlive it"
    );
    let saved = io::load_scene(&path).unwrap();
    assert_eq!(
        saved.component_data(Entity(519), scenetree_core::model::ids::NAME),
        Some(&scenetree_core::model::encode_name("Desk lamp")[..])
    );
}

#[test]
fn a_second_instance_leaves_the_running_ones_autosave_alone() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let mut first = app(Launch::default(), Some(recovery.clone()));
    first
        .state_mut()
        .set_autosave_timing(Duration::ZERO, Duration::ZERO);
    rename_lamp(&mut first, "Desk lamp");
    first.run(); // autosaved
    let second = app(Launch::default(), Some(recovery.clone()));
    assert!(
        second.query_by_label("Recover unsaved work?").is_none(),
        "the first instance is still running: its work is not lost"
    );
    drop(second);
    drop(first); // the first instance crashes: its autosave stays, its lock goes
    let mut third = app(Launch::default(), Some(recovery));
    assert!(third.query_by_label("Recover unsaved work?").is_some());
    third.get_by_label("Recover").click();
    third.run();
    assert_eq!(
        third
            .state()
            .workbench()
            .doc
            .name_of(Entity(519))
            .as_deref(),
        Some("Desk lamp")
    );
}

#[test]
fn a_screenshot_that_cannot_be_saved_closes_the_window_with_the_reason_instead_of_exiting() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no such folder").join("shot.png");
    let mut h = unsettled_app(
        Launch {
            screenshot: Some(path),
            ..Launch::default()
        },
        None,
    );
    for _ in 0..10 {
        h.step(); // the capture is asked for after a few frames
    }
    h.event(egui::Event::Screenshot {
        viewport_id: egui::ViewportId::ROOT,
        user_data: Default::default(),
        image: std::sync::Arc::new(egui::ColorImage::filled([4, 4], egui::Color32::BLACK)),
    });
    h.step(); // before, the library ended the whole process here
    let why = h
        .state()
        .screenshot_failure()
        .expect("the failure is reported");
    assert!(why.contains("cannot save the screenshot"), "{why}");
}

#[test]
fn saving_one_peer_while_the_others_differ_says_which_was_saved_and_stays_unsaved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("showroom.json");
    let mut h = app_on_file(&path, &scenetree_core::examples::showroom());
    h.state_mut()
        .workbench_mut()
        .doc
        .start_simulation(2, 1)
        .unwrap();
    // Peer 1 renames Lamp; the message to peer 2 stays in flight.
    rename_lamp(&mut h, "Desk lamp");
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    let status = "Saved peer 1's state to";
    assert!(h.query_by_label_contains(status).is_some());
    assert!(
        h.query_by_label_contains("; the other peers' states still differ from it")
            .is_some(),
        "the status says the other peers differ"
    );
    assert!(
        h.state().workbench().doc.is_modified(),
        "peer 2 does not hold what was saved"
    );
    let saved = io::load_scene(&path).unwrap();
    assert_eq!(
        saved.component_data(Entity(519), scenetree_core::model::ids::NAME),
        Some(&scenetree_core::model::encode_name("Desk lamp")[..])
    );
}
