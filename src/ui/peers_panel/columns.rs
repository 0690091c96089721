//! One column per peer: its name (click to show and edit it), online switch, Lamport clock
//! and digest, the entities its render tree re-rooted, an optional small 3D view, and its tree
//! drawn with the hierarchy's own rows (`peer_tree.rs`, which the Policies view shares).

use std::collections::HashSet;

use egui::RichText;

use super::column_drag::PeerDrops;
use super::peer_tree::{TreeLook, entity_name, has_name, tree_ui};
use super::view3d::{PeerView3d, ViewInput};
use super::{PeerColumn, PeersPanel, PeersUiContext, RootFallbackTree};
use crate::ui::action::{Action, PeersAction};
use crate::ui::style;
use scenetree_core::crdt::network::{Network, Op, PeerId};
use scenetree_core::model::Entity;
use scenetree_core::scene::SceneView;
use scenetree_editor::Document;
use scenetree_viewport::models::AssetLibrary;

/// Columns narrower than this (points) leave their digest to the tooltip, so the header
/// stays on one line.
const NARROW_COLUMN_WIDTH: f32 = 360.0;
/// The narrowest a column gets; more peers than fit scroll sideways.
const MIN_COLUMN_WIDTH: f32 = 230.0;
/// The most width a separator between columns takes (points; no more than the spacing
/// beside it).
const SEPARATOR_WIDTH: f32 = 6.0;
/// Columns shorter than this (points) leave out the 3D views (a view of about 70 points and
/// three rows of the tree below it).
const MIN_HEIGHT_FOR_VIEWS: f32 = 170.0;
/// The tallest a peer's 3D view gets, as a share of the column's height.
const VIEW_SHARE: f32 = 0.42;

/// What peer `i`'s 3D view draws (its size is left at zero for the caller to set).
fn view_input<'a>(
    view: &'a SceneView,
    network: &'a Network,
    i: usize,
    doc: &'a Document,
    hidden: &'a HashSet<Entity>,
) -> ViewInput<'a> {
    ViewInput {
        size: egui::Vec2::ZERO,
        view,
        replica: &network.replicas()[i],
        selection: doc.selection.entities(),
        hidden,
    }
}

/// Draws `count` columns side by side in the remaining space, each at least `min_width` wide
/// (`(min_width, spacing)`: `spacing` on each side of the separators) and as tall as the space;
/// when they do not fit, they scroll sideways. `column` draws column `i` in a top-down layout
/// of the given size.
pub(super) fn side_by_side(
    ui: &mut egui::Ui,
    id_salt: &str,
    count: usize,
    (min_width, spacing): (f32, f32),
    mut column: impl FnMut(&mut egui::Ui, usize, egui::Vec2),
) {
    // Between two columns: the spacing on both sides of a separator, and the separator's own
    // width. Counting one spacing only made the columns overflow the panel by 14 points a
    // gap, cutting the last one at the edge.
    ui.spacing_mut().item_spacing.x = spacing;
    let separator = SEPARATOR_WIDTH.min(spacing);
    let gap = 2.0 * spacing + separator;
    let available = ui.available_size();
    let width = ((available.x - gap * (count as f32 - 1.0)) / count as f32).max(min_width);
    let size = egui::vec2(width, available.y);
    egui::ScrollArea::horizontal()
        .id_salt(id_salt)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.horizontal_top(|ui| {
                for i in 0..count {
                    ui.allocate_ui_with_layout(
                        size,
                        egui::Layout::top_down(egui::Align::Min),
                        |ui| {
                            ui.set_min_size(size);
                            column(ui, i, size);
                        },
                    );
                    if i + 1 < count {
                        ui.add(egui::Separator::default().spacing(separator));
                    }
                }
            });
        });
}

impl PeersPanel {
    /// One column per peer, side by side; when they do not fit, the columns scroll sideways.
    pub(super) fn columns_ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        network: &Network,
        active: PeerId,
        cx: PeersUiContext<'_>,
        actions: &mut Vec<Action>,
    ) {
        let n = network.peer_count();
        self.views3d.each.resize_with(n, Default::default);
        let renderer = cx.renderer;
        let assets = cx.assets;
        let identity = super::run_identity(network);
        let views = &mut self.views3d;
        if views.framed_for != Some(identity) {
            views.framed_for = Some(identity);
            views.frame_now = true;
            // Another run: the pictures shown are of another document, which must not stay
            // on show while the new one's models upload (found by hand: seconds of it).
            views.each.iter_mut().for_each(PeerView3d::forget_image);
        }
        if self.show_views && std::mem::take(&mut self.views3d.frame_if_needed) {
            self.prepare_views(doc, network, assets);
            self.views3d.frame_now |=
                !(self.views3d.each.iter()).all(PeerView3d::shows_its_whole_scene);
        }
        if self.show_views && std::mem::take(&mut self.views3d.frame_now) {
            self.prepare_views(doc, network, assets);
            self.views3d.frame_on_every_peer();
        }
        let spacing = ui.spacing().item_spacing.x;
        let room_for_views = ui.available_height() >= MIN_HEIGHT_FOR_VIEWS;
        if self.show_views && !room_for_views {
            // Ticked but not drawn: say why, on one small line (found by hand: nothing did).
            ui.label(
                RichText::new("3D views need more height (Ctrl+F2)")
                    .weak()
                    .small(),
            )
            .on_hover_text(
                "Too short here for the peers' 3D views: drag the bar above the messages \
                     down, or use the Peers workspace (Ctrl+F2)",
            );
        }
        side_by_side(
            ui,
            "peer-columns",
            n,
            (MIN_COLUMN_WIDTH, spacing),
            |ui, i, size| {
                let peer = PeerId::from_index(i);
                self.column_header_ui(ui, network, peer, active, actions);
                let PeerColumn {
                    view,
                    flags,
                    rows,
                    nodes,
                    ..
                } = &mut self.peers[i];
                let hidden = &flags.hidden;
                // In a short strip (the editor's layout) the tree needs the height more than a
                // sliver of 3D does.
                if self.show_views && room_for_views {
                    let height = (size.x * 0.62).min(size.y * VIEW_SHARE);
                    let input = ViewInput {
                        size: egui::vec2(size.x, height),
                        ..view_input(view, network, i, doc, hidden)
                    };
                    let extra = renderer.extra(i);
                    match extra {
                        Some(r) => {
                            let views = &mut self.views3d;
                            views.each[i].ui(ui, &input, &mut views.camera, r, assets, actions)
                        }
                        None => {
                            ui.weak("(no 3D view: no renderer)");
                        }
                    }
                }
                let (name, named) = (entity_name(network, peer), has_name(network, peer));
                let look = TreeLook {
                    selection: doc.selection.entities(),
                    hidden,
                    name: &name,
                    named: &named,
                };
                let source = RootFallbackTree {
                    view,
                    flags,
                    nodes: &nodes.1,
                };
                let drops = PeerDrops {
                    peer,
                    view,
                    replica: &network.replicas()[i],
                    name: &name,
                };
                tree_ui(
                    ui,
                    egui::Id::new(("peer-tree", i)),
                    rows,
                    network.epoch(),
                    &source,
                    &look,
                    Some(&drops),
                    actions,
                );
            },
        );
    }

    /// Brings every peer's drawn items up to date (they are otherwise built when drawn).
    fn prepare_views(&mut self, doc: &Document, network: &Network, assets: &mut AssetLibrary) {
        for (i, view3d) in self.views3d.each.iter_mut().enumerate() {
            let column = &self.peers[i];
            let hidden = &column.flags.hidden;
            view3d.prepare(&view_input(&column.view, network, i, doc, hidden), assets);
        }
    }

    /// The peer's name (click to show and edit it), online switch, clock, digest and its
    /// re-rooted entities.
    fn column_header_ui(
        &mut self,
        ui: &mut egui::Ui,
        network: &Network,
        peer: PeerId,
        active: PeerId,
        actions: &mut Vec<Action>,
    ) {
        let i = peer.index();
        let is_active = peer == active;
        // One line when the column is wide enough: name, online switch, clock and digest.
        let column_width = ui.available_width();
        ui.horizontal_wrapped(|ui| {
            let live_name = self.names.live.as_ref().and_then(|names| names.get(i));
            let named = self.names.scenario.get(i);
            let text = match (live_name, named) {
                (Some(name), _) => name.clone(),
                (None, Some(name)) if is_active => format!("{name} (editing)"),
                (None, Some(name)) => name.clone(),
                (None, None) if is_active => format!("Peer {} (editing)", peer.0),
                (None, None) => format!("Peer {}", peer.0),
            };
            if ui
                .selectable_label(is_active, RichText::new(text).strong())
                .on_hover_text("Show and edit this peer")
                .clicked()
                && !is_active
            {
                actions.push(Action::Peers(PeersAction::Activate(peer)));
            }
            let mut online = network.is_online(peer).unwrap_or(true);
            if live_name.is_none()
                && ui
                    .checkbox(&mut online, "online")
                    .on_hover_text("An offline peer's messages wait, both ways")
                    .changed()
            {
                actions.push(Action::Peers(PeersAction::Op(Op::SetOnline {
                    peer,
                    online,
                })));
            }
            let (clock, digest) = (self.peers[i].summary).map_or((0, 0), |(_, c, d)| (c, d));
            let digest = format!("{:08x}", (digest >> 96) as u32);
            // A narrow column (the editor's strip) keeps its header on one line: the digest
            // goes to the tooltip.
            let text = if column_width >= NARROW_COLUMN_WIDTH {
                format!("Lamport {clock} · digest {digest}")
            } else {
                format!("Lamport {clock}")
            };
            ui.label(RichText::new(text).monospace())
                .on_hover_text(format!(
                    "The highest Lamport timestamp this peer holds (its Lamport clock, {clock}), \
                 and a hash of its state ({digest}): equal digests mean equal states"
                ));
        });
        // The re-rooted list comes from the same rows the tree draws.
        let name = |e: Entity| network.entity_label(e, peer);
        let PeerColumn {
            view,
            flags,
            rows,
            nodes,
            ..
        } = &mut self.peers[i];
        let source = RootFallbackTree {
            view,
            flags,
            nodes: &nodes.1,
        };
        rows.sync(network.epoch(), &source, &name);
        for (text, color) in rows.rerooted_lines(&source, &name) {
            ui.add(egui::Label::new(RichText::new(&text).color(color)).truncate())
                .on_hover_text(text);
        }
        let misplaced = &self.peers[i].nodes.1;
        if !misplaced.is_empty() {
            let names: Vec<String> = misplaced.list.iter().map(|m| name(m.entity)).collect();
            let text = format!(
                "≠ the Inspector's tree misplaces {}: {}",
                misplaced.len(),
                names.join(", ")
            );
            ui.add(egui::Label::new(RichText::new(&text).color(style::NODES_MISMATCH)).truncate())
                .on_hover_text(format!(
                    "{text}\nTheir parent in inspector::Nodes differs from their Transform's \
                     effective parent (marked ≠ in the tree)."
                ));
        }
    }
}
