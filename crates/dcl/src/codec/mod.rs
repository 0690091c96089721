//! One codec for every protocol-buffer component, driven by Decentraland's own protocol
//! definitions (`proto/`, compiled into descriptors at build time and loaded with
//! prost-reflect): the JSON a composite holds — the object `@dcl/ecs`'s generated code keeps
//! in memory: camel-case properties, oneofs as `{"$case": name, name: value}`, enums as numbers —
//! ⇄ the protobuf bytes the runtime stores, byte for byte as `@dcl/ecs` 7.28.0 writes them.
//!
//! Why not prost-reflect's `DynamicMessage` as the value: the SDK's objects have JavaScript
//! semantics a protobuf message cannot hold (an implicit-presence float that is `undefined`
//! is written as NaN, one that is `0` is not written at all), and its encoder writes in
//! declaration order with empty packed lists kept. So the codec walks the descriptors itself
//! (`plan`), over JSON values. `oracle/random-components.cjs` checks it against the SDK.

mod decode;
mod encode;
mod plan;

use std::sync::OnceLock;

use prost_reflect::{DescriptorPool, MessageDescriptor};
use serde_json::Value;

use super::js::FieldError;
use plan::Plans;
use scenetree_core::model::CORE_COMPONENTS;

/// The compiled `FileDescriptorSet` of every `.proto` under `proto/` (see `build.rs`).
const DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/dcl_components.bin"));

/// The protobuf package of the SDK's components.
const PACKAGE: &str = "decentraland.sdk.components";

struct Protocol {
    pool: DescriptorPool,
    plans: Plans,
    /// (component id, plan index), sorted by id.
    components: Vec<(u32, usize)>,
}

fn protocol() -> &'static Protocol {
    static PROTOCOL: OnceLock<Protocol> = OnceLock::new();
    PROTOCOL.get_or_init(|| {
        // The bytes are produced by build.rs from the shipped files: failing here is a build bug.
        let pool =
            DescriptorPool::decode(DESCRIPTOR_SET).expect("build.rs writes a valid descriptor set");
        let plans = Plans::compile(&pool);
        let components = CORE_COMPONENTS
            .iter()
            .filter_map(|(id, _, _, pb)| {
                plans
                    .index_of(&format!("{PACKAGE}.{pb}"))
                    .map(|index| (*id, index))
            })
            .collect();
        Protocol {
            pool,
            plans,
            components,
        }
    })
}

/// The descriptors of every shipped protocol message (components and what they use).
pub fn descriptor_pool() -> &'static DescriptorPool {
    &protocol().pool
}

/// A protobuf message of the protocol, ready to encode and decode values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ProtoMessage {
    index: usize,
}

impl ProtoMessage {
    /// The message of a core component (`core::Material` → `PBMaterial`); `None` for ids
    /// without one (Transform, unknown ids).
    pub fn of_component(component_id: u32) -> Option<ProtoMessage> {
        let components = &protocol().components;
        components
            .binary_search_by_key(&component_id, |(id, _)| *id)
            .ok()
            .map(|i| ProtoMessage {
                index: components[i].1,
            })
    }

    /// A message by full name (`decentraland.sdk.components.PBMaterial`).
    pub fn by_name(full_name: &str) -> Option<ProtoMessage> {
        protocol()
            .plans
            .index_of(full_name)
            .map(|index| ProtoMessage { index })
    }

    /// The message's full name.
    pub fn full_name(self) -> &'static str {
        &protocol().plans.messages[self.index].full_name
    }

    /// Its prost-reflect descriptor.
    pub fn descriptor(self) -> MessageDescriptor {
        descriptor_pool()
            .get_message_by_name(self.full_name())
            .expect("every plan comes from the pool")
    }

    /// The bytes `@dcl/ecs` writes for this JSON value (see the module docs).
    pub fn encode(self, value: &Value) -> Result<Vec<u8>, FieldError> {
        let mut encoder = encode::Encoder {
            plans: &protocol().plans,
            out: Vec::new(),
        };
        encoder.message(self.index, value, &mut String::new(), 0)?;
        Ok(encoder.out)
    }

    /// The JSON of the object `@dcl/ecs` decodes these bytes to.
    pub fn decode(self, bytes: &[u8]) -> Result<Value, FieldError> {
        let mut decoder = decode::Decoder {
            plans: &protocol().plans,
            bytes,
            pos: 0,
        };
        decoder.message(self.index, bytes.len(), &mut String::new(), 0)
    }
}

/// Every core component with a protobuf message: (id, message).
pub fn protocol_components() -> impl Iterator<Item = (u32, ProtoMessage)> {
    protocol()
        .components
        .iter()
        .map(|&(id, index)| (id, ProtoMessage { index }))
}

#[cfg(test)]
mod tests;
