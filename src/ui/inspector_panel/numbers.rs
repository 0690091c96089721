//! The inspector's number cells, so every number lines up: one monospace font, one cell width
//! (wide enough for `-12.345`, `-179.99`, `-0.7071`; four fit the inspector's default width
//! beside the row labels), the text of every value from `model::present::fixed` (fixed
//! decimals per quantity, no negative zero) padded to that width. Editable fields, read-outs and
//! column headers share [`Cells`], so a column of local values and the world values under it
//! line up on the decimal point.

use std::cell::RefCell;

use egui::{Align, Layout, Response, RichText, TextStyle, Vec2};

use scenetree_core::model::Transform;
use scenetree_core::model::present::{Quantity, fixed};
use scenetree_editor::Document;

/// What a cell shows when the selected entities hold different values there.
pub(super) const MIXED: &str = "—";

/// Characters a cell is sized for: `-12.345` m, `-179.99`°, `-0.7071` (a longer value widens
/// its own cell).
const CELL_CHARS: usize = 7;
/// Horizontal padding inside a cell, in points.
const CELL_PADDING: f32 = 3.0;
/// Width of the row-label column, in points (the local and world grids share it, so their
/// number columns line up).
pub(super) const LABEL_WIDTH: f32 = 62.0;
/// Size of the numbers' monospace font, in points (a little under egui's 12, so four columns
/// fit the inspector's default width).
const NUMBER_FONT_SIZE: f32 = 11.5;
/// The smallest the numbers' font gets in a narrow inspector, in points.
const MIN_NUMBER_FONT_SIZE: f32 = 8.5;
/// The spacing between grid cells (the local and world grids share it), in points.
pub(super) const GRID_SPACING: [f32; 2] = [4.0, 4.0];
/// Room kept free right of the last column, in points: the scroll bar floats over the panel's
/// right edge, and a column flush against it read as cut off.
const RIGHT_MARGIN: f32 = 10.0;
/// Number columns of a grid (x, y, z, w).
const COLUMNS: f32 = 4.0;

/// The text style of the numbers (registered on the `Ui` by [`Cells::new`]).
fn number_style() -> TextStyle {
    TextStyle::Name("inspector-number".into())
}

/// The geometry of number cells for the current style.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cells {
    /// Outer width of one cell, in points.
    pub width: f32,
    /// Height of one cell (the style's interact height), in points.
    pub height: f32,
}

impl Cells {
    /// Registers the numbers' text style on `ui` and measures its digit width. In an inspector
    /// too narrow for the label and four columns at the usual size, the font shrinks (down to
    /// [`MIN_NUMBER_FONT_SIZE`]) so the fourth column is not cut off; the local and world grids
    /// get the same width, so they still line up.
    pub fn new(ui: &mut egui::Ui) -> Self {
        let nominal = egui::FontId::monospace(NUMBER_FONT_SIZE);
        let nominal_digit = ui.fonts_mut(|f| f.glyph_width(&nominal, '0'));
        let budget =
            (ui.available_width() - LABEL_WIDTH - RIGHT_MARGIN) / COLUMNS - GRID_SPACING[0];
        let fitting = (budget - 2.0 * CELL_PADDING) / (CELL_CHARS as f32 * nominal_digit);
        let size = (NUMBER_FONT_SIZE * fitting.min(1.0)).max(MIN_NUMBER_FONT_SIZE);
        let font = egui::FontId::monospace(size);
        ui.style_mut()
            .text_styles
            .insert(number_style(), font.clone());
        let digit = ui.fonts_mut(|f| f.glyph_width(&font, '0'));
        Cells {
            width: digit * CELL_CHARS as f32 + 2.0 * CELL_PADDING,
            height: ui.spacing().interact_size.y,
        }
    }

    /// `value` as the inspector prints it: fixed decimals, right-aligned in the cell's width.
    pub fn text(value: f64, quantity: Quantity) -> String {
        format!("{:>CELL_CHARS$}", fixed(value, quantity))
    }

    /// A row label in the label column; `full` is its hover text (what, in which space, unit).
    pub fn row_label(&self, ui: &mut egui::Ui, text: &str, full: &str) -> Response {
        ui.allocate_ui_with_layout(
            Vec2::new(LABEL_WIDTH, self.height),
            Layout::left_to_right(Align::Center),
            |ui| {
                ui.set_min_width(LABEL_WIDTH);
                ui.label(text).on_hover_text(full)
            },
        )
        .inner
    }

    /// The header row of a grid: `title` over the labels, then the axis letters over the
    /// columns.
    pub fn header(&self, ui: &mut egui::Ui, title: &str, axes: &[&str]) {
        self.row_label(ui, title, title);
        for axis in axes {
            ui.add_sized(
                [self.width, self.height],
                egui::Label::new(RichText::new(*axis).weak().text_style(number_style())),
            );
        }
        ui.end_row();
    }

    /// A read-only number, aligned like the editable ones; `name` is its accessible label.
    pub fn readout(&self, ui: &mut egui::Ui, value: f64, quantity: Quantity, name: &str) {
        let text = Self::text(value, quantity);
        let response = ui.add_sized(
            [self.width, self.height],
            egui::Label::new(RichText::new(&text).text_style(number_style())),
        );
        describe(ui, &response, name, text.trim());
    }

    /// A read-only cell for a value that does not exist (a rotation of a flattened matrix): a
    /// dash, with `why` on hover.
    pub fn undefined(&self, ui: &mut egui::Ui, name: &str, why: &str) {
        let text = format!("{:>CELL_CHARS$}", "—");
        let response = ui
            .add_sized(
                [self.width, self.height],
                egui::Label::new(RichText::new(&text).text_style(number_style()).weak()),
            )
            .on_hover_text(why);
        describe(ui, &response, name, "—");
    }

    /// An editable number: drag to change it, or click and type (the value changes when Enter
    /// is pressed or the field loses focus). Typing something that is not a finite number
    /// leaves the value and sets `refused` to why. `name` is the accessible label ("Local
    /// position x") and the start of the refusal message. `mixed`: the selected entities hold
    /// different values here, shown as "—" (Godot's indeterminate field) until one is set.
    #[allow(clippy::too_many_arguments)]
    pub fn drag_number(
        &self,
        ui: &mut egui::Ui,
        value: &mut f32,
        quantity: Quantity,
        speed: f64,
        name: &str,
        refused: &RefCell<Option<String>>,
        mixed: bool,
    ) -> Response {
        let dash = format!("{:>CELL_CHARS$}", MIXED);
        let before = f64::from(*value);
        let shown = if mixed {
            dash.clone()
        } else {
            Self::text(before, quantity)
        };
        let response = ui
            .scope(|ui| {
                ui.style_mut().drag_value_text_style = number_style();
                ui.spacing_mut().interact_size.x = self.width;
                ui.spacing_mut().button_padding.x = CELL_PADDING;
                ui.add(
                    egui::DragValue::new(value)
                        .speed(speed)
                        .update_while_editing(false)
                        .custom_formatter(|v, _| {
                            if mixed && v == before {
                                dash.clone()
                            } else {
                                Self::text(v, quantity)
                            }
                        })
                        .custom_parser(|text| {
                            if mixed && text.trim() == MIXED {
                                return None; // left as it was: nothing typed
                            }
                            let parsed = parse_number(text);
                            if parsed.is_none() {
                                *refused.borrow_mut() = Some(not_a_number(name, text, "value"));
                            }
                            parsed
                        }),
                )
            })
            .inner
            .on_hover_text(format!("{name}: drag, or click and type; Enter commits"));
        describe(ui, &response, name, shown.trim());
        response
    }

    /// A text field sized and aligned like a number cell, for numbers that commit together
    /// (the quaternion). `name` is its accessible label.
    pub fn text_field(
        &self,
        ui: &mut egui::Ui,
        text: &mut String,
        id: egui::Id,
        name: &str,
    ) -> Response {
        let response = ui
            .scope(|ui| {
                // The same background as the draggable numbers: these are numbers too.
                ui.visuals_mut().text_edit_bg_color = Some(ui.visuals().widgets.inactive.bg_fill);
                ui.add(
                    egui::TextEdit::singleline(text)
                        .id(id)
                        .font(number_style())
                        .horizontal_align(Align::RIGHT)
                        .margin(Vec2::new(CELL_PADDING, ui.spacing().button_padding.y))
                        .desired_width(self.width),
                )
            })
            .inner;
        ui.ctx().accesskit_node_builder(response.id, |node| {
            node.set_label(name);
        });
        response
    }
}

/// Gives a cell an accessible label and its shown text as value (a screen reader, and the UI
/// tests, read what the user sees).
fn describe(ui: &egui::Ui, response: &Response, name: &str, shown: &str) {
    let typing = response.has_focus();
    ui.ctx().accesskit_node_builder(response.id, |node| {
        node.set_label(name);
        if !typing {
            // While typing, the text field's own value is what is shown.
            node.set_value(shown);
        }
    });
}

/// A typed number: surrounding spaces ignored, `−` (U+2212, as the inspector's buttons write
/// it) read as `-`; only finite values that fit an f32.
pub(super) fn parse_number(text: &str) -> Option<f64> {
    text.trim()
        .replace('−', "-")
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && v.abs() <= f64::from(f32::MAX))
}

/// Why `text`, typed into the field `name`, was refused; `kept` is what stays ("value",
/// "rotation").
pub(super) fn not_a_number(name: &str, text: &str, kept: &str) -> String {
    let typed = text.trim().replace('−', "-");
    if typed.is_empty() {
        format!("{name}: an empty field is not a number; the {kept} was kept")
    } else if typed.parse::<f64>().is_ok_and(f64::is_finite) {
        // A number, but beyond what the Transform's 32-bit floats hold.
        format!(
            "{name}: {} is too large for a Transform (its numbers are 32-bit floats, at most \
             about ±3.4e38); the {kept} was kept",
            text.trim()
        )
    } else {
        format!(
            "{name}: \"{}\" is not a finite number; the {kept} was kept",
            text.trim()
        )
    }
}

/// True when some selected entity's value (read by `value` from its local Transform) is shown
/// otherwise than `shown` (as `quantity` prints it): the field is mixed.
pub(super) fn differs(
    doc: &Document,
    quantity: Quantity,
    shown: f32,
    value: impl Fn(&Transform) -> f32,
) -> bool {
    let text = Cells::text(f64::from(shown), quantity);
    (doc.selection.entities().iter())
        .any(|&e| Cells::text(f64::from(value(&doc.local_transform(e))), quantity) != text)
}
