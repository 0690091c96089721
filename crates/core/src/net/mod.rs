//! Multiplayer sync as `@dcl/sdk` 7.28.0 runs it: each player a scene with its own entity
//! numbers, CRDT messages travelling between players in network terms, and each player's
//! renderer told its own version. Everything here is plain data and rules, checked byte for
//! byte against the real SDK (`tests/net`).
//!
//! ```text
//! capture   the scenetree-net-capture/1 format, replaying a capture, the JSON report
//! session   players stepping tick by tick, frames (frames.rs) travelling between them
//! run       a run a person changes: a fixed script of ticks, a schedule of deliveries
//! lesson    multiplayer lessons: a run scripted in a file, played a step at a time
//! player    one player's tick: receive, scene writes, send, answer state requests
//! engine    one player's @dcl/ecs engine: components, receive, send, state dumps
//! store, entities, ordered, registry      an engine's parts
//! renderer                                what a player's renderer was told
//! comms, components, address              the wire: framing, network components, ids
//! hazard, ops                             what goes wrong, what a scene does
//! ```
//!
//! The design, one tick's order and what the oracle taught: `docs/design/multiplayer.md`.

pub mod address;
pub mod capture;
pub mod comms;
pub mod components;
pub mod engine;
pub mod entities;
pub mod frames;
pub mod hazard;
pub mod lesson;
pub mod ops;
pub mod ordered;
pub mod player;
pub mod registry;
pub mod renderer;
pub mod run;
pub mod session;
pub mod store;

pub use address::{network_id_from_address, short_address};
pub use comms::{CommsKind, FrameError, FrameErrorKind, InboundItem, OutboundItem, StateResponse};
pub use components::{NetworkIdentity, SYNC_COMPONENTS};
pub use frames::{Frame, FrameId, FrameQueue, FrameQueueError};
pub use hazard::{Hazard, HazardKind};
pub use ops::{EntityRef, SceneOp};
pub use player::{OutItem, Player, TickOutput};
pub use session::{Routing, Session};
