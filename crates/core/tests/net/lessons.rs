//! The multiplayer lessons (`scenes/*-mp-*.scenario.json`) played step by step, each step's
//! text checked against what the run then shows; and the lesson format: what the writer
//! writes the reader reads, and a bad file is refused with the JSON path of the problem.

use scenetree_core::crdt::scenario::ErrorAt;
use scenetree_core::model::{Entity, Transform, ids};
use scenetree_core::net::HazardKind;
use scenetree_core::net::lesson::{NetLesson, NetScenario};
use scenetree_core::net::run::{DeliveryRow, NetRun, Slot};

const A: usize = 0;
const B: usize = 1;
const C: usize = 2;
const ROOT: Entity = Entity::ROOT;

fn scenario(file: &str) -> NetScenario {
    let path = scenetree_test_support::repo_root()
        .join("scenes")
        .join(file);
    NetScenario::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn lesson(file: &str) -> NetLesson {
    NetLesson::new(scenario(file)).unwrap()
}

fn step(lesson: &mut NetLesson) -> &NetRun {
    assert!(lesson.next_step().unwrap(), "the lesson has another step");
    lesson.run()
}

/// A player's renderer tree at the cursor, each entity with its network identity's label.
fn tree(run: &NetRun, player: usize) -> Vec<(Entity, Entity, String)> {
    let state = run.state();
    (state.scenes[player].tree().into_iter())
        .map(|(e, parent)| {
            let identity = state.identity(player, e).map(|i| run.identity_label(i));
            (e, parent, identity.unwrap_or_default())
        })
        .collect()
}

fn parents(run: &NetRun, player: usize) -> Vec<(Entity, Entity)> {
    run.state().scenes[player].tree()
}

/// The hazards up to the cursor: (player, kind, entity, the player's tick).
fn hazards(run: &NetRun) -> Vec<(usize, HazardKind, Entity, u32)> {
    (run.hazards_until_cursor())
        .map(|(s, h)| {
            (
                run.script()[s].player,
                h.hazard.kind,
                h.hazard.entity,
                h.hazard.tick,
            )
        })
        .collect()
}

/// The delivery in flight from `from`'s tick `tick` to `to`.
fn in_flight(run: &NetRun, from: usize, tick: u32, to: usize) -> DeliveryRow {
    let sent = run.step_of(from, tick).unwrap();
    (run.in_flight().into_iter())
        .find(|r| r.sent_step == Some(sent) && r.to == to)
        .unwrap_or_else(|| panic!("nothing in flight from {from} tick {tick} to {to}"))
}

fn arrives(run: &NetRun, row: &DeliveryRow) -> Option<(usize, u32)> {
    row.arrives
        .map(|s| (run.script()[s].player, run.script()[s].tick))
}

fn badges(row: &DeliveryRow) -> Vec<HazardKind> {
    let mut kinds: Vec<HazardKind> = row.hazards.iter().map(|h| h.hazard.kind).collect();
    kinds.dedup();
    kinds
}

const ID_A: &str = "0xaaaa…aaaa";
const ID_B: &str = "0xbbbb…bbbb";

fn id(owner: &str, entity: u32) -> String {
    format!("{owner}:{entity}")
}

#[test]
fn lesson_9_child_before_parent() {
    let mut l = lesson("09-mp-child-before-parent.scenario.json");
    let run = step(&mut l);
    assert_eq!(tree(run, A), [(Entity(512), ROOT, id(ID_A, 512))]);
    assert_eq!(arrives(run, &in_flight(run, A, 2, B)), Some((B, 2)));
    let run = step(&mut l);
    assert_eq!(arrives(run, &in_flight(run, A, 2, B)), Some((B, 4)));
    let run = step(&mut l);
    let (child, parent) = (in_flight(run, A, 3, B), in_flight(run, A, 2, B));
    assert_eq!(arrives(run, &child), Some((B, 3)), "before P's");
    assert_eq!(badges(&child), [HazardKind::SelfParent]);
    assert_eq!(badges(&parent), []);
    let run = step(&mut l);
    assert_eq!(tree(run, B), [(Entity(512), Entity(512), id(ID_A, 513))]);
    assert_eq!(hazards(run), [(B, HazardKind::SelfParent, Entity(512), 4)]);
    assert_eq!(
        parents(run, C),
        [(Entity(512), ROOT), (Entity(513), Entity(512))]
    );
    let run = step(&mut l);
    assert_eq!(
        tree(run, B),
        [
            (Entity(512), Entity(512), id(ID_A, 513)),
            (Entity(513), ROOT, id(ID_A, 512))
        ]
    );
    let run = step(&mut l);
    assert_eq!(run.cursor(), 10);
    assert_eq!(badges(&in_flight(run, A, 3, B)), [HazardKind::SelfParent]);
    let run = step(&mut l);
    let (child, parent) = (in_flight(run, A, 3, B), in_flight(run, A, 2, B));
    assert_eq!(badges(&child), []);
    assert_eq!(
        (arrives(run, &parent), arrives(run, &child)),
        (Some((B, 3)), Some((B, 3)))
    );
    let position = |row: &DeliveryRow| match row.slot {
        Slot::At { index, .. } => index,
        Slot::Nowhere(_) => usize::MAX,
    };
    assert!(position(&parent) < position(&child), "P's frame first");
    let run = step(&mut l);
    let right = [(Entity(512), ROOT), (Entity(513), Entity(512))];
    for player in [A, B, C] {
        assert_eq!(parents(run, player), right, "player {player}");
    }
    assert_eq!(run.hazards().count(), 0);
    assert!(l.is_finished());
    // "Delay P's frame to B again and the self-parent comes back."
    l.run_mut().seek(10);
    let slot = in_flight(l.run(), A, 2, B).slot;
    l.by_hand(|run| run.delay(slot, 1)).unwrap();
    assert_eq!(l.run().hazards().count(), 1);
    assert!(l.off_script());
}

#[test]
fn lesson_10_raw_parent() {
    let mut l = lesson("10-mp-raw-parent.scenario.json");
    let run = step(&mut l);
    assert_eq!(tree(run, B), [(Entity(512), ROOT, id(ID_B, 512))]);
    let run = step(&mut l);
    assert_eq!(parents(run, A), [(Entity(512), ROOT), (Entity(513), ROOT)]);
    let run = step(&mut l);
    let q = id(ID_B, 512);
    assert_eq!(tree(run, B)[0], (Entity(512), ROOT, q.clone()));
    assert_eq!(tree(run, B)[2], (Entity(514), Entity(512), id(ID_A, 513)));
    assert_eq!(tree(run, C)[0].2, q, "C's 512 is Q too");
    assert!(
        parents(run, A).contains(&(Entity(513), Entity(512))),
        "A's own renderer is right"
    );
    assert_eq!(
        hazards(run),
        [
            (B, HazardKind::RawParent, Entity(514), 5),
            (C, HazardKind::RawParent, Entity(514), 5)
        ]
    );
    let run = step(&mut l);
    assert_eq!(arrives(run, &in_flight(run, B, 1, C)), Some((C, 1)));
    let run = step(&mut l);
    assert_eq!(arrives(run, &in_flight(run, B, 1, C)), Some((C, 3)));
    let run = step(&mut l);
    assert_eq!(
        &tree(run, C)[..2],
        [
            (Entity(512), ROOT, id(ID_A, 512)),
            (Entity(513), Entity(512), id(ID_A, 513))
        ],
        "the raw 512 happens to be P on C"
    );
    assert_eq!(
        tree(run, B)[2],
        (Entity(514), Entity(512), id(ID_A, 513)),
        "B still wrong"
    );
    let kinds: Vec<_> = hazards(run)
        .into_iter()
        .map(|(p, k, _, _)| (p, k))
        .collect();
    assert_eq!(
        kinds,
        [(B, HazardKind::RawParent), (C, HazardKind::RawParent)]
    );
}

/// The door's position on `player`'s renderer (fixed id 1, the player's 512).
fn door(run: &NetRun, steps: usize, player: usize) -> Option<[f32; 3]> {
    let state = run.state_at(steps);
    let bytes = state.scenes[player].value(Entity(512), ids::TRANSFORM)?;
    Some(Transform::from_bytes(bytes).ok()?.position.to_array())
}

#[test]
fn lesson_11_late_join() {
    let mut l = lesson("11-mp-late-join.scenario.json");
    let run = step(&mut l);
    let identities = |run: &NetRun, p| {
        let mut ids: Vec<String> = tree(run, p).into_iter().map(|(_, _, i)| i).collect();
        ids.sort();
        ids
    };
    assert_eq!(identities(run, A).len(), 4);
    assert_eq!(identities(run, A), identities(run, B));
    assert!(identities(run, A).contains(&"#1".to_string()));
    let run = step(&mut l);
    let requests: Vec<_> = (run.in_flight().iter())
        .map(|r| (r.from, r.to, r.content.kind_text()))
        .collect();
    assert_eq!(
        requests,
        [
            (Some(C), A, "REQ_CRDT_STATE".to_string()),
            (Some(C), B, "REQ_CRDT_STATE".to_string())
        ]
    );
    assert_eq!(tree(run, C), [(Entity(512), ROOT, "#1".to_string())]);
    let run = step(&mut l);
    assert_eq!(
        tree(run, C),
        [(Entity(512), ROOT, "#1".to_string())],
        "what A and B sent before C joined never reached it"
    );
    let answers = run.in_flight();
    assert_eq!(answers.len(), 2);
    assert!(answers.iter().all(|r| {
        r.content
            .kind_text()
            .starts_with("RES_CRDT_STATE for 0xcccc")
    }));
    assert_eq!(answers[0].arrives, answers[1].arrives, "in the same tick");
    assert_eq!((badges(&answers[0]), answers[0].from), (vec![], Some(A)));
    assert_eq!(badges(&answers[1]), [HazardKind::RepeatedStateResponse]);
    let run = step(&mut l);
    let repeats: Vec<_> = hazards(run)
        .into_iter()
        .map(|(p, k, _, t)| (p, k, t))
        .collect();
    assert_eq!(repeats, [(C, HazardKind::RepeatedStateResponse, 3); 3]);
    for steps in 0..=run.cursor() {
        assert_ne!(
            door(run, steps, C),
            Some([2.0, 2.0, 2.0]),
            "after {steps} steps"
        );
    }
    let run = step(&mut l);
    assert_eq!(run.cursor(), 20);
    let run = step(&mut l);
    assert_eq!(run.in_flight().len(), 1, "B's answer dropped");
    assert_eq!(run.hazards().count(), 0);
    let run = step(&mut l);
    assert_eq!(
        identities(run, C),
        identities(run, A),
        "A's answer held everything"
    );
    for player in [A, B, C] {
        assert_eq!(door(run, usize::MAX, player), Some([9.0, 0.0, 2.0]));
    }
}

#[test]
fn lesson_12_remote_delete() {
    let mut l = lesson("12-mp-remote-delete.scenario.json");
    let run = step(&mut l);
    assert_eq!(tree(run, B), [(Entity(512), ROOT, id(ID_B, 512))]);
    let run = step(&mut l);
    for player in [B, C] {
        assert_eq!(
            tree(run, player),
            [
                (Entity(512), ROOT, id(ID_B, 512)),
                (Entity(513), ROOT, id(ID_A, 512)),
                (Entity(514), Entity(513), id(ID_A, 514))
            ]
        );
    }
    assert_eq!(tree(run, A)[1].2, id(ID_B, 512), "on A, Q is 513");
    let run = step(&mut l);
    for player in [B, C] {
        assert_eq!(
            parents(run, player),
            [(Entity(514), Entity(513))],
            "Q and P's Transform gone"
        );
    }
    assert_eq!(
        hazards(run),
        [
            (B, HazardKind::WrongEntityDeleted, Entity(512), 6),
            (C, HazardKind::WrongEntityDeleted, Entity(512), 6)
        ]
    );
    let run = step(&mut l);
    for player in [B, C] {
        assert_eq!(parents(run, player), [(Entity(514), Entity(512))]);
    }
    let unmapped: Vec<_> = (hazards(run).into_iter())
        .filter(|h| h.1 == HazardKind::UnmappedParent)
        .map(|(p, _, e, _)| (p, e))
        .collect();
    assert_eq!(unmapped, [(B, Entity(514)), (C, Entity(514))]);
    step(&mut l);
    let run = step(&mut l);
    assert_eq!(arrives(run, &in_flight(run, B, 1, C)), Some((C, 3)));
    let run = step(&mut l);
    assert!(
        tree(run, C).contains(&(Entity(513), ROOT, id(ID_B, 512))),
        "C keeps Q"
    );
    let wrong: Vec<_> = (hazards(run).into_iter())
        .filter(|h| h.1 == HazardKind::WrongEntityDeleted)
        .map(|h| h.0)
        .collect();
    assert_eq!(wrong, [B], "B still loses Q, C does not");
}

/// The multiplayer lessons in `scenes/`, by file name.
fn lesson_files() -> Vec<String> {
    let dir = scenetree_test_support::repo_root().join("scenes");
    let mut names: Vec<String> = (std::fs::read_dir(&dir).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".scenario.json"))
        .filter(|n| {
            let text = std::fs::read_to_string(dir.join(n)).unwrap();
            scenetree_core::net::lesson::is_net_scenario(&text)
        })
        .collect();
    names.sort();
    names
}

#[test]
fn the_multiplayer_lessons_follow_the_others_and_explain_every_step() {
    assert_eq!(
        lesson_files(),
        [
            "09-mp-child-before-parent.scenario.json",
            "10-mp-raw-parent.scenario.json",
            "11-mp-late-join.scenario.json",
            "12-mp-remote-delete.scenario.json",
        ]
    );
    for name in lesson_files() {
        let s = scenario(&name);
        assert!(!s.title.is_empty() && s.explanation.len() > 20, "{name}");
        assert!(
            s.steps
                .iter()
                .all(|st| st.text.as_deref().is_some_and(|t| t.len() > 20)),
            "{name}: every step says what to look at"
        );
    }
}

#[test]
fn what_the_writer_writes_the_reader_reads() {
    for file in lesson_files() {
        let file = file.as_str();
        let read = scenario(file);
        let written = read.to_json();
        assert_eq!(NetScenario::parse(&written).unwrap(), read, "{file}");
        NetLesson::play_all(read).unwrap();
    }
}

#[test]
fn a_bad_lesson_names_where() {
    let good: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            scenetree_test_support::repo_root()
                .join("scenes/09-mp-child-before-parent.scenario.json"),
        )
        .unwrap(),
    )
    .unwrap();
    type Change = fn(&mut serde_json::Value);
    let cases: [(Change, &str); 5] = [
        (
            |d| d["rounds"][2]["A"][1]["op"] = "synch".into(),
            "rounds[2].A[1].op",
        ),
        (
            |d| d["rounds"][3]["A"][2]["parent"] = true.into(),
            "rounds[3].A[2]",
        ),
        (
            |d| d["rounds"][0]["D"] = serde_json::json!([]),
            "rounds[0].D",
        ),
        (
            |d| d["steps"][1]["actions"][0]["tick"] = 99.into(),
            "steps[1].actions[0]",
        ),
        (|d| d["players"][1]["name"] = "A".into(), "players[1]"),
    ];
    for (change, path) in cases {
        let mut doc = good.clone();
        change(&mut doc);
        let error = NetScenario::parse(&doc.to_string())
            .and_then(NetLesson::new)
            .unwrap_err();
        assert_eq!(
            error.at,
            ErrorAt::Path(path.to_string()),
            "{}",
            error.message
        );
    }
    let error = NetScenario::parse("{\"format\": ").unwrap_err();
    assert!(
        matches!(error.at, ErrorAt::Syntax { line: 1, .. }),
        "{error:?}"
    );
}

#[test]
fn a_player_enters_the_room_when_its_first_round_starts() {
    let spawn = |name: &str| {
        serde_json::json!([
            { "op": "transform", "entity": name },
            { "op": "sync", "entity": name }
        ])
    };
    let doc = serde_json::json!({
        "format": "scenetree-net-scenario/1",
        "title": "B joins at round 2",
        "players": [
            { "address": "0xaaaa00000000000000000000000000000000aaaa", "name": "A" },
            { "address": "0xbbbb00000000000000000000000000000000bbbb", "name": "B" }
        ],
        "rounds": [
            { "A": [] },
            { "A": spawn("P") },
            { "A": spawn("Q"), "B": [] },
            { "A": [], "B": [] },
            { "A": [], "B": [] },
            { "A": [], "B": [] }
        ],
        "steps": [{ "actions": [{ "do": "play" }] }]
    });
    let l = NetLesson::play_all(NetScenario::parse(&doc.to_string()).unwrap()).unwrap();
    let run = l.run();
    let to_b: Vec<(u32, String)> = (run.all_deliveries().into_iter())
        .filter(|d| d.to == B)
        .map(|d| {
            (
                run.script()[d.sent_step.unwrap()].tick,
                d.content.kind_text(),
            )
        })
        .collect();
    // A's tick 2 ran in B's first round, before B: it reaches B. A's tick 1 (P) never does;
    // B learns of P from A's state answer.
    assert_eq!(to_b[0], (2, "CRDT".to_string()));
    assert!(!to_b.iter().any(|(tick, _)| *tick < 2), "{to_b:?}");
    assert!(
        to_b.iter()
            .any(|(_, kind)| kind.starts_with("RES_CRDT_STATE")),
        "{to_b:?}"
    );
    assert_eq!(tree(run, B).len(), 2, "P and Q, in B's numbers");
}
