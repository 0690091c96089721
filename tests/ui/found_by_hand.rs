//! Defects found by driving the editor by hand as a Godot or Unity user would (issue 31), each
//! replayed here the way it was met: the status bar's model count of a closed scene, the
//! search box keeping the keyboard, a lesson asking to save work nobody did, a command that
//! changed nothing writing anyway, and the peers' 3D views showing the previous document.

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use scenetree::ui::command::UiCommand;
use scenetree::ui::{Action, Workbench};
use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_dcl::GltfModel;
use scenetree_editor::{Command, Document};
use scenetree_viewport::{GizmoMode, RenderRequest, ViewportRenderer, ViewportScene};

use crate::peers_workspace::{lesson, next_step};
use crate::ui_flows::{CHAIR, TABLE, drag_and_hold, harness, numbered_scene, room, row};

/// A scene of three entities whose models are not files of any project (a main.crdt opened on
/// its own, its models absent).
fn scene_with_missing_models() -> Document {
    let mut r = Replica::new();
    for i in 0..3u32 {
        let e = Entity(512 + i);
        r.put_transform(e, &Transform::IDENTITY).unwrap();
        r.put(e, ids::NAME, encode_name(&format!("Model {i}")))
            .unwrap();
        let model = GltfModel {
            src: format!("assets/models/gone{i}.glb"),
            visible_meshes_collision_mask: None,
            invisible_meshes_collision_mask: None,
        };
        r.put(e, ids::GLTF_CONTAINER, model.encode()).unwrap();
    }
    Document::new(r, None)
}

const MISSING: &str = "model or texture file(s) missing";

#[test]
fn another_scene_opened_forgets_the_last_scenes_missing_models() {
    let mut h = harness(scene_with_missing_models());
    h.run();
    assert!(
        h.query_by_label_contains(MISSING).is_some(),
        "the scene's own count is shown"
    );
    // Ctrl+O of a scene without models: the count belonged to the scene that is gone.
    h.state_mut().set_document(room());
    h.run();
    assert!(
        h.query_by_label_contains(MISSING).is_none(),
        "the count of the closed scene stays in the status bar"
    );
    assert_eq!(h.state().viewport.assets.progress().missing, 0);
    // A lesson too.
    h.state_mut().set_document(scene_with_missing_models());
    h.run();
    let (lesson_doc, _) = scenetree::ui::lessons::lesson_document(0).unwrap();
    h.state_mut().set_document(lesson_doc);
    h.run();
    assert!(h.query_by_label_contains(MISSING).is_none());
}

#[test]
fn working_in_the_viewport_takes_the_keyboard_from_the_search_box() {
    let mut h = harness(room());
    h.get_by_role(Role::TextInput).click();
    h.run();
    assert!(h.get_by_role(Role::TextInput).is_focused());
    // Orbit: a drag over the viewport's background.
    let view = h.state().viewport.rect().expect("the viewport was drawn");
    let from = view.left_top() + egui::vec2(40.0, view.height() - 60.0);
    drag_and_hold(&mut h, from, from + egui::vec2(80.0, -20.0));
    h.drop_at(from + egui::vec2(80.0, -20.0));
    h.run();
    h.key_press(Key::E);
    h.run();
    assert_eq!(
        h.state().hierarchy.search,
        "",
        "E after an orbit went to the search box"
    );
    assert_eq!(h.state().viewport.viewport.gizmo.mode, GizmoMode::Rotate);
}

#[test]
fn escape_in_the_search_box_clears_the_search_and_keeps_the_selection() {
    let mut h = harness(room());
    h.get_by_label(&row("Chair", CHAIR)).click();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    h.run();
    h.get_by(|n| n.is_focused()).type_text("tab");
    h.run();
    assert_eq!(h.state().hierarchy.search, "tab");
    h.key_press(Key::Escape);
    h.run();
    h.run();
    assert_eq!(h.state().hierarchy.search, "", "Escape clears the search");
    assert_eq!(
        h.state().doc.selection.entities(),
        &[CHAIR],
        "the selection stays"
    );
}

/// Plays the lesson to its end, then More ▸ "Stop, keeping peer 1's state".
fn finish_and_stop(h: &mut Harness<'static, Workbench>) {
    while h
        .state()
        .doc
        .simulation()
        .and_then(|(sim, _)| sim.lesson())
        .is_some_and(|l| !l.is_finished())
    {
        next_step(h);
    }
    h.get_by_label("More ▾").click();
    h.run();
    h.get_by_label("Stop, keeping peer 1's state").click();
    h.run();
    assert!(h.state().doc.simulation().is_none(), "stopped");
}

#[test]
fn a_lesson_stopped_keeping_a_peers_state_holds_no_unsaved_work_of_the_user() {
    let mut h = lesson(0, egui::vec2(1280.0, 800.0));
    finish_and_stop(&mut h);
    assert!(
        !h.state().doc.is_modified(),
        "the lesson's steps are not the user's work"
    );
    // An edit of the user's own during the lesson stays unsaved work once it stops.
    let mut h = lesson(0, egui::vec2(1280.0, 800.0));
    next_step(&mut h);
    h.state_mut()
        .apply_actions(vec![Action::Edit(Command::Rename {
            entity: Entity(512),
            name: "My lamp".into(),
        })]);
    h.run();
    finish_and_stop(&mut h);
    assert!(h.state().doc.is_modified(), "the rename is the user's");
    // After the stop, an edit is the user's too.
    let mut h = lesson(0, egui::vec2(1280.0, 800.0));
    finish_and_stop(&mut h);
    h.state_mut()
        .apply_actions(vec![Action::Edit(Command::Rename {
            entity: Entity(512),
            name: "Mine now".into(),
        })]);
    assert!(h.state().doc.is_modified());
}

#[test]
fn moving_a_root_entity_to_the_root_writes_nothing() {
    let mut doc = room();
    // Table is at the root, turned and scaled (its world pose does not survive a round trip
    // through a matrix bit for bit).
    let stamp = doc.replica().timestamp(TABLE, ids::TRANSFORM);
    let applied = doc
        .apply(Command::Reparent {
            entities: vec![TABLE],
            parent: Entity::ROOT,
            keep_world: true,
        })
        .unwrap();
    assert_eq!(applied.label, None, "no step is named");
    assert_eq!(doc.replica().timestamp(TABLE, ids::TRANSFORM), stamp);
    assert_eq!(doc.history().undo_label(), None, "no undo step");
    assert!(!doc.is_modified(), "no •");
    assert!(doc.take_outbox().is_empty(), "no message");
    // Under simulated peers: nothing is sent.
    let mut doc = room();
    doc.start_simulation(2, 1).unwrap();
    doc.apply(Command::Reparent {
        entities: vec![TABLE],
        parent: Entity::ROOT,
        keep_world: true,
    })
    .unwrap();
    let (sim, _) = doc.simulation().unwrap();
    assert!(sim.network().in_flight().is_empty(), "a message was sent");
}

#[test]
fn the_rows_move_to_root_is_disabled_for_an_entity_at_the_root() {
    let mut h = harness(room());
    h.get_by_label(&row("Table", TABLE)).click_secondary();
    h.run();
    assert!(
        h.get_by_label("Move to Root")
            .accesskit_node()
            .is_disabled(),
        "Move to Root of a root entity is offered"
    );
    h.key_press(Key::Escape);
    h.run();
    // Lamp is under Table: the item applies.
    h.get_by_label(&row("Lamp", crate::ui_flows::LAMP))
        .click_secondary();
    h.run();
    assert!(
        !h.get_by_label("Move to Root")
            .accesskit_node()
            .is_disabled()
    );
    h.get_by_label("Move to Root").click();
    h.run();
    assert_eq!(h.state().status.as_ref().unwrap().0, "Reparent Lamp");
}

#[test]
fn edit_move_to_root_moves_the_selection_and_keeps_its_place_in_the_world() {
    let mut h = harness(room());
    let lamp = crate::ui_flows::LAMP;
    let parent_before = h.state().doc.declared_parent(lamp);
    let world_before = h.state().doc.view().world_matrix(lamp).unwrap();
    h.state_mut().run_command(UiCommand::MoveToRoot);
    h.run();
    assert_eq!(
        h.state().doc.declared_parent(lamp),
        parent_before,
        "nothing selected: nothing moves"
    );
    assert_ne!(parent_before, Entity::ROOT);
    h.get_by_label(&row("Lamp", lamp)).click();
    h.run();
    h.state_mut().run_command(UiCommand::MoveToRoot);
    h.run();
    assert_eq!(h.state().doc.declared_parent(lamp), Entity::ROOT);
    let world_after = h.state().doc.view().world_matrix(lamp).unwrap();
    assert!(
        world_after.abs_diff_eq(world_before, 1e-5),
        "{world_before:?} became {world_after:?}"
    );
    // Now at the root: the Edit menu's item is greyed out, as the row menu's is.
    let context = h.state().command_context(&h.ctx);
    assert!(!UiCommand::MoveToRoot.applies(&context));
    assert!(UiCommand::Duplicate.applies(&context));
}

/// A renderer whose model uploads never finish (a project's models on software GL), counting
/// renders per view.
#[derive(Default)]
struct Uploading {
    renders: usize,
    last_generation: Option<u64>,
    extras: Vec<Uploading>,
}

impl ViewportRenderer for Uploading {
    fn render(&mut self, request: &RenderRequest<'_>) -> Option<egui::TextureId> {
        self.renders += 1;
        self.last_generation = Some(request.scene.generation);
        None
    }
    fn prepare(&mut self, _scene: &ViewportScene) -> bool {
        true
    }
    fn extra(&mut self, index: usize) -> Option<&mut dyn ViewportRenderer> {
        if self.extras.len() <= index {
            self.extras.resize_with(index + 1, Uploading::default);
        }
        Some(&mut self.extras[index])
    }
}

#[test]
fn a_new_simulation_draws_its_own_scene_in_the_peers_views_at_once() {
    let mut bench = Workbench::new(Document::default());
    bench.viewport.animate_remote_changes = false;
    let (first, _) = scenetree::ui::lessons::lesson_document(0).unwrap();
    bench.set_document(first);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(
            |ui, (bench, renderer): &mut (Workbench, Uploading)| bench.ui(ui, renderer),
            (bench, Uploading::default()),
        );
    h.run_steps(3);
    // Another scene, split into peers: its models are uploading, which must not keep the
    // previous document's pictures on show.
    let mut doc = room();
    doc.start_simulation(2, 7).unwrap();
    h.state_mut().0.set_document(doc);
    // Uploads that never end keep asking for frames: step instead of running until idle.
    h.run_steps(3);
    for i in 0..2 {
        let (bench, renderer) = h.state();
        let shown = bench.peers.peer_scene(i).expect("drawn").generation;
        assert_eq!(
            renderer.extras[i].last_generation,
            Some(shown),
            "peer {}'s view still shows the previous document",
            i + 1
        );
    }
    // The editor's own view too.
    let (bench, renderer) = h.state();
    assert_eq!(
        renderer.last_generation,
        Some(bench.viewport.scene().generation)
    );
}

#[test]
fn the_peers_status_names_ten_differing_entities_and_counts_the_rest() {
    // Found by hand: moving the large example's 65,024 entities as peer 1 listed every one of
    // them in the convergence line, which filled the Peers panel.
    let replica = numbered_scene("Box", 40, |_| Transform::IDENTITY);
    let mut doc = Document::new(replica, None);
    doc.start_simulation(2, 1).unwrap();
    doc.apply(Command::Reparent {
        entities: (513..552).map(Entity).collect(),
        parent: Entity(512),
        keep_world: true,
    })
    .unwrap();
    let h = harness(doc);
    let line = h.get_by_label_contains("peers differ on");
    let text = (line.accesskit_node().label())
        .or_else(|| line.value())
        .unwrap_or_default();
    assert!(text.ends_with(" and 29 more"), "{text}");
    assert!(!text.contains("Box 39"), "{text}");
}
