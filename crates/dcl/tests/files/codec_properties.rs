//! Properties of the component codec (`model::dcl::codec`) over random input: random bytes and
//! random JSON values of every protobuf component decode, encode or are refused with an error
//! naming the field, never a panic; and what one side produces, the other reads back to the
//! same value. (`fuzz/fuzz_targets/codec.rs` is the coverage-guided version; the oracle test
//! `codec_oracle.rs` checks the values against the SDK itself.)

use std::path::Path;

use proptest::prelude::*;
use prost_reflect::Kind;
use scenetree_dcl::codec::{ProtoMessage, descriptor_pool, protocol_components};
use scenetree_dcl::io::dcl_composite;
use scenetree_dcl::js::contains_null;
use serde_json::{Map, Value, json};

fn components() -> Vec<ProtoMessage> {
    protocol_components().map(|(_, m)| m).collect()
}

/// Every property name the protocol uses (camel case, as the SDK's objects have them), so
/// random objects hit real fields.
fn field_names() -> Vec<String> {
    let mut names: Vec<String> = descriptor_pool()
        .all_messages()
        .flat_map(|m| {
            let oneofs: Vec<String> = m.oneofs().map(|o| o.name().to_owned()).collect();
            m.fields()
                .map(|f| f.json_name().to_owned())
                .chain(oneofs)
                .collect::<Vec<_>>()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

fn json_value(names: Vec<String>) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        any::<u32>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        prop_oneof![Just(1e-7), Just(3.5e38), Just(-0.5), Just(4294967296.0)]
            .prop_map(|f| json!(f)),
        "[a-z ]{0,6}".prop_map(Value::String),
    ];
    let keys = names.clone();
    leaf.prop_recursive(5, 64, 6, move |inner| {
        let key = prop::sample::select(keys.clone());
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner.clone()), 0..6)
                .prop_map(|kv| { Value::Object(kv.into_iter().collect::<Map<String, Value>>()) }),
            // A oneof value: {"$case": name, name: value}.
            (key, inner).prop_map(|(k, v)| json!({"$case": k.clone(), k: v})),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_decode_to_json_that_encodes_back_to_the_same_json(
        pick in any::<prop::sample::Index>(),
        bytes in prop::collection::vec(any::<u8>(), 0..96),
    ) {
        let list = components();
        let m = list[pick.index(list.len())];
        if let Ok(json) = m.decode(&bytes) {
            let again = m.encode(&json);
            prop_assert!(again.is_ok(), "{}: decoded {json} does not encode: {:?}", m.full_name(), again);
            if !contains_null(&json) {
                let back = m.decode(&again.unwrap()).unwrap();
                prop_assert_eq!(back, json);
            }
        }
    }

    #[test]
    fn random_values_encode_or_are_refused_with_a_field_and_read_back(
        pick in any::<prop::sample::Index>(),
        value in json_value(field_names()),
    ) {
        let list = components();
        let m = list[pick.index(list.len())];
        match m.encode(&value) {
            Ok(bytes) => {
                let json = m.decode(&bytes);
                prop_assert!(json.is_ok(), "{}: wrote {bytes:?} for {value} and cannot read it: {:?}", m.full_name(), json);
                // A missing implicit field is written (as the SDK writes `undefined`), so the
                // bytes may gain it once; the JSON they read as is a fixed point.
                let json = json.unwrap();
                if !contains_null(&json) {
                    let again = m.encode(&json).unwrap();
                    prop_assert_eq!(m.decode(&again).unwrap(), json, "{}: {}", m.full_name(), value);
                }
            }
            Err(e) => prop_assert!(!e.message.is_empty()),
        }
    }
}

#[test]
fn the_codec_reads_what_prost_reflect_writes() {
    // An independent protobuf implementation: prost-reflect's canonical encoding of a message
    // with every scalar field set decodes to those values.
    for m in components() {
        let desc = m.descriptor();
        let mut dynamic = prost_reflect::DynamicMessage::new(desc.clone());
        for f in desc.fields() {
            let v = match f.kind() {
                _ if f.is_list() || f.containing_oneof().is_some() => continue,
                Kind::Float => prost_reflect::Value::F32(1.5),
                Kind::Int32 => prost_reflect::Value::I32(-7),
                Kind::Uint32 => prost_reflect::Value::U32(7),
                Kind::Bool => prost_reflect::Value::Bool(true),
                Kind::String => prost_reflect::Value::String("x".into()),
                Kind::Enum(_) => prost_reflect::Value::EnumNumber(1),
                _ => continue,
            };
            dynamic.set_field(&f, v);
        }
        let bytes = prost::Message::encode_to_vec(&dynamic);
        let json = m
            .decode(&bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", m.full_name()));
        for f in desc.fields() {
            if dynamic.has_field(&f) {
                let want = match dynamic.get_field(&f).as_ref() {
                    prost_reflect::Value::F32(x) => json!(x),
                    prost_reflect::Value::I32(x) => json!(x),
                    prost_reflect::Value::U32(x) => json!(x),
                    prost_reflect::Value::Bool(x) => json!(x),
                    prost_reflect::Value::String(x) => json!(x),
                    prost_reflect::Value::EnumNumber(x) => json!(x),
                    _ => continue,
                };
                assert_eq!(json[f.json_name()], want, "{}.{}", m.full_name(), f.name());
            }
        }
        // And writes the same bytes back (prost-reflect writes by field number; the SDK by
        // declaration order, which is the same for these messages when no oneof is set).
        let ours = m.encode(&json).unwrap();
        let theirs = prost_reflect::DynamicMessage::decode(desc.clone(), ours.as_slice()).unwrap();
        for f in desc.fields() {
            assert_eq!(
                theirs.get_field(&f),
                dynamic.get_field(&f),
                "{}.{}: {json}",
                m.full_name(),
                f.name()
            );
        }
    }
}

#[test]
fn a_malformed_value_in_a_composite_names_the_component_the_entity_and_the_field() {
    let text = r#"{"version": 1, "components": [{"name": "core::Material", "jsonSchema": {},
        "data": {"534": {"json": {"material": {"$case": "pbr", "pbr": {"albedoColor": {"r": "red"}}}}}}}]}"#;
    let (replica, doc, report) =
        dcl_composite::parse_composite(Path::new("m.composite"), text).unwrap();
    assert_eq!(report.warnings.len(), 1);
    let w = &report.warnings[0];
    assert!(
        w.starts_with(
            "core::Material on entity 534, field .material.pbr.albedoColor.r: expected a number"
        ),
        "{w}"
    );
    assert!(
        w.contains(r#"components[0].data["534"].json.material.pbr.albedoColor.r"#),
        "{w}"
    );
    assert_eq!(replica.live_entities().count(), 0, "not loaded");
    assert_eq!(doc.preserved_components(), [("core::Material", 1)]);
}
