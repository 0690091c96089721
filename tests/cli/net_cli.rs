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
