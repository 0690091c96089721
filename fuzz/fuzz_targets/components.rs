//! Component decoders: MeshRenderer, GltfContainer, Name, Transform, the summaries, and the
//! @dcl/ecs schema codec on the schemas real composites use. The first byte picks the schema.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use scenetree_dcl::schema::Schema;
use scenetree_dcl::{GltfModel, MeshShape};

fn schemas() -> &'static [Schema] {
    static SCHEMAS: OnceLock<Vec<Schema>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let text = include_str!("../../tests/fixtures/ecs/scene.composite");
        let doc: serde_json::Value = serde_json::from_str(text).expect("fixture is JSON");
        doc["components"]
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|c| Schema::from_json_schema(&c["jsonSchema"]).ok())
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let _ = MeshShape::decode(data).map(|m| m.encode());
    let _ = GltfModel::decode(data).map(|g| g.encode());
    for id in [1, 1017, 1018, 1041, 3_864_921_337] {
        assert_eq!(scenetree_dcl::summarize(id, data).byte_len, data.len());
    }
    if let Some((&pick, rest)) = data.split_first() {
        let list = schemas();
        let schema = &list[pick as usize % list.len()];
        if let Ok(json) = schema.decode(rest) {
            schema.encode_component(&json).expect("decoded JSON encodes");
        }
    }
});
