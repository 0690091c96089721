//! The order explorer: every delivery order of the messages waiting for one peer (the active
//! peer's inbox unless the user picks another; a peer with messages waiting when it has none).

use std::collections::BTreeMap;

use crate::ui::style;
use scenetree_core::crdt::ReplicaVersion;
use scenetree_core::crdt::network::{MessageId, Network, PeerId};
use scenetree_core::scene::order_explorer::{MAX_MESSAGES, OrderExploration, explore_inbox};

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
    /// The peer the user picked, while messages wait for it.
    chosen: Option<PeerId>,
}

/// How many messages wait for each peer that has any, by peer.
fn inboxes(network: &Network) -> BTreeMap<PeerId, usize> {
    let mut waiting = BTreeMap::new();
    for m in network.in_flight() {
        *waiting.entry(m.to).or_insert(0) += 1;
    }
    waiting
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
        let waiting = inboxes(network);
        // The picked peer while it has messages waiting, else the active peer when it has
        // some, else the peer with the most (a lesson's sender has nothing waiting for it).
        let target = [self.chosen, Some(active)]
            .into_iter()
            .flatten()
            .find(|p| waiting.contains_key(p))
            .or_else(|| {
                waiting
                    .iter()
                    .max_by_key(|&(&p, &n)| (n, std::cmp::Reverse(p)))
                    .map(|(&p, _)| p)
            });
        let Some(target) = target else {
            self.explored = None;
            ui.weak(
                "Nothing in flight: deliver, delay or drop messages after an edit or a lesson \
                 step to explore their orders.",
            );
            return;
        };
        let inbox = InboxKey::of(network, target);
        if self.explored_inbox.as_ref() != Some(&inbox) {
            // The result was about messages (or a state) that are no longer what is waiting.
            self.explored = None;
        }
        let count = waiting[&target];
        ui.horizontal(|ui| {
            if waiting.len() > 1 {
                egui::ComboBox::from_id_salt("peers-explorer-peer")
                    .selected_text(format!("{target}"))
                    .show_ui(ui, |ui| {
                        for (&peer, &n) in &waiting {
                            let label = format!("{peer} ({n} waiting)");
                            if ui.selectable_label(peer == target, label).clicked() {
                                self.chosen = Some(peer);
                            }
                        }
                    })
                    .response
                    .on_hover_text("Whose waiting messages to explore");
            }
            if ui
                .add_enabled(
                    count <= MAX_MESSAGES,
                    egui::Button::new(match count {
                        1 => format!("Explore the order of {target}'s one message"),
                        n => format!("Explore every order of {target}'s {n} messages"),
                    }),
                )
                .on_hover_text(format!(
                    "Delivers the messages waiting for this peer in every possible order (up to \
                     {MAX_MESSAGES})"
                ))
                .clicked()
            {
                self.explored = Some((
                    target,
                    explore_inbox(network, target).map_err(|e| e.to_string()),
                ));
                self.explored_inbox = Some(inbox);
            }
        });
        if count > MAX_MESSAGES {
            ui.weak(format!(
                "{count} messages wait for {target}: too many orders to try (at most \
                 {MAX_MESSAGES} messages). Deliver or drop some first."
            ));
        }
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
                    let stuck = x.converged_cycles();
                    if x.converges() && stuck.is_empty() {
                        ui.colored_label(style::SUCCESS, "✓ Every order ends in the same state.");
                    } else if x.converges() {
                        let name = |e| network.entity_label(e, *peer);
                        let rings: Vec<String> = (stuck.iter())
                            .map(|ring| scenetree_core::model::present::cycle_ring(ring, name))
                            .collect();
                        ui.colored_label(
                            style::CYCLE,
                            format!(
                                "⟲ Every order ends in the same state, and it holds a parenting \
                                 cycle for good: {}. The members stay at the root until a later \
                                 write breaks it.",
                                rings.join("; ")
                            ),
                        );
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
