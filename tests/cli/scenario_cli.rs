//! Scenario files (reading, errors with JSON paths, saving a run) and the headless
//! `scenetree scenario run [--json] FILE`.

use std::path::{Path, PathBuf};
use std::process::Command;

use scenetree_core::crdt::scenario::{ErrorAt, ScenarioAction, Selector, parse};
use scenetree_core::crdt::{
    AutoDelivery, DeliveryOrder, LocalWrite, MessageFilter, MessageId, Network, PeerId, Replica,
};
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_dcl::io::Location;
use scenetree_dcl::io::scenario::{read_scenario, save_scenario};
use serde_json::Value;

pub(crate) fn scenetree(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scenetree"))
        .args(args)
        .output()
        .expect("binary runs")
}

pub(crate) fn lesson_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(name)
}

/// A minimal scenario around `steps` (a JSON list), with Lamp and Table.
fn scenario_text(steps: &str) -> String {
    format!(
        r#"{{ "format": "scenetree-scenario/1", "title": "t", "peers": 2,
  "initial": {{ "entities": [ {{ "entity": 512, "name": "Lamp" }}, {{ "entity": 513, "name": "Table" }} ] }},
  "steps": {steps} }}"#
    )
}

fn path_error(text: &str) -> (String, String) {
    match parse(text) {
        Ok(s) => panic!("expected an error, parsed {s:?}"),
        Err(e) => match e.at {
            ErrorAt::Path(p) => (p, e.message),
            other => panic!("expected a JSON path, got {other:?}: {}", e.message),
        },
    }
}

#[test]
fn a_scenario_reads_names_peers_and_actions() {
    let s = parse(&scenario_text(
        r#"[ { "text": "go", "actions": [
            { "do": "move", "peer": 2, "entity": "Lamp", "parent": "Table", "position": [1, 2, 3] },
            { "do": "deliver", "from": 2, "to": 1, "nth": 1 },
            { "do": "deliver_all", "order": "random", "to": 2 },
            { "do": "auto_delivery", "latency": 3 } ] } ]"#,
    ))
    .unwrap();
    assert_eq!(s.peers, 2);
    assert_eq!(s.seed, 0);
    assert_eq!(s.initial.entities.len(), 2);
    assert_eq!(s.initial.entities[0].name.as_deref(), Some("Lamp"));
    assert_eq!(s.initial.entities[0].transform, Some(Transform::IDENTITY));
    let a = &s.steps[0].actions;
    assert_eq!(
        a[0],
        ScenarioAction::Move {
            peer: PeerId(2),
            entity: Entity(512),
            parent: Some(Entity(513)),
            position: Some(glam::Vec3::new(1.0, 2.0, 3.0)),
            rotation: None,
            scale: None,
        }
    );
    assert_eq!(
        a[1],
        ScenarioAction::Deliver(Selector::Route {
            from: Some(PeerId(2)),
            to: Some(PeerId(1)),
            nth: 1
        })
    );
    assert_eq!(
        a[2],
        ScenarioAction::DeliverAll {
            order: DeliveryOrder::Random,
            filter: MessageFilter {
                from: None,
                to: Some(PeerId(2))
            }
        }
    );
    assert_eq!(
        a[3],
        ScenarioAction::SetAutoDelivery(Some(AutoDelivery {
            latency: 3,
            jitter: 0
        }))
    );
}

#[test]
fn bad_scenarios_are_refused_with_the_json_path() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"[ { "actions": [ { "do": "move", "peer": 3, "entity": 512 } ] } ]"#,
            "steps[0].actions[0].peer",
            "numbered 1 to 2",
        ),
        (
            r#"[ { "actions": [ { "do": "move", "peer": 1, "entity": "Lmap" } ] } ]"#,
            "steps[0].actions[0].entity",
            "no entity is named \"Lmap\"",
        ),
        (
            r#"[ { "actions": [ { "do": "move", "peer": 1, "entity": 512, "parnet": 0 } ] } ]"#,
            "steps[0].actions[0].parnet",
            "unknown field \"parnet\"",
        ),
        (
            r#"[ { "actions": [ { "do": "teleport" } ] } ]"#,
            "steps[0].actions[0].do",
            "unknown action \"teleport\"",
        ),
        (
            r#"[ { "actions": [ { "do": "deliver" } ] } ]"#,
            "steps[0].actions[0]",
            "name the message",
        ),
        (
            r#"[ { "actions": [ { "do": "move", "peer": 1, "entity": 512, "position": [1, 2] } ] } ]"#,
            "steps[0].actions[0].position",
            "3 numbers",
        ),
        (
            r#"[ { "actions": [ { "do": "put", "peer": 1, "entity": 512, "component": "core::Nope", "base64": "" } ] } ]"#,
            "steps[0].actions[0].component",
            "unknown component name",
        ),
        (
            r#"[ { "actions": [ { "do": "put", "peer": 1, "entity": 512, "component": 1018, "base64": "%%" } ] } ]"#,
            "steps[0].actions[0].base64",
            "not valid base64",
        ),
        (
            r#"[ { "actions": [ { "do": "deliver_all", "order": "sideways" } ] } ]"#,
            "steps[0].actions[0].order",
            "\"send\", \"reverse\" or \"random\"",
        ),
        (r#"{ "actions": [] }"#, "steps", "expected a list"),
    ];
    for (steps, path, message) in cases {
        let (p, m) = path_error(&scenario_text(steps));
        assert_eq!(&p, path, "{steps}");
        assert!(m.contains(message), "{steps}: {m}");
    }
    let (p, m) = path_error(r#"{ "format": "scenetree/1", "peers": 2, "steps": [] }"#);
    assert_eq!(
        (p.as_str(), m.contains("scenetree-scenario/1")),
        ("format", true)
    );
    let (p, m) = path_error(r#"{ "format": "scenetree-scenario/1", "peers": 9, "steps": [] }"#);
    assert_eq!(p, "peers");
    assert!(m.contains("2 to 8"), "{m}");
    let err = parse("{ \"format\": ").unwrap_err();
    assert!(matches!(err.at, ErrorAt::Syntax { line: 1, .. }), "{err:?}");
}

#[test]
fn a_scenario_that_cannot_play_is_refused_at_load_with_the_action_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.scenario.json");
    std::fs::write(
        &file,
        scenario_text(
            r#"[ { "actions": [ { "do": "move", "peer": 1, "entity": 512, "position": [1, 0, 0] } ] },
                 { "actions": [ { "do": "deliver", "from": 2, "to": 1 } ] } ]"#,
        ),
    )
    .unwrap();
    let err = read_scenario(&file).unwrap_err();
    assert_eq!(
        err.location,
        Location::JsonPath("steps[1].actions[0]".into())
    );
    assert!(
        err.message
            .contains("message 1 from peer 2 to peer 1, but 0"),
        "{}",
        err.message
    );
    let run = scenetree(&["scenario", "run", file.to_str().unwrap()]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("bad.scenario.json: at steps[1].actions[0]:"),
        "{stderr}"
    );
    assert!(run.stdout.is_empty(), "nothing half-printed");
}

#[test]
fn a_run_saved_as_a_scenario_replays_exactly() {
    // Every kind of operation, including values that only base64 can carry exactly.
    let mut start = Replica::new();
    start
        .put_transform(Entity(512), &Transform::IDENTITY)
        .unwrap();
    start
        .put(Entity(512), ids::NAME, encode_name("Lamp"))
        .unwrap();
    start.delete_entity(Entity(600)).unwrap_or_default();
    start
        .put_transform(Entity(601), &Transform::IDENTITY)
        .unwrap();
    start.delete_entity(Entity(601)).unwrap();
    let mut net = Network::new(3, 99, &start).unwrap();
    let (p1, p2, p3) = (PeerId(1), PeerId(2), PeerId(3));
    let mut nan = Transform::IDENTITY.to_bytes();
    nan[0..4].copy_from_slice(&0x7FC0_0001u32.to_le_bytes());
    net.write(
        p1,
        LocalWrite::Put {
            entity: Entity(513),
            component: 1,
            data: nan.to_vec(),
        },
    )
    .unwrap();
    net.write(p2, LocalWrite::name(Entity(513), "Table"))
        .unwrap();
    net.write(
        p2,
        LocalWrite::Put {
            entity: Entity(513),
            component: ids::NAME,
            data: vec![1, 2],
        },
    )
    .unwrap();
    net.write(
        p3,
        LocalWrite::Append {
            entity: Entity(512),
            component: 1063,
            data: vec![9],
        },
    )
    .unwrap();
    net.write(
        p3,
        LocalWrite::transform(
            Entity(512),
            &Transform {
                parent: Entity(513),
                ..Transform::IDENTITY
            },
        ),
    )
    .unwrap();
    let mut outside = net.replica(p2).unwrap().clone();
    let authored = vec![outside.put(Entity(514), 1018, vec![3, 4]).unwrap()];
    net.write(p2, LocalWrite::Authored { messages: authored })
        .unwrap();
    net.duplicate(MessageId(2)).unwrap();
    net.reorder(MessageId(5), 0).unwrap();
    net.drop_message(MessageId(1)).unwrap();
    net.set_online(p3, false).unwrap();
    net.set_auto_delivery(Some(AutoDelivery {
        latency: 2,
        jitter: 1,
    }));
    net.advance(5);
    net.set_online(p3, true).unwrap();
    net.set_auto_delivery(None);
    net.tick(3);
    net.deliver_all(DeliveryOrder::Random, MessageFilter::ALL);
    net.write(
        p1,
        LocalWrite::DeleteComponent {
            entity: Entity(512),
            component: 1,
        },
    )
    .unwrap();
    net.write(
        p2,
        LocalWrite::DeleteEntity {
            entity: Entity(513),
        },
    )
    .unwrap();
    net.deliver_all(DeliveryOrder::Reverse, MessageFilter::ALL);

    let saved = net.to_scenario("everything", "all operations");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.scenario.json");
    save_scenario(&saved, &file).unwrap();
    let loaded = read_scenario(&file).unwrap();
    assert_eq!(loaded, saved);
    let again = loaded.run().unwrap();
    assert_eq!(again.network().events(), net.events());
    for p in [p1, p2, p3] {
        assert_eq!(
            again.network().replica(p).unwrap().digest(),
            net.replica(p).unwrap().digest()
        );
    }
    assert_eq!(again.network().convergence(), net.convergence());
    // And both go on alike: random choices depend on the seed and the timeline alone.
    let mut a = again.network().clone();
    let mut b = net.clone();
    for n in [&mut a, &mut b] {
        for p in [p1, p2, p3] {
            n.write(p, LocalWrite::transform(Entity(700), &Transform::IDENTITY))
                .unwrap();
        }
    }
    let (ra, rb) = (
        a.deliver_all(DeliveryOrder::Random, MessageFilter::ALL),
        b.deliver_all(DeliveryOrder::Random, MessageFilter::ALL),
    );
    assert_eq!(ra.delivered, rb.delivered);
    assert_eq!(a.events(), b.events());
}

#[test]
fn scenario_run_json_reports_every_event_with_each_peers_digest_and_rerooted_entities() {
    let path = lesson_path("01-concurrent-reparent.scenario.json");
    let run = scenetree(&["scenario", "run", "--json", path.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(doc["converged"], Value::Bool(true));
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(
        steps.len(),
        6,
        "5 lesson steps, the last one with two events"
    );
    for s in steps {
        let peers = s["peers"].as_array().unwrap();
        assert_eq!(peers.len(), 2);
        for p in peers {
            assert_eq!(p["digest"].as_str().unwrap().len(), 32);
            assert!(p["rerooted"].is_array());
        }
        assert!(s["event"]["summary"].as_str().is_some());
    }
    // The third event (lesson step 3): peer 1 shows Lamp and Table re-rooted by a cycle.
    let third = &steps[2];
    assert_eq!(third["step"], 3);
    assert_eq!(third["event"]["kind"], "deliver");
    let p1 = &third["peers"][0];
    assert_eq!(p1["peer"], 1);
    let rerooted: Vec<(u64, &str)> = p1["rerooted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["entity"].as_u64().unwrap(), r["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(rerooted, [(512, "cycle"), (513, "cycle")]);
    assert_eq!(p1["rerooted"][0]["cycle"], serde_json::json!([512, 513]));
    assert_eq!(third["peers"][1]["rerooted"], serde_json::json!([]));
    assert_ne!(p1["digest"], third["peers"][1]["digest"]);
    // The last event: everyone equal, nothing re-rooted.
    let last = steps.last().unwrap();
    assert_eq!(last["peers"][0]["digest"], last["peers"][1]["digest"]);
    assert_eq!(last["in_flight"], 0);
}

#[test]
fn scenario_run_json_names_a_missing_parent_and_what_stays_apart() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lost.scenario.json");
    std::fs::write(
        &file,
        scenario_text(
            r#"[ { "actions": [ { "do": "delete_component", "peer": 1, "entity": "Table", "component": "Transform" },
                               { "do": "move", "peer": 1, "entity": "Lamp", "parent": "Table" } ] },
                 { "actions": [ { "do": "drop", "id": 2 }, { "do": "deliver_all" } ] } ]"#,
        ),
    )
    .unwrap();
    let run = scenetree(&["scenario", "run", "--json", file.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(doc["converged"], Value::Bool(false));
    assert_eq!(doc["differing"], serde_json::json!([512]));
    let last = doc["steps"].as_array().unwrap().last().unwrap();
    assert_eq!(
        last["peers"][0]["rerooted"],
        serde_json::json!([{ "entity": 512, "name": "Lamp", "reason": "missing_parent", "parent": 513 }])
    );
    assert_eq!(last["peers"][1]["rerooted"], serde_json::json!([]));
}

#[test]
fn scenario_run_prints_each_step_and_whether_the_peers_converged() {
    let path = lesson_path("02-three-cycle.scenario.json");
    let run = scenetree(&["scenario", "run", path.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(text.starts_with("A cycle of three across three peers (3 peers, seed 2)\n"));
    assert!(
        text.contains("step 3: Peer 3's edit reaches peer 1"),
        "{text}"
    );
    assert!(
        text.contains("    peer 1  digest ")
            && text.contains("re-rooted: 512 \"Lamp\" (cycle 512 → 513 → 514 → 512)"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("nothing in flight)"), "{text}");
    assert!(text.contains("converged: yes"));
    // Every lesson runs headlessly.
    let lessons = std::fs::read_dir(lesson_path(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".scenario.json"));
    for path in lessons {
        let run = scenetree(&["scenario", "run", path.to_str().unwrap()]);
        assert!(
            run.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&run.stderr)
        );
    }
}

#[test]
fn scenario_run_refuses_a_missing_or_malformed_file() {
    let run = scenetree(&["scenario", "run", "/nonexistent/x.scenario.json"]);
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("cannot read"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.scenario.json");
    std::fs::write(
        &file,
        "{\n  \"format\": \"scenetree-scenario/1\",\n  \"peers\": 2,,\n}",
    )
    .unwrap();
    let run = scenetree(&["scenario", "run", "--json", file.to_str().unwrap()]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("broken.scenario.json:3:"), "{stderr}");
}

#[test]
fn run_json_reports_per_step_where_the_inspectors_tree_and_the_transforms_differ() {
    let lesson = lesson_path("08-inspector-tree-loses-an-edit.scenario.json");
    let out = scenetree(&["scenario", "run", "--json", lesson.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let misplaced = |peers: &Value| -> Vec<Value> {
        peers
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["nodes_mismatch"].clone())
            .collect()
    };
    // At the start Nodes and the Transforms agree on both peers.
    assert_eq!(
        misplaced(&report["initial"]),
        [Value::Array(vec![]), Value::Array(vec![])]
    );
    let steps = report["steps"].as_array().unwrap();
    // Once everything of step 3 arrived, both peers' Nodes put Book (515) at the root while
    // its Transform puts it under Shelf (514).
    let after_delivery = steps.iter().rfind(|s| s["step"] == 3).unwrap();
    let book = serde_json::json!([{"entity": 515, "nodes_parent": 0, "effective_parent": 514}]);
    assert_eq!(misplaced(&after_delivery["peers"]), [book.clone(), book]);
    // The repair, delivered: none left.
    let last = steps.last().unwrap();
    assert_eq!(
        misplaced(&last["peers"]),
        [Value::Array(vec![]), Value::Array(vec![])]
    );
    let text = scenetree(&["scenario", "run", lesson.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("inspector tree differs: 515 (Nodes: under 0; Transform: under 514)"),
        "{text}"
    );
}

#[test]
fn an_initial_stream_holding_a_transform_shorter_than_44_bytes_is_refused_at_its_byte() {
    let good =
        scenetree_core::crdt::CrdtMessage::put_transform(Entity(512), 1, &Transform::IDENTITY);
    let short = scenetree_core::crdt::CrdtMessage::PutComponent {
        entity: Entity(513),
        component: Transform::COMPONENT_ID,
        timestamp: 1,
        data: vec![0; 12],
    };
    // Written by the scenario writer (base64 of the stream), read back.
    let mut scenario = parse(&scenario_text("[]")).unwrap();
    scenario.initial.entities.clear();
    scenario.initial.stream = vec![good.clone(), short];
    let text = scenario.to_json();
    let (path, message) = path_error(&text);
    assert_eq!(path, "initial.stream");
    assert!(
        message.contains(&format!("at byte {}", good.encoded_len()))
            && message.contains("entity 513 holds 12 bytes"),
        "{message}"
    );
}

#[test]
fn an_error_quoting_a_huge_name_is_cut_to_a_readable_length() {
    let huge = "N".repeat(5 << 20);
    let (path, message) = path_error(&scenario_text(&format!(
        r#"[ {{ "actions": [ {{ "do": "rename", "peer": 1, "entity": "{huge}", "name": "x" }} ] }} ]"#
    )));
    assert!(path.starts_with("steps[0].actions[0]"), "{path}");
    assert!(message.len() < 1_000, "a {}-byte message", message.len());
}
