//! The headless command line.
//!
//! One test binary per area (fewer binaries, faster links).

#[path = "../../crates/dcl/tests/common/dcl.rs"]
mod dcl;

mod cli;
mod file_safety_cli;
mod policy_cli;
mod scenario_cli;
