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

#[test]
fn the_order_explorer_does_not_call_a_state_stuck_in_a_cycle_a_success() {
    use crate::peers_workspace::{lesson, next_step};
    let mut h = lesson(0, egui::vec2(1600.0, 1000.0));
    next_step(&mut h);
    next_step(&mut h); // peer 2's move waits for peer 1, whose own move makes the cycle
    h.get_by_label("Order explorer").click();
    h.run();
    h.get_by_label_contains("Explore the order of peer 1's one message")
        .click();
    h.run();
    assert!(h.query_by_label_contains("✓ Every order ends").is_none());
    assert!(
        h.query_by_label_contains("Every order ends in the same state, and it holds a parenting cycle for good: Lamp → Table → Lamp")
            .is_some()
    );
}

#[test]
fn saving_a_project_that_holds_a_parenting_cycle_says_what_the_runtime_will_draw() {
    use crate::project_flows::{app_with, settle};
    use scenetree_core::model::{Entity, ids};
    let (_dir, root) = crate::projects::gallery_copy();
    let mut h = app_with(Some(root));
    let (elevator, image) = (Entity(512), Entity(513));
    // Two raw Transform writes, as two peers' concurrent moves leave them.
    for (entity, parent) in [(elevator, image), (image, elevator)] {
        let doc = &mut h.state_mut().workbench_mut().doc;
        let mut t = doc.local_transform(entity);
        t.parent = parent;
        doc.apply(scenetree_editor::Command::SetComponent {
            entity,
            component: ids::TRANSFORM,
            value: Some(t.to_bytes().to_vec()),
        })
        .unwrap();
    }
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Saved the project Art Gallery Template")
            .is_some()
    );
    assert!(
        h.query_by_label_contains(
            "the runtime draws its members at the root until a write breaks it"
        )
        .is_some(),
        "the save says the cycle goes with it"
    );
}

#[test]
fn a_number_too_large_for_a_transform_is_not_called_infinite() {
    let mut h = harness(room());
    type_into_chair_field(&mut h, "Local position y", "1e40");
    assert!(
        h.query_by_label_contains(
            "1e40 is too large for a Transform (its numbers are 32-bit floats"
        )
        .is_some()
    );
    assert!(h.query_by_label_contains("not a finite number").is_none());
}

#[test]
fn peers_that_differ_on_the_inspectors_tree_are_not_said_to_differ_on_root() {
    use crate::peers_workspace::{lesson, next_step};
    // Lesson 8: two structural edits at once, each with its own inspector::Nodes value.
    let mut h = lesson(7, egui::vec2(1600.0, 1000.0));
    next_step(&mut h);
    next_step(&mut h);
    assert!(
        h.query_by_label_contains("peers differ on").is_some(),
        "the lesson's edits are in flight"
    );
    assert!(
        h.query_by_label_contains(
            "the scene's values on the root entity (such as the Inspector's tree)"
        )
        .is_some()
    );
    assert!(h.query_by_label_contains("differ on Root").is_none());
}

#[test]
fn a_lessons_text_says_when_the_learner_changed_what_it_describes() {
    use crate::peers_workspace::{lesson, next_step};
    let note = "You changed the scene by hand: this text tells the lesson's own run";
    let mut h = lesson(0, egui::vec2(1600.0, 1000.0));
    next_step(&mut h);
    next_step(&mut h);
    assert!(
        h.query_by_label_contains(note).is_none(),
        "on the lesson's own path"
    );
    // Deliver peer 1's message by hand, before the step that would.
    h.get_all_by_label("Deliver")
        .next()
        .expect("a message in flight")
        .click();
    h.run();
    assert!(h.query_by_label_contains(note).is_some());
    next_step(&mut h);
    assert!(
        h.query_by_label_contains(note).is_some(),
        "the next step's text describes the lesson's state, not this one"
    );
}

#[test]
fn a_peer_columns_row_menu_moves_an_entity_to_the_root_as_that_peer() {
    use crate::peers_workspace::{lesson, next_step};
    use egui_kittest::kittest::NodeT;
    use scenetree_core::crdt::network::PeerId;
    use scenetree_core::model::Entity;
    let mut h = lesson(0, egui::vec2(1600.0, 1000.0));
    next_step(&mut h); // peer 1 put Lamp under Table
    let lamp = Entity(512);
    let parent_at = |h: &egui_kittest::Harness<'_, scenetree::ui::Workbench>, peer| {
        let (sim, _) = h
            .state()
            .doc
            .simulation()
            .expect("a lesson simulates peers");
        sim.network()
            .replica(PeerId(peer))
            .unwrap()
            .transform(lamp)
            .unwrap()
            .parent
    };
    assert_eq!(parent_at(&h, 1), Entity(513));
    // Peer 1's column is the leftmost: its Lamp row.
    let rows: Vec<_> = h
        .get_all_by_label_contains("Lamp")
        .filter(|n| n.accesskit_node().role() == egui::accesskit::Role::Button)
        .collect();
    let leftmost = rows
        .iter()
        .min_by(|a, b| a.rect().left().total_cmp(&b.rect().left()))
        .expect("Lamp rows");
    leftmost.click_secondary();
    h.run();
    h.get_by_label("Move to root as peer 1").click();
    h.run();
    assert_eq!(
        parent_at(&h, 1),
        Entity::ROOT,
        "peer 1 moved it back to the root"
    );
    assert_eq!(
        parent_at(&h, 2),
        Entity::ROOT,
        "peer 2 has not heard of either move"
    );
}

#[test]
fn after_a_click_and_the_arrow_keys_only_the_selected_row_looks_selected() {
    use crate::ui_flows::{LAMP, TABLE, row};
    let mut h = harness(room());
    h.get_by_label(&row("Table", TABLE)).click();
    h.run();
    h.key_press(Key::ArrowDown);
    h.run();
    assert_eq!(h.state().doc.selection.primary(), Some(LAMP));
    // The pointer still rests on the Table's row: it may be tinted, never framed as a
    // selected row is.
    let table = h.get_by_label(&row("Table", TABLE)).rect();
    let framed: Vec<egui::Rect> = (h.output().shapes.iter())
        .filter_map(|c| match &c.shape {
            egui::Shape::Rect(r) => Some(r),
            _ => None,
        })
        .filter(|r| r.rect.contains(table.center()) && r.rect.height() < 2.0 * table.height())
        .filter(|r| r.stroke.width > 0.0 && r.stroke.color.a() > 0)
        .map(|r| r.rect)
        .collect();
    assert!(framed.is_empty(), "the hovered row is framed: {framed:?}");
}

#[test]
fn the_inspectors_last_column_keeps_a_margin_from_the_panels_edge() {
    use crate::ui_flows::row;
    use egui_kittest::Harness;
    use scenetree::ui::{Tab, Workbench};
    let edge_of = |h: &Harness<'_, Workbench>| {
        let tree = h.state().layout.dock.main_surface();
        let (node, _) = tree.find_tab(&Tab::Inspector).expect("docked");
        tree[node].rect().expect("a leaf has a rect").right()
    };
    for size in [egui::vec2(1024.0, 700.0), egui::vec2(1280.0, 800.0)] {
        let mut h = Harness::builder().with_size(size).build_ui_state(
            |ui, bench: &mut Workbench| {
                bench.ui(ui, &mut scenetree_viewport::NullRenderer::default())
            },
            Workbench::new(room()),
        );
        h.run();
        // The Lamp's parent gets a long name: the Parent section names it.
        let long = "Table_with_a_remarkably_long_descriptive_name_for_the_living_room";
        h.state_mut()
            .apply_actions(vec![scenetree::ui::Action::Edit(
                scenetree_editor::Command::Rename {
                    entity: crate::ui_flows::TABLE,
                    name: long.into(),
                },
            )]);
        h.run();
        h.get_by_label(&row("Lamp", crate::ui_flows::LAMP)).click();
        h.run();
        let declared = format!("{long}  ({})", crate::ui_flows::TABLE);
        let shown = h
            .get_all_by_label(&declared)
            .next()
            .expect("the parent's name")
            .rect();
        assert!(
            shown.right() <= edge_of(&h),
            "at {size:?}: the parent's name runs past the edge"
        );
        let edge = edge_of(&h);
        for field in ["Local rotation w", "Local position z"] {
            let right = h.get_by_label(field).rect().right();
            // The scroll bar floats over the panel's last points.
            assert!(
                edge - right >= 8.0,
                "at {size:?}: {field} ends at {right}, {} pt from the edge {edge}",
                edge - right
            );
        }
    }
}

#[test]
fn a_peer_columns_mark_stays_clear_of_its_scroll_bar() {
    use scenetree::ui::Tab;
    // Lesson 8 at step 3, at 1024×700: Book is marked ≠ in both peers' columns, whose rows
    // overflow the short strip, so each column has a scroll bar.
    let mut h = crate::peers_workspace::lesson(7, egui::vec2(1024.0, 700.0));
    for _ in 0..3 {
        crate::peers_workspace::next_step(&mut h);
    }
    // Book selected: each column scrolls its row into view.
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Select(
            scenetree::ui::SelectAction::Only(scenetree_core::model::Entity(515)),
        )]);
    h.run();
    h.hover_at(egui::pos2(600.0, 650.0));
    h.run();
    let tree = h.state().layout.peers_dock.main_surface();
    let (node, _) = tree.find_tab(&Tab::Peers).expect("docked");
    let edge = tree[node].rect().expect("a leaf has a rect").right();
    let marks: Vec<egui::Rect> = h.query_all_by_label("≠").map(|n| n.rect()).collect();
    assert_eq!(marks.len(), 2, "one mark per peer: {marks:?}");
    let last = marks.iter().map(|r| r.right()).fold(f32::MIN, f32::max);
    let bar = egui::style::ScrollStyle::solid();
    assert!(
        edge - last >= bar.bar_width,
        "the last column's mark ends at {last}, {} pt from the panel's edge {edge}: under \
         its scroll bar",
        edge - last
    );
}
