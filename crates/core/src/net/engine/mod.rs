//! One player's `@dcl/ecs` engine as far as sync is concerned: its components (in registration
//! order), its entity container, the messages received and waiting for the next tick, and the
//! messages accepted this tick that go on to the other transports.
//!
//! The SDK's `findNetworkId` scans every NetworkEntity for a `(networkId, entityId)` pair;
//! this engine keeps an index from the pair to the entities holding it, and picks among several
//! (which the SDK allows) the one the scan would meet first.

mod dump;
mod messages;
mod receive;
mod send;

use rustc_hash::FxHashMap;

pub use dump::dump_state;
pub use messages::{Forward, Origin, Received};
pub use receive::ReceiveNote;
pub use send::{ParentSource, RendererWrite, SendOutput, WriteOrigin};

use super::components::{NetworkIdentity, SYNC_COMPONENTS, decode_sync_components};
use super::entities::EntityContainer;
use super::registry::SDK_REGISTRATION_ORDER;
use super::store::ComponentStore;
use crate::crdt::CrdtMessage;
use crate::model::{Entity, Transform, ids};

/// One player's engine (see the module docs).
#[derive(Clone, Debug)]
pub struct Engine {
    stores: Vec<ComponentStore>,
    store_of: FxHashMap<u32, usize>,
    /// The entity numbering (`engine.addEntity`).
    pub entities: EntityContainer,
    /// NetworkEntity value → the entities holding it.
    holders: FxHashMap<NetworkIdentity, Vec<Entity>>,
    /// Messages received, applied at the start of the next tick (`receivedMessages`).
    received: Vec<Received>,
    /// Messages accepted this tick, sent on to the other transports (`broadcastMessages`).
    broadcast: Vec<Forward>,
}

impl Default for Engine {
    fn default() -> Self {
        let mut engine = Engine {
            stores: Vec::new(),
            store_of: FxHashMap::default(),
            entities: EntityContainer::default(),
            holders: FxHashMap::default(),
            received: Vec::new(),
            broadcast: Vec::new(),
        };
        for &id in SDK_REGISTRATION_ORDER {
            engine.register(id);
        }
        engine
    }
}

impl Engine {
    /// Registers a component after those registered so far (no-op when known); its position.
    fn register(&mut self, id: u32) -> usize {
        if let Some(&at) = self.store_of.get(&id) {
            return at;
        }
        self.stores.push(ComponentStore::new(id));
        self.store_of.insert(id, self.stores.len() - 1);
        self.stores.len() - 1
    }

    /// The store of a component, if registered.
    pub fn store(&self, component: u32) -> Option<&ComponentStore> {
        self.store_of.get(&component).map(|&at| &self.stores[at])
    }

    /// Every component store, in registration order.
    pub fn stores(&self) -> &[ComponentStore] {
        &self.stores
    }

    /// The store of a component, registering it when first met.
    fn store_mut(&mut self, component: u32) -> &mut ComponentStore {
        let at = self.register(component);
        &mut self.stores[at]
    }

    /// An entity's value of a component.
    pub fn value(&self, entity: Entity, component: u32) -> Option<&[u8]> {
        self.store(component)?.get(entity)
    }

    /// True when the entity holds a value of the component.
    pub fn has(&self, entity: Entity, component: u32) -> bool {
        self.store(component).is_some_and(|s| s.has(entity))
    }

    /// The entity's NetworkEntity, decoded.
    pub fn network_entity(&self, entity: Entity) -> Option<NetworkIdentity> {
        let bytes = self.value(entity, ids::NETWORK_ENTITY)?;
        NetworkIdentity::from_bytes(bytes, "core-schema::Network-Entity").ok()
    }

    /// The entity's NetworkParent, decoded.
    pub fn network_parent(&self, entity: Entity) -> Option<NetworkIdentity> {
        let bytes = self.value(entity, ids::NETWORK_PARENT)?;
        NetworkIdentity::from_bytes(bytes, "core-schema::Network-Parent").ok()
    }

    /// The component ids the entity's SyncComponents lists.
    pub fn sync_components(&self, entity: Entity) -> Option<Vec<i64>> {
        decode_sync_components(self.value(entity, SYNC_COMPONENTS)?).ok()
    }

    /// The entity's Transform, decoded.
    pub fn transform(&self, entity: Entity) -> Option<Transform> {
        let bytes = self.value(entity, ids::TRANSFORM)?;
        Transform::from_bytes(bytes).ok()
    }

    /// `findNetworkId` for a wire pair: the local entity holding NetworkEntity
    /// `(network_id, entity_id)`, the first in the order NetworkEntity values were set.
    pub fn find_network_id(&self, identity: NetworkIdentity) -> Option<Entity> {
        let holders = self.holders.get(&identity)?;
        let store = self.store(ids::NETWORK_ENTITY)?;
        holders.iter().copied().min_by_key(|&e| store.rank(e))
    }

    /// The local entity a message names: through the network map for *_NETWORK messages
    /// (`None` when unmapped), the entity itself otherwise.
    pub fn local_entity_of(&self, message: &CrdtMessage) -> Option<Entity> {
        match message.network_id() {
            Some(net) => self.find_network_id(NetworkIdentity::new(net, message.entity().0)),
            None => Some(message.entity()),
        }
    }

    /// Every entity holding NetworkEntity, with its value, in the order values were set.
    pub fn network_map(&self) -> Vec<(Entity, NetworkIdentity)> {
        self.store(ids::NETWORK_ENTITY)
            .map(|s| {
                s.entities()
                    .filter_map(|(e, bytes)| {
                        NetworkIdentity::from_bytes(bytes, "core-schema::Network-Entity")
                            .ok()
                            .map(|v| (e, v))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Runs `change` on a component's store, keeping the NetworkEntity index in step.
    fn change<R>(
        &mut self,
        entity: Entity,
        component: u32,
        change: impl FnOnce(&mut ComponentStore) -> R,
    ) -> R {
        if component != ids::NETWORK_ENTITY {
            return change(self.store_mut(component));
        }
        let before = self.network_entity(entity);
        let result = change(self.store_mut(component));
        let after = self.network_entity(entity);
        if before != after {
            if let Some(old) = before
                && let Some(list) = self.holders.get_mut(&old)
            {
                list.retain(|&e| e != entity);
                if list.is_empty() {
                    self.holders.remove(&old);
                }
            }
            if let Some(new) = after {
                self.holders.entry(new).or_default().push(entity);
            }
        }
        result
    }

    /// The scene sets a value (`createOrReplace`).
    pub fn set_value(&mut self, entity: Entity, component: u32, value: Vec<u8>) {
        self.change(entity, component, |s| s.create_or_replace(entity, value));
    }

    /// The scene deletes a value (`deleteFrom`, or `entityDeleted` with `mark_dirty`).
    pub fn delete_value(&mut self, entity: Entity, component: u32, mark_dirty: bool) {
        self.change(entity, component, |s| s.delete(entity, mark_dirty));
    }

    /// The scene deleted a value that may have been created within this tick: the delete is
    /// sent even when no value is left to remove ([`ComponentStore::mark_written`]).
    pub fn delete_written(&mut self, entity: Entity, component: u32) {
        self.delete_value(entity, component, true);
        self.store_mut(component).mark_written(entity);
    }

    /// Moves a register's timestamp on by `steps` unseen sends.
    pub fn skip_timestamps(&mut self, entity: Entity, component: u32, steps: u32) {
        self.store_mut(component).skip_timestamps(entity, steps);
    }

    /// The scene's `engine.removeEntity`: every value but NetworkEntity goes (the SDK keeps
    /// NetworkEntity so the DELETE_ENTITY can still be sent in network terms), and the id is
    /// tombstoned at the end of the tick. Renderer-reserved numbers from 3 up (remote avatars)
    /// keep their values, as in the SDK; the root, player and camera lose theirs but keep the id.
    pub fn remove_entity(&mut self, entity: Entity) -> bool {
        /// Numbers below this are the root, the player and the camera (`NAMED_STATIC_ENTITIES`).
        const NAMED_STATIC: u16 = 3;
        let released = self.entities.remove(entity);
        if entity.number() >= NAMED_STATIC && !released {
            return false;
        }
        let components: Vec<u32> = self.stores.iter().map(|s| s.id).collect();
        for component in components {
            if component != ids::NETWORK_ENTITY {
                self.delete_value(entity, component, true);
            }
        }
        released
    }

    /// Queues messages received from a transport, to be applied at the next tick.
    pub fn queue(&mut self, received: impl IntoIterator<Item = Received>) {
        self.received.extend(received);
    }

    /// How many of the messages this tick sends on come before the scene's own in the
    /// renderer's stream: those received from the network that pass the renderer's filter.
    pub fn forwarded_to_renderer(&self) -> usize {
        self.broadcast
            .iter()
            .filter(|f| {
                f.origin != Some(Origin::Renderer)
                    && super::registry::reaches_renderer(f.message.component())
            })
            .count()
    }

    /// Messages received and not applied yet.
    pub fn queued(&self) -> &[Received] {
        &self.received
    }
}
