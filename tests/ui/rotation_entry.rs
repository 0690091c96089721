//! Rotation entry and numbers in the inspector, driven like a person would (egui_kittest):
//! the Euler row writes the quaternion its angles give; the quaternion's four fields commit
//! together, normalized; every commit is one undo step; numbers never show `-0`, and the Euler
//! read-out stays in its order's canonical range.

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use glam::{Quat, Vec3};
use scenetree::ui::Workbench;
use scenetree_core::model::{Entity, EulerOrder, Transform};

use super::component_ui::tall_harness;
use super::layout::{harness_at, panel};
use super::ui_flows::{CHAIR, LAMP, harness, pick_in_combo, room, row};

/// cos 45° = sin 45°: the w and axis components of a quarter turn.
const QUARTER_TURN: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// The Chair's rotation as the document's replica holds it (not as the panel shows it).
fn stored_rotation(h: &Harness<'_, Workbench>, e: Entity) -> Quat {
    h.state()
        .doc
        .replica()
        .transform(e)
        .expect("a Transform")
        .rotation
}

fn select(h: &mut Harness<'_, Workbench>, name: &str, e: Entity) {
    h.get_by_label(&row(name, e)).click();
    h.run();
}

/// Clicks the inspector field named `field`, selects its text and types `text` over it (no
/// Enter).
fn type_over(h: &mut Harness<'_, Workbench>, field: &str, text: &str) {
    h.get_by_label(field).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.get_by(|n| n.is_focused()).type_text(text);
    h.run();
}

fn press(h: &mut Harness<'_, Workbench>, key: Key) {
    h.key_press(key);
    h.run();
}

fn undo(h: &mut Harness<'_, Workbench>) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
}

/// Picks `order` in the inspector's Euler order menu, as a user does.
fn choose_euler_order(h: &mut Harness<'_, Workbench>, order: EulerOrder) {
    let current = h.state().inspector.euler_order;
    pick_in_combo(h, current.label(), order.label());
    assert_eq!(
        h.state().inspector.euler_order,
        order,
        "picked from the menu"
    );
}

/// The field or read-out named `name` (its accessible label: a read-out's role is Label, and
/// kittest's `by_label` reads a Label's text instead).
fn cell<'h>(h: &'h Harness<'_, Workbench>, name: &'h str) -> egui_kittest::Node<'h> {
    h.get_by(|n| n.label().as_deref() == Some(name))
}

/// What a field or read-out shows (its accessible value, trimmed).
fn shown(h: &Harness<'_, Workbench>, field: &str) -> String {
    cell(h, field)
        .value()
        .unwrap_or_else(|| panic!("{field} has a value"))
        .trim()
        .to_string()
}

fn assert_close(q: Quat, expected: [f32; 4], tolerance: f32) {
    let e = Quat::from_array(expected);
    // q and -q are the same turn; the editor writes the one the conversion gives.
    let aligned = if q.dot(e) < 0.0 { -q } else { q };
    assert!(
        aligned.abs_diff_eq(e, tolerance),
        "{q} is not {e} within {tolerance}"
    );
}

#[test]
fn typing_y_90_in_the_euler_row_writes_a_quarter_turn_about_y() {
    let mut h = harness(room());
    select(&mut h, "Chair", CHAIR);
    type_over(&mut h, "Local Euler Y", "90");
    assert_eq!(
        stored_rotation(&h, CHAIR),
        Quat::IDENTITY,
        "nothing is written before Enter"
    );
    press(&mut h, Key::Enter);
    let q = stored_rotation(&h, CHAIR);
    assert!(
        (q.w - QUARTER_TURN).abs() < 1e-4 && (q.y - QUARTER_TURN).abs() < 1e-4,
        "{q}"
    );
    assert!(q.x.abs() < 1e-6 && q.z.abs() < 1e-6, "{q}");
    assert_eq!(shown(&h, "Local Euler Y"), "90.00");
    assert_eq!(shown(&h, "Local Euler X"), "0.00");
    assert_eq!(shown(&h, "Local rotation y"), "0.7071");
    assert_eq!(shown(&h, "Local rotation w"), "0.7071");
    undo(&mut h);
    assert_eq!(
        stored_rotation(&h, CHAIR),
        Quat::IDENTITY,
        "one undo reverts the commit"
    );
}

/// Whether the inspector offers "Normalize rotation" now.
fn normalize_offered(h: &Harness<'_, Workbench>) -> bool {
    !h.get_by_label("Normalize rotation")
        .accesskit_node()
        .is_disabled()
}

/// Stores `rotation` as the Chair's, as a file or a peer could hold it (the editor takes any
/// rotation that is not zero).
fn store_chair_rotation(h: &mut Harness<'_, Workbench>, rotation: Quat) {
    let t = Transform {
        rotation,
        ..h.state().doc.local_transform(CHAIR)
    };
    let edit = scenetree_editor::Command::SetTransforms(vec![(CHAIR, t)]);
    h.state_mut().doc.apply(edit).expect("the edit applies");
    h.run();
}

#[test]
fn normalize_is_offered_only_for_a_rotation_off_unit_length_beyond_rounding() {
    let mut h = harness(room());
    select(&mut h, "Chair", CHAIR);
    assert!(!normalize_offered(&h), "the identity");
    type_over(&mut h, "Local Euler Y", "90");
    press(&mut h, Key::Enter);
    // (0, 0.70710677, 0, 0.70710677) is 1 - 6e-8 long: normalizing would edit its last bit.
    assert!(!normalize_offered(&h), "{}", stored_rotation(&h, CHAIR));
    store_chair_rotation(&mut h, Quat::from_xyzw(1.0, 0.0, 0.0, 1.0));
    assert!(normalize_offered(&h));
    h.get_by_label("Normalize rotation").click();
    h.run();
    assert_close(
        stored_rotation(&h, CHAIR),
        [QUARTER_TURN, 0.0, 0.0, QUARTER_TURN],
        1e-6,
    );
    assert!(!normalize_offered(&h), "once it is of unit length");
}

#[test]
fn a_typed_euler_angle_stays_as_typed_while_it_is_the_rotation() {
    // Y = 180 under XYZ reads back from the quaternion as X 180, Z 180; the row keeps the
    // angle the user typed, as Unity and Godot do.
    let mut h = harness(room());
    select(&mut h, "Chair", CHAIR);
    type_over(&mut h, "Local Euler Y", "180");
    press(&mut h, Key::Enter);
    assert_close(stored_rotation(&h, CHAIR), [0.0, 1.0, 0.0, 0.0], 1e-6);
    assert_eq!(shown(&h, "Local Euler Y"), "180.00");
    assert_eq!(shown(&h, "Local Euler X"), "0.00");
    assert_eq!(shown(&h, "Local Euler Z"), "0.00");
    // Another order shows the read-out of that order.
    choose_euler_order(&mut h, EulerOrder::Yxz);
    assert_eq!(shown(&h, "Local Euler Y"), "180.00");
}

#[test]
fn an_euler_edit_rotates_every_selected_entity() {
    let mut h = harness(room());
    select(&mut h, "Chair", CHAIR);
    h.get_by_label(&row("Lamp", LAMP))
        .click_modifiers(Modifiers::COMMAND);
    h.run();
    type_over(&mut h, "Local Euler Y", "90");
    press(&mut h, Key::Enter);
    for e in [CHAIR, LAMP] {
        assert_close(
            stored_rotation(&h, e),
            [0.0, QUARTER_TURN, 0.0, QUARTER_TURN],
            1e-6,
        );
    }
    undo(&mut h);
    assert_eq!(stored_rotation(&h, CHAIR), Quat::IDENTITY);
    assert_eq!(stored_rotation(&h, LAMP), Quat::IDENTITY);
}

#[test]
fn dragging_an_euler_angle_is_one_undo_step() {
    let mut h = harness(room());
    select(&mut h, "Chair", CHAIR);
    let from = h.get_by_label("Local Euler Y").rect().center();
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for i in 1..=8 {
        h.hover_at(from + egui::vec2(6.0 * i as f32, 0.0));
        h.run();
    }
    h.drop_at(from + egui::vec2(48.0, 0.0));
    h.run();
    let turned = stored_rotation(&h, CHAIR);
    assert!(turned.y.abs() > 0.05, "the drag turned the chair: {turned}");
    let y = EulerOrder::Xyz.to_xyz_degrees(turned).y;
    let shown_y: f32 = shown(&h, "Local Euler Y").parse().unwrap();
    assert!((shown_y - y).abs() < 0.01, "row {shown_y} vs stored {y}");
    undo(&mut h);
    assert_eq!(
        stored_rotation(&h, CHAIR),
        Quat::IDENTITY,
        "the whole drag is one step"
    );
}

#[test]
fn the_quaternion_commits_as_a_whole_normalized() {
    let mut h = harness(room());
    select(&mut h, "Chair", CHAIR);
    // y = 1, then Tab to z (unchanged), Tab to w = 1: a quarter turn about Y, which field by
    // field could never be reached (each field normalized on its own gave 78.46°).
    type_over(&mut h, "Local rotation y", "1");
    press(&mut h, Key::Tab);
    assert_eq!(
        stored_rotation(&h, CHAIR),
        Quat::IDENTITY,
        "a partly typed quaternion is not written"
    );
    assert_eq!(
        h.get_by(|n| n.is_focused())
            .accesskit_node()
            .label()
            .as_deref(),
        Some("Local rotation z"),
        "Tab moves to the next component"
    );
    press(&mut h, Key::Tab);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.get_by(|n| n.is_focused()).type_text("1");
    h.run();
    assert_eq!(stored_rotation(&h, CHAIR), Quat::IDENTITY, "still a draft");
    assert!(h.query_by_label("Apply rotation").is_some());
    // The typed y (1, not 0.7071) is still what the field shows.
    assert_eq!(
        h.get_by_label("Local rotation y").value().as_deref(),
        Some("1")
    );
    press(&mut h, Key::Enter);
    let q = stored_rotation(&h, CHAIR);
    assert_close(q, [0.0, QUARTER_TURN, 0.0, QUARTER_TURN], 1e-6);
    assert!((q.length() - 1.0).abs() < 1e-6, "normalized: {q}");
    assert_eq!(shown(&h, "Local rotation y"), "0.7071");
    assert_eq!(shown(&h, "Local Euler Y"), "90.00");
    assert!(h.query_by_label("Apply rotation").is_none());
    undo(&mut h);
    assert_eq!(
        stored_rotation(&h, CHAIR),
        Quat::IDENTITY,
        "one undo reverts the whole commit"
    );
}

#[test]
fn the_apply_button_commits_the_typed_quaternion() {
    let mut h = harness(room());
    select(&mut h, "Chair", CHAIR);
    type_over(&mut h, "Local rotation x", "1");
    assert_eq!(stored_rotation(&h, CHAIR), Quat::IDENTITY);
    h.get_by_label("Apply rotation").click();
    h.run();
    assert_close(
        stored_rotation(&h, CHAIR),
        [QUARTER_TURN, 0.0, 0.0, QUARTER_TURN],
        1e-6,
    );
    undo(&mut h);
    assert_eq!(stored_rotation(&h, CHAIR), Quat::IDENTITY);
}

#[test]
fn escape_drops_a_typed_quaternion() {
    let mut h = harness(room());
    select(&mut h, "Chair", CHAIR);
    let digest = h.state().doc.replica().digest();
    type_over(&mut h, "Local rotation y", "1");
    press(&mut h, Key::Escape);
    assert_eq!(h.state().doc.replica().digest(), digest, "nothing written");
    assert_eq!(shown(&h, "Local rotation y"), "0.0000");
    assert_eq!(
        h.state().doc.selection.entities(),
        &[CHAIR],
        "the field took the Escape"
    );
    h.run();
    assert_eq!(h.state().doc.replica().digest(), digest, "nor later");
}

#[test]
fn a_quaternion_field_that_is_not_a_number_is_refused_and_nothing_is_written() {
    let mut h = harness(room());
    select(&mut h, "Chair", CHAIR);
    let digest = h.state().doc.replica().digest();
    type_over(&mut h, "Local rotation w", "abc");
    press(&mut h, Key::Enter);
    assert!(
        h.query_by_label_contains("Local rotation w: \"abc\" is not a finite number")
            .is_some()
    );
    assert_eq!(h.state().doc.replica().digest(), digest);
    // All four zero has no direction.
    for axis in ["x", "y", "z"] {
        eprintln!(
            "{axis}: focused {:?}",
            h.query_by(|n| n.is_focused())
                .map(|n| n.accesskit_node().label())
        );
        type_over(&mut h, &format!("Local rotation {axis}"), "0");
        press(&mut h, Key::Tab);
    }
    type_over(&mut h, "Local rotation w", "0");
    press(&mut h, Key::Enter);
    assert!(
        h.query_by_label_contains("a zero-length quaternion has no direction")
            .is_some()
    );
    assert_eq!(h.state().doc.replica().digest(), digest);
}

/// Every shown number (field values and read-outs) of the harness.
fn shown_numbers(h: &Harness<'_, Workbench>) -> Vec<(String, String)> {
    h.get_all_by(|n| {
        matches!(
            n.role(),
            Role::SpinButton | Role::TextInput | Role::Label | Role::Paragraph
        )
    })
    .filter_map(|n| Some((n.accesskit_node().label().unwrap_or_default(), n.value()?)))
    .collect()
}

fn is_negative_zero(text: &str) -> bool {
    text.trim()
        .strip_prefix('-')
        .is_some_and(|m| m.contains('0') && m.chars().all(|c| c == '0' || c == '.'))
}

#[test]
fn no_number_shows_negative_zero_and_half_turns_read_as_plus_180() {
    let mut doc = room();
    let odd = Transform {
        position: Vec3::new(-0.0, -0.0001, 1e-9),
        // A half turn about Y with w = -0.0 noise, as files hold them.
        rotation: Quat::from_xyzw(-0.0, 1.0, -0.0, -4.371139e-8),
        scale: Vec3::new(-0.0, 1.0, -0.0004),
        parent: Entity::ROOT,
    };
    doc.apply(scenetree_editor::Command::SetTransforms(vec![(CHAIR, odd)]))
        .unwrap();
    let mut h = tall_harness(doc);
    select(&mut h, "Chair", CHAIR);
    for order in EulerOrder::ALL {
        choose_euler_order(&mut h, order);
        let numbers = shown_numbers(&h);
        assert!(
            numbers.len() >= 28,
            "local and world cells are all read: {numbers:?}"
        );
        for (name, text) in &numbers {
            assert!(!is_negative_zero(text), "{order:?}: {name} shows {text}");
            assert!(!text.contains("-180.00"), "{order:?}: {name} shows {text}");
        }
    }
    assert_eq!(shown(&h, "Local position x"), "0.000");
    assert_eq!(shown(&h, "Local position y"), "0.000");
    assert_eq!(shown(&h, "Local scale z"), "0.000");
    assert_eq!(shown(&h, "Local rotation x"), "0.0000");
    assert_eq!(shown(&h, "World position x"), "0.000");
    // The zero scale flattens the world matrix: its rotation does not exist and is shown as
    // such, not as NaN.
    for name in ["World rotation w", "World Euler Y"] {
        assert_eq!(shown(&h, name), "—", "{name}");
    }
    let numbers = shown_numbers(&h);
    assert!(
        numbers.iter().all(|(_, text)| !text.contains("NaN")),
        "{numbers:?}"
    );
    choose_euler_order(&mut h, EulerOrder::Xyz);
    // Under XYZ a half turn about Y has no form with Y = 180 and the middle angle in range:
    // the canonical one is X 180, Y 0, Z 180, never −180.
    assert_eq!(shown(&h, "Local Euler X"), "180.00");
    assert_eq!(shown(&h, "Local Euler Y"), "0.00");
    assert_eq!(shown(&h, "Local Euler Z"), "180.00");
    choose_euler_order(&mut h, EulerOrder::Yxz);
    assert_eq!(shown(&h, "Local Euler Y"), "180.00");
    assert_eq!(shown(&h, "Local Euler X"), "0.00");
}

#[test]
fn every_row_says_local_or_world() {
    let mut h = tall_harness(room());
    select(&mut h, "Lamp", LAMP);
    for name in [
        "Local position x",
        "Local rotation w",
        "Local Euler Z",
        "Local scale y",
        "World position x",
        "World rotation w",
        "World Euler Z",
        "World scale y",
    ] {
        assert!(
            h.query_by(|n| n.label().as_deref() == Some(name)).is_some(),
            "{name}"
        );
    }
    // The Lamp sits under the Table (turned 0.5 rad about Y, scale 2): its world values are
    // the composition, lined up in the same columns as the local ones.
    assert_eq!(shown(&h, "Local position y"), "1.000");
    assert_eq!(shown(&h, "World position y"), "2.000");
    assert_eq!(shown(&h, "World scale x"), "2.000");
    assert_eq!(shown(&h, "World Euler Y"), "28.65");
    let local = cell(&h, "Local position x").rect();
    let world = cell(&h, "World position x").rect();
    assert!(
        (local.right() - world.right()).abs() < 0.5,
        "columns line up: {local:?} {world:?}"
    );
}

#[test]
fn the_fourth_column_is_not_cut_off_in_a_small_window() {
    for size in [egui::vec2(1024.0, 700.0), egui::vec2(1280.0, 800.0)] {
        let mut h = harness_at(size);
        select(&mut h, "Chair", CHAIR);
        let inspector = panel(&h, scenetree::ui::Tab::Inspector);
        for name in ["Local rotation w", "Local Euler Z", "Local scale z"] {
            let rect = cell(&h, name).rect();
            assert!(
                rect.right() <= inspector.right() && rect.left() >= inspector.left(),
                "{size:?}: {name} at {rect:?} is outside the inspector {inspector:?}"
            );
        }
        let order = h.get_by_role(Role::ComboBox).rect();
        assert!(
            order.right() <= inspector.right(),
            "{size:?}: the Euler order selector at {order:?} is cut off"
        );
        // Still one column: the quaternion's w and the position's z share right edges with
        // the cells above and below them.
        let z_edges: Vec<f32> = ["Local position z", "Local rotation z", "Local scale z"]
            .iter()
            .map(|name| cell(&h, name).rect().right())
            .collect();
        assert!(
            z_edges.iter().all(|e| (e - z_edges[0]).abs() < 0.5),
            "{size:?}: {z_edges:?}"
        );
    }
}
