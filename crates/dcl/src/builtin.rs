//! The `jsonSchema` `@dcl/ecs` 7.28.0 declares for the components it defines itself, as a
//! composite records them: `core::Transform`, the `core-schema::*` components, and the
//! protocol-buffer stub every other core component has.

use serde_json::{Value, json};

use scenetree_core::model::component::ids;
use scenetree_core::model::{core_component_name, core_protocol_buffer};

/// (name, jsonSchema) of a component the runtime defines itself: `core::*` and the five
/// `core-schema::*` components. `None` for every other id (their schema lives in the scene).
pub fn builtin_json_schema(id: u32) -> Option<(&'static str, Value)> {
    let integer = |kind: &str| json!({"type": "integer", "serializationType": kind});
    let network = || {
        json!({"type": "object", "serializationType": "map", "properties": {
            "networkId": integer("int64"), "entityId": integer("entity")}})
    };
    Some(match id {
        ids::TRANSFORM => {
            let xyz = json!({"type": "object", "properties": {
                "x": {"type": "number"}, "y": {"type": "number"}, "z": {"type": "number"}}});
            let xyzw = json!({"type": "object", "properties": {
                "x": {"type": "number"}, "y": {"type": "number"}, "z": {"type": "number"},
                "w": {"type": "number"}}});
            (
                "core::Transform",
                json!({"type": "object", "properties": {"position": xyz, "scale": xyz,
                    "rotation": xyzw, "parent": {"type": "integer"}},
                    "serializationType": "transform"}),
            )
        }
        ids::NAME => (
            "core-schema::Name",
            json!({"type": "object", "properties": {
                "value": {"type": "string", "serializationType": "utf8-string"}},
                "serializationType": "map"}),
        ),
        ids::NETWORK_ENTITY => ("core-schema::Network-Entity", network()),
        ids::NETWORK_PARENT => ("core-schema::Network-Parent", network()),
        2_241_712_969 => (
            "core-schema::Sync-Components",
            json!({"type": "object", "properties": {"componentIds": {"type": "array",
                "items": integer("int64"), "serializationType": "array"}},
                "serializationType": "map"}),
        ),
        4_148_173_090 => (
            "core-schema::Tags",
            json!({"type": "object", "properties": {"tags": {"type": "array",
                "items": {"type": "string", "serializationType": "utf8-string"},
                "serializationType": "array"}}, "serializationType": "map"}),
        ),
        _ => {
            let name = core_component_name(id)?;
            let pb = core_protocol_buffer(id)?;
            (
                name,
                json!({"type": "object", "properties": {},
                    "serializationType": "protocol-buffer", "protocolBuffer": pb}),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;
    use scenetree_core::model::component_id_from_name;

    #[test]
    fn core_schema_names_hash_to_their_ids_and_schemas_build() {
        for id in [
            ids::NAME,
            ids::NETWORK_ENTITY,
            ids::NETWORK_PARENT,
            2_241_712_969,
            4_148_173_090,
        ] {
            let (name, schema) = builtin_json_schema(id).unwrap();
            assert_eq!(component_id_from_name(name), id, "{name}");
            assert!(Schema::from_json_schema(&schema).is_ok(), "{name}");
        }
        let (name, schema) = builtin_json_schema(1018).unwrap();
        assert_eq!(name, "core::MeshRenderer");
        assert_eq!(schema["protocolBuffer"], "PBMeshRenderer");
        assert!(
            builtin_json_schema(2_032_030_903).is_none(),
            "inspector::Nodes"
        );
    }
}
