//! The controls row (bulk delivery, the clock, auto-delivery, one message per tick, the 3D
//! views, export) and the convergence line. Widgets whose text changes (the clock) come last,
//! so nothing before them moves.

use super::PeersPanel;
use crate::ui::action::{Action, PeersAction};
use crate::ui::style;
use scenetree_core::crdt::network::{
    AutoDelivery, Convergence, DeliveryOrder, Network, Op, PeerId,
};
use scenetree_core::model::present;

pub(super) fn controls_ui(
    ui: &mut egui::Ui,
    network: &Network,
    active: PeerId,
    panel: &mut PeersPanel,
    actions: &mut Vec<Action>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("Editing as {active}."));
        ui.menu_button("Deliver all ▾", |ui| {
            for (order, label) in [
                (DeliveryOrder::Send, "In send order"),
                (DeliveryOrder::Reverse, "In reverse order"),
                (DeliveryOrder::Random, "In a random order (seeded)"),
            ] {
                if ui.button(label).clicked() {
                    actions.push(Action::Peers(PeersAction::DeliverAll(order)));
                    ui.close();
                }
            }
        });
        if ui
            .button("Tick")
            .on_hover_text("Advance the clock one tick (delivers what is due)")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Advance(1)));
        }
        let mut auto = network.auto_delivery().is_some();
        if ui
            .checkbox(&mut auto, "auto-deliver")
            .on_hover_text(
                "The clock runs (4 ticks a second) and messages arrive once their latency has passed",
            )
            .changed()
        {
            let setting = auto.then_some(AutoDelivery {
                latency: panel.clock.latency,
                jitter: 0,
            });
            actions.push(Action::Peers(PeersAction::Op(Op::SetAutoDelivery {
                auto: setting,
            })));
        }
        if auto && network.is_rewound() {
            ui.weak("clock paused")
                .on_hover_text("You are looking back along the timeline: the clock runs again at its end (⏭)");
        }
        let slider = ui.add(egui::Slider::new(&mut panel.clock.latency, 0..=20).text("latency"));
        if slider.changed() && auto {
            let setting = Some(AutoDelivery {
                latency: panel.clock.latency,
                jitter: 0,
            });
            actions.push(Action::Peers(PeersAction::Op(Op::SetAutoDelivery {
                auto: setting,
            })));
        }
        let mut merge = network.one_message_per_tick();
        if ui
            .checkbox(&mut merge, "one message per tick")
            .on_hover_text(
                "As the runtime sends them: a peer's writes to one component of one entity within \
                 one tick of the clock travel as one message with the latest value. Off, every \
                 write (every frame of a drag) is a message of its own.",
            )
            .changed()
        {
            actions.push(Action::Peers(PeersAction::Op(Op::SetOneMessagePerTick {
                on: merge,
            })));
        }
        ui.checkbox(&mut panel.show_views, "3D views")
            .on_hover_text("A small 3D view of each peer's scene, all seen through one camera");
        if panel.show_views
            && ui
                .button("Frame")
                .on_hover_text("Point the peers' views at what all the peers draw (or at the selection)")
                .clicked()
        {
            panel.views3d.frame_now = true;
        }
        ui.menu_button("More ▾", |ui| {
            if ui
                .button(format!("Export {active} as main.crdt…"))
                .clicked()
            {
                actions.push(Action::Peers(PeersAction::ExportPeer(active)));
                ui.close();
            }
            if ui.button("Save this run as a scenario…").clicked() {
                actions.push(Action::Peers(PeersAction::SaveRun));
                ui.close();
            }
            if ui
                .button(format!("Stop, keeping {active}'s state"))
                .clicked()
            {
                actions.push(Action::Peers(PeersAction::Stop(active)));
                ui.close();
            }
        });
        // "tick", not "clock": a peer's Lamport clock is shown in its column.
        ui.label(format!("network tick {}", network.now()))
            .on_hover_text(
                "The simulated network's time, in ticks: latency and auto-delivery count these",
            );
    });
}

/// One line, always visible: converged, converged into a cycle (`cycles`: the rings every
/// peer draws, as "Lamp → Table → Lamp"), or what is in flight and where the peers differ
/// (wrapped, never cut).
pub(super) fn convergence_ui(
    ui: &mut egui::Ui,
    network: &Network,
    c: &Convergence,
    cycles: &[String],
) {
    let (text, color) = if c.converged && !cycles.is_empty() {
        // Equal states are not a good outcome when every peer draws a cycle: no message in
        // flight will break it, only a new edit will (found by hand: it read as success).
        (
            format!(
                "⚠ Converged into a cycle no further message will resolve: {}. Every peer \
                 draws its members at the root; an edit that moves one of them breaks it.",
                present::first_named(cycles, "; ", String::clone)
            ),
            style::WARNING,
        )
    } else if c.converged {
        (
            "✓ Converged: every peer holds the same state and nothing is in flight.".to_string(),
            style::SUCCESS,
        )
    } else {
        let mut text = format!(
            "Not converged: {} in flight",
            present::thousands(c.in_flight)
        );
        if !c.differing.is_empty() {
            // The root entity holds the scene's own values (the Inspector's tree, its
            // settings), not an object called Root.
            let differing = present::first_named(&c.differing, ", ", |&e| {
                if e.is_root() {
                    "the scene's values on the root entity (such as the Inspector's tree)".into()
                } else {
                    network.entity_label(e, PeerId(1))
                }
            });
            text.push_str(&format!("; peers differ on {differing}"));
        }
        (text, style::WARNING)
    };
    ui.add(egui::Label::new(egui::RichText::new(&text).color(color)).wrap());
}
