//! Multiplayer: the comms codec, players and sessions, captures and their replay, and the real
//! `@dcl/sdk` players of `oracle-net/`.
//!
//! One test binary per area (fewer binaries, faster links).

mod capture;
mod codec;
mod oracle;
mod run;
mod session;
