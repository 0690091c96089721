//! The Policies view: one column per tree policy with the tree it draws for the active peer
//! (or for every peer, stacked), at the timeline's position. Entities the policies place
//! differently are marked (≠, tinted) with every policy's reason in the tooltip; each column
//! says whether all peers draw the same tree under its policy. The trees come from a
//! [`PolicyBoard`] that follows the network event by event, and a column reads its rows again
//! only when its policy's generation changed.

use rustc_hash::FxHashSet;

use egui::RichText;

use super::PeersPanel;
use super::columns::side_by_side;
use super::peer_tree::{ColumnCache, TreeLook, entity_name, has_name, tree_ui};
use super::tree_source::PolicyTree;
use crate::ui::action::Action;
use crate::ui::style;
use scenetree_core::crdt::network::{Network, PeerId};
use scenetree_core::model::{Entity, present};
use scenetree_core::scene::policy::{PolicyBoard, TreePolicy};
use scenetree_editor::{Document, InspectorFlags};

/// The narrowest a policy column gets; narrower panels scroll sideways. 130 holds the longest
/// name (RevertToEarlierParent) on one line, and with [`POLICY_GAP`] all five fit the Peers
/// workspace of a 1024-wide window (at 140 the fifth was off screen until scrolled).
const MIN_POLICY_COLUMN_WIDTH: f32 = 130.0;

/// The space between two policy columns (points): narrower than the peers' columns, five of
/// them share the width.
const POLICY_GAP: f32 = 4.0;

/// What the area between the controls and the lower view shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColumnsView {
    /// One column per peer, each its render tree.
    #[default]
    Peers,
    /// One column per tree policy.
    Policies,
}

/// The Policies view's state: the board and each column's rows.
#[derive(Default)]
pub(super) struct PoliciesView {
    board: PolicyBoard,
    /// One per (peer, policy): index `peer * 5 + policy`.
    columns: Vec<ColumnCache>,
    /// Per peer: the five generations the set was computed for, and the entities the policies
    /// place differently.
    differing: Vec<Option<([u64; 5], FxHashSet<Entity>)>>,
}

impl PoliciesView {
    /// The board, following `network`'s timeline (only the new events are read).
    pub(super) fn synced(&mut self, network: &Network) -> &PolicyBoard {
        self.board.sync(network);
        &self.board
    }

    /// The entities the policies place differently for `peer`, recomputed only when one of
    /// its policies' trees changed.
    fn differing(&mut self, peer: PeerId) -> &FxHashSet<Entity> {
        let key = TreePolicy::ALL.map(|p| self.board.generation(peer, p));
        let i = peer.index();
        if self.differing.len() <= i {
            self.differing.resize_with(i + 1, || None);
        }
        let slot = &mut self.differing[i];
        if slot.as_ref().is_none_or(|(k, _)| *k != key) {
            let set = self.board.disagreements(peer).into_iter().collect();
            *slot = Some((key, set));
        }
        &slot.as_ref().expect("filled above").1
    }
}

/// One line on what the policy does, for its column header's tooltip.
fn policy_summary(policy: TreePolicy) -> &'static str {
    match policy {
        TreePolicy::RootFallback => {
            "Entities on a cycle are drawn at the root while it lasts; what hangs below them \
             stays. What the runtime, and this editor, draw."
        }
        TreePolicy::IgnoreCyclicChange => {
            "A parent change that would close a cycle in this peer's render tree is ignored: \
             the entity keeps its parent. Depends on the order writes arrived in."
        }
        TreePolicy::RevertToEarlierParent => {
            "An entity cut off by a cycle goes back to its most recent earlier parent that is \
             still connected to the root."
        }
        TreePolicy::MoveOpSkip => {
            "Moves are applied in (Lamport, peer) order, undone and redone when an earlier one \
             arrives; a move that would close a cycle is skipped."
        }
        TreePolicy::HideCycle => {
            "Entities on a cycle, and everything below them, are hidden until it is resolved."
        }
    }
}

impl PeersPanel {
    /// The switch between the peers' columns and the policies' columns, in a row of `ui`.
    pub(super) fn columns_view_switch_ui(&mut self, ui: &mut egui::Ui) {
        ui.selectable_value(&mut self.columns_view, ColumnsView::Peers, "Peers")
            .on_hover_text("One column per peer: its render tree");
        ui.selectable_value(&mut self.columns_view, ColumnsView::Policies, "Policies")
            .on_hover_text(
                "One column per rule for cycles: the tree each draws for the same messages",
            );
        if self.columns_view == ColumnsView::Policies {
            ui.checkbox(&mut self.policies_every_peer, "every peer")
                .on_hover_text("Each column shows every peer's tree, one above the other");
        }
    }

    /// The board every policy's tree comes from, following `network` (for the viewport).
    pub fn policy_board(&mut self, network: &Network) -> &PolicyBoard {
        self.policies.synced(network)
    }

    /// How many times the Policies view's columns read their rows (for tests: a column whose
    /// policy's tree did not change keeps its rows).
    pub fn policy_rows_built(&self) -> u64 {
        self.policies.columns.iter().map(|c| c.builds).sum()
    }

    /// One column per policy.
    pub(super) fn policies_ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        network: &Network,
        active: PeerId,
        actions: &mut Vec<Action>,
    ) {
        self.policies.synced(network);
        let peers: Vec<PeerId> = if self.policies_every_peer {
            (0..network.peer_count()).map(PeerId::from_index).collect()
        } else {
            vec![active]
        };
        let n = TreePolicy::ALL.len();
        self.policies
            .columns
            .resize_with(network.peer_count() * n, ColumnCache::default);
        for &peer in &peers {
            self.policies.differing(peer);
        }
        let states_equal = self.convergence.as_ref().is_some_and(|(_, c)| c.converged);
        let PoliciesView {
            board,
            columns,
            differing,
        } = &mut self.policies;
        let flags: Vec<&InspectorFlags> = self.peers.iter().map(|c| &c.flags).collect();
        let compact = self.split.short;
        let before: Vec<(f32, bool)> = (columns.iter())
            .map(|c| (c.shown_span.0, c.scroll_to.is_some()))
            .collect();
        side_by_side(
            ui,
            "policy-columns",
            n,
            (MIN_POLICY_COLUMN_WIDTH, POLICY_GAP),
            |ui, k, size| {
                let policy = TreePolicy::ALL[k];
                policy_header_ui(ui, board, network, policy, active, states_equal, compact);
                let each = ui.available_height() / peers.len() as f32;
                for &peer in &peers {
                    let (name, named) = (entity_name(network, peer), has_name(network, peer));
                    let look = TreeLook {
                        selection: doc.selection.entities(),
                        hidden: &flags[peer.index()].hidden,
                        name: &name,
                        named: &named,
                    };
                    let empty = FxHashSet::default();
                    let source = PolicyTree {
                        board,
                        peer,
                        policy,
                        differing: differing[peer.index()]
                            .as_ref()
                            .map_or(&empty, |(_, set)| set),
                        flags: flags[peer.index()],
                    };
                    let column = &mut columns[peer.index() * n + k];
                    ui.allocate_ui(egui::vec2(size.x, each), |ui| {
                        if peers.len() > 1 {
                            ui.label(RichText::new(format!("Peer {}", peer.0)).strong());
                        }
                        let id = egui::Id::new(("policy-tree", peer.index(), k));
                        tree_ui(
                            ui,
                            id,
                            column,
                            network.epoch(),
                            &source,
                            &look,
                            None,
                            actions,
                        );
                    });
                }
            },
        );
        for &peer in &peers {
            link_scrolling(
                &mut columns[peer.index() * n..][..n],
                &before[peer.index() * n..],
            );
        }
    }
}

/// One peer's policy columns scroll together: when the user scrolled one of them this frame
/// (its offset moved, and not because it was told to), the others take its offset in the
/// next, so a row and its counterparts stay side by side. `before`: each column's offset
/// before the frame and whether it had been told to scroll. A column too short for the
/// offset stops at its end without scrolling the others back.
fn link_scrolling(columns: &mut [ColumnCache], before: &[(f32, bool)]) {
    let scrolled = (columns.iter().zip(before))
        .position(|(c, &(offset, told))| !told && (c.shown_span.0 - offset).abs() > 0.5);
    let Some(k) = scrolled else { return };
    let offset = columns[k].shown_span.0;
    for (i, column) in columns.iter_mut().enumerate() {
        if i != k && (column.shown_span.0 - offset).abs() > 0.5 {
            column.scroll_to = Some(offset);
        }
    }
}

/// The policy's name and source, whether every peer draws the same tree under it, and what
/// it hides for `active`. `compact` (a short strip): one line, the name and the convergence
/// line beside it, the source and what is hidden in the tooltips.
fn policy_header_ui(
    ui: &mut egui::Ui,
    board: &mut PolicyBoard,
    network: &Network,
    policy: TreePolicy,
    active: PeerId,
    states_equal: bool,
    compact: bool,
) {
    let names = |entities: &[Entity]| -> String {
        present::first_named(entities, ", ", |&e| network.entity_label(e, active))
    };
    let agreement = board.agreement(policy);
    let (line, color) = if agreement.agree {
        ("✓ every peer draws this tree".to_string(), style::SUCCESS)
    } else {
        let mut text = format!("✗ peers differ on {}", names(&agreement.differing));
        if states_equal {
            text.push_str(" (same state, different trees)");
        }
        (text, style::WARNING)
    };
    let hidden = board.hidden(active, policy);
    let hidden = (!hidden.is_empty()).then(|| format!("hidden: {}", names(&hidden)));
    let about = format!("{}: {}", policy.source(), policy_summary(policy));
    // Wrapped, never cut with "…": a cut line also showed its text twice on hover (egui's
    // tooltip for a cut label, and ours).
    let wrapped = |ui: &mut egui::Ui, text: &str, color| {
        ui.add(egui::Label::new(RichText::new(text).color(color)).wrap())
    };
    if compact {
        // A short strip: the name and a mark on one line; the lines it stands for on hover.
        ui.horizontal(|ui| {
            ui.label(RichText::new(policy.name()).strong())
                .on_hover_text(about);
            let mark = if agreement.agree { "✓" } else { "✗" };
            let hover = [Some(line.as_str()), hidden.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("\n");
            ui.label(RichText::new(mark).color(color).strong())
                .on_hover_text(hover);
        });
        return;
    }
    ui.add(egui::Label::new(RichText::new(policy.name()).strong()).wrap())
        .on_hover_text(about);
    wrapped(ui, policy.source(), ui.visuals().weak_text_color());
    wrapped(ui, &line, color);
    if let Some(hidden) = hidden {
        wrapped(ui, &hidden, style::CYCLE);
    }
}
