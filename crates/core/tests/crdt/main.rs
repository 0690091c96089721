//! The protocol: replica rules, the simulated network, the reference runtime, lessons.
//!
//! One test binary per area (fewer binaries, faster links).

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::furnished;

mod crdt_replica;
mod lessons;
mod message_rows;
mod network;
mod network_properties;
mod one_message_per_tick;
mod oracle_conformance;
mod order_explorer;
mod policy_properties;
mod scenario_format;
mod spec_scenarios;
