//! The messages in flight as a table: Deliver / Drop / Dup first (so the buttons keep their
//! places), then the id (drag it onto another row to reorder), from → to, the entity, the
//! component, what the message would change on its receiver (position, rotation as Euler
//! angles, scale, parent, name), its timestamp and when it was sent.

use egui::{Align, Layout, RichText};
use egui_extras::{Column, TableBuilder};

use super::PeersPanel;
use crate::crdt::network::{MessageId, MessageKind, MessageRow, Network, Op};
use crate::model::EulerOrder;
use crate::ui::action::{Action, PeersAction};
use crate::ui::style;

/// Height of one table row, points.
const ROW_HEIGHT: f32 = 22.0;

impl PeersPanel {
    pub(super) fn messages_ui(
        &mut self,
        ui: &mut egui::Ui,
        network: &Network,
        order: EulerOrder,
        actions: &mut Vec<Action>,
    ) {
        let flying = network.in_flight();
        if flying.is_empty() {
            ui.weak(
                "Nothing in flight. Edit as the active peer (each edit becomes one message to \
                 every other peer), or play the lesson's next step.",
            );
            return;
        }
        let pointer = ui.input(|i| i.pointer.hover_pos());
        let released = ui.input(|i| i.pointer.any_released());
        let painter = ui.painter().clone();
        let text_color = ui.visuals().text_color();
        TableBuilder::new(ui)
            .id_salt("peers-messages")
            .striped(true)
            // Widths follow the panel each frame ("what changed" takes what the others
            // leave), rather than being remembered from a first, narrower layout.
            .resizable(false)
            .min_scrolled_height(0.0)
            .auto_shrink([false, false])
            .cell_layout(Layout::left_to_right(Align::Center))
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::auto().at_least(70.0).clip(true))
            .column(Column::auto().clip(true))
            .column(Column::remainder().at_least(160.0).clip(true))
            .column(Column::auto())
            .column(Column::auto())
            .header(ROW_HEIGHT, |mut header| {
                for title in [
                    "",
                    "#",
                    "from → to",
                    "entity",
                    "component",
                    "what changed on arrival",
                    "t",
                    "sent at",
                ] {
                    header.col(|ui| {
                        ui.strong(title);
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, flying.len(), |mut row| {
                    let index = row.index();
                    let m = &flying[index];
                    let info = network.message_row(m);
                    row.col(|ui| {
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
                            actions
                                .push(Action::Peers(PeersAction::Op(Op::Duplicate { id: m.id })));
                        }
                    });
                    row.col(|ui| {
                        let handle = ui
                            .add(egui::Label::new(format!("⠿ {}", m.id)).sense(egui::Sense::drag()))
                            .on_hover_text("Drag onto another row to reorder");
                        if handle.drag_started() {
                            self.dragging = Some(m.id.0);
                        }
                    });
                    let color = row_color(&info, text_color);
                    let cells = row_texts(&info, network, order);
                    for (i, text) in cells.iter().enumerate() {
                        row.col(|ui| {
                            let label = egui::Label::new(RichText::new(text).color(color));
                            let response = ui.add(label.truncate());
                            if i == 3 {
                                response.on_hover_text(tooltip(&info, text));
                            }
                        });
                    }
                    let rect = row.response().rect;
                    if let Some(dragged) = self.dragging
                        && dragged != m.id.0
                        && pointer.is_some_and(|p| rect.contains(p))
                    {
                        painter.hline(rect.x_range(), rect.top(), (2.0, style::DROP_MARKER));
                        if released {
                            actions.push(Action::Peers(PeersAction::Op(Op::Reorder {
                                id: MessageId(dragged),
                                index,
                            })));
                        }
                    }
                });
            });
        if released {
            self.dragging = None;
        }
    }
}

/// Replies and announcements in their colours; a message that will change nothing faded.
fn row_color(info: &MessageRow, text: egui::Color32) -> egui::Color32 {
    let color = match info.kind {
        MessageKind::Write => text,
        MessageKind::Reply => style::REPLY_MESSAGE,
        MessageKind::Announcement => style::ANNOUNCEMENT_MESSAGE,
    };
    if info.stale {
        color.gamma_multiply(0.5)
    } else {
        color
    }
}

/// The texts of the columns after the buttons and the id: from → to, entity, component, what
/// changed, t, sent.
fn row_texts(info: &MessageRow, network: &Network, order: EulerOrder) -> [String; 6] {
    let name = |e| network.entity_label(e, info.to);
    let kind = match info.kind {
        MessageKind::Write => "",
        MessageKind::Reply => " (reply)",
        MessageKind::Announcement => " (announcement)",
    };
    let mut changed = info.effect.text(order, &name);
    if info.already_held {
        changed = format!("ignored on arrival (peer {} already holds it)", info.to.0);
    } else if info.stale {
        changed = format!(
            "ignored on arrival (peer {} holds newer): {changed}",
            info.to.0
        );
    }
    [
        format!("{} → {}{kind}", info.from.0, info.to.0),
        name(info.entity),
        info.component.clone().unwrap_or_else(|| "(entity)".into()),
        changed,
        info.timestamp.map_or_else(String::new, |t| t.to_string()),
        format!("t={}", info.sent_at),
    ]
}

/// The whole "what changed" text and what the row means, for its tooltip.
fn tooltip(info: &MessageRow, text: &str) -> String {
    let kind = match info.kind {
        MessageKind::Write => "A write",
        MessageKind::Reply => "A reply with the receiver's newer state, to an outdated sender",
        MessageKind::Announcement => "A removal announced after an entity deletion",
    };
    format!(
        "{text}\n\n{kind} from peer {} to peer {}, sent at tick {}. Compared with what peer {} \
         holds now.",
        info.from.0, info.to.0, info.sent_at, info.to.0
    )
}
