//! The Transform sections: the local values (position, the quaternion, the Euler row with its
//! order, scale; the ±90° turns, reset, copy and paste) and the world values, in two grids that
//! share their column widths so the numbers line up.

use egui::RichText;
use glam::{Quat, Vec3};

use super::numbers::{Cells, GRID_SPACING, differs};
use super::rotation::EULER_NOTE;
use super::{Action, Field, InspectorPanel, edit_all};
use crate::ui::command::UiCommand;
use scenetree_core::model::present::Quantity;
use scenetree_core::model::{Entity, EulerOrder, Transform, decompose, ids, shown_quat};
use scenetree_editor::{Command, Document};

/// What one editable number cell did this frame.
#[must_use]
pub(super) struct NumberEdit {
    /// The value changed: the coalescing key of its gesture.
    changed: Option<u64>,
    /// The drag or the typing ended: the gesture's undo step closes.
    ended: bool,
}

impl NumberEdit {
    /// Pushes the edit `command` makes (merged with the rest of its gesture into one undo
    /// step) if the value changed, then the end of the gesture if it ended.
    pub(super) fn push(self, actions: &mut Vec<Action>, command: impl FnOnce() -> Command) {
        if let Some(key) = self.changed {
            actions.push(Action::EditCoalesced(command(), key));
        }
        if self.ended {
            actions.push(Action::EndGesture);
        }
    }
}

/// One row of three numbers of the local grid.
struct VectorRow {
    label: &'static str,
    /// The label's hover text.
    full: &'static str,
    /// The cells' accessible names start with this ("Local position").
    name: &'static str,
    quantity: Quantity,
    field: fn(usize) -> Field,
    vector: fn(&Transform) -> Vec3,
    vector_mut: fn(&mut Transform) -> &mut Vec3,
}

/// Why a world rotation can be undefined (the hover text of its dashes).
const FLAT_WORLD: &str = "No world rotation: a zero scale on this entity or an ancestor flattens \
                          its world matrix onto a plane, a line or a point";

const POSITION_ROW: VectorRow = VectorRow {
    label: "Position m",
    full: "Local position: meters, in the parent's space",
    name: "Local position",
    quantity: Quantity::Meters,
    field: Field::Position,
    vector: |t| t.position,
    vector_mut: |t| &mut t.position,
};

const SCALE_ROW: VectorRow = VectorRow {
    label: "Scale",
    full: "Local scale: factors along the entity's own axes",
    name: "Local scale",
    quantity: Quantity::Scale,
    field: Field::Scale,
    vector: |t| t.scale,
    vector_mut: |t| &mut t.scale,
};

impl InspectorPanel {
    /// One editable number of the Transform grid (`name` is its accessible label; `mixed`:
    /// the selected entities differ there, shown "—"). Typing something that is not a finite
    /// number is refused with a message.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn number_cell(
        &mut self,
        ui: &mut egui::Ui,
        cells: &Cells,
        doc: &Document,
        name: &str,
        quantity: Quantity,
        value: &mut f32,
        field: Field,
        mixed: bool,
    ) -> NumberEdit {
        let speed = match quantity {
            Quantity::Meters | Quantity::Scale => 0.01,
            Quantity::Degrees => 0.5,
            Quantity::QuaternionComponent => 0.005,
        };
        let refused = std::cell::RefCell::new(None);
        // Each field keeps its identity (and the text being typed in it) whatever is drawn
        // above it, such as a refusal's message appearing or going.
        let response = ui
            .push_id(("inspector-number", field), |ui| {
                cells.drag_number(ui, value, quantity, speed, name, &refused, mixed)
            })
            .inner;
        if let Some(why) = refused.into_inner() {
            self.refuse(doc, why);
        }
        // A refusal stays until the scene or the selection changes: a keystroke in another
        // field is not a reason to drop it (and its line going would move every field).
        let changed = response.changed();
        NumberEdit {
            changed: changed.then(|| egui::Id::new(("inspector", field)).value()),
            ended: response.drag_stopped() || response.lost_focus(),
        }
    }

    /// A row of three editable numbers (position or scale); an edit sets that component on
    /// every selected entity.
    fn vector_row(
        &mut self,
        ui: &mut egui::Ui,
        cells: &Cells,
        doc: &Document,
        actions: &mut Vec<Action>,
        t: &Transform,
        row: VectorRow,
    ) {
        cells.row_label(ui, row.label, row.full);
        for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
            let mut v = (row.vector)(t)[i];
            let name = format!("{} {axis}", row.name);
            // Different values (as shown) among the selected: "—"; an edit sets this axis on
            // all of them and leaves their other axes alone.
            let mixed = differs(doc, row.quantity, v, |t| (row.vector)(t)[i]);
            let field = (row.field)(i);
            self.number_cell(ui, cells, doc, &name, row.quantity, &mut v, field, mixed)
                .push(actions, || {
                    Command::SetTransforms(edit_all(doc, |t| (row.vector_mut)(t)[i] = v))
                });
        }
        ui.end_row();
    }

    pub(super) fn transform_ui(
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
        let cells = Cells::new(ui);
        egui::Grid::new("trs")
            .num_columns(5)
            .spacing(GRID_SPACING)
            .show(ui, |ui| {
                cells.header(ui, "Local", &["x", "y", "z", "w"]);
                self.vector_row(ui, &cells, doc, actions, &t, POSITION_ROW);

                cells.row_label(
                    ui,
                    "Rotation",
                    "Local rotation: the stored unit quaternion (x, y, z, w), relative to the \
                     parent. The four fields commit together, normalized.",
                );
                self.quaternion_cells(ui, &cells, doc, entity, actions);
                ui.end_row();

                cells.row_label(ui, "Euler °", EULER_NOTE);
                self.euler_cells(ui, &cells, doc, entity, actions);
                egui::ComboBox::from_id_salt("euler-order")
                    // The width given is inside the button's padding.
                    .width(cells.width - 2.0 * ui.spacing().button_padding.x)
                    .selected_text(self.euler_order.label())
                    .show_ui(ui, |ui| {
                        for order in EulerOrder::ALL {
                            ui.selectable_value(&mut self.euler_order, order, order.label());
                        }
                    })
                    .response
                    .on_hover_text(
                        "The order the Euler angles apply in (intrinsic). Unity and Godot use YXZ.",
                    );
                ui.end_row();

                self.vector_row(ui, &cells, doc, actions, &t, SCALE_ROW);
            });
        self.quaternion_draft_ui(ui, doc, actions);
        self.turn_buttons_ui(ui, doc, actions);
        ui.horizontal(|ui| {
            // Greyed out when they would change nothing (a command that changes nothing is
            // not offered).
            let reset = edit_all(doc, |t| *t = Transform::identity_under(t.parent));
            let changes = |edits: &[(Entity, Transform)]| {
                (edits.iter()).any(|(e, t)| doc.replica().transform(*e).as_ref() != Some(t))
            };
            if ui
                .add_enabled(changes(&reset), egui::Button::new("Reset"))
                .on_hover_text("Identity position, rotation and scale; the parent stays")
                .clicked()
            {
                actions.push(Action::Edit(Command::SetTransforms(reset)));
            }
            let normalized = edit_all(doc, |t| t.rotation = unit_rotation(t.rotation));
            if ui
                .add_enabled(
                    changes(&normalized),
                    egui::Button::new("Normalize rotation"),
                )
                .on_hover_text(
                    "Scales the rotation to unit length. Offered when it is off by more than \
                     rounding; a zero or non-finite one has no direction to keep (Reset it)",
                )
                .on_disabled_hover_text(
                    "The rotation is of unit length (or zero or non-finite: Reset it)",
                )
                .clicked()
            {
                actions.push(Action::Edit(Command::SetTransforms(normalized)));
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

    /// ±90° about X, Y or Z, in the parent's space or the entity's own.
    fn turn_buttons_ui(&mut self, ui: &mut egui::Ui, doc: &Document, actions: &mut Vec<Action>) {
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
    }

    /// The world values (read-only), aligned with the local grid's columns.
    pub(super) fn world_ui(&self, ui: &mut egui::Ui, doc: &Document, entity: Entity) {
        let Some(world) = doc.view().world_affine(entity) else {
            return;
        };
        if let Some(source) = doc.view().non_finite_source_of(entity) {
            let whose = if source == entity {
                "its own Transform".to_owned()
            } else {
                format!("the Transform of {}", doc.display_name(source))
            };
            let why = (doc.replica().transform(source))
                .and_then(|t| t.problem())
                .map_or_else(
                    || "gives no finite matrix".to_owned(),
                    |p| scenetree_core::model::present::transform_problem(&p),
                );
            ui.colored_label(
                crate::ui::style::ERROR,
                format!("△ Not drawn: {whose} {why}"),
            );
        }
        let world = decompose(&world);
        let (scale, position) = (world.scale, world.translation);
        let cells = Cells::new(ui);
        let undefined = |ui: &mut egui::Ui, name: &str, axes: &[&str]| {
            for axis in axes {
                cells.undefined(ui, &format!("{name} {axis}"), FLAT_WORLD);
            }
        };
        let row =
            |ui: &mut egui::Ui, label: &str, full: &str, name: &str, quantity, values: &[f32]| {
                cells.row_label(ui, label, full);
                for (value, axis) in values.iter().zip(["x", "y", "z", "w"]) {
                    cells.readout(ui, f64::from(*value), quantity, &format!("{name} {axis}"));
                }
            };
        egui::Grid::new("world")
            .num_columns(5)
            .spacing(GRID_SPACING)
            .show(ui, |ui| {
                cells.header(ui, "World", &["x", "y", "z", "w"]);
                row(
                    ui,
                    "Position m",
                    "World position: meters, in the scene's space",
                    "World position",
                    Quantity::Meters,
                    &position.to_array(),
                );
                ui.end_row();
                match world.rotation {
                    Some(rotation) => row(
                        ui,
                        "Rotation",
                        "World rotation: unit quaternion (x, y, z, w) in the scene's space",
                        "World rotation",
                        Quantity::QuaternionComponent,
                        &shown_quat(rotation).to_array(),
                    ),
                    None => {
                        cells.row_label(ui, "Rotation", FLAT_WORLD);
                        undefined(ui, "World rotation", &["x", "y", "z", "w"]);
                    }
                }
                ui.end_row();
                let order = self.euler_order;
                cells.row_label(
                    ui,
                    "Euler °",
                    &format!("World Euler angles, {}. {EULER_NOTE}", order.label()),
                );
                match world.rotation {
                    Some(rotation) => {
                        let angles = order.to_xyz_degrees(rotation);
                        for (i, axis) in ["X", "Y", "Z"].into_iter().enumerate() {
                            cells.readout(
                                ui,
                                f64::from(angles[i]),
                                Quantity::Degrees,
                                &format!("World Euler {axis}"),
                            );
                        }
                    }
                    None => undefined(ui, "World Euler", &["X", "Y", "Z"]),
                }
                ui.label(RichText::new(order.label()).weak())
                    .on_hover_text("The order chosen for the local Euler row");
                ui.end_row();
                row(
                    ui,
                    "Scale",
                    "World scale: factors along the entity's own axes (a sheared world matrix \
                     has no exact scale; this is its nearest)",
                    "World scale",
                    Quantity::Scale,
                    &scale.to_array(),
                );
                ui.end_row();
            });
    }
}

/// `rotation` scaled to unit length when it is off by more than rounding (glam's tolerance), so
/// that a rotation typed or read as (0, 0.7071, 0, 0.7071) is left alone instead of offering an
/// edit of its last bit; a zero or non-finite one is left alone too (it has no direction).
fn unit_rotation(rotation: Quat) -> Quat {
    if rotation.is_normalized() {
        return rotation;
    }
    glam::Vec4::from(rotation)
        .try_normalize()
        .map_or(rotation, Quat::from_vec4)
}

#[cfg(test)]
mod tests {
    use super::unit_rotation;
    use glam::Quat;

    #[test]
    fn only_a_rotation_off_unit_length_beyond_rounding_with_a_direction_is_scaled() {
        let quarter = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        assert_eq!(unit_rotation(quarter), quarter, "1 - 6e-8 long: left alone");
        let long = Quat::from_xyzw(0.0, 2.0, 0.0, 2.0);
        assert!(unit_rotation(long).abs_diff_eq(quarter, 1e-6));
        for no_direction in [
            Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
        ] {
            let kept = unit_rotation(no_direction);
            assert_eq!(
                kept.to_array().map(f32::to_bits),
                no_direction.to_array().map(f32::to_bits)
            );
        }
    }
}
