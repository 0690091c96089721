//! scenetree's core: the scene model, Decentraland's CRDT protocol and the render tree derived
//! from a replica. No files, no windows: everything here is plain data and rules, tested
//! without a display. Modules, each importing only those above it:
//!
//! ```text
//! net       multiplayer: players, their numbering, comms  (exactly as @dcl/sdk's sync layer)
//! scene     render tree with root fallback, propagation  (derived from one replica, incremental)
//! crdt      message codec, replica, simulated network    (the protocol, exactly as @dcl/ecs)
//! model     Entity, Transform, Euler, component ids      (plain values, glam math)
//! ```
//!
//! [`examples`] builds the bundled example scenes (the showroom and a large generated one).

pub mod crdt;
pub mod examples;
pub mod model;
pub mod net;
pub mod scene;
