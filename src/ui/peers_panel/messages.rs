//! The messages in flight as a table: Deliver / Drop / Dup first (so the buttons keep their
//! places), then the id (drag it onto another row to reorder), from → to, the entity, the
//! component, what the message would change on its receiver (position, rotation as Euler
//! angles, scale, parent, name), its timestamp and when it was sent.

use egui::{Align, Layout, RichText};
use egui_extras::{Column, TableBuilder};

use super::PeersPanel;
use crate::ui::action::{Action, PeersAction};
use crate::ui::style;
use scenetree_core::crdt::network::{MessageId, MessageKind, MessageRow, Network, Op};
use scenetree_core::model::EulerOrder;
use scenetree_dcl::io::CompositeDoc;

/// Height of one table row, points.
const ROW_HEIGHT: f32 = 22.0;

impl PeersPanel {
    pub(super) fn messages_ui(
        &mut self,
        ui: &mut egui::Ui,
        network: &Network,
        order: EulerOrder,
        composite: Option<&CompositeDoc>,
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
        message_table(ui, "peers-messages", 3)
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
                        // Not selectable: dragging the handle must not select the row's text.
                        let handle = egui::Label::new(format!("⠿ {}", m.id))
                            .selectable(false)
                            .sense(egui::Sense::drag());
                        let handle = ui
                            .add(handle)
                            .on_hover_cursor(egui::CursorIcon::Grab)
                            .on_hover_text("Drag onto another row to reorder");
                        if handle.drag_started() {
                            self.dragging = Some(m.id.0);
                        }
                    });
                    let color = row_color(&info, text_color);
                    let cells = row_texts(&info, network, order, composite);
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

/// The least width of the timestamp and "sent at" columns, points: five digits of the
/// table's font and a little room.
const TIMESTAMP_COLUMN_WIDTH: f32 = 44.0;

/// Replies and announcements in their colours; a message that will change nothing faded.
/// The table of messages both the simulator and a live session show: `leading` narrow columns
/// of their own, then entity, component, what changed (taking the room the others leave), the
/// timestamp and one last narrow column.
pub(super) fn message_table<'a>(
    ui: &'a mut egui::Ui,
    id_salt: &str,
    leading: usize,
) -> TableBuilder<'a> {
    TableBuilder::new(ui)
        .id_salt(id_salt)
        .striped(true)
        // Widths follow the panel each frame ("what changed" takes what the others leave),
        // rather than being remembered from a first, narrower layout.
        .resizable(false)
        .min_scrolled_height(0.0)
        .auto_shrink([false, false])
        .cell_layout(Layout::left_to_right(Align::Center))
        .columns(Column::auto(), leading)
        .column(Column::auto().at_least(70.0).clip(true))
        .column(Column::auto().clip(true))
        .column(Column::remainder().at_least(160.0).clip(true))
        // Wide enough for five digits whatever the header: lessons teach by timestamp.
        .column(Column::auto().at_least(TIMESTAMP_COLUMN_WIDTH))
        .column(Column::auto().at_least(TIMESTAMP_COLUMN_WIDTH))
}

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
/// changed, t, sent. A component scenetree has no name for is named as the scene's composite
/// names it (a Decentraland project's `asset-packs::Actions`, say).
fn row_texts(
    info: &MessageRow,
    network: &Network,
    order: EulerOrder,
    composite: Option<&CompositeDoc>,
) -> [String; 6] {
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
        component_text(info.component_id, info.component.as_deref(), composite),
        changed,
        info.timestamp.map_or_else(String::new, |t| t.to_string()),
        format!("t={}", info.sent_at),
    ]
}

/// The component column: scenetree's name for it (`label`), else the composite's, else its
/// number; `(entity)` for an entity deletion (no component).
fn component_text(
    id: Option<u32>,
    label: Option<&str>,
    composite: Option<&CompositeDoc>,
) -> String {
    let from_scene = id
        .filter(|&id| scenetree_dcl::known_component_name(id).is_none())
        .and_then(|id| composite?.name_of(id));
    from_scene.or(label).unwrap_or("(entity)").to_owned()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_only_the_scene_names_take_the_composites_name() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/ecs/scene.composite"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let (_, composite, _) =
            scenetree_dcl::io::dcl_composite::parse_composite(std::path::Path::new(path), &text)
                .unwrap();
        // A component the scene defines for itself.
        let tag = scenetree_core::model::component_id_from_name("scenetree::Tag");
        let label = format!("component {tag}");
        assert_eq!(
            component_text(Some(tag), Some(&label), Some(&composite)),
            "scenetree::Tag"
        );
        assert_eq!(component_text(Some(tag), Some(&label), None), label);
        // scenetree's own short names stay.
        let transform = scenetree_core::model::ids::TRANSFORM;
        assert_eq!(
            component_text(Some(transform), Some("Transform"), Some(&composite)),
            "Transform"
        );
        assert_eq!(component_text(None, None, Some(&composite)), "(entity)");
    }
}
