//! `scenetree scenario run --policy NAME|all [--json] FILE`: each peer's tree under the tree
//! policies after every event, and whether the peers agree.

use serde_json::Value;

use crate::scenario_cli::{lesson_path, scenetree};

fn run_lesson_7(extra: &[&str]) -> std::process::Output {
    let path = lesson_path("07-five-rules.scenario.json");
    let mut args = vec!["scenario", "run"];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    scenetree(&args)
}

#[test]
fn policy_all_prints_every_rule_per_peer_and_which_agree() {
    let out = run_lesson_7(&["--policy", "all"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for policy in [
        "RootFallback",
        "IgnoreCyclicChange",
        "RevertToEarlierParent",
        "MoveOpSkip",
        "HideCycle",
    ] {
        assert!(
            text.contains(&format!("      {policy}")),
            "a line for {policy}"
        );
    }
    // Step 3, peer 1: HideCycle hides the cycle and Bulb; RevertToEarlierParent puts Lamp on
    // the Shelf again.
    assert!(text.contains("Lamp hidden, Table hidden, Shelf → root, Bulb hidden"));
    assert!(text.contains("Lamp → Shelf, Table → Lamp"));
    assert!(text.contains(
        "peers agree at the end: RootFallback yes, IgnoreCyclicChange no (Table), \
         RevertToEarlierParent yes, MoveOpSkip yes, HideCycle yes"
    ));
}

#[test]
fn policy_json_gives_each_peers_parents_per_policy_and_the_agreement() {
    let out = run_lesson_7(&["--policy", "move-op-skip", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let last = doc["steps"].as_array().unwrap().last().unwrap();
    for peer in last["peers"].as_array().unwrap() {
        let tree = &peer["policies"]["MoveOpSkip"];
        assert_eq!(tree["512"], 0, "Lamp at the root");
        assert_eq!(tree["513"], 0, "Table at the root: its move stayed skipped");
        assert_eq!(tree["515"], 512, "Bulb under Lamp");
        assert!(
            peer["policies"].get("RootFallback").is_none(),
            "only the policy asked for"
        );
    }
    assert_eq!(doc["policies_agree"]["MoveOpSkip"]["agree"], true);

    let out = run_lesson_7(&["--policy", "all", "--json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ignore = &doc["policies_agree"]["IgnoreCyclicChange"];
    assert_eq!(ignore["agree"], false);
    assert_eq!(ignore["differing"], serde_json::json!([513]));
    let step4 = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == 4)
        .unwrap();
    assert_eq!(
        step4["agreement"]["IgnoreCyclicChange"]["differing"],
        serde_json::json!([512, 513])
    );
    assert_eq!(
        step4["peers"][0]["policies"]["HideCycle"]["512"],
        Value::Null,
        "hidden"
    );
}

#[test]
fn an_unknown_policy_is_refused_with_the_names_to_use() {
    let out = run_lesson_7(&["--policy", "Newest"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown policy \"Newest\""), "{err}");
    assert!(
        err.contains(
            "RootFallback, IgnoreCyclicChange, RevertToEarlierParent, MoveOpSkip, HideCycle or all"
        ),
        "{err}"
    );
}
