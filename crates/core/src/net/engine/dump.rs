//! A player's answer to a state request (`engineToCrdt` of `@dcl/sdk/network/state`): every
//! value held by an entity with a NetworkEntity, component by component in registration order
//! (the components that never sync left out), entity by entity in the order each register first
//! got a timestamp, as PUT_COMPONENT_NETWORK in the entity's network terms, with each register's
//! own timestamp. Batches are cut the runtime's way: when the batch so far plus the value's
//! *data* would pass 12 KB; a value over 12 KB alone is skipped.

use super::super::registry::should_sync_component;
use super::Engine;
use super::send::NETWORK_BATCH_LIMIT;
use crate::crdt::CrdtMessage;
use crate::model::{Entity, ids};

/// The state response's batches of CRDT messages (see the module docs).
pub fn dump_state(engine: &Engine) -> Vec<Vec<u8>> {
    let synced = |entity: Entity| engine.has(entity, ids::NETWORK_ENTITY);
    let mut chunks = Vec::new();
    let mut batch = Vec::new();
    for store in engine.stores() {
        if !should_sync_component(store.id) {
            continue;
        }
        for (entity, timestamp, value) in store.dump(synced) {
            if batch.len() + value.len() > NETWORK_BATCH_LIMIT {
                if !batch.is_empty() {
                    chunks.push(std::mem::take(&mut batch));
                }
                if value.len() > NETWORK_BATCH_LIMIT {
                    continue;
                }
            }
            let Some(network) = engine.network_entity(entity) else {
                continue;
            };
            CrdtMessage::PutComponentNetwork {
                entity: Entity(network.entity_id),
                component: store.id,
                timestamp,
                network_id: network.wire_network_id(),
                data: value.to_vec(),
            }
            .encode_into(&mut batch);
        }
    }
    if !batch.is_empty() {
        chunks.push(batch);
    }
    chunks
}
