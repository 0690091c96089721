//! What scenetree's tests and benches share, as one crate instead of files included by path:
//! the repository's fixtures and oracles, Decentraland's real data layer as a test host, a
//! fake host that misbehaves on purpose, scene builders, and live documents for the editor's
//! tests. Each part sits behind the feature naming the crate it needs, so a crate's tests
//! build only what they use:
//!
//! - always: [`repo_root`], [`files`] (walking the repository), [`furnished`] and [`forest`]
//!   (scenes built on scenetree-core), [`projects`] and [`dcl_host`] (the vendored projects,
//!   and the real data layer started from `oracle-live/`), [`wire`] (just enough of the CRDT
//!   wire format for the live crate's tests, which do not use scenetree-core's codec);
//! - `dcl`: [`dcl`] (the file fixtures and the `@dcl/ecs` oracle's scripts);
//! - `live`: [`fake_host`] (a WebSocket server speaking the data layer's frames);
//! - `editor`: [`live_docs`] (live documents on a host, and waiting on what they report).

// Test code: a failed unwrap is a failed test (clippy.toml denies unwrap in library code).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

#[cfg(feature = "dcl")]
pub mod dcl;
pub mod dcl_host;
#[cfg(feature = "live")]
pub mod fake_host;
pub mod files;
pub mod forest;
pub mod furnished;
#[cfg(feature = "editor")]
pub mod live_docs;
pub mod projects;
pub mod wire;

/// The repository's root: the folder of the workspace's Cargo.lock.
pub fn repo_root() -> PathBuf {
    (Path::new(env!("CARGO_MANIFEST_DIR")).ancestors())
        .find(|dir| dir.join("Cargo.lock").exists() && dir.join("crates").is_dir())
        .expect("the tests run inside the repository")
        .to_path_buf()
}
