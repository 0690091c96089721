//! Showing a multiplayer run in the Peers workspace, and applying what its panel asks.

use super::{Workbench, Workspace};
use crate::ui::action::{Action, MultiplayerAction, Severity};
use crate::ui::multiplayer::Multiplayer;
use scenetree_editor::Document;

impl Workbench {
    /// Shows a multiplayer run in the Peers workspace, in place of the document (which becomes
    /// an empty, untitled one: the run is not a scene to edit).
    pub fn open_multiplayer(&mut self, multiplayer: Multiplayer) {
        self.set_document(Document::default());
        self.status = Some((
            format!("Multiplayer: {}", multiplayer.title),
            Severity::Info,
        ));
        self.multiplayer = Some(multiplayer);
        self.layout.workspace = Workspace::Peers;
    }

    /// The multiplayer run, while the Peers workspace shows it (the timeline keys step it).
    pub(super) fn shown_run(&self) -> Option<&scenetree_core::net::run::NetRun> {
        (self.layout.workspace == Workspace::Peers)
            .then_some(self.multiplayer.as_ref())
            .flatten()
            .map(Multiplayer::run)
    }

    /// The rest of a frame while a multiplayer run is shown: it takes the whole workspace (its
    /// players' columns need the width), then `actions` (the status bar's) and its own apply.
    pub(super) fn multiplayer_frame(&mut self, ui: &mut egui::Ui, mut actions: Vec<Action>) {
        if let Some(multiplayer) = &self.multiplayer {
            actions.extend(self.peers.multiplayer.ui(ui, multiplayer));
        }
        self.apply_actions(actions);
        self.end_frame(ui);
    }

    pub(super) fn apply_multiplayer_action(&mut self, action: MultiplayerAction) {
        if action == MultiplayerAction::Close {
            self.multiplayer = None;
            return;
        }
        let Some(multiplayer) = &mut self.multiplayer else {
            return;
        };
        match multiplayer.apply(action) {
            Ok(Some(text)) => self.status = Some((text, Severity::Info)),
            Ok(None) => {}
            Err(text) => self.status = Some((text, Severity::Error)),
        }
    }
}
