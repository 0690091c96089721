//! The Peers workspace in multiplayer mode: a capture or a multiplayer lesson as players side by
//! side. Pinned at the top the title (and a lesson's Next step and text); one column per
//! player drawing what its renderer holds, in its own numbers, with each synced entity's
//! network identity and hazard badges; below them the deliveries in flight, decoded, with the
//! delivery controls (drag a row's id onto another row of the same receiver to reorder);
//! pinned at the bottom the timeline over the run's ticks.

mod columns;
mod deliveries;

use egui::RichText;

use crate::ui::action::{Action, MultiplayerAction};
use crate::ui::multiplayer::{Multiplayer, MultiplayerSource};
use scenetree_core::net::run::{DeliveryRow, NetRun, Slot};

pub use columns::PlayerColumn;

/// The players' columns' margin, in points: a panel's, as the header and the table have.
const COLUMNS_MARGIN: egui::Vec2 = egui::vec2(8.0, 2.0);

/// The lower view's share of the height below the header (the columns get the rest).
const DELIVERIES_SHARE: f32 = 0.38;
/// The most the step text takes before it scrolls (points).
const TEXT_MAX_HEIGHT: f32 = 110.0;

/// What the multiplayer mode keeps between frames.
#[derive(Default)]
pub struct MultiplayerView {
    /// What the figures were read for: the run's generation and cursor, and the table's kind.
    key: Option<(u64, usize, bool)>,
    /// One per player, in the run's order.
    columns: Vec<PlayerColumn>,
    /// The deliveries the table shows.
    rows: Vec<DeliveryRow>,
    /// The table shows every delivery of the run, not only those in flight.
    pub show_all: bool,
    /// The delivery whose id is being dragged.
    dragging: Option<Slot>,
}

impl MultiplayerView {
    /// Reads the run again when it changed or the timeline moved.
    fn sync(&mut self, run: &NetRun) {
        let key = (run.generation(), run.cursor(), self.show_all);
        if self.key == Some(key) {
            return;
        }
        self.key = Some(key);
        let state = run.state();
        self.columns = (0..run.players().len())
            .map(|player| PlayerColumn::read(run, &state, player))
            .collect();
        self.rows = if self.show_all {
            run.all_deliveries()
        } else {
            run.in_flight()
        };
    }

    /// The columns as last read (tests look at them).
    pub fn columns(&self) -> &[PlayerColumn] {
        &self.columns
    }

    /// Draws the mode for `multiplayer`.
    pub fn ui(&mut self, ui: &mut egui::Ui, multiplayer: &Multiplayer) -> Vec<Action> {
        let run = multiplayer.run();
        self.sync(run);
        let mut actions = Vec::new();
        egui::Panel::top("mp-header").show(ui, |ui| header_ui(ui, multiplayer, &mut actions));
        egui::Panel::bottom("mp-timeline").show(ui, |ui| timeline_ui(ui, run, &mut actions));
        let area = ui.available_rect_before_wrap();
        let lower = (area.height() * DELIVERIES_SHARE)
            .max(90.0)
            .min(area.height());
        egui::Panel::bottom("mp-deliveries")
            .resizable(false)
            .exact_size(lower)
            .show(ui, |ui| {
                ui.set_min_height(ui.available_height());
                self.deliveries_ui(ui, run, &mut actions);
            });
        // The columns have no panel of their own to give them its margin, and the workspace
        // reaches the window's edges: without one the first column's text touched the left
        // edge and the last column's badges were cut at the right.
        let upper = area.with_max_y(area.max.y - lower);
        let columns = upper.shrink2(COLUMNS_MARGIN);
        ui.scope_builder(egui::UiBuilder::new().max_rect(columns), |ui| {
            // Clipped at the table, not at the margin: a right-aligned badge's last glyph
            // reaches a pixel or two past its column.
            ui.set_clip_rect(upper.intersect(ui.clip_rect()));
            columns::columns_ui(ui, &self.columns);
        });
        actions
    }
}

/// The title, what the run is, Close; a lesson's Next step and text.
fn header_ui(ui: &mut egui::Ui, multiplayer: &Multiplayer, actions: &mut Vec<Action>) {
    let run = multiplayer.run();
    ui.horizontal(|ui| {
        if let Some(lesson) = multiplayer.lesson() {
            let next = egui::Button::new("Next step ⏵").min_size(egui::vec2(104.0, 0.0));
            if ui
                .add_enabled(!lesson.is_finished(), next)
                .on_hover_text("Play the lesson's next step")
                .clicked()
            {
                actions.push(Action::Multiplayer(MultiplayerAction::NextStep));
            }
            ui.label(format!(
                "Step {} of {}",
                lesson.steps_shown(),
                lesson.scenario().steps.len()
            ));
        }
        ui.label(RichText::new(&multiplayer.title).strong());
        let what = match &multiplayer.source {
            MultiplayerSource::Capture { mismatched: 0, .. } => {
                "a capture, every tick reproduced by the model".to_string()
            }
            MultiplayerSource::Capture { mismatched, .. } => format!(
                "a capture; {mismatched} tick(s) the model does not reproduce byte for byte"
            ),
            MultiplayerSource::Lesson(_) => "a multiplayer lesson".to_string(),
        };
        ui.weak(format!(
            "{what} · {} players · {} ticks",
            run.players().len(),
            run.script().len()
        ));
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui
                .button("Close")
                .on_hover_text("Leave the multiplayer run (back to the peers simulation)")
                .clicked()
            {
                actions.push(Action::Multiplayer(MultiplayerAction::Close));
            }
        });
    });
    let Some(lesson) = multiplayer.lesson() else {
        ui.weak(
            "Each column is what one player's renderer holds, in its own numbers. Move a \
             delivery below (drag its id onto another row to the same player) and the run \
             replays on the new order.",
        );
        return;
    };
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        egui::ScrollArea::vertical()
            .id_salt("mp-lesson-text")
            .max_height(TEXT_MAX_HEIGHT)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                ui.label(lesson.text());
                if lesson.off_script() {
                    ui.colored_label(
                        crate::ui::style::WARNING,
                        "⚠ You moved deliveries by hand: the text tells the lesson's own run, \
                         which may differ from what you see; Next step plays its actions on \
                         your deliveries. Open the lesson again to follow its text.",
                    );
                }
                if lesson.is_finished() {
                    ui.weak("Lesson finished: keep moving deliveries below.");
                }
            });
    });
}

/// ⏮ ⏴ ⏵ ⏭ and a slider over the run's ticks.
fn timeline_ui(ui: &mut egui::Ui, run: &NetRun, actions: &mut Vec<Action>) {
    let (cursor, steps) = (run.cursor(), run.script().len());
    ui.horizontal(|ui| {
        ui.label(RichText::new("Timeline").strong());
        let mut button = |ui: &mut egui::Ui, enabled: bool, text: &str, hint: &str, to: usize| {
            let button = ui.add_enabled(enabled, egui::Button::new(text));
            if button.on_hover_text(hint).clicked() {
                actions.push(Action::Multiplayer(MultiplayerAction::Seek(to)));
            }
        };
        button(ui, cursor > 0, "⏮", "Back to the start", 0);
        button(
            ui,
            cursor > 0,
            "⏴",
            "One tick back",
            cursor.saturating_sub(1),
        );
        button(ui, cursor < steps, "⏵", "One tick on", cursor + 1);
        button(ui, cursor < steps, "⏭", "To the end", steps);
        let mut position = cursor;
        ui.spacing_mut().slider_width = (ui.available_width() - 260.0).clamp(60.0, 600.0);
        let last = cursor
            .checked_sub(1)
            .map_or("nothing run yet".to_string(), |s| {
                format!("last: {}", run.tick_label(s))
            });
        let slider = egui::Slider::new(&mut position, 0..=steps.max(1))
            .text(format!("of {steps} ticks ({last})"));
        if ui.add_enabled(steps > 0, slider).changed() {
            actions.push(Action::Multiplayer(MultiplayerAction::Seek(
                position.min(steps),
            )));
        }
    });
}
