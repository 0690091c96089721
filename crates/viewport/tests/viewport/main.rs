//! The viewport without a GPU: camera, picking, the gizmo's placement and hit testing.

mod math;
