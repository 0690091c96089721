//! The headless command line.
//!
//! One test binary per area (each links the whole editor; fewer binaries, faster builds).

mod cli;
mod file_safety_cli;
mod policy_cli;
mod scenario_cli;
