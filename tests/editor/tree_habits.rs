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
use scenetree::editor::Command;
use scenetree::ui::{Workbench, style};

use crate::ui_flows::{BULB, CHAIR, LAMP, TABLE, harness, room, row};

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
