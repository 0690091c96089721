//! Drag and drop in the hierarchy: a drop onto a row reparents, a drop between rows places
//! the dragged entities among the siblings there (an insertion line shows where), and the
//! dragged rows' names follow the cursor.

use std::sync::Arc;

use egui::{Pos2, Rect, RichText, vec2};

use super::{DraggedEntities, HierarchyPanel};
use crate::ui::action::{Action, Severity};
use crate::ui::drop_hint::DropSpot;
use crate::ui::drop_hint::{DropTree, check_drop};
use crate::ui::style;
use crate::ui::tree_row::INDENT;
use scenetree_core::model::Entity;
use scenetree_editor::{Command, Document};

/// The share of a row's height, at its top and at its bottom, where a drop goes between rows
/// rather than onto the row.
const EDGE_SHARE: f32 = 0.25;
/// Names listed in the drag preview before "and N more".
const PREVIEW_NAMES: usize = 3;

/// The row under the pointer during a drag, as the panel drew it.
#[derive(Clone, Copy, Debug)]
pub(super) struct RowUnderDrag {
    pub entity: Entity,
    pub depth: u32,
    /// The row shows its children right below it.
    pub expanded_with_children: bool,
    pub rect: Rect,
}

impl HierarchyPanel {
    /// Treats `row` as a drop target when a drag of entities is over it: the top or bottom
    /// quarter places the entities before or after the row's entity among its siblings (after
    /// an expanded row: first among its children), the middle reparents onto it.
    pub(super) fn row_drop_target(
        &mut self,
        ui: &egui::Ui,
        doc: &Document,
        row: RowUnderDrag,
        actions: &mut Vec<Action>,
    ) {
        let Some((payload, pointer)) = drag_over(ui, row.rect) else {
            return;
        };
        let share = (pointer.y - row.rect.top()) / row.rect.height();
        let (spot, line) = if share < EDGE_SHARE {
            let parent = self.parent_of(doc, row.entity);
            let after = self.sibling_before(doc, parent, row.entity);
            (
                DropSpot::Between { parent, after },
                Some((row.rect.top(), row.depth)),
            )
        } else if share > 1.0 - EDGE_SHARE {
            if row.expanded_with_children {
                let spot = DropSpot::Between {
                    parent: row.entity,
                    after: None,
                };
                (spot, Some((row.rect.bottom(), row.depth + 1)))
            } else {
                let parent = self.parent_of(doc, row.entity);
                let spot = DropSpot::Between {
                    parent,
                    after: Some(row.entity),
                };
                (spot, Some((row.rect.bottom(), row.depth)))
            }
        } else {
            (DropSpot::Onto(row.entity), None)
        };
        let refused = self.drop_at(ui, doc, spot, &payload, actions);
        let color = if refused {
            style::ERROR
        } else {
            style::DROP_MARKER
        };
        match line {
            // The insertion line starts where the names of that depth start.
            Some((y, depth)) => {
                let left = row.rect.left() + depth as f32 * INDENT;
                let painter = ui.painter();
                painter.hline(left..=row.rect.right(), y, (2.0, color));
                painter.circle_filled(Pos2::new(left, y), 3.0, color);
            }
            None => {
                ui.painter()
                    .rect_stroke(row.rect, 2.0, (1.5, color), egui::StrokeKind::Inside);
            }
        }
    }

    /// The scene root's row: a drop onto it moves entities to the top level.
    pub(super) fn root_drop_target(
        &mut self,
        ui: &egui::Ui,
        doc: &Document,
        rect: Rect,
        actions: &mut Vec<Action>,
    ) {
        let Some((payload, _)) = drag_over(ui, rect) else {
            return;
        };
        let refused = self.drop_at(ui, doc, DropSpot::Onto(Entity::ROOT), &payload, actions);
        let color = if refused {
            style::ERROR
        } else {
            style::DROP_MARKER
        };
        ui.painter()
            .rect_stroke(rect, 2.0, (1.5, color), egui::StrokeKind::Inside);
    }

    /// Explains the drop at `spot` under the search box, and asks for it when the pointer is
    /// released (keeping world positions unless Shift is held). True when it is refused.
    fn drop_at(
        &mut self,
        ui: &egui::Ui,
        doc: &Document,
        spot: DropSpot,
        payload: &DraggedEntities,
        actions: &mut Vec<Action>,
    ) -> bool {
        let movers = doc.top_level(&payload.0);
        let keep_local = ui.input(|i| i.modifiers.shift);
        let tree = DropTree {
            name: &|e| doc.display_name(e),
            declared_parent: &|e| doc.declared_parent(e),
            drawn_parent: &|e| doc.view().effective_parent_of(e),
            would_cycle: &|e, p| doc.would_cycle(e, p),
        };
        let check = check_drop(&tree, &movers, spot, keep_local);
        let hint = (check.text.clone(), !check.refused);
        // The hint is drawn above the rows, so a new one shows next frame: make sure there is
        // one even when the pointer rests.
        if self.hint_shown.as_ref() != Some(&hint) {
            ui.ctx().request_repaint();
        }
        self.drop_hint = Some(hint);
        let released = ui.input(|i| i.pointer.any_released());
        if released && egui::DragAndDrop::take_payload::<DraggedEntities>(ui.ctx()).is_some() {
            if check.refused {
                actions.push(Action::Status(check.text, Severity::Error));
            } else if !check.changes_nothing {
                actions.push(Action::Edit(match spot {
                    DropSpot::Onto(parent) => Command::Reparent {
                        entities: payload.0.clone(),
                        parent,
                        keep_world: !keep_local,
                    },
                    DropSpot::Between { parent, after } => Command::Reorder {
                        entities: payload.0.clone(),
                        parent,
                        after,
                        keep_world: !keep_local,
                    },
                }));
            }
        }
        check.refused
    }

    /// The parent a row is drawn under.
    fn parent_of(&self, doc: &Document, entity: Entity) -> Entity {
        doc.view()
            .effective_parent_of(entity)
            .unwrap_or(Entity::ROOT)
    }

    /// The sibling shown right above `entity` under `parent` (`None`: it is the first).
    fn sibling_before(&self, doc: &Document, parent: Entity, entity: Entity) -> Option<Entity> {
        let mut siblings: Vec<Entity> = doc.view().children_of(parent).collect();
        self.flags.sibling_order.sort(parent, &mut siblings);
        let at = siblings.iter().position(|&s| s == entity)?;
        at.checked_sub(1).map(|i| siblings[i])
    }
}

/// The dragged entities and the pointer, when a drag of entities is over `rect` (widened by
/// half the gap between rows, so no drop falls between two targets) and shown.
fn drag_over(ui: &egui::Ui, rect: Rect) -> Option<(Arc<DraggedEntities>, Pos2)> {
    let payload = egui::DragAndDrop::payload::<DraggedEntities>(ui.ctx())?;
    let pointer = ui.input(|i| i.pointer.latest_pos())?;
    let hit = rect.expand2(vec2(0.0, ui.spacing().item_spacing.y / 2.0));
    (hit.contains(pointer) && ui.clip_rect().contains(pointer)).then_some((payload, pointer))
}

/// The dragged rows' names beside the cursor while entities are dragged.
pub(super) fn drag_preview(ctx: &egui::Context, doc: &Document) {
    let Some(payload) = egui::DragAndDrop::payload::<DraggedEntities>(ctx) else {
        return;
    };
    let Some(pointer) = ctx.pointer_latest_pos() else {
        return;
    };
    let movers = doc.top_level(&payload.0);
    let mut text: Vec<String> = movers
        .iter()
        .take(PREVIEW_NAMES)
        .map(|&e| doc.display_name(e))
        .collect();
    if movers.len() > PREVIEW_NAMES {
        text.push(format!("and {} more", movers.len() - PREVIEW_NAMES));
    }
    egui::Area::new(egui::Id::new("hierarchy drag preview"))
        .order(egui::Order::Tooltip)
        .fixed_pos(pointer + vec2(14.0, 10.0))
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                // The area starts narrow: names are not wrapped into it.
                ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
                for line in text {
                    ui.label(RichText::new(line).strong());
                }
            });
        });
}
