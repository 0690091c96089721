//! The editor's side of file safety and of large cycles: a save over a read-only file asks
//! first, a damaged main.crdt offers what can still be read without touching the file, the
//! hierarchy's header counts every row, and a cycle's badge costs the same whatever the
//! cycle's size.

use std::os::unix::fs::PermissionsExt;

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use scenetree::ui::app::Launch;
use scenetree::ui::tree_row::RowBadge;
use scenetree_core::crdt::{Replica, decode_stream};
use scenetree_core::examples::showroom;
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::SceneView;
use scenetree_dcl::io;
use scenetree_editor::Document;

use super::app_flows::{app, rename_lamp, settle};
use super::ui_flows::harness;

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn saving_over_a_read_only_file_asks_first_and_keeps_it_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("showroom.json");
    io::save_scene(&showroom(), &path).unwrap();
    let mut h = app(
        Launch {
            file: Some(path.clone()),
            ..Launch::default()
        },
        None,
    );
    rename_lamp(&mut h, "Desk lamp");
    h.run();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&path).unwrap();
    for answer in ["Cancel", "Replace anyway"] {
        h.key_press_modifiers(Modifiers::COMMAND, Key::S);
        super::app_flows::settle(&mut h);
        assert!(
            h.query_by_label("The file is read-only").is_some(),
            "asked before replacing a read-only file"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "nothing written yet");
        h.get_by_label(answer).click();
        h.run();
        assert!(h.query_by_label("The file is read-only").is_none());
    }
    assert!(!h.state().workbench().doc.is_modified(), "saved");
    assert_ne!(std::fs::read(&path).unwrap(), before);
    assert_eq!(mode(&path), 0o444, "still read-only");
}

#[test]
fn a_damaged_main_crdt_offers_its_readable_messages_as_an_untitled_scene() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main.crdt");
    io::save_scene(&showroom(), &path).unwrap();
    let whole = std::fs::read(&path).unwrap();
    let messages = decode_stream(&whole).unwrap().messages;
    // Cut in the middle of the last message, as a crash during a copy would.
    let cut = &whole[..whole.len() - 3];
    std::fs::write(&path, cut).unwrap();
    let readable = &messages[..messages.len() - 1];

    let mut h = app(Launch::default(), None);
    rename_lamp(&mut h, "Kept if the user says no");
    let before = h.state().workbench().doc.replica().digest();
    h.state_mut().open(path.clone());
    h.run();
    h.get_by_label("Don't save").click();
    settle(&mut h);
    let offer = format!("The {} message(s) before byte", readable.len());
    assert!(
        h.query_by_label_contains(&offer).is_some(),
        "the error says what can be read"
    );
    assert_eq!(
        h.state().workbench().doc.replica().digest(),
        before,
        "nothing replaced yet"
    );

    h.get_by_label(&format!("Open the {} readable message(s)", readable.len()))
        .click();
    h.run();
    let doc = &h.state().workbench().doc;
    assert_eq!(
        doc.replica().digest(),
        Replica::from_messages(readable).digest()
    );
    assert!(doc.file.is_none(), "untitled: a save asks where");
    assert!(doc.is_modified(), "unsaved work until saved somewhere");
    assert!(
        doc.load_notes[0].contains("are not in this scene"),
        "{:?}",
        doc.load_notes
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        cut,
        "the damaged file is left as it is"
    );
}

/// One parenting cycle through entities `first ..= last` (each under the next, the last under
/// the first).
fn cycle(first: u32, last: u32) -> Replica {
    let mut r = Replica::new();
    for n in first..=last {
        let parent = if n == last { first } else { n + 1 };
        let t = Transform {
            parent: Entity(parent),
            ..Transform::IDENTITY
        };
        r.put_transform(Entity(n), &t).unwrap();
    }
    r
}

#[test]
fn the_header_counts_every_row_reserved_numbers_included() {
    // Entities 1 to 600, all re-rooted by one cycle: 511 of them have reserved numbers.
    let doc = Document::new(cycle(1, 600), None);
    assert_eq!(doc.scene_entity_count(), 600);
    let mut h = harness(doc);
    h.run();
    assert!(h.query_by_label("600 entities").is_some());
}

#[test]
fn a_cycle_badge_costs_the_same_whatever_the_cycle_size() {
    let replica = cycle(512, 512 + 5_000);
    let view = SceneView::from_source(&replica);
    let badge = RowBadge::of(&view, Entity(700), |e| format!("Entity {e}"));
    let RowBadge::Cycle { ring, declared } = badge else {
        panic!("{badge:?}");
    };
    assert_eq!(declared, "Entity 701");
    assert!(ring.contains("4,991 more"), "{ring}");
    assert!(ring.len() < 300, "{} bytes", ring.len());
}
