//! The TRS inspector: local position, rotation as an editable quaternion (normalized on commit)
//! with a read-only Euler display in a chosen order, scale, parents, world values, the Lamport
//! timestamp, and the entity's other components. Edits apply to every selected entity.

use std::cell::RefCell;

use egui::RichText;
use glam::{Quat, Vec3};

use super::action::Action;
use super::command::UiCommand;
use super::style;
use crate::editor::{Command, Document};
use crate::model::{Entity, EulerOrder, Transform, ids, present};
use crate::scene::Fallback;

/// Inspector state kept between frames.
#[derive(Debug, Default)]
pub struct InspectorPanel {
    /// The order the Euler display uses.
    pub euler_order: EulerOrder,
    /// Rotate buttons act in the entity's own frame (true) or its parent's (false).
    pub rotate_in_local_space: bool,
    /// The quaternion as typed, while a rotation field is being edited (not yet normalized).
    quat_draft: Option<(Entity, [f32; 4])>,
    /// Why the last input was refused.
    pub error: Option<String>,
    /// The selection `error` was about: another selection does not show it.
    error_subject: Vec<Entity>,
    /// (replica version, cycles, re-rooted entities) for the scene summary: counting scans
    /// every node, so it is redone only when the replica changed.
    scene_counts: Option<(crate::crdt::ReplicaVersion, usize, usize)>,
    /// The name as typed in the Name field, until it is committed.
    pub(super) name_draft: Option<(Entity, String)>,
    /// A Material colour drag is coalescing edits until its picker closes.
    pub(super) colour_gesture_open: bool,
}

/// Which Transform field an edit touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Field {
    Position(usize),
    Rotation(usize),
    Scale(usize),
}

impl InspectorPanel {
    /// Shows why an input was refused, for as long as the same entities stay selected.
    fn refuse(&mut self, doc: &Document, why: String) {
        self.error = Some(why);
        self.error_subject = doc.selection.entities().to_vec();
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
        if self.error.is_some() && doc.selection.entities() != self.error_subject.as_slice() {
            self.error = None;
        }
        let Some(entity) = doc.selection.primary() else {
            let generation = doc.replica().version();
            let counts = match self.scene_counts {
                Some((g, cycles, rerooted)) if g == generation => (cycles, rerooted),
                _ => {
                    let counts = (doc.view().cycles().len(), doc.view().rerooted().len());
                    self.scene_counts = Some((generation, counts.0, counts.1));
                    counts
                }
            };
            scene_summary_ui(ui, doc, counts);
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
                if let Some(err) = &self.error {
                    ui.colored_label(style::ERROR, format!("△ {err}"));
                }
                egui::CollapsingHeader::new(
                    RichText::new("Transform (local, parent space)").strong(),
                )
                .default_open(true)
                .show(ui, |ui| self.transform_ui(ui, doc, entity, &mut actions));
                egui::CollapsingHeader::new(RichText::new("Parent").strong())
                    .default_open(true)
                    .show(ui, |ui| parents_ui(ui, doc, entity));
                egui::CollapsingHeader::new(RichText::new("World (read-only)").strong())
                    .default_open(true)
                    .show(ui, |ui| self.world_ui(ui, doc, entity));
                if let Some(model) = model {
                    egui::CollapsingHeader::new(RichText::new("Model (glTF)").strong())
                        .default_open(true)
                        .show(ui, |ui| super::inspector_model::model_ui(ui, doc, model));
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
        ui.horizontal(|ui| {
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

    fn transform_ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        entity: Entity,
        actions: &mut Vec<Action>,
    ) {
        let has_transform = doc.replica().transform(entity).is_some();
        let t = doc.local_transform(entity);
        if !has_transform {
            ui.label(
                RichText::new("No Transform: drawn as the identity at the root. Editing adds one.")
                    .weak(),
            );
        }
        egui::Grid::new("trs")
            .num_columns(5)
            .spacing([6.0, 4.0])
            .show(ui, |ui| {
                ui.label("Position (m)");
                for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
                    let mut v = t.position[i];
                    self.number(ui, doc, axis, &mut v, 0.01, Field::Position(i), actions);
                }
                ui.end_row();

                ui.label("Rotation (quat)");
                let draft = self
                    .quat_draft
                    .filter(|(e, _)| *e == entity)
                    .map(|(_, q)| q);
                let shown = draft.unwrap_or(t.rotation.to_array());
                for (i, axis) in ["x", "y", "z", "w"].into_iter().enumerate() {
                    let mut v = shown[i];
                    self.number(ui, doc, axis, &mut v, 0.005, Field::Rotation(i), actions);
                }
                ui.end_row();

                ui.label("Scale");
                for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
                    let mut v = t.scale[i];
                    self.number(ui, doc, axis, &mut v, 0.01, Field::Scale(i), actions);
                }
                ui.end_row();
            });
        ui.horizontal(|ui| {
            ui.label("Euler (read-only)");
            egui::ComboBox::from_id_salt("euler-order")
                .selected_text(self.euler_order.label())
                .show_ui(ui, |ui| {
                    for order in EulerOrder::ALL {
                        ui.selectable_value(&mut self.euler_order, order, order.label());
                    }
                })
                .response
                .on_hover_text("Intrinsic rotations in this order. Unity and Godot show YXZ.");
        });
        ui.horizontal(|ui| {
            let angles = self.euler_order.to_degrees(t.rotation);
            for (label, value) in self.euler_order.axis_labels().iter().zip(angles.to_array()) {
                ui.label(format!("{label} {:.2}°", value + 0.0)); // + 0.0 shows -0 as 0
            }
        });
        ui.horizontal(|ui| {
            ui.label("Rotate 90° in");
            ui.selectable_value(&mut self.rotate_in_local_space, false, "parent space");
            ui.selectable_value(&mut self.rotate_in_local_space, true, "local space");
        });
        ui.horizontal_wrapped(|ui| {
            for (axis_name, axis) in [("X", Vec3::X), ("Y", Vec3::Y), ("Z", Vec3::Z)] {
                for sign in [-1.0f32, 1.0] {
                    let text = format!("{}{axis_name}", if sign < 0.0 { "−" } else { "+" });
                    if ui.small_button(text).clicked() {
                        let turn = Quat::from_axis_angle(axis, sign * std::f32::consts::FRAC_PI_2);
                        let local = self.rotate_in_local_space;
                        actions.push(Action::Edit(Command::SetTransforms(edit_all(doc, |t| {
                            // Parent space: turn the whole frame (pre-multiply); local space:
                            // turn about the object's own axes (post-multiply). Seed 004.
                            let turned = if local {
                                t.rotation * turn
                            } else {
                                turn * t.rotation
                            };
                            t.rotation = turned.normalize();
                        }))));
                    }
                }
            }
        });
        ui.horizontal(|ui| {
            if ui
                .button("Reset")
                .on_hover_text("Identity position, rotation and scale; the parent stays")
                .clicked()
            {
                actions.push(Action::Edit(Command::SetTransforms(edit_all(doc, |t| {
                    *t = Transform::identity_under(t.parent);
                }))));
            }
            if ui.button("Normalize rotation").clicked() {
                actions.push(Action::Edit(Command::SetTransforms(edit_all(doc, |t| {
                    t.rotation = t.rotation.normalize()
                }))));
            }
            if ui
                .button("Copy")
                .on_hover_text(UiCommand::CopyTransform.hint())
                .clicked()
            {
                actions.push(Action::CopyTransform);
            }
            if ui
                .button("Paste")
                .on_hover_text(UiCommand::PasteTransform.hint())
                .clicked()
            {
                actions.push(Action::PasteTransform);
            }
        });
        let ts = doc.replica().timestamp(entity, ids::TRANSFORM);
        ui.label(
            RichText::new(format!("Lamport timestamp of the Transform: {ts}"))
                .weak()
                .small(),
        );
    }

    /// One number field. Typing something that is not a finite number is refused with a message.
    #[allow(clippy::too_many_arguments)]
    fn number(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        label: &str,
        value: &mut f32,
        speed: f64,
        field: Field,
        actions: &mut Vec<Action>,
    ) {
        let refused: RefCell<Option<String>> = RefCell::new(None);
        let response = ui
            .add(
                egui::DragValue::new(value)
                    .speed(speed)
                    .prefix(format!("{label} "))
                    .max_decimals(6)
                    .custom_parser(|text| {
                        let parsed = text.trim().parse::<f64>().ok().filter(|v| v.is_finite());
                        if parsed.is_none() {
                            *refused.borrow_mut() = Some(if text.trim().is_empty() {
                                format!(
                                    "{label}: an empty field is not a number; the value was kept"
                                )
                            } else {
                                format!(
                                    "{label}: \"{}\" is not a finite number; the value was kept",
                                    text.trim()
                                )
                            });
                        }
                        parsed
                    }),
            )
            .on_hover_text("Drag or type; Enter commits");
        if let Some(why) = refused.into_inner() {
            self.refuse(doc, why);
        }
        let key = egui::Id::new(("inspector", field)).value();
        if response.changed() {
            let new = *value;
            match field {
                Field::Rotation(i) => {
                    let entity = doc
                        .selection
                        .primary()
                        .expect("the inspector has a subject");
                    let mut draft = match self.quat_draft {
                        Some((e, q)) if e == entity => q,
                        _ => doc.local_transform(entity).rotation.to_array(),
                    };
                    draft[i] = new;
                    self.quat_draft = Some((entity, draft));
                    let q = Quat::from_array(draft);
                    if q.length_squared() < 1e-12 {
                        self.refuse(
                            doc,
                            "a zero-length quaternion has no direction; the rotation was kept"
                                .into(),
                        );
                    } else {
                        self.error = None;
                        let q = q.normalize();
                        actions.push(Action::EditCoalesced(
                            Command::SetTransforms(edit_all(doc, |t| t.rotation = q)),
                            key,
                        ));
                    }
                }
                Field::Position(i) => {
                    self.error = None;
                    actions.push(Action::EditCoalesced(
                        Command::SetTransforms(edit_all(doc, |t| t.position[i] = new)),
                        key,
                    ));
                }
                Field::Scale(i) => {
                    self.error = None;
                    actions.push(Action::EditCoalesced(
                        Command::SetTransforms(edit_all(doc, |t| t.scale[i] = new)),
                        key,
                    ));
                }
            }
        }
        if response.drag_stopped() || response.lost_focus() {
            // The gesture is over: one undo step, and the typed quaternion is shown normalized.
            self.quat_draft = None;
            actions.push(Action::EndGesture);
        }
    }

    fn world_ui(&self, ui: &mut egui::Ui, doc: &Document, entity: Entity) {
        let Some(world) = doc.view().world_affine(entity) else {
            return;
        };
        let (scale, rotation, position) = world.to_scale_rotation_translation();
        egui::Grid::new("world").num_columns(2).show(ui, |ui| {
            ui.label("Position (m)");
            ui.label(format!(
                "{:.4}  {:.4}  {:.4}",
                position.x, position.y, position.z
            ));
            ui.end_row();
            ui.label("Rotation (quat)");
            ui.label(format!(
                "{:.4}  {:.4}  {:.4}  {:.4}",
                rotation.x, rotation.y, rotation.z, rotation.w
            ));
            ui.end_row();
            ui.label(format!("Euler {}", self.euler_order.label()));
            let e = self.euler_order.to_degrees(rotation);
            ui.label(format!(
                "{:.2}°  {:.2}°  {:.2}°",
                e.x + 0.0,
                e.y + 0.0,
                e.z + 0.0
            ));
            ui.end_row();
            ui.label("Scale");
            ui.label(format!("{:.4}  {:.4}  {:.4}", scale.x, scale.y, scale.z));
            ui.end_row();
        });
    }
}

/// With nothing selected: what the open scene is, and what loading it noticed.
fn scene_summary_ui(ui: &mut egui::Ui, doc: &Document, (cycles, rerooted): (usize, usize)) {
    ui.heading("Scene");
    super::inspector_model::project_ui(ui, doc);
    match &doc.file {
        Some(file) => {
            ui.label(file.path.display().to_string());
            ui.label(RichText::new(file.format.label()).weak());
        }
        None => {
            ui.label("Not saved yet");
        }
    }
    ui.label(format!(
        "{} entities · {cycles} parenting cycle(s) · {rerooted} re-rooted",
        doc.replica().live_entity_count(),
    ));
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
        ui.label("Declared");
        ui.label(format!("{}  ({declared})", doc.display_name(declared)));
        ui.end_row();
        ui.label("Effective");
        ui.label(format!("{}  ({effective})", doc.display_name(effective)));
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
