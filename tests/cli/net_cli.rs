//! `scenetree net replay CAPTURE --text|--json` on the capture of a real `@dcl/sdk` session
//! (`tests/fixtures/net-logs/capture.jsonl`, made by oracle-net), and its errors.

use std::path::Path;

use serde_json::Value;

use crate::scenario_cli::scenetree;

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/net-logs/capture.jsonl")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn replay_reproduces_the_session_and_prints_each_player() {
    let out = scenetree(&["net", "replay", "--text", &fixture()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("every tick reproduced byte for byte"),
        "{text}"
    );
    assert!(text.contains("A 0xaaaa00000000000000000000000000000000aaaa (network id"));
    assert!(text.contains("  renderer tree:\n    512 → 0\n"), "{text}");
}

#[test]
fn replay_json_is_the_contract() {
    let out = scenetree(&["net", "replay", "--json", &fixture()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let players = json["players"].as_array().unwrap();
    assert_eq!(players.len(), 2);
    assert_eq!(
        players[0]["address"],
        "0xaaaa00000000000000000000000000000000aaaa"
    );
    assert_eq!(
        players[0]["network_id"].as_u64(),
        Some(u64::from(scenetree_core::net::network_id_from_address(
            "0xaaaa00000000000000000000000000000000aaaa"
        )))
    );
    // A made 40 entities; B maps each to one of its own numbers.
    assert!(players[1]["network_map"].as_array().unwrap().len() > 40);
    assert!(players[0]["hazards"].as_array().unwrap().is_empty());
}

#[test]
fn a_bad_line_names_its_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture()).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = r#"{"player":"0xaaaa00000000000000000000000000000000aaaa","tick":"one","received":[],"sent":[]}"#;
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = scenetree(&["net", "replay", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3, field tick:"), "{err}");
}

/// Runs `oracle-net/run.mjs` (real `@dcl/sdk` 7.28.0 players) with `args` into `out`.
fn oracle_net(out: &Path, args: &[&str]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle-net");
    assert!(
        dir.join("node_modules/@dcl/sdk").exists(),
        "the multiplayer oracle is not installed: run `npm ci --prefix oracle-net` first"
    );
    let status = std::process::Command::new("node")
        .arg(dir.join("run.mjs"))
        .args(args)
        .arg("--quiet")
        .arg("--out")
        .arg(out)
        .status()
        .expect("node runs");
    assert!(status.success(), "oracle-net/run.mjs {args:?} failed");
}

/// Entities `player` made on its first tick (its `main()`): a capture cannot show whether those
/// it never names again are synced, so the report may leave them out of `network_map`.
fn first_tick_entities(sidecar: &Value, player: &str) -> Vec<u64> {
    sidecar["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["player"] == player && a["tick"] == 0)
        .filter_map(|a| a["entity"].as_u64())
        .collect()
}

/// `net replay --json` on captures of schedules no other test replays (other seeds, 4 players,
/// longer delays), compared with what the real SDK's players ended with: the binary's output,
/// key for key.
#[test]
fn replay_json_is_what_the_real_sdk_ended_with_on_fresh_captures() {
    let dir = tempfile::tempdir().unwrap();
    oracle_net(dir.path(), &["--seeds", "9001..9006"]);
    oracle_net(
        dir.path(),
        &[
            "--seeds",
            "9101..9103",
            "--players",
            "4",
            "--ticks",
            "60",
            "--max-delay",
            "5",
        ],
    );
    let kinds = [
        "self_parent",
        "raw_parent",
        "unmapped_parent",
        "repeated_state_response",
        "wrong_entity_deleted",
        "parent_not_removed",
    ];
    let mut checked = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = scenetree(&["net", "replay", "--json", path.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ours: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
        let sidecar: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("final.json")).unwrap(),
        )
        .unwrap();
        let theirs = sidecar["players"].as_array().unwrap();
        let ours = ours["players"].as_array().unwrap();
        assert_eq!(ours.len(), theirs.len(), "{name}");
        for (ours, theirs) in ours.iter().zip(theirs) {
            let who = format!("{name} player {}", theirs["name"]);
            assert_eq!(ours["address"], theirs["address"], "{who}");
            assert_eq!(ours["network_id"], theirs["network_id"], "{who}");
            assert_eq!(ours["renderer_tree"], theirs["renderer_tree"], "{who}");
            let ours_map = ours["network_map"].as_array().unwrap();
            let unseen = first_tick_entities(&sidecar, theirs["name"].as_str().unwrap());
            let expected: Vec<&Value> = (theirs["network_map"].as_array().unwrap().iter())
                .filter(|e| {
                    ours_map.contains(e) || !unseen.contains(&e["entity"].as_u64().unwrap())
                })
                .collect();
            assert_eq!(ours_map.iter().collect::<Vec<_>>(), expected, "{who}");
            for hazard in ours["hazards"].as_array().unwrap() {
                assert!(
                    kinds.contains(&hazard["kind"].as_str().unwrap()),
                    "{who}: {hazard}"
                );
                assert!(
                    hazard["tick"].as_u64().unwrap() < theirs["ticks"].as_u64().unwrap(),
                    "{who}: {hazard}"
                );
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 9);
}

/// `net capture-module` prints the module, and what it prints passes the oracle's check inside
/// real `@dcl/sdk` 7.28.0 players (`oracle-net/check-capture-module.mjs --module`): it compiles
/// under the SDK's strict tsconfig, its log lines (as each explorer prints them) reassemble to
/// exactly what the host recorded of every non-empty tick, and each player's traffic is
/// byte-identical with and without it.
#[test]
fn the_printed_capture_module_logs_what_the_real_sdk_sends_and_changes_nothing() {
    let out = scenetree(&["net", "capture-module"]);
    assert!(out.status.success());
    let module = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(
        module.starts_with("/**\n * scenetree capture module"),
        "{module}"
    );
    assert!(module.contains("addSyncTransport(engine, recordingSendBinary, getUserData)"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("net-capture.ts");
    std::fs::write(&file, &module).unwrap();
    let oracle = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle-net");
    assert!(
        oracle.join("node_modules/@dcl/sdk").exists(),
        "the multiplayer oracle is not installed: run `npm ci --prefix oracle-net` first"
    );
    let check = std::process::Command::new("node")
        .arg(oracle.join("check-capture-module.mjs"))
        .arg("--module")
        .arg(&file)
        .output()
        .expect("node runs");
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(
        report.starts_with("capture module OK: 5 sessions"),
        "{report}"
    );
}

fn net_log(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/net-logs")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `net import-log` on both players' logs in each explorer's form writes the expected capture,
/// and that capture replays byte for byte.
#[test]
fn import_log_rebuilds_the_capture_from_each_explorers_logs() {
    let expected = std::fs::read_to_string(net_log("expected-import.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (a, b) in [
        (
            "godot-scene-inspector-A.jsonl",
            "godot-scene-inspector-B.jsonl",
        ),
        ("bevy-stdout-A.log", "bevy-stdout-B.log"),
        ("unity-console-A.txt", "unity-console-B.txt"),
        (
            "unity-mcp-get_scene_logs-A.txt",
            "unity-mcp-get_scene_logs-B.txt",
        ),
    ] {
        let out = dir.path().join(format!("{a}.capture.jsonl"));
        let run = scenetree(&[
            "net",
            "import-log",
            &net_log(a),
            &net_log(b),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(
            run.status.success(),
            "{a}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert_eq!(std::fs::read_to_string(&out).unwrap(), expected, "{a}");
    }
    let replay = scenetree(&[
        "net",
        "replay",
        "--text",
        dir.path()
            .join("bevy-stdout-A.log.capture.jsonl")
            .to_str()
            .unwrap(),
    ]);
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(
        text.contains("every tick reproduced byte for byte"),
        "{text}"
    );
}

#[test]
fn import_log_names_the_file_and_line_of_a_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(net_log("unity-console-A.txt")).unwrap();
    let broken = text.replacen("NETCAP 0 1 1/1", "NETCAP 0 1 one/1", 1);
    let path = dir.path().join("A.txt");
    std::fs::write(&path, broken).unwrap();
    let out = scenetree(&["net", "import-log", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}:4: a NETCAP line is", path.display())),
        "{err}"
    );
}
