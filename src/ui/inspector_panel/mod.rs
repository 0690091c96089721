//! The TRS inspector: local position, rotation (an Euler row in a chosen order and the
//! quaternion, committed as a whole), scale, parents, world values, the Lamport timestamp, and
//! the entity's other components. Edits apply to every selected entity.
//!
//! `transform` draws the Transform sections, `rotation` the rotation entry, `numbers` the
//! aligned number cells (one formatting rule: `model::present::fixed`).

mod component_fields;
mod model_and_project;
mod numbers;
mod rotation;
mod transform;

use egui::RichText;

use super::action::Action;
use super::style;
use scenetree_core::model::{Entity, EulerOrder, Transform, present};
use scenetree_core::scene::Fallback;
use scenetree_editor::Document;

/// Inspector state kept between frames.
#[derive(Debug, Default)]
pub struct InspectorPanel {
    /// The order the Euler row applies its angles in.
    pub euler_order: EulerOrder,
    /// Rotate buttons act in the entity's own frame (true) or its parent's (false).
    pub rotate_in_local_space: bool,
    /// The quaternion as typed, until its four fields commit together.
    quat_draft: Option<rotation::QuatDraft>,
    /// The Euler angles last entered, shown while the rotation is the one they made.
    euler_hint: Option<rotation::EulerHint>,
    /// Why the last input was refused.
    pub error: Option<String>,
    /// The selection `error` was about, and the replica's state then: another selection, or
    /// any change since (an edit, an undo, a peer's message, a simulation started), does not
    /// show it.
    error_subject: (Vec<Entity>, Option<scenetree_core::crdt::ReplicaVersion>),
    /// The scene summary's counts and the replica version they were made at: counting scans
    /// every node, so it is redone only when the replica changed.
    scene_counts: Option<(scenetree_core::crdt::ReplicaVersion, SceneCounts)>,
    /// The name as typed in the Name field, until it is committed.
    pub(super) name_draft: Option<(Entity, String)>,
    /// A Material colour drag is coalescing edits until its picker closes.
    pub(super) colour_gesture_open: bool,
    /// The project (its folder) whose model files were listed, and the list (see
    /// `component_fields.rs`).
    pub(super) models_listed: Option<(Option<std::path::PathBuf>, Vec<String>)>,
}

/// Which Transform field an edit touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Field {
    Position(usize),
    Euler(usize),
    Scale(usize),
}

impl InspectorPanel {
    /// Shows why an input was refused, for as long as the same entities stay selected and
    /// nothing changes.
    fn refuse(&mut self, doc: &Document, why: String) {
        self.error = Some(why);
        self.error_subject = (
            doc.selection.entities().to_vec(),
            Some(doc.replica().version()),
        );
    }

    /// Draws the inspector for the document's selection; `model` is what the viewport knows
    /// of the selected entity's glTF model.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        model: Option<&super::viewport_tab::ModelState>,
    ) -> Vec<Action> {
        let mut actions = Vec::new();
        let (subject, version) = &self.error_subject;
        if self.error.is_some()
            && (doc.selection.entities() != subject.as_slice()
                || *version != Some(doc.replica().version()))
        {
            self.error = None;
        }
        let Some(entity) = doc.selection.primary() else {
            let generation = doc.replica().version();
            let counts = match self.scene_counts {
                Some((g, counts)) if g == generation => counts,
                _ => {
                    let view = doc.view();
                    let counts = SceneCounts {
                        cycles: view.cycles().len(),
                        rerooted: view.rerooted().len(),
                        not_finite: view.non_finite_locals().len(),
                    };
                    self.scene_counts = Some((generation, counts));
                    counts
                }
            };
            scene_summary_ui(ui, doc, counts, &mut actions);
            return actions;
        };
        if !doc.view().contains(entity) {
            ui.weak("The selected entity is no longer in the scene.");
            return actions;
        }
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                self.header_ui(ui, doc, entity);
                egui::CollapsingHeader::new(
                    RichText::new("Transform (local, parent space)").strong(),
                )
                .default_open(true)
                .show_unindented(ui, |ui| self.transform_ui(ui, doc, entity, &mut actions));
                // Under the fields, not above them: its coming and going moves no field
                // while the user types.
                if let Some(err) = &self.error {
                    ui.colored_label(style::ERROR, format!("△ {err}"));
                }
                egui::CollapsingHeader::new(RichText::new("Parent").strong())
                    .default_open(true)
                    .show(ui, |ui| parents_ui(ui, doc, entity));
                egui::CollapsingHeader::new(RichText::new("World (read-only)").strong())
                    .default_open(true)
                    .show_unindented(ui, |ui| self.world_ui(ui, doc, entity));
                if let Some(model) = model {
                    egui::CollapsingHeader::new(RichText::new("Model (glTF)").strong())
                        .default_open(true)
                        .show(ui, |ui| model_and_project::model_ui(ui, doc, model));
                }
                egui::CollapsingHeader::new(RichText::new("Components").strong())
                    .default_open(true)
                    .show(ui, |ui| self.components_ui(ui, doc, entity, &mut actions));
            });
        self.end_colour_gesture(ui.ctx(), &mut actions);
        actions
    }

    fn header_ui(&self, ui: &mut egui::Ui, doc: &Document, entity: Entity) {
        let count = doc.selection.len();
        // Wrapped: a long name and the several-selected note do not fit side by side in a
        // narrow inspector, and a plain row would run past its edge.
        ui.horizontal_wrapped(|ui| {
            ui.heading(doc.display_name(entity));
            if count > 1 {
                ui.label(
                    RichText::new(format!(
                        "+ {} more selected — edits apply to all {count}",
                        count - 1
                    ))
                    .weak(),
                );
            }
        });
        ui.label(
            RichText::new(format!(
                "Entity {entity}  ·  number {}  ·  version {}",
                entity.number(),
                entity.version()
            ))
            .weak()
            .small(),
        );
    }
}

/// What the scene summary counts.
#[derive(Clone, Copy, Debug)]
struct SceneCounts {
    /// Parenting cycles.
    cycles: usize,
    /// Entities drawn at the root instead of under their declared parent.
    rerooted: usize,
    /// Entities whose local matrix is not finite (not drawn, nor anything below them).
    not_finite: usize,
}

/// With nothing selected: what the open scene is, and what loading it noticed.
fn scene_summary_ui(
    ui: &mut egui::Ui,
    doc: &Document,
    counts: SceneCounts,
    actions: &mut Vec<Action>,
) {
    let SceneCounts {
        cycles,
        rerooted,
        not_finite,
    } = counts;
    ui.heading("Scene");
    model_and_project::project_ui(ui, doc);
    match &doc.file {
        Some(file) => {
            ui.label(file.path.display().to_string());
            ui.label(RichText::new(file.format.label()).weak());
        }
        None if doc.live().is_some() => {
            ui.label("Live: the data layer's host owns main.composite (Save asks it to save)");
        }
        None => {
            ui.label("Not saved yet");
        }
    }
    ui.label(format!(
        "{} · {cycles} parenting cycle(s) · {rerooted} re-rooted",
        present::entity_count(doc.scene_entity_count()),
    ));
    inspector_tree_ui(ui, doc, actions);
    if not_finite > 0 {
        ui.colored_label(
            style::ERROR,
            format!(
                "△ {not_finite} with a Transform that is not finite or has a rotation too \
                 large to normalize: not drawn, nor anything under them (badged in the \
                 hierarchy)"
            ),
        );
    }
    if !doc.load_notes.is_empty() {
        ui.separator();
        ui.label(RichText::new("Notes from loading").strong());
        for note in &doc.load_notes {
            ui.label(RichText::new(format!("• {note}")).small());
        }
    }
    ui.separator();
    ui.weak("Select an entity in the hierarchy or the viewport to inspect it.");
}

/// The Inspector's tree against the Transforms: the misplaced entities, what the repair
/// changes (shown before it is made), and the leftovers with their removal.
fn inspector_tree_ui(ui: &mut egui::Ui, doc: &Document, actions: &mut Vec<Action>) {
    if let Some(line) = doc.inspector_tree_summary() {
        ui.colored_label(style::NODES_MISMATCH, line).on_hover_text(
            "The Decentraland Inspector keeps its tree in one inspector::Nodes value, apart \
             from the Transforms; these entities are listed there under another parent than \
             their Transforms give them (badged ≠ in the hierarchy, whose tooltip says why).",
        );
        match doc.inspector_tree_repair() {
            Some(repair) => {
                const SHOWN: usize = 8;
                ui.label(RichText::new("The repair moves, in the Inspector's tree:").small());
                for m in repair.moves.iter().take(SHOWN) {
                    let from = m.from.map_or_else(
                        || "not shown".to_owned(),
                        |f| format!("from under {}", doc.display_name(f)),
                    );
                    ui.label(
                        RichText::new(format!(
                            "• {}: {from} → last under {}",
                            doc.display_name(m.entity),
                            doc.display_name(m.to)
                        ))
                        .small(),
                    );
                }
                if repair.moves.len() > SHOWN {
                    ui.label(
                        RichText::new(format!("• and {} more", repair.moves.len() - SHOWN)).small(),
                    );
                }
                if ui
                    .button("Repair the Inspector's tree")
                    .on_hover_text(
                        "One undoable step: only the entities listed above move in \
                         inspector::Nodes; every other entity keeps its place among its \
                         siblings and every row stays expanded or collapsed as it was",
                    )
                    .clicked()
                {
                    actions.push(Action::Edit(repair.command));
                }
            }
            None => {
                ui.weak(
                    "Break the parenting cycle first: its members' Transforms lead nowhere, so \
                     there is no place to move them to.",
                );
            }
        }
    }
    if let Some(line) = doc.leftovers_summary() {
        ui.horizontal_wrapped(|ui| {
            ui.weak(line);
            if let Some(command) = doc.remove_leftovers()
                && ui
                    .small_button("Remove leftovers")
                    .on_hover_text("Deletes them in one undoable step")
                    .clicked()
            {
                actions.push(Action::Edit(command));
            }
        });
    }
}

/// The local Transforms of every selected entity with `change` applied to each.
fn edit_all(doc: &Document, change: impl Fn(&mut Transform)) -> Vec<(Entity, Transform)> {
    doc.selection
        .entities()
        .iter()
        .map(|&e| {
            let mut t = doc.local_transform(e);
            change(&mut t);
            (e, t)
        })
        .collect()
}

fn parents_ui(ui: &mut egui::Ui, doc: &Document, entity: Entity) {
    let view = doc.view();
    let declared = view.declared_parent_of(entity).unwrap_or(Entity::ROOT);
    let effective = view.effective_parent_of(entity).unwrap_or(Entity::ROOT);
    egui::Grid::new("parents").num_columns(2).show(ui, |ui| {
        // A long name is cut to the panel (the whole on hover): at full length it widened
        // the inspector's content past the panel's edge, cutting every grid below.
        let name = |ui: &mut egui::Ui, e: Entity| {
            ui.add(egui::Label::new(format!("{}  ({e})", doc.display_name(e))).truncate());
        };
        ui.label("Declared");
        name(ui, declared);
        ui.end_row();
        ui.label("Effective");
        name(ui, effective);
        ui.end_row();
    });
    match view.fallback_reason(entity) {
        Fallback::None => {}
        Fallback::Cycle(members) => {
            let ring = doc.cycle_ring(members);
            ui.colored_label(style::CYCLE, format!("⟲ {}", present::cycle_note(&ring)));
        }
        Fallback::MissingParent => {
            ui.colored_label(
                style::MISSING_PARENT,
                format!(
                    "△ {}",
                    present::missing_parent_note(&doc.display_name(declared))
                ),
            );
        }
    }
}
