//! Real Decentraland scenes: main.crdt and main.composite open, save back unchanged, agree with
//! each other, convert between formats, and bad files give clear errors.

use crate::dcl;

use std::path::Path;

use scenetree_core::crdt::{CrdtMessage, Replica, decode_stream};
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_dcl::io::{
    self, Location, SaveContext, SceneFormat, dcl_composite, dcl_crdt, native,
};
use scenetree_dcl::{GltfModel, MeshShape};
use serde_json::Value;

#[test]
fn every_main_crdt_saves_back_byte_for_byte() {
    for pair in dcl::pairs() {
        let original = std::fs::read(&pair.crdt).unwrap();
        let opened = io::open_scene(&pair.crdt).unwrap();
        assert_eq!(opened.format, SceneFormat::DclCrdt);
        assert!(
            opened.notes.is_empty(),
            "{}: {:?}",
            pair.label,
            opened.notes
        );
        let saved = io::encode_scene(&opened.replica, SceneFormat::DclCrdt, &opened.context);
        assert!(saved.lost.is_empty());
        assert_eq!(saved.bytes, original, "{}", pair.label);
        // Without the file's order the same state is written canonically: not the same bytes
        // for the SDK's files, which group messages by component.
        let canonical = dcl_crdt::to_state_crdt_bytes(&opened.replica);
        assert_eq!(canonical.len(), original.len(), "{}", pair.label);
    }
    let cozy = &dcl::pairs()[0];
    let opened = io::open_scene(&cozy.crdt).unwrap();
    assert_ne!(
        dcl_crdt::to_state_crdt_bytes(&opened.replica),
        std::fs::read(&cozy.crdt).unwrap(),
        "the layout is what makes the save exact"
    );
}

#[test]
fn every_main_composite_saves_back_unchanged() {
    for pair in dcl::pairs() {
        let text = std::fs::read_to_string(&pair.composite).unwrap();
        let opened = io::open_scene(&pair.composite).unwrap();
        let saved = io::encode_scene(&opened.replica, SceneFormat::DclComposite, &opened.context);
        assert!(saved.lost.is_empty(), "{}: {:?}", pair.label, saved.lost);
        let saved = String::from_utf8(saved.bytes).unwrap();
        let a: Value = serde_json::from_str(&text).unwrap();
        let b: Value = serde_json::from_str(&saved).unwrap();
        assert_eq!(a, b, "{}: semantically equal", pair.label);
        assert_eq!(saved, text, "{}: and byte for byte", pair.label);
    }
}

#[test]
fn the_entity_names_file_comes_out_as_the_inspector_wrote_it() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let names_of = |composite: &str| {
        let opened = io::open_scene(&root.join(composite)).unwrap();
        io::entity_names::entity_names_ts(&opened.replica)
    };
    // The bundled Cozy House project keeps the Inspector's file beside its composite.
    let cozy = "scenes/Cozy-House-Template/assets/scene/";
    let written = std::fs::read_to_string(root.join(cozy).join("entity-names.ts")).unwrap();
    assert_eq!(names_of(&format!("{cozy}main.composite")), written);
    // The gallery's file still lists a name no entity of its composite has: the Inspector
    // skips rewriting the file when no *new* name appeared since its last write, so a rename
    // or a deletion leaves the old name behind. Written fresh, it is the same file without it.
    let gallery = "tests/fixtures/dcl-projects/art-gallery-template/assets/scene/";
    let written = std::fs::read_to_string(root.join(gallery).join("entity-names.ts")).unwrap();
    let stale = "  Ambient_Sound___Forest_Birds = \"Ambient Sound - Forest Birds\",\n";
    assert!(written.contains(stale));
    assert_eq!(
        names_of(&format!("{gallery}main.composite")),
        written.replacen(stale, "", 1)
    );
}

#[test]
fn main_crdt_and_main_composite_of_a_scene_show_the_same_scene() {
    for pair in dcl::pairs() {
        let from_crdt = io::load_scene(&pair.crdt).unwrap();
        let from_composite = io::load_scene(&pair.composite).unwrap();
        let a = dcl::shown(&from_crdt);
        let b = dcl::shown(&from_composite);
        assert!(a.len() >= 5, "{}: {} entities", pair.label, a.len());
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "{}",
            pair.label
        );
        for (entity, shown) in &a {
            assert_eq!(shown, &b[entity], "{}: entity {entity}", pair.label);
        }
        // The tree of the entities shown (an entity whose only components are kept as JSON,
        // like the player's Animator in the art gallery, is not in the composite's replica).
        let tree = |r: &Replica| -> Vec<(Entity, u32)> {
            dcl::hierarchy(r)
                .into_iter()
                .filter(|(e, _)| e.is_root() || a.contains_key(&e.0))
                .collect()
        };
        assert_eq!(tree(&from_crdt), tree(&from_composite), "{}", pair.label);
    }
}

#[test]
fn the_composite_shows_what_it_says() {
    // Values read straight from the Cozy House composite's JSON.
    let pair = &dcl::pairs()[0];
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&pair.composite).unwrap()).unwrap();
    let component = |name: &str| {
        doc["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()["data"]
            .as_object()
            .unwrap()
            .clone()
    };
    let shown = dcl::shown(&io::load_scene(&pair.composite).unwrap());
    let transforms = component("core::Transform");
    for (key, entry) in &transforms {
        let j = &entry["json"];
        let t = shown[&key.parse::<u32>().unwrap()].transform.unwrap();
        let f = |v: &Value| v.as_f64().unwrap() as f32;
        assert_eq!(t.position.x, f(&j["position"]["x"]), "{key}");
        assert_eq!(t.position.z, f(&j["position"]["z"]), "{key}");
        assert_eq!(t.rotation.w, f(&j["rotation"]["w"]), "{key}");
        assert_eq!(t.scale.y, f(&j["scale"]["y"]), "{key}");
        assert_eq!(
            u64::from(t.parent.0),
            j["parent"].as_u64().unwrap(),
            "{key}"
        );
    }
    for (key, entry) in &component("core-schema::Name") {
        let e = key.parse::<u32>().unwrap();
        assert_eq!(shown[&e].name.as_deref(), entry["json"]["value"].as_str());
    }
    for (key, entry) in &component("core::GltfContainer") {
        let e = key.parse::<u32>().unwrap();
        assert_eq!(shown[&e].gltf.as_deref(), entry["json"]["src"].as_str());
    }
    assert_eq!(shown[&534].mesh, Some(MeshShape::Plane { uvs: vec![] }));
    assert_eq!(shown[&513].name.as_deref(), Some("Lamp_Interior"));
}

#[test]
fn the_scene_written_by_dcl_ecs_decodes_every_shape() {
    let pair = &dcl::pairs()[2];
    let shown = dcl::shown(&io::load_scene(&pair.crdt).unwrap());
    let by_name = |n: &str| {
        shown
            .values()
            .find(|s| s.name.as_deref() == Some(n))
            .unwrap()
            .clone()
    };
    assert!(matches!(by_name("Floor").mesh, Some(MeshShape::Plane { ref uvs }) if uvs.len() == 16));
    assert_eq!(
        by_name("Big table").mesh,
        Some(MeshShape::Box { uvs: vec![] })
    );
    assert_eq!(by_name("Lamp ✨").mesh, Some(MeshShape::Sphere));
    // The SDK's helper takes (entity, radiusBottom, radiusTop): the scene asked for (0.25, 1).
    assert_eq!(
        by_name("Pillar").mesh,
        Some(MeshShape::Cylinder {
            radius_top: Some(1.0),
            radius_bottom: Some(0.25)
        })
    );
    assert_eq!(
        by_name("Tree").gltf.as_deref(),
        Some("assets/models/tree.glb")
    );
    assert_eq!(by_name("Tree").transform.unwrap().parent, Entity(515));
    assert_eq!(by_name("Lamp ✨").transform.unwrap().position.y, 1.25);
    assert!(
        !shown.values().any(|s| s.name.as_deref() == Some("Ghost")),
        "the removed entity is gone"
    );
}

#[test]
fn composite_loads_every_component_of_the_protocol_and_the_schemas() {
    let pair = &dcl::pairs()[1];
    let (replica, doc, report) = dcl_composite::load_composite(&pair.composite).unwrap();
    let loaded: Vec<&str> = report.loaded.iter().map(|(n, _)| n.as_str()).collect();
    for name in [
        "core::Transform",
        "core-schema::Name",
        "core::MeshRenderer",
        "core::GltfContainer",
        "core-schema::Network-Entity",
        "core-schema::Sync-Components",
        "inspector::Nodes",
        "inspector::SceneMetadata-v1",
        "asset-packs::Actions",
        "asset-packs::Triggers",
        "inspector::TransformConfig",
        "core::Material",
        "core::Animator",
        "core::Tween",
        "core::TextShape",
    ] {
        assert!(loaded.contains(&name), "{name} loaded: {loaded:?}");
    }
    assert_eq!(doc.preserved_components(), []);
    assert!(report.preserved.is_empty(), "{:?}", report.preserved);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let materials = replica
        .live_entities()
        .filter(|e| replica.component_data(*e, 1017).is_some())
        .count();
    assert!(materials > 0, "Materials are in the replica");
}

#[test]
fn edits_to_a_composite_keep_everything_else() {
    let pair = &dcl::pairs()[0];
    let opened = io::open_scene(&pair.composite).unwrap();
    let mut replica = opened.replica;
    // Rename one entity, move another, delete the entity that has the Material, add a sphere.
    replica
        .put(Entity(513), ids::NAME, encode_name("Reading lamp"))
        .unwrap();
    let mut t = replica.transform(Entity(514)).unwrap();
    t.position.x += 1.0;
    replica.put_transform(Entity(514), &t).unwrap();
    replica.delete_entity(Entity(534)).unwrap();
    replica
        .put(Entity(515), ids::MESH_RENDERER, MeshShape::Sphere.encode())
        .unwrap();
    let saved = io::encode_scene(&replica, SceneFormat::DclComposite, &opened.context);
    assert!(saved.lost.is_empty(), "{:?}", saved.lost);
    let before: Value =
        serde_json::from_str(&std::fs::read_to_string(&pair.composite).unwrap()).unwrap();
    let after: Value = serde_json::from_slice(&saved.bytes).unwrap();
    let data = |doc: &Value, name: &str| {
        doc["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| c["data"].clone())
            .unwrap()
    };
    assert_eq!(
        data(&after, "core-schema::Name")["513"]["json"]["value"],
        "Reading lamp"
    );
    assert_eq!(
        data(&after, "core::Transform")["514"]["json"]["position"]["x"]
            .as_f64()
            .unwrap() as f32,
        t.position.x
    );
    assert_eq!(
        data(&after, "core::MeshRenderer")["515"]["json"],
        serde_json::json!({"mesh": {"$case": "sphere", "sphere": {}}})
    );
    for name in [
        "core::Material",
        "core::MeshCollider",
        "core::MeshRenderer",
        "core::Transform",
    ] {
        assert!(
            data(&after, name).get("534").is_none(),
            "{name} of the deleted entity"
        );
    }
    // Untouched values are written exactly as read, including ones scenetree only keeps.
    assert_eq!(
        data(&after, "core::Animator"),
        data(&before, "core::Animator")
    );
    assert_eq!(
        data(&after, "core::Transform")["513"],
        data(&before, "core::Transform")["513"]
    );
    assert_eq!(
        data(&after, "core-schema::Name")["514"],
        data(&before, "core-schema::Name")["514"]
    );
    assert_eq!(
        after["components"].as_array().unwrap().len(),
        before["components"].as_array().unwrap().len()
    );
}

#[test]
fn a_crdt_edit_saves_in_place_and_new_values_follow() {
    let pair = &dcl::pairs()[0];
    let original = std::fs::read(&pair.crdt).unwrap();
    let opened = io::open_scene(&pair.crdt).unwrap();
    let mut replica = opened.replica;
    replica
        .put(Entity(513), ids::NAME, encode_name("Reading lamp"))
        .unwrap();
    let fresh = replica.allocate_entity().expect("a free number");
    replica.put_transform(fresh, &Transform::IDENTITY).unwrap();
    let saved = io::encode_scene(&replica, SceneFormat::DclCrdt, &opened.context).bytes;
    let before = decode_stream(&original).unwrap().messages;
    let after = decode_stream(&saved).unwrap().messages;
    assert_eq!(after.len(), before.len() + 1);
    let position = |msgs: &[CrdtMessage], e: u32, c: u32| {
        msgs.iter()
            .position(|m| m.entity() == Entity(e) && m.component() == Some(c))
            .unwrap()
    };
    assert_eq!(
        position(&after, 513, ids::NAME),
        position(&before, 513, ids::NAME)
    );
    assert_eq!(after[position(&after, 513, ids::NAME)].timestamp(), Some(1));
    assert_eq!(
        after.last().unwrap().entity(),
        fresh,
        "new values come last"
    );
    // Every other message is unchanged.
    let unchanged = before.iter().zip(&after).filter(|(a, b)| a == b).count();
    assert_eq!(unchanged, before.len() - 1);
}

#[test]
fn a_scene_not_read_from_a_composite_is_saved_as_one() {
    let mut r = Replica::new();
    let e = Entity(512);
    r.put_transform(
        e,
        &Transform {
            position: glam::Vec3::new(1.0, 2.0, 3.0),
            ..Transform::IDENTITY
        },
    )
    .unwrap();
    r.put(e, ids::NAME, encode_name("Cube")).unwrap();
    r.put(
        e,
        ids::MESH_RENDERER,
        MeshShape::Box { uvs: vec![] }.encode(),
    )
    .unwrap();
    let model = GltfModel {
        src: "assets/a.glb".into(),
        visible_meshes_collision_mask: None,
        invisible_meshes_collision_mask: Some(3),
    };
    r.put(Entity(513), ids::GLTF_CONTAINER, model.encode())
        .unwrap();
    r.put(Entity(513), 1017, vec![0x12, 0x00]).unwrap(); // an empty PBR Material
    let out = io::encode_scene(&r, SceneFormat::DclComposite, &SaveContext::default());
    assert!(out.lost.is_empty(), "{:?}", out.lost);
    let doc: Value = serde_json::from_slice(&out.bytes).unwrap();
    assert_eq!(doc["version"], 1);
    let names: Vec<&str> = doc["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "core::Transform",
            "core::Material",
            "core::MeshRenderer",
            "core::GltfContainer",
            "core-schema::Name"
        ]
    );
    assert_eq!(
        doc["components"][1]["data"]["513"]["json"],
        serde_json::json!({"material": {"$case": "pbr", "pbr": {}}})
    );
    let (back, _, report) = dcl_composite::parse_composite(
        Path::new("x.composite"),
        std::str::from_utf8(&out.bytes).unwrap(),
    )
    .unwrap();
    assert!(report.warnings.is_empty());
    // The same values (a composite has no timestamps: they read back as 0).
    let values = |r: &Replica| -> Vec<(Entity, Option<u32>, Option<Vec<u8>>)> {
        r.state_messages()
            .into_iter()
            .map(|m| (m.entity(), m.component(), m.data().map(<[u8]>::to_vec)))
            .collect()
    };
    assert_eq!(values(&back), values(&r));
}

#[test]
fn bad_composites_name_the_place_and_the_problem() {
    let p = Path::new("bad.composite");
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("{\"components\": [", "not valid JSON: the text ends", None),
        (
            "{\"components\": [,]}",
            "not valid JSON: expected value",
            None,
        ),
        ("[1, 2]", "expected a JSON object", None),
        (
            "{\"version\": 1}",
            "\"components\" list",
            Some("components"),
        ),
        (
            r#"{"components": [{"data": {}}]}"#,
            "name",
            Some("components[0].name"),
        ),
        (
            r#"{"components": [{"name": "core::Transform", "data": {"abc": {"json": {}}}}]}"#,
            "entity number",
            Some("components[0].data[\"abc\"]"),
        ),
        (
            r#"{"components": [{"name": "core::Transform", "data": {"512": {"binary": "@@"}}}]}"#,
            "base64",
            Some("components[0].data[\"512\"].binary"),
        ),
        (
            r#"{"components": [{"name": "core::Transform", "data": {"512": {"other": 1}}}]}"#,
            "expected {\"json\"",
            Some("components[0].data[\"512\"]"),
        ),
        (
            r#"{"components": [{"name": "a", "data": {}}, {"name": "a", "data": {}}]}"#,
            "listed twice",
            Some("components[1].name"),
        ),
    ];
    for (text, expected, at) in cases {
        let e = dcl_composite::parse_composite(p, text).unwrap_err();
        assert!(e.message.contains(expected), "{text}: {e}");
        if let Some(at) = at {
            assert_eq!(e.location, Location::JsonPath((*at).into()), "{text}");
        }
    }
    // A value the runtime would reject is kept, not loaded, and reported with its path.
    let text = r#"{"components": [{"name": "core::Transform",
        "data": {"512": {"json": {"position": [1, 2, 3]}}, "513": {"json": {}}}}]}"#;
    let (replica, doc, report) = dcl_composite::parse_composite(p, text).unwrap();
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(report.warnings[0].contains("components[0].data[\"512\"].json.position"));
    assert!(replica.transform(Entity(512)).is_none());
    assert_eq!(replica.transform(Entity(513)), Some(Transform::IDENTITY));
    let saved = dcl_composite::composite_json(&replica, &doc).text;
    assert!(
        saved.contains("\"position\": [\n"),
        "kept as written: {saved}"
    );
}

#[test]
fn an_edited_composite_keeps_its_layout_and_javascripts_key_order() {
    let pair = &dcl::pairs()[1];
    let text = std::fs::read_to_string(&pair.composite).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let minified = scenetree_dcl::js::stringify(&doc);
    let (mut replica, doc, _) =
        dcl_composite::parse_composite(Path::new("m.composite"), &minified).unwrap();
    // New names on a high and a low entity number: both land at their place in the data.
    replica
        .put(Entity(9000), ids::NAME, encode_name("High"))
        .unwrap();
    replica
        .put(Entity(3), ids::NAME, encode_name("Low"))
        .unwrap();
    let out = dcl_composite::composite_json(&replica, &doc).text;
    assert!(!out.contains('\n'), "minified stays minified");
    let back: Value = serde_json::from_str(&out).unwrap();
    let names = back["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "core-schema::Name")
        .unwrap();
    let keys: Vec<u32> = names["data"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.parse().unwrap())
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
    assert!(keys.contains(&3) && keys.contains(&9000));
}

#[test]
fn native_scenes_hold_every_core_component_decoded_and_read_them_back_exactly() {
    for pair in dcl::pairs() {
        let opened = io::open_scene(&pair.composite).unwrap();
        let text = native::to_native_json(&opened.replica);
        let back = native::parse_native(Path::new("x.json"), &text).unwrap();
        assert_eq!(
            back.state_messages(),
            opened.replica.state_messages(),
            "{}",
            pair.label
        );
        let doc: Value = serde_json::from_str(&text).unwrap();
        let decoded_mesh =
            doc["entities"].as_array().unwrap().iter().any(|e| {
                e["components"]["core::MeshRenderer"]["value"]["mesh"]["$case"].is_string()
            });
        assert!(
            decoded_mesh,
            "{}: MeshRenderer values are decoded",
            pair.label
        );
    }
}
