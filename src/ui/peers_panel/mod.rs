//! The multi-peer CRDT panel, laid out to fill a window as the Peers workspace: pinned at the
//! top the lesson (text and Next step) and the controls with the convergence line; one column
//! per simulated peer (its indented tree with badges, clock, digest, re-rooted list and an
//! optional small 3D view); below them the messages in flight as a table, the timeline's
//! events, or the order explorer; pinned at the bottom the timeline controls. Nothing that
//! must stay in reach scrolls away, and buttons keep their places.

mod column_drag;
mod columns;
mod controls;
mod explorer;
mod lesson;
mod live;
mod messages;
mod multiplayer;
mod peer_tree;
mod policies;
mod timeline;
mod tree_source;
mod view3d;

use std::sync::Arc;

use egui::RichText;

use super::action::{Action, PeersAction};
use scenetree_core::crdt::network::Convergence;
use scenetree_core::crdt::network::{Network, PeerId};
use scenetree_core::crdt::{Replica, ReplicaVersion};
use scenetree_core::model::EulerOrder;
use scenetree_core::scene::SceneView;
use scenetree_editor::{Document, InspectorFlags, NodesCheck, NodesMismatches, Simulation};
use scenetree_viewport::ViewportRenderer;
use scenetree_viewport::models::AssetLibrary;

pub use multiplayer::{MultiplayerView, PlayerColumn};
pub use policies::ColumnsView;
pub use tree_source::{PolicyTree, RootFallbackTree, TreeSource, policy_reasons};

/// What the Peers panel borrows from the rest of the window for one frame.
pub struct PeersUiContext<'a> {
    /// Draws the peers' small 3D views (through [`ViewportRenderer::extra`]).
    pub renderer: &'a mut dyn ViewportRenderer,
    /// The editor viewport's models and textures, which the peers' views draw too.
    pub assets: &'a mut AssetLibrary,
    /// The order rotations are shown in (the inspector's).
    pub euler_order: EulerOrder,
}

/// What the lower part of the panel shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LowerView {
    /// The messages in flight, as a table.
    #[default]
    Messages,
    /// The timeline's events, newest first.
    Events,
    /// Every delivery order of the messages waiting for the active peer.
    Explorer,
}

/// Peers panel state.
pub struct PeersPanel {
    /// What a new simulation starts with.
    new_run: NewRun,
    /// Show a small 3D view of each peer's scene above its tree.
    pub show_views: bool,
    /// What the lower part shows.
    pub lower: LowerView,
    /// What the columns show: the peers' trees, or the policies'.
    pub columns_view: ColumnsView,
    /// The Policies view shows every peer's tree in each column, not only the active peer's.
    pub policies_every_peer: bool,
    /// The Policies view's board and rows.
    policies: policies::PoliciesView,
    /// How the height is split between the columns and the lower view.
    split: Split,
    /// What each peer's column keeps, peer 1 first.
    peers: Vec<PeerColumn>,
    /// Each peer's 3D view, and the camera they share.
    views3d: view3d::PeerViews,
    /// The Order explorer's last result.
    explorer: explorer::ExplorerView,
    /// The auto-delivery clock.
    clock: AutoDelivery,
    /// Message being dragged in the message table.
    dragging: Option<u64>,
    /// The convergence line, with what it was computed for (replica versions, messages in
    /// flight).
    convergence: Option<(ConvergenceKey, Convergence)>,
    /// The columns' names, when not "Peer N".
    names: ColumnNames,
    /// The multiplayer mode's state (a capture or a multiplayer lesson).
    pub multiplayer: MultiplayerView,
}

/// What a new simulation starts with.
struct NewRun {
    /// Peers to create.
    peers: usize,
    /// The seed of its random choices.
    seed: u64,
}

/// How the panel's height is split between the peer columns and the lower view.
struct Split {
    /// The lower part's share of the height below the pinned controls (0.1 to 0.9).
    lower_share: f32,
    /// The user moved the split or clicked a tab of the lower view: in a short strip it then
    /// takes its share instead of its tabs alone.
    lower_moved: bool,
    /// The panel was drawn as a short strip (the editor's layout) in the last frame.
    short: bool,
}

/// The clock that delivers messages on its own.
struct AutoDelivery {
    /// The latency the slider shows (ticks).
    latency: u64,
    /// UI time of the last automatic tick (seconds).
    last_tick: f64,
}

/// The columns' names, when not "Peer N".
#[derive(Default)]
struct ColumnNames {
    /// During a live session: "This editor", "Host …".
    live: Option<Vec<String>>,
    /// The peers' names a scenario gives (a session recording's), peer 1 first.
    scenario: Vec<String>,
}

/// What the panel keeps for one peer's column, following that peer's replica.
#[derive(Default)]
struct PeerColumn {
    /// The peer's derived tree (rebuilt when its replica is replaced).
    view: SceneView,
    /// Its `inspector::Hide` / `inspector::Lock` flags.
    flags: InspectorFlags,
    /// The column's rows, kept while its tree is unchanged.
    rows: peer_tree::ColumnCache,
    /// The replica version the figures were computed for, its clock and digest. Digests
    /// hash the whole state, so they are recomputed only when the replica changed.
    summary: Option<(ReplicaVersion, u32, u128)>,
    /// Where its `inspector::Nodes` and its Transforms disagree.
    nodes: (NodesCheck, Arc<NodesMismatches>),
}

impl PeerColumn {
    /// Follows `replica`: the tree, the flags, the Nodes check, the clock and digest.
    fn sync(&mut self, replica: &Replica) {
        self.view.update(replica);
        self.flags.update(replica);
        let (check, found) = &mut self.nodes;
        *found = check.get(replica, &self.view);
        let version = replica.version();
        if self.summary.is_none_or(|(seen, _, _)| seen != version) {
            self.summary = Some((version, replica.clock(), replica.digest()));
        }
    }
}

/// What the convergence line depends on: every replica's version and the messages in flight.
type ConvergenceKey = (Vec<Option<ReplicaVersion>>, usize);

/// Tells runs apart: the seed, the number of peers and the state they started from.
type RunIdentity = (u64, usize, ReplicaVersion);

/// The identity of the run `network` plays.
fn run_identity(network: &Network) -> RunIdentity {
    (
        network.seed(),
        network.peer_count(),
        network.initial_replica().version(),
    )
}

/// The least height the lower view gets (points), unless the panel is smaller still.
const LOWER_MIN_HEIGHT: f32 = 90.0;
/// The least height left for the peer columns when the lower view is made taller.
const COLUMNS_MIN_HEIGHT: f32 = 80.0;

/// Below this height (points) the panel is a strip (the editor's layout): the header scrolls.
const SHORT_PANEL_HEIGHT: f32 = 420.0;
/// The most of a short panel's height the lesson and controls take.
const HEADER_SHARE_WHEN_SHORT: f32 = 0.22;
/// The least height of the lesson and controls (the Next step row and a line of text).
const HEADER_MIN_HEIGHT: f32 = 56.0;

/// The height of the lower view's split bar and tabs (points).
const LOWER_TABS_HEIGHT: f32 = 34.0;

/// The lower view's height when `rest` points are left for it and the columns and the user
/// asked for `share` of them: at least [`LOWER_MIN_HEIGHT`] while the columns keep
/// [`COLUMNS_MIN_HEIGHT`]; when both do not fit, the columns come first after the lower
/// view's tabs.
fn lower_view_height(rest: f32, share: f32) -> f32 {
    let most = (rest - COLUMNS_MIN_HEIGHT).max(LOWER_TABS_HEIGHT.min(rest));
    (rest * share).clamp(LOWER_MIN_HEIGHT.min(most), most)
}

/// A thin bar the user drags to move a split; it shows a resize cursor when hovered.
fn split_handle(ui: &mut egui::Ui) -> egui::Response {
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), 6.0), egui::Sense::drag());
    let response = response.on_hover_cursor(egui::CursorIcon::ResizeVertical);
    let color = if response.hovered() || response.dragged() {
        ui.visuals().widgets.hovered.fg_stroke.color
    } else {
        ui.visuals().widgets.noninteractive.bg_stroke.color
    };
    ui.painter()
        .hline(rect.x_range(), rect.center().y, (1.0, color));
    response
}

/// While auto-delivery is on, the network clock advances one tick this often (seconds).
const TICK_SECONDS: f64 = 0.25;

impl Default for PeersPanel {
    fn default() -> Self {
        PeersPanel {
            new_run: NewRun { peers: 2, seed: 1 },
            show_views: true,
            lower: LowerView::default(),
            columns_view: ColumnsView::default(),
            policies_every_peer: false,
            policies: Default::default(),
            split: Split {
                lower_share: 0.4,
                lower_moved: false,
                short: false,
            },
            peers: Vec::new(),
            views3d: view3d::PeerViews::default(),
            explorer: explorer::ExplorerView::default(),
            clock: AutoDelivery {
                latency: 3,
                last_tick: 0.0,
            },
            dragging: None,
            convergence: None,
            names: ColumnNames::default(),
            multiplayer: MultiplayerView::default(),
        }
    }
}

impl PeersPanel {
    /// Draws the panel.
    pub fn ui(&mut self, ui: &mut egui::Ui, doc: &Document, cx: PeersUiContext<'_>) -> Vec<Action> {
        if let Some(live) = doc.live() {
            return self.live_ui(ui, doc, live, cx);
        }
        self.names.live = None;
        let mut actions = Vec::new();
        let names = doc.simulation().and_then(|(sim, _)| sim.lesson());
        let names = names.map_or(&[][..], |p| &p.scenario().peer_names[..]);
        if self.names.scenario != names {
            self.names.scenario = names.to_vec();
        }
        let Some((sim, active)) = doc.simulation() else {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| self.start_ui(ui, &mut actions));
            return actions;
        };
        let network = sim.network();
        self.sync_views(network);
        if network.auto_delivery().is_some() && !network.is_rewound() {
            // The clock runs on its own: messages arrive once their latency has passed. Not
            // while the user looks back along the timeline: a tick there would replace every
            // later event.
            let now = ui.input(|i| i.time);
            if now - self.clock.last_tick >= TICK_SECONDS {
                self.clock.last_tick = now;
                actions.push(Action::Peers(PeersAction::Advance(1)));
            }
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs_f64(TICK_SECONDS));
        }
        // In a short strip (the editor's layout) the lesson and controls scroll inside a
        // share of the height, so the peers' trees keep room below them.
        let full_height = ui.available_height();
        let short = full_height < SHORT_PANEL_HEIGHT;
        self.split.short = short;
        let header = |ui: &mut egui::Ui| {
            if let Simulation::Lesson(player) = sim {
                lesson::lesson_ui(ui, player, &mut actions);
            }
            controls::controls_ui(ui, network, active, self, &mut actions);
            if let Some((_, c)) = &self.convergence {
                let cycles = self.shared_cycles(network);
                controls::convergence_ui(ui, network, c, &cycles);
            }
        };
        if short {
            let header_max = (full_height * HEADER_SHARE_WHEN_SHORT).max(HEADER_MIN_HEIGHT);
            egui::Panel::top("peers-header")
                .max_size(header_max)
                .show(ui, |ui| {
                    // A panel offers its last height: the scroll area asks for the share
                    // itself (then shrinks to what it holds), or it could never grow.
                    egui::ScrollArea::vertical()
                        .id_salt("peers-header-scroll")
                        .min_scrolled_height(header_max)
                        .max_height(header_max)
                        .auto_shrink([false, true])
                        .show(ui, header);
                });
        } else {
            egui::Panel::top("peers-header").show(ui, header);
        }
        egui::Panel::bottom("peers-timeline").show(ui, |ui| {
            timeline::timeline_controls_ui(ui, network, &mut actions)
        });
        // The lower view and the peer columns share what is left; the handle between them
        // moves the split (kept as a share, so it follows the window's size).
        let area = ui.available_rect_before_wrap();
        let rest = area.height();
        // In a short strip the lower view starts as its tabs alone (a click or a drag of the
        // bar opens it): found by hand, the trees kept about one row there otherwise.
        let lower_height = if short && !self.split.lower_moved {
            LOWER_TABS_HEIGHT.min(rest)
        } else {
            lower_view_height(rest, self.split.lower_share)
        };
        egui::Panel::bottom("peers-lower")
            .resizable(false)
            .exact_size(lower_height)
            .show(ui, |ui| {
                let handle = split_handle(ui);
                if handle.dragged() && rest > 0.0 {
                    let wanted = lower_height - handle.drag_delta().y;
                    self.split.lower_share = (wanted / rest).clamp(0.1, 0.9);
                    self.split.lower_moved = true;
                }
                // The view fills the panel whatever it holds.
                ui.set_min_height(ui.available_height());
                self.lower_tabs_ui(ui, network);
                if short && !self.split.lower_moved {
                    return; // its tabs alone
                }
                match self.lower {
                    LowerView::Messages => {
                        let composite = doc.save_context.composite.as_deref();
                        self.messages_ui(ui, network, cx.euler_order, composite, &mut actions)
                    }
                    LowerView::Events => timeline::events_ui(ui, network),
                    LowerView::Explorer => self.explorer.ui(ui, network, active),
                }
            });
        // The columns take exactly what the lower view leaves: a bottom panel whose content
        // is taller than its size reports a shorter height, and a CentralPanel would then
        // run under it.
        let columns = area.with_max_y(area.max.y - lower_height);
        ui.scope_builder(egui::UiBuilder::new().max_rect(columns), |ui| {
            ui.set_clip_rect(columns.intersect(ui.clip_rect()));
            if !short {
                // (In a short strip it sits in the lower view's row of tabs.)
                ui.horizontal(|ui| self.columns_view_switch_ui(ui));
            }
            match self.columns_view {
                ColumnsView::Peers => self.columns_ui(ui, doc, network, active, cx, &mut actions),
                ColumnsView::Policies => self.policies_ui(ui, doc, network, active, &mut actions),
            }
        });
        actions
    }

    /// The parenting cycles every peer draws, as rings named by peer 1 ("Lamp → Table →
    /// Lamp"); empty when some peer draws none.
    fn shared_cycles(&self, network: &Network) -> Vec<String> {
        let Some(first) = self.peers.first().map(|c| &c.view) else {
            return Vec::new();
        };
        let name = |e| network.entity_label(e, PeerId(1));
        let members = |ring: &[scenetree_core::model::Entity]| {
            let mut sorted = ring.to_vec();
            sorted.sort_unstable();
            sorted
        };
        first
            .cycles()
            .into_iter()
            .filter(|ring| {
                (self.peers.iter())
                    .all(|c| c.view.cycles().iter().any(|r| members(r) == members(ring)))
            })
            .map(|ring| scenetree_core::model::present::cycle_ring(ring, name))
            .collect()
    }

    /// What peer number `index` (from 0)'s 3D view draws, once it was shown.
    pub fn peer_scene(&self, index: usize) -> Option<&scenetree_viewport::ViewportScene> {
        self.views3d.each.get(index).map(view3d::PeerView3d::scene)
    }

    /// After a lesson step: if the step moved something out of a peer's 3D view, the views are
    /// framed again on the next frame (as **Frame** does); otherwise the camera stays.
    pub fn keep_views_on_the_scene(&mut self) {
        self.views3d.frame_if_needed = true;
    }

    /// Peer number `index` (from 0)'s 3D view widget: where it was drawn and through which
    /// camera (the one all peers' views share).
    pub fn peer_viewport(&self, index: usize) -> Option<&scenetree_viewport::Viewport> {
        self.views3d
            .each
            .get(index)
            .map(view3d::PeerView3d::viewport)
    }

    fn lower_tabs_ui(&mut self, ui: &mut egui::Ui, network: &Network) {
        ui.horizontal(|ui| {
            if self.split.short {
                self.columns_view_switch_ui(ui);
                ui.separator();
            }
            let flying = network.in_flight().len();
            let events = network.events().len();
            // Short names in a short strip, where the switch shares the row (found by hand:
            // the last tab was cut at 1024 points).
            let labels = if self.split.short {
                [
                    format!("Messages ({flying})"),
                    format!("Events ({events})"),
                    "Explorer".to_string(),
                ]
            } else {
                [
                    format!("Messages in flight ({flying})"),
                    format!("Timeline events ({events})"),
                    "Order explorer".to_string(),
                ]
            };
            let views = [LowerView::Messages, LowerView::Events, LowerView::Explorer];
            for (view, label) in views.into_iter().zip(labels) {
                let tab = ui.selectable_value(&mut self.lower, view, RichText::new(label).strong());
                if tab.clicked() && self.split.short && !self.split.lower_moved {
                    // A tab clicked in a short strip opens the lower view at its share.
                    self.split.lower_moved = true;
                }
            }
        });
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
                egui::DragValue::new(&mut self.new_run.peers)
                    .range(2..=8)
                    .suffix(" peers"),
            );
            ui.add(egui::DragValue::new(&mut self.new_run.seed).prefix("seed "));
            if ui.button("Start simulation").clicked() {
                actions.push(Action::Peers(PeersAction::Start {
                    peers: self.new_run.peers,
                    seed: self.new_run.seed,
                }));
            }
        });
        ui.separator();
        ui.label(RichText::new("Lessons").strong());
        for (i, title) in super::lessons::titles().into_iter().enumerate() {
            if ui.button(format!("{}. {title}", i + 1)).clicked() {
                actions.push(Action::Peers(PeersAction::OpenLesson(i)));
            }
        }
    }

    /// Keeps one view, clock and digest per peer, and the convergence line, following the
    /// replicas; nothing is recomputed for a replica that did not change.
    fn sync_views(&mut self, network: &Network) {
        self.peers
            .resize_with(network.peer_count(), PeerColumn::default);
        for (column, replica) in self.peers.iter_mut().zip(network.replicas()) {
            column.sync(replica);
        }
        let versions: Vec<Option<ReplicaVersion>> = (self.peers.iter())
            .map(|c| c.summary.map(|s| s.0))
            .collect();
        let flying = network.in_flight().len();
        let key = (versions, flying);
        if self.convergence.as_ref().is_none_or(|(k, _)| *k != key) {
            let digests = (self.peers.iter())
                .map(|c| c.summary.map_or(0, |s| s.2))
                .collect();
            self.convergence = Some((key, network.convergence_with(digests)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lower_view_takes_its_share_but_leaves_the_columns_room() {
        assert_eq!(lower_view_height(1000.0, 0.4), 400.0);
        assert_eq!(lower_view_height(1000.0, 0.01), LOWER_MIN_HEIGHT);
        assert_eq!(lower_view_height(1000.0, 0.99), 1000.0 - COLUMNS_MIN_HEIGHT);
        // Short: the columns keep their least height, the lower view its tabs.
        assert_eq!(lower_view_height(130.0, 0.4), 130.0 - COLUMNS_MIN_HEIGHT);
        assert_eq!(lower_view_height(100.0, 0.4), LOWER_TABS_HEIGHT);
        assert_eq!(lower_view_height(20.0, 0.4), 20.0);
    }
}
