//! The Peers panel driven like a person would: open lesson 1, deliver its messages out of order
//! by hand, see the cycle badge appear and go, and the convergence indicator turn on.

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use scenetree::ui::peers_panel::ColumnsView;
use scenetree::ui::workbench::AppRequest;
use scenetree::ui::workbench::Workspace;
use scenetree::ui::{PeersAction, Workbench};
use scenetree_core::crdt::network::{EventKind, PeerId};
use scenetree_core::model::Entity;
use scenetree_core::scene::Fallback;
use scenetree_core::scene::policy::TreePolicy;
use scenetree_editor::Document;
use scenetree_viewport::NullRenderer;

const LAMP: Entity = Entity(512);
const TABLE: Entity = Entity(513);

/// A workbench on an empty document. Deliveries are not animated (so frames settle) unless
/// `animate`.
fn harness_with(animate: bool) -> Harness<'static, Workbench> {
    let mut bench = Workbench::new(Document::default());
    bench.viewport.animate_remote_changes = animate;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(
            |ui, bench: &mut Workbench| {
                bench.ui(ui, &mut NullRenderer::default());
                // What the app does with a lesson button when nothing is unsaved.
                for request in bench.take_app_requests() {
                    if let AppRequest::OpenLesson(index) = request {
                        let (doc, _) = scenetree::ui::lessons::lesson_document(index).unwrap();
                        bench.set_document(doc);
                    }
                }
            },
            bench,
        );
    h.run();
    h
}

pub(crate) fn harness() -> Harness<'static, Workbench> {
    harness_with(false)
}

#[test]
fn lesson_one_by_hand_shows_the_cycle_then_convergence() {
    let mut h = harness();
    h.get_by_label_contains("1. Two peers reparent at once")
        .click();
    h.run();
    assert_eq!(
        h.state().layout.workspace,
        Workspace::Peers,
        "a lesson opens the workspace"
    );
    assert!(h.query_by_label_contains("Step 0 of 5").is_some());
    // Steps 1 and 2: both peers move (A under B, B under A); nothing delivered yet.
    h.get_by_label("Next step ⏵").click();
    h.run();
    h.get_by_label("Next step ⏵").click();
    h.run();
    assert!(
        h.query_by_label_contains("Not converged: 2 in flight")
            .is_some()
    );
    assert!(
        h.query_by_label("⟲ cycle").is_none(),
        "no single edit makes a cycle"
    );
    // Deliver the messages out of order from the table: the newest first (peer 2 → peer 1).
    let buttons: Vec<_> = h.get_all_by_label("Deliver").collect();
    assert_eq!(buttons.len(), 2);
    buttons[1].click();
    h.run();
    // Peer 1 (shown in the editor) now holds a cycle: listed in its column, badged in its tree.
    assert!(h.query_by_label_contains("⟲ Lamp → Table → Lamp").is_some());
    let doc = &h.state().doc;
    assert_eq!(
        doc.view().fallback_reason(LAMP),
        Fallback::Cycle(&[LAMP, TABLE])
    );
    assert_eq!(
        h.get_all_by_label("⟲ cycle").count(),
        2,
        "peer 1's tree badges both"
    );
    // Deliver the rest: both peers hold both edits — converged, but still a cycle.
    h.get_by_label("Deliver").click();
    h.run();
    assert!(
        h.query_by_label_contains("Converged into a cycle no further message will resolve")
            .is_some(),
        "converged, and said to be a cycle, not a success"
    );
    assert_eq!(h.get_all_by_label("⟲ cycle").count(), 4, "on both peers");
    // The lesson's last step breaks the cycle and delivers everything.
    h.get_by_label("Next step ⏵").click();
    h.run();
    h.get_by_label("Next step ⏵").click();
    h.run();
    h.get_by_label("Next step ⏵").click();
    h.run();
    assert!(h.query_by_label_contains("Step 5 of 5").is_some());
    assert!(h.query_by_label("⟲ cycle").is_none(), "the cycle is gone");
    assert!(h.query_by_label_contains("✓ Converged").is_some());
    assert!(h.query_by_label("(rewound)").is_none());
    // Scrubbed back to the start, the header follows the timeline, and Next step walks the
    // recorded lesson again.
    h.get_by_label("⏮").click();
    h.run();
    assert!(h.query_by_label_contains("Step 0 of 5").is_some());
    assert!(h.query_by_label("(rewound)").is_some());
    h.get_by_label("Next step ⏵").click();
    h.run();
    assert!(h.query_by_label_contains("Step 1 of 5").is_some());
    assert!(
        h.query_by_label_contains("Not converged: 1 in flight")
            .is_some()
    );
}

/// A Chair created, the scene split into `peers` peers, then the Chair renamed "Armchair" as
/// peer 1: the rename is in flight to every other peer. Returns the Chair.
fn chair_renamed_among(h: &mut Harness<'static, Workbench>, peers: usize) -> Entity {
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Edit(
            scenetree_editor::Command::Create {
                parent: Entity::ROOT,
                name: "Chair".into(),
                components: vec![],
            },
        )]);
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Peers(PeersAction::Start {
            peers,
            seed: 7,
        })]);
    h.run();
    let chair = h.state().doc.selection.primary().unwrap();
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Edit(
            scenetree_editor::Command::Rename {
                entity: chair,
                name: "Armchair".into(),
            },
        )]);
    h.run();
    chair
}

#[test]
fn editing_as_the_active_peer_sends_messages_and_switching_peers_shows_their_state() {
    let mut h = harness();
    let chair = chair_renamed_among(&mut h, 3);
    assert!(
        h.query_by_label_contains("Not converged: 2 in flight")
            .is_some(),
        "the rename goes to peers 2 and 3"
    );
    h.get_by_label("Peer 2").click();
    h.run();
    assert_eq!(h.state().doc.simulation().unwrap().1, PeerId(2));
    assert_eq!(
        h.state().doc.name_of(chair).as_deref(),
        Some("Chair"),
        "peer 2 has not heard yet"
    );
    h.get_by_label("Deliver all ▾").click();
    h.run();
    h.get_by_label("In send order").click();
    h.run();
    assert_eq!(h.state().doc.name_of(chair).as_deref(), Some("Armchair"));
    assert!(h.query_by_label_contains("✓ Converged").is_some());
    // The timeline steps back: peer 2 forgets the rename again.
    h.get_by_label("⏮").click();
    h.run();
    assert_eq!(h.state().doc.name_of(chair).as_deref(), Some("Chair"));
}

#[test]
fn a_remote_change_glides_into_place_in_the_viewport() {
    let mut h = harness_with(true);
    h.get_by_label_contains("1. Two peers reparent at once")
        .click();
    h.run();
    // Step 1: peer 1 (shown) puts Lamp (x = 1) under Table (x = 3): Lamp jumps to x = 4.
    h.get_by_label("Next step ⏵").click();
    h.step();
    h.step();
    assert!(
        h.state().viewport.is_animating(),
        "the move is shown as motion"
    );
    for _ in 0..80 {
        h.step();
    }
    assert!(!h.state().viewport.is_animating(), "and it ends");
    let lamp = h
        .state()
        .viewport
        .scene()
        .items
        .iter()
        .find(|i| i.entity == LAMP)
        .unwrap();
    assert!(
        (lamp.world.w_axis.x - 4.0).abs() < 1e-5,
        "{:?}",
        lamp.world.w_axis
    );
}

/// Two simulated peers; peer 1 has just created "Crate" (its Transform and Name in flight).
pub(crate) fn crate_in_flight() -> Harness<'static, Workbench> {
    let mut h = harness();
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Peers(PeersAction::Start {
            peers: 2,
            seed: 3,
        })]);
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Edit(
            scenetree_editor::Command::Create {
                parent: Entity::ROOT,
                name: "Crate".into(),
                components: vec![],
            },
        )]);
    h.run();
    h
}

#[test]
fn auto_delivery_brings_messages_in_after_their_latency() {
    let mut h = crate_in_flight();
    assert!(
        h.query_by_label_contains("Not converged: 2 in flight")
            .is_some(),
        "Transform and Name in flight"
    );
    h.get_by_label("auto-deliver").click();
    // The clock runs on its own (one tick per 0.25 s); the latency is 3 ticks.
    for _ in 0..120 {
        h.step();
    }
    assert!(h.state().doc.simulation().unwrap().0.network().now() >= 3);
    assert!(h.query_by_label_contains("✓ Converged").is_some());
}

/// Stepping back through a run that auto-delivery played must not restart the clock there: it
/// would record a tick at once and throw away every later event (seen by hand: the step-back
/// button did nothing on a run ending with "auto-deliver" turned off).
#[test]
fn looking_back_through_an_auto_delivered_run_keeps_its_later_events() {
    let mut h = crate_in_flight();
    h.get_by_label("auto-deliver").click();
    for _ in 0..120 {
        h.step();
    }
    assert!(h.query_by_label_contains("✓ Converged").is_some());
    let network = |h: &Harness<'static, Workbench>| {
        let net = h.state().doc.simulation().unwrap().0.network();
        (net.cursor(), net.events().len())
    };
    let (end, len) = network(&h);
    assert_eq!(end, len);
    // Back to just after auto-delivery was turned on: the two messages are in flight again.
    let auto_on = {
        let net = h.state().doc.simulation().unwrap().0.network();
        let on = |e: &&scenetree_core::crdt::network::Event| {
            matches!(e.kind, EventKind::SetAutoDelivery { auto: Some(_) })
        };
        net.events().iter().position(|e| on(&e)).unwrap()
    };
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Peers(PeersAction::Seek(
            auto_on + 1,
        ))]);
    for _ in 0..120 {
        h.step();
    }
    assert_eq!(
        network(&h),
        (auto_on + 1, len),
        "the later events are all still there"
    );
    assert!(
        h.query_by_label_contains("clock paused").is_some(),
        "the panel says why nothing arrives"
    );
    // Back at the end, the clock runs again.
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Peers(PeersAction::Seek(len))]);
    for _ in 0..40 {
        h.step();
    }
    assert!(h.state().doc.simulation().unwrap().0.network().now() > 3);
}

#[test]
fn peer_columns_show_siblings_in_the_scenes_inspector_nodes_order_as_the_hierarchy_does() {
    use scenetree::ui::Action;
    use scenetree_editor::Command;
    let mut h = harness();
    for name in ["Alpha", "Beta"] {
        h.state_mut()
            .apply_actions(vec![Action::Edit(Command::Create {
                parent: Entity::ROOT,
                name: name.into(),
                components: vec![],
            })]);
    }
    h.run();
    let label = |h: &Harness<'static, Workbench>, name: &str| {
        let e = h
            .state()
            .doc
            .view()
            .entities()
            .find(|&e| h.state().doc.name_of(e).as_deref() == Some(name))
            .unwrap();
        format!("{name}  ·  {}", e.0)
    };
    let (alpha, beta) = (label(&h, "Alpha"), label(&h, "Beta"));
    let beta_entity = h.state().doc.selection.primary().unwrap();
    // Beta (the larger id) placed first, as a drop above Alpha does: stored in Nodes.
    h.state_mut()
        .apply_actions(vec![Action::Edit(Command::Reorder {
            entities: vec![beta_entity],
            parent: Entity::ROOT,
            after: None,
            keep_world: false,
        })]);
    h.state_mut()
        .apply_actions(vec![Action::Peers(PeersAction::Start {
            peers: 2,
            seed: 1,
        })]);
    h.run();
    // Both peers' columns (the Peers workspace shows them instead of the hierarchy): Beta above
    // Alpha in each, as in the hierarchy.
    let rows = |h: &Harness<'static, Workbench>, name: &str| -> Vec<egui::Rect> {
        let mut r: Vec<egui::Rect> = h.get_all_by_label(name).map(|n| n.rect()).collect();
        r.sort_by(|a, b| a.left().total_cmp(&b.left()));
        r
    };
    let (alphas, betas) = (rows(&h, &alpha), rows(&h, &beta));
    assert_eq!(alphas.len(), 2, "one row per peer column: {alphas:?}");
    assert_eq!(betas.len(), 2);
    for (a, b) in alphas.iter().zip(&betas) {
        assert!(b.top() < a.top(), "Beta {b:?} is above Alpha {a:?}");
    }
    // The same in each of the Policies view's columns (the active peer's tree under each rule).
    h.get_by_label("Policies").click();
    h.run();
    let (alphas, betas) = (rows(&h, &alpha), rows(&h, &beta));
    assert_eq!(alphas.len(), 5, "one row per policy column: {alphas:?}");
    assert_eq!(betas.len(), 5);
    for (a, b) in alphas.iter().zip(&betas) {
        assert!(b.top() < a.top(), "Beta {b:?} is above Alpha {a:?}");
    }
}

#[test]
fn a_duplicated_message_delivered_twice_says_its_receiver_already_holds_it() {
    let mut h = harness();
    chair_renamed_among(&mut h, 2);
    h.get_all_by_label("Dup").next().unwrap().click();
    h.run();
    assert!(
        h.query_by_label_contains("Messages in flight (2)")
            .is_some()
    );
    h.get_all_by_label("Deliver").next().unwrap().click();
    h.run();
    assert!(
        h.query_by_label_contains("ignored on arrival (peer 2 already holds it)")
            .is_some(),
        "the copy repeats what peer 2 now holds"
    );
    assert!(h.query_by_label_contains("holds newer").is_none());
}

#[test]
fn the_order_explorer_offers_the_peer_messages_wait_for_when_the_editing_peer_has_none() {
    use crate::peers_workspace::{lesson, next_step};
    // Lesson 6: peer 1 edits, so every message waits for peer 2.
    let mut h = lesson(5, egui::vec2(1600.0, 1000.0));
    h.get_by_label("Order explorer").click();
    h.run();
    assert!(h.query_by_label_contains("Nothing in flight").is_some());
    for _ in 0..4 {
        next_step(&mut h);
    }
    assert!(h.query_by_label_contains("peer 1's").is_none());
    h.get_by_label_contains("Explore every order of peer 2's 3 messages")
        .click();
    h.run();
    let result = "6 delivery orders; 2 of them pass through a parenting cycle; 1 final state";
    assert!(h.query_by_label_contains(result).is_some());
}

#[test]
fn the_order_explorer_lets_the_user_pick_whose_inbox_and_says_when_it_is_too_long() {
    use crate::ui_flows::pick_in_combo;
    let mut h = harness();
    chair_renamed_among(&mut h, 3); // one message waits for each of peers 2 and 3
    h.get_by_label("Order explorer").click();
    h.run();
    assert!(
        h.query_by_label_contains("Explore the order of peer 2's one message")
            .is_some()
    );
    pick_in_combo(&mut h, "peer 2", "peer 3 (1 waiting)");
    h.get_by_label_contains("Explore the order of peer 3's one message")
        .click();
    h.run();
    assert!(
        h.query_by_label_contains("peer 3: 1 delivery order")
            .is_some()
    );
    // Five new entities: more than eight messages wait (a newer write of a value replaces
    // the one in flight, so renaming the Chair again would not add any).
    for i in 0..5 {
        h.state_mut()
            .apply_actions(vec![scenetree::ui::Action::Edit(
                scenetree_editor::Command::Create {
                    parent: Entity::ROOT,
                    name: format!("Stool {i}"),
                    components: vec![],
                },
            )]);
    }
    h.run();
    assert!(
        h.query_by_label_contains("messages wait for peer 3: too many orders")
            .is_some()
    );
    assert!(
        h.get_by_label_contains("Explore every order of peer 3's")
            .accesskit_node()
            .is_disabled()
    );
}

#[test]
fn an_order_exploration_goes_when_the_messages_it_explored_do() {
    use crate::peers_workspace::{lesson, next_step};
    let mut h = lesson(0, egui::vec2(1600.0, 1000.0));
    next_step(&mut h);
    next_step(&mut h); // one message waits for peer 1
    h.get_by_label("Order explorer").click();
    h.run();
    h.get_by_label_contains("Explore the order of peer 1's one message")
        .click();
    h.run();
    let result = "1 delivery order; it passes through a parenting cycle; 1 final state";
    assert!(h.query_by_label_contains(result).is_some());
    next_step(&mut h); // that message is delivered
    assert!(
        h.query_by_label_contains(result).is_none(),
        "the result was about a message that is no longer waiting"
    );
    assert!(h.query_by_label_contains("✓ Every order ends").is_none());
}

#[test]
fn a_new_entity_scrolls_into_view_in_each_peer_column_that_holds_it() {
    // The showroom and two copies of its table at 1024×700 in the Peers workspace: a column
    // shows far fewer rows than the scene's 31, and a copy of the floor (at the root, after
    // everything) is listed last, out of view.
    let doc = Document::new(scenetree_core::examples::showroom(), None);
    let mut bench = Workbench::new(doc);
    bench.viewport.animate_remote_changes = false;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 700.0))
        .build_ui_state(
            |ui, bench: &mut Workbench| bench.ui(ui, &mut NullRenderer::default()),
            bench,
        );
    h.run();
    let duplicate = |h: &mut Harness<'static, Workbench>, entity: Entity| {
        h.state_mut()
            .apply_actions(vec![scenetree::ui::Action::Edit(
                scenetree_editor::Command::Duplicate {
                    entities: vec![entity],
                },
            )]);
        h.run();
    };
    duplicate(&mut h, TABLE);
    duplicate(&mut h, TABLE);
    let floor = Entity(512);
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Select(
            scenetree::ui::SelectAction::Only(floor),
        )]);
    h.state_mut()
        .apply_actions(vec![scenetree::ui::Action::Peers(PeersAction::Start {
            peers: 2,
            seed: 1,
        })]);
    h.run();
    assert_eq!(h.state().layout.workspace, Workspace::Peers);
    assert_eq!(h.state().doc.name_of(floor).as_deref(), Some("Floor"));
    let shown = |h: &Harness<'static, Workbench>, label: &str| {
        h.query_all_by_label(label)
            .filter(|n| n.rect().height() > 10.0)
            .count()
    };
    assert_eq!(
        shown(&h, "Floor  ·  512"),
        2,
        "both columns start at the top"
    );
    duplicate(&mut h, floor);
    let copy = h.state().doc.selection.primary().unwrap();
    let label = format!("Floor_2  ·  {}", copy.number());
    // Only peer 1 (editing) holds the copy yet, and its column shows it.
    assert_eq!(shown(&h, &label), 1);
    assert_eq!(
        shown(&h, "Floor  ·  512"),
        1,
        "peer 1's column scrolled down"
    );
    h.get_by_label("Deliver all ▾").click();
    h.run();
    h.get_by_label("In send order").click();
    h.run();
    h.run();
    assert_eq!(
        shown(&h, &label),
        2,
        "peer 2 received it: its column shows it too"
    );
}

#[test]
fn a_run_by_hand_saves_as_a_recording_that_replays_in_the_workspace() {
    // Lesson 1's two moves, then the newest message delivered first: peer 1 has the cycle.
    let mut h = harness();
    h.get_by_label_contains("1. Two peers reparent at once")
        .click();
    h.run();
    for _ in 0..2 {
        h.get_by_label("Next step ⏵").click();
        h.run();
    }
    let buttons: Vec<_> = h.get_all_by_label("Deliver").collect();
    buttons[1].click();
    h.run();
    let (sim, _) = h.state().doc.simulation().unwrap();
    let history = sim.history();
    let digests: Vec<u128> = (sim.network().replicas().iter())
        .map(|r| r.digest())
        .collect();
    // The session recording's form: a step per write or delivery, naming its peer and tick.
    let texts: Vec<&str> = (history.steps.iter())
        .map(|s| s.text.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(texts[0].contains(" · written by peer 1: "), "{texts:?}");
    assert!(texts[1].contains(" · written by peer 2: "), "{texts:?}");
    assert!(texts[2].contains(" · arrived at peer 1: "), "{texts:?}");
    assert!(texts.iter().all(|t| t.starts_with("t = ")), "{texts:?}");

    // Saved and opened as a file: the workspace, one peer per writer, the first message
    // in flight after the first step, and the cycle again at the end.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.scenario.json");
    scenetree_dcl::io::scenario::save_scenario(&history, &path).unwrap();
    let doc = scenetree::ui::files::load_document(&path, &Default::default()).unwrap();
    let mut r = harness();
    r.state_mut().set_document(doc);
    r.run();
    assert_eq!(r.state().layout.workspace, Workspace::Peers);
    assert!(r.query_by_label_contains("Step 0 of 3").is_some());
    r.get_by_label("Next step ⏵").click();
    r.run();
    assert!(
        r.query_by_label_contains("Not converged: 1 in flight")
            .is_some()
    );
    r.get_by_label("Next step ⏵").click();
    r.run();
    // The Order explorer and the Policies view work on it as on a lesson.
    r.get_by_label("Order explorer").click();
    r.run();
    r.get_by_label_contains("Explore the order of peer 1's one message")
        .click();
    r.run();
    let explored = "1 delivery order; it passes through a parenting cycle; 1 final state";
    assert!(r.query_by_label_contains(explored).is_some());
    r.get_by_label("Policies").click();
    r.run();
    assert_eq!(r.state().peers.columns_view, ColumnsView::Policies);
    for policy in TreePolicy::ALL {
        assert!(
            r.query_by_label(policy.name()).is_some(),
            "{}",
            policy.name()
        );
    }
    // Back to the peers' columns.
    r.get_by_label("Peers").click();
    r.run();
    assert_eq!(r.state().peers.columns_view, ColumnsView::Peers);
    r.get_by_label("Next step ⏵").click();
    r.run();
    let (replayed, _) = r.state().doc.simulation().unwrap();
    let replayed: Vec<u128> = (replayed.network().replicas().iter())
        .map(|r| r.digest())
        .collect();
    assert_eq!(replayed, digests);
    assert!(r.query_by_label_contains("⟲ Lamp → Table → Lamp").is_some());
}
