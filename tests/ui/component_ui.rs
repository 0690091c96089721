//! The inspector's component field trees, driven like a person would: every component shows
//! its decoded fields; Name, VisibilityComponent, Material colours and the MeshRenderer shape
//! are edited through undoable commands; the tree's hide and lock are the Inspector's
//! components.

use egui::Key;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use scenetree::ui::action::Action;
use scenetree_core::model::{Entity, ids};
use scenetree_dcl::codec::ProtoMessage;
use scenetree_dcl::{MATERIAL, MaterialLook, MeshShape, VISIBILITY, Visibility};
use serde_json::json;

use crate::ui_flows::{CHAIR, harness, room, row};

/// A window tall enough that the whole inspector is on screen.
pub(crate) fn tall_harness(
    doc: scenetree_editor::Document,
) -> egui_kittest::Harness<'static, scenetree::ui::Workbench> {
    let mut h = egui_kittest::Harness::builder()
        .with_size(egui::vec2(1280.0, 2400.0))
        .build_ui_state(
            |ui, bench: &mut scenetree::ui::Workbench| {
                bench.ui(ui, &mut scenetree_viewport::NullRenderer::default())
            },
            scenetree::ui::Workbench::new(doc),
        );
    h.run();
    h
}

fn furnished_chair() -> scenetree_editor::Document {
    let mut doc = room();
    let material = ProtoMessage::of_component(MATERIAL)
        .unwrap()
        .encode(&json!({"material": {"$case": "pbr", "pbr": {
            "albedoColor": {"r": 1, "g": 0, "b": 0, "a": 1}, "metallic": 0.25}}}))
        .unwrap();
    for (component, value) in [
        (MATERIAL, material),
        (ids::MESH_RENDERER, MeshShape::Box { uvs: vec![] }.encode()),
        (
            VISIBILITY,
            Visibility {
                visible: true,
                propagate_to_children: false,
            }
            .encode(),
        ),
    ] {
        doc.apply(scenetree_editor::Command::SetComponent {
            entity: CHAIR,
            component,
            value: Some(value),
        })
        .unwrap();
    }
    doc
}

#[test]
fn every_component_shows_its_fields_and_the_common_ones_are_editable_with_undo() {
    let mut h = tall_harness(furnished_chair());
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    // Decoded fields, not bytes.
    assert!(h.query_by_label_contains("material: pbr").is_some());
    assert!(h.query_by_label("metallic:").is_some());
    assert!(h.query_by_label("albedo colour").is_some());

    // The visibility checkbox writes a VisibilityComponent; undo puts it back.
    h.get_by_label("visible").click();
    h.run();
    let visibility = |h: &egui_kittest::Harness<'_, scenetree::ui::Workbench>| {
        let r = h.state().doc.replica();
        Visibility::decode(r.component_data(CHAIR, VISIBILITY).unwrap()).unwrap()
    };
    assert!(!visibility(&h).visible);
    h.state_mut().apply_actions(vec![Action::Undo]);
    h.run();
    assert!(visibility(&h).visible);

    // The shape combo box.
    h.get_by_label("shape").click();
    h.run();
    h.get_by_label("sphere").click();
    h.run();
    let shape = |h: &egui_kittest::Harness<'_, scenetree::ui::Workbench>| {
        let r = h.state().doc.replica();
        MeshShape::decode(r.component_data(CHAIR, ids::MESH_RENDERER).unwrap()).unwrap()
    };
    assert_eq!(shape(&h), MeshShape::Sphere);
    h.state_mut().apply_actions(vec![Action::Undo]);
    h.run();
    assert_eq!(shape(&h), MeshShape::Box { uvs: vec![] });

    // The Name field renames.
    h.get_by(|n| n.role() == Role::TextInput && n.value().as_deref() == Some("Chair"))
        .click();
    h.run();
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::A);
    h.get_by(|n| n.is_focused()).type_text("Stool");
    h.run();
    h.key_press(Key::Enter);
    h.run();
    assert_eq!(h.state().doc.name_of(CHAIR).as_deref(), Some("Stool"));

    // The Material keeps its albedo and reads as the viewport will draw it.
    let r = h.state().doc.replica();
    let look = MaterialLook::decode(r.component_data(CHAIR, MATERIAL).unwrap()).unwrap();
    assert_eq!(look.base_color, [1.0, 0.0, 0.0, 1.0]);
}

#[test]
fn a_long_value_is_cut_short_at_the_inspectors_edge() {
    let mut doc = room();
    let src = format!(
        "assets/scene/Models/{}/chair.glb",
        "very_long_folder/".repeat(12)
    );
    let model = scenetree_dcl::GltfModel {
        src: src.clone(),
        visible_meshes_collision_mask: None,
        invisible_meshes_collision_mask: None,
    };
    doc.apply(scenetree_editor::Command::SetComponent {
        entity: CHAIR,
        component: ids::GLTF_CONTAINER,
        value: Some(model.encode()),
    })
    .unwrap();
    let mut h = tall_harness(doc);
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    // In the model's section and in the GltfContainer's fields.
    let ends: Vec<f32> = h
        .query_all_by_label_contains("very_long_folder")
        .map(|n| n.rect().right())
        .collect();
    let window = 1280.0;
    assert!(ends.len() >= 2, "{ends:?}");
    assert!(
        ends.iter().all(|&end| end <= window),
        "the path ends at {ends:?} in a window {window} wide"
    );
}

#[test]
fn the_trees_hide_and_lock_are_undoable_inspector_components() {
    let mut h = harness(room());
    h.state_mut()
        .apply_actions(vec![Action::ToggleHidden(CHAIR)]);
    h.run();
    assert!(h.state().doc.is_hidden(CHAIR));
    assert!(h.state().hierarchy.flags.hidden.contains(&CHAIR));
    h.state_mut()
        .apply_actions(vec![Action::ToggleLocked(CHAIR)]);
    h.run();
    assert!(h.state().doc.is_locked(CHAIR));
    h.state_mut()
        .apply_actions(vec![Action::Undo, Action::Undo]);
    h.run();
    assert!(!h.state().doc.is_hidden(CHAIR) && !h.state().doc.is_locked(CHAIR));
    assert!(h.state().hierarchy.flags.hidden.is_empty());
}

#[test]
fn a_malformed_value_says_which_field_is_wrong() {
    let mut doc = room();
    // A TextShape whose text (field 1) claims 5 bytes but has 1.
    doc.apply(scenetree_editor::Command::SetComponent {
        entity: CHAIR,
        component: 1030,
        value: Some(vec![0x0a, 0x05, b'x']),
    })
    .unwrap();
    let mut h = tall_harness(doc);
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    assert!(
        h.query_by_label_contains("not a valid value of this component: at .text")
            .is_some()
    );
}

#[test]
fn the_viewport_follows_component_edits_and_selections_without_a_full_rebuild() {
    use scenetree::ui::viewport_tab::ViewportTab;
    use std::collections::HashSet;
    let mut doc = furnished_chair();
    let mut tab = ViewportTab::default();
    let none = HashSet::new();
    let color_of = |tab: &ViewportTab, e| {
        tab.scene()
            .items
            .iter()
            .find(|i| i.entity == e)
            .map(|i| (i.color, i.selected))
    };
    tab.update_scene(&doc, &none, &none, 0.0);
    let (red, selected) = color_of(&tab, CHAIR).expect("the chair is drawn");
    assert!(!selected);
    assert!(red.r() > 200 && red.g() < 60, "{red:?}");

    // A new Material value: the chair's look is decoded again.
    let blue = ProtoMessage::of_component(MATERIAL)
        .unwrap()
        .encode(&json!({"material": {"$case": "pbr", "pbr": {
            "albedoColor": {"r": 0, "g": 0, "b": 1, "a": 1}}}}))
        .unwrap();
    let set = |doc: &mut scenetree_editor::Document, component, value: Vec<u8>| {
        doc.apply(scenetree_editor::Command::SetComponent {
            entity: CHAIR,
            component,
            value: Some(value),
        })
        .unwrap();
    };
    set(&mut doc, MATERIAL, blue);
    tab.update_scene(&doc, &none, &none, 0.0);
    let (now, _) = color_of(&tab, CHAIR).unwrap();
    assert!(now.b() > 200 && now.r() < 60, "{now:?}");
    // Only the chair's item changed, and the renderer is told so (it rewrites just that one).
    let scene = tab.scene();
    let chair = scene.items.iter().position(|i| i.entity == CHAIR).unwrap() as u32;
    let changes = scene.changes.as_ref().expect("the changed items are named");
    assert_eq!(
        (changes.since + 1, &changes.items[..]),
        (scene.generation, &[chair][..])
    );

    // Selecting it outlines it and gives the gizmo a target; selecting another takes both away.
    doc.selection.select_only(CHAIR);
    tab.update_scene(&doc, &none, &none, 0.0);
    assert!(color_of(&tab, CHAIR).unwrap().1);
    assert_eq!(
        tab.scene().changes,
        None,
        "outlines change pass: a full upload"
    );
    assert_eq!(tab.scene().gizmo_targets.len(), 1);
    assert_eq!(tab.scene().gizmo_targets[0].entity, CHAIR);
    doc.selection.select_only(crate::ui_flows::TABLE);
    tab.update_scene(&doc, &none, &none, 0.0);
    assert!(!color_of(&tab, CHAIR).unwrap().1);
    assert_eq!(tab.scene().gizmo_targets[0].entity, crate::ui_flows::TABLE);
    // With both, the gizmo stands on the one added last (the inspector's subject).
    doc.selection.toggle(CHAIR);
    tab.update_scene(&doc, &none, &none, 0.0);
    let targets: Vec<Entity> = tab.scene().gizmo_targets.iter().map(|t| t.entity).collect();
    assert_eq!(targets, [CHAIR, crate::ui_flows::TABLE]);
    doc.selection.toggle(crate::ui_flows::TABLE);
    doc.selection.toggle(crate::ui_flows::TABLE);
    tab.update_scene(&doc, &none, &none, 0.0);
    let targets: Vec<Entity> = tab.scene().gizmo_targets.iter().map(|t| t.entity).collect();
    assert_eq!(targets, [crate::ui_flows::TABLE, CHAIR]);
    // What lies below the selected Table is outlined as its children (and framed with it).
    let below_selected = |tab: &ViewportTab| -> Vec<Entity> {
        let mut below: Vec<Entity> = tab
            .scene()
            .items
            .iter()
            .filter(|i| i.below_selected)
            .map(|i| i.entity)
            .collect();
        below.sort();
        below
    };
    use crate::ui_flows::{BULB, LAMP};
    assert_eq!(below_selected(&tab), [LAMP, BULB]);
    doc.selection.select_only(LAMP);
    tab.update_scene(&doc, &none, &none, 0.0);
    assert_eq!(below_selected(&tab), [BULB]);
    // The same from a full build.
    doc.selection.select_only(crate::ui_flows::TABLE);
    let mut fresh = ViewportTab::default();
    fresh.update_scene(&doc, &none, &none, 0.0);
    assert_eq!(below_selected(&fresh), [LAMP, BULB]);
    doc.selection.select_only(CHAIR);
    tab.update_scene(&doc, &none, &none, 0.0);

    // Invisible: not drawn; undo: drawn again, blue.
    let hidden = Visibility {
        visible: false,
        propagate_to_children: false,
    };
    set(&mut doc, VISIBILITY, hidden.encode());
    tab.update_scene(&doc, &none, &none, 0.0);
    assert!(color_of(&tab, CHAIR).is_none());
    doc.undo().unwrap();
    tab.update_scene(&doc, &none, &none, 0.0);
    let (back, _) = color_of(&tab, CHAIR).expect("drawn again");
    assert!(back.b() > 200, "{back:?}");
}

#[test]
fn a_models_file_is_chosen_among_the_projects_model_files_with_undo() {
    use scenetree_dcl::GltfModel;
    let shelf = Entity(521);
    let doc = scenetree::ui::files::load_document(
        &crate::projects::gallery(),
        &std::sync::atomic::AtomicU32::new(0),
    )
    .unwrap();
    let mut h = tall_harness(doc);
    h.state_mut().doc.selection.set([shelf]);
    h.run();
    let model = |h: &egui_kittest::Harness<'_, scenetree::ui::Workbench>| {
        let r = h.state().doc.replica();
        GltfModel::decode(r.component_data(shelf, ids::GLTF_CONTAINER).unwrap()).unwrap()
    };
    let before = model(&h);
    assert_eq!(before.src, "assets/scene/Models/shelf/shelf.glb");
    h.get_by_label("GltfContainer model").click();
    h.run();
    // Every model file of the project is offered, by its path in the project.
    for offered in [
        "assets/scene/Models/beam_bench/beam_bench.glb",
        "assets/asset-packs/discord_link/discord.glb",
    ] {
        assert!(h.query_by_label(offered).is_some(), "{offered}");
    }
    // The first in the list (sorted by path) is on screen without scrolling the list.
    let project = h.state().doc.project.clone().unwrap();
    let first = project.model_files(100)[0].clone();
    assert_ne!(first, before.src);
    h.get_by_label(&first).click();
    h.run();
    let after = model(&h);
    assert_eq!(after.src, first);
    assert_eq!(
        (
            after.visible_meshes_collision_mask,
            after.invisible_meshes_collision_mask
        ),
        (
            before.visible_meshes_collision_mask,
            before.invisible_meshes_collision_mask
        ),
        "the collision layers stay"
    );
    h.state_mut().apply_actions(vec![Action::Undo]);
    h.run();
    assert_eq!(model(&h), before);
}

#[test]
fn a_one_byte_component_is_one_byte() {
    let mut doc = room();
    let mut replica = doc.replica().clone();
    // An unknown component whose value is a single byte, beside the Chair's longer ones.
    replica.put(CHAIR, 7_000_001, vec![0]).unwrap();
    doc = scenetree_editor::Document::new(replica, None);
    let mut h = tall_harness(doc);
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    assert!(h.query_by_label_contains("  ·  1 byte  ·  t=").is_some());
    assert!(h.query_by_label_contains("  ·  1 bytes").is_none());
    assert!(
        h.query_all_by_label_contains(" bytes  ·  t=").count() >= 2,
        "the others"
    );
}
