//! The multi-peer CRDT panel: simulated peers side by side (their trees with cycles and
//! re-rooted entities, digests and clocks), every message in flight with deliver / drop /
//! duplicate / reorder, bulk delivery, auto-delivery, the timeline, lessons, convergence, and
//! the order explorer.

use egui::RichText;

use super::action::{Action, PeersAction};
use super::lessons::LESSONS;
use super::style;
use crate::crdt::ReplicaVersion;
use crate::crdt::network::Convergence;
use crate::crdt::network::{AutoDelivery, DeliveryOrder, MessageKind, Network, Op, PeerId};
use crate::editor::{Document, Simulation};
use crate::model::{Entity, present};
use crate::scene::order_explorer::{OrderExploration, explore_inbox};
use crate::scene::{Fallback, SceneView};

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
                    lesson_ui(ui, player, &mut actions);
                    ui.separator();
                }
                controls_ui(ui, network, active, self, &mut actions);
                if let Some((_, c)) = &self.convergence {
                    convergence_ui(ui, network, c);
                }
                ui.separator();
                self.peers_ui(ui, network, active, &mut actions);
                ui.separator();
                self.in_flight_ui(ui, network, &mut actions);
                ui.separator();
                self.explorer_ui(ui, network, active);
                timeline_ui(ui, network, &mut actions);
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

    fn peers_ui(
        &mut self,
        ui: &mut egui::Ui,
        network: &Network,
        active: PeerId,
        actions: &mut Vec<Action>,
    ) {
        let n = network.peer_count();
        ui.columns(n, |columns| {
            for (i, col) in columns.iter_mut().enumerate() {
                let peer = PeerId::from_index(i);
                let view = &self.views[i];
                let is_active = peer == active;
                col.horizontal(|ui| {
                    let label = RichText::new(format!("Peer {}", peer.0)).strong();
                    if ui
                        .selectable_label(is_active, label)
                        .on_hover_text("Show and edit this peer")
                        .clicked()
                        && !is_active
                    {
                        actions.push(Action::Peers(PeersAction::Activate(peer)));
                    }
                    let mut online = network.is_online(peer).unwrap_or(true);
                    if ui
                        .checkbox(&mut online, "online")
                        .on_hover_text("An offline peer's messages wait, both ways")
                        .changed()
                    {
                        actions.push(Action::Peers(PeersAction::Op(Op::SetOnline {
                            peer,
                            online,
                        })));
                    }
                });
                let (_, clock, digest) = self.summaries[i];
                col.label(
                    RichText::new(format!(
                        "clock t={clock} · digest {:08x}",
                        (digest >> 96) as u32
                    ))
                    .monospace()
                    .small(),
                );
                for cycle in view.cycles() {
                    let ring = present::cycle_ring(cycle, |e| short_name(network, e, peer));
                    col.label(RichText::new(format!("⟲ {ring}")).color(style::CYCLE));
                }
                tree_ui(col, view, network, peer);
            }
        });
    }

    fn in_flight_ui(&mut self, ui: &mut egui::Ui, network: &Network, actions: &mut Vec<Action>) {
        let flying = network.in_flight();
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("In flight: {}", flying.len())).strong());
            ui.weak("drag a row onto another to reorder");
        });
        if flying.is_empty() {
            ui.weak("Nothing in flight.");
        }
        let released = ui.input(|i| i.pointer.any_released());
        for (index, m) in flying.iter().enumerate() {
            let row = ui.horizontal(|ui| {
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
                    actions.push(Action::Peers(PeersAction::Op(Op::Duplicate { id: m.id })));
                }
                let text = network.describe_in_flight(m);
                let color = match m.kind {
                    MessageKind::Write => ui.visuals().text_color(),
                    MessageKind::Reply => style::REPLY_MESSAGE,
                    MessageKind::Announcement => style::ANNOUNCEMENT_MESSAGE,
                };
                let handle = ui
                    .add(
                        egui::Label::new(RichText::new(text.as_str()).color(color))
                            .sense(egui::Sense::drag()),
                    )
                    .on_hover_text(format!(
                        "{} message sent at tick {}",
                        m.kind.as_str(),
                        m.sent_at
                    ));
                if handle.drag_started() {
                    self.dragging = Some(m.id.0);
                }
            });
            if let Some(dragged) = self.dragging
                && dragged != m.id.0
                && row.response.contains_pointer()
            {
                ui.painter().hline(
                    row.response.rect.x_range(),
                    row.response.rect.top(),
                    (2.0, style::DROP_MARKER),
                );
                if released {
                    actions.push(Action::Peers(PeersAction::Op(Op::Reorder {
                        id: crate::crdt::network::MessageId(dragged),
                        index,
                    })));
                }
            }
        }
        if released {
            self.dragging = None;
        }
    }

    /// Runs the explorer on demand; it is read-only, so it returns no actions.
    fn explorer_ui(&mut self, ui: &mut egui::Ui, network: &Network, active: PeerId) {
        ui.horizontal(|ui| {
            ui.label(RichText::new("Order explorer").strong());
            let waiting = network
                .in_flight()
                .iter()
                .filter(|m| m.to == active)
                .count();
            if ui
                .add_enabled(
                    waiting > 0 && waiting <= 8,
                    egui::Button::new(format!(
                        "Explore every order of {active}'s {waiting} message(s)"
                    )),
                )
                .on_hover_text(
                    "Delivers the messages waiting for this peer in every possible order (up to 8)",
                )
                .clicked()
            {
                self.explored = Some((
                    active,
                    explore_inbox(network, active).map_err(|e| e.to_string()),
                ));
            }
        });
        if let Some((peer, result)) = &self.explored {
            match result {
                Ok(x) => {
                    ui.label(format!(
                        "{peer}: {} order(s); {} pass through a parenting cycle; {} distinct final state(s).",
                        x.orders,
                        x.orders_through_cycle,
                        x.finals.len()
                    ));
                    if !x.rerooted.is_empty() {
                        let names: Vec<String> = x
                            .rerooted
                            .iter()
                            .map(|r| short_name(network, r.entity, *peer))
                            .collect();
                        ui.label(format!("Ever re-rooted: {}", names.join(", ")));
                    }
                    if x.converges() {
                        ui.colored_label(style::SUCCESS, "✓ Every order ends in the same state.");
                    } else {
                        ui.colored_label(
                            style::WARNING,
                            "Orders end in different states (grow-only values keep arrival order).",
                        );
                    }
                }
                Err(e) => {
                    ui.colored_label(style::WARNING, e);
                }
            }
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

fn lesson_ui(ui: &mut egui::Ui, player: &crate::crdt::ScenarioPlayer, actions: &mut Vec<Action>) {
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

fn controls_ui(
    ui: &mut egui::Ui,
    network: &Network,
    active: PeerId,
    panel: &mut PeersPanel,
    actions: &mut Vec<Action>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("Editing as {active}."));
        ui.menu_button("Deliver all ▾", |ui| {
            for (order, label) in [
                (DeliveryOrder::Send, "In send order"),
                (DeliveryOrder::Reverse, "In reverse order"),
                (DeliveryOrder::Random, "In a random order (seeded)"),
            ] {
                if ui.button(label).clicked() {
                    actions.push(Action::Peers(PeersAction::DeliverAll(order)));
                    ui.close();
                }
            }
        });
        let mut auto = network.auto_delivery().is_some();
        if ui
            .checkbox(&mut auto, "auto-deliver")
            .on_hover_text("The clock runs (4 ticks a second) and messages arrive once their latency has passed")
            .changed()
        {
            let setting = auto.then_some(AutoDelivery {
                latency: panel.latency,
                jitter: 0,
            });
            actions.push(Action::Peers(PeersAction::Op(Op::SetAutoDelivery {
                auto: setting,
            })));
        }
        let slider = ui.add(egui::Slider::new(&mut panel.latency, 0..=20).text("latency (ticks)"));
        if slider.changed() && auto {
            let setting = Some(AutoDelivery {
                latency: panel.latency,
                jitter: 0,
            });
            actions.push(Action::Peers(PeersAction::Op(Op::SetAutoDelivery {
                auto: setting,
            })));
        }
        if ui
            .button("Tick")
            .on_hover_text("Advance the clock one tick (delivers what is due)")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Advance(1)));
        }
        ui.label(format!("t = {}", network.now()));
        ui.menu_button("More ▾", |ui| {
            if ui
                .button(format!("Export {active} as main.crdt…"))
                .clicked()
            {
                actions.push(Action::Peers(PeersAction::ExportPeer(active)));
                ui.close();
            }
            if ui.button("Save this run as a scenario…").clicked() {
                actions.push(Action::Peers(PeersAction::SaveRun));
                ui.close();
            }
            if ui
                .button(format!("Stop, keeping {active}'s state"))
                .clicked()
            {
                actions.push(Action::Peers(PeersAction::Stop(active)));
                ui.close();
            }
        });
    });
}

fn convergence_ui(ui: &mut egui::Ui, network: &Network, c: &Convergence) {
    if c.converged {
        ui.colored_label(
            style::SUCCESS,
            "✓ Converged: every peer holds the same state and nothing is in flight.",
        );
    } else {
        let differing: Vec<String> = c
            .differing
            .iter()
            .take(12)
            .map(|&e| present::entity_name(e, network.name_of(e, &[]).as_deref()))
            .collect();
        let mut text = format!("Not converged: {} in flight", c.in_flight);
        if !differing.is_empty() {
            text.push_str(&format!("; peers differ on {}", differing.join(", ")));
        }
        ui.colored_label(style::WARNING, text);
    }
}

fn timeline_ui(ui: &mut egui::Ui, network: &Network, actions: &mut Vec<Action>) {
    ui.separator();
    let events = network.events();
    let cursor = network.cursor();
    ui.horizontal(|ui| {
        ui.label(RichText::new("Timeline").strong());
        if ui
            .add_enabled(cursor > 0, egui::Button::new("⏮"))
            .on_hover_text("Back to the start")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Seek(0)));
        }
        if ui
            .add_enabled(cursor > 0, egui::Button::new("⏴"))
            .on_hover_text("Step back")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Seek(cursor - 1)));
        }
        if ui
            .add_enabled(cursor < events.len(), egui::Button::new("⏵"))
            .on_hover_text("Step forward")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Seek(cursor + 1)));
        }
        if ui
            .add_enabled(cursor < events.len(), egui::Button::new("⏭"))
            .on_hover_text("To the end")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::Seek(events.len())));
        }
        let mut position = cursor;
        if !events.is_empty()
            && ui
                .add(
                    egui::Slider::new(&mut position, 0..=events.len())
                        .text(format!("of {} events", events.len())),
                )
                .changed()
        {
            actions.push(Action::Peers(PeersAction::Seek(position)));
        }
    });
    for (i, event) in events.iter().enumerate().rev().take(12) {
        let text = format!("{}. {}", i + 1, network.describe_event(event));
        if i < cursor {
            ui.label(RichText::new(text).small());
        } else {
            ui.label(RichText::new(text).small().weak().strikethrough());
        }
    }
}

/// A compact tree of one peer: names with declared parents, re-rooted entities marked.
fn tree_ui(ui: &mut egui::Ui, view: &SceneView, network: &Network, peer: PeerId) {
    let rows = view.preorder();
    for (e, depth) in rows.into_iter().skip(1).take(300) {
        let name = short_name(network, e, peer);
        let indent = "  ".repeat(depth as usize - 1);
        let (suffix, color) = match view.fallback_reason(e) {
            Fallback::Cycle(_) => {
                let declared = view.declared_parent_of(e).unwrap_or(Entity::ROOT);
                (
                    format!(
                        "  ⟲ re-rooted: cycle (declared parent {})",
                        short_name(network, declared, peer)
                    ),
                    Some(style::CYCLE),
                )
            }
            Fallback::MissingParent => (
                "  △ missing parent".to_string(),
                Some(style::MISSING_PARENT),
            ),
            Fallback::None => (String::new(), None),
        };
        let text = RichText::new(format!("{indent}{name}{suffix}"))
            .monospace()
            .small();
        ui.label(match color {
            Some(c) => text.color(c),
            None => text,
        });
    }
}
