//! Each peer's column: name, online switch, clock and digest, cycles, and its tree.

use egui::RichText;

use super::{PeersPanel, short_name};
use crate::crdt::network::{Network, Op, PeerId};
use crate::model::{Entity, present};
use crate::scene::{Fallback, SceneView};
use crate::ui::action::{Action, PeersAction};
use crate::ui::style;

impl PeersPanel {
    pub(super) fn peers_ui(
        &mut self,
        ui: &mut egui::Ui,
        network: &Network,
        active: PeerId,
        actions: &mut Vec<Action>,
    ) {
        let n = network.peer_count();
        ui.columns(n, |columns| {
            for (i, col) in columns.iter_mut().enumerate() {
                let peer = PeerId::from_index(i);
                let view = &self.views[i];
                let is_active = peer == active;
                col.horizontal(|ui| {
                    let label = RichText::new(format!("Peer {}", peer.0)).strong();
                    if ui
                        .selectable_label(is_active, label)
                        .on_hover_text("Show and edit this peer")
                        .clicked()
                        && !is_active
                    {
                        actions.push(Action::Peers(PeersAction::Activate(peer)));
                    }
                    let mut online = network.is_online(peer).unwrap_or(true);
                    if ui
                        .checkbox(&mut online, "online")
                        .on_hover_text("An offline peer's messages wait, both ways")
                        .changed()
                    {
                        actions.push(Action::Peers(PeersAction::Op(Op::SetOnline {
                            peer,
                            online,
                        })));
                    }
                });
                let (_, clock, digest) = self.summaries[i];
                col.label(
                    RichText::new(format!(
                        "clock t={clock} · digest {:08x}",
                        (digest >> 96) as u32
                    ))
                    .monospace()
                    .small(),
                );
                for cycle in view.cycles() {
                    let ring = present::cycle_ring(cycle, |e| short_name(network, e, peer));
                    col.label(RichText::new(format!("⟲ {ring}")).color(style::CYCLE));
                }
                tree_ui(col, view, network, peer);
            }
        });
    }
}

/// A compact tree of one peer: names with declared parents, re-rooted entities marked.
fn tree_ui(ui: &mut egui::Ui, view: &SceneView, network: &Network, peer: PeerId) {
    let rows = view.preorder();
    for (e, depth) in rows.into_iter().skip(1).take(300) {
        let name = short_name(network, e, peer);
        let indent = "  ".repeat(depth as usize - 1);
        let (suffix, color) = match view.fallback_reason(e) {
            Fallback::Cycle(_) => {
                let declared = view.declared_parent_of(e).unwrap_or(Entity::ROOT);
                (
                    format!(
                        "  ⟲ re-rooted: cycle (declared parent {})",
                        short_name(network, declared, peer)
                    ),
                    Some(style::CYCLE),
                )
            }
            Fallback::MissingParent => (
                "  △ missing parent".to_string(),
                Some(style::MISSING_PARENT),
            ),
            Fallback::None => (String::new(), None),
        };
        let text = RichText::new(format!("{indent}{name}{suffix}"))
            .monospace()
            .small();
        ui.label(match color {
            Some(c) => text.color(c),
            None => text,
        });
    }
}
