//! scenetree beside Decentraland's real web Inspector (`@dcl/inspector` 7.36.3's built app, pinned
//! in `oracle-live/`) on one real data layer (`sdk-commands start --data-layer` 7.28.0) serving
//! a copy of the art gallery template: the Inspector runs in headless Chromium (WebGL2 through
//! SwiftShader), driven and read through its DOM by `oracle-live/inspector-driver.cjs`
//! (puppeteer-core); scenetree through its command line (`scenetree live URL tree|run`).
//!
//! Locally each test is skipped, with one line saying why, when Chromium or
//! `oracle-live/node_modules` is missing; under `SCENETREE_CI=1` (set by `.ci/run`) it fails.
//! One browser runs at a time: two SwiftShader Chromiums on a 2-core machine starve each other
//! and every wait grows.

// A test program: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use scenetree_test_support::{dcl_host, live_docs};

mod browser;
mod cycles;
mod scenetree;
mod trees;

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// The longest a test waits for one editor to show what the other did (it takes well under a
/// second; the margin is for a loaded machine).
pub const SHOWN_WITHIN: Duration = Duration::from_secs(60);

static ONE_BROWSER: Mutex<()> = Mutex::new(());

/// Holds the one browser slot for a test (a failed test does not block the others).
pub fn one_browser_at_a_time() -> MutexGuard<'static, ()> {
    ONE_BROWSER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
