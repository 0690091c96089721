//! The `jsonSchema`s of the components Decentraland's own tools put in scenes: the Inspector's
//! editor state (`inspector::Selection`, `SceneMetadata-v1`, `TransformConfig`, `Config`,
//! `UIState`) and the smart items' (`asset-packs::Actions`, `Triggers`, `States`, `Counter`,
//! `ActionTypes`, `AdminTools`).
//!
//! A main.crdt names none of its components and carries no schema, so without these a scene
//! read from one could not be written as a main.composite, which needs both. They are copied,
//! unchanged, from what the Inspector (with @dcl/asset-packs, both Apache-2.0) wrote into the
//! bundled templates' composites (`tests/fixtures/dcl/*/main.composite`); a test checks that
//! they still are. The other components the Inspector writes are known elsewhere: the
//! runtime's own in [`super::builtin_json_schema`], `Nodes`, `Hide` and `Lock` in
//! [`super::nodes`].

use std::sync::OnceLock;

use serde_json::Value;

use super::ComponentCodec;
use scenetree_core::model::component::component_id_from_name;

/// One tool component: its id, name, `jsonSchema` and the codec built from it (built once:
/// the inspector panel asks for it every frame a component is shown).
struct ToolComponent {
    id: u32,
    name: String,
    schema: Value,
    codec: Option<ComponentCodec>,
}

/// Every tool component, in the order the table lists them.
fn table() -> &'static [ToolComponent] {
    static TABLE: OnceLock<Vec<ToolComponent>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let entries: Vec<Value> = serde_json::from_str(include_str!("tool_schemas.json"))
            .expect("tool_schemas.json is a JSON array");
        entries
            .into_iter()
            .map(|mut entry| {
                let name = entry["name"]
                    .as_str()
                    .expect("every entry has a name")
                    .to_owned();
                let schema = entry["jsonSchema"].take();
                let id = component_id_from_name(&name);
                let codec = ComponentCodec::for_component(&name, id, Some(&schema)).ok();
                ToolComponent {
                    id,
                    name,
                    schema,
                    codec,
                }
            })
            .collect()
    })
}

/// The name and `jsonSchema` of tool component `id` (as the Inspector writes them into a
/// main.composite), or `None` when it is not one of them.
pub fn tool_json_schema(id: u32) -> Option<(&'static str, Value)> {
    find(id).map(|c| (c.name.as_str(), c.schema.clone()))
}

/// The codec of tool component `id`, built from its bundled schema.
pub fn tool_codec(id: u32) -> Option<&'static ComponentCodec> {
    find(id).and_then(|c| c.codec.as_ref())
}

/// The names of every tool component with a bundled schema.
pub fn tool_component_names() -> impl Iterator<Item = &'static str> {
    table().iter().map(|c| c.name.as_str())
}

fn find(id: u32) -> Option<&'static ToolComponent> {
    table().iter().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_schema_is_one_the_codec_reads() {
        let names: Vec<&str> = tool_component_names().collect();
        assert_eq!(names.len(), 11);
        for name in names {
            let id = component_id_from_name(name);
            let (found, schema) = tool_json_schema(id).unwrap();
            assert_eq!(found, name);
            assert!(
                ComponentCodec::for_component(name, id, Some(&schema)).is_ok(),
                "{name}"
            );
            assert!(tool_codec(id).is_some(), "{name}");
        }
        assert!(tool_json_schema(scenetree_core::model::ids::TRANSFORM).is_none());
    }
}
