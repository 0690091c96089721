//! The order explorer: every delivery order of the messages waiting for the active peer.

use crate::ui::style;
use scenetree_core::crdt::ReplicaVersion;
use scenetree_core::crdt::network::{MessageId, Network, PeerId};
use scenetree_core::scene::order_explorer::{OrderExploration, explore_inbox};

/// What an exploration depends on: the peer, its replica's state, and the messages waiting
/// for it, in order. A delivery, a new message, a reorder or a timeline seek changes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct InboxKey(PeerId, Option<ReplicaVersion>, Vec<MessageId>);

impl InboxKey {
    fn of(network: &Network, peer: PeerId) -> InboxKey {
        let waiting = network.in_flight().iter().filter(|m| m.to == peer);
        InboxKey(
            peer,
            network.replica(peer).ok().map(|r| r.version()),
            waiting.map(|m| m.id).collect(),
        )
    }
}

/// The Order explorer's view: its last result, for the inbox it was run on.
#[derive(Default)]
pub(super) struct ExplorerView {
    /// Last result, for the peer it ran on.
    explored: Option<(PeerId, Result<OrderExploration, String>)>,
    /// What it was run on: another inbox does not show it.
    explored_inbox: Option<InboxKey>,
}

impl ExplorerView {
    /// Runs the explorer on demand; it is read-only, so it returns no actions.
    pub(super) fn ui(&mut self, ui: &mut egui::Ui, network: &Network, active: PeerId) {
        egui::ScrollArea::vertical()
            .id_salt("peers-explorer")
            .auto_shrink([false, false])
            .show(ui, |ui| self.explorer_body_ui(ui, network, active));
    }

    fn explorer_body_ui(&mut self, ui: &mut egui::Ui, network: &Network, active: PeerId) {
        let inbox = InboxKey::of(network, active);
        if self.explored_inbox.as_ref() != Some(&inbox) {
            // The result was about messages (or a state) that are no longer what is waiting.
            self.explored = None;
        }
        ui.horizontal(|ui| {
            let waiting = network
                .in_flight()
                .iter()
                .filter(|m| m.to == active)
                .count();
            if ui
                .add_enabled(
                    waiting > 0 && waiting <= 8,
                    egui::Button::new(match waiting {
                        1 => format!("Explore the order of {active}'s one message"),
                        n => format!("Explore every order of {active}'s {n} messages"),
                    }),
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
                self.explored_inbox = Some(inbox);
            }
        });
        if let Some((peer, result)) = &self.explored {
            match result {
                Ok(x) => {
                    ui.label(format!(
                        "{peer}: {}.",
                        summary(x.orders, x.orders_through_cycle, x.finals.len())
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

/// "6 orders; 2 of them pass through a parenting cycle; 1 final state", in words that fit the
/// counts.
fn summary(orders: u64, through_cycle: u64, finals: usize) -> String {
    let cycles = match (orders, through_cycle) {
        (1, 1) => "it passes through a parenting cycle".to_string(),
        (1, _) => "it never makes a parenting cycle".to_string(),
        (_, 0) => "none of them makes a parenting cycle".to_string(),
        (n, c) if n == c => "every one passes through a parenting cycle".to_string(),
        (_, 1) => "1 of them passes through a parenting cycle".to_string(),
        (_, c) => format!("{c} of them pass through a parenting cycle"),
    };
    let orders = match orders {
        1 => "1 delivery order".to_string(),
        n => format!("{n} delivery orders"),
    };
    let finals = match finals {
        1 => "1 final state".to_string(),
        n => format!("{n} different final states"),
    };
    format!("{orders}; {cycles}; {finals}")
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn the_summary_reads_right_for_one_and_for_many() {
        let cases = [
            (
                (1, 1, 1),
                "1 delivery order; it passes through a parenting cycle; 1 final state",
            ),
            (
                (6, 2, 1),
                "6 delivery orders; 2 of them pass through a parenting cycle; 1 final state",
            ),
            (
                (2, 1, 2),
                "2 delivery orders; 1 of them passes through a parenting cycle; 2 different final states",
            ),
            (
                (2, 0, 1),
                "2 delivery orders; none of them makes a parenting cycle; 1 final state",
            ),
            (
                (2, 2, 1),
                "2 delivery orders; every one passes through a parenting cycle; 1 final state",
            ),
        ];
        for ((orders, cyclic, finals), expected) in cases {
            assert_eq!(summary(orders, cyclic, finals), expected);
        }
    }
}
