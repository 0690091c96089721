//! The viewport without a GPU: camera, picking, the gizmo's placement and hit testing.

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

mod math;
