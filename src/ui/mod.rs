//! The egui layer: panels and the 3D viewport. Thin: it reads derived data and returns the
//! user's intent as values; the editor turns those into CRDT writes.

pub mod viewport;
