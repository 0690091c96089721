//! The timeline: the step and seek controls (pinned at the bottom of the panel), and the list
//! of recorded events (one of the lower views).

use egui::RichText;

use crate::ui::action::{Action, PeersAction};
use scenetree_core::crdt::network::Network;

/// Height of one event row, points.
const EVENT_ROW_HEIGHT: f32 = 18.0;

/// ⏮ ⏴ ⏵ ⏭ and the slider that replays the run to any event.
pub(super) fn timeline_controls_ui(
    ui: &mut egui::Ui,
    network: &Network,
    actions: &mut Vec<Action>,
) {
    let events = network.events();
    let cursor = network.cursor();
    ui.horizontal(|ui| {
        ui.label(RichText::new("Timeline").strong());
        let mut button = |ui: &mut egui::Ui, enabled: bool, text: &str, hint: &str, to: usize| {
            if ui
                .add_enabled(enabled, egui::Button::new(text))
                .on_hover_text(hint)
                .clicked()
            {
                actions.push(Action::Peers(PeersAction::Seek(to)));
            }
        };
        button(ui, cursor > 0, "⏮", "Back to the start", 0);
        button(ui, cursor > 0, "⏴", "Step back", cursor.saturating_sub(1));
        button(ui, cursor < events.len(), "⏵", "Step forward", cursor + 1);
        button(ui, cursor < events.len(), "⏭", "To the end", events.len());
        let mut position = cursor;
        ui.spacing_mut().slider_width = (ui.available_width() - 140.0).clamp(60.0, 600.0);
        if ui
            .add_enabled(
                !events.is_empty(),
                egui::Slider::new(&mut position, 0..=events.len().max(1))
                    .text(format!("of {} events", events.len())),
            )
            .changed()
        {
            actions.push(Action::Peers(PeersAction::Seek(position.min(events.len()))));
        }
    });
}

/// Every event, newest first; those after the cursor (undone by a seek) struck through.
pub(super) fn events_ui(ui: &mut egui::Ui, network: &Network) {
    let events = network.events();
    let cursor = network.cursor();
    if events.is_empty() {
        ui.weak("Nothing happened yet: edit as the active peer, or play the lesson's next step.");
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("peers-events")
        .auto_shrink([false, false])
        .show_rows(ui, EVENT_ROW_HEIGHT, events.len(), |ui, range| {
            for row in range {
                let i = events.len() - 1 - row;
                let text = format!("{}. {}", i + 1, network.describe_event(&events[i]));
                let label = if i < cursor {
                    RichText::new(text)
                } else {
                    RichText::new(text).weak().strikethrough()
                };
                ui.add(egui::Label::new(label).truncate());
            }
        });
}
