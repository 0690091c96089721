//! Nothing cut off at 1024×700 or 1280×800 (issue 31): the Policies view's five columns with
//! their subtitles, convergence lines and hidden lists; the peers' 3D views when ticked; the
//! inspector's model field; each policy's tree in the editor's layout with a lesson open. The
//! assertions fail on an elided text, a text outside its clip or the window, or a row under
//! the lower view.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::ui::Workbench;
use scenetree::ui::command::UiCommand;
use scenetree_core::model::ids;
use scenetree_core::scene::policy::TreePolicy;
use scenetree_dcl::GltfModel;
use scenetree_editor::Command;

use crate::clipping::{assert_whole, assert_whole_starting, painted};
use crate::peers_workspace::{lesson, next_step};
use crate::ui_flows::{CHAIR, room, row};

const SIZES: [egui::Vec2; 2] = [egui::vec2(1024.0, 700.0), egui::vec2(1280.0, 800.0)];

/// Lesson 7 in the Policies view of the Peers workspace, `steps` steps played.
fn policies_at(size: egui::Vec2, steps: usize) -> Harness<'static, Workbench> {
    let mut h = lesson(6, size);
    h.get_by_label("Policies").click();
    h.run();
    for _ in 0..steps {
        next_step(&mut h);
    }
    h
}

/// Where the Peers tab's panel ends on the right (the Peers workspace's own dock).
fn peers_panel_right(h: &Harness<'static, Workbench>) -> f32 {
    let tree = h.state().layout.peers_dock.main_surface();
    let (node, _) = tree.find_tab(&scenetree::ui::Tab::Peers).expect("docked");
    tree[node].rect().expect("a leaf has a rect").right()
}

#[test]
fn the_policies_view_shows_all_five_columns_whole() {
    for size in SIZES {
        let h = policies_at(size, 4);
        let edge = peers_panel_right(&h);
        for policy in TreePolicy::ALL {
            assert_whole(&h, size, policy.name());
            assert_whole(&h, size, policy.source());
            let header = h.get_by_label(policy.name()).rect();
            assert!(
                header.right() <= edge,
                "at {size:?}: {} ends at {} past the panel's edge {edge}",
                policy.name(),
                header.right()
            );
        }
        assert_whole_starting(&h, size, "✓ every peer draws this tree");
        assert_whole_starting(&h, size, "✗ peers differ on ");
        assert_whole_starting(&h, size, "hidden: ");
    }
}

#[test]
fn a_convergence_line_is_not_explained_twice_on_hover() {
    let size = egui::vec2(1280.0, 800.0);
    let mut h = policies_at(size, 4);
    const LINE: &str = "✓ every peer draws this tree";
    let columns = painted(&h, LINE).len();
    let line = h.get_all_by_label_contains(LINE).next().unwrap().rect();
    h.hover_at(line.center());
    h.run();
    h.run();
    let hovering = painted(&h, LINE).len();
    assert!(
        hovering <= columns + 1,
        "{} tooltips repeat the line under the pointer",
        hovering - columns
    );
}

#[test]
fn the_peers_3d_views_are_drawn_when_ticked_in_lesson_seven() {
    for size in SIZES {
        let mut h = lesson(6, size);
        for _ in 0..3 {
            next_step(&mut h);
        }
        assert!(h.state().peers.show_views, "ticked by default");
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, size);
        for i in 0..2 {
            let view = h.state().peers.peer_viewport(i).expect("a view").rect();
            assert!(
                view.is_positive() && view.height() >= 60.0 && window.contains_rect(view),
                "at {size:?}: peer {}'s 3D view is {view:?}",
                i + 1
            );
        }
        // In the editor's layout the strip may be too short for them: then it says so.
        h.state_mut().run_command(UiCommand::EditorWorkspace);
        h.run();
        h.run();
        let strip = crate::layout::panel(&h, scenetree::ui::Tab::Peers);
        let drawn = (0..2).all(|i| {
            let view = h.state().peers.peer_viewport(i).unwrap().rect();
            strip.contains_rect(view) && view.height() >= 40.0
        });
        let explained = h
            .query_by_label_contains("3D views need more height")
            .is_some();
        assert!(
            drawn || explained,
            "at {size:?}: the 3D views are ticked, not drawn in the editor's strip, and nothing says why"
        );
    }
}

#[test]
fn the_inspectors_model_field_keeps_its_label_whole() {
    for size in SIZES {
        let mut doc = room();
        let model = GltfModel {
            src: "assets/models/a-rather-long-folder-name/lamp.glb".into(),
            visible_meshes_collision_mask: None,
            invisible_meshes_collision_mask: None,
        };
        doc.apply(Command::SetComponent {
            entity: CHAIR,
            component: ids::GLTF_CONTAINER,
            value: Some(model.encode()),
        })
        .unwrap();
        let mut h = crate::layout::harness_with(doc, size);
        h.get_by_label(&row("Chair", CHAIR)).click();
        h.run();
        for narrower in [0.0, 90.0] {
            // The separator left of the inspector, dragged right: a narrow inspector.
            let inspector = crate::layout::panel(&h, scenetree::ui::Tab::Inspector);
            let grip = egui::pos2(inspector.left() - 2.0, inspector.center().y);
            if narrower > 0.0 {
                // Stepped, not run: the inspector's scroll area may still be gliding.
                h.hover_at(grip);
                h.step();
                h.drag_at(grip);
                h.step();
                for i in 1..=6 {
                    h.hover_at(grip + egui::vec2(narrower * i as f32 / 6.0, 0.0));
                    h.step();
                }
                h.drop_at(grip + egui::vec2(narrower, 0.0));
                h.run_steps(5);
                let now = crate::layout::panel(&h, scenetree::ui::Tab::Inspector);
                assert!(
                    now.width() < inspector.width() - 40.0,
                    "dragged narrower: {now:?}"
                );
            }
            h.get_by_label("model").scroll_to_me();
            // The scroll glides: let it settle.
            h.run_steps(30);
            crate::clipping::assert_one_line(&h, size, "model");
        }
    }
}

#[test]
fn with_a_lesson_open_in_the_editors_layout_every_policys_tree_shows_its_rows() {
    for size in SIZES {
        let mut h = policies_at(size, 1);
        h.state_mut().run_command(UiCommand::EditorWorkspace);
        h.run();
        h.run();
        let lower = h.get_by_label("Messages (0)").rect();
        let header_bottom = TreePolicy::ALL
            .iter()
            .map(|p| h.get_by_label(p.name()).rect().bottom())
            .fold(0.0, f32::max);
        for label in [
            "Shelf  ·  514",
            "Lamp  ·  512",
            "Table  ·  513",
            "Bulb  ·  515",
        ] {
            let whole = h
                .get_all_by_label(label)
                .map(|n| n.rect())
                .filter(|r| r.top() >= header_bottom - 0.5 && r.bottom() <= lower.top() + 0.5)
                .count();
            assert_eq!(
                whole, 5,
                "at {size:?}: {label} shown whole in {whole} of the five policies' trees"
            );
        }
    }
}

#[test]
fn with_a_lesson_open_in_the_editors_layout_every_peers_tree_shows_its_rows() {
    for size in SIZES {
        let mut h = lesson(6, size);
        next_step(&mut h);
        h.state_mut().run_command(UiCommand::EditorWorkspace);
        h.run();
        h.run();
        // The lower view's row (the switch beside its tabs) is whole in the strip.
        for tab in ["Peers", "Policies", "Messages (0)", "Explorer"] {
            assert_whole(&h, size, tab);
        }
        let strip = crate::layout::panel(&h, scenetree::ui::Tab::Peers);
        let lower = h.get_by_label("Messages (0)").rect();
        let header = h.get_by_label("Peer 1 (editing)").rect();
        for label in ["Shelf  ·  514", "Lamp  ·  512", "Table  ·  513"] {
            let whole = h
                .get_all_by_label(label)
                .map(|n| n.rect())
                .filter(|r| r.left() >= strip.left())
                .filter(|r| r.top() >= header.bottom() && r.bottom() <= lower.top() + 0.5)
                .count();
            assert_eq!(
                whole, 2,
                "at {size:?}: {label} whole in {whole} of the two peers' trees"
            );
        }
    }
}

#[test]
fn the_editor_and_the_peers_workspace_keep_their_controls_whole() {
    for size in SIZES {
        let mut h = crate::layout::harness_with(room(), size);
        h.get_by_label(&row("Chair", CHAIR)).click();
        h.run();
        for text in [
            "+ Entity", "+ Child", "Move", "Rotate", "Scale", "World", "Reset",
        ] {
            assert_whole(&h, size, text);
        }
        let mut h = lesson(0, size);
        next_step(&mut h);
        for text in [
            "Next step ⏵",
            "Deliver all ▾",
            "Tick",
            "More ▾",
            "Frame",
            "Peers",
        ] {
            assert_whole(&h, size, text);
        }
        assert_whole_starting(&h, size, "Not converged");
    }
}
