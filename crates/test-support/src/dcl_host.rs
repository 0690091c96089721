//! Decentraland's real data layer for tests and the bench: `sdk-commands start --data-layer`
//! 7.28.0 from `oracle-live/`, serving a copy of a vendored project on a free loopback port,
//! killed by pid when dropped.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use crate::repo_root;

/// How long the host may take to print `Listening` (it takes about 1 s on 2 cores).
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// `oracle-live/node_modules/@dcl/sdk-commands`'s entry point; fails the test when the
/// oracle is not installed, so the real-host tests never skip silently.
pub fn sdk_commands() -> PathBuf {
    let entry = repo_root().join("oracle-live/node_modules/@dcl/sdk-commands/dist/index.js");
    assert!(
        entry.exists(),
        "Decentraland's data layer (@dcl/sdk-commands) is not installed: run `npm ci --prefix oracle-live` first"
    );
    entry
}

/// A running `sdk-commands start --data-layer` and the project folder it serves.
pub struct DclHost {
    child: Option<Child>,
    /// The project folder (a copy of the fixture), also the host's HOME.
    pub dir: tempfile::TempDir,
    /// The loopback port it listens on.
    pub port: u16,
    /// Everything it printed, stdout and stderr, for failure messages.
    log: Arc<Mutex<String>>,
}

impl DclHost {
    /// Copies `tests/fixtures/dcl-projects/art-gallery-template` to a temporary folder, adds
    /// a minimal package.json and starts the host there on a free loopback port.
    pub fn start() -> DclHost {
        DclHost::start_with(|_| {})
    }

    /// As [`DclHost::start`], with `prepare` run on the project folder before the host starts
    /// (to give it another scene, say).
    pub fn start_with(prepare: impl FnOnce(&Path)) -> DclHost {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let fixture = repo_root().join("tests/fixtures/dcl-projects/art-gallery-template");
        copy_dir(&fixture, dir.path());
        std::fs::write(
            dir.path().join("package.json"),
            "{\n  \"name\": \"scenetree-live-test\",\n  \"version\": \"1.0.0\",\n  \"private\": true\n}\n",
        )
        .expect("write package.json");
        prepare(dir.path());
        let mut host = DclHost {
            child: None,
            dir,
            port: free_port(),
            log: Arc::default(),
        };
        host.spawn();
        host
    }

    /// The data layer's WebSocket URL.
    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}/data-layer", self.port)
    }

    /// The project's main.composite, as the host last wrote it.
    pub fn composite(&self) -> serde_json::Value {
        let path = self.dir.path().join("assets/scene/main.composite");
        let text = std::fs::read_to_string(&path).expect("read main.composite");
        serde_json::from_str(&text).expect("main.composite is JSON")
    }

    /// Kills the host (SIGKILL) between two of its file writes, as a crash that loses nothing
    /// on disk would. The host rewrites scene.json and main.composite in place, so a SIGKILL
    /// in the middle of a write leaves a file it cannot start from; this freezes the host
    /// (SIGSTOP), kills it if both files parse, and otherwise lets it finish the write and
    /// tries again.
    pub fn kill_between_writes(&mut self) {
        let files = ["scene.json", "assets/scene/main.composite"].map(|f| self.dir.path().join(f));
        let both_parse = || {
            files.iter().all(|f| {
                std::fs::read(f)
                    .is_ok_and(|b| serde_json::from_slice::<serde_json::Value>(&b).is_ok())
            })
        };
        for _ in 0..1_000 {
            self.pause();
            if both_parse() {
                self.kill();
                return;
            }
            self.resume();
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the host's files never both parsed between its writes");
    }

    /// Kills the host (SIGKILL, by pid) as a crash would, and reaps it.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The host process's id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Freezes the host (SIGSTOP, by pid): it keeps its socket open and answers nothing,
    /// as a host that hangs would.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets a paused host go on (SIGCONT).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, which: &str) {
        if let Some(pid) = self.pid() {
            let status = Command::new("kill")
                .args([which, &pid.to_string()])
                .status()
                .expect("run kill");
            assert!(status.success(), "kill {which} {pid} failed");
        }
    }

    /// Starts the host again on the same folder and port (after [`DclHost::kill`]).
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    /// What the host printed so far.
    pub fn log(&self) -> String {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    fn spawn(&mut self) {
        let mut child = Command::new("node")
            .arg(sdk_commands())
            .args([
                "start",
                "--data-layer",
                "--skip-build",
                "--no-watch",
                "--no-client",
            ])
            .args(["--port", &self.port.to_string()])
            .current_dir(self.dir.path())
            .env("HTTP_SERVER_HOST", "127.0.0.1")
            .env("DCL_DISABLE_ANALYTICS", "true")
            .env("HOME", self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node must be installed to run Decentraland's data layer");
        // sdk-commands logs `Listening` on stderr and the scene's migrations on stdout; both
        // pipes are drained for the host's whole life so it never blocks on a full pipe.
        let (lines_tx, lines) = mpsc::channel();
        for pipe in [
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let tx = lines_tx.clone();
            let log = Arc::clone(&self.log);
            let drain = move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Ok(mut log) = log.lock() {
                        log.push_str(&line);
                        log.push('\n');
                    }
                    let _ = tx.send(line);
                }
            };
            std::thread::Builder::new()
                .name("dcl-host-log".into())
                .spawn(drain)
                .expect("a thread for the host's output");
        }
        self.child = Some(child);
        self.wait_listening(&lines);
    }

    fn wait_listening(&mut self, lines: &Receiver<String>) {
        let deadline = Instant::now() + START_TIMEOUT;
        let wanted = format!("Listening 127.0.0.1:{}", self.port);
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(remaining) {
                Ok(line) if line.contains(&wanted) => return,
                Ok(_) => {}
                Err(_) => {
                    let status = self
                        .child
                        .as_mut()
                        .and_then(|c| c.try_wait().ok().flatten());
                    self.kill();
                    panic!(
                        "the data layer did not print `{wanted}` within {START_TIMEOUT:?} (exit: {status:?}); it printed:\n{}",
                        self.log()
                    );
                }
            }
        }
    }
}

impl Drop for DclHost {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A loopback port nobody listens on right now, below the kernel's range for the local ends
/// of outgoing connections: a host restarted on its port (to test reconnecting) found it taken
/// by such a connection (EADDRINUSE), as a port the kernel hands out for `:0` can be.
fn free_port() -> u16 {
    use std::hash::{BuildHasher, RandomState};
    let ephemeral_start = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    let (low, high) = (10_000u16, ephemeral_start.max(10_001));
    let random = RandomState::new();
    for attempt in 0u64..1_000 {
        let port = low + (random.hash_one(attempt) % u64::from(high - low)) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free loopback port");
    listener.local_addr().expect("its address").port()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).expect("read fixture folder") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}
