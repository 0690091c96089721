//! Fonts, and the colours every panel and the viewport use, shared by the app and the UI tests:
//! one meaning, one colour.

use std::sync::Arc;

use egui::Color32;

// ----- panels: status, badges, messages --------------------------------------------------------

/// Errors and refused actions (status bar, inspector, a refused drop).
pub const ERROR: Color32 = Color32::from_rgb(0xE0, 0x60, 0x50);
/// Warnings: something the user should look at (peers that disagree, a parenting cycle).
pub const WARNING: Color32 = Color32::from_rgb(0xE8, 0x9A, 0x3C);
/// Text about an entity re-rooted by a parenting cycle (the ⟲ badge, the inspector's note).
pub const CYCLE: Color32 = WARNING;
/// Text about an entity whose declared parent has no Transform (the △ badge).
pub const MISSING_PARENT: Color32 = Color32::from_rgb(0xD0, 0xB0, 0x40);
/// Where a dragged row would be inserted (the in-flight list, the hierarchy's drop line).
pub const DROP_MARKER: Color32 = WARNING;
/// Behind the part of a tree row's name that matches the search text.
pub const SEARCH_MATCH: Color32 = Color32::from_rgb(0xF2, 0xD0, 0x5A);
/// Success (peers converged, every delivery order ends alike).
pub const SUCCESS: Color32 = Color32::from_rgb(0x6C, 0xC0, 0x6C);
/// A message in flight that answers an outdated sender.
pub const REPLY_MESSAGE: Color32 = Color32::from_rgb(0x8C, 0xB4, 0xF0);
/// A message in flight that announces a deletion (DELETE_ENTITY's DELETE_COMPONENTs).
pub const ANNOUNCEMENT_MESSAGE: Color32 = Color32::from_rgb(0xC8, 0xA0, 0xE0);

// ----- viewport ---------------------------------------------------------------------------------

/// The viewport's clear colour.
pub const VIEWPORT_BACKGROUND: Color32 = Color32::from_rgb(40, 42, 46);
/// Entities, by a hash of their id: distinct hues that read well on the background.
pub const ENTITY_PALETTE: [Color32; 8] = [
    Color32::from_rgb(0x6F, 0xA8, 0xDC),
    Color32::from_rgb(0x93, 0xC4, 0x7D),
    Color32::from_rgb(0xC2, 0x8F, 0xD6),
    Color32::from_rgb(0x76, 0xC7, 0xC0),
    Color32::from_rgb(0xD9, 0x9A, 0x8C),
    Color32::from_rgb(0xA4, 0xB0, 0xE8),
    Color32::from_rgb(0xB8, 0xD0, 0x8A),
    Color32::from_rgb(0xE0, 0xA8, 0xC8),
];
/// An entity drawn at the root because it is on a parenting cycle (more saturated than
/// [`CYCLE`], so it reads under shading).
pub const CYCLE_TINT: Color32 = Color32::from_rgb(0xF0, 0x8C, 0x2E);
/// An entity whose declared parent has no Transform (brighter than [`MISSING_PARENT`]).
pub const MISSING_PARENT_TINT: Color32 = Color32::from_rgb(0xE6, 0xC8, 0x3A);
/// The selection outline, and the colour selected items are tinted towards.
pub const SELECTION: Color32 = Color32::from_rgb(255, 150, 20);
/// The outline of what lies below a selected entity (it moves with it), light blue as in
/// Unity's "Selection Outline - Child".
pub const SELECTION_CHILD: Color32 = Color32::from_rgb(110, 160, 255);
/// Axes X, Y, Z: red, green, blue as in most editors (gizmo handles, grid axes, orientation
/// widget).
pub const AXIS_COLORS: [Color32; 3] = [
    Color32::from_rgb(235, 64, 64),
    Color32::from_rgb(110, 205, 60),
    Color32::from_rgb(64, 120, 245),
];
/// The hovered or dragged gizmo handle.
pub const HANDLE_HIGHLIGHT: Color32 = Color32::from_rgb(255, 215, 40);
/// The gizmo's centre handle (free move, uniform scale).
pub const HANDLE_CENTER: Color32 = Color32::from_gray(235);
/// Grid lines on parcel borders (every 16 m).
pub const GRID_PARCEL_LINE: Color32 = Color32::from_rgb(153, 153, 158);
/// The other grid lines (every metre).
pub const GRID_MINOR_LINE: Color32 = Color32::from_rgb(115, 115, 120);
/// The disc behind the orientation widget's axes.
pub const AXES_BACKDROP: Color32 = Color32::from_black_alpha(70);

/// A colour a scene gives (a `core::Material` base colour: RGB 0–1, sRGB), as drawn (opaque);
/// channels outside 0–1 are clamped, a channel that is not a number is 0.
pub fn scene_color([r, g, b, _]: [f32; 4]) -> Color32 {
    let channel = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
    Color32::from_rgb(channel(r), channel(g), channel(b))
}

/// egui's default fonts plus DejaVu Sans as a fallback, so the arrows and symbols the panels
/// use (→ ▾ ✓ △ ⏴ ⏵) are drawn instead of empty boxes.
pub fn install_fonts(ctx: &egui::Context) {
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert(
        "dejavu-sans".to_owned(),
        Arc::new(egui::FontData::from_static(include_bytes!(
            "../../assets/fonts/DejaVuSans.ttf"
        ))),
    );
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        fonts
            .families
            .entry(family)
            .or_default()
            .push("dejavu-sans".to_owned());
    }
    ctx.set_fonts(fonts);
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_symbols_the_panels_use_have_glyphs() {
        let ctx = egui::Context::default();
        super::install_fonts(&ctx);
        let mut output = ctx.run_ui(Default::default(), |_| {});
        output.textures_delta.clear();
        let mut missing = String::new();
        for c in [
            '→', '▾', '✓', '△', '⏴', '⏵', '⟲', '⏷', '⏮', '⏭', '○', '●', '👁', '•', '·', '°', '−',
            '…',
        ] {
            let has = ctx.fonts_mut(|f| f.has_glyph(&egui::FontId::proportional(14.0), c));
            if !has {
                missing.push(c);
            }
        }
        assert!(missing.is_empty(), "no glyph for {missing}");
    }
}
