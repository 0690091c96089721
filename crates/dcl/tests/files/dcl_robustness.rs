//! Truncated, corrupted and random input to every Decentraland decoder gives an error or a
//! defined fallback, never a panic; and whatever the composite writer writes reads back as the
//! same values. (The coverage-guided versions of these are the cargo-fuzz targets in `fuzz/`.)

use crate::dcl;

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use scenetree_core::crdt::{CrdtMessage, Replica};
use scenetree_core::model::{Entity, ids};
use scenetree_dcl::io::{SceneFormat, dcl_composite, dcl_crdt, encode_scene};
use scenetree_dcl::schema::Schema;
use scenetree_dcl::{self as dclmodel, GltfModel, MeshShape};
use serde_json::Value;

fn fixture_texts() -> Vec<String> {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS
        .get_or_init(|| {
            dcl::pairs()
                .iter()
                .map(|p| std::fs::read_to_string(&p.composite).unwrap())
                .collect()
        })
        .clone()
}

/// The Cozy House composite, read once.
fn cozy() -> &'static (Replica, dcl_composite::CompositeDoc) {
    static COZY: OnceLock<(Replica, dcl_composite::CompositeDoc)> = OnceLock::new();
    COZY.get_or_init(|| {
        let (r, d, _) =
            dcl_composite::parse_composite(Path::new("cozy.composite"), &fixture_texts()[0])
                .unwrap();
        (r, d)
    })
}

fn fixture_crdts() -> Vec<Vec<u8>> {
    dcl::pairs()
        .iter()
        .map(|p| std::fs::read(&p.crdt).unwrap())
        .collect()
}

/// Every jsonSchema the fixtures' composites carry.
fn fixture_schemas() -> Vec<Value> {
    let mut out = Vec::new();
    for text in fixture_texts() {
        let doc: Value = serde_json::from_str(&text).unwrap();
        for c in doc["components"].as_array().unwrap() {
            out.push(c["jsonSchema"].clone());
        }
    }
    out
}

/// Parses a composite; whatever it gives, writing it back must work too.
fn read_and_write_composite(text: &str) {
    if let Ok((replica, doc, _)) = dcl_composite::parse_composite(Path::new("fuzz.composite"), text)
    {
        let _ = dcl_composite::composite_json(&replica, &doc);
    }
}

#[test]
fn every_truncation_of_a_real_main_crdt_is_an_error_or_a_prefix() {
    for bytes in fixture_crdts() {
        for cut in 0..bytes.len() {
            match dcl_crdt::parse_crdt(Path::new("cut.crdt"), &bytes[..cut]) {
                Ok(file) => {
                    // A cut on a message boundary is a shorter valid stream: it saves back exactly.
                    let replica = Replica::from_messages(&file.messages);
                    let layout = dcl_crdt::CrdtLayout::from_messages(&file.messages);
                    assert_eq!(
                        dcl_crdt::to_crdt_bytes_in_layout(&replica, &layout),
                        &bytes[..cut]
                    );
                }
                Err(e) => assert!(!e.message.is_empty()),
            }
        }
    }
}

#[test]
fn truncations_of_real_composites_never_panic() {
    for text in fixture_texts() {
        // Every 97th cut point (the files are 150 KB), plus the first and last few hundred.
        let cuts = (0..text.len()).filter(|i| i % 97 == 0 || *i < 300 || *i + 300 > text.len());
        for cut in cuts {
            if text.is_char_boundary(cut) {
                let r = dcl_composite::parse_composite(Path::new("cut.composite"), &text[..cut]);
                assert!(r.is_err() || cut == text.len());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn corrupted_main_crdt_never_panics(
        which in 0usize..3,
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = fixture_crdts().swap_remove(which);
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if let Ok(file) = dcl_crdt::parse_crdt(Path::new("bad.crdt"), &bytes) {
            let replica = Replica::from_messages(&file.messages);
            let layout = dcl_crdt::CrdtLayout::from_messages(&file.messages);
            let _ = dcl_crdt::to_crdt_bytes_in_layout(&replica, &layout);
            let _ = encode_scene(&replica, SceneFormat::DclComposite, &Default::default());
        }
    }

    #[test]
    fn corrupted_composites_never_panic(
        which in 0usize..3,
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<char>()), 1..6),
    ) {
        let mut chars: Vec<char> = fixture_texts().swap_remove(which).chars().collect();
        for (at, c) in flips {
            let i = at.index(chars.len());
            chars[i] = c;
        }
        read_and_write_composite(&chars.into_iter().collect::<String>());
    }

    #[test]
    fn random_text_is_never_a_panic(text in ".{0,200}") {
        read_and_write_composite(&text);
        read_and_write_composite(&format!("{{\"components\": [{text}]}}"));
    }

    #[test]
    fn random_bytes_decode_or_refuse(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = MeshShape::decode(&bytes);
        let _ = GltfModel::decode(&bytes);
        let _ = dcl_crdt::parse_crdt(Path::new("r.crdt"), &bytes);
        for id in [ids::TRANSFORM, ids::NAME, ids::MESH_RENDERER, ids::GLTF_CONTAINER, 1017] {
            let _ = dclmodel::decode(id, &bytes);
            let s = dclmodel::summarize(id, &bytes);
            prop_assert_eq!(s.byte_len, bytes.len());
        }
    }

    #[test]
    fn schema_decoding_of_random_bytes_round_trips_or_refuses(
        index in any::<prop::sample::Index>(),
        bytes in prop::collection::vec(any::<u8>(), 0..96),
    ) {
        let schemas = fixture_schemas();
        let Ok(schema) = Schema::from_json_schema(&schemas[index.index(schemas.len())]) else {
            return Ok(());
        };
        if let Ok(json) = schema.decode(&bytes) {
            // Decoded JSON always encodes; the bytes may differ only where the JSON cannot say
            // them (NaN payloads, booleans and optional flags other than 0/1), which the
            // composite writer detects and stores as binary.
            prop_assert!(schema.encode_component(&json).is_ok());
        }
    }

    #[test]
    fn what_the_composite_writer_writes_reads_back_as_the_same_values(
        values in prop::collection::vec(
            (0usize..6, 512u32..520, prop::collection::vec(any::<u8>(), 0..60)), 1..12),
    ) {
        // A real composite as context, so schema-described components are known.
        let (replica, doc) = cozy();
        let mut replica = replica.clone();
        let components = [ids::TRANSFORM, ids::NAME, ids::MESH_RENDERER, ids::GLTF_CONTAINER,
            2_357_605_385 /* inspector::TransformConfig */, 1017 /* Material: binary only */];
        for (which, entity, mut bytes) in values {
            let component = components[which];
            if component == ids::TRANSFORM {
                bytes.resize(44, 0);
            }
            replica.apply(&CrdtMessage::PutComponent {
                entity: Entity(entity + 100), component, timestamp: 0, data: bytes,
            });
        }
        let written = dcl_composite::composite_json(&replica, doc);
        prop_assert!(written.lost.is_empty());
        let (back, _, report) =
            dcl_composite::parse_composite(Path::new("back.composite"), &written.text).unwrap();
        prop_assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        let values = |r: &Replica| -> Vec<(Entity, Option<u32>, Option<Vec<u8>>)> {
            r.state_messages().into_iter()
                .map(|m| (m.entity(), m.component(), m.data().map(<[u8]>::to_vec)))
                .collect()
        };
        prop_assert_eq!(values(&back), values(&replica));
    }
}

#[test]
fn errors_quote_huge_keys_and_names_cut_to_a_readable_length() {
    let dir = tempfile::tempdir().unwrap();
    let huge = "5".repeat(8 << 20);
    let cases = [
        // An 8 MB entity key in a composite.
        (
            "key.composite",
            format!(
                r#"{{"version":1,"components":[{{"name":"core::Transform","jsonSchema":{{}},"data":{{"{huge}x":{{"json":{{}}}}}}}}]}}"#
            ),
        ),
        // An 8 MB component name listed twice.
        (
            "name.composite",
            format!(
                r#"{{"version":1,"components":[{{"name":"{huge}","data":{{}}}},{{"name":"{huge}","data":{{}}}}]}}"#
            ),
        ),
        // An 8 MB unknown key in a native file.
        (
            "key.json",
            format!(r#"{{"format":"scenetree/1","entities":[],"deleted_entities":[],"{huge}":1}}"#),
        ),
        // An 8 MB string where a number belongs: the JSON parser quotes it.
        (
            "value.json",
            format!(
                r#"{{"format":"scenetree/1","entities":[{{"entity":"{huge}"}}],"deleted_entities":[]}}"#
            ),
        ),
    ];
    for (name, text) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let err = scenetree_dcl::io::open_scene(&path).expect_err(name);
        let line = err.to_string();
        assert!(
            line.len() < 2_000,
            "{name}: a {}-byte error line",
            line.len()
        );
        assert!(line.contains("5555"), "{name}: the start is quoted: {line}");
    }
}
