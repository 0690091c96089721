//! Conformance with the real SDK: `oracle-net/` runs real `@dcl/sdk` 7.28.0 players under
//! seeded random schedules (and one scripted session per hazard) and writes captures; scenetree
//! replays each and must reproduce, per player and tick, every byte the SDK sent to its renderer
//! (Transform with its rewritten parent, MeshRenderer, DELETE_COMPONENT, DELETE_ENTITY: the
//! renderer's filter keeps NetworkEntity, NetworkParent and SyncComponents from it) and every
//! item it passed to `sendBinary` (CRDT batches, state requests and state answers), then the
//! final renderer tree and network map the SDK reports in each capture's sidecar.
//!
//! Needs `npm ci --prefix oracle-net` (the README's test command runs it).
//! `SCENETREE_NET_CAPTURES=DIR` replays the captures already in DIR instead of making new ones.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use scenetree_core::net::HazardKind;
use scenetree_core::net::capture::{Capture, ReplayReport, replay_json, replay_with};
use serde_json::Value;

/// Random schedules to run (the issue asks for at least 200).
const SCHEDULES: usize = 200;

/// Seeds past those, each a schedule whose capture hides a write the replay only finds by its
/// search (found on schedules the search was not written against): a NetworkParent written
/// by `parentEntity` on an entity without SyncComponents, anew (642, 680, 692) or again with
/// the same value (601), under a parent a remote delete has unmapped since (499); a
/// `removeParent` there ticks before its effect shows (445, 551, 577); a fixed id the model
/// mapped on an earlier receipt (310) or names only in the mismatching tick's own items (3411);
/// a fixed-id holder's first-tick child parented through it (261).
const REGRESSION_SEEDS: &str = "261,310,445,499,551,577,601,642,680,692,3411";

fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../oracle-net")
}

/// Runs the generator into `out` with `args`.
fn generate(out: &Path, args: &[&str]) {
    let dir = oracle_dir();
    assert!(
        dir.join("node_modules/@dcl/sdk").exists(),
        "the multiplayer oracle is not installed: run `npm ci --prefix oracle-net` first"
    );
    let status = Command::new("node")
        .arg(dir.join("run.mjs"))
        .args(args)
        .arg("--out")
        .arg(out)
        .status()
        .expect("node must be installed to run the oracle");
    assert!(status.success(), "oracle-net/run.mjs {args:?} failed");
}

/// The captures of `dir`, sorted by name.
fn captures_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("capture directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

/// What one capture's replay got wrong, one line each (at most a few per capture).
fn check(path: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).expect("capture readable");
    let capture = Capture::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut problems = Vec::new();
    // Per player, how many entities its scene made on its first tick: writes of those can
    // follow first-tick writes no capture shows (their timestamps then run ahead).
    let mut first_tick_entities = vec![0u32; capture.header.players.len()];
    let replay = replay_with(&capture, |tick| {
        if tick.output.tick == 0 {
            first_tick_entities[tick.player] = tick
                .ops
                .iter()
                .filter_map(|op| match op.entity() {
                    scenetree_core::net::EntityRef::Scene(k) => Some(k + 1),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
        }
        if problems.len() >= 3 {
            return;
        }
        let address = &capture.header.players[tick.player].address;
        let who = capture.header.players[tick.player]
            .name
            .as_deref()
            .unwrap_or(address);
        if std::env::var("SCENETREE_NET_TRACE")
            .is_ok_and(|w| Some(w.as_str()) == capture.header.players[tick.player].name.as_deref())
        {
            eprintln!(
                "{name} tick {}: {:?}",
                tick.output.tick,
                tick.output
                    .received
                    .iter()
                    .filter(|n| !matches!(
                        n,
                        scenetree_core::net::engine::ReceiveNote::Applied { .. }
                    ))
                    .collect::<Vec<_>>()
            );
        }
        if std::env::var_os("SCENETREE_NET_EXPLAIN").is_some() && !tick.matches() {
            explain(&capture, tick);
        }
        if let Some(at) = tick.renderer_differs_at {
            problems.push(format!(
                "{name}:{}: player {who} tick {}: renderer bytes differ from byte {at}",
                tick.line, tick.output.tick
            ));
        }
        if !tick.sent_differs.is_empty() {
            problems.push(format!(
                "{name}:{}: player {who} tick {}: sent items {:?} differ",
                tick.line, tick.output.tick, tick.sent_differs
            ));
        }
        for note in &tick.notes {
            problems.push(format!(
                "{name}:{}: player {who} tick {}: {note}",
                tick.line, tick.output.tick
            ));
        }
        for op in &tick.ops {
            let made_first = matches!(op.entity(),
                scenetree_core::net::EntityRef::Scene(k) if k < first_tick_entities[tick.player]);
            if let scenetree_core::net::SceneOp::Put { unseen, .. }
            | scenetree_core::net::SceneOp::Delete { unseen, .. } = op
                && *unseen > 0
                && !made_first
            {
                problems.push(format!(
                    "{name}:{}: player {who} tick {}: the model's clock is behind the SDK's: {op:?}",
                    tick.line, tick.output.tick
                ));
            }
        }
    });
    let sidecar: Value = serde_json::from_str(
        &std::fs::read_to_string(path.with_extension("final.json")).expect("sidecar readable"),
    )
    .expect("sidecar is JSON");
    if !problems.is_empty() {
        return problems;
    }
    let report = serde_json::to_value(ReplayReport::of(&replay)).expect("report is JSON");
    for (at, (ours, theirs)) in report["players"]
        .as_array()
        .unwrap()
        .iter()
        .zip(sidecar["players"].as_array().unwrap())
        .enumerate()
    {
        let mut theirs = theirs.clone();
        let invisible = invisible_first_tick_entities(&capture, at);
        let ours_map = ours["network_map"].as_array().unwrap().clone();
        theirs["network_map"]
            .as_array_mut()
            .unwrap()
            .retain(|entry| {
                ours_map.contains(entry)
                    || !invisible.contains(&(entry["entity"].as_u64().unwrap() as u32))
            });
        for key in ["renderer_tree", "network_map"] {
            if ours[key] != theirs[key] {
                problems.push(format!(
                    "{name}: player {}: final {key} differs:\n  ours   {}\n  the SDK {}",
                    theirs["name"], ours[key], theirs[key]
                ));
            }
        }
        if ours["network_id"] != theirs["network_id"] {
            problems.push(format!(
                "{name}: player {}: network id differs",
                theirs["name"]
            ));
        }
    }
    problems
}

/// Prints a mismatching tick decoded, ours against the SDK's (`SCENETREE_NET_EXPLAIN=1`).
fn explain(capture: &Capture, tick: &scenetree_core::net::capture::ReplayedTick) {
    use scenetree_core::crdt::decode_stream_prefix;
    use scenetree_core::net::comms::decode_outbound;
    let (_, line) = capture.ticks.iter().find(|(l, _)| *l == tick.line).unwrap();
    let show = |bytes: &[u8]| format!("{:?}", decode_stream_prefix(bytes).0.messages);
    eprintln!(
        "=== line {} player {} tick {}",
        tick.line, line.player, line.tick
    );
    eprintln!("ops: {:?}", tick.ops);
    eprintln!("notes: {:?}", tick.notes);
    let theirs = line.renderer.as_ref().map_or(vec![], |r| r.0.clone());
    eprintln!("renderer ours:   {}", show(&tick.output.renderer));
    eprintln!("renderer theirs: {}", show(&theirs));
    if let Some(at) = tick.renderer_differs_at {
        let hex = |b: &[u8]| {
            b.iter()
                .skip(at.saturating_sub(8))
                .take(24)
                .map(|x| format!("{x:02x}"))
                .collect::<String>()
        };
        eprintln!(
            "renderer at {at}: ours {} theirs {}",
            hex(&tick.output.renderer),
            hex(&theirs)
        );
    }
    let item = |data: &[u8]| match decode_outbound(data, capture.dialect()) {
        Ok(i) if i.code == 3 => format!("RES {}", show(&i.payload[1 + i.payload[0] as usize..])),
        Ok(i) => format!("{} {}", i.code, show(i.payload)),
        Err(e) => e.to_string(),
    };
    for s in &tick.output.sent {
        eprintln!("sent ours:   {:?} {}", s.to, item(&s.data));
    }
    for s in &line.sent {
        eprintln!("sent theirs: {:?} {}", s.to, item(&s.data.0));
    }
}

/// The entities player `at` made on its first tick and never named in anything it sent: a
/// capture cannot show whether they are synced (their NetworkEntity was written on a tick that
/// sends nothing, and no state answer or later write carries it), so the final network map is
/// compared without them.
fn invisible_first_tick_entities(capture: &Capture, at: usize) -> Vec<u32> {
    use scenetree_core::crdt::decode_stream_prefix;
    use scenetree_core::net::comms::{CommsKind, decode_outbound, decode_state_response};
    let address = &capture.header.players[at].address;
    let own = scenetree_core::net::network_id_from_address(address);
    let mut lines = capture
        .ticks
        .iter()
        .map(|(_, t)| t)
        .filter(|t| &t.player == address);
    let Some(first) = lines.next() else {
        return Vec::new();
    };
    let mut entities: Vec<u32> = first.renderer.as_ref().map_or_else(Vec::new, |r| {
        decode_stream_prefix(&r.0)
            .0
            .messages
            .iter()
            .map(|m| m.entity().0)
            .collect()
    });
    for line in lines {
        for item in &line.sent {
            let Ok(item) = decode_outbound(&item.data.0, capture.dialect()) else {
                continue;
            };
            let crdt = match item.kind {
                Some(CommsKind::Crdt) => item.payload,
                Some(CommsKind::ResCrdtState) => match decode_state_response(item.payload) {
                    Ok(r) => r.crdt,
                    Err(_) => continue,
                },
                _ => continue,
            };
            for message in decode_stream_prefix(crdt).0.messages {
                if message.network_id() == Some(own) {
                    entities.retain(|&e| e != message.entity().0);
                }
            }
        }
    }
    entities
}

fn check_all(dir: &Path) -> (usize, Vec<String>) {
    let files = captures_in(dir);
    let problems = files.iter().flat_map(|f| check(f)).collect();
    (files.len(), problems)
}

/// The captures the tests replay: `SCENETREE_NET_CAPTURES`, or the oracle's 200 random
/// schedules and scripted sessions, made once per test run.
fn captures() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        if let Some(dir) = std::env::var_os("SCENETREE_NET_CAPTURES") {
            return PathBuf::from(dir);
        }
        let out = tempfile::tempdir().expect("temporary directory").keep();
        generate(
            &out,
            &["--seeds", &format!("1..{SCHEDULES},{REGRESSION_SEEDS}")],
        );
        generate(&out, &["--scenario", "all"]);
        out
    })
}

#[test]
fn replays_reproduce_the_real_sdk_byte_for_byte() {
    let (count, problems) = check_all(captures());
    if std::env::var_os("SCENETREE_NET_CAPTURES").is_none() {
        let regressions = REGRESSION_SEEDS.split(',').count();
        assert!(
            count > SCHEDULES + regressions,
            "only {count} captures were written"
        );
    }
    assert!(
        problems.is_empty(),
        "{} problems in {count} captures:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The hazards each scripted session shows, as `oracle-net/README.md` describes what the real
/// SDK's renderers got: (player, kind, entity, tick).
/// (player, kind, entity, tick).
type Expected = (&'static str, HazardKind, u32, u32);

const SCRIPTED_HAZARDS: &[(&str, &[Expected])] = &[
    (
        "hazard-1-child-before-parent",
        &[("B", HazardKind::SelfParent, 512, 6)],
    ),
    (
        "hazard-2-raw-parent",
        &[
            ("B", HazardKind::RawParent, 514, 6),
            ("C", HazardKind::RawParent, 514, 6),
        ],
    ),
    (
        "hazard-3-late-join",
        &[
            ("C", HazardKind::RepeatedStateResponse, 513, 4),
            ("C", HazardKind::RepeatedStateResponse, 514, 4),
            ("C", HazardKind::RepeatedStateResponse, 515, 4),
        ],
    ),
    (
        "hazard-4-remote-delete",
        &[
            ("B", HazardKind::WrongEntityDeleted, 512, 7),
            ("B", HazardKind::UnmappedParent, 514, 8),
            ("C", HazardKind::WrongEntityDeleted, 512, 7),
            ("C", HazardKind::UnmappedParent, 514, 9),
        ],
    ),
    (
        "hazard-5-remove-parent",
        &[
            ("A", HazardKind::ParentNotRemoved, 513, 3),
            ("B", HazardKind::ParentNotRemoved, 513, 5),
            ("C", HazardKind::ParentNotRemoved, 513, 5),
        ],
    ),
];

#[test]
fn each_scripted_hazard_shows_where_the_real_sdk_shows_it() {
    for (name, expected) in SCRIPTED_HAZARDS {
        let path = captures().join(format!("{name}.jsonl"));
        let capture = Capture::parse(&std::fs::read_to_string(&path).expect("scenario written"))
            .expect("scenario capture reads");
        let replay = scenetree_core::net::capture::replay(&capture);
        let mut found: Vec<(String, HazardKind, u32, u32)> = Vec::new();
        for (at, hazards) in replay.hazards.iter().enumerate() {
            let player = capture.header.players[at].name.clone().unwrap_or_default();
            for hazard in hazards {
                assert!(
                    hazard.cause.ends_with('.')
                        && hazard.cause.contains(&hazard.entity.to_string()),
                    "{name}: a cause is one sentence naming the entity: {:?}",
                    hazard.cause
                );
                found.push((player.clone(), hazard.kind, hazard.entity.0, hazard.tick));
            }
        }
        found.sort();
        let mut expected: Vec<_> = expected
            .iter()
            .map(|(p, k, e, t)| (p.to_string(), *k, *e, *t))
            .collect();
        expected.sort();
        assert_eq!(found, expected, "{name}");
    }
}

#[test]
fn replay_json_follows_the_contract() {
    let path = captures().join("hazard-4-remote-delete.jsonl");
    let capture = Capture::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let json: Value = serde_json::from_str(&replay_json(&capture)).expect("one JSON document");
    let players = json["players"].as_array().expect("players");
    assert_eq!(players.len(), capture.header.players.len());
    for (player, header) in players.iter().zip(&capture.header.players) {
        let keys: Vec<&str> = player
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "address",
                "network_id",
                "network_map",
                "renderer_tree",
                "hazards"
            ]
        );
        assert_eq!(player["address"], header.address.as_str());
        let sorted = |key: &str| {
            let entities: Vec<u64> = player[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["entity"].as_u64().unwrap())
                .collect();
            entities.windows(2).all(|w| w[0] < w[1])
        };
        assert!(sorted("network_map") && sorted("renderer_tree"));
        for entry in player["network_map"].as_array().unwrap() {
            let keys: Vec<&str> = entry
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, ["entity", "network_id", "entity_id"]);
        }
        for hazard in player["hazards"].as_array().unwrap() {
            let keys: Vec<&str> = hazard
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, ["kind", "entity", "tick"]);
        }
    }
    assert_eq!(players[1]["hazards"][0]["kind"], "wrong_entity_deleted");
}
