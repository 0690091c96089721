//! Live documents against Decentraland's real data layer (`sdk-commands start --data-layer`
//! 7.28.0 from `oracle-live/`, started by the live crate's harness) and against fake hosts
//! that misbehave: the editor's side of a session, the headless `scenetree live` commands.
//! Without `oracle-live/node_modules` these fail with the command to run.
//!
//! One test binary per area (fewer binaries, faster links).

#[allow(dead_code)]
#[path = "../../crates/live/tests/support/dcl_host.rs"]
mod dcl_host;
#[allow(dead_code)]
#[path = "../../crates/live/tests/support/fake_host.rs"]
mod fake_host;

mod cli_live;
mod faults;
mod flows;
mod large_scene;
mod recording;
mod support;
mod window;
