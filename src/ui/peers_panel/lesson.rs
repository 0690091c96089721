//! The lesson header: title, step, text and the Next step button.

use super::super::action::{Action, PeersAction};

pub(super) fn lesson_ui(
    ui: &mut egui::Ui,
    player: &crate::crdt::ScenarioPlayer,
    actions: &mut Vec<Action>,
) {
    let scenario = player.scenario();
    ui.heading(&scenario.title);
    ui.label(format!(
        "Step {} of {}",
        player.steps_played(),
        scenario.steps.len()
    ));
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.label(player.text());
    });
    ui.horizontal(|ui| {
        if ui
            .add_enabled(!player.is_finished(), egui::Button::new("Next step ⏵"))
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::NextStep));
        }
        if player.is_finished() {
            ui.weak("Lesson finished: keep experimenting with the messages below.");
        }
    });
}
