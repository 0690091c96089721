//! The multi-peer CRDT panel: simulated peers side by side (their trees with cycles and
//! re-rooted entities, digests and clocks), every message in flight with deliver / drop /
//! duplicate / reorder, bulk delivery, auto-delivery, the timeline, lessons, convergence, and
//! the order explorer.

mod controls;
mod explorer;
mod in_flight;
mod lesson;
mod timeline;
mod trees;

use egui::RichText;

use super::action::{Action, PeersAction};
use super::lessons::LESSONS;
use crate::crdt::ReplicaVersion;
use crate::crdt::network::Convergence;
use crate::crdt::network::{Network, PeerId};
use crate::editor::{Document, Simulation};
use crate::model::{Entity, present};
use crate::scene::SceneView;
use crate::scene::order_explorer::OrderExploration;
/// Peers panel state.
pub struct PeersPanel {
    /// Peers to create when a simulation starts.
    pub new_peer_count: usize,
    /// Seed of a new simulation.
    pub new_seed: u64,
    /// One derived tree per peer (rebuilt when a peer's replica is replaced).
    views: Vec<SceneView>,
    /// Last order-explorer result, for the peer it ran on.
    explored: Option<(PeerId, Result<OrderExploration, String>)>,
    /// Auto-delivery latency the slider shows (ticks).
    pub latency: u64,
    /// Message being dragged in the in-flight list.
    dragging: Option<u64>,
    /// UI time of the last automatic clock tick.
    last_tick: f64,
    /// Per peer: the replica version the figures were computed for, its clock and digest.
    /// Digests hash the whole state, so they are recomputed only when a replica changed.
    summaries: Vec<(ReplicaVersion, u32, u128)>,
    /// The convergence line, with what it was computed for (replica versions, messages in
    /// flight).
    convergence: Option<(ConvergenceKey, Convergence)>,
}

/// What the convergence line depends on: every replica's version and the messages in flight.
type ConvergenceKey = (Vec<ReplicaVersion>, usize);

/// While auto-delivery is on, the network clock advances one tick this often (seconds).
const TICK_SECONDS: f64 = 0.25;

impl Default for PeersPanel {
    fn default() -> Self {
        PeersPanel {
            new_peer_count: 2,
            new_seed: 1,
            views: Vec::new(),
            explored: None,
            latency: 3,
            dragging: None,
            last_tick: 0.0,
            summaries: Vec::new(),
            convergence: None,
        }
    }
}

impl PeersPanel {
    /// Draws the panel.
    pub fn ui(&mut self, ui: &mut egui::Ui, doc: &Document) -> Vec<Action> {
        let mut actions = Vec::new();
        let Some((sim, active)) = doc.simulation() else {
            self.start_ui(ui, &mut actions);
            return actions;
        };
        let network = sim.network();
        self.sync_views(network);
        if network.auto_delivery().is_some() {
            // The clock runs on its own: messages arrive once their latency has passed.
            let now = ui.input(|i| i.time);
            if now - self.last_tick >= TICK_SECONDS {
                self.last_tick = now;
                actions.push(Action::Peers(PeersAction::Advance(1)));
            }
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs_f64(TICK_SECONDS));
        }
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                if let Simulation::Lesson(player) = sim {
                    lesson::lesson_ui(ui, player, &mut actions);
                    ui.separator();
                }
                controls::controls_ui(ui, network, active, self, &mut actions);
                if let Some((_, c)) = &self.convergence {
                    controls::convergence_ui(ui, network, c);
                }
                ui.separator();
                self.peers_ui(ui, network, active, &mut actions);
                ui.separator();
                self.in_flight_ui(ui, network, &mut actions);
                ui.separator();
                self.explorer_ui(ui, network, active);
                timeline::timeline_ui(ui, network, &mut actions);
            });
        actions
    }

    fn start_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.heading("Simulated peers");
        ui.label(
            "Split this scene into 2 to 8 peers, each with its own replica. Every edit becomes \
             messages in flight; you deliver, delay, drop, duplicate or reorder them and watch \
             cycles appear, the root fallback draw them, and the peers converge.",
        );
        ui.horizontal(|ui| {
            ui.add(
                egui::DragValue::new(&mut self.new_peer_count)
                    .range(2..=8)
                    .suffix(" peers"),
            );
            ui.add(egui::DragValue::new(&mut self.new_seed).prefix("seed "));
            if ui.button("Start simulation").clicked() {
                actions.push(Action::Peers(PeersAction::Start {
                    peers: self.new_peer_count,
                    seed: self.new_seed,
                }));
            }
        });
        ui.separator();
        ui.label(RichText::new("Lessons").strong());
        for (i, (name, _)) in LESSONS.iter().enumerate() {
            let title = lesson_title(i).unwrap_or_else(|| name.to_string());
            if ui.button(format!("{}. {title}", i + 1)).clicked() {
                actions.push(Action::Peers(PeersAction::OpenLesson(i)));
            }
        }
    }

    /// Keeps one view, clock and digest per peer, and the convergence line, following the
    /// replicas; nothing is recomputed for a replica that did not change.
    fn sync_views(&mut self, network: &Network) {
        let n = network.peer_count();
        self.views.resize_with(n, SceneView::new);
        for (view, replica) in self.views.iter_mut().zip(network.replicas()) {
            view.update(replica);
        }
        self.summaries.truncate(n);
        for (i, replica) in network.replicas().iter().enumerate() {
            let version = replica.version();
            match self.summaries.get_mut(i) {
                Some(s) if s.0 == version => {}
                Some(s) => *s = (version, replica.clock(), replica.digest()),
                None => self
                    .summaries
                    .push((version, replica.clock(), replica.digest())),
            }
        }
        let versions: Vec<ReplicaVersion> = self.summaries.iter().map(|s| s.0).collect();
        let flying = network.in_flight().len();
        let key = (versions, flying);
        if self.convergence.as_ref().is_none_or(|(k, _)| *k != key) {
            self.convergence = Some((key, network.convergence()));
        }
    }
}

fn lesson_title(index: usize) -> Option<String> {
    crate::crdt::scenario::parse(LESSONS.get(index)?.1)
        .ok()
        .map(|s| s.title)
}

/// What `peer` calls `entity` (another peer's name for it when `peer` holds none).
fn short_name(network: &Network, entity: Entity, peer: PeerId) -> String {
    present::entity_name(entity, network.name_of(entity, &[peer]).as_deref())
}
