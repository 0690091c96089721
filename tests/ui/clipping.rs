//! Assertions that fail when something on screen is cut off: a text elided with "…", painted
//! outside the area that clips it (a scroll area, a panel) or outside the window.

use std::sync::Arc;

use egui::epaint::{ClippedShape, Galley, Shape};
use egui::{Pos2, Rect};
use egui_kittest::Harness;

/// A text painted in the last frame: its galley, where it lies and what clipped it.
pub(crate) struct PaintedText {
    pub galley: Arc<Galley>,
    /// The galley's rectangle on screen (points).
    pub rect: Rect,
    /// The clip rectangle it was painted with.
    pub clip: Rect,
}

/// Every text galley painted in the last frame, with its screen rectangle and clip.
pub(crate) fn painted_texts<S>(h: &Harness<'_, S>) -> Vec<PaintedText> {
    fn walk(shape: &Shape, clip: Rect, out: &mut Vec<PaintedText>) {
        match shape {
            Shape::Text(text) => out.push(PaintedText {
                galley: text.galley.clone(),
                rect: text.galley.rect.translate(text.pos.to_vec2()),
                clip,
            }),
            Shape::Vec(shapes) => shapes.iter().for_each(|s| walk(s, clip, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for ClippedShape { clip_rect, shape } in &h.output().shapes {
        walk(shape, *clip_rect, &mut out);
    }
    out
}

/// The texts painted exactly as `text`.
pub(crate) fn painted<S>(h: &Harness<'_, S>, text: &str) -> Vec<PaintedText> {
    painted_texts(h)
        .into_iter()
        .filter(|p| p.galley.job.text == text)
        .collect()
}

/// Why `p` is not shown whole in `window`, if it is not.
pub(crate) fn cut_off(p: &PaintedText, window: Rect) -> Option<String> {
    let text = &p.galley.job.text;
    let visible = p.clip.intersect(window);
    if p.galley.elided {
        Some(format!("{text:?} is elided (shown with …) in {:?}", p.rect))
    } else if !visible.expand(0.5).contains_rect(p.rect) {
        Some(format!(
            "{text:?} at {:?} is cut by its clip {:?} (window {window:?})",
            p.rect, p.clip
        ))
    } else {
        None
    }
}

/// Asserts that `text` is painted at least once and every time whole: not elided, inside its
/// clip and inside the window of `size` points.
pub(crate) fn assert_whole<S>(h: &Harness<'_, S>, size: egui::Vec2, text: &str) {
    let window = Rect::from_min_size(Pos2::ZERO, size);
    let shown = painted(h, text);
    assert!(!shown.is_empty(), "{text:?} is not painted at {size:?}");
    for p in &shown {
        if let Some(why) = cut_off(p, window) {
            panic!("at {}×{}: {why}", size.x, size.y);
        }
    }
}

/// Asserts that some text starting with `prefix` is painted, and every such text whole.
pub(crate) fn assert_whole_starting<S>(h: &Harness<'_, S>, size: egui::Vec2, prefix: &str) {
    let window = Rect::from_min_size(Pos2::ZERO, size);
    let shown: Vec<PaintedText> = painted_texts(h)
        .into_iter()
        .filter(|p| p.galley.job.text.starts_with(prefix))
        .collect();
    assert!(!shown.is_empty(), "nothing starting {prefix:?} at {size:?}");
    for p in &shown {
        if let Some(why) = cut_off(p, window) {
            panic!("at {}×{}: {why}", size.x, size.y);
        }
    }
}

/// Asserts that `text` is painted whole (see [`assert_whole`]) and on one line: a short label
/// wrapped for want of room shows only its first part ("mode" for "model").
pub(crate) fn assert_one_line<S>(h: &Harness<'_, S>, size: egui::Vec2, text: &str) {
    assert_whole(h, size, text);
    for p in painted(h, text) {
        assert_eq!(
            p.galley.rows.len(),
            1,
            "at {}×{}: {text:?} is wrapped onto {} lines at {:?}",
            size.x,
            size.y,
            p.galley.rows.len(),
            p.rect
        );
    }
}
