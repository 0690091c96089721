//! The headless command line.
//!
//! One test binary per area (fewer binaries, faster links).

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::dcl;
use scenetree_test_support::live_docs as support;
use scenetree_test_support::{dcl_host, fake_host};

mod cli;
mod file_safety_cli;
mod live_cli;
mod net_cli;
mod net_lesson_cli;
mod policy_cli;
mod scenario_cli;
