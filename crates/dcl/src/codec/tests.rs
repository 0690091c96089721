use prost_reflect::Value as PValue;
use serde_json::json;

use super::*;
use scenetree_core::model::core_protocol_buffer;

fn message(id: u32) -> ProtoMessage {
    ProtoMessage::of_component(id).unwrap()
}

#[test]
fn every_core_component_but_transform_has_its_message_and_the_ids_agree_with_the_files() {
    let ext = descriptor_pool()
        .get_extension_by_name("decentraland.sdk.components.common.ecs_component_id")
        .unwrap();
    let mut n = 0;
    for (id, name, _, pb) in CORE_COMPONENTS {
        if *id == 1 {
            continue;
        }
        let m = ProtoMessage::of_component(*id).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(m.full_name(), format!("{PACKAGE}.{pb}"));
        let options = m.descriptor().parent_file().options();
        let file_id = options.get_extension(&ext);
        assert_eq!(file_id.as_ref(), &PValue::I32(*id as i32), "{name}");
        n += 1;
    }
    assert_eq!(protocol_components().count(), n);
    assert_eq!(core_protocol_buffer(1017), Some("PBMaterial"));
}

#[test]
fn mesh_renderer_bytes_match_the_sdk() {
    // Bytes printed by @dcl/ecs 7.28.0's MeshRendererSchema.serialize.
    let m = message(1018);
    let cases = [
        (
            json!({"mesh": {"$case": "box", "box": {"uvs": []}}}),
            vec![0x0a, 0x02, 0x0a, 0x00],
        ),
        (
            json!({"mesh": {"$case": "plane", "plane": {"uvs": []}}}),
            vec![0x22, 0x02, 0x0a, 0x00],
        ),
        (
            json!({"mesh": {"$case": "sphere", "sphere": {}}}),
            vec![0x12, 0x00],
        ),
        (json!({}), vec![]),
        (
            json!({"mesh": {"$case": "cylinder", "cylinder": {"radiusTop": 1}}}),
            vec![0x1a, 0x05, 0x0d, 0x00, 0x00, 0x80, 0x3f],
        ),
    ];
    for (value, bytes) in cases {
        assert_eq!(m.encode(&value).unwrap(), bytes, "{value}");
        assert_eq!(m.decode(&bytes).unwrap(), value);
    }
    // A box without its list: the runtime throws iterating `undefined`.
    let e = m
        .encode(&json!({"mesh": {"$case": "box", "box": {}}}))
        .unwrap_err();
    assert_eq!(e.path, ".mesh.box.uvs");
}

#[test]
fn implicit_fields_follow_the_generated_encoder() {
    let gltf = message(1041);
    // `src` "" is not written; a missing src makes the runtime throw.
    assert_eq!(gltf.encode(&json!({"src": ""})).unwrap(), Vec::<u8>::new());
    assert_eq!(gltf.encode(&json!({})).unwrap_err().path, ".src");
    assert_eq!(gltf.decode(&[]).unwrap(), json!({"src": ""}));
    // An explicit zero of an optional field is written.
    let bytes = gltf
        .encode(&json!({"src": "a.glb", "visibleMeshesCollisionMask": 0, "invisibleMeshesCollisionMask": 3}))
        .unwrap();
    assert_eq!(&bytes[bytes.len() - 4..], [0x20, 0x00, 0x28, 0x03]);
    // A Tween with no duration key writes NaN (undefined !== 0).
    let tween = message(1102);
    let bytes = tween.encode(&json!({"easingFunction": 0})).unwrap();
    assert_eq!(bytes, [0x0d, 0x00, 0x00, 0xc0, 0x7f]);
    assert_eq!(
        tween.decode(&bytes).unwrap(),
        json!({"duration": null, "easingFunction": 0})
    );
}

#[test]
fn malformed_values_and_bytes_are_errors_naming_the_field() {
    let material = message(1017);
    let e = material
        .encode(&json!({"material": {"$case": "pbr", "pbr": {"albedoColor": {"r": "red"}}}}))
        .unwrap_err();
    assert_eq!(e.path, ".material.pbr.albedoColor.r");
    assert!(material.decode(&[0x12, 0x05, 0x3a]).is_err(), "truncated");
    assert!(material.decode(&[0x00]).is_err(), "field 0");
    let e = message(1030).decode(&[0x0a, 0x01, 0xff]).unwrap_err();
    assert_eq!(e.path, ".text");
}
