//! What the Peers workspace teaches, driven like a person would (issue 31): a cycle nothing
//! will resolve does not read as success; a cycle can be made by hand, dragging in each
//! peer's column as that peer, with the hierarchy's drop hints; cycle members are listed
//! together; the lessons are in the menus; the viewport's policy belongs to one run; and
//! "clock" means one thing.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::ui::app::Launch;
use scenetree::ui::{Action, PeersAction, Workbench};
use scenetree_core::crdt::Replica;
use scenetree_core::crdt::network::{DeliveryOrder, PeerId};
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_core::scene::policy::TreePolicy;
use scenetree_editor::Document;
use scenetree_viewport::NullRenderer;

use crate::app_flows::{app, settle};
use crate::peers_workspace::{lesson, next_step};
use crate::ui_flows::{BULB, CHAIR, TABLE, drag_and_hold, pick_in_combo, room, row};

/// `doc` split into two peers, in the Peers workspace of a 1600×1000 window.
fn peers_of(mut doc: Document) -> Harness<'static, Workbench> {
    doc.start_simulation(2, 1).unwrap();
    let mut bench = Workbench::new(Document::default());
    bench.viewport.animate_remote_changes = false;
    bench.set_document(doc);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(
            |ui, bench: &mut Workbench| bench.ui(ui, &mut NullRenderer::default()),
            bench,
        );
    h.run();
    h
}

/// The rectangle of the row `label` in peer column `column` (0: peer 1), left to right.
fn row_in_column(h: &Harness<'static, Workbench>, label: &str, column: usize) -> egui::Rect {
    let mut rects: Vec<egui::Rect> = h.get_all_by_label(label).map(|n| n.rect()).collect();
    rects.sort_by(|a, b| a.left().total_cmp(&b.left()));
    rects[column]
}

/// Drags the row `from` onto the row `onto`, both in peer column `column`; returns the hint
/// shown while it hovered.
fn drag_in_column(
    h: &mut Harness<'static, Workbench>,
    column: usize,
    from: &str,
    onto: &str,
) -> Vec<String> {
    let (a, b) = (
        row_in_column(h, from, column),
        row_in_column(h, onto, column),
    );
    drag_and_hold(h, a.center(), b.center());
    h.run();
    let hints: Vec<String> = h
        .get_all_by_role(egui::accesskit::Role::Label)
        .filter_map(|n| n.value())
        .filter(|l| l.contains(" under "))
        .collect();
    h.drop_at(b.center());
    h.run();
    hints
}

fn parent_on(h: &Harness<'static, Workbench>, peer: usize, entity: Entity) -> Entity {
    let (sim, _) = h.state().doc.simulation().unwrap();
    sim.network().replicas()[peer]
        .transform(entity)
        .unwrap()
        .parent
}

#[test]
fn a_cycle_made_by_dragging_in_two_peers_columns_converges_into_a_named_warning() {
    let mut h = peers_of(room());
    // Peer 2 puts Chair under Table, in its own column, with the hierarchy's hint.
    let hints = drag_in_column(&mut h, 1, &row("Chair", CHAIR), &row("Table", TABLE));
    assert!(
        hints
            .iter()
            .any(|l| l.starts_with("Move Chair under Table")),
        "no drop hint in peer 2's column: {hints:?}"
    );
    assert_eq!(parent_on(&h, 1, CHAIR), TABLE, "peer 2 made the move");
    assert_eq!(
        parent_on(&h, 0, CHAIR),
        Entity::ROOT,
        "peer 1 has not heard"
    );
    {
        let (sim, _) = h.state().doc.simulation().unwrap();
        let flying = sim.network().in_flight();
        assert!(!flying.is_empty() && flying.iter().all(|m| m.from == PeerId(2)));
    }
    // Peer 1 puts Table under Chair: on its own tree that is fine.
    drag_in_column(&mut h, 0, &row("Table", TABLE), &row("Chair", CHAIR));
    assert_eq!(parent_on(&h, 0, TABLE), CHAIR);
    // Everything delivered: both peers hold both moves, a cycle no message will resolve.
    h.state_mut()
        .apply_actions(vec![Action::Peers(PeersAction::DeliverAll(
            DeliveryOrder::Send,
        ))]);
    h.run();
    h.run();
    assert!(
        h.query_by_label_contains("✓ Converged").is_none(),
        "a permanent cycle reads as success"
    );
    let line = h
        .get_all_by_role(egui::accesskit::Role::Label)
        .filter_map(|n| n.value())
        .find(|l| l.contains("Converged") || l.contains("converged"))
        .expect("a convergence line");
    assert!(
        line.contains("cycle") && line.contains("Table") && line.contains("Chair"),
        "{line}"
    );
    assert_eq!(h.get_all_by_label("⟲ cycle").count(), 4, "two per peer");
}

#[test]
fn a_drop_that_would_make_an_entity_its_own_ancestor_is_refused_in_a_peer_column_too() {
    let mut h = peers_of(room());
    let hints = drag_in_column(&mut h, 0, &row("Table", TABLE), &row("Bulb", BULB));
    assert!(
        hints
            .iter()
            .any(|l| l.starts_with("Cannot move Table under Bulb")),
        "{hints:?}"
    );
    let (sim, _) = h.state().doc.simulation().unwrap();
    assert!(sim.network().in_flight().is_empty(), "nothing was sent");
}

#[test]
fn lesson_one_ends_in_a_cycle_that_is_said_to_be_permanent() {
    let mut h = lesson(0, egui::vec2(1600.0, 1000.0));
    // Step 4: both peers hold both moves, equal digests, nothing in flight (step 5 breaks
    // the cycle).
    for _ in 0..4 {
        next_step(&mut h);
    }
    assert!(h.query_by_label_contains("Step 4 of 5").is_some());
    assert!(h.query_by_label_contains("✓ Converged").is_none());
    let warning = crate::clipping::painted_texts(&h)
        .into_iter()
        .find(|p| p.galley.job.text.contains("no further message"))
        .expect("the line says no message will resolve it");
    assert!(
        warning.galley.job.text.contains("Lamp → Table → Lamp"),
        "the cycle's members are named: {}",
        warning.galley.job.text
    );
    assert_eq!(
        warning.galley.job.sections[0].format.color,
        scenetree::ui::style::WARNING
    );
}

#[test]
fn cycle_members_are_listed_together_in_a_peers_tree() {
    // A at 512 and B at 520 on a cycle, seven entities at the root between them by id.
    let mut r = Replica::new();
    let (a, b) = (Entity(512), Entity(520));
    for n in 512..=520 {
        let e = Entity(n);
        let parent = match e {
            e if e == a => b,
            e if e == b => a,
            _ => Entity::ROOT,
        };
        r.put_transform(e, &Transform::identity_under(parent))
            .unwrap();
        r.put(e, ids::NAME, encode_name(&format!("E{n}"))).unwrap();
    }
    let h = peers_of(Document::new(r, None));
    let pitch = scenetree::ui::tree_row::ROW_HEIGHT + 4.0;
    for column in 0..2 {
        let ya = row_in_column(&h, &row("E512", a), column).center().y;
        let yb = row_in_column(&h, &row("E520", b), column).center().y;
        assert!(
            (ya - yb).abs() <= pitch + 1.0,
            "peer {}: the cycle's members are {} points apart",
            column + 1,
            (ya - yb).abs()
        );
    }
}

#[test]
fn the_lessons_are_in_the_help_menu() {
    let mut h = app(Launch::default(), None);
    // A simulation runs, so the Peers panel does not list the lessons itself: only the menu
    // can open one.
    h.state_mut()
        .workbench_mut()
        .apply_actions(vec![Action::Peers(PeersAction::Start {
            peers: 2,
            seed: 1,
        })]);
    h.run();
    let (_, title) = scenetree::ui::lessons::lesson_document(2).unwrap();
    assert!(h.query_by_label_contains(&title).is_none());
    h.get_by_label("Help").click();
    h.run();
    h.get_by_label_contains("Lessons").hover();
    h.run();
    h.get_by_label_contains(&title).click();
    h.run();
    settle(&mut h);
    let (sim, _) = h.state().workbench().doc.simulation().expect("a lesson");
    assert_eq!(sim.lesson().unwrap().scenario().title, title);
}

/// Picks `policy` in the viewport's policy menu, as a user does.
fn choose_viewport_policy(h: &mut Harness<'_, Workbench>, policy: TreePolicy) {
    let shown = format!("Draw: {}", h.state().viewport.policy.policy.name());
    pick_in_combo(h, &shown, policy.name());
    assert_eq!(
        h.state().viewport.policy.policy,
        policy,
        "picked from the menu"
    );
}

#[test]
fn the_viewports_policy_belongs_to_one_run() {
    let mut h = lesson(6, egui::vec2(1280.0, 800.0));
    choose_viewport_policy(&mut h, TreePolicy::IgnoreCyclicChange);
    let (other, _) = scenetree::ui::lessons::lesson_document(0).unwrap();
    h.state_mut().set_document(other);
    h.run();
    assert_eq!(
        h.state().viewport.policy.policy,
        TreePolicy::RootFallback,
        "another lesson draws what the runtime draws"
    );
    // Stopped and started again: a new run.
    choose_viewport_policy(&mut h, TreePolicy::HideCycle);
    h.state_mut().apply_actions(vec![
        Action::Peers(PeersAction::Stop(PeerId(1))),
        Action::Peers(PeersAction::Start { peers: 2, seed: 3 }),
    ]);
    h.run();
    assert_eq!(h.state().viewport.policy.policy, TreePolicy::RootFallback);
}

#[test]
fn clock_names_one_thing() {
    let mut h = lesson(0, egui::vec2(1600.0, 1000.0));
    next_step(&mut h);
    let clocks: Vec<String> = h
        .get_all_by_role(egui::accesskit::Role::Label)
        .filter_map(|n| n.value())
        .filter(|l| l.to_lowercase().contains("clock"))
        .collect();
    assert!(
        clocks.len() <= 1,
        "\"clock\" labels two things (the network's tick, a peer's Lamport clock): {clocks:?}"
    );
    assert_eq!(
        h.query_all_by_label_contains("Lamport").count(),
        2,
        "each peer's Lamport clock"
    );
}
