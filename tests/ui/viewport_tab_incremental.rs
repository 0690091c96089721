//! The Viewport tab's incremental item update gives exactly what a full build gives: after
//! each of a few hundred random edits (moves of entities with and without subtrees, several
//! at once, colours, visibility, selection, hiding, reparenting, undo), the tab that updated
//! its items in place holds the same items, in the same order, and the same gizmo targets as
//! a tab that built every item from scratch.

use std::collections::HashSet;

use glam::{Quat, Vec3};
use proptest::prelude::*;
use scenetree::ui::viewport_tab::ViewportTab;
use scenetree_core::examples;
use scenetree_core::model::Entity;
use scenetree_dcl::codec::ProtoMessage;
use scenetree_dcl::{MATERIAL, VISIBILITY, Visibility};
use scenetree_editor::{Command, Document};
use serde_json::json;

/// Entities of the generated scene (`examples::large`): 64 districts at the root, then a
/// ternary tree below them, so low numbers have large subtrees and high ones are leaves.
const COUNT: u32 = 1500;
const FIRST: u32 = 512;

#[derive(Clone, Debug)]
enum Edit {
    /// Moves, turns and scales the entities (numbers from the first scene entity).
    Move(Vec<(u32, [f32; 3], f32, f32)>),
    /// A new Material colour.
    Colour(u32, [f32; 3]),
    /// Visible or not, propagating to the children or not; `None` removes the component.
    Visibility(u32, Option<(bool, bool)>),
    Select(Vec<u32>),
    /// The editor's hide flag (not a document edit).
    Hide(u32),
    Reparent(u32, u32),
    Undo,
}

fn entity(n: u32) -> Entity {
    Entity(FIRST + n % COUNT)
}

fn arb_edit() -> impl Strategy<Value = Edit> {
    let n = 0..COUNT;
    let moved = (
        n.clone(),
        prop::array::uniform3(-5.0f32..5.0),
        -3.0f32..3.0,
        0.2f32..2.0,
    );
    prop_oneof![
        // Mostly moves, as a drag is: one entity (often one with children), or a few.
        6 => prop::collection::vec(moved.clone(), 1..2).prop_map(Edit::Move),
        3 => prop::collection::vec(
            (0u32..200, moved.1.clone(), moved.2.clone(), moved.3.clone()),
            1..2
        )
        .prop_map(Edit::Move),
        2 => prop::collection::vec(moved, 2..6).prop_map(Edit::Move),
        1 => (n.clone(), prop::array::uniform3(0.0f32..1.0)).prop_map(|(e, c)| Edit::Colour(e, c)),
        1 => (n.clone(), prop::option::of((any::<bool>(), any::<bool>())))
            .prop_map(|(e, v)| Edit::Visibility(e, v)),
        1 => prop::collection::vec(n.clone(), 0..3).prop_map(Edit::Select),
        1 => n.clone().prop_map(Edit::Hide),
        1 => (n.clone(), n).prop_map(|(e, p)| Edit::Reparent(e, p)),
        1 => Just(Edit::Undo),
    ]
}

/// Applies `edit`; refused edits (a reparent into the entity's own subtree, nothing to undo)
/// change nothing and are fine.
fn apply(doc: &mut Document, hidden: &mut HashSet<Entity>, edit: &Edit) {
    // Each edit is a step of its own (moves are applied as a drag's steps are).
    doc.end_coalescing();
    let _ = match edit {
        Edit::Move(moves) => {
            let items = moves
                .iter()
                .map(|&(n, at, turn, scale)| {
                    let e = entity(n);
                    let mut t = doc.local_transform(e);
                    t.position = Vec3::from(at);
                    t.rotation = Quat::from_rotation_y(turn);
                    t.scale = Vec3::splat(scale);
                    (e, t)
                })
                .collect();
            doc.apply_coalesced(Command::SetTransforms(items), 1)
        }
        Edit::Colour(n, [r, g, b]) => {
            let value = ProtoMessage::of_component(MATERIAL)
                .unwrap()
                .encode(&json!({"material": {"$case": "pbr", "pbr": {
                    "albedoColor": {"r": r, "g": g, "b": b, "a": 1}}}}))
                .unwrap();
            doc.apply(Command::SetComponent {
                entity: entity(*n),
                component: MATERIAL,
                value: Some(value),
            })
        }
        Edit::Visibility(n, v) => doc.apply(Command::SetComponent {
            entity: entity(*n),
            component: VISIBILITY,
            value: v.map(|(visible, propagate_to_children)| {
                Visibility {
                    visible,
                    propagate_to_children,
                }
                .encode()
            }),
        }),
        Edit::Select(entities) => {
            doc.selection.clear();
            for &n in entities {
                doc.selection.toggle(entity(n));
            }
            Ok(Default::default())
        }
        Edit::Hide(n) => {
            if !hidden.remove(&entity(*n)) {
                hidden.insert(entity(*n));
            }
            Ok(Default::default())
        }
        Edit::Reparent(n, p) => doc.apply(Command::Reparent {
            entities: vec![entity(*n)],
            parent: entity(*p),
            keep_world: true,
        }),
        Edit::Undo => {
            let _ = doc.undo();
            return;
        }
    };
}

/// Runs `edits`, updating one tab after each, and compares it with a tab that builds from
/// scratch; returns how many updates the tab took incrementally.
fn check(edits: &[Edit], selected: &[u32]) -> Result<u64, TestCaseError> {
    let mut doc = Document::new(examples::large(COUNT as usize), None);
    for &n in selected {
        doc.selection.toggle(entity(n));
    }
    let mut hidden = HashSet::new();
    let locked = HashSet::from([entity(7)]);
    let mut tab = ViewportTab::default();
    tab.update_scene(&doc, &hidden, &locked, 0.0);
    for (step, edit) in edits.iter().enumerate() {
        apply(&mut doc, &mut hidden, edit);
        let before = tab.scene().clone();
        let updated = tab.update_scene(&doc, &hidden, &locked, 0.0);
        let mut fresh = ViewportTab::default();
        let full = fresh.update_scene(&doc, &hidden, &locked, 0.0);
        prop_assert!(
            updated.items == full.items,
            "step {step} ({edit:?}): items differ from a full build's"
        );
        prop_assert_eq!(&updated.gizmo_targets, &full.gizmo_targets, "step {}", step);
        prop_assert_eq!(&updated.assets, &full.assets, "step {}", step);
        // The renderer is told exactly which items changed.
        if let Some(changes) = &updated.changes
            && changes.since == before.generation
            && updated.generation != before.generation
        {
            let differ: Vec<u32> = (before.items.iter().zip(&updated.items).enumerate())
                .filter(|(_, (a, b))| a != b)
                .map(|(i, _)| i as u32)
                .collect();
            prop_assert_eq!(before.items.len(), updated.items.len(), "step {}", step);
            prop_assert_eq!(&differ, &changes.items, "step {}", step);
        }
        if updated.generation == before.generation {
            prop_assert!(
                updated.items == before.items,
                "step {}: same generation",
                step
            );
        }
    }
    Ok(tab.incremental_updates())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4))]

    #[test]
    fn incremental_viewport_items_match_a_full_build(
        edits in prop::collection::vec(arb_edit(), 250),
        selected in prop::collection::vec(0..COUNT, 0..3),
    ) {
        let incremental = check(&edits, &selected)?;
        // Most edits are moves: the test is about the incremental path, so it must be taken.
        prop_assert!(incremental * 3 >= edits.len() as u64, "{incremental} incremental updates");
    }
}
