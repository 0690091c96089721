//! The default layout and panel sizes: the viewport gets the largest share at any window size,
//! side panels keep their size in points when the window is resized, and a dragged separator
//! sets the size that is kept.

use egui::{Rect, vec2};
use egui_kittest::Harness;
use scenetree::ui::{Tab, Workbench};
use scenetree_viewport::NullRenderer;

use crate::ui_flows::room;

pub(crate) fn harness_at(size: egui::Vec2) -> Harness<'static, Workbench> {
    harness_with(room(), size)
}

/// A workbench of `size` points showing `doc` in the default layout.
pub(crate) fn harness_with(
    doc: scenetree_editor::Document,
    size: egui::Vec2,
) -> Harness<'static, Workbench> {
    let mut h = Harness::builder().with_size(size).build_ui_state(
        |ui, bench: &mut Workbench| bench.ui(ui, &mut NullRenderer::default()),
        Workbench::new(doc),
    );
    h.run();
    h
}

/// Where the tab's panel was drawn in the last frame.
pub(crate) fn panel(h: &Harness<'_, Workbench>, tab: Tab) -> Rect {
    let tree = h.state().layout.dock.main_surface();
    let (node, _) = tree.find_tab(&tab).expect("the tab is docked");
    tree[node].rect().expect("a leaf has a rect")
}

#[test]
fn the_viewport_gets_the_largest_share_at_any_window_size() {
    for size in [
        vec2(1024.0, 700.0),
        vec2(1280.0, 800.0),
        vec2(1920.0, 1080.0),
    ] {
        let h = harness_at(size);
        let viewport = panel(&h, Tab::Viewport);
        for tab in [Tab::Hierarchy, Tab::Inspector, Tab::Peers] {
            let other = panel(&h, tab);
            assert!(
                viewport.area() > other.area(),
                "{size:?}: viewport {viewport:?} against {tab:?} {other:?}"
            );
        }
        assert!(
            viewport.width() > panel(&h, Tab::Hierarchy).width(),
            "{size:?}"
        );
        assert!(
            viewport.width() > panel(&h, Tab::Inspector).width(),
            "{size:?}"
        );
        assert!(
            viewport.height() > panel(&h, Tab::Peers).height(),
            "{size:?}"
        );
    }
}

#[test]
fn side_panels_keep_their_width_when_the_window_grows_and_after_a_drag() {
    let mut h = harness_at(vec2(1280.0, 800.0));
    let hierarchy = panel(&h, Tab::Hierarchy).width();
    let inspector = panel(&h, Tab::Inspector).width();
    h.set_size(vec2(1920.0, 1000.0));
    h.run();
    assert!((panel(&h, Tab::Hierarchy).width() - hierarchy).abs() < 2.0);
    assert!((panel(&h, Tab::Inspector).width() - inspector).abs() < 2.0);

    // Drag the separator between the hierarchy and the viewport 80 points to the right.
    let edge = panel(&h, Tab::Hierarchy).right();
    let y = panel(&h, Tab::Hierarchy).center().y;
    let from = egui::pos2(edge + 1.0, y);
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for i in 1..=4 {
        h.hover_at(from + vec2(20.0 * i as f32, 0.0));
        h.run();
    }
    h.drop_at(from + vec2(80.0, 0.0));
    h.run();
    let dragged = panel(&h, Tab::Hierarchy).width();
    assert!(
        (dragged - (hierarchy + 80.0)).abs() < 6.0,
        "{dragged} after the drag"
    );

    // The new width is the one kept.
    h.set_size(vec2(1400.0, 900.0));
    h.run();
    assert!((panel(&h, Tab::Hierarchy).width() - dragged).abs() < 2.0);
}
