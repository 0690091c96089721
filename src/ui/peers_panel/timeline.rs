//! The timeline: step and seek through the recorded events, and the latest events.

use egui::RichText;

use crate::crdt::network::Network;
use crate::ui::action::{Action, PeersAction};

pub(super) fn timeline_ui(ui: &mut egui::Ui, network: &Network, actions: &mut Vec<Action>) {
    ui.separator();
    let events = network.events();
    let cursor = network.cursor();
    ui.horizontal(|ui| {
        ui.label(RichText::new("Timeline").strong());
        if ui
            .add_enabled(cursor > 0, egui::Button::new("⏮"))
            .on_hover_text("Back to the start")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Seek(0)));
        }
        if ui
            .add_enabled(cursor > 0, egui::Button::new("⏴"))
            .on_hover_text("Step back")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Seek(cursor - 1)));
        }
        if ui
            .add_enabled(cursor < events.len(), egui::Button::new("⏵"))
            .on_hover_text("Step forward")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Seek(cursor + 1)));
        }
        if ui
            .add_enabled(cursor < events.len(), egui::Button::new("⏭"))
            .on_hover_text("To the end")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Seek(events.len())));
        }
        let mut position = cursor;
        if !events.is_empty()
            && ui
                .add(
                    egui::Slider::new(&mut position, 0..=events.len())
                        .text(format!("of {} events", events.len())),
                )
                .changed()
        {
            actions.push(Action::Peers(PeersAction::Seek(position)));
        }
    });
    for (i, event) in events.iter().enumerate().rev().take(12) {
        let text = format!("{}. {}", i + 1, network.describe_event(event));
        if i < cursor {
            ui.label(RichText::new(text).small());
        } else {
            ui.label(RichText::new(text).small().weak().strikethrough());
        }
    }
}
