//! Scene files: native JSON and main.crdt round trips, atomic saves, and clear errors.

use std::path::Path;

use scenetree_core::crdt::{CrdtMessage, Replica};
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_dcl::io::{self, Location, dcl_crdt, native};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/dcl")
        .join(name)
        .join("main.crdt")
}

fn sample_replica() -> Replica {
    let mut r = Replica::new();
    let t = Transform {
        position: glam::Vec3::new(1.5, -0.0, 3.25),
        parent: Entity(513),
        ..Transform::IDENTITY
    };
    r.put_transform(Entity(512), &t).unwrap();
    r.put_transform(Entity(512), &t).unwrap(); // timestamp 2
    r.put(Entity(512), ids::NAME, encode_name("Lamp")).unwrap();
    r.put(Entity(513), 1018, vec![0x1a, 0x00]).unwrap();
    r.put(Entity(513), 1041, vec![1]).unwrap();
    r.delete_component(Entity(513), 1041).unwrap(); // a tombstone
    let mut nan = Transform::IDENTITY;
    nan.scale.y = f32::NAN;
    r.put_transform(Entity(514), &nan).unwrap();
    r.put(Entity(515), 7000, vec![]).unwrap();
    r.delete_entity(Entity(515)).unwrap();
    r.apply(&CrdtMessage::AppendValue {
        entity: Entity(513),
        component: 1063,
        timestamp: 0,
        data: vec![8, 1],
    });
    r
}

#[test]
fn native_json_round_trips_the_whole_crdt_state() {
    let r = sample_replica();
    let text = native::to_native_json(&r);
    let back = native::parse_native(Path::new("mem.json"), &text).unwrap();
    assert_eq!(back.digest(), r.digest());
    assert_eq!(
        back.state_messages(),
        r.state_messages(),
        "timestamps and tombstones included"
    );
    assert_eq!(
        native::to_native_json(&back),
        text,
        "writing again gives the same text"
    );
    // Readable where it can be, exact where it must be.
    assert!(text.contains("\"value\": \"Lamp\""));
    assert!(text.contains("\"core::Transform\""));
    assert!(text.contains("\"deleted\": true"));
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let nan_entity = doc["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["entity"] == 514)
        .unwrap();
    assert!(
        nan_entity["components"]["core::Transform"]["base64"].is_string(),
        "a NaN Transform stays bytes"
    );
    assert!(
        text.find("\"entity\": 512").unwrap() < text.find("\"core-schema::Name\"").unwrap(),
        "entity id first"
    );
}

#[test]
fn main_crdt_to_native_and_back_is_byte_identical_to_the_canonical_stream() {
    for name in ["Cozy-House-Template", "art-gallery-template"] {
        let replica = dcl_crdt::load_replica(&fixture(name)).unwrap();
        let canonical = dcl_crdt::to_crdt_bytes(&replica);
        let json = native::to_native_json(&replica);
        let back = native::parse_native(Path::new("x.json"), &json).unwrap();
        assert_eq!(dcl_crdt::to_crdt_bytes(&back), canonical, "{name}");
        assert!(replica.live_entity_count() > 20, "{name} has its entities");
    }
}

#[test]
fn save_then_open_preserves_everything_and_is_atomic() {
    let dir = tempfile::tempdir().unwrap();
    let r = sample_replica();
    for file in ["scene.json", "scene.crdt"] {
        let path = dir.path().join(file);
        io::save_scene(&r, &path).unwrap();
        let back = io::load_scene(&path).unwrap();
        assert_eq!(back.canonical_messages(), r.canonical_messages(), "{file}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "{leftovers:?}");
}

#[test]
fn bad_native_files_name_the_place_and_the_problem() {
    let p = Path::new("bad.json");
    let cases = [
        // A file cut short is said so, and the place is given once (in the prefix).
        (
            "{\"format\": \"scenetree/1\", \"entities\": [",
            "bad.json:1:39: not valid JSON: the text ends in the middle of a value (is the file cut short?)",
        ),
        (
            "{\"format\": \"scenetree/1\", \"entities\": [}",
            "bad.json:1:40: not valid JSON: expected value",
        ),
        ("{\"entities\": []}", "missing"),
        (
            "{\"format\": \"scenetree/9\", \"entities\": []}",
            "newer scenetree",
        ),
        (
            r#"{"format":"scenetree/1","entities":[{"entity":-1}]}"#,
            "entity id",
        ),
        (
            r#"{"format":"scenetree/1","entities":[{"entity":512,"components":{"core::Transform":{"timestamp":1,"value":{"position":[0,0],"rotation":[0,0,0,1],"scale":[1,1,1]}}}}]}"#,
            "position: expected 3 numbers, found 2",
        ),
        (
            r#"{"format":"scenetree/1","entities":[{"entity":512,"components":{"1018":{"timestamp":1,"base64":"%%%"}}}]}"#,
            "not valid base64",
        ),
        // A misspelt key is named, at every level, instead of being dropped unseen.
        (
            r#"{"format":"scenetree/1","entities":[],"deleted_entitys":[512]}"#,
            "bad.json: unknown key \"deleted_entitys\" (expected format, entities, deleted_entities",
        ),
        (
            r#"{"format":"scenetree/1","entities":[{"entity":512,"component":{}}]}"#,
            "at entities[0]: unknown key \"component\"",
        ),
        (
            r#"{"format":"scenetree/1","entities":[{"entity":512,"components":{"1018":{"timestamp":1,"vaule":{}}}}]}"#,
            "at entities[0].components[\"1018\"]: unknown key \"vaule\"",
        ),
        (
            r#"{"format":"scenetree/1","entities":[{"entity":512,"components":{"core::Transform":{"timestamp":1,"value":{"position":[0,0,0],"rotation":[0,0,0,1],"scale":[1,1,1],"parnet":513}}}}]}"#,
            "value: unknown key \"parnet\" (expected position, rotation, scale, parent",
        ),
        // Found by fuzzing: a number beyond f64 under an unknown key, once skipped unparsed.
        (
            r#"{"format":"scenetree/1","entities":[{"entity":512,"components":{"core::Transform":{"timestamp":1,"value":{"position":[0,0,0],"rotation":[0,0,0,1],"scale":[1,1,1],"np":4E444}}}}]}"#,
            "number out of range",
        ),
        (
            r#"{"format":"scenetree/1","entities":[{"entity":512,"components":{"1018":{"base64":""}}}]}"#,
            "expected a timestamp",
        ),
    ];
    for (text, expected) in cases {
        let err = native::parse_native(p, text).unwrap_err();
        let shown = err.to_string();
        assert!(shown.contains(expected), "{text}\n  gave: {shown}");
        assert!(shown.starts_with("bad.json"), "{shown}");
    }
    let err = native::parse_native(
        p,
        r#"{"format":"scenetree/1","entities":[{"entity":512,"components":{"core::Transform":{"timestamp":1,"value":{"position":[0,0,0],"rotation":[0,0,0,1],"scale":"big"}}}}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        err.location,
        Location::JsonPath("entities[0].components[\"core::Transform\"]".into())
    );
}

/// Valid but unusual documents, and invalid ones: what each means, or why it is refused.
#[test]
fn unusual_native_files_read_as_the_format_says() {
    let t = r#""core::Transform":{"timestamp":2,"value":{"position":[1,2.5,3],"rotation":[0,0,0,1],"scale":[1,1,1],"parent":513}}"#;
    let doc = |entities: &str| format!(r#"{{"format":"scenetree/1","entities":[{entities}]}}"#);
    let read = |text: &str| native::parse_native(Path::new("u.json"), text);
    let refused = |text: &str, expected: &str| {
        let err = read(text).expect_err(text).to_string();
        assert!(err.contains(expected), "{text}\n  gave: {err}");
    };
    // Keys in another order, integers as floats.
    let r = read(&format!(
        r#"{{"entities":[{{"components":{{{t}}},"entity":512}}],"format":"scenetree/1"}}"#
    ))
    .unwrap();
    let lamp = r.transform(Entity(512)).unwrap();
    assert_eq!((lamp.position.y, lamp.parent), (2.5, Entity(513)));
    // One component under its id and its name: both writes apply, the newer wins.
    let r = read(&doc(&format!(
        r#"{{"entity":512,"components":{{{t},"1":{{"timestamp":3,"value":{{"position":[9,9,9],"rotation":[0,0,0,1],"scale":[1,1,1]}}}}}}}}"#
    )))
    .unwrap();
    assert_eq!(r.transform(Entity(512)).unwrap().position.x, 9.0);
    // An escaped key is the key it spells.
    let r = read(&doc(
        r#"{"entity":512,"components":{"core-schema\u003a:Name":{"timestamp":1,"value":"A"}}}"#,
    ))
    .unwrap();
    assert_eq!(
        r.component_data(Entity(512), ids::NAME),
        Some(&encode_name("A")[..])
    );
    // A deleted entry ignores its value; deleted entities are retired last.
    let r = read(
        r#"{"format":"scenetree/1","entities":[{"entity":512,"components":{"7000":{"timestamp":4,"deleted":true,"value":{"no":"codec"}}}}],"deleted_entities":[513]}"#,
    )
    .unwrap();
    assert_eq!(r.component_data(Entity(512), 7000), None);
    assert_eq!(r.deleted_entities(), vec![Entity(513)]);

    // Unknown keys, anywhere; JSON does not say which of two equal keys counts, so neither
    // does the format.
    refused(
        &format!(
            r#"{{"entities":[{{"components":{{{t}}},"x":[1,{{}}],"entity":512}}],"format":"scenetree/1"}}"#
        ),
        "unknown key \"x\"",
    );
    refused(
        &doc(&format!(
            r#"{{"entity":512,"entity":513,"components":{{{t}}}}}"#
        )),
        "\"entity\" is given twice",
    );
    refused(
        &doc(
            r#"{"entity":512,"components":{"core::Transform":{"timestamp":9,"timestamp":2,"base64":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}}}"#,
        ),
        "\"timestamp\" is given twice",
    );
    // Values of the wrong kind.
    refused(
        &doc(
            r#"{"entity":512,"components":{"core::Transform":{"timestamp":1,"value":{"position":[0,0,0],"rotation":[0,0,0,1],"scale":[1,1,1],"parent":null}}}}"#,
        ),
        "parent: expected an entity id",
    );
    refused(
        &doc(
            r#"{"entity":512,"components":{"7000":{"timestamp":1,"deleted":"yes","base64":"AQ=="}}}"#,
        ),
        "expected a boolean",
    );
    refused(
        &doc(
            r#"{"entity":512,"components":{"core-schema::Name":{"timestamp":1,"value":5,"base64":"AQAAAEE="}}}"#,
        ),
        "a Name value is a string",
    );
    // A short Transform, a trailing comma, a grow-only key that is not one.
    refused(
        &doc(r#"{"entity":512,"components":{"core::Transform":{"timestamp":1,"base64":"AQ=="}}}"#),
        "a Transform is 44 bytes, found 1",
    );
    refused(
        r#"{"format":"scenetree/1","entities":[],}"#,
        "not valid JSON",
    );
    refused(
        &doc(r#"{"entity":512,"appended":{"7000":["AQ=="]}}"#),
        "is not a grow-only set",
    );
}

#[test]
fn unknown_extensions_and_missing_files_are_clear_errors() {
    assert!(
        io::load_scene(Path::new("scene.txt"))
            .unwrap_err()
            .to_string()
            .contains("unknown file type")
    );
    assert!(
        io::load_scene(Path::new("/nope/scene.json"))
            .unwrap_err()
            .to_string()
            .contains("cannot read")
    );
}

proptest::proptest! {
    /// Every finite f32 survives the readable JSON form bit for bit (shortest f32 digits).
    #[test]
    fn transform_floats_round_trip_exactly_through_json(bits in proptest::collection::vec(proptest::prelude::any::<u32>(), 10)) {
        let floats: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).map(|f| if f.is_finite() { f } else { 1.5 }).collect();
        let t = Transform {
            position: glam::Vec3::new(floats[0], floats[1], floats[2]),
            rotation: glam::Quat::from_xyzw(floats[3], floats[4], floats[5], floats[6]),
            scale: glam::Vec3::new(floats[7], floats[8], floats[9]),
            parent: Entity(513),
        };
        let mut r = Replica::new();
        r.put_transform(Entity(512), &t).unwrap();
        let text = native::to_native_json(&r);
        let back = native::parse_native(Path::new("p.json"), &text).unwrap();
        proptest::prop_assert_eq!(back.component_data(Entity(512), 1), r.component_data(Entity(512), 1));
    }
}

#[test]
fn transforms_that_are_not_finite_are_named_in_the_load_notes() {
    // A JSON number beyond f32's range reads as an infinity: the entity is named with the
    // value, and nothing else is.
    let mut r = Replica::new();
    let fine = Transform::IDENTITY;
    r.put_transform(Entity(512), &fine).unwrap();
    r.put_transform(Entity(513), &fine).unwrap();
    let json = native::to_native_json(&r).replacen("0.0", "1e39", 1);
    let opened = io::open_scene_bytes(Path::new("scene.json"), json.as_bytes()).unwrap();
    assert_eq!(opened.notes.len(), 1, "{:?}", opened.notes);
    assert!(
        opened.notes[0].contains("entity 512") && opened.notes[0].contains("position x (inf)"),
        "{:?}",
        opened.notes
    );

    // In a main.crdt, NaN and infinities come as they are; past ten entities, a count.
    let mut r = Replica::new();
    r.put_transform(Entity(600), &fine).unwrap();
    for i in 0..12 {
        let mut bad = fine;
        if i == 0 {
            bad.rotation.w = f32::NAN;
        } else {
            bad.scale.z = f32::NEG_INFINITY;
        }
        r.put_transform(Entity(700 + i), &bad).unwrap();
    }
    let bytes = dcl_crdt::to_crdt_bytes(&r);
    let opened = io::open_scene_bytes(Path::new("main.crdt"), &bytes).unwrap();
    assert_eq!(opened.notes.len(), 11, "{:?}", opened.notes);
    assert!(opened.notes[0].contains("entity 700") && opened.notes[0].contains("rotation w (NaN)"));
    assert!(opened.notes[1].contains("entity 701") && opened.notes[1].contains("scale z (-inf)"));
    assert!(
        opened.notes[10].starts_with("2 more entities"),
        "{:?}",
        opened.notes[10]
    );
    assert!(!opened.notes.iter().any(|n| n.contains("entity 600")));
}
