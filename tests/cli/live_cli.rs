//! `scenetree live URL tree|run|record` against the real data layer, and their exit codes.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Instant;

use scenetree_core::crdt::scenario;
use scenetree_core::model::Entity;

use crate::dcl_host::DclHost;
use crate::fake_host::http_host;
use crate::support::{ELEVATOR, IMAGE, WAIT, move_x, open, transform, wait_acknowledged, wait_for};

fn scenetree(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenetree"))
        .args(args)
        .output()
        .expect("run scenetree")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn live_tree_prints_what_tree_prints_for_the_project() {
    let host = DclHost::start();
    // The host's file as it stands may be mid-rewrite; the fixture is what the host loaded.
    let fixture =
        crate::dcl_host::repo_root().join("tests/fixtures/dcl-projects/art-gallery-template");
    let fixture = fixture.to_str().unwrap();
    for json in [false, true] {
        let flag: &[&str] = if json { &["--json"] } else { &[] };
        let live = scenetree(&[&["live", &host.url(), "tree"], flag].concat());
        assert!(live.status.success(), "{}", text(&live.stderr));
        let file = scenetree(&[&["tree"], flag, &[fixture]].concat());
        assert!(file.status.success(), "{}", text(&file.stderr));
        assert_eq!(text(&live.stdout), text(&file.stdout));
    }
}

#[test]
fn live_run_performs_a_lessons_edits_and_saves() {
    let host = DclHost::start();
    let dir = tempfile::tempdir().unwrap();
    let lesson = dir.path().join("edits.scenario.json");
    std::fs::write(
        &lesson,
        r#"{
  "format": "scenetree-scenario/1",
  "title": "Edits",
  "peers": 2,
  "initial": { "entities": [ { "entity": 512, "name": "Lamp" } ] },
  "steps": [
    { "actions": [ { "do": "move", "entity": 520, "parent": 512 },
                   { "do": "deliver_all" } ] },
    { "actions": [ { "do": "rename", "peer": 2, "entity": "Elevator", "name": "Lift" },
                   { "do": "move", "entity": "Lift", "position": [1, 2, 3] } ] }
  ]
}"#,
    )
    .unwrap();
    let run = scenetree(&[
        "live",
        &host.url(),
        "run",
        lesson.to_str().unwrap(),
        "--save",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(
        text(&run.stderr).contains("deliver_all"),
        "{}",
        text(&run.stderr)
    );
    let doc = open(&host);
    let nft = doc
        .replica()
        .transform(scenetree_core::model::Entity(520))
        .unwrap();
    assert_eq!(nft.parent, ELEVATOR);
    assert_eq!(doc.name_of(ELEVATOR).as_deref(), Some("Lift"));
    let lift = doc.replica().transform(ELEVATOR).unwrap();
    assert_eq!(lift.position.to_array(), [1.0, 2.0, 3.0]);
    // Saved: scenetree's reader sees the move in main.composite.
    let tree = scenetree(&["tree", "--json", host.dir.path().to_str().unwrap()]);
    let rows: serde_json::Value = serde_json::from_slice(&tree.stdout).unwrap();
    let nft_row = rows["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["entity"] == 520)
        .unwrap();
    assert_eq!(nft_row["declared_parent"], 512);
}

/// `scenetree live URL record OUT` running, its stderr read line by line as it comes.
struct Recorder {
    child: Child,
    lines: Receiver<String>,
    stderr: String,
}

impl Recorder {
    fn start(url: &str, out: &std::path::Path) -> Recorder {
        let mut child = Command::new(env!("CARGO_BIN_EXE_scenetree"))
            .args(["live", url, "record", out.to_str().unwrap()])
            .stderr(Stdio::piped())
            .spawn()
            .expect("run scenetree");
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = channel();
        std::thread::Builder::new()
            .name("recorder-stderr".into())
            .spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            })
            .unwrap();
        Recorder {
            child,
            lines,
            stderr: String::new(),
        }
    }

    /// Waits until a line starting with `start` was printed; returns it.
    fn wait_for_line(&mut self, start: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.stderr.push_str(&line);
                    self.stderr.push('\n');
                    if line.starts_with(start) {
                        return line;
                    }
                }
                Err(_) => panic!("no line starting {start:?}; stderr:\n{}", self.stderr),
            }
        }
    }

    /// Ctrl+C, as a user ends a recording; its exit status and everything it printed.
    fn interrupt(mut self) -> (ExitStatus, String) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(sent.success(), "kill -INT {pid}");
        let status = self.child.wait().unwrap();
        self.stderr.extend(self.lines.iter().map(|l| l + "\n"));
        (status, std::mem::take(&mut self.stderr))
    }
}

impl Drop for Recorder {
    /// A failed test does not leave the recorder running.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn live_run_creates_entities_under_a_parent_or_at_the_root() {
    let host = DclHost::start();
    let dir = tempfile::tempdir().unwrap();
    let lesson = dir.path().join("create.scenario.json");
    std::fs::write(
        &lesson,
        r#"{
  "steps": [
    { "actions": [ { "do": "create", "name": "Lamp", "parent": "Elevator" },
                   { "do": "create", "name": "Crate" } ] }
  ]
}"#,
    )
    .unwrap();
    let run = scenetree(&["live", &host.url(), "run", lesson.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let doc = open(&host);
    let named = |name: &str| {
        (doc.replica().live_entities())
            .find(|&e| doc.name_of(e).as_deref() == Some(name))
            .unwrap_or_else(|| panic!("the host has no entity named {name}"))
    };
    let (lamp, crate_) = (named("Lamp"), named("Crate"));
    let parent_of = |e| doc.replica().transform(e).map(|t| t.parent);
    assert_eq!(parent_of(lamp), Some(ELEVATOR));
    assert_eq!(parent_of(crate_), Some(Entity::ROOT));
    // Numbered from a live client's block, away from the Inspector's, and said so.
    assert!(lamp.number() >= 32_768, "{lamp}");
    let said = text(&run.stderr);
    assert!(said.contains(&format!("created entity {lamp}")), "{said}");

    // A create without a name says where.
    std::fs::write(
        &lesson,
        r#"{ "steps": [ { "actions": [ { "do": "create" } ] } ] }"#,
    )
    .unwrap();
    let bad = scenetree(&["live", &host.url(), "run", lesson.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1), "{}", text(&bad.stderr));
    let said = text(&bad.stderr);
    assert!(
        said.contains("steps[0].actions[0]") && said.contains("needs a \"name\""),
        "{said}"
    );
}

#[test]
fn live_record_writes_a_recording_that_replays() {
    let host = DclHost::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session.scenario.json");
    let mut recorder = Recorder::start(&host.url(), &out);
    let line = recorder.wait_for_line("recording from ");
    assert_eq!(
        line,
        format!("recording from {}; Ctrl+C ends it", host.url())
    );
    // Edits while it records, from another client; a third sees them relayed by the host.
    let mut witness = open(&host);
    let mut doc = open(&host);
    move_x(&mut doc, ELEVATOR, 12.5);
    move_x(&mut doc, IMAGE, 3.0);
    wait_acknowledged(&mut doc);
    wait_for(&mut witness, "the edits relayed to other clients", |d| {
        transform(d, ELEVATOR).position.x == 12.5 && transform(d, IMAGE).position.x == 3.0
    });
    let (status, stderr) = recorder.interrupt();
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("recorded "), "{stderr}");
    let recording = scenario::parse(&std::fs::read_to_string(&out).unwrap()).expect("a scenario");
    let player = recording.run().expect("it replays");
    let editor = player
        .network()
        .replica(scenetree_core::crdt::PeerId(1))
        .unwrap();
    assert_eq!(editor.transform(ELEVATOR).unwrap().position.x, 12.5);
    assert_eq!(editor.transform(IMAGE).unwrap().position.x, 3.0);
    let run = scenetree(&["scenario", "run", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
}

#[test]
fn live_commands_say_what_went_wrong_with_their_exit_codes() {
    // Nothing listens.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("ws://127.0.0.1:{port}/data-layer");
    let none = scenetree(&["live", &url, "tree"]);
    assert_eq!(none.status.code(), Some(3), "{}", text(&none.stderr));
    assert!(
        text(&none.stderr).contains("no data layer"),
        "{}",
        text(&none.stderr)
    );
    // An HTTP server that is no data layer.
    let web = http_host("HTTP/1.1 404 Not Found");
    let wrong = scenetree(&["live", &web.url, "tree"]);
    assert_eq!(wrong.status.code(), Some(4), "{}", text(&wrong.stderr));
    web.join();
    // A host on another machine needs --allow-remote.
    let remote = scenetree(&["live", "ws://192.0.2.1:8000/data-layer", "tree"]);
    assert_eq!(remote.status.code(), Some(6), "{}", text(&remote.stderr));
    // A port that is no port is refused, not read as port 80.
    for port in ["65536", "70000", "-1", "8000abc"] {
        let url = format!("ws://127.0.0.1:{port}/data-layer");
        let bad = scenetree(&["live", &url, "tree"]);
        assert_eq!(bad.status.code(), Some(4), "{port}: {}", text(&bad.stderr));
        assert!(
            text(&bad.stderr).contains("not a number from 1 to 65535"),
            "{port}: {}",
            text(&bad.stderr)
        );
    }
}

/// A PUT of `data` for component `component` of `entity` at timestamp 1.
fn put(entity: u32, component: u32, data: Vec<u8>) -> scenetree_core::crdt::CrdtMessage {
    scenetree_core::crdt::CrdtMessage::PutComponent {
        entity: scenetree_core::model::Entity(entity),
        component,
        timestamp: 1,
        data,
    }
}

#[test]
fn live_tree_refuses_a_snapshot_holding_a_transform_shorter_than_44_bytes() {
    for length in [0, 12, 43] {
        let good = put(512, 1, vec![0; 44]);
        let short = put(513, 1, vec![0; length]);
        let snapshot = scenetree_core::crdt::encode_stream([&good, &short]);
        let host = crate::fake_host::FakeHost::spawn(move |peer| {
            peer.handshake_with(&snapshot);
            while peer.recv().is_some() {}
        });
        let tree = scenetree(&["live", &host.url, "tree"]);
        let stderr = text(&tree.stderr);
        assert_eq!(tree.status.code(), Some(5), "{length}: {stderr}");
        assert!(
            stderr.contains(&format!("at byte {}", good.encoded_len()))
                && stderr.contains(&format!("entity 513 holds {length} bytes")),
            "{stderr}"
        );
        host.join();
    }
}

/// `live URL record FILE --seconds SECONDS` against a fake host whose snapshot is empty and
/// which then sends `element`: the host (to join), the command's output, the folder of the
/// recording (kept while it lives) and the recording's path.
fn record_one_element(
    element: Vec<u8>,
    seconds: &str,
) -> (
    crate::fake_host::FakeHost,
    Output,
    tempfile::TempDir,
    std::path::PathBuf,
) {
    let host = crate::fake_host::FakeHost::spawn(move |peer| {
        peer.handshake_with(b"");
        peer.element(3, &element);
        while peer.recv().is_some() {}
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session.scenario.json");
    let recorded = scenetree(&[
        "live",
        &host.url,
        "record",
        out.to_str().unwrap(),
        "--seconds",
        seconds,
    ]);
    (host, recorded, dir, out)
}

#[test]
fn live_record_reports_bytes_that_are_not_crdt_and_counts_what_it_wrote() {
    // One element of three Name PUTs with a broken message after them.
    let names: Vec<_> = (0..3)
        .map(|i| {
            put(
                512 + i,
                scenetree_core::model::ids::NAME,
                scenetree_core::model::encode_name("n"),
            )
        })
        .collect();
    let mut element = scenetree_core::crdt::encode_stream(&names);
    element.extend_from_slice(&[40, 0, 0, 0, 1, 0, 0, 0, 9]);
    let (host, recorded, _dir, out) = record_one_element(element, "2");
    let stderr = text(&recorded.stderr);
    assert_eq!(recorded.status.code(), Some(5), "{stderr}");
    assert!(
        stderr.contains("warning: the host sent 9 bytes that are not CRDT"),
        "{stderr}"
    );
    assert!(
        stderr.contains("recorded 3 message(s) (0 written by this editor, 3 by the host)"),
        "{stderr}"
    );
    // The recording says so where it happened: a step of its own after the messages kept.
    let recording = scenario::parse(&std::fs::read_to_string(&out).unwrap()).expect("a scenario");
    let said = (recording.steps.iter())
        .filter_map(|s| s.text.as_deref())
        .find(|t| t.contains("not CRDT messages"))
        .expect("a step says what was skipped");
    assert!(said.contains("9 bytes"), "{said}");
    assert!(recording.run().is_ok(), "it replays");
    host.join();
}

#[test]
fn live_record_says_which_messages_the_editor_refused() {
    // After the snapshot: a Transform of 12 bytes (the runtime throws on it), then a good one.
    let element =
        scenetree_core::crdt::encode_stream([&put(513, 1, vec![0; 12]), &put(512, 1, vec![0; 44])]);
    let (host, recorded, _dir, out) = record_one_element(element, "2");
    let stderr = text(&recorded.stderr);
    assert_eq!(recorded.status.code(), Some(5), "{stderr}");
    assert!(
        stderr.contains("warning: this editor refused 1 message(s) the host sent: a Transform of 12 bytes for entity 513"),
        "{stderr}"
    );
    let recording = scenario::parse(&std::fs::read_to_string(&out).unwrap()).expect("a scenario");
    assert!(
        (recording.steps.iter()).any(|s| s.text.as_deref().is_some_and(|t| t.contains("refused"))),
        "the recording says so too"
    );
    host.join();
}

#[test]
fn live_record_counts_every_message_it_wrote_beyond_the_logs_limit() {
    // More messages than the session's log keeps (LOG_LIMIT): the count is the file's.
    let n = scenetree_editor::LOG_LIMIT + 1;
    let deletes: Vec<_> = (0..n)
        .map(|i| scenetree_core::crdt::CrdtMessage::DeleteComponent {
            entity: scenetree_core::model::Entity(512 + (i % 60_000) as u32),
            component: scenetree_core::model::ids::NAME,
            timestamp: 1 + (i / 60_000) as u32,
        })
        .collect();
    let element = scenetree_core::crdt::encode_stream(&deletes);
    let (host, recorded, _dir, _) = record_one_element(element, "3");
    let stderr = text(&recorded.stderr);
    assert!(recorded.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "recorded {n} message(s) (0 written by this editor"
        )),
        "{stderr}"
    );
    host.join();
}
