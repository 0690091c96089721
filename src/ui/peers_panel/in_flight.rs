//! The messages in flight: deliver, drop, duplicate, and drag to reorder.

use egui::RichText;

use super::PeersPanel;
use crate::crdt::network::{MessageKind, Network, Op};
use crate::ui::action::{Action, PeersAction};
use crate::ui::style;

impl PeersPanel {
    pub(super) fn in_flight_ui(
        &mut self,
        ui: &mut egui::Ui,
        network: &Network,
        actions: &mut Vec<Action>,
    ) {
        let flying = network.in_flight();
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("In flight: {}", flying.len())).strong());
            ui.weak("drag a row onto another to reorder");
        });
        if flying.is_empty() {
            ui.weak("Nothing in flight.");
        }
        let released = ui.input(|i| i.pointer.any_released());
        for (index, m) in flying.iter().enumerate() {
            let row = ui.horizontal(|ui| {
                let deliverable = network.is_deliverable(m);
                if ui
                    .add_enabled(deliverable, egui::Button::new("Deliver").small())
                    .clicked()
                {
                    actions.push(Action::Peers(PeersAction::Op(Op::Deliver { id: m.id })));
                }
                if ui.add(egui::Button::new("Drop").small()).clicked() {
                    actions.push(Action::Peers(PeersAction::Op(Op::Drop { id: m.id })));
                }
                if ui
                    .add(egui::Button::new("Dup").small())
                    .on_hover_text("Send a second copy")
                    .clicked()
                {
                    actions.push(Action::Peers(PeersAction::Op(Op::Duplicate { id: m.id })));
                }
                let text = network.describe_in_flight(m);
                let color = match m.kind {
                    MessageKind::Write => ui.visuals().text_color(),
                    MessageKind::Reply => style::REPLY_MESSAGE,
                    MessageKind::Announcement => style::ANNOUNCEMENT_MESSAGE,
                };
                let handle = ui
                    .add(
                        egui::Label::new(RichText::new(text.as_str()).color(color))
                            .sense(egui::Sense::drag()),
                    )
                    .on_hover_text(format!(
                        "{} message sent at tick {}",
                        m.kind.as_str(),
                        m.sent_at
                    ));
                if handle.drag_started() {
                    self.dragging = Some(m.id.0);
                }
            });
            if let Some(dragged) = self.dragging
                && dragged != m.id.0
                && row.response.contains_pointer()
            {
                ui.painter().hline(
                    row.response.rect.x_range(),
                    row.response.rect.top(),
                    (2.0, style::DROP_MARKER),
                );
                if released {
                    actions.push(Action::Peers(PeersAction::Op(Op::Reorder {
                        id: crate::crdt::network::MessageId(dragged),
                        index,
                    })));
                }
            }
        }
        if released {
            self.dragging = None;
        }
    }
}
