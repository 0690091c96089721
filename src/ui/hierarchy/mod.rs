//! The hierarchy tree: the effective render tree with expand/collapse, selection, inline rename,
//! search, drag and drop (`drop`: onto a row reparents, between rows reorders),
//! re-rooting badges and hide/lock toggles. Siblings are shown in the scene's
//! `inspector::Nodes` order (by id without one).
//!
//! Rows are flattened (`rows`) into a cached list and drawn virtualized
//! (`ScrollArea::show_rows`), so a 65,535-entity scene costs only the visible rows per frame.

use std::collections::HashSet;

use egui::RichText;

use super::action::{Action, SelectAction, TreeKey};
use super::command::UiCommand;
use super::style;
pub use super::tree_row::ROW_HEIGHT;
use scenetree_editor::{Command, Document, InspectorFlags};
mod drop;
mod row;
mod rows;

use drop::drag_preview;
use rows::{Row, RowsKey, build_rows, count_matches, matches_search};
use scenetree_core::crdt::ReplicaVersion;
use scenetree_core::model::{Entity, present};

/// What is being dragged in the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraggedEntities(pub Vec<Entity>);

/// State of the hierarchy panel.
#[derive(Debug, Default)]
pub struct HierarchyPanel {
    /// The folded rows.
    folded: Folded,
    /// The search text: rows whose name or id contain it, with their ancestors.
    pub search: String,
    /// The rows shown, kept while what they depend on is unchanged.
    cache: RowsCache,
    /// The entity being renamed inline, and the text typed so far.
    renaming: Option<(Entity, String, bool)>,
    /// Something was copied (Ctrl+C): the row menu's Paste applies. The workbench sets it.
    pub can_paste: bool,
    /// A transform was copied: the row menu's Paste transform applies. The workbench sets it.
    pub can_paste_transform: bool,
    /// The scene's `inspector::Hide` / `inspector::Lock` flags (locked entities cannot be
    /// selected in the viewport or dragged), refreshed from the document every frame.
    pub flags: InspectorFlags,
    /// Shown under the search box while a drag hovers a row: the text, and false for a
    /// refused drop.
    pub(super) drop_hint: Option<(String, bool)>,
    /// The hint drawn this frame.
    pub(super) hint_shown: Option<(String, bool)>,
    /// Where the rows are scrolled.
    scroll: Scroll,
    /// Give the search box the keyboard on the next frame (Find, Ctrl+F).
    focus_search: bool,
    /// Entities whose model or texture file is missing or unreadable (a `△ file` badge),
    /// kept up to date by the workbench, which owns the model files.
    pub file_problems: HashSet<Entity>,
    /// What `file_problems` was found from: the model files' generation and the replica's
    /// version.
    pub(crate) file_problems_key: Option<(u64, ReplicaVersion)>,
}

/// The rows folded by the user.
#[derive(Debug, Default)]
struct Folded {
    /// Their entities.
    rows: HashSet<Entity>,
    /// Changes whenever a row folds or unfolds.
    version: u64,
}

/// The rows shown and what they were built for.
#[derive(Debug, Default)]
struct RowsCache {
    rows: Vec<Row>,
    /// What they were built for (`None`: build them).
    key: Option<RowsKey>,
    /// How many entities the search finds (with the rows it was counted for).
    matches: usize,
}

/// Where the rows are scrolled.
#[derive(Debug, Default)]
struct Scroll {
    /// Scroll so this entity's row is visible on the next frame.
    to: Option<Entity>,
    /// The rows' scroll offset and visible height in the last frame (points).
    shown_span: (f32, f32),
}

impl HierarchyPanel {
    /// A panel for the same scene read again: the folded rows and the search text stay,
    /// everything derived from the old document is dropped.
    pub fn carried_over(&self) -> HierarchyPanel {
        HierarchyPanel {
            folded: Folded {
                rows: self.folded.rows.clone(),
                version: 0,
            },
            search: self.search.clone(),
            ..HierarchyPanel::default()
        }
    }

    /// Gives the search box the keyboard, its text selected so that typing replaces it.
    pub fn focus_search(&mut self) {
        self.focus_search = true;
    }

    /// Starts renaming `entity` inline with its current name.
    pub fn begin_rename(&mut self, entity: Entity, current_name: String) {
        self.renaming = Some((entity, current_name, true));
    }

    /// True while a row's name is being edited.
    pub fn is_renaming(&self) -> bool {
        self.renaming.is_some()
    }

    /// Collapses or expands a row.
    pub fn set_collapsed(&mut self, entity: Entity, collapsed: bool) {
        let changed = if collapsed {
            self.folded.rows.insert(entity)
        } else {
            self.folded.rows.remove(&entity)
        };
        if changed {
            self.folded.version += 1;
        }
    }

    /// Makes the entity's row visible: expands its ancestors and scrolls to it.
    pub fn reveal(&mut self, doc: &Document, entity: Entity) {
        let mut cur = entity;
        while let Some(p) = doc.view().effective_parent_of(cur) {
            if p.is_root() {
                break;
            }
            self.set_collapsed(p, false);
            cur = p;
        }
        self.scroll.to = Some(entity);
    }

    /// Every entity of the scene in row order as if every row were expanded (Select All).
    pub fn all_entities(&mut self, doc: &Document) -> Vec<Entity> {
        self.refresh_rows(doc); // brings the sibling order up to date
        let preorder = self.flags.sibling_order.preorder(doc.view());
        preorder.into_iter().skip(1).map(|(e, _)| e).collect()
    }

    /// The entities in row order, as shown (for Shift-range selection and tests).
    pub fn visible_entities(&mut self, doc: &Document) -> Vec<Entity> {
        self.refresh_rows(doc);
        self.cache.rows.iter().map(|r| r.entity).collect()
    }

    /// What a navigation key does. The primary selected row is the cursor (without one, Down
    /// starts at the first row and Up at the last); the new row scrolls into view.
    pub fn navigate(&mut self, doc: &Document, key: TreeKey) -> Vec<Action> {
        self.refresh_rows(doc);
        let Some(last) = self.cache.rows.len().checked_sub(1) else {
            return Vec::new();
        };
        let at = doc
            .selection
            .primary()
            .and_then(|e| self.cache.rows.iter().position(|r| r.entity == e));
        // A search shows every match expanded: there is nothing to collapse then.
        let folds = self.search.is_empty();
        let target = match (key, at) {
            (TreeKey::Previous | TreeKey::ExtendPrevious, None) => last,
            (_, None) => 0,
            (TreeKey::Previous | TreeKey::ExtendPrevious, Some(i)) => i.saturating_sub(1),
            (TreeKey::Next | TreeKey::ExtendNext, Some(i)) => (i + 1).min(last),
            (TreeKey::CollapseOrParent, Some(i)) => {
                let row = self.cache.rows[i];
                if folds && row.has_children && !self.folded.rows.contains(&row.entity) {
                    self.set_collapsed(row.entity, true);
                    return Vec::new();
                }
                // Rows are in preorder: the parent is the nearest row above that is less deep.
                match self.cache.rows[..i]
                    .iter()
                    .rposition(|r| r.depth < row.depth)
                {
                    Some(parent) => parent,
                    None => return Vec::new(),
                }
            }
            (TreeKey::ExpandOrChild, Some(i)) => {
                let row = self.cache.rows[i];
                if folds && row.has_children && self.folded.rows.contains(&row.entity) {
                    self.set_collapsed(row.entity, false);
                    return Vec::new();
                }
                match self.cache.rows.get(i + 1) {
                    Some(next) if next.depth > row.depth => i + 1,
                    _ => return Vec::new(),
                }
            }
        };
        let entity = self.cache.rows[target].entity;
        self.scroll.to = Some(entity);
        let select = match key {
            TreeKey::ExtendPrevious | TreeKey::ExtendNext => {
                SelectAction::Range(entity, self.cache.rows.iter().map(|r| r.entity).collect())
            }
            _ => SelectAction::Only(entity),
        };
        vec![Action::Select(select)]
    }

    fn refresh_rows(&mut self, doc: &Document) {
        // The order follows every write of `inspector::Nodes`, including those that keep its
        // timestamp: a peer's second write in one tick, or a concurrent value that wins the
        // tie-break of equal timestamps.
        self.flags.update(doc.replica());
        let key = RowsKey {
            structure: doc.view().structure_generation(),
            replica: (!self.search.is_empty()).then(|| doc.replica().version()),
            collapsed_version: self.folded.version,
            flags: self.flags.generation(),
            order: self.flags.order_generation(),
            search: self.search.clone(),
        };
        if self.cache.key.as_ref() == Some(&key) {
            return;
        }
        self.cache.rows = build_rows(
            doc,
            &self.flags.sibling_order,
            &self.folded.rows,
            &self.flags.hidden,
            &self.search,
        );
        self.cache.matches = count_matches(doc, &self.flags.sibling_order, &self.search);
        self.cache.key = Some(key);
    }

    /// Draws the panel and returns what the user asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui, doc: &Document) -> Vec<Action> {
        let mut actions = Vec::new();
        self.toolbar_ui(ui, doc, &mut actions);
        self.refresh_rows(doc);
        if !self.search.trim().is_empty() {
            // The count of what the search found, as Unity's and Godot's filters show it.
            let text = match self.cache.matches {
                0 => "No match".to_string(),
                1 => "1 match".to_string(),
                n => format!("{n} matches"),
            };
            ui.label(RichText::new(text).small())
                .on_hover_text("Names and ids; t:Component finds entities holding a component");
        }
        let scroll_index = self
            .scroll
            .to
            .take()
            .and_then(|e| self.cache.rows.iter().position(|r| r.entity == e));
        // A bar beside the rows, not floating over their ends: the lock and hide toggles
        // sit there (found by attack: a click on a lock grabbed the bar).
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        let mut area = egui::ScrollArea::vertical().auto_shrink([false, false]);
        if let Some(i) = scroll_index {
            // Only a row out of view moves the list (a click on a shown row must not jump).
            // `show_rows` lays rows out one row height plus the item spacing apart: without
            // the spacing, a row far down the list was scrolled to thousands of points short.
            let (offset, height) = self.scroll.shown_span;
            let pitch = ROW_HEIGHT + ui.spacing().item_spacing.y;
            let top = i as f32 * pitch;
            if top < offset || top + pitch > offset + height {
                area = area.vertical_scroll_offset((top - 60.0).max(0.0));
            }
        }
        // The hint for the drag in progress (set while drawing the rows, shown next frame).
        self.hint_shown = self.drop_hint.take();
        let hint = match self.hint_shown.clone() {
            Some((hint, true)) => RichText::new(hint).color(ui.visuals().text_color()),
            Some((hint, false)) => RichText::new(hint).color(style::ERROR),
            None => RichText::new(
                "Drag onto a row to reparent, between rows to reorder · Shift keeps local values",
            )
            .color(ui.visuals().weak_text_color()),
        };
        // Two lines high whatever the text (wrapped, cut short after two lines): a hint whose
        // height changed would move the rows under a drag and change the drop it describes.
        let font = egui::TextStyle::Small.resolve(ui.style());
        let height = 2.0 * ui.fonts_mut(|f| f.row_height(&font));
        let width = ui.available_width();
        ui.allocate_ui(egui::vec2(width, height), |ui| {
            ui.set_min_size(egui::vec2(width, height));
            let job = egui::WidgetText::from(hint.small()).into_layout_job(
                ui.style(),
                egui::FontSelection::Default,
                egui::Align::Min,
            );
            let mut job = std::sync::Arc::unwrap_or_clone(job);
            job.wrap.max_rows = 2;
            ui.add(egui::Label::new(job).wrap());
        });
        self.root_row_ui(ui, doc, &mut actions);
        let shown = area.show_rows(ui, ROW_HEIGHT, self.cache.rows.len(), |ui, range| {
            for i in range {
                let row = self.cache.rows[i];
                self.row_ui(ui, doc, row, &mut actions);
            }
        });
        self.scroll.shown_span = (shown.state.offset.y, shown.inner_rect.height());
        drag_preview(ui.ctx(), doc);
        actions
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, doc: &Document, actions: &mut Vec<Action>) {
        ui.horizontal(|ui| {
            if ui
                .button("+ Entity")
                .on_hover_text(UiCommand::CreateEntity.hint())
                .clicked()
            {
                actions.push(Action::Edit(Command::Create {
                    parent: Entity::ROOT,
                    name: "Entity".into(),
                    components: vec![],
                }));
            }
            let primary = doc.selection.primary();
            if ui
                .add_enabled(primary.is_some(), egui::Button::new("+ Child"))
                .on_hover_text(UiCommand::CreateChild.hint())
                .clicked()
                && let Some(parent) = primary
            {
                actions.push(Action::Edit(Command::Create {
                    parent,
                    name: "Entity".into(),
                    components: vec![],
                }));
            }
            let output = egui::TextEdit::singleline(&mut self.search)
                .hint_text("🔍 Names, ids, t:Component")
                .desired_width(f32::INFINITY)
                .show(ui);
            if std::mem::take(&mut self.focus_search) {
                output.response.request_focus();
                let mut state = output.state;
                let all = egui::text::CCursorRange::select_all(&output.galley);
                state.cursor.set_char_range(Some(all));
                state.store(ui.ctx(), output.response.id);
            }
            // Down or Enter in the search box goes to the results, as in other editors'
            // hierarchy filters. egui would move the focus to the nearest widget below on Down
            // (the keys would then reach neither the box nor the tree): the box lets go first.
            let down = output.response.has_focus()
                && ui.input(|i| i.key_pressed(egui::Key::ArrowDown) && i.modifiers.is_none());
            let entered =
                output.response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            // Escape clears the search, as in Unity's and Godot's filters (egui has already
            // let go of the box by now; the selection is left alone).
            let escaped = (output.response.has_focus() || output.response.lost_focus())
                && ui.input(|i| i.key_pressed(egui::Key::Escape));
            if escaped {
                self.search.clear();
                output.response.surrender_focus();
            }
            if (down || entered) && !self.search.trim().is_empty() {
                output.response.surrender_focus();
                actions.extend(self.go_to_results(doc));
            }
        });
    }

    /// Leaves the search box for its results: the selection stays when a row shows it, else
    /// the first row whose name or id matches is selected (not an ancestor shown around it).
    fn go_to_results(&mut self, doc: &Document) -> Vec<Action> {
        self.refresh_rows(doc);
        let shown = |e: Entity| self.cache.rows.iter().any(|r| r.entity == e);
        if doc.selection.primary().is_some_and(shown) {
            return Vec::new();
        }
        let needle = self.search.trim().to_lowercase();
        let Some(first) = (self.cache.rows.iter()).find(|r| matches_search(doc, r.entity, &needle))
        else {
            return Vec::new();
        };
        self.scroll.to = Some(first.entity);
        vec![Action::Select(SelectAction::Only(first.entity))]
    }

    /// The scene root: a drop target that moves entities to the top level.
    fn root_row_ui(&mut self, ui: &mut egui::Ui, doc: &Document, actions: &mut Vec<Action>) {
        let response = ui
            .horizontal(|ui| {
                ui.set_min_height(ROW_HEIGHT);
                ui.label(RichText::new("Scene root").strong());
                ui.label(
                    RichText::new(present::entity_count(doc.scene_entity_count()))
                        .weak()
                        .small(),
                );
                let leftovers = doc.inspector_tree_mismatches().leftovers.len();
                if leftovers > 0 {
                    ui.label(
                        RichText::new(format!(
                            "· {leftovers} leftover{}",
                            if leftovers == 1 { "" } else { "s" }
                        ))
                        .weak()
                        .small(),
                    )
                    .on_hover_text(
                        "Editor data of deleted entities (no Transform, no place in the \
                         Inspector's tree), listed last and muted; Remove leftovers in the \
                         inspector (nothing selected) deletes them",
                    );
                }
            })
            .response;
        self.root_drop_target(ui, doc, response.rect, actions);
    }
}
