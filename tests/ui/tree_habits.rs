//! The hierarchy habits Godot and Unity users bring, driven with egui_kittest: hidden subtrees
//! look hidden, the search match is highlighted, F2 selects the whole name, a drop between rows
//! reorders siblings, undoing a delete reselects.

use std::sync::Arc;

use egui::accesskit::Role;
use egui::epaint::text::ByteRangeExt;
use egui::epaint::{Galley, Shape};
use egui::{Color32, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use scenetree::ui::{Workbench, style};
use scenetree_core::model::Entity;
use scenetree_dcl::nodes::nodes_id;
use scenetree_editor::Command;
use scenetree_viewport::NullRenderer;

use crate::ui_flows::{BULB, CHAIR, LAMP, TABLE, delete_row, drag_and_hold, harness, room, row};

/// Every text galley painted in the last frame.
fn galleys(h: &Harness<'_, Workbench>) -> Vec<Arc<Galley>> {
    fn walk(shape: &Shape, out: &mut Vec<Arc<Galley>>) {
        match shape {
            Shape::Text(text) => out.push(text.galley.clone()),
            Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for clipped in &h.output().shapes {
        walk(&clipped.shape, &mut out);
    }
    out
}

/// The galley that paints exactly `text`.
fn galley(h: &Harness<'_, Workbench>, text: &str) -> Arc<Galley> {
    galleys(h)
        .into_iter()
        .find(|g| g.job.text == text)
        .unwrap_or_else(|| panic!("nothing paints {text:?}"))
}

/// The colour of the first character of a painted text.
fn text_color(h: &Harness<'_, Workbench>, text: &str) -> Color32 {
    galley(h, text).job.sections[0].format.color
}

/// The label of the eye button on the same row as `row_label`.
fn eye_on_row(h: &Harness<'_, Workbench>, row_label: &str) -> String {
    let y = h.get_by_label(row_label).rect().center().y;
    h.get_all_by_role(Role::Button)
        .filter(|b| (b.rect().center().y - y).abs() < 4.0)
        .filter_map(|b| b.accesskit_node().label())
        .find(|l| ["👁", "–", "◌"].contains(&l.as_str()))
        .expect("a hide toggle on the row")
}

#[test]
fn hiding_an_entity_makes_its_whole_subtree_look_hidden() {
    let mut h = harness(room());
    let normal = text_color(&h, &row("Chair", CHAIR));
    assert_eq!(text_color(&h, &row("Bulb", BULB)), normal);

    let table_row = h.get_by_label(&row("Table", TABLE)).rect();
    h.get_all_by_label("👁")
        .find(|b| (b.rect().center().y - table_row.center().y).abs() < 4.0)
        .expect("Table's eye")
        .click();
    h.run();
    assert!(h.state().doc.is_hidden(TABLE));

    for (name, e) in [("Table", TABLE), ("Lamp", LAMP), ("Bulb", BULB)] {
        let faded = text_color(&h, &row(name, e));
        assert!(
            faded.a() < normal.a() || faded.r() < normal.r(),
            "{name} looks hidden: {faded:?} against {normal:?}"
        );
    }
    assert_eq!(
        text_color(&h, &row("Chair", CHAIR)),
        normal,
        "a sibling is not"
    );
    // A hide flags the whole subtree, as the Decentraland Inspector does.
    for (name, e) in [("Table", TABLE), ("Lamp", LAMP), ("Bulb", BULB)] {
        assert_eq!(eye_on_row(&h, &row(name, e)), "–", "{name}");
    }
    assert_eq!(eye_on_row(&h, &row("Chair", CHAIR)), "👁");
    // An entity put under a hidden one later is not flagged itself, yet it is not drawn: its
    // row says so.
    h.state_mut()
        .doc
        .apply(Command::Reparent {
            entities: vec![CHAIR],
            parent: LAMP,
            keep_world: true,
        })
        .unwrap();
    h.run();
    assert!(!h.state().doc.is_hidden(CHAIR));
    assert_eq!(eye_on_row(&h, &row("Chair", CHAIR)), "◌");
    assert_ne!(text_color(&h, &row("Chair", CHAIR)), normal);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();

    // Showing Table again brings the subtree back.
    let table_row = h.get_by_label(&row("Table", TABLE)).rect();
    h.get_all_by_label("–")
        .find(|b| (b.rect().center().y - table_row.center().y).abs() < 4.0)
        .expect("Table's toggle")
        .click();
    h.run();
    assert_eq!(text_color(&h, &row("Bulb", BULB)), normal);
}

#[test]
fn the_search_match_is_highlighted_in_the_row() {
    let mut h = harness(room());
    h.get_by_role(Role::TextInput).click();
    h.run();
    h.get_by_role(Role::TextInput).type_text("AMP");
    h.run();
    let lamp = galley(&h, &row("Lamp", LAMP));
    let highlighted: Vec<&str> = lamp
        .job
        .sections
        .iter()
        .filter(|s| s.format.background == style::SEARCH_MATCH)
        .map(|s| s.byte_range.slice(&lamp.job.text))
        .collect();
    assert_eq!(highlighted, ["amp"]);
    // An ancestor kept only for its matching descendant has nothing highlighted.
    let table = galley(&h, &row("Table", TABLE));
    assert!(
        table
            .job
            .sections
            .iter()
            .all(|s| s.format.background != style::SEARCH_MATCH)
    );
}

/// The text field that has the keyboard.
fn focused_field<'a>(h: &'a Harness<'_, Workbench>) -> egui_kittest::Node<'a> {
    h.get_by(|n| n.role() == Role::TextInput && n.is_focused())
}

#[test]
fn ctrl_shift_n_and_alt_shift_n_create_an_entity_and_a_child_as_in_unity() {
    let mut h = harness(room());
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::N);
    h.run();
    let doc = &h.state().doc;
    let created = doc.selection.primary().expect("the new entity is selected");
    assert_eq!(doc.name_of(created).as_deref(), Some("Entity"));
    assert_eq!(doc.view().effective_parent_of(created), Some(Entity::ROOT));
    h.key_press_modifiers(Modifiers::ALT | Modifiers::SHIFT, Key::N);
    h.run();
    let doc = &h.state().doc;
    let child = doc.selection.primary().unwrap();
    assert_eq!(doc.name_of(child).as_deref(), Some("Entity_2"));
    assert_eq!(doc.view().effective_parent_of(child), Some(created));
    assert!(
        h.query_by_label(&row("Entity_2", child)).is_some(),
        "its row is shown"
    );
}

#[test]
fn keys_1_3_7_look_along_the_axes_as_blenders_and_godots_keypad_does() {
    use scenetree_viewport::camera::ViewDirection;
    let mut h = harness(room());
    let camera = |h: &Harness<'_, Workbench>| h.state().viewport.viewport.camera.clone();
    let before = camera(&h);
    let views = [
        (Modifiers::NONE, Key::Num7, ViewDirection::Top),
        (Modifiers::COMMAND, Key::Num1, ViewDirection::Back),
        (Modifiers::NONE, Key::Num3, ViewDirection::Right),
        (Modifiers::COMMAND, Key::Num7, ViewDirection::Bottom),
        (Modifiers::NONE, Key::Num1, ViewDirection::Front),
    ];
    for (modifiers, key, view) in views {
        h.key_press_modifiers(modifiers, key);
        h.run();
        let now = camera(&h);
        assert_eq!((now.yaw, now.pitch), view.yaw_pitch(), "{view:?}");
        assert_eq!((now.target, now.distance), (before.target, before.distance));
    }
    // While typing, a digit is text.
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run();
    focused_field(&h).type_text("7");
    h.key_press(Key::Num7);
    h.run();
    assert_eq!(camera(&h).pitch, 0.0, "still the front view");
}

#[test]
fn ctrl_f_puts_the_keyboard_in_the_search_box_with_its_text_selected() {
    let mut h = harness(room());
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run();
    focused_field(&h).type_text("bulb");
    h.run();
    assert_eq!(h.state().hierarchy.search, "bulb");
    assert!(h.query_by_label(&row("Bulb", BULB)).is_some());
    assert!(h.query_by_label(&row("Chair", CHAIR)).is_none());
    // From the Peers workspace too; the last search is selected, so typing replaces it.
    h.key_press_modifiers(Modifiers::COMMAND, Key::F2);
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run();
    assert_eq!(focused_field(&h).value().as_deref(), Some("bulb"));
    focused_field(&h).type_text("chair");
    h.run();
    assert_eq!(h.state().hierarchy.search, "chair");
    assert!(h.query_by_label(&row("Chair", CHAIR)).is_some());
}

/// Ctrl+F, then types `text` over the search box's selected text.
fn search_with_ctrl_f(h: &mut Harness<'_, Workbench>, text: &str) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run();
    focused_field(h).type_text(text);
    h.run();
}

#[test]
fn down_or_enter_in_the_search_box_selects_the_first_match_and_gives_the_tree_the_keys() {
    let mut h = harness(room());
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    search_with_ctrl_f(&mut h, "bulb");
    // The rows are Table and Lamp (ancestors shown around the match) and Bulb.
    h.key_press(Key::ArrowDown);
    h.run();
    assert_eq!(
        h.state().doc.selection.entities(),
        [BULB],
        "the first row that matches, not its ancestors"
    );
    h.key_press(Key::ArrowUp);
    h.run();
    assert_eq!(
        h.state().doc.selection.entities(),
        [LAMP],
        "the arrows now move in the tree"
    );
    // Enter does the same; a selection among the results stays.
    search_with_ctrl_f(&mut h, "chair");
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().doc.selection.entities(), [CHAIR]);
    search_with_ctrl_f(&mut h, "a");
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(
        h.state().doc.selection.entities(),
        [CHAIR],
        "Chair is among the rows"
    );
}

#[test]
fn f2_selects_the_whole_name_so_typing_replaces_it() {
    // A double-click on a row. The harness runs a frame per event, a quarter second each by
    // default: longer than egui's double-click delay, so this one runs 60 frames a second.
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_step_dt(1.0 / 60.0)
        .build_ui_state(
            |ui, bench: &mut Workbench| bench.ui(ui, &mut NullRenderer::default()),
            Workbench::new(room()),
        );
    h.run();
    let lamp = row("Lamp", LAMP);
    h.get_by_label(&lamp).click();
    h.get_by_label(&lamp).click();
    h.run();
    type_over_name(&mut h, LAMP, "Lamp", "Sconce");

    // F2 starts the same rename.
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    h.key_press(Key::F2);
    h.run();
    type_over_name(&mut h, CHAIR, "Chair", "Armchair");
}

/// In the rename field just opened on `entity` (showing `old`), types `new` without selecting
/// anything first, presses Enter and checks the name is `new`: the whole name was selected, as
/// in Godot, Unity and VS Code.
fn type_over_name(h: &mut Harness<'_, Workbench>, entity: Entity, old: &str, new: &str) {
    assert_eq!(focused_field(h).value().as_deref(), Some(old));
    focused_field(h).type_text(new);
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().doc.name_of(entity).as_deref(), Some(new));
}

#[test]
fn undoing_a_delete_reselects_it_and_redoing_a_duplicate_reselects_the_copy() {
    let mut h = harness(room());
    delete_row(&mut h, &row("Lamp", LAMP));
    assert!(h.query_by_label(&row("Lamp", LAMP)).is_none());
    assert!(h.state().doc.selection.is_empty());
    // Something else selected meanwhile: the undo still gives back the deleted selection.
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc.selection.entities(), &[LAMP]);
    assert!(h.query_by_label(&row("Lamp", LAMP)).is_some());

    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::D);
    h.run();
    let copy = h.state().doc.selection.entities().to_vec();
    assert_eq!(copy.len(), 1);
    assert_ne!(copy[0], CHAIR);
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert!(h.state().doc.selection.is_empty(), "the copy is gone");
    h.get_by_label(&row("Table", TABLE)).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run();
    assert_eq!(h.state().doc.selection.entities(), copy.as_slice());
}

/// Starts dragging the row labelled `from` and moves the pointer to `to`; the button stays
/// down.
fn drag_to(h: &mut Harness<'_, Workbench>, from: &str, to: egui::Pos2) {
    let start = h.get_by_label(from).rect().center();
    drag_and_hold(h, start, to);
    // The hint above the rows follows one frame later.
    h.run();
}

/// Releases the button at `at`.
fn drop_at(h: &mut Harness<'_, Workbench>, at: egui::Pos2) {
    h.drop_at(at);
    h.run();
    h.run();
}

/// A point in the row labelled `label`, `share` of the way down (0 = top, 1 = bottom).
fn in_row(h: &Harness<'_, Workbench>, label: &str, share: f32) -> egui::Pos2 {
    let row = h.get_by_label(label).rect();
    egui::pos2(row.center().x, row.top() + row.height() * share)
}

/// The entities of the rows, top to bottom.
fn shown_rows(h: &mut Harness<'_, Workbench>) -> Vec<Entity> {
    let bench = h.state_mut();
    bench.hierarchy.visible_entities(&bench.doc)
}

/// Horizontal lines painted in the drop marker's colour in the last frame.
fn drop_lines(h: &Harness<'_, Workbench>) -> usize {
    fn walk(shape: &Shape, n: &mut usize) {
        match shape {
            Shape::LineSegment { points, stroke }
                if stroke.color == style::DROP_MARKER && points[0].y == points[1].y =>
            {
                *n += 1
            }
            Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, n)),
            _ => {}
        }
    }
    let mut n = 0;
    for clipped in &h.output().shapes {
        walk(&clipped.shape, &mut n);
    }
    n
}

/// The drag preview: a painted text equal to `name` (rows paint "Name  ·  id") near `at`.
fn preview_near(h: &Harness<'_, Workbench>, name: &str, at: egui::Pos2) -> bool {
    fn walk(shape: &Shape, name: &str, at: egui::Pos2, found: &mut bool) {
        match shape {
            Shape::Text(text) if text.galley.job.text == name => {
                *found |= text.pos.distance(at) < 60.0;
            }
            Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, name, at, found)),
            _ => {}
        }
    }
    let mut found = false;
    for clipped in &h.output().shapes {
        walk(&clipped.shape, name, at, &mut found);
    }
    found
}

#[test]
fn a_drop_between_rows_reorders_siblings_and_stores_the_order_in_inspector_nodes() {
    let mut h = harness(room());
    assert_eq!(shown_rows(&mut h), [TABLE, LAMP, BULB, CHAIR], "by id");
    assert!(h.state().doc.inspector_nodes().is_none());

    // Chair dragged to the top edge of Table's row: a line shows where, its name follows.
    let target = in_row(&h, &row("Table", TABLE), 0.1);
    drag_to(&mut h, &row("Chair", CHAIR), target);
    assert_eq!(drop_lines(&h), 1, "an insertion line above Table");
    assert!(
        preview_near(&h, "Chair", target),
        "the dragged name at the cursor"
    );
    assert!(
        h.query_by_label_contains("Place Chair first under the scene root")
            .is_some()
    );
    drop_at(&mut h, target);

    assert_eq!(shown_rows(&mut h), [CHAIR, TABLE, LAMP, BULB]);
    let doc = &h.state().doc;
    let nodes = doc.inspector_nodes().expect("the order is stored");
    assert_eq!(nodes.children_of(Entity::ROOT), [CHAIR, TABLE]);
    assert_eq!(nodes.children_of(TABLE), [LAMP]);
    assert_eq!(nodes.children_of(LAMP), [BULB]);
    assert_eq!(doc.local_transform(CHAIR).parent, Entity::ROOT);
    assert_eq!(doc.history().undo_label(), Some("Reorder Chair"));
    assert!(
        drop_lines(&h) == 0 && !preview_near(&h, "Chair", target),
        "gone after the drop"
    );

    // Bulb to the top edge of Table's row, now second: out of Lamp, between Chair and Table,
    // where it was in the world.
    let world = doc.view().world_matrix(BULB).unwrap();
    let target = in_row(&h, &row("Table", TABLE), 0.1);
    drag_to(&mut h, &row("Bulb", BULB), target);
    drop_at(&mut h, target);
    let doc = &h.state().doc;
    assert_eq!(doc.local_transform(BULB).parent, Entity::ROOT);
    assert!(
        doc.view()
            .world_matrix(BULB)
            .unwrap()
            .abs_diff_eq(world, 1e-4)
    );
    let nodes = doc.inspector_nodes().unwrap();
    assert_eq!(nodes.children_of(Entity::ROOT), [CHAIR, BULB, TABLE]);
    assert!(nodes.children_of(LAMP).is_empty());
    assert_eq!(shown_rows(&mut h), [CHAIR, BULB, TABLE, LAMP]);
    let depth = |h: &Harness<'_, Workbench>, label: &str| h.get_by_label(label).rect().left();
    assert_eq!(
        depth(&h, &row("Bulb", BULB)),
        depth(&h, &row("Chair", CHAIR))
    );

    // Each drop is one undo step: the first undo puts Bulb back under Lamp, the second
    // removes the Nodes value the first drop created.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert_eq!(h.state().doc.local_transform(BULB).parent, LAMP);
    assert_eq!(shown_rows(&mut h), [CHAIR, TABLE, LAMP, BULB]);
    // The root now holds inspector::Nodes; it is still not one of the scene's entities.
    assert_eq!(h.state().doc.scene_entity_count(), 4);
    assert!(h.query_by_label("4 entities").is_some());
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    assert!(
        h.state()
            .doc
            .replica()
            .component_data(Entity::ROOT, nodes_id())
            .is_none()
    );
    assert_eq!(shown_rows(&mut h), [TABLE, LAMP, BULB, CHAIR]);
}

#[test]
fn undoing_a_delete_while_simulating_peers_shows_the_entity_back_in_its_place() {
    let mut h = harness(room());
    // Chair first: the order now lives in inspector::Nodes.
    h.state_mut()
        .doc
        .apply(Command::Reorder {
            entities: vec![CHAIR],
            parent: Entity::ROOT,
            after: None,
            keep_world: true,
        })
        .unwrap();
    h.run();
    assert_eq!(shown_rows(&mut h), [CHAIR, TABLE, LAMP, BULB]);
    h.state_mut().doc.start_simulation(2, 1).unwrap();
    h.run();
    h.state_mut()
        .doc
        .apply(Command::Delete {
            entities: vec![CHAIR],
        })
        .unwrap();
    h.run();
    assert_eq!(shown_rows(&mut h), [TABLE, LAMP, BULB]);
    // The undo writes Nodes again within the same tick: the peer's register keeps the
    // delete's timestamp (one message per tick), and the tree must follow all the same.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run();
    let nodes = h.state().doc.inspector_nodes().unwrap();
    assert_eq!(nodes.children_of(Entity::ROOT), [CHAIR, TABLE]);
    assert_eq!(shown_rows(&mut h), [CHAIR, TABLE, LAMP, BULB]);
}

#[test]
fn a_drop_below_an_expanded_row_makes_the_first_child_and_onto_a_row_still_reparents() {
    let mut h = harness(room());
    // The bottom edge of Table's row (expanded, Lamp below it): first under Table.
    let target = in_row(&h, &row("Table", TABLE), 0.9);
    drag_to(&mut h, &row("Chair", CHAIR), target);
    assert_eq!(drop_lines(&h), 1);
    drop_at(&mut h, target);
    assert_eq!(h.state().doc.local_transform(CHAIR).parent, TABLE);
    assert_eq!(shown_rows(&mut h), [TABLE, CHAIR, LAMP, BULB]);
    assert_eq!(
        h.state().doc.inspector_nodes().unwrap().children_of(TABLE),
        [CHAIR, LAMP]
    );

    // The middle of Lamp's row: under Lamp, after its children; no line, the row is framed.
    let target = in_row(&h, &row("Lamp", LAMP), 0.5);
    drag_to(&mut h, &row("Chair", CHAIR), target);
    assert_eq!(drop_lines(&h), 0);
    assert!(h.query_by_label_contains("Move Chair under Lamp").is_some());
    drop_at(&mut h, target);
    let doc = &h.state().doc;
    assert_eq!(doc.local_transform(CHAIR).parent, LAMP);
    assert_eq!(doc.history().undo_label(), Some("Reparent Chair"));
    assert_eq!(
        doc.inspector_nodes().unwrap().children_of(LAMP),
        [BULB, CHAIR]
    );
    assert_eq!(shown_rows(&mut h), [TABLE, LAMP, BULB, CHAIR]);

    // Between rows under its own child: refused, said why, nothing written.
    let steps = h.state().doc.history().undo_len();
    let target = in_row(&h, &row("Bulb", BULB), 0.9);
    drag_to(&mut h, &row("Table", TABLE), target);
    assert!(
        h.query_by_label_contains("would become its own ancestor")
            .is_some()
    );
    drop_at(&mut h, target);
    assert_eq!(h.state().doc.history().undo_len(), steps);
    assert_eq!(h.state().doc.local_transform(TABLE).parent, Entity::ROOT);
}

#[test]
fn a_badge_keeps_the_room_it_needs_and_no_more() {
    // A row with a cycle badge in the default hierarchy width shows its whole name (a fixed
    // reserve for the badge cut "Lamp · 600" short).
    let mut r = scenetree_core::crdt::Replica::new();
    for (e, parent, name) in [(600, 601, "Lamp"), (601, 600, "Table")] {
        let t = scenetree_core::model::Transform {
            parent: Entity(parent),
            ..scenetree_core::model::Transform::IDENTITY
        };
        r.put_transform(Entity(e), &t).unwrap();
        r.put(
            Entity(e),
            scenetree_core::model::ids::NAME,
            scenetree_core::model::encode_name(name),
        )
        .unwrap();
    }
    let h = harness(scenetree_editor::Document::new(r, None));
    assert_eq!(h.get_all_by_label("⟲ cycle").count(), 2);
    for (name, e) in [("Lamp", 600), ("Table", 601)] {
        let label = row(name, Entity(e));
        assert!(!galley(&h, &label).elided, "{label} is cut short");
    }
}

#[test]
fn arrow_keys_walk_the_tree_as_in_other_editors() {
    // Rows: Table, Lamp (under Table), Bulb (under Lamp), Chair.
    let mut h = harness(room());
    let selected = |h: &Harness<'_, Workbench>| h.state().doc.selection.entities().to_vec();
    let press = |h: &mut Harness<'_, Workbench>, modifiers: Modifiers, key: Key| {
        h.key_press_modifiers(modifiers, key);
        h.run();
    };
    // Nothing selected: Down starts at the first row.
    press(&mut h, Modifiers::NONE, Key::ArrowDown);
    assert_eq!(selected(&h), [TABLE]);
    press(&mut h, Modifiers::NONE, Key::ArrowDown);
    press(&mut h, Modifiers::NONE, Key::ArrowDown);
    assert_eq!(selected(&h), [BULB]);
    press(&mut h, Modifiers::NONE, Key::ArrowUp);
    assert_eq!(selected(&h), [LAMP]);
    // Shift extends from the anchor, the new end primary (the inspector shows it).
    press(&mut h, Modifiers::SHIFT, Key::ArrowDown);
    press(&mut h, Modifiers::SHIFT, Key::ArrowDown);
    assert_eq!(selected(&h), [LAMP, BULB, CHAIR]);
    press(&mut h, Modifiers::SHIFT, Key::ArrowUp);
    assert_eq!(selected(&h), [LAMP, BULB]);
    // Left on a leaf goes to its parent; on an expanded row it collapses it.
    press(&mut h, Modifiers::NONE, Key::ArrowLeft);
    assert_eq!(selected(&h), [LAMP]);
    press(&mut h, Modifiers::NONE, Key::ArrowLeft);
    assert_eq!(selected(&h), [LAMP], "collapsing keeps the selection");
    assert!(h.query_by_label(&row("Bulb", BULB)).is_none(), "collapsed");
    // Down now skips the hidden Bulb.
    press(&mut h, Modifiers::NONE, Key::ArrowDown);
    assert_eq!(selected(&h), [CHAIR]);
    press(&mut h, Modifiers::NONE, Key::ArrowUp);
    // Right expands, then goes to the first child.
    press(&mut h, Modifiers::NONE, Key::ArrowRight);
    assert!(h.query_by_label(&row("Bulb", BULB)).is_some(), "expanded");
    assert_eq!(selected(&h), [LAMP]);
    press(&mut h, Modifiers::NONE, Key::ArrowRight);
    assert_eq!(selected(&h), [BULB]);
    // While typing (here in the inspector's Name field) the arrows stay with the text field.
    h.get_by(|n| n.role() == Role::TextInput && n.value().as_deref() == Some("Bulb"))
        .click();
    h.run();
    press(&mut h, Modifiers::NONE, Key::ArrowUp);
    assert_eq!(selected(&h), [BULB]);
}

#[test]
fn ctrl_a_selects_every_entity_even_in_collapsed_rows() {
    let mut h = harness(room());
    h.state_mut().hierarchy.set_collapsed(LAMP, true);
    h.run();
    assert!(h.query_by_label(&row("Bulb", BULB)).is_none(), "collapsed");
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    assert_eq!(
        h.state().doc.selection.entities(),
        &[TABLE, LAMP, BULB, CHAIR],
        "in row order, the last one primary"
    );
    // In a text field, Ctrl+A selects its text instead.
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    h.get_by(|n| n.role() == Role::TextInput && n.value().as_deref() == Some("Chair"))
        .click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    assert_eq!(h.state().doc.selection.entities(), &[CHAIR]);
}

#[test]
fn a_rows_menu_frames_it_in_the_viewport() {
    let mut h = harness(room());
    let before = h.state().viewport.viewport.camera.clone();
    h.get_by_label(&row("Chair", CHAIR)).click_secondary();
    h.run();
    h.get_by_label("Frame Selection  (F)").click();
    h.run();
    h.run();
    assert_eq!(h.state().doc.selection.entities(), &[CHAIR]);
    let camera = &h.state().viewport.viewport.camera;
    let chair: glam::Vec3 = h
        .state()
        .doc
        .view()
        .world_affine(CHAIR)
        .unwrap()
        .translation
        .into();
    assert!(
        camera.target.distance(chair) < 0.5 && before.target.distance(chair) > 0.5,
        "the camera now looks at the chair ({chair}): {} (was {})",
        camera.target,
        before.target
    );
}
