//! Lesson 8 and the Nodes-vs-Transform mark, driven like a person would: two structural edits
//! at once, the Inspector's tree keeps one writer's, the ≠ marks appear in the hierarchy and
//! the peer columns with the count in the scene summary, and the repair button removes them
//! in one undoable step.

use egui_kittest::kittest::Queryable;
use scenetree::ui::workbench::Workspace;
use scenetree_core::model::Entity;

use crate::peers_flows::harness;

const BOOK: Entity = Entity(515);

#[test]
fn lesson_eight_shows_the_inspectors_lost_edit_and_the_repair_removes_it() {
    let mut h = harness();
    // What the Peers panel's lesson button does (lesson 8 is below the strip's fold).
    let (doc, _) = scenetree::ui::lessons::lesson_document(7).unwrap();
    h.state_mut().set_document(doc);
    h.run();
    assert_eq!(h.state().layout.workspace, Workspace::Peers);
    for _ in 0..3 {
        h.get_by_label("Next step ⏵").click();
        h.run();
    }
    // Both peers: Book's Transform says Shelf, the Inspector's tree says the root.
    let misplaced = h.state().doc.inspector_tree_mismatches();
    assert_eq!(misplaced.len(), 1);
    assert_eq!(misplaced.list[0].entity, BOOK);
    assert_eq!(
        h.query_all_by_label_contains("≠ the Inspector's tree misplaces 1: Book")
            .count(),
        2,
        "both peer columns say it"
    );
    // The editor: the hierarchy's badge, the summary's count and the repair.
    h.state_mut()
        .run_command(scenetree::ui::command::UiCommand::EditorWorkspace);
    h.state_mut().doc.selection.set([]);
    h.run();
    assert!(
        h.query_by_label("≠ Inspector").is_some(),
        "the hierarchy's badge"
    );
    assert!(
        h.query_by_label_contains("≠ 1 entity the Inspector's tree places elsewhere")
            .is_some()
    );
    // What the repair will move is shown before it is made.
    assert!(
        h.query_by_label_contains("Book: from under Root → last under Shelf")
            .is_some()
    );
    h.get_by_label("Repair the Inspector's tree").click();
    h.run();
    assert!(h.state().doc.inspector_tree_mismatches().is_empty());
    assert!(h.query_by_label("≠ Inspector").is_none());
    assert!(h.query_by_label("Repair the Inspector's tree").is_none());
    // One undoable step.
    h.state_mut().doc.undo().unwrap();
    h.run();
    assert!(h.query_by_label("≠ Inspector").is_some());
}
