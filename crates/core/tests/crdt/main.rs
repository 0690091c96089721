//! The protocol: replica rules, the simulated network, the reference runtime, lessons.
//!
//! One test binary per area (fewer binaries, faster links).

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
mod spec_scenarios;
