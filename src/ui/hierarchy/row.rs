//! One row of the hierarchy: its badge, the inline rename field, the lock and hide toggles,
//! clicks and drags on its name, and its menu.

use super::drop::RowUnderDrag;
use super::rows::Row;
use super::{DraggedEntities, HierarchyPanel};
use crate::ui::action::{Action, SelectAction};
use crate::ui::command::UiCommand;
use crate::ui::command::action_for;
use crate::ui::tree_row::{Expander, RowBadge, TreeRow};
use scenetree_core::model::Entity;
use scenetree_editor::{Command, Document};

impl HierarchyPanel {
    pub(super) fn row_ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        row: Row,
        actions: &mut Vec<Action>,
    ) {
        let entity = row.entity;
        let selected = doc.selection.contains(entity);
        let collapsed = self.folded.rows.contains(&entity) && self.search.is_empty();
        let tree_row = TreeRow {
            entity,
            depth: row.depth,
            name: doc.display_name(entity),
            named: doc.name_of(entity).is_some(),
            implicit: doc.view().is_implicit(entity),
            expander: match (row.has_children, collapsed) {
                (false, _) => Expander::Leaf,
                (true, false) => Expander::Expanded,
                (true, true) => Expander::Collapsed,
            },
            selected,
            dimmed: row.dimmed || row.leftover,
            highlight: &self.search,
            badge: self.row_badge(doc, row),
        };
        let is_renaming = self.renaming.as_ref().is_some_and(|(e, _, _)| *e == entity);
        let mut renamed = false;
        let mut rename_field = |ui: &mut egui::Ui| {
            let (_, text, first_frame) = self.renaming.as_mut().expect("renaming this row");
            let (edit, done) = rename_field_ui(ui, text, first_frame);
            match done {
                Some(Renamed::Cancelled) => renamed = true,
                Some(Renamed::To(name)) => {
                    actions.push(Action::Edit(Command::Rename { entity, name }));
                    renamed = true;
                }
                None => {}
            }
            edit
        };
        let rename: Option<&mut dyn FnMut(&mut egui::Ui) -> egui::Response> =
            is_renaming.then_some(&mut rename_field);
        let toggled = RowToggles {
            entity,
            locked: self.flags.locked.contains(&entity),
            hidden: self.flags.hidden.contains(&entity),
            below_hidden: row.dimmed,
        };
        let mut toggles = Vec::new();
        let shown = tree_row.show(ui, rename, |ui| toggles.extend(toggled.ui(ui)));
        actions.extend(toggles);
        if shown.toggled {
            self.set_collapsed(entity, !collapsed);
        }
        if is_renaming {
            if renamed {
                self.renaming = None;
            }
            return;
        }
        self.row_pointer(ui, doc, &shown.label, entity, actions);
        shown
            .label
            .context_menu(|ui| self.row_menu(ui, doc, entity, actions));
        let under_drag = RowUnderDrag {
            entity,
            depth: row.depth,
            expanded_with_children: row.has_children && !collapsed,
            rect: shown.row.rect,
        };
        self.row_drop_target(ui, doc, under_drag, actions);
    }

    /// The row's badge: why it is re-rooted, else where the Inspector's tree differs, else
    /// a missing file; leftovers say what they are.
    fn row_badge(&self, doc: &Document, row: Row) -> RowBadge {
        let entity = row.entity;
        match RowBadge::of(doc.view(), entity, |e| doc.display_name(e)) {
            RowBadge::None if row.leftover => RowBadge::Leftover {
                note: doc.leftover_note(entity),
            },
            RowBadge::None => match doc.inspector_tree_mismatches().get(entity) {
                Some(m) => RowBadge::InspectorTree {
                    note: m.describe(|e| doc.display_name(e)),
                },
                None if self.file_problems.contains(&entity) => RowBadge::FileProblem,
                None => RowBadge::None,
            },
            RowBadge::BadTransform(_) => {
                RowBadge::BadTransform((doc.replica().transform(entity)).and_then(|t| t.problem()))
            }
            badge => badge,
        }
    }

    /// Clicks (select, Ctrl toggles, Shift extends), a double-click (rename) and the start
    /// of a drag (the selection, or the row, without locked entities) on a row's name.
    fn row_pointer(
        &self,
        ui: &egui::Ui,
        doc: &Document,
        response: &egui::Response,
        entity: Entity,
        actions: &mut Vec<Action>,
    ) {
        let modifiers = ui.input(|i| i.modifiers);
        if response.double_clicked() {
            actions.push(Action::BeginRename(entity));
        } else if response.clicked() {
            let select = if modifiers.command {
                SelectAction::Toggle(entity)
            } else if modifiers.shift {
                // The rows as shown, built only for the click.
                SelectAction::Range(entity, self.cache.rows.iter().map(|r| r.entity).collect())
            } else {
                SelectAction::Only(entity)
            };
            actions.push(Action::Select(select));
        }
        if response.drag_started() && !self.flags.locked.contains(&entity) {
            let dragged = if doc.selection.contains(entity) {
                doc.selection.entities().to_vec()
            } else {
                vec![entity]
            };
            let dragged: Vec<Entity> = dragged
                .into_iter()
                .filter(|e| !self.flags.locked.contains(e))
                .collect();
            response.dnd_set_drag_payload(DraggedEntities(dragged));
        }
    }

    /// The row's menu: its commands act on the selection when the row is in it, else on the
    /// row alone (which becomes the selection).
    fn row_menu(
        &self,
        ui: &mut egui::Ui,
        doc: &Document,
        entity: Entity,
        actions: &mut Vec<Action>,
    ) {
        let selected = doc.selection.contains(entity);
        if !selected {
            actions.push(Action::Select(SelectAction::Only(entity)));
        }
        let targets = if selected {
            doc.selection.entities().to_vec()
        } else {
            vec![entity]
        };
        // Moving what is already at the root would change nothing: not offered.
        let movable = targets
            .iter()
            .any(|&e| doc.declared_parent(e) != Entity::ROOT);
        // Unity's "Frame Selected" from the hierarchy, without its double-click (which
        // renames here, as in Godot). Labels, tooltips and keys come from the command table.
        let items = [
            (UiCommand::FrameSelection, true),
            (UiCommand::Rename, true),
            (UiCommand::CreateChild, true),
            (UiCommand::Duplicate, true),
            (UiCommand::Delete, true),
            (UiCommand::MoveToRoot, movable),
            (UiCommand::Copy, true),
            // Greyed out as Unity greys them: with nothing copied a paste does nothing.
            (UiCommand::Paste, self.can_paste),
            (UiCommand::CopyTransform, true),
            (UiCommand::PasteTransform, self.can_paste_transform),
        ];
        for (command, enabled) in items {
            if command == UiCommand::Copy {
                ui.separator();
            }
            let (text, tooltip) = command.text();
            let keys = short_keys(command);
            let label = if keys.is_empty() {
                text.to_string()
            } else {
                format!("{text}  ({keys})")
            };
            let response = ui
                .add_enabled(enabled, egui::Button::new(label))
                .on_hover_text(tooltip);
            let response = if command == UiCommand::MoveToRoot {
                response.on_disabled_hover_text("Already at the root")
            } else {
                response
            };
            if response.clicked() {
                actions.extend(action_for(command, Some(entity), &targets));
                ui.close();
            }
        }
    }
}

/// How an inline rename ended.
enum Renamed {
    /// Escape: the name stays.
    Cancelled,
    /// Enter, or the field lost the keyboard: the new name, trimmed.
    To(String),
}

/// The inline rename field over `text`; on its first frame (`first_frame`, then cleared) it
/// takes the keyboard with the whole name selected, as Godot, Unity and VS Code do: typing
/// replaces it, an arrow key keeps it and moves the cursor.
fn rename_field_ui(
    ui: &mut egui::Ui,
    text: &mut String,
    first_frame: &mut bool,
) -> (egui::Response, Option<Renamed>) {
    let output = egui::TextEdit::singleline(text)
        .desired_width(160.0)
        .show(ui);
    let edit = output.response.response;
    if std::mem::take(first_frame) {
        edit.request_focus();
        let mut state = output.state;
        let all = egui::text::CCursorRange::select_all(&output.galley);
        state.cursor.set_char_range(Some(all));
        state.store(ui.ctx(), edit.id);
    }
    let (enter, escape) = ui.input(|i| {
        (
            i.key_pressed(egui::Key::Enter),
            i.key_pressed(egui::Key::Escape),
        )
    });
    let done = if escape {
        Some(Renamed::Cancelled)
    } else if enter || edit.lost_focus() {
        Some(Renamed::To(text.trim().to_string()))
    } else {
        None
    };
    (edit, done)
}

/// A row's lock and hide toggles.
struct RowToggles {
    entity: Entity,
    locked: bool,
    hidden: bool,
    /// An ancestor is hidden.
    below_hidden: bool,
}

impl RowToggles {
    /// Draws them; returns the toggles clicked.
    fn ui(&self, ui: &mut egui::Ui) -> Vec<Action> {
        let mut clicked = Vec::new();
        if lock_toggle(ui, self.locked)
            .on_hover_text(if self.locked {
                "Locked: not picked or dragged in the viewport; click to unlock (saved in the \
                 scene as inspector::Lock, as the Decentraland Inspector does)"
            } else {
                "Lock: not picked or dragged in the viewport (saved in the scene as \
                 inspector::Lock, as the Decentraland Inspector does)"
            })
            .clicked()
        {
            clicked.push(Action::ToggleLocked(self.entity));
        }
        let (eye, tip) = if self.hidden {
            (
                "–",
                "Hidden in the viewport with its children; click to show",
            )
        } else if self.below_hidden {
            (
                "◌",
                "Hidden because an ancestor is hidden; click to hide it on its own too",
            )
        } else {
            (
                "👁",
                "Hide in the viewport with its children (saved in the scene as \
                 inspector::Hide, as the Decentraland Inspector does)",
            )
        };
        if ui
            .add(egui::Button::new(eye).frame(false).small())
            .on_hover_text(tip)
            .clicked()
        {
            clicked.push(Action::ToggleHidden(self.entity));
        }
        clicked
    }
}

/// A command's first shortcut as the row menu shows it ("Ctrl+D", "Del").
fn short_keys(command: UiCommand) -> String {
    match command {
        UiCommand::Delete => "Del".to_string(),
        other => other
            .shortcuts()
            .first()
            .map(|s| s.format(&egui::ModifierNames::NAMES, false))
            .unwrap_or_default(),
    }
}

/// A padlock, as Unity's and Godot's hierarchies draw the lock: closed and bright when
/// `locked`, open and faint when not. Drawn, not a glyph: the fonts have no padlock.
fn lock_toggle(ui: &mut egui::Ui, locked: bool) -> egui::Response {
    let height = ui.spacing().interact_size.y;
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(height * 0.8, height), egui::Sense::click());
    response.widget_info(|| {
        egui::WidgetInfo::selected(egui::WidgetType::Checkbox, true, locked, "Lock")
    });
    let color = if locked || response.hovered() {
        ui.style().interact(&response).fg_stroke.color
    } else {
        ui.visuals().weak_text_color()
    };
    let unit = height / 10.0;
    let centre = rect.center();
    let body = egui::Rect::from_center_size(
        centre + egui::vec2(0.0, 1.2 * unit),
        egui::vec2(5.0 * unit, 3.8 * unit),
    );
    let painter = ui.painter();
    painter.rect_filled(body, unit * 0.6, color);
    // The shackle: a U over the body, lifted and free on the right when open.
    let radius = 1.6 * unit;
    let lift = if locked { 0.0 } else { 1.2 * unit };
    let top = body.top() - radius - 0.6 * unit - lift;
    let (left, right) = (centre.x - radius, centre.x + radius);
    let mut points = vec![egui::pos2(left, body.top())];
    for step in 0..=8 {
        let angle = std::f32::consts::PI * (1.0 - step as f32 / 8.0);
        points.push(egui::pos2(
            centre.x + radius * angle.cos(),
            top + radius - radius * angle.sin(),
        ));
    }
    points.push(egui::pos2(right, body.top() - lift));
    painter.add(egui::Shape::line(
        points,
        egui::Stroke::new(unit * 0.9, color),
    ));
    response
}
