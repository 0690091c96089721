//! The habits Godot, Unity and Decentraland Inspector users bring (issue 31), driven like a
//! person would: Pivot/Center for rotating and scaling several entities, "—" for the fields
//! the selected entities do not share, and searching the hierarchy by component.

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use scenetree::ui::Workbench;
use scenetree_core::model::{Entity, ids};
use scenetree_dcl::MeshShape;
use scenetree_editor::Command;
use scenetree_viewport::{GizmoMode, PivotMode};

use crate::ui_flows::{
    BULB, CHAIR, LAMP, TABLE, drag_and_hold, harness, room, row, type_into_chair_field,
};

/// Table, then Chair with Ctrl: both selected, Chair the active one.
fn table_and_chair() -> Harness<'static, Workbench> {
    let mut h = harness(room());
    h.get_by_label(&row("Table", TABLE)).click();
    h.run();
    h.get_by_label(&row("Chair", CHAIR))
        .click_modifiers(Modifiers::COMMAND);
    h.run();
    assert_eq!(h.state().doc.selection.primary(), Some(CHAIR));
    h
}

fn world(h: &Harness<'static, Workbench>, e: Entity) -> Vec3 {
    h.state()
        .doc
        .view()
        .world_affine(e)
        .unwrap()
        .translation
        .into()
}

/// Drags the scale gizmo's centre handle (uniform scale) from `at` (world space) 45 points
/// to the right: a factor of 1.5.
fn scale_by_half_again(h: &mut Harness<'static, Workbench>, at: Vec3) {
    let from = h
        .state()
        .viewport
        .viewport
        .screen_position(at)
        .expect("the pivot is in view");
    let to = from + egui::vec2(45.0, 0.0);
    drag_and_hold(h, from, to);
    h.drop_at(to);
    h.run();
}

#[test]
fn scaling_two_entities_works_about_the_active_ones_origin_or_their_centre() {
    // Pivot (the default): about Chair's origin. Chair stays, Table moves away from it.
    let mut h = table_and_chair();
    h.key_press(Key::R);
    h.run();
    assert_eq!(h.state().viewport.viewport.gizmo.mode, GizmoMode::Scale);
    assert_eq!(h.state().viewport.viewport.gizmo.pivot, PivotMode::Pivot);
    let (chair, table) = (world(&h, CHAIR), world(&h, TABLE));
    scale_by_half_again(&mut h, chair);
    let factor = h.state().doc.local_transform(CHAIR).scale.x;
    assert!((factor - 1.5).abs() < 0.05, "scaled by {factor}");
    assert!(
        world(&h, CHAIR).distance(chair) < 1e-3,
        "the active entity stays"
    );
    let expected = chair + (table - chair) * factor;
    assert!(
        world(&h, TABLE).distance(expected) < 1e-2,
        "Table {} against {expected}",
        world(&h, TABLE)
    );
    assert_eq!(
        h.state().doc.history().undo_label(),
        Some("Scale 2 entities")
    );

    // Center (Z, as in Unity): about the centre of what is selected, drawn.
    let mut h = table_and_chair();
    h.key_press(Key::R);
    h.key_press(Key::Z);
    h.run();
    assert_eq!(h.state().viewport.viewport.gizmo.pivot, PivotMode::Center);
    assert!(h.query_by_label("Center").is_some(), "the toolbar says so");
    let bounds = h.state().viewport.scene().selection_bounds().unwrap();
    let centre = (bounds.min + bounds.max) * 0.5;
    let (chair, table) = (world(&h, CHAIR), world(&h, TABLE));
    scale_by_half_again(&mut h, centre);
    let factor = h.state().doc.local_transform(CHAIR).scale.x;
    for (e, before) in [(CHAIR, chair), (TABLE, table)] {
        let expected = centre + (before - centre) * factor;
        assert!(
            world(&h, e).distance(expected) < 1e-2,
            "{e}: {} against {expected}",
            world(&h, e)
        );
    }
    // The toolbar's button switches back.
    h.get_by_label("Center").click();
    h.run();
    assert_eq!(h.state().viewport.viewport.gizmo.pivot, PivotMode::Pivot);
}

#[test]
fn fields_the_selected_entities_do_not_share_show_a_dash_and_an_edit_sets_only_that_axis() {
    let mut h = table_and_chair();
    let value = |h: &Harness<'static, Workbench>, name: &str| {
        h.get_all_by(|n| n.label().as_deref() == Some(name))
            .next()
            .unwrap_or_else(|| panic!("no field {name}"))
            .value()
            .unwrap()
            .trim()
            .to_owned()
    };
    // Table is at (2, 0, 1), scaled 2 and turned; Chair at (−3, 0, 0).
    assert_eq!(value(&h, "Local position x"), "—");
    assert_eq!(
        value(&h, "Local position y"),
        "0.000",
        "shared values are shown"
    );
    assert_eq!(value(&h, "Local position z"), "—");
    assert_eq!(value(&h, "Local scale x"), "—");
    assert_eq!(value(&h, "Local Euler Y"), "—");
    // Typing an x sets x on both and leaves their z as they were.
    h.get_by_label("Local position x").click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by(|n| n.is_focused()).type_text("5");
    h.run();
    h.key_press(Key::Enter);
    h.run();
    let doc = &h.state().doc;
    assert_eq!(
        doc.local_transform(TABLE).position,
        Vec3::new(5.0, 0.0, 1.0)
    );
    assert_eq!(
        doc.local_transform(CHAIR).position,
        Vec3::new(5.0, 0.0, 0.0)
    );
    assert_eq!(value(&h, "Local position x"), "5.000");
    assert_eq!(value(&h, "Local position z"), "—");
    // One entity selected again: its own values.
    type_into_chair_field(&mut h, "Local position z", "2");
    assert_eq!(value(&h, "Local position z"), "2.000");
}

#[test]
fn t_component_searches_the_hierarchy_by_component_and_counts_the_matches() {
    let mut doc = room();
    for e in [LAMP, CHAIR] {
        doc.apply(Command::SetComponent {
            entity: e,
            component: ids::MESH_RENDERER,
            value: Some(MeshShape::Box { uvs: vec![] }.encode()),
        })
        .unwrap();
    }
    let mut h = harness(doc);
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run();
    h.get_by(|n| n.is_focused()).type_text("t:MeshRenderer");
    h.run();
    for (name, e) in [("Lamp", LAMP), ("Chair", CHAIR), ("Table", TABLE)] {
        assert!(
            h.query_by_label(&row(name, e)).is_some(),
            "{name}: a match or an ancestor of one"
        );
    }
    assert!(h.query_by_label(&row("Bulb", BULB)).is_none());
    assert!(
        h.query_by_label("2 matches").is_some(),
        "the count is shown"
    );
    // Names still search as before.
    h.key_press(Key::Escape);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run();
    h.get_by(|n| n.is_focused()).type_text("bulb");
    h.run();
    assert!(h.query_by_label("1 match").is_some());
}
