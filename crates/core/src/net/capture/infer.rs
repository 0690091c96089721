//! A player's own writes in a captured tick, recovered from what the tick sent.
//!
//! At the end of a tick the runtime sends, in order, what it forwards (the messages received
//! from the network that it accepted, or found equal) and then the scene's own writes. The
//! model knows how many forwarded messages the renderer gets (it applied the same received
//! messages), so the renderer's stream past them is the scene's own writes of renderer
//! components (all of them: the renderer takes every component up to id 2048, the scene's own
//! included), followed by a DELETE_ENTITY per removed entity. The network items add the writes
//! the renderer never sees (NetworkEntity, NetworkParent, SyncComponents, scene-defined
//! components), and the raw Transform of a synced entity whose renderer copy had its parent
//! rewritten.
//!
//! Each recovered write becomes a [`SceneOp`] naming its entity the way the scene holds it, so
//! the model can send it again itself, with its own timestamp; the capture's timestamp only
//! tells how many sends nobody saw came before it (`unseen`).

use rustc_hash::FxHashMap;

use super::super::comms::{CommsKind, decode_outbound};
use super::super::components::NetworkIdentity;
use super::super::ops::{EntityRef, SceneOp};
use super::super::player::Player;
use super::first_tick::FirstTickWrites;
use super::format::CaptureTick;
use crate::crdt::CrdtMessage;
use crate::crdt::stream::{StreamItem, StreamReader};
use crate::model::{Entity, Transform, ids};
use crate::net::entities::EntityState;

/// The writes recovered from one captured tick, and what could not be explained.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inferred {
    /// The scene's writes, in an order that reproduces its sends.
    pub ops: Vec<SceneOp>,
    /// What the model could not reconcile with the capture, one sentence each.
    pub notes: Vec<String>,
}

/// The CRDT messages of a byte stream up to its first malformed one; a note for that one.
fn read_messages(
    bytes: &[u8],
    dialect: crate::crdt::stream::Dialect,
    what: &str,
    notes: &mut Vec<String>,
) -> Vec<CrdtMessage> {
    let mut out = Vec::new();
    for item in StreamReader::with_dialect(bytes, dialect) {
        match item {
            Ok(
                StreamItem::Message { message, .. } | StreamItem::AuthoritativePut { message, .. },
            ) => out.push(message),
            Ok(StreamItem::Unknown { .. }) => {}
            Err(e) => {
                notes.push(format!("{what}: {e}"));
                break;
            }
        }
    }
    out
}

/// Recovers the scene's writes of a tick begun on `player` ([`Player::begin_tick`]); on the
/// player's first tick, `first` adds what that tick wrote that no line shows.
pub fn infer_tick(
    player: &Player,
    line: &CaptureTick,
    dialect: crate::crdt::stream::Dialect,
    first: Option<&FirstTickWrites>,
) -> Inferred {
    let mut notes = Vec::new();
    let renderer = line
        .renderer
        .as_ref()
        .map(|r| read_messages(&r.0, dialect, "renderer", &mut notes))
        .unwrap_or_default();
    let forwarded = player.engine().forwarded_to_renderer();
    let own_renderer = renderer.get(forwarded..).unwrap_or_default();
    let mut network = Vec::new();
    for (at, item) in line.sent.iter().enumerate() {
        match decode_outbound(&item.data.0, dialect) {
            Ok(item) if item.kind == Some(CommsKind::Crdt) => {
                network.extend(read_messages(
                    item.payload,
                    dialect,
                    &format!("sent[{at}]"),
                    &mut notes,
                ));
            }
            Ok(_) => {}
            Err(e) => notes.push(format!("sent[{at}]: {e}")),
        }
    }
    let mut inference = Inference::new(player);
    if let Some(first) = first {
        inference
            .fixed
            .extend(first.fixed.iter().map(|(i, e)| (*i, *e)));
    }
    inference.match_fixed_ids(own_renderer, &network);
    inference.classify_new(own_renderer, &network);
    let raw_transforms: FxHashMap<(NetworkIdentity, u32), &[u8]> = network
        .iter()
        .filter_map(|m| match m {
            CrdtMessage::PutComponentNetwork {
                entity,
                component: Transform::COMPONENT_ID,
                timestamp,
                network_id,
                data,
            } => Some((
                (NetworkIdentity::new(*network_id, entity.0), *timestamp),
                data.as_slice(),
            )),
            _ => None,
        })
        .collect();
    let mut ops = Vec::new();
    let mut removes = Vec::new();
    for message in own_renderer {
        let entity = message.entity();
        match message {
            CrdtMessage::PutComponent {
                component,
                timestamp,
                data,
                ..
            } => {
                let data = if *component == Transform::COMPONENT_ID {
                    let hidden_parent = first.is_some_and(|f| {
                        f.values
                            .iter()
                            .any(|(e, c, _)| *e == entity && *c == ids::NETWORK_PARENT)
                    });
                    match first.and_then(|f| f.transforms.get(&entity)) {
                        Some(raw) if raw.get(..40) == data.get(..40) => raw.clone(),
                        _ => inference.raw_transform(
                            entity,
                            *timestamp,
                            data,
                            &raw_transforms,
                            hidden_parent,
                        ),
                    }
                } else {
                    data.clone()
                };
                ops.push(inference.put(entity, *component, *timestamp, data, &mut notes));
            }
            CrdtMessage::DeleteComponent {
                component,
                timestamp,
                ..
            } => ops.push(inference.delete(entity, *component, *timestamp, &mut notes)),
            CrdtMessage::DeleteEntity { .. } => removes.push(SceneOp::Remove {
                entity: inference.reference(entity),
            }),
            other => notes.push(format!(
                "renderer: the scene's own {other:?} is not modelled"
            )),
        }
    }
    for message in &network {
        // Renderer components were all taken from the renderer's stream above.
        let Some(component) = message
            .component()
            .filter(|&c| c > crate::model::MAX_STATIC_COMPONENT)
        else {
            continue;
        };
        let Some(entity) = inference.local_of(message) else {
            notes.push(format!("sent: {message:?} names no entity of this player"));
            continue;
        };
        let timestamp = message.timestamp().unwrap_or(0);
        match message {
            CrdtMessage::PutComponent { data, .. }
            | CrdtMessage::PutComponentNetwork { data, .. } => {
                ops.push(inference.put(entity, component, timestamp, data.clone(), &mut notes));
            }
            CrdtMessage::DeleteComponent { .. } | CrdtMessage::DeleteComponentNetwork { .. } => {
                ops.push(inference.delete(entity, component, timestamp, &mut notes));
            }
            _ => {}
        }
    }
    // An entity created and removed within the tick keeps its NetworkEntity (the runtime's
    // `removeEntity` spares it), and its DELETE_ENTITY_NETWORK is the only trace of it.
    for message in &network {
        if let CrdtMessage::DeleteEntityNetwork { network_id, .. } = message
            && let Some(entity) = inference.local_of(message)
            && !player.engine().has(entity, ids::NETWORK_ENTITY)
            && !ops.iter().any(|op| {
                matches!(
                    op,
                    SceneOp::Put {
                        component: ids::NETWORK_ENTITY,
                        ..
                    }
                ) && op.entity() == inference.reference(entity)
            })
        {
            let identity = NetworkIdentity::new(*network_id, message.entity().0);
            ops.push(inference.put(
                entity,
                ids::NETWORK_ENTITY,
                1,
                identity.to_bytes().to_vec(),
                &mut notes,
            ));
        }
    }
    for (entity, component, data) in first.map_or(&[][..], |f| &f.values[..]) {
        ops.push(inference.put(*entity, *component, 1, data.clone(), &mut notes));
    }
    ops.extend(removes);
    notes.extend(inference.notes);
    Inferred { ops, notes }
}

/// The state of one tick's inference.
struct Inference<'a> {
    player: &'a Player,
    /// Entities the scene creates this tick → their [`EntityRef::Scene`] handle.
    new: FxHashMap<Entity, u32>,
    /// Fixed-id identities this tick names, found through their Transform.
    fixed: FxHashMap<NetworkIdentity, Entity>,
    notes: Vec<String>,
}

impl<'a> Inference<'a> {
    fn new(player: &'a Player) -> Self {
        Inference {
            player,
            new: FxHashMap::default(),
            fixed: FxHashMap::default(),
            notes: Vec::new(),
        }
    }

    /// Entities synced with a fixed id this tick are named `(0, id)` on the network: find
    /// their local number through the renderer's copy of the same Transform write.
    fn match_fixed_ids(&mut self, own_renderer: &[CrdtMessage], network: &[CrdtMessage]) {
        for message in network {
            let CrdtMessage::PutComponentNetwork {
                entity,
                component: Transform::COMPONENT_ID,
                timestamp,
                network_id: 0,
                data,
            } = message
            else {
                continue;
            };
            let identity = NetworkIdentity::new(0, entity.0);
            if self.player.engine().find_network_id(identity).is_some() {
                continue;
            }
            let found = own_renderer.iter().find_map(|m| match m {
                CrdtMessage::PutComponent {
                    entity,
                    component: Transform::COMPONENT_ID,
                    timestamp: t,
                    data: d,
                } if t == timestamp && d.get(..40) == data.get(..40) => Some(*entity),
                _ => None,
            });
            if let Some(local) = found {
                self.fixed.insert(identity, local);
            }
        }
        // A removed fixed-id entity: its DELETE_ENTITY_NETWORK and the renderer's DELETE_ENTITY
        // come in the same order, among the deletes of the scene's own dynamic entities.
        let mut deleted = own_renderer.iter().filter_map(|m| match m {
            CrdtMessage::DeleteEntity { entity } => Some(*entity),
            _ => None,
        });
        for message in network {
            let CrdtMessage::DeleteEntityNetwork { entity, network_id } = message else {
                continue;
            };
            let identity = NetworkIdentity::new(*network_id, entity.0);
            let known = self.player.engine().find_network_id(identity);
            if *network_id != 0 || known.is_some() {
                // Skip up to the entity it names.
                let named = known.unwrap_or(*entity);
                for local in deleted.by_ref() {
                    if local == named {
                        break;
                    }
                }
                continue;
            }
            let named_elsewhere = |e: Entity| {
                network.iter().any(|m| {
                    matches!(m, CrdtMessage::DeleteEntityNetwork { entity, network_id }
                        if *entity == e && *network_id == self.player.network_id())
                }) || self.player.engine().has(e, ids::NETWORK_ENTITY)
            };
            if let Some(local) = deleted.by_ref().find(|&e| !named_elsewhere(e)) {
                self.fixed.insert(identity, local);
            }
        }
    }

    /// The local entity a network message of this player names.
    fn local_of(&self, message: &CrdtMessage) -> Option<Entity> {
        let Some(network_id) = message.network_id() else {
            return Some(message.entity());
        };
        let identity = NetworkIdentity::new(network_id, message.entity().0);
        if let Some(local) = self.player.engine().find_network_id(identity) {
            return Some(local);
        }
        if network_id == self.player.network_id() {
            // A dynamic entity of this player's is named by its own local number.
            return Some(message.entity());
        }
        self.fixed.get(&identity).copied()
    }

    /// Gives the entities this tick's writes name for the first time their scene handles, in
    /// the order the player's container will allocate them.
    fn classify_new(&mut self, own_renderer: &[CrdtMessage], network: &[CrdtMessage]) {
        let mut fresh: Vec<Entity> = Vec::new();
        let locals = own_renderer
            .iter()
            .map(|m| Some(m.entity()))
            .chain(network.iter().map(|m| self.local_of(m)));
        for entity in locals.flatten() {
            if self.player.scene_handle(entity).is_none()
                && self.player.engine().entities.state(entity) == EntityState::Unknown
                && !fresh.contains(&entity)
            {
                fresh.push(entity);
            }
        }
        if fresh.is_empty() {
            return;
        }
        let mut container = self.player.engine().entities.clone();
        let base = self.player.scene_entities().len() as u32;
        let allocated: Vec<Entity> = (0..fresh.len())
            .filter_map(|_| container.generate().ok())
            .collect();
        for entity in fresh {
            match allocated.iter().position(|&a| a == entity) {
                Some(at) => {
                    self.new.insert(entity, base + at as u32);
                }
                None => self.notes.push(format!(
                    "the scene wrote to a new entity {entity}, but this player's next entities are \
                     {allocated:?}: it created entities no capture shows"
                )),
            }
        }
    }

    /// How the scene holds `entity`.
    fn reference(&self, entity: Entity) -> EntityRef {
        if let Some(k) = self
            .player
            .scene_handle(entity)
            .or(self.new.get(&entity).copied())
        {
            return EntityRef::Scene(k);
        }
        match self.player.engine().network_entity(entity) {
            Some(identity) => EntityRef::Network(identity),
            None => EntityRef::Local(entity),
        }
    }

    /// The sends nobody saw before a write with the captured `timestamp`.
    fn unseen(
        &mut self,
        entity: Entity,
        component: u32,
        timestamp: u32,
        notes: &mut Vec<String>,
    ) -> u32 {
        let stored = self
            .player
            .engine()
            .store(component)
            .and_then(|s| s.timestamp(entity))
            .unwrap_or(0);
        match timestamp.checked_sub(stored.wrapping_add(1)) {
            Some(unseen) => unseen,
            None => {
                notes.push(format!(
                    "the scene's write of component {component} on {entity} carries timestamp \
                     {timestamp}, below the {} this player's clock gives it",
                    stored.wrapping_add(1)
                ));
                0
            }
        }
    }

    fn put(
        &mut self,
        entity: Entity,
        component: u32,
        timestamp: u32,
        data: Vec<u8>,
        notes: &mut Vec<String>,
    ) -> SceneOp {
        SceneOp::Put {
            entity: self.reference(entity),
            component,
            data,
            unseen: self.unseen(entity, component, timestamp, notes),
        }
    }

    fn delete(
        &mut self,
        entity: Entity,
        component: u32,
        timestamp: u32,
        notes: &mut Vec<String>,
    ) -> SceneOp {
        SceneOp::Delete {
            entity: self.reference(entity),
            component,
            unseen: self.unseen(entity, component, timestamp, notes),
        }
    }

    /// The Transform the scene wrote, from the renderer's copy: the network's copy when the
    /// entity is synced (its raw parent), else the renderer's with the parent the engine holds
    /// (or none) when the renderer's parent was rewritten from NetworkParent, which it was if
    /// the entity holds one, or gets one this tick unseen (`hidden_parent`).
    fn raw_transform(
        &self,
        entity: Entity,
        timestamp: u32,
        rendered: &[u8],
        raw: &FxHashMap<(NetworkIdentity, u32), &[u8]>,
        hidden_parent: bool,
    ) -> Vec<u8> {
        let engine = self.player.engine();
        let identity = engine
            .network_entity(entity)
            .or_else(|| {
                self.fixed
                    .iter()
                    .find(|(_, e)| **e == entity)
                    .map(|(i, _)| *i)
            })
            .unwrap_or(NetworkIdentity::new(self.player.network_id(), entity.0));
        if let Some(data) = raw.get(&(identity, timestamp)) {
            return data.to_vec();
        }
        if hidden_parent
            || (engine.has(entity, ids::NETWORK_ENTITY) && engine.has(entity, ids::NETWORK_PARENT))
        {
            let parent = engine
                .value(entity, ids::TRANSFORM)
                .and_then(|t| t.get(40..44))
                .map_or([0; 4], |p| [p[0], p[1], p[2], p[3]]);
            let mut data = rendered.to_vec();
            if let Some(field) = data.get_mut(40..44) {
                field.copy_from_slice(&parent);
            }
            return data;
        }
        rendered.to_vec()
    }
}
