//! One codec per component, whatever its kind: the JSON a composite holds ⇄ the bytes the
//! runtime stores. `core::Transform` has its 44-byte layout, every other core component its
//! protobuf message ([`super::codec`]), and every other component (`core-schema::*`,
//! `inspector::*`, `asset-packs::*`, scene components) the layout its `jsonSchema` describes
//! ([`super::schema`]).

use serde_json::Value;

use super::codec::ProtoMessage;
use super::js::FieldError;
use super::json_forms::{transform_from_json, transform_to_json};
use super::schema::{Schema, SchemaError};
use super::{builtin_json_schema, core_component_id, is_core_grow_only};
use scenetree_core::model::Transform;
use scenetree_core::model::component::ids;

/// How one component's values convert between JSON and bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum ComponentCodec {
    /// `core::Transform`: 44 bytes (position, rotation, scale, parent).
    Transform,
    /// A core component's protobuf message.
    Protobuf(ProtoMessage),
    /// A layout described by a `jsonSchema`.
    Schema(Schema),
}

/// Why no codec fits a component: its values can be kept as bytes, not read as JSON.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NoCodec {
    /// A grow-only set (APPEND_VALUE) has no single value to write.
    #[error("a grow-only component cannot hold composite values")]
    GrowOnly,
    /// A `core::` name the runtime does not define.
    #[error("@dcl/ecs 7.28.0 has no core component of this name")]
    UnknownCore,
    /// A jsonSchema this codec cannot encode.
    #[error("its jsonSchema is not one scenetree can encode: {0}")]
    UnsupportedSchema(SchemaError),
    /// No jsonSchema, so its JSON values have no known layout.
    #[error("it has no jsonSchema, so its JSON values have no known layout")]
    NoSchema,
}

impl ComponentCodec {
    /// The codec the runtime uses for a component: its own definition when it has one (core
    /// components, `core-schema::*`), else the one `json_schema` describes. `Err` says why no
    /// codec fits.
    pub fn for_component(
        name: &str,
        id: u32,
        json_schema: Option<&Value>,
    ) -> Result<ComponentCodec, NoCodec> {
        if is_core_grow_only(id) {
            return Err(NoCodec::GrowOnly);
        }
        if id == ids::TRANSFORM {
            return Ok(ComponentCodec::Transform);
        }
        if let Some(message) = ProtoMessage::of_component(id) {
            return Ok(ComponentCodec::Protobuf(message));
        }
        if name.starts_with("core::") && core_component_id(name).is_none() {
            return Err(NoCodec::UnknownCore);
        }
        // The runtime prefers a definition it already has over the composite's schema.
        let builtin = builtin_json_schema(id).map(|(_, s)| s);
        match builtin
            .as_ref()
            .or(json_schema)
            .map(Schema::from_json_schema)
        {
            Some(Ok(s)) => Ok(ComponentCodec::Schema(s)),
            Some(Err(e)) => Err(NoCodec::UnsupportedSchema(e)),
            None => Err(NoCodec::NoSchema),
        }
    }

    /// The codec of a component id the runtime defines itself (core and `core-schema::*`).
    pub fn builtin(id: u32) -> Option<ComponentCodec> {
        let (name, schema) = builtin_json_schema(id)?;
        ComponentCodec::for_component(name, id, Some(&schema)).ok()
    }

    /// The codec of a component scenetree knows without a composite: the runtime's own
    /// ([`Self::builtin`]), or one of the Decentraland tools' (the Inspector's `inspector::*`,
    /// the smart items' `asset-packs::*`; see [`super::tool_schemas`]).
    pub fn known(id: u32) -> Option<ComponentCodec> {
        ComponentCodec::builtin(id)
            .or_else(|| {
                let (name, schema) = super::nodes::inspector_json_schema(id)?;
                ComponentCodec::for_component(name, id, Some(&schema)).ok()
            })
            .or_else(|| super::tool_schemas::tool_codec(id).cloned())
    }

    /// The bytes the runtime stores for a composite's JSON value.
    pub fn encode(&self, value: &Value) -> Result<Vec<u8>, FieldError> {
        match self {
            ComponentCodec::Transform => transform_from_json(value).map(|b| b.to_vec()),
            ComponentCodec::Protobuf(m) => m.encode(value),
            ComponentCodec::Schema(s) => s.encode_component(value),
        }
    }

    /// The JSON the runtime's object for these bytes prints as.
    pub fn decode(&self, bytes: &[u8]) -> Result<Value, FieldError> {
        match self {
            ComponentCodec::Transform => Transform::from_bytes(bytes)
                .map(|t| transform_to_json(&t))
                .map_err(|e| FieldError {
                    path: String::new(),
                    message: e.to_string(),
                }),
            ComponentCodec::Protobuf(m) => m.decode(bytes),
            ComponentCodec::Schema(s) => s.decode(bytes),
        }
    }

    /// The JSON for bytes when that JSON encodes back to exactly these bytes (so a file can
    /// hold it as JSON without changing the value); `None` otherwise.
    pub fn exact_json(&self, bytes: &[u8]) -> Option<Value> {
        self.decode(bytes)
            .ok()
            .filter(|j| self.encode(j).is_ok_and(|b| b == bytes))
    }
}
