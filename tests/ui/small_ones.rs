//! The small things found by hand (issue 31): "1 entities", Paste offered with nothing
//! copied, the row menu's Create child without its shortcut, a quaternion shown with two signs,
//! a bad file on the command line, an empty main.crdt opened silently, a folder without
//! scene.json that holds a scene.

use egui_kittest::kittest::{NodeT, Queryable};
use glam::Quat;
use scenetree::ui::app::Launch;
use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_editor::{Command, Document};

use crate::app_flows::{app, settle};
use crate::ui_flows::{CHAIR, harness, room, row};

#[test]
fn one_entity_is_one_entity() {
    let mut r = Replica::new();
    r.put_transform(Entity(512), &Transform::IDENTITY).unwrap();
    r.put(Entity(512), ids::NAME, encode_name("Only")).unwrap();
    let h = harness(Document::new(r, None));
    assert!(
        h.query_by_label_contains("1 entities").is_none(),
        "\"1 entities\" is shown"
    );
    assert!(
        h.query_by_label("1 entity").is_some(),
        "the root row's count"
    );
}

#[test]
fn paste_is_offered_only_once_something_was_copied() {
    let mut h = harness(room());
    h.get_by_label(&row("Chair", CHAIR)).click_secondary();
    h.run();
    assert!(
        h.get_by_label("Paste  (Ctrl+V)")
            .accesskit_node()
            .is_disabled(),
        "Paste with nothing copied"
    );
    h.get_by_label("Copy  (Ctrl+C)").click();
    h.run();
    h.get_by_label(&row("Chair", CHAIR)).click_secondary();
    h.run();
    assert!(
        !h.get_by_label("Paste  (Ctrl+V)")
            .accesskit_node()
            .is_disabled()
    );
}

#[test]
fn the_rows_create_child_names_its_shortcut() {
    let mut h = harness(room());
    h.get_by_label(&row("Chair", CHAIR)).click_secondary();
    h.run();
    assert!(h.query_by_label("Create Child  (Alt+Shift+N)").is_some());
}

#[test]
fn a_rotation_is_shown_with_one_sign_locally_and_in_the_world() {
    let mut doc = room();
    // 45° about Y, stored with w < 0 (the same rotation as with w > 0).
    let q = Quat::from_rotation_y(std::f32::consts::FRAC_PI_4);
    let stored = Quat::from_xyzw(-q.x, -q.y, -q.z, -q.w);
    doc.apply(Command::SetTransforms(vec![(
        CHAIR,
        Transform {
            rotation: stored,
            ..doc.local_transform(CHAIR)
        },
    )]))
    .unwrap();
    let mut h = crate::layout::harness_with(doc, egui::vec2(1280.0, 1400.0));
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    let value = |name: &str| {
        h.get_all_by(|n| n.label().as_deref() == Some(name))
            .next()
            .unwrap_or_else(|| panic!("no cell {name}"))
            .value()
            .unwrap()
            .trim()
            .to_owned()
    };
    for axis in ["y", "w"] {
        assert_eq!(
            value(&format!("Local rotation {axis}")),
            value(&format!("World rotation {axis}")),
            "{axis}: a root entity's local and world rotation are the same numbers"
        );
    }
    assert_eq!(value("Local rotation w"), "0.9239");
}

#[test]
fn a_file_that_cannot_be_opened_at_start_says_so_and_starts_untitled() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-scene.crdt");
    let h = app(
        Launch {
            file: Some(missing),
            ..Launch::default()
        },
        None,
    );
    let doc = &h.state().workbench().doc;
    assert_eq!(doc.scene_entity_count(), 0, "not the showroom");
    assert!(doc.file.is_none());
    assert!(h.query_by_label_contains("Nothing was changed").is_none());
    assert!(h.query_by_label_contains("no-such-scene.crdt").is_some());
    assert!(h.query_by_label_contains("new, empty scene").is_some());
}

#[test]
fn an_empty_main_crdt_is_said_to_be_empty() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("main.crdt");
    std::fs::write(&empty, []).unwrap();
    let h = app(
        Launch {
            file: Some(empty),
            ..Launch::default()
        },
        None,
    );
    let (status, _) = h.state().workbench().status.clone().expect("a message");
    assert!(status.contains("empty"), "{status}");
}

#[test]
fn a_folder_without_scene_json_offers_the_scene_inside_it() {
    let dir = tempfile::tempdir().unwrap();
    let composite = dir.path().join("main.composite");
    let fixture = crate::projects::repo_root().join("tests/fixtures/ecs/scene.composite");
    std::fs::copy(fixture, &composite).unwrap();
    let mut h = app(Launch::default(), None);
    h.state_mut().open(dir.path().to_path_buf());
    settle(&mut h);
    // The error comes with the load's result, a frame or two later on a busy machine.
    for _ in 0..200 {
        if h.query_by_label("Open main.composite").is_some() {
            break;
        }
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    h.get_by_label("Open main.composite").click();
    // The load's progress dialog repaints until the file is read: step, never run.
    settle(&mut h);
    let file = h.state().workbench().doc.file.clone().expect("opened");
    assert_eq!(file.path, composite);
}
