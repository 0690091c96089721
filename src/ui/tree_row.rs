//! One row of an entity tree: indentation, the expand arrow, the name (with the search match
//! highlighted), the re-rooting badge and optional trailing buttons. The hierarchy draws its
//! rows with it, and any other view of a render tree (a simulated peer's tree) can too: the row
//! only needs a [`SceneView`] and a way to name entities, not the editor's document.

use egui::text::{LayoutJob, TextFormat};
use egui::{Align, Color32, Layout, Response, RichText, Sense, TextStyle};

use super::style;
use scenetree_core::model::{Entity, TransformProblem, present};
use scenetree_core::scene::{Fallback, SceneView};

/// Height of one tree row in points.
pub const ROW_HEIGHT: f32 = 20.0;
/// Indentation per tree level, in points.
pub const INDENT: f32 = 14.0;
/// The least room a name keeps however deep its row (or half the row, if less), points.
const MIN_NAME_WIDTH: f32 = 110.0;

/// The expand arrow of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expander {
    /// No children: no arrow (the space is kept so names line up).
    Leaf,
    /// Children shown (⏷).
    Expanded,
    /// Children hidden (⏵).
    Collapsed,
}

/// What a row's badge says: why the render tree draws the entity at the root, or why the
/// viewport cannot draw it as its components say.
#[derive(Clone, Debug, PartialEq)]
pub enum RowBadge {
    /// Drawn under its declared parent.
    None,
    /// On a parenting cycle: `ring` reads "Lamp → Table → Lamp" (a long cycle's first ten
    /// members and a count, see [`present::cycle_ring`], so a row costs the same whatever
    /// the cycle's size); `declared` names the parent.
    Cycle { ring: String, declared: String },
    /// The declared parent (named `declared`) has no Transform.
    MissingParent { declared: String },
    /// Drawn under its declared parent, but its Transform gives a local matrix that is not
    /// finite: neither it nor anything below it can be drawn. `problem` says why (a value
    /// that is not a finite number, a rotation too large to normalize) when the row's
    /// source knows the Transform; [`RowBadge::of`] leaves it to the caller.
    BadTransform(Option<TransformProblem>),
    /// Drawn where it belongs, but the model or texture file it names is missing or could
    /// not be read (a placeholder is drawn instead).
    FileProblem,
    /// Drawn where its Transform says, but the Inspector's tree (`inspector::Nodes`) puts it
    /// under another parent; `note` names both.
    InspectorTree { note: String },
    /// Editor data of a deleted entity: no Transform, no place in the Inspector's tree, so
    /// nothing draws it; `note` says what it holds.
    Leftover { note: String },
}

impl RowBadge {
    /// The badge of `entity` in `view`; `name` says what to call an entity ("Lamp").
    pub fn of(view: &SceneView, entity: Entity, name: impl Fn(Entity) -> String) -> RowBadge {
        let declared = || name(view.declared_parent_of(entity).unwrap_or(Entity::ROOT));
        match view.fallback_reason(entity) {
            Fallback::None if view.has_non_finite_local(entity) => RowBadge::BadTransform(None),
            Fallback::None => RowBadge::None,
            Fallback::Cycle(members) => RowBadge::Cycle {
                ring: present::cycle_ring(members, &name),
                declared: declared(),
            },
            Fallback::MissingParent => RowBadge::MissingParent {
                declared: declared(),
            },
        }
    }
}

/// What one row shows. Build it, then [`TreeRow::show`] it.
#[derive(Clone, Debug)]
pub struct TreeRow<'a> {
    /// The entity of the row.
    pub entity: Entity,
    /// Tree depth (0 = a child of the scene root).
    pub depth: u32,
    /// What people call the entity ("Lamp", "Entity 520").
    pub name: String,
    /// The entity has a `core-schema::Name`: its id follows the name ("Lamp  ·  513").
    pub named: bool,
    /// The entity has no components and is only drawn because others name it as parent.
    pub implicit: bool,
    /// The expand arrow.
    pub expander: Expander,
    /// Drawn as selected.
    pub selected: bool,
    /// Drawn faded: the entity or an ancestor is hidden.
    pub dimmed: bool,
    /// Highlight this text in the name (case-insensitive; empty highlights nothing).
    pub highlight: &'a str,
    /// The re-rooting badge.
    pub badge: RowBadge,
}

/// What happened to a row this frame.
pub struct TreeRowResponse {
    /// The name label (click, double-click, drag, context menu).
    pub label: Response,
    /// The whole row (a drop target).
    pub row: Response,
    /// The expand arrow was clicked.
    pub toggled: bool,
}

impl TreeRow<'_> {
    /// The text of the name label: "Lamp  ·  513", or "Entity 520", or "Entity 520 (no
    /// components)" for an implicit parent.
    pub fn label_text(&self) -> String {
        if self.implicit {
            format!("{} (no components)", self.name)
        } else if self.named {
            format!("{}  ·  {}", self.name, self.entity)
        } else {
            self.name.clone()
        }
    }

    /// Draws the row. `trailing` adds right-aligned widgets (the hierarchy's hide and lock
    /// toggles); `rename` replaces the label with a text field while a name is being edited and
    /// returns its response instead of the label's.
    pub fn show(
        self,
        ui: &mut egui::Ui,
        rename: Option<&mut dyn FnMut(&mut egui::Ui) -> Response>,
        trailing: impl FnOnce(&mut egui::Ui),
    ) -> TreeRowResponse {
        let mut toggled = false;
        let inner = ui.horizontal(|ui| {
            ui.set_min_height(ROW_HEIGHT);
            // The trailing buttons first, from the right edge; the row's content gets what is
            // left, and a name is cut short with "…" rather than running under them.
            ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                trailing(ui);
                ui.with_layout(Layout::left_to_right(Align::Center), |ui| {
                    self.indent_ui(ui);
                    toggled = self.expander_ui(ui);
                    let label = match rename {
                        Some(edit) => edit(ui),
                        None => self.label_ui(ui),
                    };
                    badge_ui(ui, &self.badge);
                    label
                })
                .inner
            })
            .inner
        });
        TreeRowResponse {
            label: inner.inner,
            row: inner.response,
            toggled,
        }
    }

    /// The indentation. Deep rows in a narrow panel (a long chain) cannot be indented in
    /// full: the indentation stops where a name would no longer have room, and the row says
    /// its level instead ("31›"), since the indentation no longer shows it.
    fn indent_ui(&self, ui: &mut egui::Ui) {
        // In a narrow column (the Policies view's) half the row is room enough.
        let width = ui.available_width();
        let room = (width - INDENT - MIN_NAME_WIDTH.min(width / 2.0)).max(0.0);
        let indent = self.depth as f32 * INDENT;
        if indent <= room {
            ui.add_space(indent);
            return;
        }
        let level = self.depth + 1;
        let text = RichText::new(format!("{level}›")).small().weak();
        let label_width = small_text_width(ui, text.clone());
        ui.add_space((room - label_width - ui.spacing().item_spacing.x).max(0.0));
        ui.label(text).on_hover_text(format!(
            "Level {level} below the scene root: too deep to indent in full at this panel's \
             width"
        ));
    }

    /// The expand arrow (or the space it takes on a leaf); true when it was clicked.
    fn expander_ui(&self, ui: &mut egui::Ui) -> bool {
        let arrow = match self.expander {
            // The arrow's width and the spacing after it, so names at one depth line up.
            Expander::Leaf => {
                ui.add_space(INDENT + ui.spacing().item_spacing.x);
                return false;
            }
            Expander::Collapsed => "⏵",
            Expander::Expanded => "⏷",
        };
        ui.add_sized(
            [INDENT, ROW_HEIGHT],
            egui::Button::new(arrow).frame(false).small(),
        )
        .on_hover_text("Expand / collapse")
        .clicked()
    }

    /// The name as a selectable label, cut short to the room left beside the badge.
    fn label_ui(&self, ui: &mut egui::Ui) -> Response {
        let width = (ui.available_width() - badge_width(ui, &self.badge)).max(INDENT);
        let button = egui::Button::selectable(self.selected, self.label_job(ui)).truncate();
        ui.allocate_ui(egui::vec2(width, ROW_HEIGHT), |ui| {
            // A hovered row gets a faint fill and no frame: framed, the row under the pointer
            // looked like a second selected row once the arrow keys moved the selection on.
            let faint = ui.visuals().faint_bg_color;
            let hovered = &mut ui.visuals_mut().widgets.hovered;
            hovered.bg_stroke = egui::Stroke::NONE;
            hovered.weak_bg_fill = faint;
            hovered.expansion = 0.0;
            ui.add(button)
        })
        .inner
        .interact(Sense::click_and_drag())
        .on_hover_text(format!(
            "{}\nEntity {} (number {}, version {}){}",
            self.label_text(),
            self.entity,
            self.entity.number(),
            self.entity.version(),
            if self.dimmed {
                "\nHidden in the viewport (itself or an ancestor)"
            } else {
                ""
            }
        ))
    }

    /// The label as a layout job: faded when dimmed, italic for an implicit parent, the search
    /// match on a highlighted background.
    fn label_job(&self, ui: &egui::Ui) -> LayoutJob {
        let text = self.label_text();
        let visuals = ui.visuals();
        let mut color = if self.selected {
            visuals.selection.stroke.color
        } else {
            visuals.text_color()
        };
        if self.implicit || self.dimmed {
            color = color.gamma_multiply(0.45);
        }
        let format = TextFormat {
            font_id: TextStyle::Button.resolve(ui.style()),
            color,
            italics: self.implicit,
            ..Default::default()
        };
        let mut job = LayoutJob::default();
        let (start, end) = match_range(&text, self.highlight).unwrap_or((text.len(), text.len()));
        job.append(&text[..start], 0.0, format.clone());
        if end > start {
            job.append(
                &text[start..end],
                0.0,
                TextFormat {
                    background: style::SEARCH_MATCH,
                    color: Color32::BLACK,
                    ..format.clone()
                },
            );
        }
        job.append(&text[end..], 0.0, format);
        job
    }
}

/// The byte range of the first case-insensitive occurrence of `needle` in `text`, when the
/// lowercase form keeps every character's length (it does for the names people type; other
/// texts get no highlight rather than a wrong one).
pub fn match_range(text: &str, needle: &str) -> Option<(usize, usize)> {
    let needle = needle.trim().to_lowercase();
    if needle.is_empty() {
        return None;
    }
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        return None;
    }
    let start = lower.find(&needle)?;
    let end = start + needle.len();
    (text.is_char_boundary(start) && text.is_char_boundary(end)).then_some((start, end))
}

/// The badge's text and its tooltip (`None` for no badge).
fn badge_text(badge: &RowBadge) -> Option<(RichText, String)> {
    match badge {
        RowBadge::None => None,
        RowBadge::Cycle { ring, declared } => Some((
            RichText::new("⟲ cycle").color(style::CYCLE).small(),
            format!("{}\nDeclared parent: {declared}", present::cycle_note(ring)),
        )),
        RowBadge::MissingParent { declared } => Some((
            RichText::new("△ missing parent")
                .color(style::MISSING_PARENT)
                .small(),
            present::missing_parent_note(declared),
        )),
        RowBadge::BadTransform(problem) => {
            let label = match problem {
                Some(TransformProblem::NotFinite { .. }) => "△ not finite",
                Some(TransformProblem::RotationNotNormalizable) => "△ bad rotation",
                Some(TransformProblem::MatrixOverflow) => "△ overflow",
                None => "△ not drawn",
            };
            let why = problem.as_ref().map_or_else(
                || {
                    "gives no finite matrix (a value that is not a finite number, or a \
                     rotation too large to normalize)"
                        .to_owned()
                },
                present::transform_problem,
            );
            Some((
                RichText::new(label).color(style::ERROR).small(),
                format!(
                    "Its Transform {why}, so neither it nor anything under it can be drawn. \
                     Type other values in the inspector to fix it."
                ),
            ))
        }
        RowBadge::InspectorTree { note } => Some((
            RichText::new("≠ Inspector")
                .color(style::NODES_MISMATCH)
                .small(),
            note.clone(),
        )),
        RowBadge::Leftover { note } => {
            Some((RichText::new("leftover").weak().small(), note.clone()))
        }
        RowBadge::FileProblem => Some((
            RichText::new("△ file").color(style::WARNING).small(),
            "The model or texture file it names is missing or could not be read, so a \
             placeholder is drawn; the inspector says why."
                .to_owned(),
        )),
    }
}

/// The width the badge takes beside a name, points (0 for no badge).
fn badge_width(ui: &egui::Ui, badge: &RowBadge) -> f32 {
    badge_text(badge).map_or(0.0, |(text, _)| {
        small_text_width(ui, text) + ui.spacing().item_spacing.x
    })
}

/// The width of a small label's text on one line, points.
fn small_text_width(ui: &egui::Ui, text: RichText) -> f32 {
    egui::WidgetText::from(text)
        .into_galley(
            ui,
            Some(egui::TextWrapMode::Extend),
            f32::INFINITY,
            TextStyle::Small,
        )
        .size()
        .x
}

fn badge_ui(ui: &mut egui::Ui, badge: &RowBadge) {
    if let Some((text, tooltip)) = badge_text(badge) {
        ui.label(text).on_hover_text(tooltip);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_match_is_found_case_insensitively_and_only_where_it_is() {
        assert_eq!(match_range("Lamp  ·  513", "AMP"), Some((1, 4)));
        assert_eq!(match_range("Lamp  ·  513", "513"), Some((10, 13)));
        assert_eq!(match_range("Lamp", "chair"), None);
        assert_eq!(match_range("Lamp", "  "), None);
        // 'İ' lowercases to two characters: no highlight rather than a shifted one.
        assert_eq!(match_range("İstanbul", "stan"), None);
    }
}
