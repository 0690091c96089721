//! The end of a tick: what the engine sends to its renderer and to the network
//! (`crdtSceneSystem.sendMessages` of `@dcl/ecs` 7.28.0, with the `@dcl/sdk` transports'
//! filters).
//!
//! The messages are, in order: those accepted from the transports this tick, then the scene's
//! own writes component by component (registration order) and entity by entity (the order
//! first written), then a DELETE_ENTITY per entity the scene removed. Each transport skips what
//! came from itself and what its filter refuses, then:
//!
//! - **renderer**: a Transform PUT of an entity holding NetworkEntity and NetworkParent is
//!   rewritten with the entity's *current* Transform and, as parent, the local entity the
//!   NetworkParent maps to, or the NetworkParent's raw entity id when it maps to nothing; a
//!   *_NETWORK message becomes its plain form on the local entity it maps to *now* (after the
//!   tick's deletes), or on the sender's raw number when it maps to nothing.
//! - **network**: a plain message of an entity holding NetworkEntity becomes its *_NETWORK form
//!   (`localMessageToNetwork`), cut into batches of at most 12 KB counted the runtime's way (the
//!   batch so far plus the message's *plain* size); a single message over 12 KB is skipped.

use std::sync::Arc;

use super::super::components::{NetworkIdentity, SYNC_COMPONENTS};
use super::super::registry::{reaches_renderer, should_sync_component};
use super::Engine;
use super::messages::{Forward, Origin, with_parent};
use crate::crdt::CrdtMessage;
use crate::model::{Entity, Transform, ids};

/// Bytes a network batch may reach (`LIVEKIT_MAX_SIZE`, 12 KB).
pub const NETWORK_BATCH_LIMIT: usize = 12 * 1024;

/// Where a renderer-bound message came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteOrigin {
    /// The player's own scene.
    Own,
    /// Another player, sent on.
    Forwarded {
        /// The sender's address, when known.
        sender: Option<Arc<str>>,
        /// See [`Received::state_response`].
        state_response: Option<u32>,
        /// For a delete of an entity: the local entity the receive deleted (the renderer may
        /// be told another number: see the module docs).
        deleted_local: Option<Entity>,
    },
}

/// Where the parent of a renderer-bound Transform came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParentSource {
    /// Not a Transform PUT.
    NotTransform,
    /// The Transform's own parent field, as written by its author (no NetworkParent).
    Raw,
    /// Rewritten from NetworkParent to the local entity it maps to.
    Mapped(NetworkIdentity),
    /// NetworkParent maps to nothing here: the raw entity id stands in.
    Unmapped(NetworkIdentity),
}

/// One message sent to the renderer.
#[derive(Clone, Debug, PartialEq)]
pub struct RendererWrite {
    /// The message as written.
    pub message: CrdtMessage,
    /// Where it came from.
    pub origin: WriteOrigin,
    /// For a Transform PUT, where its parent came from.
    pub parent: ParentSource,
}

/// What one tick sent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SendOutput {
    /// The renderer's bytes.
    pub renderer: Vec<u8>,
    /// The renderer's messages, one per message in `renderer`.
    pub renderer_writes: Vec<RendererWrite>,
    /// The network batches (CRDT messages, each under 12 KB).
    pub network: Vec<Vec<u8>>,
    /// Messages over 12 KB the network skipped (the runtime logs and drops them).
    pub too_large: Vec<CrdtMessage>,
}

impl Engine {
    /// `syncFilter` of `@dcl/sdk/network`: whether a plain message goes to the network.
    pub fn passes_sync_filter(&self, message: &CrdtMessage) -> bool {
        let component = message.component().filter(|&c| c != 0);
        if component.is_some_and(|c| !should_sync_component(c)) {
            return false;
        }
        let entity = message.entity();
        if entity.is_reserved() {
            return false;
        }
        let synced = self.has(entity, ids::NETWORK_ENTITY);
        match message {
            CrdtMessage::DeleteEntityNetwork { .. } => return true,
            CrdtMessage::DeleteEntity { .. } if synced => return true,
            _ => {}
        }
        let Some(sync) = self.value(entity, SYNC_COMPONENTS) else {
            return false;
        };
        if message.timestamp().is_some_and(|t| t <= 1) {
            return true;
        }
        match component {
            Some(ids::NETWORK_ENTITY) => false,
            Some(ids::NETWORK_PARENT | SYNC_COMPONENTS) => true,
            Some(c) => lists(sync, c),
            None => false,
        }
    }

    /// The renderer-bound Transform of `entity` (holding NetworkEntity and NetworkParent): its
    /// current value with the parent NetworkParent maps to.
    fn fixed_transform(&self, entity: Entity) -> Option<(Vec<u8>, ParentSource)> {
        let parent = self.network_parent(entity)?;
        let current = self.value(entity, ids::TRANSFORM)?;
        let (local, source) = match self.find_network_id(parent) {
            Some(local) => (local, ParentSource::Mapped(parent)),
            None => (Entity(parent.entity_id), ParentSource::Unmapped(parent)),
        };
        Some((with_parent(current, local)?.to_vec(), source))
    }

    /// Sends the tick's messages (see the module docs). `removed` are the entities the scene
    /// removed this tick.
    pub fn send_messages(&mut self, removed: Vec<Entity>) -> SendOutput {
        let mut messages = std::mem::take(&mut self.broadcast);
        let mut updates = Vec::new();
        for at in 0..self.stores.len() {
            updates.clear();
            self.stores[at].take_updates(&mut updates);
            for message in updates.drain(..) {
                // Messages no transport wants are not kept (their timestamps moved all the same).
                if reaches_renderer(message.component()) || self.passes_sync_filter(&message) {
                    messages.push(Forward::own(message));
                }
            }
        }
        messages.extend(
            removed
                .into_iter()
                .map(|entity| Forward::own(CrdtMessage::DeleteEntity { entity })),
        );
        let mut out = SendOutput::default();
        for forward in &messages {
            self.send_to_renderer(forward, &mut out);
        }
        let mut batch = Vec::new();
        for forward in &messages {
            self.send_to_network(forward, &mut batch, &mut out);
        }
        if !batch.is_empty() {
            out.network.push(batch);
        }
        out
    }

    fn send_to_renderer(&self, forward: &Forward, out: &mut SendOutput) {
        if forward.origin == Some(Origin::Renderer)
            || !reaches_renderer(forward.message.component())
        {
            return;
        }
        let message = &forward.message;
        let entity = self.local_entity_of(message).unwrap_or(message.entity());
        let fixed = (message.component() == Some(Transform::COMPONENT_ID)
            && self.has(entity, ids::TRANSFORM)
            && self.has(entity, ids::NETWORK_ENTITY))
        .then(|| self.fixed_transform(entity))
        .flatten();
        let origin = match forward.origin {
            None => WriteOrigin::Own,
            Some(_) => WriteOrigin::Forwarded {
                sender: forward.sender.clone(),
                state_response: forward.state_response,
                deleted_local: forward.deleted_local,
            },
        };
        let raw_parent = || match message {
            CrdtMessage::PutComponent { .. } | CrdtMessage::PutComponentNetwork { .. }
                if message.component() == Some(Transform::COMPONENT_ID) =>
            {
                ParentSource::Raw
            }
            _ => ParentSource::NotTransform,
        };
        let (written, parent) = match (message, fixed) {
            (
                CrdtMessage::PutComponent {
                    component,
                    timestamp,
                    ..
                }
                | CrdtMessage::PutComponentNetwork {
                    component,
                    timestamp,
                    ..
                },
                Some((data, parent)),
            ) => (
                CrdtMessage::PutComponent {
                    entity,
                    component: *component,
                    timestamp: *timestamp,
                    data,
                },
                parent,
            ),
            (
                CrdtMessage::PutComponentNetwork {
                    component,
                    timestamp,
                    data,
                    ..
                },
                None,
            ) => (
                CrdtMessage::PutComponent {
                    entity,
                    component: *component,
                    timestamp: *timestamp,
                    data: data.clone(),
                },
                raw_parent(),
            ),
            (
                CrdtMessage::DeleteComponentNetwork {
                    component,
                    timestamp,
                    ..
                },
                _,
            ) => (
                CrdtMessage::DeleteComponent {
                    entity,
                    component: *component,
                    timestamp: *timestamp,
                },
                ParentSource::NotTransform,
            ),
            (CrdtMessage::DeleteEntityNetwork { .. }, _) => (
                CrdtMessage::DeleteEntity { entity },
                ParentSource::NotTransform,
            ),
            _ => {
                // A plain message goes as it came.
                message.encode_into(&mut out.renderer);
                out.renderer_writes.push(RendererWrite {
                    message: message.clone(),
                    origin,
                    parent: raw_parent(),
                });
                return;
            }
        };
        written.encode_into(&mut out.renderer);
        out.renderer_writes.push(RendererWrite {
            message: written,
            origin,
            parent,
        });
    }

    fn send_to_network(&self, forward: &Forward, batch: &mut Vec<u8>, out: &mut SendOutput) {
        if forward.origin == Some(Origin::Network) || !self.passes_sync_filter(&forward.message) {
            return;
        }
        let size = forward.message.encoded_len();
        if batch.len() + size > NETWORK_BATCH_LIMIT {
            if !batch.is_empty() {
                out.network.push(std::mem::take(batch));
            }
            if size > NETWORK_BATCH_LIMIT {
                out.too_large.push(forward.message.clone());
                return;
            }
        }
        let message = &forward.message;
        if message.network_id().is_none()
            && let Some(network) = self.network_entity(message.entity())
        {
            if let Some(converted) = to_network(message, network) {
                converted.encode_into(batch);
            }
            return;
        }
        message.encode_into(batch);
    }
}

/// `localMessageToNetwork`: a plain message in the network terms of its entity's
/// NetworkEntity; `None` for an APPEND_VALUE, which the runtime writes nothing for.
pub fn to_network(message: &CrdtMessage, network: NetworkIdentity) -> Option<CrdtMessage> {
    let (entity, network_id) = (Entity(network.entity_id), network.wire_network_id());
    Some(match message {
        CrdtMessage::PutComponent {
            component,
            timestamp,
            data,
            ..
        } => CrdtMessage::PutComponentNetwork {
            entity,
            component: *component,
            timestamp: *timestamp,
            network_id,
            data: data.clone(),
        },
        CrdtMessage::DeleteComponent {
            component,
            timestamp,
            ..
        } => CrdtMessage::DeleteComponentNetwork {
            entity,
            component: *component,
            timestamp: *timestamp,
            network_id,
        },
        CrdtMessage::DeleteEntity { .. } => CrdtMessage::DeleteEntityNetwork { entity, network_id },
        _ => return None,
    })
}

/// Whether a SyncComponents value lists `component`, read from its bytes.
fn lists(sync: &[u8], component: u32) -> bool {
    let Some(count) = sync.first_chunk::<4>() else {
        return false;
    };
    let count = u32::from_le_bytes(*count) as usize;
    sync[4..].chunks_exact(8).take(count).any(|word| {
        word.first_chunk::<8>().map(|w| i64::from_le_bytes(*w)) == Some(i64::from(component))
    })
}
