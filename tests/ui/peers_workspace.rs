//! The Peers workspace driven like a person would: lesson 1 with each peer's tree indented
//! (Lamp under Table on one peer, Table under Lamp on the other), a gizmo drag that sends one
//! message per tick of the network clock (and one per frame with the setting off), the
//! message table saying what changed, nothing out of reach at 1024×700, and the timeline
//! stepped with comma and period.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use scenetree::ui::tree_row::INDENT;
use scenetree::ui::workbench::Workspace;
use scenetree::ui::{Action, PeersAction, Workbench};
use scenetree_core::crdt::network::PeerId;
use scenetree_core::model::Entity;
use scenetree_viewport::NullRenderer;

use crate::peers_flows::crate_in_flight;

const LAMP: Entity = Entity(512);

/// A workbench of `size` points showing lesson 1 as the app opens it (in the Peers workspace).
fn lesson_one(size: egui::Vec2) -> Harness<'static, Workbench> {
    lesson(0, size)
}

/// A workbench of `size` points showing lesson `index` (from 0) as the app opens it.
pub fn lesson(index: usize, size: egui::Vec2) -> Harness<'static, Workbench> {
    let (doc, _) = scenetree::ui::lessons::lesson_document(index).unwrap();
    let mut bench = Workbench::new(scenetree_editor::Document::default());
    bench.viewport.animate_remote_changes = false;
    bench.set_document(doc);
    let mut h = Harness::builder().with_size(size).build_ui_state(
        |ui, bench: &mut Workbench| bench.ui(ui, &mut NullRenderer::default()),
        bench,
    );
    h.run();
    h
}

pub fn next_step(h: &mut Harness<'static, Workbench>) {
    h.get_by_label("Next step ⏵").click();
    h.run();
}

/// True when a row whose name starts at `child` is drawn one level deeper than one at
/// `parent`.
fn deeper(child: f32, parent: f32) -> bool {
    (child - parent - INDENT).abs() < 0.5
}

/// The left edges of the rows called `label`, one per peer column, left to right.
fn row_lefts(h: &Harness<'static, Workbench>, label: &str) -> Vec<f32> {
    let mut xs: Vec<f32> = h.get_all_by_label(label).map(|n| n.rect().left()).collect();
    xs.sort_by(f32::total_cmp);
    xs
}

#[test]
fn each_peer_draws_its_own_indented_tree_in_lesson_one() {
    let mut h = lesson_one(egui::vec2(1600.0, 1000.0));
    assert_eq!(h.state().layout.workspace, Workspace::Peers);
    next_step(&mut h);
    // Step 1: peer 1 put Lamp under Table; peer 2 has not heard of it.
    let (lamp, table) = (
        row_lefts(&h, "Lamp  ·  512"),
        row_lefts(&h, "Table  ·  513"),
    );
    assert_eq!((lamp.len(), table.len()), (2, 2), "one row each per peer");
    assert!(
        deeper(lamp[0], table[0]),
        "peer 1: Lamp one level under Table ({lamp:?}, {table:?})"
    );
    assert!(
        (lamp[1] - table[1]).abs() < 0.5,
        "peer 2: both at the root ({lamp:?}, {table:?})"
    );
    // Step 2: peer 2 put Table under Lamp: the same two entities, the other way round.
    next_step(&mut h);
    let (lamp, table) = (
        row_lefts(&h, "Lamp  ·  512"),
        row_lefts(&h, "Table  ·  513"),
    );
    assert!(deeper(lamp[0], table[0]), "peer 1: Lamp under Table");
    assert!(
        deeper(table[1], lamp[1]),
        "peer 2: Table under Lamp ({lamp:?}, {table:?})"
    );
    // Step 3: peer 2's edit reaches peer 1: a cycle, both drawn at the root with badges.
    next_step(&mut h);
    let (lamp, table) = (
        row_lefts(&h, "Lamp  ·  512"),
        row_lefts(&h, "Table  ·  513"),
    );
    assert!((lamp[0] - table[0]).abs() < 0.5, "peer 1 re-roots both");
    assert_eq!(h.get_all_by_label("⟲ cycle").count(), 2);
    assert!(h.query_by_label("⟲ Lamp → Table → Lamp").is_some());
    // The message table says what the one message left would change on peer 2.
    assert!(h.query_by_label("parent Root → Table").is_some());
    assert!(h.query_by_label("1 → 2").is_some());
}

#[test]
fn next_step_keeps_its_place_and_nothing_is_cut_off_at_1024_by_700() {
    let mut h = lesson_one(egui::vec2(1024.0, 700.0));
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1024.0, 700.0));
    let at = h.get_by_label("Next step ⏵").rect();
    for step in 1..=5 {
        next_step(&mut h);
        // Each step's text has another length; the button does not move.
        if step < 5 {
            assert_eq!(h.get_by_label("Next step ⏵").rect(), at, "step {step}");
        }
        for label in [
            "Next step ⏵",
            "Deliver all ▾",
            "More ▾",
            "one message per tick",
            "⏭",
            "Peer 1 (editing)",
            "Peer 2",
        ] {
            let rect = h.get_by_label(label).rect();
            assert!(
                window.contains_rect(rect),
                "{label} at {rect:?}, step {step}"
            );
        }
        if let Some(deliver) = h.query_all_by_label("Deliver").next() {
            assert!(window.contains_rect(deliver.rect()), "step {step}");
        }
        assert!(
            h.query_by_label_contains("Converged").is_some()
                || h.query_by_label_contains("Not converged").is_some(),
            "the convergence line is shown at step {step}"
        );
    }
    assert!(h.query_by_label_contains("Step 5 of 5").is_some());
}

/// Selects Lamp on the active peer (in its tree), then drags the main viewport's +X gizmo
/// arrow over `frames` frames; `tick_after` frames into the drag, the network clock ticks.
fn drag_lamp(h: &mut Harness<'static, Workbench>, frames: usize, tick_after: usize) {
    h.get_all_by_label("Lamp  ·  512").next().unwrap().click();
    h.run();
    assert_eq!(h.state().doc.selection.entities(), &[LAMP]);
    let lamp: Vec3 = h
        .state()
        .doc
        .view()
        .world_affine(LAMP)
        .unwrap()
        .translation
        .into();
    let viewport = &h.state().viewport.viewport;
    let length = viewport
        .camera
        .meters_per_pixel(lamp, viewport.rect().height())
        * viewport.gizmo.size_points;
    let grab = viewport
        .screen_position(lamp + Vec3::X * length * 0.6)
        .unwrap();
    assert!(viewport.rect().shrink(10.0).contains(grab), "{grab:?}");
    h.hover_at(grab);
    h.run();
    h.drag_at(grab);
    h.run();
    for frame in 1..=frames {
        h.hover_at(grab + egui::vec2(6.0 * frame as f32, 0.0));
        h.run();
        if frame == tick_after {
            h.state_mut()
                .apply_actions(vec![Action::Peers(PeersAction::Advance(1))]);
        }
    }
    h.drop_at(grab + egui::vec2(6.0 * frames as f32, 0.0));
    h.run();
    assert!(!h.state().viewport.viewport.is_dragging_gizmo());
}

/// The Transform messages of Lamp in flight from peer 1.
fn lamp_messages(h: &Harness<'static, Workbench>) -> usize {
    let (sim, _) = h.state().doc.simulation().unwrap();
    sim.network()
        .in_flight()
        .iter()
        .filter(|m| m.from == PeerId(1) && m.message.entity() == LAMP)
        .count()
}

#[test]
fn a_gizmo_drag_sends_one_message_per_tick_and_one_per_frame_with_the_setting_off() {
    let mut h = lesson_one(egui::vec2(1600.0, 1000.0));
    assert!(
        h.state()
            .doc
            .simulation()
            .unwrap()
            .0
            .network()
            .one_message_per_tick(),
        "on by default"
    );
    // Ten frames of dragging, with one clock tick after the fourth: two ticks, two messages.
    drag_lamp(&mut h, 10, 4);
    assert_eq!(lamp_messages(&h), 2, "one message per tick");
    assert_eq!(
        h.get_all_by_label("Deliver").count(),
        2,
        "two rows in the table"
    );
    let moved = h.state().doc.local_transform(LAMP).position.x;
    assert!(moved > 1.05, "Lamp moved along +X: {moved}");
    // The last message carries where the drag ended.
    let (sim, _) = h.state().doc.simulation().unwrap();
    let last = sim.network().in_flight().back().unwrap();
    let row = sim.network().message_row(last);
    let what = row
        .effect
        .text(scenetree_core::model::EulerOrder::Xyz, &|e| e.to_string());
    assert!(what.starts_with("position (1, 0, 0) → ("), "{what}");
    // Off: every frame that moved Lamp is a message of its own.
    h.get_by_label("one message per tick").click();
    h.run();
    assert!(
        !h.state()
            .doc
            .simulation()
            .unwrap()
            .0
            .network()
            .one_message_per_tick()
    );
    drag_lamp(&mut h, 10, 4);
    let per_frame = lamp_messages(&h) - 2;
    assert!(
        per_frame >= 8,
        "{per_frame} messages for ten frames of dragging"
    );
}

#[test]
fn each_peer_has_a_3d_view_of_its_own_scene() {
    let (doc, _) = scenetree::ui::lessons::lesson_document(0).unwrap();
    let mut bench = Workbench::new(scenetree_editor::Document::default());
    bench.viewport.animate_remote_changes = false;
    bench.set_document(doc);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(
            |ui, (bench, renderer): &mut (Workbench, NullRenderer)| bench.ui(ui, renderer),
            (bench, NullRenderer::default()),
        );
    h.run();
    for _ in 0..2 {
        h.get_by_label("Next step ⏵").click();
        h.run();
    }
    // Peer 1 put Lamp under Table (Table at x = 3, Lamp 1 m along it); peer 2 put Table under
    // Lamp (Lamp at x = 1, Table 3 m along it). Each view draws its own peer's scene.
    let x = |peer: usize, e: u32| {
        h.state()
            .0
            .peers
            .peer_scene(peer)
            .unwrap()
            .items
            .iter()
            .find(|i| i.entity == Entity(e))
            .unwrap()
            .world
            .w_axis
            .x
    };
    assert_eq!((x(0, 512), x(0, 513)), (4.0, 3.0));
    assert_eq!((x(1, 512), x(1, 513)), (1.0, 4.0));
    // Each view has a renderer and an image of its own.
    let extras = &h.state().1.extras;
    assert_eq!(extras.len(), 2);
    assert!(
        extras
            .iter()
            .all(|r| r.renders > 0 && r.last_size_px.is_some())
    );
    // Without 3D views, none is drawn.
    h.get_by_label("3D views").click();
    h.run();
    let renders: Vec<usize> = h.state().1.extras.iter().map(|r| r.renders).collect();
    h.get_by_label("Next step ⏵").click();
    h.run();
    let after: Vec<usize> = h.state().1.extras.iter().map(|r| r.renders).collect();
    assert_eq!(renders, after);
}

/// Everything peer `index`'s view draws lies inside the view.
fn draws_everything_in_view(h: &Harness<'static, Workbench>, index: usize) -> bool {
    let peers = &h.state().peers;
    let scene = peers.peer_scene(index).unwrap();
    assert!(!scene.items.is_empty());
    peers.peer_viewport(index).unwrap().shows_all_of(scene)
}

#[test]
fn lesson_steps_keep_every_peers_scene_in_view_and_frame_fits_them_all() {
    // Lesson 3: Lamp starts at the origin (where the run frames the views), then peer 1 moves
    // it to x = 1 and peer 2 to x = 2. In the views framed at the start, or on one peer's
    // scene, one Lamp or the other is out of view: the difference the views are there to show.
    let mut h = lesson(2, egui::vec2(1600.0, 1000.0));
    let camera_at_start = h.state().peers.peer_viewport(0).unwrap().camera.clone();
    next_step(&mut h);
    next_step(&mut h);
    let lamp_x = |h: &Harness<'static, Workbench>, i: usize| {
        h.state().peers.peer_scene(i).unwrap().items[0]
            .world
            .w_axis
            .x
    };
    assert_eq!((lamp_x(&h, 0), lamp_x(&h, 1)), (1.0, 2.0));
    assert_ne!(
        h.state().peers.peer_viewport(0).unwrap().camera,
        camera_at_start
    );
    assert!(draws_everything_in_view(&h, 0), "peer 1's Lamp is in view");
    assert!(draws_everything_in_view(&h, 1), "peer 2's Lamp is in view");
    let editor_view = &h.state().viewport;
    assert!(
        editor_view.viewport.shows_all_of(editor_view.scene()),
        "the editor's viewport (peer 1's scene) keeps its Lamp in view too"
    );
    // A step that keeps everything in view leaves the camera alone.
    let camera = h.state().peers.peer_viewport(0).unwrap().camera.clone();
    next_step(&mut h);
    assert_eq!(h.state().peers.peer_viewport(0).unwrap().camera, camera);

    // Zoomed in on peer 1's view until a Lamp leaves it, Frame brings both back.
    let view = h.state().peers.peer_viewport(0).unwrap().rect();
    h.hover_at(view.center());
    for _ in 0..4 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, 240.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
        });
        h.run();
    }
    assert!(!(draws_everything_in_view(&h, 0) && draws_everything_in_view(&h, 1)));
    h.get_by_label("Frame").click();
    h.run();
    assert!(draws_everything_in_view(&h, 0), "peer 1's Lamp is in view");
    assert!(draws_everything_in_view(&h, 1), "peer 2's Lamp is in view");
}

#[test]
fn leaving_the_simulation_returns_to_the_editor_workspace() {
    // Stopping keeps peer 1's state as the document: it is edited in the editor's layout.
    let mut h = lesson_one(egui::vec2(1600.0, 1000.0));
    h.state_mut()
        .apply_actions(vec![Action::Peers(PeersAction::Stop(PeerId(1)))]);
    h.run();
    assert!(h.state().doc.simulation().is_none());
    assert_eq!(h.state().layout.workspace, Workspace::Editor);
    h.get_by_label("Scene root"); // the hierarchy is on screen

    // A document without a simulation (File ▸ New, Open) opens there too.
    let mut h = lesson_one(egui::vec2(1600.0, 1000.0));
    h.state_mut()
        .set_document(scenetree_editor::Document::default());
    h.run();
    assert_eq!(h.state().layout.workspace, Workspace::Editor);
}

#[test]
fn in_the_editor_layout_the_peers_strip_still_shows_each_peers_tree() {
    let mut h = lesson_one(egui::vec2(1280.0, 800.0));
    h.state_mut()
        .run_command(scenetree::ui::command::UiCommand::EditorWorkspace);
    h.run();
    assert_eq!(h.state().layout.workspace, Workspace::Editor);
    // The hierarchy's row and one in each peer's column (inside the Peers strip), the
    // columns' rows below their headers and above the lower view: not squeezed out by the
    // lesson text above or the lower view below.
    let lower = h.get_by_label("Messages (0)").rect();
    let strip = crate::layout::panel(&h, scenetree::ui::Tab::Peers);
    let header = h.get_by_label("Peer 1 (editing)").rect();
    let rows: Vec<egui::Rect> = h
        .get_all_by_label("Lamp  ·  512")
        .map(|n| n.rect())
        .collect();
    assert_eq!(rows.len(), 3);
    let in_columns: Vec<&egui::Rect> = rows.iter().filter(|r| r.left() >= strip.left()).collect();
    assert_eq!(in_columns.len(), 2, "{rows:?}, lower view at {lower:?}");
    for row in in_columns {
        assert!(
            row.top() >= header.bottom() && row.bottom() <= lower.top() && row.height() > 10.0,
            "{row:?} is not between its column's header {header:?} and the lower view {lower:?}"
        );
    }
    // The lesson, scrolling in its share of the strip, still plays.
    next_step(&mut h);
    let (sim, _) = h.state().doc.simulation().unwrap();
    assert_eq!(
        sim.network().in_flight().len(),
        1,
        "step 1 sent Lamp's move"
    );
}

#[test]
fn the_bar_above_the_lower_view_moves_the_split() {
    let mut h = lesson_one(egui::vec2(1600.0, 1000.0));
    let tabs = h.get_by_label("Messages in flight (0)").rect();
    let bar = egui::pos2(tabs.center().x + 300.0, tabs.top() - 6.0);
    h.hover_at(bar);
    h.run();
    h.drag_at(bar);
    h.run();
    for dy in [-40.0, -80.0, -120.0] {
        h.hover_at(bar + egui::vec2(0.0, dy));
        h.run();
    }
    h.drop_at(bar + egui::vec2(0.0, -120.0));
    h.run();
    let moved = h.get_by_label("Messages in flight (0)").rect();
    assert!(
        (tabs.top() - moved.top() - 120.0).abs() < 8.0,
        "{tabs:?} → {moved:?}"
    );
}

#[test]
fn the_draw_selector_leaves_the_viewport_toolbar_uncovered_at_1024_by_700() {
    let h = lesson_one(egui::vec2(1024.0, 700.0));
    let draw = h.get_by_value("Draw: RootFallback").rect();
    let toolbar_y = h.get_by_label("Move").rect().center().y;
    for label in ["Move", "Rotate", "Scale", "World"] {
        let button = h
            .get_all_by_label(label)
            .map(|n| n.rect())
            .find(|r| (r.center().y - toolbar_y).abs() < 4.0)
            .unwrap_or_else(|| panic!("{label} in the toolbar"));
        // It covered Scale and World at the top right of the narrow view.
        assert!(
            !draw.intersects(button),
            "{label} {button:?} under {draw:?}"
        );
    }
}

#[test]
fn a_columns_rerooted_line_names_entities_as_they_are_named_now() {
    // Lesson 5: peer 1 deletes Lamp (Chair's parent) while peer 2 moves it. Until peer 2 hears
    // of the delete, peer 1 still finds Lamp's name there; once every peer has deleted it,
    // both columns say "Entity 512", though peer 1's own tree did not change meanwhile.
    let mut h = lesson(4, egui::vec2(1600.0, 1000.0));
    next_step(&mut h);
    assert!(
        h.query_by_label_contains("Chair: parent Lamp has no Transform")
            .is_some()
    );
    for _ in 1..5 {
        next_step(&mut h);
    }
    assert!(h.query_by_label_contains("Step 5 of 5").is_some());
    assert_eq!(
        h.query_all_by_label("△ Chair: parent Entity 512 has no Transform")
            .count(),
        2,
        "one line in each peer's column"
    );
    assert!(h.query_by_label_contains("parent Lamp").is_none());
}

#[test]
fn dragging_a_messages_handle_onto_another_row_reorders_them_without_selecting_text() {
    let mut h = lesson_one(egui::vec2(1600.0, 1000.0));
    next_step(&mut h);
    next_step(&mut h);
    let in_flight = |h: &Harness<'static, Workbench>| -> Vec<u64> {
        let (sim, _) = h.state().doc.simulation().unwrap();
        sim.network().in_flight().iter().map(|m| m.id.0).collect()
    };
    assert_eq!(in_flight(&h), [1, 2]);
    let from = h.get_by_label("⠿ #2").rect().center();
    let to = h.get_by_label("⠿ #1").rect().center();
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for step in 1..=6 {
        h.hover_at(from + (to - from) * (step as f32 / 6.0));
        h.run();
    }
    h.drop_at(to);
    h.run();
    assert_eq!(in_flight(&h), [2, 1], "#2 now arrives first");
    let selection = h.ctx.plugin::<egui::text_selection::LabelSelectionState>();
    assert!(
        !selection.lock().has_selection(),
        "the drag selected no text on its way"
    );
}

/// Comma and period step the timeline as a video player steps frames.
#[test]
fn comma_and_period_step_the_timeline() {
    let mut h = crate_in_flight();
    h.get_by_label("Deliver all ▾").click();
    h.run();
    h.get_by_label("In send order").click();
    h.run();
    let position = |h: &Harness<'static, Workbench>| {
        let net = h.state().doc.simulation().unwrap().0.network();
        (net.cursor(), net.events().len())
    };
    let (end, len) = position(&h);
    assert_eq!(end, len);
    h.key_press(egui::Key::Comma);
    h.run();
    h.key_press(egui::Key::Comma);
    h.run();
    assert_eq!(position(&h), (end - 2, len), "two steps back");
    assert!(
        h.query_by_label_contains("Not converged").is_some(),
        "a message is in flight again"
    );
    h.key_press(egui::Key::Period);
    h.run();
    assert_eq!(position(&h), (end - 1, len), "one forward");
    h.key_press(egui::Key::Period);
    h.run();
    h.key_press(egui::Key::Period);
    h.run();
    assert_eq!(position(&h), (end, len), "and no further than the end");
}
