//! Dragging rows in a peer's column: a drop onto another row (or below the rows: the scene
//! root) reparents as that peer, with the hierarchy's hints (`ui::drop_hint`), so a cycle can
//! be made by hand, one move in each peer's column, as a lesson makes it.

use egui::{Pos2, Rect, RichText, vec2};

use crate::ui::action::{Action, PeersAction, Severity};
use crate::ui::drop_hint::{DropCheck, DropSpot, DropTree, check_drop};
use crate::ui::style;
use scenetree_core::crdt::Replica;
use scenetree_core::crdt::network::PeerId;
use scenetree_core::model::Entity;
use scenetree_core::scene::SceneView;
use scenetree_editor::Command;
use scenetree_editor::tree;

/// What is being dragged in a peer's column: entities of that peer's tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PeerDragged {
    /// Whose column the drag started in.
    pub peer: PeerId,
    /// The dragged entities.
    pub entities: Vec<Entity>,
}

/// A peer's tree as a place to drag and drop rows, written as that peer.
pub(super) struct PeerDrops<'a> {
    /// Whose tree.
    pub peer: PeerId,
    /// The peer's render tree.
    pub view: &'a SceneView,
    /// The peer's replica (declared parents, the cycle check).
    pub replica: &'a Replica,
    /// What the peer calls an entity.
    pub name: &'a dyn Fn(Entity) -> String,
}

impl PeerDrops<'_> {
    /// A row's menu in the peer's column: what the peer can do to the entity there.
    pub(super) fn row_menu(&self, ui: &mut egui::Ui, entity: Entity, actions: &mut Vec<Action>) {
        let declared = self
            .replica
            .transform(entity)
            .map_or(Entity::ROOT, |t| t.parent);
        let button = egui::Button::new(format!("Move to root as peer {}", self.peer.0));
        if ui
            .add_enabled(!declared.is_root(), button)
            .on_hover_text("This peer puts the entity at the top level (its world position kept)")
            .on_disabled_hover_text("Already at the root")
            .clicked()
        {
            actions.push(Action::Peers(PeersAction::EditAs {
                peer: self.peer,
                command: Command::Reparent {
                    entities: vec![entity],
                    parent: Entity::ROOT,
                    keep_world: true,
                },
            }));
            ui.close();
        }
    }

    /// Starts a drag from `entity`'s row (`label`): the selected entities this peer holds
    /// when the row is selected, else the row's entity.
    pub(super) fn drag_from(&self, label: &egui::Response, entity: Entity, selection: &[Entity]) {
        if !label.drag_started() {
            return;
        }
        let entities = if selection.contains(&entity) {
            (selection.iter().copied())
                .filter(|&e| self.view.contains(e))
                .collect()
        } else {
            vec![entity]
        };
        label.dnd_set_drag_payload(PeerDragged {
            peer: self.peer,
            entities,
        });
    }

    /// Treats `rect` as a drop target putting the dragged entities under `parent`: outlines
    /// it, and on release asks for the move as this peer. Returns what the drop says when a
    /// drag of this peer's rows is over it.
    pub(super) fn target(
        &self,
        ui: &egui::Ui,
        rect: Rect,
        parent: Entity,
        actions: &mut Vec<Action>,
    ) -> Option<DropCheck> {
        let payload = egui::DragAndDrop::payload::<PeerDragged>(ui.ctx())?;
        let pointer = ui.input(|i| i.pointer.latest_pos())?;
        let hit = rect.expand2(vec2(0.0, ui.spacing().item_spacing.y / 2.0));
        if payload.peer != self.peer || !hit.contains(pointer) || !ui.clip_rect().contains(pointer)
        {
            return None;
        }
        let movers = tree::top_level(self.view, &payload.entities);
        let keep_local = ui.input(|i| i.modifiers.shift);
        let declared = |e: Entity| self.replica.transform(e).map_or(Entity::ROOT, |t| t.parent);
        let drop_tree = DropTree {
            name: self.name,
            declared_parent: &declared,
            drawn_parent: &|e| self.view.effective_parent_of(e),
            would_cycle: &|e, p| tree::would_cycle(self.replica, self.view.len(), e, p),
        };
        let check = check_drop(&drop_tree, &movers, DropSpot::Onto(parent), keep_local);
        let color = if check.refused {
            style::ERROR
        } else {
            style::DROP_MARKER
        };
        ui.painter()
            .rect_stroke(rect, 2.0, (1.5, color), egui::StrokeKind::Inside);
        let released = ui.input(|i| i.pointer.any_released());
        if released && egui::DragAndDrop::take_payload::<PeerDragged>(ui.ctx()).is_some() {
            if check.refused {
                actions.push(Action::Status(check.text.clone(), Severity::Error));
            } else if !check.changes_nothing {
                actions.push(Action::Peers(PeersAction::EditAs {
                    peer: self.peer,
                    command: Command::Reparent {
                        entities: payload.entities.clone(),
                        parent,
                        keep_world: !keep_local,
                    },
                }));
            }
        }
        Some(check)
    }

    /// Beside the pointer while this peer's rows are dragged: their names, and what a drop
    /// where the pointer is would do (`check`, none over no target).
    pub(super) fn preview(&self, ctx: &egui::Context, check: Option<&DropCheck>) {
        let Some(payload) = egui::DragAndDrop::payload::<PeerDragged>(ctx) else {
            return;
        };
        let Some(pointer) = ctx.pointer_latest_pos() else {
            return;
        };
        if payload.peer != self.peer {
            return;
        }
        let names: Vec<String> = payload.entities.iter().map(|&e| (self.name)(e)).collect();
        egui::Area::new(egui::Id::new(("peer drag preview", self.peer.0)))
            .order(egui::Order::Tooltip)
            .fixed_pos(pointer + vec2(14.0, 10.0))
            .interactable(false)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.set_max_width(320.0);
                    ui.label(RichText::new(names.join(", ")).strong());
                    let (text, color) = match check {
                        Some(c) if c.refused => (c.text.clone(), style::ERROR),
                        Some(c) => (c.text.clone(), ui.visuals().text_color()),
                        None => (
                            format!(
                                "Drop onto a row of {}'s tree to move as {}",
                                self.peer, self.peer
                            ),
                            ui.visuals().weak_text_color(),
                        ),
                    };
                    ui.label(RichText::new(text).color(color).small());
                });
            });
    }
}

/// The part of a tree's scroll area below its last row (`inner`: the area's visible rect,
/// `content_height`: the rows' height), where a drop goes to the scene root.
pub(super) fn below_rows(inner: Rect, content_height: f32, offset: f32) -> Option<Rect> {
    let top = inner.top() + content_height - offset;
    (top < inner.bottom() - 4.0)
        .then(|| Rect::from_min_max(Pos2::new(inner.left(), top), inner.max))
}
