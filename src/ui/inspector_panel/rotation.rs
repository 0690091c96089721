//! Rotation entry in the inspector, as Godot and Unity users expect it:
//!
//! - an **Euler row**: the angles about X, Y and Z (degrees, one column per axis), applied in
//!   the chosen order; dragging or typing one angle writes the quaternion the three give. The
//!   angles shown are the ones last entered while the rotation is still the one they made (an
//!   [`EulerHint`], as Unity keeps one), else the canonical read-out of the stored quaternion,
//!   so a drag through gimbal lock does not jump and Y = 180 typed under XYZ stays Y = 180;
//! - the **quaternion as a whole**: its four fields are a draft ([`QuatDraft`]) until Enter, the
//!   Apply button, or the keyboard focus leaving the four fields commits them together,
//!   normalized; Escape drops the draft. One field at a time could never reach a turn whose
//!   components all change (typing y = 0.7071 then w = 0.7071 gave 78.46°).
//!
//! Every commit, and every drag, is one undo step.

use egui::{Key, RichText};
use glam::{Quat, Vec3};

use super::numbers::{Cells, differs, not_a_number, parse_number};
use super::{Field, InspectorPanel};
use scenetree_core::model::present::{Quantity, fixed};
use scenetree_core::model::{Entity, EulerOrder, Transform, shown_quat};
use scenetree_editor::{Command, Document};

/// The quaternion's fields as typed and not yet committed.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct QuatDraft {
    /// The entities the draft was typed for (the selection then): a commit writes these.
    targets: Vec<Entity>,
    /// The entity whose values the fields showed (the primary selection then).
    subject: Entity,
    /// x, y, z, w as typed; `None` where the field was not touched (it commits the stored
    /// value exactly, not its rounded text).
    texts: [Option<String>; 4],
}

/// The Euler angles last entered for an entity, shown instead of the read-out while its
/// rotation is still the one they made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct EulerHint {
    entity: Entity,
    order: EulerOrder,
    /// Degrees about X, Y, Z.
    by_axis: Vec3,
    /// The rotation `by_axis` made.
    rotation: Quat,
}

/// What the Euler read-out means, for its hover text.
pub(super) const EULER_NOTE: &str = "Euler angles in degrees about X, Y and Z, applied in the \
order chosen beside them (intrinsic: each turn about the axes the previous turns left; Unity \
and Godot use YXZ). The Transform stores a quaternion; these angles are read from it. Every \
rotation has more than one set of angles, so the read-out shows one canonical set: the middle \
angle of the order within −90°…90°, the others within −180°…180°. Near gimbal lock (middle \
angle ±90°) the first and last angles turn about the same line and only their combination \
counts: the read-out then puts the whole turn into the first angle, so it may differ from \
angles you typed earlier (those are shown as long as the rotation is the one they made).";

/// The axis names of the quaternion's fields.
const QUATERNION_AXES: [&str; 4] = ["x", "y", "z", "w"];

fn same_turn(a: Quat, b: Quat) -> bool {
    a.dot(b).abs() > 1.0 - 1e-7
}

impl InspectorPanel {
    /// The Euler angles (degrees about X, Y, Z) the Euler row shows for `entity`.
    pub(super) fn shown_euler(&self, entity: Entity, rotation: Quat) -> Vec3 {
        match self.euler_hint {
            Some(h)
                if h.entity == entity
                    && h.order == self.euler_order
                    && same_turn(h.rotation, rotation) =>
            {
                h.by_axis
            }
            _ => self.euler_order.to_xyz_degrees(rotation),
        }
    }

    /// The Euler row's three cells (X, Y, Z); an edit rotates every selected entity.
    pub(super) fn euler_cells(
        &mut self,
        ui: &mut egui::Ui,
        cells: &Cells,
        doc: &Document,
        entity: Entity,
        actions: &mut Vec<super::Action>,
    ) {
        let rotation = doc.local_transform(entity).rotation;
        let shown = self.shown_euler(entity, rotation);
        for (i, axis) in ["X", "Y", "Z"].into_iter().enumerate() {
            let mut v = shown[i];
            let name = format!("Local Euler {axis}");
            let order = self.euler_order;
            let mixed = differs(doc, Quantity::Degrees, v, |t| {
                order.to_xyz_degrees(t.rotation)[i]
            });
            let edit = self.number_cell(
                ui,
                cells,
                doc,
                &name,
                Quantity::Degrees,
                &mut v,
                Field::Euler(i),
                mixed,
            );
            let order = self.euler_order;
            let hint = &mut self.euler_hint;
            edit.push(actions, || {
                let items = doc
                    .selection
                    .entities()
                    .iter()
                    .map(|&e| {
                        let mut t = doc.local_transform(e);
                        let mut angles = if e == entity {
                            shown
                        } else {
                            order.to_xyz_degrees(t.rotation)
                        };
                        angles[i] = v;
                        // A rotation with no angles (zero-length) starts from none.
                        for a in angles.as_mut() {
                            if !a.is_finite() {
                                *a = 0.0;
                            }
                        }
                        t.rotation = order.from_xyz_degrees(angles);
                        if e == entity {
                            *hint = Some(EulerHint {
                                entity,
                                order,
                                by_axis: angles,
                                rotation: t.rotation,
                            });
                        }
                        (e, t)
                    })
                    .collect();
                Command::SetTransforms(items)
            });
        }
    }

    /// The quaternion's four cells; they commit together (see the module docs).
    pub(super) fn quaternion_cells(
        &mut self,
        ui: &mut egui::Ui,
        cells: &Cells,
        doc: &Document,
        entity: Entity,
        actions: &mut Vec<super::Action>,
    ) {
        if self
            .quat_draft
            .as_ref()
            .is_some_and(|d| d.subject != entity)
        {
            // The fields now show another entity, so the draft's fields lost the focus.
            self.commit_quaternion(doc, actions);
        }
        let current = shown_quat(doc.local_transform(entity).rotation).to_array();
        let ids = QUATERNION_AXES.map(|axis| egui::Id::new(("inspector-quaternion", axis)));
        // Several selected with different rotations: "—" until a value is typed (the four
        // commit together, so the rotation typed is set on all).
        let mixed: [bool; 4] = std::array::from_fn(|i| {
            differs(doc, Quantity::QuaternionComponent, current[i], |t| {
                shown_quat(t.rotation).to_array()[i]
            })
        });
        let mut enter = false;
        for (i, axis) in QUATERNION_AXES.into_iter().enumerate() {
            let typed = self.quat_draft.as_ref().and_then(|d| d.texts[i].clone());
            let pending = typed.is_some();
            let mut text = typed.unwrap_or_else(|| {
                if mixed[i] {
                    super::numbers::MIXED.to_string()
                } else {
                    fixed(f64::from(current[i]), Quantity::QuaternionComponent)
                }
            });
            let name = format!("Local rotation {axis}");
            let response = ui
                .scope(|ui| {
                    if pending {
                        // A typed, uncommitted value looks different from a stored one.
                        ui.visuals_mut().override_text_color = Some(super::style::WARNING);
                    }
                    cells.text_field(ui, &mut text, ids[i], &name)
                })
                .inner
                .on_hover_text(
                    "The quaternion commits as a whole: Enter, Apply, or leaving its four \
                     fields writes all four, normalized; Escape reverts.",
                );
            if response.changed() {
                let draft = self.quat_draft.get_or_insert_with(|| QuatDraft {
                    targets: doc.selection.entities().to_vec(),
                    subject: entity,
                    texts: Default::default(),
                });
                draft.texts[i] = Some(text);
            }
            if response.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                enter = true;
            }
        }
        if self.quat_draft.is_none() {
            return;
        }
        let focused = ui.memory(|m| m.focused());
        let in_group = focused.is_some_and(|f| ids.contains(&f));
        if !in_group && ui.input(|i| i.key_pressed(Key::Escape)) {
            self.quat_draft = None;
        } else if enter || !in_group {
            self.commit_quaternion(doc, actions);
        }
    }

    /// The row under the quaternion while a draft is pending: Apply, and what else commits.
    pub(super) fn quaternion_draft_ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        actions: &mut Vec<super::Action>,
    ) {
        if self.quat_draft.is_none() {
            return;
        }
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("Apply rotation")
                .on_hover_text("Writes the four typed components together, normalized")
                .clicked()
            {
                self.commit_quaternion(doc, actions);
            }
            ui.label(
                RichText::new("not applied yet · Enter applies (normalized) · Esc reverts")
                    .color(super::style::WARNING)
                    .small(),
            );
        });
    }

    /// Writes the draft's quaternion, normalized, to the entities it was typed for, as one
    /// undo step; a field that is not a number or a zero-length result is refused and nothing
    /// is written. The draft is gone either way.
    pub(super) fn commit_quaternion(&mut self, doc: &Document, actions: &mut Vec<super::Action>) {
        let Some(draft) = self.quat_draft.take() else {
            return;
        };
        if !doc.view().contains(draft.subject) {
            return;
        }
        let current = shown_quat(doc.local_transform(draft.subject).rotation).to_array();
        let mut components = current;
        for (i, typed) in draft.texts.iter().enumerate() {
            let Some(text) = typed else { continue };
            match parse_number(text.trim().trim_start_matches(super::numbers::MIXED)) {
                Some(v) => components[i] = v as f32,
                None => {
                    let name = format!("Local rotation {}", QUATERNION_AXES[i]);
                    self.refuse(doc, not_a_number(&name, text, "rotation"));
                    return;
                }
            }
        }
        if components == current {
            return; // Typed back what was there: nothing to write, no undo step.
        }
        let q = Quat::from_array(components);
        if q.length_squared() < 1e-12 {
            self.refuse(
                doc,
                "a zero-length quaternion has no direction; the rotation was kept".into(),
            );
            return;
        }
        self.error = None;
        let q = q.normalize();
        let items: Vec<(Entity, Transform)> = draft
            .targets
            .iter()
            .filter(|&&e| doc.view().contains(e))
            .map(|&e| {
                let mut t = doc.local_transform(e);
                t.rotation = q;
                (e, t)
            })
            .collect();
        actions.push(super::Action::Edit(Command::SetTransforms(items)));
    }
}
