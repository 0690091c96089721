//! `scenetree live URL tree|run|record` against the real data layer, and their exit codes.

use std::process::{Command, Output};

use scenetree_core::crdt::scenario;
use scenetree_core::model::Entity;

use crate::dcl_host::DclHost;
use crate::fake_host::http_host;
use crate::support::{ELEVATOR, IMAGE, move_x, open, wait_acknowledged};

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
    let url = host.url();
    let out_arg = out.to_str().unwrap().to_owned();
    let recorder = std::thread::spawn(move || {
        scenetree(&["live", &url, "record", &out_arg, "--seconds", "6"])
    });
    // Edit while it records (it connects within the first seconds).
    std::thread::sleep(std::time::Duration::from_secs(2));
    let mut doc = open(&host);
    move_x(&mut doc, ELEVATOR, 12.5);
    move_x(&mut doc, IMAGE, 3.0);
    wait_acknowledged(&mut doc);
    let recorded = recorder.join().unwrap();
    assert!(recorded.status.success(), "{}", text(&recorded.stderr));
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
}
