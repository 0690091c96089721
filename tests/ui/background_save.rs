//! Saves written on a worker thread: the window goes on while one runs, what it writes is the
//! scene when it began, and what the user asks for meanwhile waits for it.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::mpsc::Sender;

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::ui::app::ScenetreeApp;
use scenetree_core::model::Entity;

use super::app_flows::{rename_lamp, settle};
use super::disk_changes::{app_on_showroom, name_in_editor, name_on_disk};

const LAMP: Entity = Entity(519);

fn lamp_on_disk(path: &Path) -> Option<String> {
    name_on_disk(path, LAMP)
}

/// A few frames while the held save waits (its spinner keeps repainting, so no `run`).
fn frames(h: &mut Harness<'static, ScenetreeApp>, n: usize) {
    for _ in 0..n {
        h.step();
    }
}

/// The showroom at `path` with the lamp renamed `name`, its save started with Ctrl+S and held
/// before it writes until the returned sender sends.
fn save_held(path: &Path, name: &str) -> (Harness<'static, ScenetreeApp>, Sender<()>) {
    let mut h = app_on_showroom(path);
    rename_lamp(&mut h, name);
    let release = h.state_mut().hold_next_save();
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    frames(&mut h, 2);
    (h, release)
}

#[test]
fn the_window_goes_on_during_a_save_which_writes_the_scene_as_it_was_when_it_began() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("room.json");
    let (mut h, release) = save_held(&path, "Desk lamp");
    assert!(h.state().is_saving());
    assert!(
        h.query_by_label_contains("Saving room.json…").is_some(),
        "the status bar tells what is being saved"
    );
    assert_eq!(
        lamp_on_disk(&path).as_deref(),
        Some("Lamp"),
        "not written yet"
    );
    // The user goes on editing while it writes.
    rename_lamp(&mut h, "Floor lamp");
    frames(&mut h, 2);
    assert_eq!(name_in_editor(&h, LAMP).as_deref(), Some("Floor lamp"));
    release.send(()).unwrap();
    settle(&mut h);
    assert!(!h.state().is_saving());
    assert_eq!(lamp_on_disk(&path).as_deref(), Some("Desk lamp"));
    assert!(
        h.state().workbench().doc.is_modified(),
        "the rename made during the save is not on disk"
    );
    assert!(h.state().title().ends_with(" • — scenetree"));
    assert!(
        h.query_by_label_contains("changes made while it was saving are not saved yet")
            .is_some()
    );
    assert!(
        h.query_by_label_contains("was changed on disk").is_none(),
        "its own save is not another program's change"
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert_eq!(lamp_on_disk(&path).as_deref(), Some("Floor lamp"));
    assert!(!h.state().workbench().doc.is_modified());
}

#[test]
fn a_save_asked_for_during_a_save_follows_it_with_the_newer_scene() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("room.json");
    let (mut h, release) = save_held(&path, "Desk lamp");
    rename_lamp(&mut h, "Floor lamp");
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    frames(&mut h, 2);
    assert_eq!(lamp_on_disk(&path).as_deref(), Some("Lamp"), "both wait");
    release.send(()).unwrap();
    settle(&mut h);
    assert_eq!(lamp_on_disk(&path).as_deref(), Some("Floor lamp"));
    assert!(!h.state().workbench().doc.is_modified());
}

#[test]
fn quit_during_a_save_waits_for_it_and_asks_again_about_changes_it_did_not_hold() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("room.json");
    // Nothing changed while it saved: the window closes once the save is written.
    let (mut h, release) = save_held(&path, "Desk lamp");
    h.state_mut().request_quit();
    frames(&mut h, 2);
    assert!(!h.state().is_quitting(), "not while the save runs");
    assert!(
        h.query_by_label_contains("Quit follows once the save")
            .is_some()
    );
    assert!(h.query_by_label("Unsaved changes").is_none());
    release.send(()).unwrap();
    settle(&mut h);
    assert_eq!(lamp_on_disk(&path).as_deref(), Some("Desk lamp"));
    assert!(
        h.query_by_label_contains("while it was saving").is_none(),
        "nothing changed while it saved"
    );
    assert!(h.state().is_quitting());
    drop(h);

    // The prompt's Save, with an edit made while that save ran: asked again, not quit.
    let mut h = app_on_showroom(&path);
    rename_lamp(&mut h, "Floor lamp");
    h.state_mut().request_quit();
    h.run();
    let release = h.state_mut().hold_next_save();
    h.get_by_label("Save").click();
    frames(&mut h, 2);
    rename_lamp(&mut h, "Reading lamp");
    release.send(()).unwrap();
    settle(&mut h);
    assert_eq!(lamp_on_disk(&path).as_deref(), Some("Floor lamp"));
    assert!(!h.state().is_quitting(), "the newer rename would be lost");
    assert!(h.query_by_label("Unsaved changes").is_some());
    assert_eq!(name_in_editor(&h, LAMP).as_deref(), Some("Reading lamp"));
}

#[test]
fn quit_during_a_save_that_stops_to_ask_waits_for_the_answer_and_goes_only_if_it_saves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("room.json");
    let (mut h, release) = save_held(&path, "Desk lamp");
    // Made read-only while the save was encoding: the writer refuses and the window asks.
    let read_only = std::fs::Permissions::from_mode(0o444);
    std::fs::set_permissions(&path, read_only).unwrap();
    h.state_mut().request_quit();
    frames(&mut h, 2);
    release.send(()).unwrap();
    settle(&mut h);
    assert!(h.query_by_label("The file is read-only").is_some());
    assert!(
        h.query_by_label("Unsaved changes").is_none(),
        "one question at a time: Quit waits for this one's answer"
    );
    h.get_by_label("Cancel").click();
    h.run();
    assert!(!h.state().is_quitting());
    assert!(
        h.query_by_label_contains("Not saved, so Quit did not happen")
            .is_some()
    );
    assert_eq!(lamp_on_disk(&path).as_deref(), Some("Lamp"));
}
