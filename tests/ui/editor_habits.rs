//! Habits of Unity and Godot users that the window must meet (issue 48's second half): typing
//! goes on after a refusal, Escape cancels a drag with its modifiers held, rows keep their
//! controls reachable, picks in the viewport show their row.

use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;

use crate::ui_flows::{CHAIR, focused_text_input, harness, room, type_into_chair_field};

#[test]
fn a_value_typed_after_a_refused_one_is_kept_and_no_field_moves() {
    let mut h = harness(room());
    type_into_chair_field(&mut h, "Local position x", "abc");
    let refused = "\"abc\" is not a finite number";
    assert!(h.query_by_label_contains(refused).is_some());
    let y_field = |h: &egui_kittest::Harness<'_, scenetree::ui::Workbench>| {
        h.get_by_label("Local position y").rect()
    };
    let before = y_field(&h);
    h.get_by_label("Local position y").click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    focused_text_input(&h).type_text("2");
    h.run();
    // A keystroke elsewhere neither drops the message nor moves the fields.
    assert!(h.query_by_label_contains(refused).is_some());
    assert_eq!(
        y_field(&h),
        before,
        "the field stays where the user clicked"
    );
    focused_text_input(&h).type_text(".5");
    h.run();
    h.key_press(Key::Enter);
    h.run();
    let doc = &h.state().doc;
    assert_eq!(
        doc.local_transform(CHAIR).position.y,
        2.5,
        "what was typed is kept"
    );
    assert!(doc.history().undo_label().is_some(), "as one undo step");
    assert!(
        h.query_by_label_contains(refused).is_none(),
        "the refusal was about the scene before this edit"
    );
}

#[test]
fn a_click_on_a_rows_lock_locks_it_and_never_grabs_the_scroll_bar() {
    use egui_kittest::kittest::NodeT;
    // Enough rows to scroll: the bar shows beside them.
    let scene = crate::ui_flows::numbered_scene("Crate", 200, |_| {
        scenetree_core::model::Transform::IDENTITY
    });
    let mut h = harness(scenetree_editor::Document::new(scene, None));
    let first = scenetree_core::model::Entity(512);
    let label = h
        .get_by_label(&crate::ui_flows::row("Crate 0", first))
        .rect();
    let lock = h
        .get_all_by(|n| n.role() == egui::accesskit::Role::CheckBox)
        .find(|n| {
            n.accesskit_node().label().as_deref() == Some("Lock")
                && (n.rect().center().y - label.center().y).abs() < 4.0
        })
        .expect("the row's lock")
        .rect();
    // Pressed and released with the pointer, as a hand does (not an accessibility click).
    h.hover_at(lock.center());
    h.run();
    h.drag_at(lock.center());
    h.run();
    h.drop_at(lock.center());
    h.run();
    assert!(h.state().doc.is_locked(first), "the click reached the lock");
}

#[test]
fn the_message_tables_timestamps_are_whole_at_1280_by_800() {
    use egui_kittest::kittest::NodeT;
    let mut h = crate::peers_workspace::lesson(0, egui::vec2(1280.0, 800.0));
    crate::peers_workspace::next_step(&mut h);
    // The column's width: from its header to the next one's.
    let t_header = h.get_by_label("t").rect();
    let sent_header = h.get_by_label("sent at").rect();
    let column = sent_header.left() - t_header.left();
    // Five digits fit (a cell cut short shows "…" in place of the number).
    let five_digits = h.ctx.fonts_mut(|f| {
        f.layout_no_wrap(
            "99999".into(),
            egui::FontId::proportional(14.0),
            egui::Color32::WHITE,
        )
        .size()
        .x
    });
    assert!(
        column >= five_digits,
        "the t column is {column} points wide, five digits need {five_digits}"
    );
}
