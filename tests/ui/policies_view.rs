//! The Policies view driven like a person would: lesson 7 (one cycle, five rules) stepped,
//! every policy's tree side by side for the active peer, the entities they place differently
//! marked with every policy's reason, one convergence line per policy, the timeline scrubbed
//! back, and the viewport drawing one policy chosen in its selector.

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use glam::Vec3;
use scenetree::ui::peers_panel::ColumnsView;
use scenetree::ui::{Action, PeersAction, Workbench};
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::policy::TreePolicy;
use scenetree_editor::Command;

use crate::peers_workspace::{lesson, next_step};

const LAMP: &str = "Lamp  ·  512";
const TABLE: &str = "Table  ·  513";
const SHELF: &str = "Shelf  ·  514";
const BULB: &str = "Bulb  ·  515";
const AGREE: &str = "✓ every peer draws this tree";

/// Lesson 7 in the Policies view, `steps` steps played.
fn lesson_seven_at(steps: usize) -> Harness<'static, Workbench> {
    let mut h = lesson(6, egui::vec2(1600.0, 1000.0));
    h.get_by_label("Policies").click();
    h.run();
    assert_eq!(h.state().peers.columns_view, ColumnsView::Policies);
    for _ in 0..steps {
        next_step(&mut h);
    }
    h
}

/// The left edge of each policy's column (its header), in [`TreePolicy::ALL`]'s order.
fn column_lefts(h: &Harness<'static, Workbench>) -> Vec<f32> {
    TreePolicy::ALL
        .iter()
        .map(|p| h.get_by_label(p.name()).rect().left())
        .collect()
}

/// Which column (index into [`TreePolicy::ALL`]) holds x.
fn column_of(lefts: &[f32], x: f32) -> usize {
    lefts.iter().rposition(|&l| l <= x + 1.0).unwrap()
}

/// The rows called `label`, as (column, marked): one per policy that draws it.
fn rows(h: &Harness<'static, Workbench>, label: &str) -> Vec<(usize, bool)> {
    let lefts = column_lefts(h);
    let marks: Vec<egui::Rect> = h.query_all_by_label("≠").map(|n| n.rect()).collect();
    let mut out: Vec<(usize, bool)> = h
        .get_all_by_label(label)
        .map(|n| n.rect())
        .map(|r| {
            let column = column_of(&lefts, r.left());
            let marked = marks.iter().any(|m| {
                (m.center().y - r.center().y).abs() < 4.0 && column_of(&lefts, m.left()) == column
            });
            (column, marked)
        })
        .collect();
    out.sort_by_key(|r| r.0);
    out
}

/// The columns whose convergence line says every peer draws the same tree.
fn agreeing_columns(h: &Harness<'static, Workbench>) -> Vec<usize> {
    let lefts = column_lefts(h);
    let mut out: Vec<usize> = h
        .query_all_by_label(AGREE)
        .map(|n| column_of(&lefts, n.rect().left()))
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn lesson_seven_shows_each_policys_tree_marks_where_they_differ_and_which_converge() {
    let mut h = lesson_seven_at(0);
    // Before the lesson: one tree, drawn alike by all five, every peer agreeing.
    assert_eq!(agreeing_columns(&h), [0, 1, 2, 3, 4]);
    assert_eq!(h.query_all_by_label("≠").count(), 0);
    for _ in 0..3 {
        next_step(&mut h);
    }
    // Step 3: peer 1 declares Lamp → Table → Lamp. Lamp, Table and Bulb are placed
    // differently (marked in every column that draws them); HideCycle hides all three;
    // Shelf is placed alike and unmarked.
    for label in [LAMP, TABLE, BULB] {
        assert_eq!(
            rows(&h, label),
            [(0, true), (1, true), (2, true), (3, true)],
            "{label}"
        );
    }
    assert_eq!(
        rows(&h, SHELF),
        [(0, false), (1, false), (2, false), (3, false), (4, false)]
    );
    h.get_by_label("hidden: Lamp, Table, Bulb");
    // The mark's tooltip says why every policy put Table where it did.
    let lefts = column_lefts(&h);
    let table_row = h
        .get_all_by_label(TABLE)
        .map(|n| n.rect())
        .find(|r| column_of(&lefts, r.left()) == 1)
        .unwrap();
    let mark = h
        .get_all_by_label("≠")
        .map(|n| n.rect())
        .find(|m| {
            (m.center().y - table_row.center().y).abs() < 4.0 && column_of(&lefts, m.left()) == 1
        })
        .unwrap();
    h.hover_at(mark.center());
    h.run();
    h.get_by_label_contains(
        "IgnoreCyclicChange: at the root: its Transform asks for Lamp, which would close a cycle",
    );
    h.get_by_label_contains("HideCycle: hidden: on the cycle Lamp → Table → Lamp");
    h.hover_at(egui::pos2(5.0, 5.0));
    h.run();
    // Peer 2's message is still in flight: only RevertToEarlierParent draws one tree on both.
    assert_eq!(agreeing_columns(&h), [2]);

    // Step 4: same state on both peers; IgnoreCyclicChange still draws two trees.
    next_step(&mut h);
    assert_eq!(agreeing_columns(&h), [0, 2, 3, 4]);
    let line = h
        .get_by_label_contains("(same state, different trees)")
        .rect();
    assert_eq!(
        column_of(&lefts, line.left()),
        1,
        "under IgnoreCyclicChange"
    );

    // Step 5: the cycle is broken. Four converged, IgnoreCyclicChange did not (Table).
    next_step(&mut h);
    assert_eq!(agreeing_columns(&h), [0, 2, 3, 4]);
    h.get_by_label("✗ peers differ on Table (same state, different trees)");
    // MoveOpSkip keeps Table at the root, the others (on peer 1) under Lamp: marked.
    assert_eq!(rows(&h, TABLE).iter().filter(|r| r.1).count(), 5);

    // Scrubbing the timeline back to the start redraws every column.
    h.state_mut()
        .apply_actions(vec![Action::Peers(PeersAction::Seek(0))]);
    h.run();
    assert_eq!(agreeing_columns(&h), [0, 1, 2, 3, 4]);
    assert_eq!(h.query_all_by_label("≠").count(), 0);
}

#[test]
fn every_peer_stacks_each_peers_tree_in_every_column() {
    let mut h = lesson_seven_at(4);
    h.get_by_label("every peer").click();
    h.run();
    assert!(h.state().peers.policies_every_peer);
    // Five columns, two peers each: every entity has ten rows but the three HideCycle hides.
    assert_eq!(h.get_all_by_label(SHELF).count(), 10);
    assert_eq!(h.get_all_by_label(LAMP).count(), 8);
    assert_eq!(h.get_all_by_label("Peer 2").count(), 5);
}

#[test]
fn a_column_keeps_its_rows_while_its_policys_tree_is_unchanged() {
    let mut h = lesson_seven_at(3);
    let built = h.state().peers.policy_rows_built();
    h.run();
    assert_eq!(h.state().peers.policy_rows_built(), built, "idle frames");
    // Shelf moves up a meter: no parent changes, so no policy's tree does.
    let shelf = Transform {
        position: Vec3::new(5.0, 1.0, 0.0),
        ..Transform::IDENTITY
    };
    h.state_mut()
        .apply_actions(vec![Action::Edit(Command::SetTransforms(vec![(
            Entity(514),
            shelf,
        )]))]);
    h.run();
    assert_eq!(
        h.state().peers.policy_rows_built(),
        built,
        "a move in place"
    );
    // Step 4 reaches peer 2 only: peer 1's columns (the active peer's) keep their rows.
    next_step(&mut h);
    assert_eq!(
        h.state().peers.policy_rows_built(),
        built,
        "another peer's change"
    );
    // Step 5 changes peer 1's parents: its columns read their trees again.
    next_step(&mut h);
    assert!(h.state().peers.policy_rows_built() > built);
}

#[test]
fn the_viewport_draws_the_policy_chosen_in_its_selector() {
    let mut h = lesson(6, egui::vec2(1600.0, 1000.0));
    for _ in 0..3 {
        next_step(&mut h);
    }
    let drawn = |h: &Harness<'static, Workbench>| {
        let mut v: Vec<u32> = h
            .state()
            .viewport
            .scene()
            .items
            .iter()
            .map(|i| i.entity.0)
            .collect();
        v.sort_unstable();
        v
    };
    let lamp_x = |h: &Harness<'static, Workbench>| {
        let scene = h.state().viewport.scene();
        let lamp = scene
            .items
            .iter()
            .find(|i| i.entity == Entity(512))
            .unwrap();
        lamp.world.w_axis.x
    };
    // The runtime's rule by default: Lamp on the cycle at the root, at its own x = 1.
    assert_eq!(drawn(&h), [512, 513, 514, 515]);
    assert_eq!(lamp_x(&h), 1.0);
    h.get_by_value("Draw: RootFallback").click();
    h.run();
    h.get_by_label("HideCycle").click();
    h.run();
    assert_eq!(h.state().viewport.policy.policy, TreePolicy::HideCycle);
    assert_eq!(drawn(&h), [514], "only Shelf: the cycle and Bulb hidden");
    h.get_by_value("Draw: HideCycle").click();
    h.run();
    h.get_by_label("IgnoreCyclicChange").click();
    h.run();
    // Peer 1 kept Lamp (x = 1) under Table (x = 3).
    assert_eq!(drawn(&h), [512, 513, 514, 515]);
    assert_eq!(lamp_x(&h), 4.0);
    // That policy resolved the cycle its own way: neither Lamp (moved under Table) nor Table
    // (left at the root, its change ignored) carries the root fallback's tint there.
    let color = |h: &Harness<'static, Workbench>, e: u32| {
        let scene = h.state().viewport.scene();
        scene.items.iter().find(|i| i.entity.0 == e).unwrap().color
    };
    assert_ne!(color(&h, 512), scenetree::ui::style::CYCLE_TINT);
    assert_ne!(color(&h, 513), scenetree::ui::style::CYCLE_TINT);
    h.get_by_value("Draw: IgnoreCyclicChange").click();
    h.run();
    h.get_by_label("RootFallback").click();
    h.run();
    assert_eq!(color(&h, 512), scenetree::ui::style::CYCLE_TINT);
}

#[test]
fn in_the_editor_layout_each_policys_tree_starts_above_the_lower_view() {
    let mut h = lesson_seven_at(1);
    h.state_mut()
        .run_command(scenetree::ui::command::UiCommand::EditorWorkspace);
    h.run();
    // Step 1: Lamp under Shelf everywhere; Shelf is the first row of every policy's tree.
    let lower = h.get_by_label("Messages (0)").rect();
    let headers: Vec<egui::Rect> = TreePolicy::ALL
        .iter()
        .map(|p| h.get_by_label(p.name()).rect())
        .collect();
    let shelves: Vec<egui::Rect> = h
        .get_all_by_label(SHELF)
        .map(|n| n.rect())
        .filter(|r| r.top() > headers[0].bottom())
        .collect();
    assert_eq!(shelves.len(), 5, "one per policy column: {shelves:?}");
    for row in shelves {
        assert!(
            row.bottom() <= lower.top(),
            "{row:?} is under the lower view at {lower:?}"
        );
    }
    // The lists end where the lower view starts: no row is laid out under its tabs.
    for label in [LAMP, TABLE, BULB, SHELF] {
        for row in h.get_all_by_label(label).map(|n| n.rect()) {
            assert!(
                row.top() < lower.top(),
                "{label} at {row:?} runs under the lower view at {lower:?}"
            );
        }
    }
}

#[test]
fn at_1280_by_800_all_five_policy_columns_fit_the_peers_panel() {
    let mut h = lesson(6, egui::vec2(1280.0, 800.0));
    h.get_by_label("Policies").click();
    h.run();
    // Where the Peers panel ends (the Peers workspace's own dock).
    let edge = {
        let tree = h.state().layout.peers_dock.main_surface();
        let (node, _) = tree.find_tab(&scenetree::ui::Tab::Peers).expect("docked");
        tree[node].rect().expect("a leaf has a rect").right()
    };
    // The last header (HideCycle) and what it says it hides are inside the panel, not cut at
    // its edge (the columns used to overflow by their separators' width).
    for _ in 0..4 {
        next_step(&mut h);
    }
    for policy in TreePolicy::ALL {
        let header = h.get_by_label(policy.name()).rect();
        assert!(
            header.left() + 100.0 <= edge,
            "{}: header at {header:?}, panel edge {edge}",
            policy.name()
        );
    }
    let hidden = h.get_by_label_contains("hidden: ").rect();
    assert!(hidden.right() <= edge, "{hidden:?} vs the edge at {edge}");
}

#[test]
fn one_peers_policy_columns_scroll_together() {
    // The showroom's 31 entities at 1024×700: a column shows far fewer rows than it lists.
    let doc = scenetree_editor::Document::new(scenetree_core::examples::showroom(), None);
    let mut bench = Workbench::new(doc);
    bench.viewport.animate_remote_changes = false;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1024.0, 700.0))
        .build_ui_state(
            |ui, bench: &mut Workbench| {
                bench.ui(ui, &mut scenetree_viewport::NullRenderer::default())
            },
            bench,
        );
    h.run();
    h.state_mut()
        .apply_actions(vec![Action::Peers(PeersAction::Start {
            peers: 2,
            seed: 1,
        })]);
    h.run();
    h.get_by_label("Policies").click();
    h.run();
    let floor = "Floor  ·  512";
    let tops = |h: &Harness<'static, Workbench>| -> Vec<f32> {
        let mut ys: Vec<(f32, f32)> = (h.query_all_by_label(floor))
            .map(|n| n.rect())
            .filter(|r| r.height() > 10.0)
            .map(|r| (r.left(), r.top()))
            .collect();
        ys.sort_by(|a, b| a.0.total_cmp(&b.0));
        ys.into_iter().map(|(_, y)| y).collect()
    };
    let at_start = tops(&h);
    assert_eq!(
        at_start.len(),
        5,
        "every column shows the floor: {at_start:?}"
    );
    // The wheel over the first column, a few rows down.
    let first = h.get_all_by_label(floor).next().unwrap().rect();
    h.event(egui::Event::PointerMoved(
        first.center() + egui::vec2(0.0, 60.0),
    ));
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -80.0),
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
    });
    // The wheel scrolls smoothly over a few frames; the others follow one frame behind.
    h.run_steps(30);
    // Every row the first column shows, every other column shows at the same height below
    // where its rows start (a header that wraps starts one column's rows lower).
    let lefts = column_lefts(&h);
    let mut by_label: std::collections::BTreeMap<String, Vec<(usize, f32)>> = Default::default();
    for node in h.query_all_by_label_contains("  ·  ") {
        let r = node.rect();
        let label = node.accesskit_node().label().unwrap_or_default();
        if r.height() > 10.0 && !label.is_empty() {
            by_label
                .entry(label)
                .or_default()
                .push((column_of(&lefts, r.left()), r.top()));
        }
    }
    for rows in by_label.values_mut() {
        for (column, top) in rows.iter_mut() {
            *top -= at_start[*column];
        }
    }
    let in_first: Vec<_> = (by_label.iter())
        .filter(|(_, rows)| rows.iter().any(|(c, _)| *c == 0))
        .collect();
    let in_all = in_first.iter().filter(|(_, rows)| rows.len() == 5).count();
    assert!(in_all >= 5, "rows every column shows: {by_label:?}");
    // (A row at the clip's edge may be cut from a column whose header is taller.)
    for (label, rows) in in_first {
        let y = rows[0].1;
        assert!(
            rows.iter().all(|(_, top)| (top - y).abs() < 1.0),
            "{label} at the same height in every column: {rows:?}"
        );
    }
    assert_ne!(tops(&h), at_start, "the first column scrolled");
}
