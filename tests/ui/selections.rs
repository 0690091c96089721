//! Large selections: the queries a frame or an edit makes about them answer from what they
//! touch (the selected entities and their ancestors), not from every pair of selected entities,
//! and a Shift-click selects the rows shown between the anchor and the click.

use egui::Modifiers;
use egui_kittest::kittest::Queryable;
use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_editor::{Command, Document, Selection};

use crate::ui_flows::harness;

/// A chain of `len` entities from 512 down, each the child of the one before.
fn chain(len: u16) -> Document {
    let mut r = Replica::new();
    let mut parent = Entity::ROOT;
    for number in 512..512 + len {
        let e = Entity(u32::from(number));
        r.put_transform(e, &Transform::identity_under(parent))
            .unwrap();
        parent = e;
    }
    Document::new(r, None)
}

#[test]
fn the_top_level_of_a_whole_deep_chain_is_its_head() {
    // Every entity selected, each below all the others before it: before, each one was checked
    // against every other by walking up the chain (n² × depth, days at this size).
    let doc = chain(20_000);
    let all: Vec<Entity> = (512..512 + 20_000).map(Entity).collect();
    assert_eq!(doc.top_level(&all), vec![Entity(512)]);
    // Order and duplicates as given; a selected child under an unselected parent stays.
    let some = [
        Entity(700),
        Entity(600),
        Entity(600),
        Entity(20_000),
        Entity(512 + 19_999),
    ];
    assert_eq!(doc.top_level(&some), vec![Entity(600)]);
    assert_eq!(
        doc.top_level(&[Entity(20_511), Entity(20_000)]),
        vec![Entity(20_000)]
    );
    assert_eq!(
        doc.top_level(&[Entity(900), Entity(800)]),
        vec![Entity(800)]
    );
}

#[test]
fn duplicating_a_large_subtree_remaps_every_parent_to_the_copies() {
    let mut doc = chain(5_000);
    let created = doc
        .apply(Command::Duplicate {
            entities: vec![Entity(512)],
        })
        .unwrap()
        .created;
    let copy = created[0];
    assert_eq!(doc.local_transform(copy).parent, Entity::ROOT);
    // Walk down the copy: 5,000 entities, none of them an original.
    let mut node = copy;
    let mut count = 1;
    while let Some(child) = doc.view().children_of(node).next() {
        assert!(child.number() >= 512 + 5_000, "{child} is an original");
        assert_eq!(doc.local_transform(child).parent, node);
        node = child;
        count += 1;
    }
    assert_eq!(count, 5_000);
}

#[test]
fn a_selection_answers_membership_and_keeps_its_order() {
    let mut s = Selection::new();
    let many: Vec<Entity> = (512..65_535).map(Entity).collect();
    s.set(many.iter().copied().chain(many.iter().copied()));
    assert_eq!(s.len(), many.len(), "duplicates are dropped");
    assert!(s.contains(Entity(40_000)) && !s.contains(Entity(7)));
    assert_eq!(s.primary(), Some(Entity(65_534)));
    s.toggle(Entity(40_000));
    assert!(!s.contains(Entity(40_000)));
    s.retain(|e| e.0 % 2 == 0);
    assert!(!s.contains(Entity(513)) && s.contains(Entity(514)));
    let even = many.iter().filter(|e| e.0 % 2 == 0).count();
    assert_eq!(s.len(), even - 1, "the even ones but the one toggled off");
    let before = s.generation();
    s.toggle(Entity(40_000));
    assert_ne!(s.generation(), before, "a change is a new generation");
    assert_eq!(s.primary(), Some(Entity(40_000)));
}

/// Table > (Lamp, Shelf > Book), Chair: five rows when expanded.
fn furniture() -> Document {
    let mut r = Replica::new();
    let mut add = |number: u32, name: &str, parent: u32| {
        let e = Entity(number);
        r.put_transform(e, &Transform::identity_under(Entity(parent)))
            .unwrap();
        r.put(e, ids::NAME, encode_name(name)).unwrap();
    };
    add(512, "Table", 0);
    add(513, "Lamp", 512);
    add(514, "Shelf", 512);
    add(515, "Book", 514);
    add(516, "Chair", 0);
    Document::new(r, None)
}

#[test]
fn shift_click_selects_the_rows_shown_between_the_anchor_and_the_click() {
    let mut h = harness(furniture());
    let shelf = Entity(514);
    h.state_mut().hierarchy.set_collapsed(shelf, true);
    h.run();
    h.get_by_label("Lamp  ·  513").click();
    h.run();
    h.get_by_label("Chair  ·  516")
        .click_modifiers(Modifiers::SHIFT);
    h.run();
    // The Book is inside the collapsed Shelf: not shown, so not selected.
    let selected = h.state().doc.selection.entities().to_vec();
    assert_eq!(selected, vec![Entity(513), shelf, Entity(516)]);
    // Expanded, the same click takes the Book too; the anchor stays on the Lamp.
    h.state_mut().hierarchy.set_collapsed(shelf, false);
    h.run();
    h.get_by_label("Chair  ·  516")
        .click_modifiers(Modifiers::SHIFT);
    h.run();
    let selected = h.state().doc.selection.entities().to_vec();
    assert_eq!(selected, vec![Entity(513), shelf, Entity(515), Entity(516)]);
}
