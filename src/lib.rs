//! scenetree: a desktop editor for 3D scene hierarchies on Decentraland's Transform/CRDT
//! semantics. This crate is the app: the egui window and the command line. What it builds on
//! is in the workspace's other crates, each importing only those below it:
//!
//! ```text
//! scenetree           cli, ui (egui panels: they read a document and return commands)
//! scenetree-editor    the document, commands, undo, selection, peers, live (the one place that writes)
//! scenetree-live      the data-layer client
//! scenetree-viewport  three-d renderer, camera, picking, gizmo, glTF models
//! scenetree-dcl       Decentraland component codecs, io (native JSON, main.crdt, main.composite)
//! scenetree-core      model (Entity, Transform), crdt (the protocol), scene (the derived tree)
//! ```
//!
//! The single source of truth is a CRDT replica ([`scenetree_core::crdt::Replica`]);
//! everything shown is derived from it, and every edit is a CRDT write. See ARCHITECTURE.md
//! for the tour.

pub mod cli;
pub mod ui;
