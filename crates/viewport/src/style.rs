//! The viewport's colours: one meaning, one colour (the app's `ui::style` re-exports them
//! beside the panels' colours).

// The one place the viewport's colours are made (clippy.toml disallows it elsewhere).
#![allow(clippy::disallowed_methods)]

use egui::Color32;

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
/// the panels' cycle colour, so it reads under shading).
pub const CYCLE_TINT: Color32 = Color32::from_rgb(0xF0, 0x8C, 0x2E);
/// An entity whose declared parent has no Transform (brighter than the panels' missing-parent colour).
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
