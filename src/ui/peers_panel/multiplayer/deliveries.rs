//! The deliveries as a table: Deliver / Delay / Drop / Dup first (so the buttons keep their
//! places), the id (drag it onto another row to the same player to move the delivery there),
//! sender's tick → receiver, the CommsMessage, the network entities, components and timestamps
//! of its CRDT messages, the hazards it leads to and where it arrives. Hovering a row's
//! entities lists every message it holds.

use egui::{Align, Layout, RichText};
use egui_extras::{Column, TableBuilder};

use super::MultiplayerView;
use super::columns::hazard_badge;
use crate::ui::action::{Action, MultiplayerAction};
use crate::ui::style;
use scenetree_core::net::run::{DeliveryRow, NetRun, Slot};

/// Height of one table row, points.
const ROW_HEIGHT: f32 = 22.0;
/// Network entities named in a row before the rest are counted.
const LISTED_ENTITIES: usize = 2;

impl MultiplayerView {
    pub(super) fn deliveries_ui(
        &mut self,
        ui: &mut egui::Ui,
        run: &NetRun,
        actions: &mut Vec<Action>,
    ) {
        ui.horizontal(|ui| {
            let title = if self.show_all {
                format!("Every delivery ({})", self.rows.len())
            } else {
                format!("Deliveries in flight ({})", self.rows.len())
            };
            ui.label(RichText::new(title).strong());
            ui.checkbox(&mut self.show_all, "every delivery of the run")
                .on_hover_text(
                    "Show every delivery, not only those in flight at the timeline's position",
                );
        });
        if self.rows.is_empty() {
            ui.weak(if run.cursor() == run.script().len() {
                "Nothing in flight at the end of the run: move the timeline back (⏴) to see the \
                 deliveries of an earlier tick, or tick \"every delivery of the run\"."
            } else {
                "Nothing in flight after this tick."
            });
            return;
        }
        let pointer = ui.input(|i| i.pointer.hover_pos());
        let released = ui.input(|i| i.pointer.any_released());
        let painter = ui.painter().clone();
        let rows = &self.rows;
        let mut dragging = self.dragging;
        table(ui)
            .header(ROW_HEIGHT, |mut header| {
                for title in [
                    "",
                    "#",
                    "sent → to",
                    "CommsMessage",
                    "network entity",
                    "component",
                    "hazards · messages",
                    "t",
                    "arrives",
                ] {
                    header.col(|ui| {
                        ui.strong(title);
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, rows.len(), |mut row| {
                    let index = row.index();
                    let d = &rows[index];
                    row.col(|ui| controls_ui(ui, run, d, actions));
                    row.col(|ui| {
                        let handle = egui::Label::new(format!("⠿ {}", index + 1))
                            .selectable(false)
                            .sense(egui::Sense::drag());
                        let handle = ui
                            .add(handle)
                            .on_hover_cursor(egui::CursorIcon::Grab)
                            .on_hover_text(
                                "Drag onto another row to the same player: this delivery then \
                                 arrives at that row's tick, just before it",
                            );
                        if handle.drag_started() {
                            dragging = Some(d.slot);
                        }
                    });
                    for (column, text) in row_texts(run, d).into_iter().enumerate() {
                        row.col(|ui| {
                            if column == 4 {
                                hazards_cell_ui(ui, run, d, &text);
                                return;
                            }
                            let label = ui.add(egui::Label::new(text).truncate());
                            if column == 2 {
                                label.on_hover_text(messages_tooltip(run, d));
                            }
                        });
                    }
                    let rect = row.response().rect;
                    if let Some(dragged) = dragging
                        && dragged != d.slot
                        && run.receiver(dragged) == Some(d.to)
                        && pointer.is_some_and(|p| rect.contains(p))
                    {
                        painter.hline(rect.x_range(), rect.top(), (2.0, style::DROP_MARKER));
                        if released {
                            actions.push(Action::Multiplayer(MultiplayerAction::Reorder {
                                slot: dragged,
                                before: d.slot,
                            }));
                        }
                    }
                });
            });
        self.dragging = if released { None } else { dragging };
    }
}

/// The table's columns: the controls, the id, sent → to, the CommsMessage, then network
/// entities and components (wide enough for two identities), hazards and messages (the rest),
/// timestamps and where it arrives.
fn table(ui: &mut egui::Ui) -> TableBuilder<'_> {
    TableBuilder::new(ui)
        .id_salt("mp-deliveries")
        .striped(true)
        .resizable(false)
        .min_scrolled_height(0.0)
        .auto_shrink([false, false])
        .cell_layout(Layout::left_to_right(Align::Center))
        .columns(Column::auto(), 2)
        .column(Column::auto().at_least(110.0))
        // "REQ_CRDT_STATE" whole: an auto column sizes to its truncated labels' least width.
        .column(Column::auto().at_least(120.0))
        .column(Column::initial(230.0).at_least(120.0).clip(true))
        .column(Column::initial(190.0).at_least(90.0).clip(true))
        .column(Column::remainder().at_least(150.0).clip(true))
        .column(Column::auto().at_least(44.0))
        .column(Column::auto().at_least(70.0))
}

/// Deliver, Delay, Drop, Dup.
fn controls_ui(ui: &mut egui::Ui, run: &NetRun, d: &DeliveryRow, actions: &mut Vec<Action>) {
    let next = d
        .sent_step
        .map_or(run.cursor(), |s| run.cursor().max(s + 1));
    let next = run.steps_of(d.to, next).next();
    let at_next = matches!(d.slot, Slot::At { step, .. } if Some(step) == next);
    let mut push = |action: MultiplayerAction| actions.push(Action::Multiplayer(action));
    let deliver = egui::Button::new("Deliver").small();
    if ui
        .add_enabled(!at_next && next.is_some(), deliver)
        .on_hover_text("Make it arrive at the receiver's next tick")
        .clicked()
    {
        push(MultiplayerAction::Deliver(d.slot));
    }
    let at_a_tick = matches!(d.slot, Slot::At { .. });
    if ui
        .add_enabled(at_a_tick, egui::Button::new("Delay").small())
        .on_hover_text("Hold it one more of the receiver's ticks")
        .clicked()
    {
        push(MultiplayerAction::Delay(d.slot));
    }
    if ui.add(egui::Button::new("Drop").small()).clicked() {
        push(MultiplayerAction::Drop(d.slot));
    }
    if ui
        .add_enabled(at_a_tick, egui::Button::new("Dup").small())
        .on_hover_text("A second copy arrives right after it")
        .clicked()
    {
        push(MultiplayerAction::Duplicate(d.slot));
    }
}

/// The texts after the controls and the id: sent → to, CommsMessage, network entities,
/// components, hazards · messages, timestamps, arrives.
fn row_texts(run: &NetRun, d: &DeliveryRow) -> [String; 7] {
    let sent = match (d.sent_step, d.from) {
        (Some(step), _) => run.tick_label(step),
        (None, Some(from)) => format!("{} (recorded)", run.player_name(from)),
        (None, None) => scenetree_core::net::short_address(&d.content.sender),
    };
    let identities = d.content.identities();
    let mut entities: Vec<String> = (identities.iter().take(LISTED_ENTITIES))
        .map(|&i| run.identity_label(i))
        .collect();
    if identities.len() > LISTED_ENTITIES {
        entities.push(format!("+{}", identities.len() - LISTED_ENTITIES));
    }
    let messages = match d.content.messages.len() {
        0 => String::new(),
        1 => "1 message".to_string(),
        n => format!("{n} messages"),
    };
    let messages = match &d.content.problem {
        Some(problem) => format!("{messages} (unreadable {problem})"),
        None => messages,
    };
    [
        format!("{sent} → {}", run.player_name(d.to)),
        d.content.kind_text(),
        entities.join(", "),
        d.content.components_text(),
        messages,
        d.content.timestamps_text(),
        d.arrives.map_or_else(
            || "no tick (held past the end)".to_string(),
            |s| run.tick_label(s),
        ),
    ]
}

/// The hazards the delivery leads to, as badges, then how many messages it holds.
fn hazards_cell_ui(ui: &mut egui::Ui, run: &NetRun, d: &DeliveryRow, messages: &str) {
    let applies = d.arrives.and_then(|s| run.next_step_of(d.to, s));
    let tick = applies.map_or_else(String::new, |s| {
        format!("when {} applies it", run.tick_label(s))
    });
    let mut seen = Vec::new();
    for h in &d.hazards {
        if !seen.contains(&h.hazard.kind) {
            seen.push(h.hazard.kind);
            hazard_badge(ui, &h.hazard, &tick);
        }
    }
    ui.add(egui::Label::new(RichText::new(messages).weak()).truncate())
        .on_hover_text(messages_tooltip(run, d));
}

/// Every message the delivery holds, a line each.
fn messages_tooltip(run: &NetRun, d: &DeliveryRow) -> String {
    let lines = d.content.message_lines(&|i| run.identity_label(i));
    let head = format!(
        "{} from {} to {}",
        d.content.kind_text(),
        d.from
            .map_or(d.content.sender.clone(), |p| run.player_name(p)),
        run.player_name(d.to)
    );
    if lines.is_empty() {
        head
    } else {
        format!("{head}:\n{}", lines.join("\n"))
    }
}
