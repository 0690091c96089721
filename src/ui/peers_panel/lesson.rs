//! The lesson header: Next step first, at a fixed place (so repeated clicks land on it however
//! the text below wraps), the step count and title, then the step's text.

use crate::ui::action::{Action, PeersAction};

/// The widest the Next step button gets, so the label beside it never pushes it.
const NEXT_WIDTH: f32 = 104.0;
/// The most the step text takes before it scrolls inside its frame (points).
const TEXT_MAX_HEIGHT: f32 = 96.0;

pub(super) fn lesson_ui(
    ui: &mut egui::Ui,
    player: &scenetree_core::crdt::ScenarioPlayer,
    actions: &mut Vec<Action>,
) {
    let scenario = player.scenario();
    ui.horizontal(|ui| {
        let next = egui::Button::new("Next step ⏵").min_size(egui::vec2(NEXT_WIDTH, 0.0));
        if ui
            .add_enabled(!player.is_finished(), next)
            .on_hover_text("Play the lesson's next step")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::NextStep));
        }
        ui.label(format!(
            "Step {} of {}",
            player.steps_shown(),
            scenario.steps.len()
        ));
        if player.is_rewound() {
            ui.weak("(rewound)").on_hover_text(
                "The timeline is rewound: this is the state and text of an earlier step. \
                 Next step replays the lesson from here; a change of your own replaces what \
                 came after.",
            );
        }
        ui.add(egui::Label::new(egui::RichText::new(&scenario.title).strong()).truncate());
    });
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        egui::ScrollArea::vertical()
            .id_salt("lesson-text")
            .max_height(TEXT_MAX_HEIGHT)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                ui.label(player.text());
                if player.off_script() {
                    ui.colored_label(
                        crate::ui::style::WARNING,
                        "⚠ You changed the scene by hand: this text tells the lesson's own run, \
                         which may not be what you see now. The steps still play on your state; \
                         open the lesson again to follow its text.",
                    );
                }
                if player.is_finished() {
                    ui.weak("Lesson finished: keep experimenting with the messages below.");
                }
            });
    });
}
