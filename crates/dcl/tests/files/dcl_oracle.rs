//! scenetree's Decentraland files checked against the reference runtime, `@dcl/ecs` 7.28.0
//! (`oracle/`): it reads what scenetree writes and sees what scenetree shows, and scenetree's
//! composite reader produces the bytes the runtime stores.

use crate::dcl::{self, node};

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use scenetree_core::crdt::{CrdtMessage, Replica, decode_stream, encode_stream};
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_dcl::io::{self, SceneFormat, dcl_composite};
use scenetree_dcl::{GltfModel, MeshShape, component_id};
use serde_json::Value;

/// (entity, component) → bytes of a stream of PUTs.
fn registers(bytes: &[u8]) -> HashMap<(u32, u32), Vec<u8>> {
    decode_stream(bytes)
        .unwrap()
        .messages
        .into_iter()
        .filter_map(|m| match m {
            CrdtMessage::PutComponent {
                entity,
                component,
                data,
                ..
            } => Some(((entity.0, component), data)),
            _ => None,
        })
        .collect()
}

#[test]
fn composite_values_are_the_bytes_dcl_ecs_stores() {
    let dir = tempfile::tempdir().unwrap();
    for pair in dcl::pairs() {
        let reference = dir.path().join("reference.crdt");
        node("composite-to-crdt.cjs", &[&pair.composite, &reference]);
        let theirs = registers(&std::fs::read(&reference).unwrap());
        let (replica, doc, _) = dcl_composite::load_composite(&pair.composite).unwrap();
        let preserved: Vec<u32> = doc
            .preserved_components()
            .into_iter()
            .filter_map(|(name, _)| component_id(name))
            .collect();
        let mut compared = 0;
        for (&(entity, component), bytes) in &theirs {
            match replica.component_data(Entity(entity), component) {
                Some(ours) => {
                    assert_eq!(
                        ours,
                        bytes.as_slice(),
                        "{}: {entity}/{component}",
                        pair.label
                    );
                    compared += 1;
                }
                None => assert!(
                    preserved.contains(&component),
                    "{}: {entity}/{component} is neither loaded nor reported as kept",
                    pair.label
                ),
            }
        }
        for msg in replica.state_messages() {
            let key = (msg.entity().0, msg.component().unwrap());
            assert!(
                theirs.contains_key(&key),
                "{}: {key:?} only in scenetree",
                pair.label
            );
        }
        assert!(compared >= 15, "{}: {compared} values compared", pair.label);
    }
}

#[test]
fn files_written_by_dcl_ecs_are_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    node("make-scene.cjs", &[dir.path()]);
    let committed =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/ecs");
    for file in ["scene.crdt", "scene.composite"] {
        assert!(
            std::fs::read(dir.path().join(file)).unwrap()
                == std::fs::read(committed.join(file)).unwrap(),
            "{file}: run `node oracle/make-scene.cjs tests/fixtures/ecs` and review the change"
        );
    }
}

/// What @dcl/ecs reports for a main.crdt, keyed by entity (see oracle/dump-crdt.cjs).
fn dcl_ecs_sees(crdt: &Path) -> BTreeMap<u32, Value> {
    let out = node("dump-crdt.cjs", &[crdt]);
    let list: Vec<Value> = serde_json::from_slice(&out).unwrap();
    list.into_iter()
        .map(|row| (row["entity"].as_u64().unwrap() as u32, row))
        .collect()
}

/// Asserts that the runtime shows exactly what scenetree shows: the same entities, names,
/// Transforms (float for float), mesh kinds and model paths.
fn assert_same_as_dcl_ecs(label: &str, ours: &Replica, theirs: &BTreeMap<u32, Value>) {
    let shown = dcl::shown(ours);
    assert_eq!(
        shown.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "{label}: entities"
    );
    for (entity, s) in &shown {
        let row = &theirs[entity];
        assert_eq!(
            s.name.as_deref(),
            row["name"].as_str(),
            "{label}: name of {entity}"
        );
        assert_eq!(
            s.gltf.as_deref(),
            row["gltf"].as_str(),
            "{label}: model of {entity}"
        );
        assert_eq!(
            s.mesh.as_ref().map(MeshShape::kind),
            row["mesh"].as_str(),
            "{label}: mesh of {entity}"
        );
        match (&s.transform, &row["transform"]) {
            (None, Value::Null) => {}
            (Some(t), j) => {
                let f = |v: &Value| v.as_f64().unwrap() as f32;
                let theirs = Transform {
                    position: glam::Vec3::new(
                        f(&j["position"]["x"]),
                        f(&j["position"]["y"]),
                        f(&j["position"]["z"]),
                    ),
                    rotation: glam::Quat::from_xyzw(
                        f(&j["rotation"]["x"]),
                        f(&j["rotation"]["y"]),
                        f(&j["rotation"]["z"]),
                        f(&j["rotation"]["w"]),
                    ),
                    scale: glam::Vec3::new(
                        f(&j["scale"]["x"]),
                        f(&j["scale"]["y"]),
                        f(&j["scale"]["z"]),
                    ),
                    parent: Entity(j["parent"].as_u64().unwrap() as u32),
                };
                assert_eq!(t, &theirs, "{label}: Transform of {entity}");
            }
            (None, j) => panic!("{label}: {entity} has no Transform here, {j} there"),
        }
    }
}

/// The edits an editor makes: move, rotate, rename, reparent, give a shape, delete, create.
fn edit(replica: &mut Replica) -> Entity {
    let mut t = replica.transform(Entity(513)).unwrap();
    t.position += glam::Vec3::new(1.5, 0.25, -2.0);
    t.rotation = glam::Quat::from_rotation_y(0.7);
    replica.put_transform(Entity(513), &t).unwrap();
    replica
        .put(Entity(514), ids::NAME, encode_name("Front door ✨"))
        .unwrap();
    let mut child = replica.transform(Entity(515)).unwrap();
    child.parent = Entity(513);
    replica.put_transform(Entity(515), &child).unwrap();
    replica
        .put(
            Entity(520),
            ids::MESH_RENDERER,
            MeshShape::Cylinder {
                radius_top: Some(0.1),
                radius_bottom: None,
            }
            .encode(),
        )
        .unwrap();
    replica.delete_entity(Entity(518)).unwrap();
    let fresh = replica.allocate_entity().expect("a free number");
    let placed = Transform {
        position: glam::Vec3::new(3.0, 0.0, 4.0),
        scale: glam::Vec3::splat(0.5),
        parent: Entity(513),
        ..Transform::IDENTITY
    };
    replica.put_transform(fresh, &placed).unwrap();
    replica
        .put(fresh, ids::NAME, encode_name("New chair"))
        .unwrap();
    let model = GltfModel {
        src: "assets/scene/Models/chair.glb".into(),
        visible_meshes_collision_mask: None,
        invisible_meshes_collision_mask: Some(3),
    };
    replica
        .put(fresh, ids::GLTF_CONTAINER, model.encode())
        .unwrap();
    fresh
}

#[test]
fn dcl_ecs_reads_back_the_main_crdt_scenetree_saves_after_edits() {
    let dir = tempfile::tempdir().unwrap();
    let pair = &dcl::pairs()[0];
    // Unedited first: the runtime sees what scenetree shows.
    let opened = io::open_scene(&pair.crdt).unwrap();
    assert_same_as_dcl_ecs(pair.label, &opened.replica, &dcl_ecs_sees(&pair.crdt));
    let mut replica = opened.replica;
    let fresh = edit(&mut replica);
    let out = dir.path().join("main.crdt");
    let lost = io::save_scene_with(&replica, &opened.context, &out, false).unwrap();
    assert!(lost.is_empty());
    let theirs = dcl_ecs_sees(&out);
    assert_same_as_dcl_ecs("edited main.crdt", &replica, &theirs);
    assert!(!theirs.contains_key(&518), "the deleted entity is gone");
    assert_eq!(theirs[&fresh.0]["name"], "New chair");
}

#[test]
fn dcl_ecs_reads_back_the_main_composite_scenetree_saves_after_edits() {
    let dir = tempfile::tempdir().unwrap();
    for pair in dcl::pairs().iter().take(1) {
        let opened = io::open_scene(&pair.composite).unwrap();
        let mut replica = opened.replica;
        edit(&mut replica);
        let composite = dir.path().join("main.composite");
        io::save_scene_with(&replica, &opened.context, &composite, false).unwrap();
        // The runtime instances our composite, writes its main.crdt, then reads that back.
        let crdt = dir.path().join("from-composite.crdt");
        node("composite-to-crdt.cjs", &[&composite, &crdt]);
        assert_same_as_dcl_ecs("edited main.composite", &replica, &dcl_ecs_sees(&crdt));
    }
}

#[test]
fn dcl_ecs_sees_what_scenetree_shows_in_every_fixture() {
    for pair in dcl::pairs() {
        let replica = io::load_scene(&pair.crdt).unwrap();
        assert_same_as_dcl_ecs(pair.label, &replica, &dcl_ecs_sees(&pair.crdt));
        // And a main.crdt written from the composite reads back the same.
        let opened = io::open_scene(&pair.composite).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("main.crdt");
        let bytes = io::encode_scene(&opened.replica, SceneFormat::DclCrdt, &opened.context).bytes;
        std::fs::write(&out, bytes).unwrap();
        assert_same_as_dcl_ecs(pair.label, &opened.replica, &dcl_ecs_sees(&out));
    }
}

#[test]
fn a_composite_converts_to_the_main_crdt_the_sdk_writes_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for pair in dcl::pairs() {
        let reference = dir.path().join("reference.crdt");
        node("composite-to-crdt.cjs", &[&pair.composite, &reference]);
        let ours = dir.path().join("ours.crdt");
        // What `scenetree convert` does.
        let opened = io::open_scene(&pair.composite).unwrap();
        io::save_scene_with(&opened.replica, &opened.context, &ours, false)
            .unwrap_or_else(|e| panic!("{}: convert failed: {e}", pair.label));
        let (ours, theirs) = (
            std::fs::read(&ours).unwrap(),
            std::fs::read(&reference).unwrap(),
        );
        assert!(
            ours == theirs,
            "{}: scenetree wrote {} bytes, the SDK {} (first difference at byte {:?})",
            pair.label,
            ours.len(),
            theirs.len(),
            ours.iter().zip(&theirs).position(|(a, b)| a != b)
        );
    }
}

#[test]
fn composites_written_by_javascript_in_any_layout_save_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for pair in dcl::pairs() {
        for mode in ["minified", "tabs", "numbers"] {
            let path = dir.path().join(format!("{mode}.composite"));
            node(
                "restringify.cjs",
                &[&pair.composite, &path, Path::new(mode)],
            );
            let text = std::fs::read(&path).unwrap();
            let opened = io::open_scene(&path).unwrap();
            let saved =
                io::encode_scene(&opened.replica, SceneFormat::DclComposite, &opened.context);
            assert!(
                saved.bytes == text,
                "{} ({mode}): saved back differently, first difference at byte {:?}",
                pair.label,
                saved.bytes.iter().zip(&text).position(|(a, b)| a != b)
            );
        }
    }
}

#[test]
fn entities_at_a_later_version_convert_without_deletions_as_the_sdk_writes_them() {
    // A composite naming entities at a version above 0 (512 at version 1, 516 at version 2:
    // ids with gaps below them in the numbering). @dcl/ecs retires the lower versions in its
    // entity container but writes no DELETE_ENTITY for them: its main.crdt holds only the
    // values. `scenetree convert` must write the same bytes.
    let dir = tempfile::tempdir().unwrap();
    let fixture = crate::project_fixtures::repo_root().join("tests/fixtures/ecs/scene.composite");
    let mut json: Value = serde_json::from_slice(&std::fs::read(fixture).unwrap()).unwrap();
    for component in json["components"].as_array_mut().unwrap() {
        let data = component["data"].as_object_mut().unwrap();
        for (old, new) in [(512u32, 512 + (1 << 16)), (516, 516 + (2 << 16))] {
            if let Some(value) = data.remove(&old.to_string()) {
                data.insert(new.to_string(), value);
            }
        }
    }
    let composite = dir.path().join("versioned.composite");
    std::fs::write(&composite, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
    let reference = dir.path().join("reference.crdt");
    node("composite-to-crdt.cjs", &[&composite, &reference]);
    let theirs = std::fs::read(&reference).unwrap();
    let opened = io::open_scene(&composite).unwrap();
    let ours = io::encode_scene(&opened.replica, SceneFormat::DclCrdt, &opened.context).bytes;
    let kinds = |bytes: &[u8]| -> Vec<String> {
        decode_stream(bytes)
            .unwrap()
            .messages
            .iter()
            .map(|m| format!("{m:?}").chars().take(40).collect())
            .collect()
    };
    assert!(
        ours == theirs,
        "scenetree: {:#?}\nthe SDK: {:#?}",
        kinds(&ours),
        kinds(&theirs)
    );
}

#[test]
fn a_transform_shorter_than_44_bytes_is_refused_as_dcl_ecs_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let good = CrdtMessage::put_transform(Entity(512), 1, &Transform::IDENTITY);
    let after = CrdtMessage::put_transform(Entity(514), 1, &Transform::IDENTITY);
    for length in [0, 12, 43, 44, 50] {
        let short = CrdtMessage::PutComponent {
            entity: Entity(513),
            component: Transform::COMPONENT_ID,
            timestamp: 1,
            data: vec![0; length],
        };
        let path = dir.path().join(format!("short{length}.crdt"));
        std::fs::write(&path, encode_stream([&good, &short, &after])).unwrap();
        let runtime = std::process::Command::new("node")
            .arg("dump-crdt.cjs")
            .arg(&path)
            .current_dir(dcl::oracle_dir())
            .output()
            .expect("node must be installed to run the oracle");
        let opened = io::open_scene(&path);
        if length < Transform::BYTE_LEN {
            assert!(!runtime.status.success(), "@dcl/ecs read {length} bytes");
            assert!(
                String::from_utf8_lossy(&runtime.stderr).contains("Outside of the bounds"),
                "{}",
                String::from_utf8_lossy(&runtime.stderr)
            );
            let err = opened.expect_err("refused, not loaded without entity 513");
            assert_eq!(
                err.location,
                io::Location::Byte(good.encoded_len()),
                "{err}"
            );
            assert!(
                err.to_string()
                    .contains(&format!("entity 513 holds {length} bytes")),
                "{err}"
            );
            // The salvage offered for a damaged file stops there too.
            let bytes = std::fs::read(&path).unwrap();
            let salvaged = io::salvage_scene_bytes(&path, &bytes).expect("the first message");
            assert_eq!(salvaged.damage.at, good.encoded_len());
            assert_eq!(salvaged.opened.replica.live_entity_count(), 1);
        } else {
            assert!(
                runtime.status.success(),
                "{}",
                String::from_utf8_lossy(&runtime.stderr)
            );
            let opened = opened.expect("44 bytes or more are read");
            assert_eq!(opened.replica.live_entity_count(), 3, "{length}");
        }
    }
}
