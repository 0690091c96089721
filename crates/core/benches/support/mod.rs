//! What the multiplayer benches share: the bench capture, made by the multiplayer oracle
//! (`oracle-net/run.mjs --preset bench`) the first time a bench needs it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The bench capture's name: 8 players, 1,000 entities, 600 ticks.
pub const NAME: &str = "bench-8p-1000e-600t";

/// The multiplayer oracle's folder (`oracle-net/`).
pub fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../oracle-net")
}

/// Whether node and the oracle's packages are there to run it.
pub fn node_ready() -> bool {
    oracle_dir().join("node_modules/@dcl/sdk").exists()
        && Command::new("node").arg("--version").output().is_ok()
}

/// The bench capture, made by the oracle when it is not there yet.
pub fn capture_path() -> PathBuf {
    if let Some(path) = std::env::var_os("SCENETREE_NET_BENCH_CAPTURE") {
        return PathBuf::from(path);
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("net-bench");
    let path = dir.join(format!("{NAME}.jsonl"));
    if !path.exists() {
        assert!(
            node_ready(),
            "the bench capture is made by the multiplayer oracle: run `npm ci --prefix oracle-net`"
        );
        eprintln!(
            "making {} with oracle-net/run.mjs (a few minutes)…",
            path.display()
        );
        let status = Command::new("node")
            .arg(oracle_dir().join("run.mjs"))
            .args(["--preset", "bench", "--out"])
            .arg(&dir)
            .status()
            .expect("node runs");
        assert!(status.success(), "oracle-net/run.mjs --preset bench failed");
    }
    path
}
