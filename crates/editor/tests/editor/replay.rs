//! `scenario run`'s replay and report (`scenetree_editor::replay`), without the process.

use scenetree_core::crdt::scenario::{Scenario, parse};
use scenetree_editor::replay::{Replay, Rerooted, report};

/// A scenario whose one step closes a parenting cycle through `n` entities (each the parent
/// of the next, the last's parent the first), then moves every member once more.
fn long_cycle(n: u32) -> Scenario {
    let entities: Vec<String> = (0..n)
        .map(|i| {
            let parent = if i + 1 < n { 512 + i + 1 } else { 0 };
            format!(r#"{{ "entity": {}, "parent": {parent} }}"#, 512 + i)
        })
        .collect();
    let moves: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{ "do": "move", "peer": 1, "entity": {}, "position": [1, 0, 0] }}"#,
                512 + i
            )
        })
        .collect();
    let text = format!(
        r#"{{ "format": "scenetree-scenario/1", "title": "ring", "peers": 2,
  "initial": {{ "entities": [ {} ] }},
  "steps": [
    {{ "actions": [ {{ "do": "move", "peer": 1, "entity": {}, "parent": 512 }} ] }},
    {{ "actions": [ {} ] }} ] }}"#,
        entities.join(", "),
        512 + n - 1,
        moves.join(", ")
    );
    parse(&text).expect("the scenario parses")
}

fn report_of(scenario: Scenario, format: report::Format) -> String {
    let mut replay = Replay::new(scenario.into_run().expect("it plays")).expect("it rewinds");
    let mut out = Vec::new();
    report::write_report(&mut replay, &[], format, &mut out).expect("a Vec takes it");
    String::from_utf8(out).expect("the report is text")
}

#[test]
fn every_event_is_reported_with_each_peers_state_after_it() {
    let player = long_cycle(3).into_run().unwrap();
    let events = player.network().cursor();
    let mut replay = Replay::new(player).unwrap();
    let reports: Vec<_> = replay.by_ref().collect();
    assert_eq!(reports.len(), events);
    assert_eq!(
        reports.iter().map(|r| r.index).collect::<Vec<_>>(),
        (1..=events).collect::<Vec<_>>()
    );
    // The first event closes the cycle on peer 1; peer 2 has not heard of it.
    let first = &reports[0];
    assert_eq!(first.step, 1);
    assert!(matches!(&first.peers[0].rerooted[0].reason, Rerooted::Cycle(m) if m.len() == 3));
    assert!(first.peers[1].rerooted.is_empty());
    assert_ne!(first.peers[0].digest, first.peers[1].digest);
    assert!(reports[1..].iter().all(|r| r.step == 2));
    assert_eq!(replay.events_left(), 0);
}

#[test]
fn a_long_cycle_is_listed_in_full_once_per_peer_line_not_at_every_member() {
    let n = 400;
    let text = report_of(long_cycle(n), report::Format::Text);
    let line = text
        .lines()
        .find(|l| l.contains("re-rooted:"))
        .expect("the cycle is reported");
    // Each member once, the ring once: a few dozen bytes a member, not n members each.
    assert!(line.len() < 40 * n as usize, "{} bytes", line.len());
    assert!(line.contains("513 (on 512's cycle)"), "{}", &line[..200]);
    let json: serde_json::Value =
        serde_json::from_str(&report_of(long_cycle(n), report::Format::Json)).unwrap();
    let rerooted = &json["steps"][0]["peers"][0]["rerooted"];
    assert_eq!(rerooted[0]["cycle"].as_array().unwrap().len(), n as usize);
    assert_eq!(rerooted[1]["cycle_of"], 512);
    assert!(rerooted[1].get("cycle").is_none());
}
