//! The Peers workspace during a live session: this editor and the host side by side (the
//! host's column is what it holds as far as this editor knows: its snapshot, every message it
//! relayed, and this editor's writes it acknowledged), with their cycle and re-rooted marks as
//! messages arrive, and the session's real messages in and out, newest first.

use egui::RichText;

use super::{PeersPanel, PeersUiContext};
use crate::ui::action::Action;
use crate::ui::style;
use scenetree_core::crdt::network::Network;
use scenetree_core::model::EulerOrder;
use scenetree_editor::{Direction, Document, LinkState, LiveSession, LogEntry, THIS_EDITOR};

/// Height of one table row, points.
const ROW_HEIGHT: f32 = 22.0;

impl PeersPanel {
    /// The panel while the document is live.
    pub(super) fn live_ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        live: &LiveSession,
        cx: PeersUiContext<'_>,
    ) -> Vec<Action> {
        let network = live.network();
        self.sync_views(network);
        self.names.live = Some(vec![
            "This editor".to_owned(),
            format!("Host {}", live.host_label()),
        ]);
        egui::Panel::top("live-header").show(ui, |ui| header_ui(ui, live));
        let area = ui.available_rect_before_wrap();
        let lower_height = super::lower_view_height(area.height(), self.split.lower_share);
        let order = cx.euler_order;
        egui::Panel::bottom("live-messages")
            .resizable(false)
            .exact_size(lower_height)
            .show(ui, |ui| {
                let handle = super::split_handle(ui);
                if handle.dragged() && area.height() > 0.0 {
                    let wanted = lower_height - handle.drag_delta().y;
                    self.split.lower_share = (wanted / area.height()).clamp(0.1, 0.9);
                }
                ui.set_min_height(ui.available_height());
                log_ui(ui, live, network, order);
            });
        let columns = area.with_max_y(area.max.y - lower_height);
        let mut actions = Vec::new();
        ui.scope_builder(egui::UiBuilder::new().max_rect(columns), |ui| {
            ui.set_clip_rect(columns.intersect(ui.clip_rect()));
            self.columns_ui(ui, doc, network, THIS_EDITOR, cx, &mut actions);
        });
        // The host's column is a view: nothing there is operated by hand.
        actions.retain(|a| !matches!(a, Action::Peers(_)));
        actions
    }
}

fn header_ui(ui: &mut egui::Ui, live: &LiveSession) {
    ui.horizontal_wrapped(|ui| {
        let (mark, color) = match live.state() {
            LinkState::Connected => ("● Live", style::SUCCESS),
            LinkState::Connecting => ("○ Reconnecting", style::WARNING),
            LinkState::Offline { .. } => ("○ Offline", style::WARNING),
        };
        ui.label(RichText::new(mark).color(color).strong());
        ui.label(format!(
            "with the data layer at {} · connection {} · {} of your messages wait for the host",
            live.url(),
            live.connection_number(),
            live.waiting()
        ));
    });
    ui.weak(
        "Left: this editor's replica. Right: the host as this editor knows it (what it relayed, \
         and your writes it acknowledged); every other client's edits reach you through it. \
         Cycle and re-rooted marks appear as the messages arrive. Save Session Recording… \
         (File menu) replays this session in the simulator.",
    );
    ui.weak(recording_line(live));
}

/// Where the session's recording stands: it is written to a temporary file as it goes, up to
/// a limit, so the window's memory does not grow with the session.
fn recording_line(live: &LiveSession) -> String {
    let Some(summary) = live.recording_summary() else {
        return "This session is not recorded.".to_owned();
    };
    let size = format!("{:.1} MB", summary.bytes as f64 / 1e6);
    match &summary.stopped {
        Some(why) => format!(
            "Recording stopped at {} steps ({size}): {why}. Save Session Recording… saves \
             those.",
            summary.steps
        ),
        None => format!(
            "Recording since this connection began: {} steps, {size} in a temporary file \
             (at most {} MiB).",
            summary.steps,
            scenetree_editor::SPOOL_LIMIT >> 20
        ),
    }
}

/// The session's messages, newest first.
fn log_ui(ui: &mut egui::Ui, live: &LiveSession, network: &Network, order: EulerOrder) {
    let log = live.log();
    ui.horizontal(|ui| {
        ui.strong(format!("Messages in and out ({})", log.len()));
        if log.forgotten() > 0 {
            ui.weak(format!("({} older ones not kept)", log.forgotten()));
        }
    });
    if log.is_empty() {
        ui.weak(
            "Nothing yet. Edit the scene (each edit is sent to the host), or edit it in another \
             window connected to the same data layer.",
        );
        return;
    }
    let entries = log.entries();
    let text_color = ui.visuals().text_color();
    super::messages::message_table(ui, "live-messages", 2)
        .header(ROW_HEIGHT, |mut header| {
            for title in [
                "arrived",
                "direction",
                "entity",
                "component",
                "what changed",
                "t",
                "outcome",
            ] {
                header.col(|ui| {
                    ui.strong(title);
                });
            }
        })
        .body(|body| {
            body.rows(ROW_HEIGHT, entries.len(), |mut row| {
                let entry = &entries[entries.len() - 1 - row.index()];
                let faded = entry.row.stale;
                let color = if faded {
                    text_color.gamma_multiply(0.5)
                } else {
                    text_color
                };
                let cells = row_texts(entry, network, order);
                for (i, text) in cells.iter().enumerate() {
                    row.col(|ui| {
                        let response =
                            ui.add(egui::Label::new(RichText::new(text).color(color)).truncate());
                        if i == 4 {
                            response.on_hover_text(text);
                        }
                    });
                }
            });
        });
}

/// The columns of one message: arrival, direction, entity, component, what changed, its
/// timestamp, what happened to it.
fn row_texts(entry: &LogEntry, network: &Network, order: EulerOrder) -> [String; 7] {
    let info = &entry.row;
    let name = |e| network.entity_label(e, THIS_EDITOR);
    let direction = match entry.direction {
        Direction::In => "host → this editor",
        Direction::Out => "this editor → host",
    };
    let outcome = match (entry.direction, entry.acknowledged) {
        (Direction::In, _) => entry.outcome.unwrap_or("").to_owned(),
        (Direction::Out, Some(at)) => format!(
            "acknowledged after {:.1} ms",
            (at.saturating_sub(entry.at)).as_secs_f64() * 1000.0
        ),
        (Direction::Out, None) => "waiting for the host".to_owned(),
    };
    let mut changed = info.effect.text(order, &name);
    if info.stale {
        changed = format!("no change on arrival (the receiver holds newer): {changed}");
    }
    [
        format!("{:.3} s", entry.at.as_secs_f64()),
        format!("{direction} (#{})", entry.connection),
        name(info.entity),
        info.component.clone().unwrap_or_else(|| "(entity)".into()),
        changed,
        info.timestamp.map_or_else(String::new, |t| t.to_string()),
        outcome,
    ]
}
