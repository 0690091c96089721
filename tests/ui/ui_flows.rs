//! The real panels driven like a person would (egui_kittest): click rows, rename, drag and drop,
//! edit a quaternion, delete and undo, search. The 3D viewport is stubbed.

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use glam::{Quat, Vec3};
use scenetree::ui::Workbench;
use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_editor::Document;
use scenetree_viewport::NullRenderer;

pub(crate) const TABLE: Entity = Entity(512);
pub(crate) const LAMP: Entity = Entity(513);
pub(crate) const BULB: Entity = Entity(514);
pub(crate) const CHAIR: Entity = Entity(515);

pub(crate) fn room() -> Document {
    let mut r = Replica::new();
    let named = |r: &mut Replica, e: Entity, name: &str, t: Transform| {
        r.put_transform(e, &t).unwrap();
        r.put(e, ids::NAME, encode_name(name)).unwrap();
    };
    named(
        &mut r,
        TABLE,
        "Table",
        Transform {
            position: Vec3::new(2.0, 0.0, 1.0),
            rotation: Quat::from_rotation_y(0.5),
            scale: Vec3::splat(2.0),
            parent: Entity::ROOT,
        },
    );
    named(
        &mut r,
        LAMP,
        "Lamp",
        Transform {
            position: Vec3::new(0.0, 1.0, 0.0),
            parent: TABLE,
            ..Transform::IDENTITY
        },
    );
    named(
        &mut r,
        BULB,
        "Bulb",
        Transform {
            position: Vec3::new(0.0, 0.2, 0.0),
            parent: LAMP,
            ..Transform::IDENTITY
        },
    );
    named(
        &mut r,
        CHAIR,
        "Chair",
        Transform {
            position: Vec3::new(-3.0, 0.0, 0.0),
            ..Transform::IDENTITY
        },
    );
    Document::new(r, None)
}

pub(crate) fn harness(doc: Document) -> Harness<'static, Workbench> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            |ui, bench: &mut Workbench| bench.ui(ui, &mut NullRenderer::default()),
            Workbench::new(doc),
        );
    h.run();
    h
}

/// The widget that has the keyboard (a DragValue becomes a text field when clicked).
pub(crate) fn focused_text_input<'a>(h: &'a Harness<'_, Workbench>) -> egui_kittest::Node<'a> {
    h.get_by(|n| n.is_focused())
}

/// Selects the Chair, clicks its inspector field named `field` ("Local position y", "Local
/// rotation x", …), types `text` over it and presses Enter.
pub(crate) fn type_into_chair_field(h: &mut Harness<'_, Workbench>, field: &str, text: &str) {
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    h.get_by_label(field).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    focused_text_input(h).type_text(text);
    h.run();
    h.key_press(Key::Enter);
    h.run();
}

/// Picks `entry` in the combo box whose button shows `shown`, as a user does: opens the menu
/// by its button and clicks the entry (the button still reads the current choice, so the
/// menu's entry is the last node with that label).
pub(crate) fn pick_in_combo<State>(h: &mut Harness<'_, State>, shown: &str, entry: &str) {
    h.get_by(|n| n.role() == Role::ComboBox && n.value().as_deref() == Some(shown))
        .click();
    h.run();
    h.get_all_by_label(entry)
        .last()
        .expect("the entry is in the open menu")
        .click();
    h.run();
}

pub(crate) fn row(name: &str, e: Entity) -> String {
    format!("{name}  ·  {e}")
}

/// Clicks the row labelled `label` and presses Delete.
pub(crate) fn delete_row(h: &mut Harness<'_, Workbench>, label: &str) {
    h.get_by_label(label).click();
    h.run();
    h.key_press(Key::Delete);
    h.run();
}

/// Drags from one point to another with intermediate pointer moves, as a hand would.
fn drag(h: &mut Harness<'_, Workbench>, from: egui::Pos2, to: egui::Pos2) {
    drag_and_hold(h, from, to);
    h.drop_at(to);
    h.run();
}

/// Presses at `from` and moves, in small steps as a hand would, to `to`; the button stays down.
pub(crate) fn drag_and_hold(h: &mut Harness<'_, Workbench>, from: egui::Pos2, to: egui::Pos2) {
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for i in 1..=6 {
        h.hover_at(from + (to - from) * (i as f32 / 6.0));
        h.run();
    }
}

#[test]
fn clicking_rows_selects_and_ctrl_click_adds() {
    let mut h = harness(room());
    h.get_by_label(&row("Lamp", LAMP)).click();
    h.run();
    assert_eq!(h.state().doc.selection.entities(), &[LAMP]);
    h.get_by_label(&row("Chair", CHAIR))
        .click_modifiers(Modifiers::COMMAND);
    h.run();
    assert_eq!(h.state().doc.selection.entities(), &[LAMP, CHAIR]);
    // The inspector follows the primary selection.
    assert!(h.query_by_label_contains("+ 1 more selected").is_some());
}

#[test]
fn the_several_selected_note_wraps_inside_the_inspector_after_a_long_name() {
    // Found by hand: "Book 3 (copy)  + 2 more selected — edits apply to all 3" ran past the
    // inspector's right edge (the window's) and was cut off.
    let mut doc = room();
    let long = "A chair with a rather long name";
    doc.apply(scenetree_editor::Command::Rename {
        entity: CHAIR,
        name: long.to_string(),
    })
    .unwrap();
    let mut h = harness(doc);
    h.get_by_label(&row("Lamp", LAMP)).click();
    h.run();
    h.get_by_label(&row(long, CHAIR))
        .click_modifiers(Modifiers::COMMAND);
    h.run();
    let note = h.get_by_label_contains("+ 1 more selected").rect();
    let window = h.ctx.content_rect();
    assert!(
        note.right() <= window.right(),
        "the note ends at x = {}, past the window's edge at {}",
        note.right(),
        window.right()
    );
}

#[test]
fn f2_renames_inline_and_undo_restores_the_name() {
    let mut h = harness(room());
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    h.key_press(Key::F2);
    h.run();
    // Select the current text and type over it.
    // (The inspector's Name field shows "Chair" too; the inline editor is the focused one.)
    let rename = h.get_by(|n| n.role() == Role::TextInput && n.is_focused());
    assert_eq!(
        rename.value().as_deref(),
        Some("Chair"),
        "the inline editor takes the keyboard"
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by(|n| n.role() == Role::TextInput && n.is_focused())
        .type_text("Armchair");
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().doc.name_of(CHAIR).as_deref(), Some("Armchair"));
    assert!(h.query_by_label(&row("Armchair", CHAIR)).is_some());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc.name_of(CHAIR).as_deref(), Some("Chair"));
}

#[test]
fn dragging_a_row_onto_another_reparents_and_keeps_the_world_pose() {
    let mut h = harness(room());
    let before = h.state().doc.view().world_affine(LAMP).unwrap();
    let from = h.get_by_label(&row("Lamp", LAMP)).rect().center();
    let to = h.get_by_label(&row("Chair", CHAIR)).rect().center();
    drag(&mut h, from, to);
    let doc = &h.state().doc;
    assert_eq!(
        doc.view().effective_parent_of(LAMP),
        Some(CHAIR),
        "status: {:?}",
        h.state().status
    );
    assert!(
        doc.view()
            .world_affine(LAMP)
            .unwrap()
            .abs_diff_eq(before, 1e-4),
        "world pose unchanged"
    );
    assert_eq!(
        doc.view().effective_parent_of(BULB),
        Some(LAMP),
        "the child came along"
    );
}

#[test]
fn dropping_onto_its_own_descendant_is_refused_with_a_hint() {
    let mut h = harness(room());
    let digest = h.state().doc.replica().digest();
    let from = h.get_by_label(&row("Table", TABLE)).rect().center();
    let to = h.get_by_label(&row("Bulb", BULB)).rect().center();
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for i in 1..=6 {
        h.hover_at(from + (to - from) * (i as f32 / 6.0));
        h.run();
    }
    assert!(
        h.query_by_label_contains("Cannot move Table under Bulb")
            .is_some(),
        "the hint shows while hovering"
    );
    h.drop_at(to);
    h.run();
    assert_eq!(
        h.state().doc.replica().digest(),
        digest,
        "nothing was written"
    );
    assert_eq!(
        h.state().doc.view().effective_parent_of(TABLE),
        Some(Entity::ROOT)
    );
}

#[test]
fn editing_a_quaternion_component_normalizes_and_undo_reverts() {
    let mut h = harness(room());
    type_into_chair_field(&mut h, "Local rotation x", "1");
    let q = h.state().doc.local_transform(CHAIR).rotation;
    assert!((q.length() - 1.0).abs() < 1e-5, "normalized: {q}");
    let expected = Quat::from_xyzw(1.0, 0.0, 0.0, 1.0).normalize();
    assert!(q.abs_diff_eq(expected, 1e-5), "{q}");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(
        h.state().doc.local_transform(CHAIR).rotation,
        Quat::IDENTITY
    );
}

#[test]
fn delete_then_undo_restores_the_subtree() {
    let mut h = harness(room());
    delete_row(&mut h, &row("Lamp", LAMP));
    assert!(h.query_by_label(&row("Bulb", BULB)).is_none());
    assert!(!h.state().doc.view().contains(LAMP));
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert!(h.query_by_label(&row("Bulb", BULB)).is_some());
    assert_eq!(h.state().doc.view().effective_parent_of(BULB), Some(LAMP));
}

#[test]
fn ctrl_d_duplicates_with_children_and_selects_the_copy() {
    let mut h = harness(room());
    h.get_by_label(&row("Lamp", LAMP)).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::D);
    h.run();
    let copy = h.state().doc.selection.primary().unwrap();
    assert_ne!(copy, LAMP);
    assert!(h.query_by_label(&row("Lamp_2", copy)).is_some());
    assert_eq!(h.state().doc.view().children_of(copy).count(), 1);
}

/// Sends the clipboard event the window sends for Ctrl+(Shift+)C or Ctrl+(Shift+)V
/// (egui-winit sends no key for Ctrl+C or Ctrl+V, whatever other modifiers are held), with the
/// modifiers held around it. Returns what the frame that read it put on the system clipboard.
fn clipboard_chord(
    h: &mut Harness<'_, Workbench>,
    event: egui::Event,
    held: Modifiers,
) -> Option<String> {
    // One frame each, as the window may deliver them: the modifiers go down, the event, up.
    h.event(egui::Event::ModifiersChanged(held));
    h.step();
    h.event(event);
    h.step();
    let copied = h
        .output()
        .platform_output
        .commands
        .iter()
        .find_map(|c| match c {
            egui::OutputCommand::CopyText(text) => Some(text.clone()),
            _ => None,
        });
    h.event(egui::Event::ModifiersChanged(Modifiers::default()));
    h.run();
    copied
}

const CTRL_SHIFT: Modifiers = Modifiers::COMMAND.plus(Modifiers::SHIFT);

#[test]
fn ctrl_c_and_ctrl_v_copy_and_paste_entities_as_the_window_sends_them() {
    let mut h = harness(room());
    h.get_by_label(&row("Lamp", LAMP)).click();
    h.run();
    let copied = clipboard_chord(&mut h, egui::Event::Copy, Modifiers::COMMAND);
    assert!(h.query_by_label("Copied Lamp").is_some());
    let text = copied.expect("names go to the system clipboard, so that Ctrl+V comes back");
    assert_eq!(text, "Lamp (513)");
    // Pasted beside the original, whatever is selected, as the Inspector pastes.
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    let _ = clipboard_chord(&mut h, egui::Event::Paste(text.clone()), Modifiers::COMMAND);
    let doc = &h.state().doc;
    let copy = doc.selection.primary().unwrap();
    assert_ne!(copy, LAMP);
    assert_eq!(doc.name_of(copy).as_deref(), Some("Lamp_2"));
    assert_eq!(doc.view().effective_parent_of(copy), Some(TABLE));
    assert_eq!(doc.view().children_of(copy).count(), 1, "with its bulb");
    assert_eq!(doc.history().undo_label(), Some("Paste Lamp"));
    let _ = clipboard_chord(&mut h, egui::Event::Paste(text.clone()), Modifiers::COMMAND);
    let pasted_again = h.state().doc.selection.primary().unwrap();
    assert_eq!(
        h.state().doc.name_of(pasted_again).as_deref(),
        Some("Lamp_3")
    );

    // While typing (here in the Name field), the chord is the text field's paste.
    let entities = h.state().doc.replica().live_entity_count();
    h.get_by(|n| n.role() == Role::TextInput && n.value().as_deref() == Some("Lamp_3"))
        .click();
    h.run();
    let _ = clipboard_chord(&mut h, egui::Event::Paste(text.clone()), Modifiers::COMMAND);
    assert_eq!(h.state().doc.replica().live_entity_count(), entities);

    // Once the originals are gone there is nothing to paste, and it says so.
    h.state_mut()
        .doc
        .apply(scenetree_editor::Command::Delete {
            entities: vec![LAMP],
        })
        .unwrap();
    h.key_press(Key::Escape);
    h.run();
    let _ = clipboard_chord(&mut h, egui::Event::Paste(text), Modifiers::COMMAND);
    assert!(
        h.query_by_label_contains("the copied entities were deleted")
            .is_some()
    );
}

#[test]
fn ctrl_shift_c_and_v_copy_and_paste_a_transform_as_the_window_sends_them() {
    // Found by hand: in the window both shortcuts did nothing, because the window sends
    // clipboard events instead of keys for Ctrl+(Shift+)C and Ctrl+(Shift+)V.
    let mut h = harness(room());
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    let copied = clipboard_chord(&mut h, egui::Event::Copy, CTRL_SHIFT);
    assert!(
        h.query_by_label_contains("Copied the transform of Chair")
            .is_some()
    );
    let text = copied.expect("the transform goes to the system clipboard too");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        serde_json::json!({"position": [-3.0, 0.0, 0.0], "rotation": [0.0, 0.0, 0.0, 1.0],
            "scale": [1.0, 1.0, 1.0]})
    );
    h.get_by_label(&row("Lamp", LAMP)).click();
    h.run();
    let _ = clipboard_chord(&mut h, egui::Event::Paste(text.clone()), CTRL_SHIFT);
    let chair = h.state().doc.local_transform(CHAIR);
    let lamp = h.state().doc.local_transform(LAMP);
    assert_eq!(lamp.position, chair.position, "pasted onto the Lamp");
    assert_eq!(lamp.parent, TABLE, "a paste keeps the parent");

    // While typing (here in the Lamp's Name field), the chord is the text field's copy.
    h.get_by(|n| n.role() == Role::TextInput && n.value().as_deref() == Some("Lamp"))
        .click();
    h.run();
    let copied = clipboard_chord(&mut h, egui::Event::Copy, CTRL_SHIFT);
    assert_ne!(copied.as_deref(), Some(text.as_str()));
    assert!(
        h.query_by_label_contains("Copied the transform of Lamp")
            .is_none()
    );
}

#[test]
fn search_keeps_matches_and_their_ancestors() {
    let mut h = harness(room());
    h.get_by_role(Role::TextInput).click();
    h.run();
    h.get_by_role(Role::TextInput).type_text("bulb");
    h.run();
    assert!(h.query_by_label(&row("Bulb", BULB)).is_some());
    assert!(
        h.query_by_label(&row("Lamp", LAMP)).is_some(),
        "ancestor kept"
    );
    assert!(
        h.query_by_label(&row("Table", TABLE)).is_some(),
        "ancestor kept"
    );
    assert!(
        h.query_by_label(&row("Chair", CHAIR)).is_none(),
        "filtered out"
    );
}

#[test]
fn typing_garbage_in_a_number_field_is_refused_visibly() {
    let mut h = harness(room());
    type_into_chair_field(&mut h, "Local position y", "abc");
    assert!(
        h.query_by_label_contains("\"abc\" is not a finite number")
            .is_some()
    );
    assert_eq!(h.state().doc.local_transform(CHAIR).position.y, 0.0);
    // Nothing changed, so nothing claims an edit (the status bar said "Move Chair").
    let status = h.state().status.clone();
    assert!(status.is_none(), "status bar: {status:?}");
    assert_eq!(h.state().doc.history().undo_label(), None, "no undo step");
}

#[test]
fn rerooted_entities_show_a_cycle_badge() {
    let mut r = Replica::new();
    r.put_transform(
        Entity(600),
        &Transform {
            parent: Entity(601),
            ..Transform::IDENTITY
        },
    )
    .unwrap();
    r.put_transform(
        Entity(601),
        &Transform {
            parent: Entity(600),
            ..Transform::IDENTITY
        },
    )
    .unwrap();
    let h = harness(Document::new(r, None));
    assert_eq!(h.get_all_by_label("⟲ cycle").count(), 2);
    assert!(
        h.query_by_label("⟲ 1 parenting cycle(s)").is_some(),
        "the status bar counts it"
    );
}

#[test]
fn picking_in_the_viewport_brings_the_entitys_row_into_view() {
    // Found by hand in the Cozy House: the picked House's row stayed below the fold.
    let count = 120u32;
    let r = numbered_scene("Crate", count, |i| Transform {
        position: Vec3::new(i as f32 * 0.5 - 30.0, 0.0, 0.0),
        ..Transform::IDENTITY
    });
    let last = Entity(512 + count - 1);
    let mut h = harness(Document::new(r, None));
    h.run();
    let label = row(&format!("Crate {}", count - 1), last);
    let shown = |h: &Harness<'_, Workbench>| {
        h.query_by_label(&label)
            .is_some_and(|n| n.rect().bottom() < 800.0 && n.rect().height() > 1.0)
    };
    assert!(!shown(&h), "the last row starts out of view");

    // Click the last crate where the viewport draws it.
    let rect = h.state().viewport.rect().expect("the viewport is shown");
    let camera = h.state().viewport.viewport.camera.clone();
    let world = h
        .state()
        .doc
        .view()
        .world_matrix(last)
        .expect("a world pose");
    let p = camera
        .project(
            world.transform_point3(Vec3::ZERO),
            glam::Vec2::new(rect.width(), rect.height()),
        )
        .expect("in front of the camera");
    click_at(&mut h, rect.min + egui::vec2(p.x, p.y));
    h.run();
    assert_eq!(h.state().doc.selection.entities(), [last]);
    assert!(shown(&h), "the picked entity's row is in view");
}

#[test]
fn a_deep_row_cuts_its_name_short_instead_of_running_under_the_toggles() {
    // Found by hand in the 65,024-entity example: names ran under the eye and lock buttons.
    let depth = 14u32;
    let r = numbered_scene("A rather long entity name", depth, |i| Transform {
        parent: if i == 0 {
            Entity::ROOT
        } else {
            Entity(511 + i)
        },
        ..Transform::IDENTITY
    });
    let h = harness(Document::new(r, None));
    let deepest = row(
        &format!("A rather long entity name {}", depth - 1),
        Entity(511 + depth),
    );
    let label = h.get_by_label(&deepest).rect();
    let toggles_left = h
        .get_all_by(|n| matches!(n.role(), Role::Button | Role::CheckBox))
        .filter(|b| (b.rect().center().y - label.center().y).abs() < 4.0)
        .filter(|b| {
            b.accesskit_node()
                .label()
                .is_some_and(|l| ["👁", "–", "◌", "Lock"].contains(&l.as_str()))
        })
        .map(|b| b.rect().left())
        .fold(f32::INFINITY, f32::min);
    assert!(toggles_left.is_finite(), "the row has its toggles");
    assert!(
        label.right() <= toggles_left + 0.5,
        "the name ends at {} but the toggles start at {toggles_left}",
        label.right()
    );
}

/// A scene of `count` entities numbered from 512, named "`name` i", each with `transform(i)`.
pub(crate) fn numbered_scene(
    name: &str,
    count: u32,
    transform: impl Fn(u32) -> Transform,
) -> Replica {
    let mut r = Replica::new();
    for i in 0..count {
        let e = Entity(512 + i);
        r.put_transform(e, &transform(i)).unwrap();
        r.put(e, ids::NAME, encode_name(&format!("{name} {i}")))
            .unwrap();
    }
    r
}

/// A primary click at `pos` (points), with the hover before it that egui needs.
pub(crate) fn click_at<State>(h: &mut Harness<'_, State>, pos: egui::Pos2) {
    h.hover_at(pos);
    h.run();
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
    }
    h.run();
}

#[test]
fn a_transform_that_is_not_finite_is_badged_explained_and_fixed_by_typing_a_number() {
    // The Chair's position x is an infinity (as a JSON number beyond f32's range reads).
    let doc = room();
    let mut bad = doc.local_transform(CHAIR);
    bad.position.x = f32::INFINITY;
    let mut replica = doc.replica().clone();
    replica.put_transform(CHAIR, &bad).unwrap();
    let mut h = harness(Document::new(replica, None));
    assert_eq!(
        h.get_all_by_label("△ not finite").count(),
        1,
        "on the Chair only"
    );
    assert!(
        h.query_by_label_contains("△ 1 with a Transform that is not finite")
            .is_some(),
        "the scene summary counts it"
    );
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    assert!(
        h.query_by_label_contains(
            "Not drawn: its own Transform holds position x (inf), which is not a finite number"
        )
        .is_some()
    );

    type_into_chair_field(&mut h, "Local position x", "-3");
    assert_eq!(h.state().doc.local_transform(CHAIR).position.x, -3.0);
    assert!(h.query_by_label("△ not finite").is_none());
    assert!(h.query_by_label_contains("Not drawn").is_none());
    // One undo brings the value, and the badge, back.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert!(
        h.state()
            .doc
            .local_transform(CHAIR)
            .position
            .x
            .is_infinite()
    );
    assert_eq!(h.get_all_by_label("△ not finite").count(), 1);
}

#[test]
fn revealing_an_entity_far_down_a_long_list_scrolls_its_row_into_view() {
    // 400 siblings: the row of the 350th lies about 8,000 points down the list.
    let r = numbered_scene("Item", 400, |_| Transform::IDENTITY);
    let mut h = harness(Document::new(r, None));
    let target = Entity(512 + 350);
    assert!(
        h.query_by_label(&row("Item 350", target)).is_none(),
        "not drawn yet"
    );
    {
        let bench = h.state_mut();
        bench.hierarchy.reveal(&bench.doc, target);
    }
    h.run();
    h.run();
    let rect = h.get_by_label(&row("Item 350", target)).rect();
    assert!(
        rect.top() >= 0.0 && rect.bottom() <= 800.0,
        "the row is on screen: {rect:?}"
    );
}

#[test]
fn rows_too_deep_to_indent_keep_room_for_their_name_and_say_their_level() {
    // A chain of 25: Link 0 under the root, each next one under the previous.
    let r = numbered_scene("Link", 25, |i| Transform {
        parent: if i == 0 {
            Entity::ROOT
        } else {
            Entity(511 + i)
        },
        ..Transform::IDENTITY
    });
    let h = harness(Document::new(r, None));
    // Shallow rows are indented in full and carry no level.
    assert!(h.query_by_label("1›").is_none());
    let shallow = h.get_by_label(&row("Link 1", Entity(513))).rect();
    let deepest = h.get_by_label(&row("Link 24", Entity(536))).rect();
    assert!(
        h.query_by_label("25›").is_some(),
        "the deepest row says its level"
    );
    // "Link 24  ·  536" takes about 86 points; a 60-point floor cut it to "Link 2…".
    assert!(
        deepest.width() >= 80.0,
        "the name is not cut short: {deepest:?}"
    );
    assert!(deepest.left() > shallow.left(), "still indented further");
}
