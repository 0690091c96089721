//! The order explorer: every delivery order of the messages waiting for the active peer.

use super::PeersPanel;
use crate::crdt::network::{Network, PeerId};
use crate::scene::order_explorer::explore_inbox;
use crate::ui::style;

impl PeersPanel {
    /// Runs the explorer on demand; it is read-only, so it returns no actions.
    pub(super) fn explorer_ui(&mut self, ui: &mut egui::Ui, network: &Network, active: PeerId) {
        egui::ScrollArea::vertical()
            .id_salt("peers-explorer")
            .auto_shrink([false, false])
            .show(ui, |ui| self.explorer_body_ui(ui, network, active));
    }

    fn explorer_body_ui(&mut self, ui: &mut egui::Ui, network: &Network, active: PeerId) {
        ui.horizontal(|ui| {
            let waiting = network
                .in_flight()
                .iter()
                .filter(|m| m.to == active)
                .count();
            if ui
                .add_enabled(
                    waiting > 0 && waiting <= 8,
                    egui::Button::new(format!(
                        "Explore every order of {active}'s {waiting} message(s)"
                    )),
                )
                .on_hover_text(
                    "Delivers the messages waiting for this peer in every possible order (up to 8)",
                )
                .clicked()
            {
                self.explored = Some((
                    active,
                    explore_inbox(network, active).map_err(|e| e.to_string()),
                ));
            }
        });
        if let Some((peer, result)) = &self.explored {
            match result {
                Ok(x) => {
                    ui.label(format!(
                        "{peer}: {} order(s); {} pass through a parenting cycle; {} distinct final state(s).",
                        x.orders,
                        x.orders_through_cycle,
                        x.finals.len()
                    ));
                    if !x.rerooted.is_empty() {
                        let names: Vec<String> = x
                            .rerooted
                            .iter()
                            .map(|r| network.entity_label(r.entity, *peer))
                            .collect();
                        ui.label(format!("Ever re-rooted: {}", names.join(", ")));
                    }
                    if x.converges() {
                        ui.colored_label(style::SUCCESS, "✓ Every order ends in the same state.");
                    } else {
                        ui.colored_label(
                            style::WARNING,
                            "Orders end in different states (grow-only values keep arrival order).",
                        );
                    }
                }
                Err(e) => {
                    ui.colored_label(style::WARNING, e);
                }
            }
        }
    }
}
