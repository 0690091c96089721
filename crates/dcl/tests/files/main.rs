//! Scene files: native JSON, main.crdt, main.composite, against the reference runtime.
//!
//! One test binary per area (fewer binaries, faster links).

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::dcl;
use scenetree_test_support::projects as project_fixtures;

mod codec_oracle;
mod codec_properties;
mod dcl_convert;
mod dcl_files;
mod dcl_oracle;
mod dcl_robustness;
mod file_safety;
mod io_files;
mod projects;
mod save_properties;
