//! Multiplayer: the comms codec, players and sessions, captures and their replay, and the real
//! `@dcl/sdk` players of `oracle-net/`.
//!
//! One test binary per area (fewer binaries, faster links).

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

mod capture;
mod codec;
mod import;
mod lessons;
mod oracle;
mod run;
mod session;
