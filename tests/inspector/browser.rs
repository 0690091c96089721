//! The real web Inspector in headless Chromium, driven by `oracle-live/inspector-driver.cjs`
//! (puppeteer-core over the DevTools protocol) through JSON lines on its stdin and stdout.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use scenetree_test_support::repo_root;

use crate::dcl_host::DclHost;

/// Set by `.ci/run`: there a missing browser or Inspector fails the tests instead of skipping them.
const CI_VARIABLE: &str = "SCENETREE_CI";
/// The Chromium to run instead of the first `chromium` or `chromium-browser` on PATH.
const CHROMIUM_VARIABLE: &str = "SCENETREE_CHROMIUM";
/// How long the Inspector may take to load and show the data layer's tree (5–30 s on 2 busy
/// cores).
const LOAD_TIMEOUT: Duration = Duration::from_secs(120);
/// The driver's own deadline for one command (it answers with an error then); this side waits
/// twice as long before it calls the driver hung.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// What the tests need besides `oracle-live`'s data layer.
pub struct Environment {
    chromium: PathBuf,
    driver: PathBuf,
}

/// The browser and the Inspector's built app, or `None` (locally) after one line, for all the
/// tests, saying what is missing. Under `SCENETREE_CI` a missing part fails the test with the
/// command that installs it: CI never skips these tests.
pub fn environment(test: &str) -> Option<Environment> {
    let oracle = repo_root().join("oracle-live");
    let installed = oracle
        .join("node_modules/@dcl/inspector/public/index.html")
        .is_file()
        && oracle
            .join("node_modules/puppeteer-core/package.json")
            .is_file();
    let why = match (chromium(), installed) {
        (Some(chromium), true) => {
            let driver = oracle.join("inspector-driver.cjs");
            return Some(Environment { chromium, driver });
        }
        (None, _) => {
            "Chromium is not installed (`apt-get install -y --no-install-recommends chromium \
             chromium-driver`, or set SCENETREE_CHROMIUM)"
        }
        (Some(_), false) => "the web Inspector is not installed (`npm ci --prefix oracle-live`)",
    };
    assert!(
        std::env::var_os(CI_VARIABLE).is_none(),
        "{test}: {why}; {CI_VARIABLE} is set, so this test may not be skipped"
    );
    // Straight to stderr, once for the binary: libtest hides a passing test's eprintln!.
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        let _ = writeln!(std::io::stderr(), "skipped the web Inspector tests: {why}");
    });
    None
}

fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(CHROMIUM_VARIABLE) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// One row of the Inspector's tree as its DOM draws it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Row {
    pub id: u32,
    pub name: String,
    /// The row it is drawn inside (0: the "Scene" row); `None` for the top rows.
    pub parent: Option<u32>,
}

/// A row as the Inspector draws it.
#[derive(Clone, Debug)]
pub struct Drawn {
    pub row: Row,
    /// It shows a closed arrow: it has children, not drawn.
    pub closed: bool,
}

/// A headless Chromium showing the Inspector on `host`'s data layer; closed on drop.
pub struct Inspector {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Receiver<String>,
    log: Arc<Mutex<String>>,
    /// Chromium's profile folder, fresh for each browser.
    _profile: tempfile::TempDir,
    /// How long it took from starting the driver to the Inspector's tree.
    pub load_time: Duration,
}

impl Inspector {
    /// Opens the Inspector on `host` and waits for its tree.
    pub fn open(env: &Environment, host: &DclHost) -> Inspector {
        let profile = tempfile::tempdir().expect("a profile folder");
        let started = Instant::now();
        let mut child = Command::new("node")
            .arg(&env.driver)
            .args(["--chromium".as_ref(), env.chromium.as_os_str()])
            .args(["--data-layer", &host.url()])
            .args(["--profile".as_ref(), profile.path().as_os_str()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node runs the Inspector's driver");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, answers) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            spawn_reader(stdout, Arc::clone(&log), Some(tx));
        }
        if let Some(stderr) = child.stderr.take() {
            spawn_reader(stderr, Arc::clone(&log), None);
        }
        let mut inspector = Inspector {
            stdin: child.stdin.take(),
            child,
            answers,
            log,
            _profile: profile,
            load_time: Duration::ZERO,
        };
        let ready = inspector.answer(LOAD_TIMEOUT, "the Inspector's tree");
        assert!(
            ready["ready"] == true,
            "the Inspector did not load: {ready}\n{}",
            inspector.log()
        );
        assert!(
            ready["webgl2"] == true,
            "headless Chromium offered no WebGL2 (the Inspector's viewport needs it): {ready}"
        );
        inspector.load_time = started.elapsed();
        inspector
    }

    /// Sends one command and returns its answer, or the driver's error message.
    pub fn call(&mut self, command: Value) -> Result<Value, String> {
        let mut line = command.to_string();
        line.push('\n');
        let stdin = self.stdin.as_mut().expect("the driver's stdin is open");
        if let Err(e) = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.flush())
        {
            panic!("the driver stopped ({e}):\n{}", self.log());
        }
        // The driver's own deadline is the command's; this one only guards against a hung driver.
        let answer = self.answer(COMMAND_TIMEOUT * 2, &command.to_string());
        if answer["ok"] == true {
            Ok(answer)
        } else {
            Err(answer["error"].as_str().unwrap_or("no reason").to_owned())
        }
    }

    /// Like [`Inspector::call`], failing the test with the driver's log on an error.
    pub fn must(&mut self, command: Value) -> Value {
        let sent = command.to_string();
        self.call(command)
            .unwrap_or_else(|e| panic!("the Inspector could not do {sent}: {e}\n{}", self.log()))
    }

    /// The rows the Inspector's tree draws now, after opening those of `open` that are closed
    /// (which writes `inspector::Nodes`' `open` flags, as clicking their arrows does).
    pub fn rows(&mut self, open: &[u32]) -> Vec<Drawn> {
        self.try_rows(open).unwrap_or_else(|e| {
            panic!("the Inspector could not show its tree: {e}\n{}", self.log())
        })
    }

    /// [`Inspector::rows`], or why the driver could not read them (a frozen tab times out).
    pub fn try_rows(&mut self, open: &[u32]) -> Result<Vec<Drawn>, String> {
        let answer = self.call(json!({ "cmd": "tree", "expand": open }))?;
        let rows = (answer["rows"].as_array().map(Vec::as_slice))
            .unwrap_or_default()
            .iter()
            .map(|r| Drawn {
                row: Row {
                    id: as_id(&r["id"]),
                    name: r["name"].as_str().unwrap_or_default().to_owned(),
                    parent: (!r["parent"].is_null()).then(|| as_id(&r["parent"])),
                },
                closed: r["closed"] == true,
            })
            .collect();
        Ok(rows)
    }

    /// Whether the page's script answers and draws `frames` more animation frames within
    /// `timeout` (a tab frozen in a loop does neither).
    pub fn answers(&mut self, frames: u32, timeout: Duration) -> Result<(), String> {
        let ms = timeout.as_millis() as u64;
        self.call(json!({ "cmd": "ping", "frames": frames, "timeout_ms": ms }))
            .map(|_| ())
    }

    /// Fails the test if the page threw anything but the network errors of a machine
    /// offline (the Inspector fetches its asset catalogue and thumbnails from the web).
    pub fn assert_no_page_errors(&mut self) {
        let thrown: Vec<String> = (self.errors().into_iter())
            .filter(|e| !e.starts_with("NetworkError") && !e.contains("Failed to fetch"))
            .collect();
        assert!(
            thrown.is_empty(),
            "the Inspector's page threw: {thrown:#?}\n{}",
            self.log()
        );
    }

    /// The page's uncaught errors so far.
    pub fn errors(&mut self) -> Vec<String> {
        let answer = self.must(json!({ "cmd": "errors" }));
        (answer["errors"].as_array().map(Vec::as_slice))
            .unwrap_or_default()
            .iter()
            .map(|e| e.as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// Everything the driver printed (the page's errors, the CRDT messages the Inspector sent).
    pub fn log(&self) -> String {
        let log = self.log.lock().map(|l| l.clone()).unwrap_or_default();
        format!("the Inspector's driver printed:\n{log}")
    }

    fn answer(&mut self, timeout: Duration, waiting_for: &str) -> Value {
        match self.answers.recv_timeout(timeout) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("the driver answered {line:?}: {e}\n{}", self.log())),
            Err(RecvTimeoutError::Timeout) => panic!(
                "the driver did not answer {waiting_for} within {timeout:?}\n{}",
                self.log()
            ),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.try_wait().ok().flatten();
                panic!(
                    "the driver ended ({status:?}) before answering {waiting_for}\n{}",
                    self.log()
                )
            }
        }
    }
}

impl Drop for Inspector {
    /// Closing its stdin makes the driver close Chromium; a driver that does not end in a few
    /// seconds (a tab frozen in a loop can keep `browser.close` waiting) gets SIGTERM, on which
    /// puppeteer kills the browser it started, then SIGKILL.
    fn drop(&mut self) {
        drop(self.stdin.take());
        for signal in [None, Some("-TERM"), Some("-KILL")] {
            if let Some(signal) = signal {
                let _ = Command::new("kill")
                    .args([signal, &self.child.id().to_string()])
                    .status();
            }
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

fn as_id(value: &Value) -> u32 {
    (value.as_u64().and_then(|n| u32::try_from(n).ok()))
        .unwrap_or_else(|| panic!("not an entity id: {value}"))
}

/// Sends a pipe's lines to `answers` (stdout's: the driver's answers), or else appends them to
/// `log` (stderr's: what the page did).
fn spawn_reader(
    pipe: impl Read + Send + 'static,
    log: Arc<Mutex<String>>,
    answers: Option<mpsc::Sender<String>>,
) {
    let read = move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            if let Some(answers) = &answers {
                let _ = answers.send(line);
            } else if let Ok(mut log) = log.lock() {
                log.push_str(&line);
                log.push('\n');
            }
        }
    };
    std::thread::Builder::new()
        .name("inspector-driver-output".into())
        .spawn(read)
        .expect("a thread for the driver's output");
}

/// How often a wait reads the state it waits for again.
pub const POLL: Duration = Duration::from_millis(100);

/// Polls `read` until `done` holds of what it read, or fails after `timeout` with the last
/// value read: the tests wait for a state, never for a fixed time.
pub fn wait_until<T: std::fmt::Debug>(
    what: &str,
    timeout: Duration,
    mut read: impl FnMut() -> T,
    done: impl Fn(&T) -> bool,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        let value = read();
        if done(&value) {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "waited {timeout:?} for {what}; last seen: {value:#?}"
        );
        std::thread::sleep(POLL);
    }
}
