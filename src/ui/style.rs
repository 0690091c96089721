//! Fonts, and the colours every panel and the viewport use, shared by the app and the UI tests:
//! one meaning, one colour.

// The one place the panels' colours are made (clippy.toml disallows it elsewhere).
#![allow(clippy::disallowed_methods)]

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
/// An entity the Inspector's tree (`inspector::Nodes`) places elsewhere than its Transform.
pub const NODES_MISMATCH: Color32 = Color32::from_rgb(0xE0, 0x8C, 0xC8);
/// A message in flight that announces a deletion (DELETE_ENTITY's DELETE_COMPONENTs).
pub const ANNOUNCEMENT_MESSAGE: Color32 = Color32::from_rgb(0xC8, 0xA0, 0xE0);
/// Behind a row the tree policies place differently in the Peers workspace: the warning
/// colour, faint.
pub const MARKED_ROW_TINT: Color32 = Color32::from_rgba_premultiplied(0x3A, 0x26, 0x0F, 0x40);

// ----- viewport: its colours live with it (`scenetree_viewport::style`) ----------------------

pub use scenetree_viewport::style::*;

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
