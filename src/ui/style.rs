//! Fonts and look shared by the app and the UI tests.

use std::sync::Arc;

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
