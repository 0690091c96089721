//! Applying the Peers panel's requests: starting and stopping the simulation, deliveries,
//! the timeline, lessons and exports.

use super::{AppRequest, Workbench, Workspace};
use crate::ui::action::PeersAction;
use crate::ui::action::Severity;
use scenetree_core::crdt::network::{DeliveryReport, PeerId};
use scenetree_core::model::present;
use scenetree_editor::Command;

impl Workbench {
    pub(super) fn apply_peers_action(&mut self, request: PeersAction) {
        if let PeersAction::EditAs { peer, command } = request {
            return self.edit_as(peer, command);
        }
        // A delivery or a timeline move changes the shown peer without the user editing it:
        // let the viewport show the jump as motion.
        if !matches!(
            request,
            PeersAction::ExportPeer(_) | PeersAction::SaveRun | PeersAction::OpenLesson(_)
        ) {
            self.viewport.animate_next_change();
        }
        let result: Result<Option<String>, String> = match request {
            PeersAction::Start { peers, seed } => {
                let started = self.doc.start_simulation(peers, seed);
                if started.is_ok() {
                    self.layout.workspace = Workspace::Peers;
                    // A new run draws what the runtime draws until another policy is chosen.
                    self.viewport.policy = crate::ui::viewport_tab::PolicyDrawing::default();
                }
                started
                    .map(|()| Some(format!("Simulating {peers} peers; you edit peer 1")))
                    .map_err(|e| e.to_string())
            }
            PeersAction::OpenLesson(index) => {
                self.app_requests.push(AppRequest::OpenLesson(index));
                Ok(None)
            }
            PeersAction::Stop(peer) => self
                .doc
                .stop_simulation(peer)
                .map(|()| {
                    // One document again: back to where it is edited.
                    self.layout.workspace = Workspace::Editor;
                    Some(format!(
                        "Simulation stopped; the document is {peer}'s state"
                    ))
                })
                .map_err(|e| e.to_string()),
            PeersAction::Activate(peer) => self
                .doc
                .set_active_peer(peer)
                .map(|()| Some(format!("Showing and editing {peer}")))
                .map_err(|e| e.to_string()),
            PeersAction::Op(op) => self
                .doc
                .network_op(&op)
                .map(|()| None)
                .map_err(|e| e.to_string()),
            PeersAction::DeliverAll(order) => {
                let report = self.doc.with_network(|n| {
                    n.deliver_all(order, scenetree_core::crdt::network::MessageFilter::ALL)
                });
                Ok(report.map(|r| delivered_line(&r, "")))
            }
            PeersAction::Advance(ticks) => {
                let report = self.doc.with_network(|n| n.advance(ticks));
                Ok(report
                    .filter(|r| !r.delivered.is_empty())
                    .map(|r| delivered_line(&r, " that came due")))
            }
            PeersAction::Seek(index) => match self.doc.with_network(|n| n.seek(index)) {
                Some(Err(e)) => Err(e.to_string()),
                _ => Ok(None),
            },
            PeersAction::NextStep => {
                self.peers.keep_views_on_the_scene();
                self.viewport.keep_scene_in_view();
                match self.doc.next_lesson_step() {
                    Some(skipped) if !skipped.is_empty() => Ok(Some(format!(
                        "Skipped what you already did by hand: {}",
                        skipped.join("; ")
                    ))),
                    _ => Ok(None),
                }
            }
            PeersAction::ExportPeer(peer) => {
                self.app_requests.push(AppRequest::ExportPeer(peer));
                Ok(None)
            }
            PeersAction::EditAs { .. } => Ok(None), // handled above
            PeersAction::SaveRun => {
                self.app_requests.push(AppRequest::SaveRun);
                Ok(None)
            }
        };
        match result {
            Ok(Some(message)) => self.status = Some((message, Severity::Info)),
            Ok(None) => {}
            Err(message) => self.status = Some((message, Severity::Error)),
        }
    }

    /// An edit made in `peer`'s column: `peer` becomes the one shown and edited (its column
    /// says "editing"), and the edit is its write, sent to the others.
    fn edit_as(&mut self, peer: PeerId, command: Command) {
        let switched = self
            .doc
            .simulation()
            .is_some_and(|(_, active)| active != peer);
        if switched && let Err(e) = self.doc.set_active_peer(peer) {
            self.status = Some((e.to_string(), Severity::Error));
            return;
        }
        self.apply_actions(vec![crate::ui::action::Action::Edit(command)]);
        if let Some((text, Severity::Info)) = &self.status {
            self.status = Some((format!("As {peer}: {text}"), Severity::Info));
        }
    }
}

/// What a bulk delivery did, for the status line: how many went, and whether the per-call limit
/// stopped it (the run never quieted down; another press goes on).
fn delivered_line(report: &DeliveryReport, which: &str) -> String {
    let count = present::thousands(report.delivered.len());
    if report.capped {
        format!(
            "Delivered {count} message(s){which}, then stopped: more were still coming (press again to go on)"
        )
    } else {
        format!("Delivered {count} message(s){which}")
    }
}
