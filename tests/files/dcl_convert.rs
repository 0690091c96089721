//! Converting scene files between formats with `scenetree convert`: what each target can
//! hold, refusal (and `--lossy`) when it cannot, and a main.crdt made by Decentraland's tools
//! becoming the main.composite they wrote.

use std::path::Path;
use std::process::Command;

use scenetree::crdt::CrdtMessage;
use scenetree::io::{self, dcl_crdt, native};
use scenetree::model::Entity;
use serde_json::Value;

use crate::dcl;

#[test]
fn crdt_to_native_to_crdt_reproduces_the_canonical_file() {
    let dir = tempfile::tempdir().unwrap();
    for pair in dcl::pairs() {
        let json = dir.path().join("scene.json");
        let back = dir.path().join("back.crdt");
        convert(&pair.crdt, &json, false).unwrap();
        convert(&json, &back, false).unwrap();
        let replica = io::load_scene(&pair.crdt).unwrap();
        assert_eq!(
            std::fs::read(&back).unwrap(),
            dcl_crdt::to_state_crdt_bytes(&replica),
            "{}: timestamps included",
            pair.label
        );
        if pair.label != "written by @dcl/ecs" {
            // No tombstones in the templates: the canonical stream of values and deletions.
            assert_eq!(
                std::fs::read(&back).unwrap(),
                dcl_crdt::to_crdt_bytes(&replica)
            );
        }
    }
}

#[test]
fn native_to_crdt_to_native_preserves_everything() {
    let dir = tempfile::tempdir().unwrap();
    // A state with timestamps above 1, tombstones (also of a deleted entity) and a grow-only set.
    let mut r = io::load_scene(&dcl::pairs()[2].crdt).unwrap();
    r.put(Entity(600), 7000, vec![1, 2]).unwrap();
    r.delete_entity(Entity(600)).unwrap();
    r.apply(&CrdtMessage::AppendValue {
        entity: Entity(512),
        component: 1063,
        timestamp: 0,
        data: vec![8, 1],
    });
    let first = dir.path().join("a.json");
    std::fs::write(&first, native::to_native_json(&r)).unwrap();
    let crdt = dir.path().join("b.crdt");
    let second = dir.path().join("c.json");
    convert(&first, &crdt, false).unwrap();
    convert(&crdt, &second, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(&second).unwrap(),
        std::fs::read_to_string(&first).unwrap()
    );
    let back = io::load_scene(&second).unwrap();
    assert_eq!(back.state_messages(), r.state_messages());
    assert_eq!(back.deleted_entities(), r.deleted_entities());
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
fn a_templates_main_crdt_converts_to_the_main_composite_the_inspector_wrote() {
    // A main.crdt names no component and carries no schema; the Inspector's and the smart
    // items' schemas are bundled, so every value of these Inspector-made scenes goes back as
    // the JSON the Inspector wrote. What cannot: the runtime's `composite::root` record
    // (a composite never carries its own), Cozy House's SceneMetadata-v1 (its main.crdt was
    // written by an older SDK that encoded optional fields differently), and the gallery's two
    // Transforms with a -0 rotation, which JSON cannot say (kept exact as binary).
    let dir = tempfile::tempdir().unwrap();
    for pair in &dcl::pairs()[..2] {
        let out = dir.path().join(format!("{}.composite", pair.label));
        convert(&pair.crdt, &out, false).unwrap();
        let components = |path: &Path| -> Vec<(String, Value)> {
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            let mut list: Vec<(String, Value)> = doc["components"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| (c["name"].as_str().unwrap().to_owned(), c.clone()))
                .filter(|(name, _)| name != "composite::root")
                .collect();
            list.sort_by(|a, b| a.0.cmp(&b.0));
            list
        };
        let (ours, inspectors) = (components(&out), components(&pair.composite));
        let names = |l: &[(String, Value)]| l.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&ours), names(&inspectors), "{}", pair.label);
        for ((name, ours), (_, theirs)) in ours.iter().zip(&inspectors) {
            assert_eq!(
                ours["jsonSchema"], theirs["jsonSchema"],
                "{}: {name}'s schema",
                pair.label
            );
            let data = ours["data"].as_object().unwrap();
            for (entity, value) in theirs["data"].as_object().unwrap() {
                let expected = match (pair.label, name.as_str(), entity.as_str()) {
                    ("Cozy-House-Template", "inspector::SceneMetadata-v1", _) => continue,
                    ("art-gallery-template", "core::Transform", "538" | "540") => {
                        assert!(data[entity].get("binary").is_some());
                        continue;
                    }
                    _ => value,
                };
                assert_eq!(
                    &data[entity], expected,
                    "{}: {name} of {entity}",
                    pair.label
                );
            }
            assert_eq!(data.len(), theirs["data"].as_object().unwrap().len());
        }
    }
}
