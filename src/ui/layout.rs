//! Panel sizes in points, as in Godot and Unity: when the window grows or shrinks, the side
//! panels keep their width (and the bottom panel its height) and the viewport takes the rest;
//! a separator the user drags sets the panel's new size. The sizes are saved with the layout.
//!
//! egui_dock stores each split as a fraction of its area, which would make a side panel grow
//! with the window; before each frame [`PanelSizes::fit`] turns the remembered sizes back into
//! fractions for the area the dock is about to get.

use std::collections::HashMap;

use egui::Rect;
use egui_dock::{DockState, Node, NodeIndex, Tree};
use serde::{Deserialize, Serialize};

/// A panel never takes more than this share of the split it sits in, so the viewport keeps
/// the largest share however small the window is: 35% beside it, 42% below it (the Peers
/// strip, whose lesson header, trees and tabs found by hand no room at 35% of a 700-point
/// window).
fn max_share(horizontal: bool) -> f32 {
    if horizontal { 0.35 } else { 0.42 }
}

/// A panel keeps at least this many points (or the whole share above, if smaller).
const MIN_POINTS: f32 = 120.0;

/// The size a panel starts with, in points (width beside the viewport, height below it).
fn default_points(tab: Tab) -> f32 {
    match tab {
        Tab::Hierarchy => 250.0,
        Tab::Inspector => 330.0,
        Tab::Viewport => 400.0,
        // Room for the lesson's header, four rows of every peer's (or policy's) tree and
        // the lower view's tabs: at 240 a lesson showed about one row (found by hand).
        Tab::Peers => 270.0,
    }
}

/// The remembered size of every panel beside or below the viewport, keyed by the panel's
/// first tab.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PanelSizes {
    /// Size in points along the split (width for a side panel, height for a bottom one).
    points: HashMap<Tab, f32>,
    /// The split's length when `points` was last fitted, so a change tells a window resize
    /// (keep the points) from a dragged separator (take the new points).
    #[serde(skip)]
    fitted_for: HashMap<Tab, f32>,
}

impl PanelSizes {
    /// The remembered size of the panel whose first tab is `tab`, in points.
    pub fn points(&self, tab: Tab) -> Option<f32> {
        self.points.get(&tab).copied()
    }

    /// Forgets every size (the layout was reset).
    pub fn reset(&mut self) {
        *self = PanelSizes::default();
    }

    /// Sets the dock's split fractions for an area of `area` points: every split with the
    /// viewport on one side gives the panel on the other its remembered size.
    pub fn fit(&mut self, dock: &mut DockState<Tab>, area: Rect) {
        if !(area.width() > 1.0 && area.height() > 1.0) {
            return;
        }
        let tree = dock.main_surface_mut();
        if tree.is_empty() {
            return;
        }
        let mut stack = vec![(NodeIndex::root(), area)];
        while let Some((index, rect)) = stack.pop() {
            let horizontal = match node(tree, index) {
                Some(Node::Horizontal(_)) => true,
                Some(Node::Vertical(_)) => false,
                _ => continue,
            };
            let (first, second) = (index.left(), index.right());
            let extent = if horizontal {
                rect.width()
            } else {
                rect.height()
            };
            let viewport_first = contains(tree, first, Tab::Viewport);
            let viewport_second = contains(tree, second, Tab::Viewport);
            if viewport_first != viewport_second {
                let panel = if viewport_first { second } else { first };
                if let Some(tab) = first_tab(tree, panel)
                    && let Node::Horizontal(split) | Node::Vertical(split) = &mut tree[index]
                {
                    let share = |f: f32| if viewport_first { 1.0 - f } else { f };
                    let fraction_for = |points: f32| {
                        let upper = extent * max_share(horizontal);
                        let points = points.clamp(MIN_POINTS.min(upper), upper);
                        share(points / extent)
                    };
                    if self.fitted_for.get(&tab) == Some(&extent) {
                        // Same area as last frame: a dragged separator sets the size.
                        self.points.insert(tab, share(split.fraction) * extent);
                    } else {
                        let points = self.points(tab).unwrap_or_else(|| default_points(tab));
                        split.fraction = fraction_for(points);
                        self.points.insert(tab, share(split.fraction) * extent);
                        self.fitted_for.insert(tab, extent);
                    }
                }
            }
            let fraction = match &tree[index] {
                Node::Horizontal(split) | Node::Vertical(split) => split.fraction,
                _ => continue,
            };
            let (a, b) = if horizontal {
                let x = rect.min.x + rect.width() * fraction;
                (
                    Rect::from_min_max(rect.min, egui::pos2(x, rect.max.y)),
                    Rect::from_min_max(egui::pos2(x, rect.min.y), rect.max),
                )
            } else {
                let y = rect.min.y + rect.height() * fraction;
                (
                    Rect::from_min_max(rect.min, egui::pos2(rect.max.x, y)),
                    Rect::from_min_max(egui::pos2(rect.min.x, y), rect.max),
                )
            };
            stack.push((first, a));
            stack.push((second, b));
        }
    }
}

/// True when the subtree at `index` holds `tab`.
fn contains(tree: &Tree<Tab>, index: NodeIndex, tab: Tab) -> bool {
    subtree_leaves(tree, index).any(|leaf| leaf.tabs().contains(&tab))
}

/// The first tab of the subtree at `index`, depth first.
fn first_tab(tree: &Tree<Tab>, index: NodeIndex) -> Option<Tab> {
    subtree_leaves(tree, index).find_map(|leaf| leaf.tabs().first().copied())
}

fn subtree_leaves(
    tree: &Tree<Tab>,
    index: NodeIndex,
) -> impl Iterator<Item = &egui_dock::LeafNode<Tab>> {
    let mut stack = vec![index];
    std::iter::from_fn(move || {
        while let Some(i) = stack.pop() {
            match node(tree, i) {
                Some(Node::Leaf(leaf)) => return Some(leaf),
                Some(Node::Horizontal(_) | Node::Vertical(_)) => {
                    stack.push(i.right());
                    stack.push(i.left());
                }
                _ => {}
            }
        }
        None
    })
}

/// The node at `index`, if the tree has one there.
fn node(tree: &Tree<Tab>, index: NodeIndex) -> Option<&Node<Tab>> {
    (index.0 < tree.len()).then(|| &tree[index])
}

/// The dockable tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tab {
    /// The entity tree.
    Hierarchy,
    /// The 3D view.
    Viewport,
    /// The TRS inspector.
    Inspector,
    /// The multi-peer CRDT panel.
    Peers,
}

impl Tab {
    /// The title on the tab.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Hierarchy => "Hierarchy",
            Tab::Viewport => "Viewport",
            Tab::Inspector => "Inspector",
            Tab::Peers => "Peers",
        }
    }
}
