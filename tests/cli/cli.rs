//! The headless command line: `crdt apply`, `tree`, `tree --json`, and its errors.

use std::path::Path;
use std::process::Command;

use scenetree_core::crdt::{CrdtMessage, decode_stream, encode_stream};
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_dcl::io;
use serde_json::Value;

use crate::dcl;

fn scenetree(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scenetree"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn transform_put(entity: u32, parent: u32, x: f32, ts: u32) -> CrdtMessage {
    let t = Transform {
        position: glam::Vec3::new(x, 0.0, 0.0),
        parent: Entity(parent),
        ..Transform::IDENTITY
    };
    CrdtMessage::put_transform(Entity(entity), ts, &t)
}

fn write(dir: &Path, name: &str, messages: &[CrdtMessage]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, encode_stream(messages)).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn crdt_apply_merges_streams_in_order_into_the_canonical_file() {
    let dir = tempfile::tempdir().unwrap();
    let first = write(
        dir.path(),
        "a.crdt",
        &[transform_put(513, 0, 1.0, 1), transform_put(512, 0, 2.0, 1)],
    );
    let second = write(
        dir.path(),
        "b.crdt",
        &[
            transform_put(513, 512, 5.0, 2),
            transform_put(512, 0, 9.0, 0),
        ],
    );
    let out = dir.path().join("out.crdt");
    let run = scenetree(&[
        "crdt",
        "apply",
        &first,
        &second,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let messages = decode_stream(&std::fs::read(&out).unwrap())
        .unwrap()
        .messages;
    // Sorted by entity; 513's newer write won, 512's older one was ignored.
    assert_eq!(
        messages,
        vec![
            transform_put(512, 0, 2.0, 1),
            transform_put(513, 512, 5.0, 2)
        ]
    );
}

#[test]
fn crdt_apply_names_the_file_and_byte_offset_of_a_corrupt_stream() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.crdt", &[transform_put(512, 0, 1.0, 1)]);
    let mut bytes = encode_stream(&[transform_put(512, 0, 1.0, 1), transform_put(513, 0, 1.0, 1)]);
    bytes.truncate(bytes.len() - 3);
    let bad = dir.path().join("bad.crdt");
    std::fs::write(&bad, &bytes).unwrap();
    let out = dir.path().join("out.crdt");
    let run = scenetree(&[
        "crdt",
        "apply",
        &good,
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("bad.crdt") && stderr.contains("at byte 68"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written on failure");
}

#[test]
fn tree_json_reports_parents_reasons_cycles_and_world_matrices() {
    let dir = tempfile::tempdir().unwrap();
    let name = CrdtMessage::PutComponent {
        entity: Entity(512),
        component: ids::NAME,
        timestamp: 1,
        data: encode_name("Table"),
    };
    let file = write(
        dir.path(),
        "scene.crdt",
        &[
            transform_put(512, 0, 3.0, 1),
            name,
            transform_put(513, 512, 1.0, 1), // under Table
            transform_put(600, 601, 0.0, 1), // 600 <-> 601: a cycle
            transform_put(601, 600, 0.0, 1),
            transform_put(700, 650, 0.0, 1), // 650 never written: missing parent
        ],
    );
    let run = scenetree(&["tree", "--json", &file]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let tree: Value = serde_json::from_slice(&run.stdout).unwrap();
    let list = tree["entities"].as_array().unwrap();
    let get = |e: u64| {
        list.iter()
            .find(|o| o["entity"] == e)
            .unwrap_or_else(|| panic!("entity {e} listed"))
    };
    assert_eq!(get(512)["name"], "Table");
    assert_eq!(get(513)["effective_parent"], 512);
    assert_eq!(get(513)["world"][12], 4.0, "translation x of 513 = 3 + 1");
    assert_eq!(get(600)["reason"], "cycle");
    assert_eq!(get(600)["cycle"], 1);
    assert_eq!(
        tree["cycles"],
        serde_json::json!([{"cycle": 1, "members": [600, 601]}])
    );
    assert_eq!(get(600)["effective_parent"], 0);
    assert_eq!(get(600)["declared_parent"], 601);
    assert_eq!(get(700)["reason"], "missing_parent");
    assert_eq!(get(700)["effective_parent"], 650);
    assert_eq!(get(650)["implicit"], true);
    assert!(
        tree.get("inspector_tree").is_none(),
        "no inspector::Nodes, nothing to compare"
    );
}

#[test]
fn tree_json_reports_the_inspectors_tree_on_a_project() {
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/Cozy-House-Template");
    let run = scenetree(&["tree", "--json", project.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let tree: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(
        tree["inspector_tree"],
        serde_json::json!({"misplaced": [], "leftovers": [512, 540]})
    );
}

#[test]
fn tree_text_marks_rerooted_entities() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "s.crdt",
        &[
            transform_put(600, 601, 0.0, 1),
            transform_put(601, 600, 0.0, 1),
        ],
    );
    let run = scenetree(&["tree", &file]);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        text.contains("600  [re-rooted: cycle 1; declared parent 601]"),
        "{text}"
    );
    assert!(
        text.contains("cycle 1: 2 entities, 600 → 601 → 600"),
        "{text}"
    );
}

#[test]
fn random_and_truncated_files_are_errors_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let mut seed = 12345u64;
    for i in 0..20 {
        let len = (i * 37) % 300;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                (seed >> 56) as u8
            })
            .collect();
        let path = dir.path().join(format!("r{i}.crdt"));
        std::fs::write(&path, &bytes).unwrap();
        let run = scenetree(&["tree", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        if !run.status.success() {
            assert!(stderr.contains("at byte"), "{stderr}");
        }
    }
    let missing = scenetree(&["tree", "/nonexistent/scene.crdt"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
}

#[test]
fn the_fixture_scenes_print_their_names() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/dcl/Cozy-House-Template/main.crdt"
    );
    let run = scenetree(&["tree", fixture]);
    assert!(run.status.success());
    assert!(String::from_utf8_lossy(&run.stdout).contains("513 \"Lamp_Interior\""));
}

#[test]
fn example_writes_a_bundled_scene_that_opens_again() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("showroom.crdt");
    let run = scenetree(&["example", "showroom", out.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let replica = scenetree_dcl::io::load_scene(&out).unwrap();
    assert_eq!(replica.live_entity_count(), 17);
    let bad = scenetree(&[
        "example",
        "showroom",
        dir.path().join("x.txt").to_str().unwrap(),
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown file type"));
}

#[test]
fn a_malformed_window_size_is_refused_before_any_window_opens() {
    let run = scenetree(&["--window-size", "wide", "--screenshot", "/tmp/never.png"]);
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("expected WIDTHxHEIGHT"));
}

#[test]
fn tree_text_marks_transforms_that_are_not_finite() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "s.crdt",
        &[
            transform_put(512, 0, f32::NAN, 1),
            transform_put(513, 512, 1.0, 1), // finite itself: not marked, though not drawn
            transform_put(514, 0, 1.0, 1),
        ],
    );
    let run = scenetree(&["tree", &file]);
    assert!(run.status.success());
    let text = String::from_utf8(run.stdout).unwrap();
    let marked: Vec<&str> = text.lines().filter(|l| l.contains("[not finite")).collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(marked[0].trim_start().starts_with("512"), "{text}");

    let run = scenetree(&["tree", "--json", &file]);
    let tree: Value = serde_json::from_slice(&run.stdout).unwrap();
    let list = tree["entities"].as_array().unwrap();
    let flagged: Vec<&Value> = list.iter().filter(|o| o["not_finite"] == true).collect();
    assert_eq!(flagged.len(), 1);
    assert_eq!(flagged[0]["entity"], 512);
}

/// `scenetree convert input output [--lossy]`: Ok, or its standard error.
fn convert(input: &Path, output: &Path, lossy: bool) -> Result<(), String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scenetree"));
    cmd.arg("convert").arg(input).arg(output);
    if lossy {
        cmd.arg("--lossy");
    }
    let out = cmd.output().expect("binary runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn lossy_conversions_refuse_unless_asked_and_say_what_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let pair = &dcl::pairs()[0];
    // A composite naming a core component @dcl/ecs 7.28.0 does not have: kept, not loaded.
    let text = std::fs::read_to_string(&pair.composite).unwrap().replacen(
        "\"core::Material\"",
        "\"core::FutureMaterial\"",
        1,
    );
    let future = dir.path().join("future.composite");
    std::fs::write(&future, text).unwrap();
    let out = dir.path().join("main.crdt");
    let err = convert(&future, &out, false).unwrap_err();
    assert!(err.contains("core::FutureMaterial: 1 value(s)"), "{err}");
    assert!(err.contains("--lossy"), "{err}");
    assert!(!out.exists(), "nothing written");
    convert(&future, &out, true).unwrap();
    let written = io::load_scene(&out).unwrap();
    assert_eq!(
        dcl::shown(&written),
        dcl::shown(&io::load_scene(&pair.crdt).unwrap())
    );
    // Every component of the template itself converts without loss.
    convert(&pair.composite, &out, false).unwrap();

    // A main.crdt names no component and carries no jsonSchema: a component whose schema
    // scenetree does not know (one made up here) cannot be written to a composite.
    let mut replica = io::load_scene(&pair.crdt).unwrap();
    let made_up = 0x5eed_0001;
    replica.put(Entity(512), made_up, vec![1, 2, 3]).unwrap();
    let with_unknown = dir.path().join("unknown.crdt");
    io::save_scene(&replica, &with_unknown).unwrap();
    let composite = dir.path().join("main.composite");
    let err = convert(&with_unknown, &composite, false).unwrap_err();
    assert!(
        err.contains(&format!("component #{made_up} (1 value(s))")),
        "{err}"
    );
    assert!(
        !err.contains("inspector::"),
        "the tools' schemas are known: {err}"
    );
    assert!(!composite.exists(), "nothing written");
    convert(&with_unknown, &composite, true).unwrap();
    let written = io::load_scene(&composite).unwrap();
    assert_eq!(
        dcl::shown(&written),
        dcl::shown(&io::load_scene(&pair.crdt).unwrap())
    );
}
