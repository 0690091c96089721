//! A peer's tree drawn with the hierarchy's own rows (indentation, expand arrows, badges),
//! from any [`TreeSource`]: the peers' columns and the Policies view both show one. Its rows
//! are kept until the source changes.

use std::collections::HashSet;

use egui::{Color32, RichText};

use super::TreeSource;
use super::column_drag::{PeerDrops, below_rows};
use crate::ui::action::{Action, SelectAction};
use crate::ui::style;
use crate::ui::tree_row::{Expander, ROW_HEIGHT, RowBadge, TreeRow, TreeRowResponse};
use scenetree_core::crdt::network::{Network, PeerId};
use scenetree_core::model::Entity;

/// Behind a marked row (one the policies place differently): the warning colour, faint.
const MARK_TINT: Color32 = style::MARKED_ROW_TINT;

/// A column's rows, kept until its tree source changes.
#[derive(Default)]
pub(super) struct ColumnCache {
    key: Option<(u64, u64)>,
    /// (entity, depth, has children), in display order.
    rows: Vec<(Entity, u32, bool)>,
    /// The re-rooted entities, in row order (their lines are written when drawn: the names
    /// they show may come from other peers, whose changes leave this tree as it is).
    rerooted: Vec<Entity>,
    /// Entities whose children are folded away.
    pub collapsed: HashSet<Entity>,
    /// How many times the rows were read from the source (they are kept while its generation
    /// holds).
    pub builds: u64,
    /// The primary selection last seen, and whether its row still has to be brought into
    /// view (it may not be in this peer's tree yet: its messages are in flight).
    followed: Option<Entity>,
    follow_pending: bool,
    /// The rows were read again since the tree last looked for the followed entity (the
    /// column's header syncs first, for its list of re-rooted entities).
    rows_read: bool,
    /// The rows' scroll offset and visible height in the last frame (points).
    pub(super) shown_span: (f32, f32),
    /// A scroll offset (points) to take in the next frame: a linked column was scrolled.
    pub(super) scroll_to: Option<f32>,
}

impl ColumnCache {
    /// Reads the source again when it changed (`epoch` tells apart sources that restarted).
    pub(super) fn sync(
        &mut self,
        epoch: u64,
        source: &dyn TreeSource,
        name: &dyn Fn(Entity) -> String,
    ) {
        let key = (epoch, source.generation());
        if self.key == Some(key) {
            return;
        }
        self.rows_read = true;
        self.key = Some(key);
        self.builds += 1;
        let rows = source.rows();
        self.rows = rows
            .iter()
            .enumerate()
            .map(|(i, &(e, depth))| {
                let has_children = rows.get(i + 1).is_some_and(|&(_, d)| d > depth);
                (e, depth, has_children)
            })
            .collect();
        self.rerooted = self
            .rows
            .iter()
            .map(|&(e, _, _)| e)
            .filter(|&e| {
                matches!(
                    source.badge(e, name),
                    RowBadge::Cycle { .. } | RowBadge::MissingParent { .. }
                )
            })
            .collect();
    }

    /// A line for each re-rooted entity (a cycle once, as its ring), named as now.
    pub(super) fn rerooted_lines(
        &self,
        source: &dyn TreeSource,
        name: &dyn Fn(Entity) -> String,
    ) -> Vec<(String, Color32)> {
        let mut rings = HashSet::new();
        let mut lines = Vec::new();
        for &e in &self.rerooted {
            match source.badge(e, name) {
                RowBadge::None
                | RowBadge::BadTransform(_)
                | RowBadge::FileProblem
                | RowBadge::InspectorTree { .. }
                | RowBadge::Leftover { .. } => {}
                RowBadge::Cycle { ring, .. } => {
                    if rings.insert(ring.clone()) {
                        lines.push((format!("⟲ {ring}"), style::CYCLE));
                    }
                }
                RowBadge::MissingParent { declared } => lines.push((
                    format!("△ {}: parent {declared} has no Transform", name(e)),
                    style::MISSING_PARENT,
                )),
            }
        }
        lines
    }

    /// Unfolds the ancestors of `entity` and returns its index among the rows then shown, or
    /// `None` when this tree does not hold it.
    fn reveal(&mut self, entity: Entity, hidden: &HashSet<Entity>) -> Option<usize> {
        let at = self.rows.iter().position(|&(e, _, _)| e == entity)?;
        // Rows are in preorder: the ancestors are the nearest rows above at each lower depth.
        let mut depth = self.rows[at].1;
        for &(e, d, _) in self.rows[..at].iter().rev() {
            if d < depth {
                self.collapsed.remove(&e);
                depth = d;
            }
        }
        self.visible(hidden).iter().position(|r| r.entity == entity)
    }

    /// The rows shown (everything except what lies under a collapsed row), each with whether
    /// it or an ancestor is `hidden`.
    fn visible(&self, hidden: &HashSet<Entity>) -> Vec<VisibleRow> {
        let mut out = Vec::with_capacity(self.rows.len());
        let mut fold_below: Option<u32> = None;
        let mut hidden_below: Option<u32> = None;
        for &(entity, depth, has_children) in &self.rows {
            if hidden_below.is_some_and(|d| depth <= d) {
                hidden_below = None;
            }
            if fold_below.is_some_and(|d| depth > d) {
                continue;
            }
            fold_below = (has_children && self.collapsed.contains(&entity)).then_some(depth);
            if hidden_below.is_none() && hidden.contains(&entity) {
                hidden_below = Some(depth);
            }
            out.push(VisibleRow {
                entity,
                depth,
                has_children,
                dimmed: hidden_below.is_some(),
            });
        }
        out
    }
}

/// One row a tree shows.
struct VisibleRow {
    entity: Entity,
    depth: u32,
    has_children: bool,
    /// It or an ancestor is hidden in the editor.
    dimmed: bool,
}

/// What a tree shows besides its rows.
pub(super) struct TreeLook<'a> {
    /// The selected entities (highlighted).
    pub selection: &'a [Entity],
    /// Entities hidden (`inspector::Hide`): they and their subtrees look faded.
    pub hidden: &'a HashSet<Entity>,
    /// What to call an entity.
    pub name: &'a dyn Fn(Entity) -> String,
    /// Whether an entity has a `core-schema::Name` (its id is then shown after the name).
    pub named: &'a dyn Fn(Entity) -> bool,
}

/// Draws a tree from `source` in the remaining height, scrolling, one row per entity; a click
/// on a name selects the entity (Ctrl or Shift adds it to the selection). With `drops`, rows
/// can be dragged onto others to reparent as that peer.
#[allow(clippy::too_many_arguments)]
pub(super) fn tree_ui(
    ui: &mut egui::Ui,
    id: egui::Id,
    cache: &mut ColumnCache,
    epoch: u64,
    source: &dyn TreeSource,
    look: &TreeLook<'_>,
    drops: Option<&PeerDrops<'_>>,
    actions: &mut Vec<Action>,
) {
    cache.sync(epoch, source, look.name);
    let scroll_index = follow_primary(cache, look);
    let rows = cache.visible(look.hidden);
    if rows.is_empty() {
        ui.weak("(no entities)");
        return;
    }
    let mut clicked = None;
    let mut toggled = None;
    let mut drop_check = None;
    if let Some(drops) = drops {
        // The scene root as a row of its own: a drop there moves entities to the top level,
        // as in the editor's hierarchy, whatever room the rows leave below them.
        let root = ui.add(
            egui::Label::new(RichText::new("Scene root").small().weak())
                .selectable(false)
                .sense(egui::Sense::hover()),
        );
        let rect = egui::Rect::from_min_size(
            root.rect.min,
            egui::vec2(ui.available_width(), root.rect.height()),
        );
        drop_check = drops.target(ui, rect, Entity::ROOT, actions);
    }
    // A bar beside the rows, not floating over their ends, where the ≠ marks are.
    let scroll_style = std::mem::replace(
        &mut ui.spacing_mut().scroll,
        egui::style::ScrollStyle::solid(),
    );
    let mut area = scroll_area(ui, id, cache.shown_span, scroll_index);
    if let Some(offset) = cache.scroll_to.take().filter(|_| scroll_index.is_none()) {
        area = area.vertical_scroll_offset(offset);
    }
    let shown = area.show_rows(ui, ROW_HEIGHT, rows.len(), |ui, range| {
        for r in &rows[range] {
            let response = column_row_ui(ui, r, cache, source, look);
            let entity = r.entity;
            if response.toggled {
                toggled = Some(entity);
            }
            if let Some(drops) = drops {
                drops.drag_from(&response.label, entity, look.selection);
                drop_check = drops
                    .target(ui, response.row.rect, entity, actions)
                    .or(drop_check.take());
                response
                    .label
                    .context_menu(|ui| drops.row_menu(ui, entity, actions));
            }
            if response.label.clicked() {
                let modifiers = ui.input(|i| i.modifiers);
                clicked = Some((entity, modifiers.command || modifiers.shift));
            }
        }
    });
    ui.spacing_mut().scroll = scroll_style;
    cache.shown_span = (shown.state.offset.y, shown.inner_rect.height());
    if let Some(drops) = drops {
        let below = below_rows(shown.inner_rect, shown.content_size.y, shown.state.offset.y);
        if let Some(rect) = below {
            drop_check = drops.target(ui, rect, Entity::ROOT, actions).or(drop_check);
        }
        drops.preview(ui.ctx(), drop_check.as_ref());
    }
    if let Some(e) = toggled
        && !cache.collapsed.remove(&e)
    {
        cache.collapsed.insert(e);
    }
    if let Some((e, add)) = clicked {
        actions.push(Action::Select(if add {
            SelectAction::Toggle(e)
        } else {
            SelectAction::Only(e)
        }));
    }
}

/// Follows the primary selection as the editor's hierarchy does: a new, pasted or picked
/// entity scrolls into view in every column that holds it (in a peer that has not received
/// it yet, once it arrives). Returns the row to scroll to, if any.
fn follow_primary(cache: &mut ColumnCache, look: &TreeLook<'_>) -> Option<usize> {
    let primary = look.selection.last().copied();
    let mut look_again = std::mem::take(&mut cache.rows_read);
    if primary != cache.followed {
        cache.followed = primary;
        cache.follow_pending = primary.is_some();
        look_again = true;
    }
    match cache.followed {
        Some(e) if cache.follow_pending && look_again => {
            let found = cache.reveal(e, look.hidden);
            cache.follow_pending = found.is_none();
            found
        }
        _ => None,
    }
}

/// The column's scroll area, moved to show row `scroll_index` only when it is out of view
/// (`shown_span`: the offset and height shown in the last frame), so a click on a shown row
/// never makes the list jump.
fn scroll_area(
    ui: &egui::Ui,
    id: egui::Id,
    shown_span: (f32, f32),
    scroll_index: Option<usize>,
) -> egui::ScrollArea {
    let mut area = egui::ScrollArea::vertical()
        .id_salt(id)
        .auto_shrink([false, false])
        // Never taller than the room left (by default a scroll area takes 64 pt, and in a
        // short strip it would run under the lower view).
        .min_scrolled_height(0.0);
    if let Some(i) = scroll_index {
        // Rows are one row height plus the item spacing apart.
        let (offset, height) = shown_span;
        let pitch = ROW_HEIGHT + ui.spacing().item_spacing.y;
        let top = i as f32 * pitch;
        if top < offset || top + pitch > offset + height {
            area = area.vertical_scroll_offset((top - 2.0 * pitch).max(0.0));
        }
    }
    area
}

/// One row of a column, with its ≠ mark (tinted, the note on hover) where the tree source
/// marks it.
fn column_row_ui(
    ui: &mut egui::Ui,
    r: &VisibleRow,
    cache: &ColumnCache,
    source: &dyn TreeSource,
    look: &TreeLook<'_>,
) -> TreeRowResponse {
    let entity = r.entity;
    let row = TreeRow {
        entity,
        depth: r.depth,
        name: (look.name)(entity),
        named: (look.named)(entity),
        implicit: source.is_implicit(entity),
        expander: match (r.has_children, cache.collapsed.contains(&entity)) {
            (false, _) => Expander::Leaf,
            (true, true) => Expander::Collapsed,
            (true, false) => Expander::Expanded,
        },
        selected: look.selection.contains(&entity),
        dimmed: r.dimmed,
        highlight: "",
        badge: source.badge(entity, look.name),
    };
    let marked = source.is_marked(entity);
    // The tint goes behind the row, so it is painted into a slot taken first.
    let tint = marked.then(|| ui.painter().add(egui::Shape::Noop));
    let response = row.show(ui, None, |ui| {
        if marked {
            ui.label(RichText::new("≠").color(style::WARNING).strong())
                .on_hover_ui(|ui| {
                    ui.label(source.mark_note(entity, look.name));
                });
        }
    });
    if let Some(slot) = tint {
        let rect = response.row.rect;
        ui.painter()
            .set(slot, egui::Shape::rect_filled(rect, 2.0, MARK_TINT));
        response.label.clone().on_hover_ui(|ui| {
            ui.label(source.mark_note(entity, look.name));
        });
    }
    response
}

/// What `peer` calls an entity ("Lamp", "Entity 520").
pub(super) fn entity_name(network: &Network, peer: PeerId) -> impl Fn(Entity) -> String + '_ {
    move |e| network.entity_label(e, peer)
}

/// Whether `peer` holds a `core-schema::Name` for an entity.
pub(super) fn has_name(network: &Network, peer: PeerId) -> impl Fn(Entity) -> bool + '_ {
    move |e| {
        network.replicas()[peer.index()]
            .component_data(e, scenetree_core::model::ids::NAME)
            .is_some()
    }
}
