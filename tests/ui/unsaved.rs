//! The document never claims more than is true: the unsaved marker under simulated peers, and
//! an undo or redo that could not write anything.

use glam::Vec3;
use scenetree::ui::{Action, Workbench};
use scenetree_core::crdt::network::PeerId;
use scenetree_core::examples;
use scenetree_core::model::{Entity, Transform};
use scenetree_dcl::io::SceneFormat;
use scenetree_editor::{Command, Document, SceneFile};

const LAMP: Entity = Entity(519);

fn saved_showroom() -> Document {
    let mut doc = Document::new(examples::showroom(), None);
    doc.mark_saved(SceneFile {
        path: "/scenes/showroom.json".into(),
        format: SceneFormat::Native,
    });
    doc
}

fn moved(doc: &Document, entity: Entity, x: f32) -> Command {
    Command::SetTransforms(vec![(
        entity,
        Transform {
            position: Vec3::new(x, 0.0, 0.0),
            ..doc.local_transform(entity)
        },
    )])
}

#[test]
fn switching_to_an_unedited_peer_keeps_the_unsaved_marker_while_another_peer_holds_edits() {
    let mut doc = saved_showroom();
    assert!(!doc.is_modified());
    doc.start_simulation(2, 1).unwrap();
    assert!(
        !doc.is_modified(),
        "splitting into peers that all hold the saved state changes nothing"
    );
    doc.apply(moved(&doc, LAMP, 3.0)).unwrap();
    assert!(doc.is_modified(), "peer 1 edited");
    doc.set_active_peer(PeerId::from_index(1)).unwrap();
    assert!(
        doc.is_modified(),
        "peer 2 shows the saved state, but peer 1's edit is still unsaved"
    );
    doc.set_active_peer(PeerId::from_index(0)).unwrap();
    assert!(doc.is_modified());
}

#[test]
fn a_timeline_seek_back_to_the_start_is_the_saved_state_again() {
    let mut doc = saved_showroom();
    doc.start_simulation(2, 1).unwrap();
    doc.apply(moved(&doc, LAMP, 3.0)).unwrap();
    assert!(doc.is_modified());
    doc.with_network(|n| n.seek(0)).unwrap().unwrap();
    assert!(
        !doc.is_modified(),
        "every peer is back at the saved state (new replica instances, same content)"
    );
    doc.with_network(|n| n.seek(1)).unwrap().unwrap();
    assert!(doc.is_modified(), "the edit replayed");
}

#[test]
fn stopping_a_simulation_keeps_the_marker_true() {
    let mut doc = saved_showroom();
    doc.start_simulation(2, 1).unwrap();
    doc.stop_simulation(PeerId::from_index(1)).unwrap();
    assert!(!doc.is_modified(), "peer 2 never changed");
    doc.start_simulation(2, 1).unwrap();
    doc.apply(moved(&doc, LAMP, 3.0)).unwrap();
    doc.stop_simulation(PeerId::from_index(0)).unwrap();
    assert!(doc.is_modified(), "peer 1's edit is now the document");
}

#[test]
fn a_lesson_counts_as_modified_only_once_the_user_edits_it() {
    let text = scenetree::ui::lessons::LESSONS[0].1;
    let mut doc = saved_showroom();
    doc.apply(moved(&doc, LAMP, 3.0)).unwrap();
    doc.open_lesson(scenetree_core::crdt::scenario::parse(text).unwrap())
        .unwrap();
    assert!(!doc.is_modified(), "a lesson opens unmodified");
    doc.next_lesson_step().unwrap();
    doc.next_lesson_step().unwrap();
    let in_flight = doc.with_network(|net| net.in_flight().len()).unwrap();
    assert!(in_flight > 0, "the lesson's steps sent messages");
    let first = doc.with_network(|net| net.in_flight()[0].id).unwrap();
    doc.with_network(|net| net.deliver(first).unwrap());
    assert!(
        !doc.is_modified(),
        "its own steps and a delivery it asks for are not the user's work"
    );
    let entity = doc.view().children_of(Entity::ROOT).next().unwrap();
    doc.apply(moved(&doc, entity, 2.5)).unwrap();
    assert!(doc.is_modified(), "the user edited the lesson's scene");
}

/// Lesson 5 at step 1 (peer 1 deleted Lamp for good), after the user moved Lamp on peer 1.
fn lesson_five_after_a_move_and_the_delete() -> Workbench {
    let text = scenetree::ui::lessons::LESSONS
        .iter()
        .find(|(name, _)| name.starts_with("05-"))
        .unwrap()
        .1;
    let mut doc = Document::default();
    doc.open_lesson(scenetree_core::crdt::scenario::parse(text).unwrap())
        .unwrap();
    let lamp = Entity(512);
    doc.apply(moved(&doc, lamp, 1.0)).unwrap();
    doc.next_lesson_step().unwrap();
    assert!(doc.replica().is_deleted(lamp));
    Workbench::new(doc)
}

#[test]
fn an_undo_that_cannot_write_says_so_and_leaves_no_redo_step() {
    let mut bench = lesson_five_after_a_move_and_the_delete();
    let digest = bench.doc.replica().digest();
    bench.apply_actions(vec![Action::Undo]);
    let (text, severity) = bench.status.clone().unwrap();
    assert_eq!(
        severity,
        scenetree::ui::action::Severity::Error,
        "status: {text}"
    );
    assert!(
        text.contains("Could not undo Move Lamp") && text.contains("deleted"),
        "{text}"
    );
    assert_eq!(bench.doc.replica().digest(), digest, "nothing was written");
    assert_eq!(
        bench.doc.history().redo_label(),
        None,
        "nothing was undone, so there is nothing to redo"
    );
    assert_eq!(
        bench.doc.history().undo_len(),
        0,
        "the step cannot be undone"
    );
}
