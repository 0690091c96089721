//! `scenetree scenario run [--json] FILE` on a multiplayer lesson (`scenetree-net-scenario/1`):
//! every step with the deliveries in flight, each player's renderer tree and the hazards.

use serde_json::Value;

use crate::scenario_cli::{lesson_path, scenetree};

#[test]
fn a_multiplayer_lesson_runs_step_by_step_with_each_players_renderer() {
    let path = lesson_path("09-mp-child-before-parent.scenario.json");
    let out = scenetree(&["scenario", "run", "--json", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 8);
    // Step 3: the child's frame to B is in flight, badged before it is applied.
    let flying = steps[2]["in_flight"].as_array().unwrap();
    let child = flying
        .iter()
        .find(|r| r["from"] == "A" && r["sent"] == 3 && r["to"] == "B")
        .unwrap();
    assert_eq!(child["hazards"], serde_json::json!(["self_parent"]));
    assert_eq!(child["entities"], serde_json::json!(["0xaaaa…aaaa:513"]));
    // Step 4: B's renderer holds the child as its 512, under 512.
    let b = &steps[3]["players"][1];
    assert_eq!(b["name"], "B");
    assert_eq!(
        b["renderer_tree"],
        serde_json::json!([{"entity": 512, "parent": 512, "identity": "0xaaaa…aaaa:513", "position": [0.0, 2.0, 0.0]}])
    );
    assert_eq!(b["hazards"][0]["kind"], "self_parent");
    assert_eq!(b["hazards"][0]["tick"], 4);
    // The end: the lesson moved P's frame first; nobody holds a self-parent.
    let last = &steps[7]["players"];
    for player in last.as_array().unwrap() {
        assert!(player["hazards"].as_array().unwrap().is_empty(), "{player}");
    }
    // The text form says the same in lines.
    let text = scenetree(&["scenario", "run", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("  B: 512 → 512 [0xaaaa…aaaa:513]\n"),
        "{text}"
    );
    assert!(
        text.contains("  in flight: A tick 3 → B CRDT, arrives B tick 3 ⚠ self_parent\n"),
        "{text}"
    );
}

#[test]
fn a_multiplayer_lesson_refuses_policies_and_a_broken_step() {
    let path = lesson_path("10-mp-raw-parent.scenario.json");
    let out = scenetree(&["scenario", "run", "--policy", "all", path.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--policy"));
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"tick\": 1,", "\"tick\": 77,");
    let broken = dir.path().join("broken.scenario.json");
    std::fs::write(&broken, text).unwrap();
    let out = scenetree(&["scenario", "run", broken.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("steps[4].actions[0]") && err.contains("B has no tick 77"),
        "{err}"
    );
}
