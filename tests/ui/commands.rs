//! The command table and its one dispatcher, driven through the whole workbench: Escape during
//! a gizmo drag, keys while a text field has the keyboard, the viewport's keys.

use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use scenetree::ui::Workbench;
use scenetree_viewport::GizmoMode;

use super::ui_flows::{CHAIR, LAMP, harness, room, row};

/// Where to press the +X arrow of a gizmo standing at `origin` (world, meters).
fn x_arrow_on_screen(h: &Harness<'static, Workbench>, origin: Vec3) -> egui::Pos2 {
    let viewport = &h.state().viewport.viewport;
    let length = viewport
        .camera
        .meters_per_pixel(origin, viewport.rect().height())
        * viewport.gizmo.size_points;
    let grab = viewport
        .screen_position(origin + Vec3::X * length * 0.6)
        .unwrap();
    assert!(viewport.rect().shrink(20.0).contains(grab), "{grab:?}");
    grab
}

/// Presses the Chair's +X gizmo arrow and moves the pointer without releasing it.
fn start_dragging_the_chair(h: &mut Harness<'static, Workbench>) -> egui::Pos2 {
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    let chair = h
        .state()
        .doc
        .view()
        .world_affine(CHAIR)
        .unwrap()
        .translation;
    let grab = x_arrow_on_screen(h, chair.into());
    h.hover_at(grab);
    h.run();
    h.drag_at(grab);
    h.run();
    for dx in [15.0, 30.0, 45.0] {
        h.hover_at(grab + egui::vec2(dx, 0.0));
        h.run();
    }
    assert!(h.state().viewport.viewport.is_dragging_gizmo());
    grab
}

#[test]
fn escape_cancels_a_gizmo_drag_before_it_clears_the_selection() {
    let mut h = harness(room());
    let before = h.state().doc.local_transform(CHAIR);
    let grab = start_dragging_the_chair(&mut h);
    assert_ne!(
        h.state().doc.local_transform(CHAIR),
        before,
        "the drag moves the chair"
    );
    h.key_press(Key::Escape);
    h.run();
    assert_eq!(
        h.state().doc.selection.entities(),
        &[CHAIR],
        "Escape went to the drag, not to the selection"
    );
    assert_eq!(h.state().doc.local_transform(CHAIR), before, "restored");
    h.drop_at(grab + egui::vec2(80.0, 0.0));
    h.run();
    assert_eq!(
        h.state().doc.local_transform(CHAIR),
        before,
        "the release after a cancel writes nothing"
    );
    assert_eq!(h.state().doc.history().undo_len(), 0, "no undo step");
    h.key_press(Key::Escape);
    h.run();
    assert!(
        h.state().doc.selection.is_empty(),
        "with no drag, Escape clears the selection"
    );
}

#[test]
fn escape_with_ctrl_held_for_snapping_cancels_a_gizmo_drag() {
    let mut h = harness(room());
    let before = h.state().doc.local_transform(CHAIR);
    start_dragging_the_chair(&mut h);
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::Escape);
    h.run();
    assert_eq!(h.state().doc.local_transform(CHAIR), before, "restored");
    assert!(!h.state().viewport.viewport.is_dragging_gizmo());
    assert_eq!(h.state().doc.history().undo_len(), 0, "no undo step");
}

#[test]
fn the_viewport_keys_go_through_the_table_and_text_fields_keep_theirs() {
    let mut h = harness(room());
    h.get_by_label(&row("Lamp", LAMP)).click();
    h.run();
    let gizmo = |h: &Harness<'static, Workbench>| h.state().viewport.viewport.gizmo;
    for (key, mode) in super::viewport_ui::MODE_KEYS {
        h.key_press(key);
        h.run();
        assert_eq!(gizmo(&h).mode, mode, "{key:?}, pointer anywhere");
    }
    let axes = gizmo(&h).orientation;
    h.key_press(Key::X);
    h.run();
    let toggled = gizmo(&h).orientation;
    assert_ne!(toggled, axes);
    let camera = h.state().viewport.viewport.camera.clone();
    h.key_press(Key::F);
    h.run();
    assert_ne!(
        h.state().viewport.viewport.camera,
        camera,
        "F framed the lamp"
    );

    // Typing in the search box: the letters are text, Delete and Escape are the field's
    // (Escape clears the search, as in Unity's and Godot's filters).
    // The search box (the inspector's Name field is the other text input).
    h.get_by(|n| {
        n.role() == egui::accesskit::Role::TextInput && n.value().unwrap_or_default().is_empty()
    })
    .click();
    h.run();
    h.get_by(|n| n.is_focused()).type_text("rewx");
    h.key_press(Key::Delete);
    h.run();
    assert_eq!(h.state().hierarchy.search, "rewx");
    h.key_press(Key::Escape);
    h.run();
    assert_eq!(h.state().hierarchy.search, "", "Escape cleared the search");
    assert_eq!(
        gizmo(&h).mode,
        GizmoMode::Translate,
        "typing is not a shortcut"
    );
    assert_eq!(gizmo(&h).orientation, toggled);
    assert_eq!(
        h.state().doc.selection.entities(),
        &[LAMP],
        "nothing deleted or cleared"
    );
    assert!(h.state().doc.replica().is_live(LAMP));
}

#[test]
fn an_inspector_error_goes_with_its_selection() {
    let mut h = harness(room());
    super::ui_flows::type_into_chair_field(&mut h, "Local position y", "abc");
    let refused = "\"abc\" is not a finite number";
    assert!(h.query_by_label_contains(refused).is_some());
    h.get_by_label(&row("Lamp", LAMP)).click();
    h.run();
    assert!(
        h.query_by_label_contains(refused).is_none(),
        "the Lamp's inspector does not show the Chair's refused input"
    );
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    assert!(
        h.query_by_label_contains(refused).is_none(),
        "nor does it come back"
    );
}

#[test]
fn an_inspector_error_goes_once_the_scene_changes() {
    let mut h = harness(room());
    // Something to undo later, on another entity.
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Edit(
            scenetree_editor::Command::Rename {
                entity: LAMP,
                name: "Desk lamp".into(),
            },
        )]);
    h.run();
    super::ui_flows::type_into_chair_field(&mut h, "Local position y", "abc");
    let refused = "\"abc\" is not a finite number";
    assert!(h.query_by_label_contains(refused).is_some());
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().doc.name_of(LAMP).as_deref(),
        Some("Lamp"),
        "undone"
    );
    assert_eq!(
        h.state().doc.selection.entities(),
        &[CHAIR],
        "still the Chair"
    );
    assert!(
        h.query_by_label_contains(refused).is_none(),
        "the refusal was about the scene before the undo"
    );
}

#[test]
fn the_status_bar_tells_the_latest_action_not_an_older_one() {
    use scenetree::ui::Action;
    use scenetree_core::model::Transform;
    use scenetree_editor::Command;
    let mut h = harness(room());
    let zero = Transform {
        rotation: glam::Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        ..h.state().doc.local_transform(CHAIR)
    };
    h.state_mut()
        .apply_actions(vec![Action::Edit(Command::SetTransforms(vec![(
            CHAIR, zero,
        )]))]);
    h.run();
    assert!(h.query_by_label_contains("zero length").is_some());
    // A gizmo drag (coalesced edits) succeeds afterwards: the old refusal must not stay.
    let moved = Transform {
        position: Vec3::new(1.0, 2.0, 3.0),
        ..h.state().doc.local_transform(CHAIR)
    };
    h.state_mut().apply_actions(vec![
        Action::EditCoalesced(Command::SetTransforms(vec![(CHAIR, moved)]), 7),
        Action::EndGesture,
    ]);
    h.run();
    assert!(
        h.query_by_label_contains("zero length").is_none(),
        "status: {:?}",
        h.state().status
    );
    // A selection change is an action too: the status no longer describes the drag.
    h.state_mut().doc.selection.clear();
    h.get_by_label(&row("Lamp", LAMP)).click();
    h.run();
    assert_eq!(h.state().status, None, "Ready");
}

#[test]
fn escape_closes_an_open_menu_and_nothing_else() {
    let mut h = super::app_flows::app(scenetree::ui::app::Launch::default(), None);
    let lamp = scenetree_core::model::Entity(519);
    h.state_mut().workbench_mut().doc.selection.set([lamp]);
    h.run();
    h.get_by_label("Edit").click();
    h.run();
    assert!(
        h.query_by_label_contains("Duplicate").is_some(),
        "the Edit menu is open"
    );
    h.key_press(Key::Escape);
    h.run();
    assert!(
        h.query_by_label_contains("Duplicate").is_none(),
        "Escape closed it"
    );
    assert_eq!(
        h.state().workbench().doc.selection.entities(),
        &[lamp],
        "and did not clear the selection"
    );
}

#[test]
fn a_gizmo_drag_moves_a_selected_child_once_through_its_selected_parent() {
    use super::ui_flows::{BULB, TABLE};
    use scenetree_core::model::Entity;
    let mut h = harness(room());
    // Table, its child Lamp and grandchild Bulb, and Chair beside them; Table added last, so
    // the gizmo stands on it.
    h.state_mut().doc.selection.set([CHAIR, LAMP, BULB, TABLE]);
    h.run();
    let targets: Vec<Entity> = h
        .state()
        .viewport
        .scene()
        .gizmo_targets
        .iter()
        .map(|t| t.entity)
        .collect();
    assert_eq!(targets, [TABLE, CHAIR], "Lamp and Bulb follow Table");
    let world = |h: &Harness<'static, Workbench>, e| -> Vec3 {
        h.state()
            .doc
            .view()
            .world_affine(e)
            .unwrap()
            .translation
            .into()
    };
    let (table, bulb) = (world(&h, TABLE), world(&h, BULB));
    let bulb_local = h.state().doc.local_transform(BULB);
    // Drag the +X arrow of the gizmo, which sits on the primary selection (Table).
    let grab = x_arrow_on_screen(&h, table);
    h.hover_at(grab);
    h.run();
    h.drag_at(grab);
    h.run();
    for dx in [10.0, 20.0, 30.0] {
        h.hover_at(grab + egui::vec2(dx, 0.0));
        h.run();
    }
    h.drop_at(grab + egui::vec2(30.0, 0.0));
    h.run();
    let moved = world(&h, TABLE) - table;
    assert!(moved.x > 0.05, "the drag moved Table: {moved:?}");
    assert_eq!(
        h.state().doc.local_transform(BULB),
        bulb_local,
        "Bulb's own values stay"
    );
    assert!(
        (world(&h, BULB) - bulb - moved).length() < 1e-4,
        "Bulb moved with Table, once: {:?} against {moved:?}",
        world(&h, BULB) - bulb
    );
}
