//! scenetree: a desktop editor for 3D scene hierarchies on Decentraland's Transform/CRDT
//! semantics.
//!
//! The single source of truth is a CRDT [`crdt::Replica`]; everything shown is derived from it,
//! and every edit is a CRDT write. Layers, each importing only those below it:
//!
//! ```text
//! ui      egui panels, three-d viewport          (thin: reads, returns commands)
//! editor  commands, undo history, selection      (the one place that writes)
//! io      native JSON, main.crdt, main.composite (files in and out, atomic saves)
//! scene   render tree with root fallback         (derived from one replica, incremental)
//! crdt    message codec, replica, network        (the protocol, exactly as @dcl/ecs)
//! model   Entity, Transform, Euler, component ids (plain values)
//! ```
//!
//! See ARCHITECTURE.md for the tour.

pub mod cli;
pub mod crdt;
pub mod io;
pub mod model;
pub mod scene;
pub mod ui;
