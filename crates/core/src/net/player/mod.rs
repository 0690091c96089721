//! One player: a scene running `@dcl/sdk` 7.28.0's sync layer, one tick at a time.
//!
//! A tick (`onUpdate` → `engine.update`) runs, in this order:
//! 1. the messages received since the last tick are applied ([`Engine::receive_messages`]);
//!    on the player's first tick the renderer's initial state says the scene room is
//!    connected, and the state request goes out (`requestState`);
//! 2. the scene's systems write ([`SceneOp`]);
//! 3. the engine sends: the renderer gets its messages, and the network transport passes its
//!    batches to `sendBinary` as CRDT items — except on the first tick, when the transport
//!    is not initialized and sends nothing but what was already waiting (the state request).
//!    Items waiting from before (state responses) go first;
//! 4. `sendBinary` returns what arrived for the player (the tick's `inbound` items), handled at
//!    once: CRDT items are queued for the next tick; a state request is answered with a dump
//!    of the state *now*, sent next tick, to the requester only; a state response addressed to
//!    this player is queued, one addressed to another is ignored.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::address::network_id_from_address;
use super::comms::{
    CommsKind, FrameError, FrameErrorKind, decode_inbound, decode_state_response, encode_outbound,
    encode_state_response,
};
use super::components::{NetworkIdentity, SYNC_COMPONENTS, encode_sync_components};
use super::engine::{Engine, Origin, ReceiveNote, Received, RendererWrite, dump_state};
use super::hazard::Hazard;
use super::ops::{EntityRef, SceneOp};
use super::registry::should_sync_component;
use super::renderer::RendererState;
use crate::crdt::CrdtMessage;
use crate::crdt::stream::{Dialect, StreamItem, StreamReader};
use crate::model::{Entity, Transform, ids};

mod hazards;

/// An item the scene passed to `sendBinary`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutItem {
    /// The addresses it goes to; empty for everyone.
    pub to: Vec<String>,
    /// `[CommsMessage][payload]`.
    pub data: Vec<u8>,
}

/// A received item the SDK could not use, and why (it skips such items).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboundProblem {
    /// The item's position in the tick's inbound list.
    pub item: usize,
    /// What is wrong, the offset counted from the item's first byte.
    pub error: FrameError,
}

/// What one tick of one player did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickOutput {
    /// The tick's number, as the caller counts ticks.
    pub tick: u32,
    /// The items passed to `sendBinary`, in order.
    pub sent: Vec<OutItem>,
    /// The items `sendBinary` returned (handled at the end of the tick).
    pub inbound: Vec<Vec<u8>>,
    /// The CRDT bytes sent to the renderer.
    pub renderer: Vec<u8>,
    /// The same, message by message, with where each came from.
    pub renderer_writes: Vec<RendererWrite>,
    /// What applying the received messages did.
    pub received: Vec<ReceiveNote>,
    /// Inbound items the SDK would skip.
    pub inbound_problems: Vec<InboundProblem>,
    /// Ops naming a remote entity this player has no mapping for (skipped).
    pub unresolved: Vec<SceneOp>,
    /// Messages over 12 KB the network transport dropped.
    pub too_large: Vec<CrdtMessage>,
    /// The hazards this tick shows.
    pub hazards: Vec<Hazard>,
}

/// One player (see the module docs).
#[derive(Clone, Debug)]
pub struct Player {
    address: Arc<str>,
    network_id: u32,
    dialect: Dialect,
    engine: Engine,
    /// Items waiting for the next `sendBinary` (`pendingMessageBusMessagesToSend`).
    pending: Vec<OutItem>,
    transport_initialized: bool,
    state_synchronized: bool,
    ticks: u32,
    /// The entities the scene created, in order ([`EntityRef::Scene`]), and back.
    scene_entities: Vec<Entity>,
    scene_index: FxHashMap<Entity, u32>,
    /// What the renderer was told.
    renderer: RendererState,
    /// State responses addressed to this player so far.
    state_responses: u32,
    /// The first state response whose messages changed this player's state.
    first_state_response: Option<u32>,
    /// Network id → address, for every address this player has heard from (and its own).
    addresses: FxHashMap<u32, Arc<str>>,
}

impl Player {
    /// A player with this address, speaking `dialect`, before its first tick.
    pub fn new(address: &str, dialect: Dialect) -> Player {
        let address: Arc<str> = Arc::from(address);
        let network_id = network_id_from_address(&address);
        Player {
            addresses: FxHashMap::from_iter([(network_id, address.clone())]),
            address,
            network_id,
            dialect,
            engine: Engine::default(),
            pending: Vec::new(),
            transport_initialized: false,
            state_synchronized: false,
            ticks: 0,
            scene_entities: Vec::new(),
            scene_index: FxHashMap::default(),
            renderer: RendererState::default(),
            state_responses: 0,
            first_state_response: None,
        }
    }

    /// The player's address.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The player's network id ([`network_id_from_address`]).
    pub fn network_id(&self) -> u32 {
        self.network_id
    }

    /// The player's engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// What the player's renderer holds.
    pub fn renderer(&self) -> &RendererState {
        &self.renderer
    }

    /// Ticks run so far.
    pub fn ticks(&self) -> u32 {
        self.ticks
    }

    /// True once a state response addressed to this player arrived.
    pub fn state_synchronized(&self) -> bool {
        self.state_synchronized
    }

    /// The entities the scene created so far ([`EntityRef::Scene`] `k` is entry `k`).
    pub fn scene_entities(&self) -> &[Entity] {
        &self.scene_entities
    }

    /// Which of the scene's entities `entity` is ([`EntityRef::Scene`]).
    pub fn scene_handle(&self, entity: Entity) -> Option<u32> {
        self.scene_index.get(&entity).copied()
    }

    /// The address behind a network id, when this player has heard from it.
    pub fn address_of(&self, network_id: u32) -> Option<&str> {
        self.addresses.get(&network_id).map(|a| &**a)
    }

    /// The local entity an op names, creating the scene's new entities first.
    pub fn resolve(&self, entity: EntityRef) -> Option<Entity> {
        match entity {
            EntityRef::Scene(k) => self.scene_entities.get(k as usize).copied(),
            EntityRef::Network(identity) => self.engine.find_network_id(identity),
            EntityRef::Local(entity) => Some(entity),
        }
    }

    /// Creates the scene's entities up to `EntityRef::Scene(k)` (`engine.addEntity()`); the
    /// new ones, in order. Stops early when the numbers run out.
    pub fn create_scene_entities(&mut self, up_to: u32) -> Vec<Entity> {
        let mut created = Vec::new();
        while self.scene_entities.len() <= up_to as usize {
            let Ok(entity) = self.engine.entities.generate() else {
                break;
            };
            self.scene_index
                .insert(entity, self.scene_entities.len() as u32);
            self.scene_entities.push(entity);
            created.push(entity);
        }
        created
    }

    /// Runs one tick: `ops` are the scene's writes, `inbound` what `sendBinary` returns this
    /// tick (see the module docs). `tick` labels the tick in the output and in hazards.
    pub fn tick(&mut self, tick: u32, ops: &[SceneOp], inbound: &[Vec<u8>]) -> TickOutput {
        let started = self.begin_tick(tick);
        self.finish_tick(started, ops, inbound)
    }

    /// Step 1 of a tick (see the module docs): the received messages applied, the first tick's
    /// state request queued. The scene's writes may be chosen after looking at the result
    /// (replaying a capture does); [`Self::finish_tick`] runs the rest.
    pub fn begin_tick(&mut self, tick: u32) -> TickOutput {
        let out = TickOutput {
            tick,
            received: self.engine.receive_messages(),
            ..TickOutput::default()
        };
        if self.ticks == 0 {
            self.emit(CommsKind::ReqCrdtState, Vec::new(), Vec::new());
        }
        self.ticks += 1;
        out
    }

    /// Steps 2 to 4 of a tick begun with [`Self::begin_tick`].
    pub fn finish_tick(
        &mut self,
        mut out: TickOutput,
        ops: &[SceneOp],
        inbound: &[Vec<u8>],
    ) -> TickOutput {
        if let Some(up_to) = ops
            .iter()
            .flat_map(SceneOp::entities)
            .filter_map(|entity| match entity {
                EntityRef::Scene(k) => Some(k),
                _ => None,
            })
            .max()
        {
            self.create_scene_entities(up_to);
        }
        let mut removed_parents = Vec::new();
        for op in ops {
            if !self.apply_op(op, &mut removed_parents) {
                out.unresolved.push(op.clone());
            }
        }
        let removed = self.engine.entities.release_removed();
        let sent = self.engine.send_messages(removed);
        out.renderer = sent.renderer;
        out.renderer_writes = sent.renderer_writes;
        out.too_large = sent.too_large;
        for write in &out.renderer_writes {
            self.renderer.apply(&write.message);
        }
        out.hazards = self.find_hazards(out.tick, &out, &removed_parents);
        if self.transport_initialized {
            for batch in sent.network {
                self.emit(CommsKind::Crdt, batch, Vec::new());
            }
        }
        out.sent = std::mem::take(&mut self.pending);
        for (at, item) in inbound.iter().enumerate() {
            if let Err(error) = self.handle_inbound(item) {
                out.inbound_problems
                    .push(InboundProblem { item: at, error });
            }
        }
        out.inbound = inbound.to_vec();
        self.transport_initialized = true;
        out
    }

    /// Applies one scene op; false when it names an entity this player cannot resolve, or an
    /// SDK helper would throw.
    fn apply_op(&mut self, op: &SceneOp, removed_parents: &mut Vec<Entity>) -> bool {
        let Some(entity) = self.resolve(op.entity()) else {
            return false;
        };
        match op {
            SceneOp::Put {
                component,
                data,
                unseen,
                ..
            } => {
                self.engine.skip_timestamps(entity, *component, *unseen);
                let value = stored_or_raw(*component, data);
                self.engine.set_value(entity, *component, value);
            }
            SceneOp::Delete {
                component, unseen, ..
            } => {
                if *component == ids::NETWORK_PARENT && self.engine.has(entity, *component) {
                    removed_parents.push(entity);
                }
                self.engine.skip_timestamps(entity, *component, *unseen);
                self.engine.delete_written(entity, *component);
            }
            SceneOp::Remove { .. } => {
                self.engine.remove_entity(entity);
            }
            SceneOp::SyncEntity {
                components,
                fixed_id,
                ..
            } => {
                let identity = match fixed_id {
                    Some(id) => NetworkIdentity::new(0, *id),
                    None => NetworkIdentity::new(self.network_id, entity.0),
                };
                let listed: Vec<i64> = components
                    .iter()
                    .filter(|&&c| should_sync_component(c))
                    .map(|&c| i64::from(c))
                    .collect();
                let network = identity.to_bytes().to_vec();
                self.engine.set_value(entity, ids::NETWORK_ENTITY, network);
                self.engine
                    .set_value(entity, SYNC_COMPONENTS, encode_sync_components(&listed));
            }
            SceneOp::ParentEntity { parent, .. } => {
                let Some(parent) = self.resolve(*parent) else {
                    return false;
                };
                let Some(network) = self.engine.network_entity(parent) else {
                    return false;
                };
                self.engine
                    .set_value(entity, ids::NETWORK_PARENT, network.to_bytes().to_vec());
                let transform = self
                    .engine
                    .value(entity, ids::TRANSFORM)
                    .map_or_else(|| Transform::IDENTITY.to_bytes().to_vec(), <[u8]>::to_vec);
                self.engine.set_value(entity, ids::TRANSFORM, transform);
            }
            SceneOp::RemoveParent { .. } => {
                if !self.engine.has(entity, ids::NETWORK_ENTITY) {
                    return false;
                }
                if self.engine.has(entity, ids::NETWORK_PARENT) {
                    removed_parents.push(entity);
                }
                self.engine.delete_value(entity, ids::NETWORK_PARENT, true);
            }
        }
        true
    }

    /// `binaryMessageBus.emit`: an item waiting for the next `sendBinary`.
    fn emit(&mut self, kind: CommsKind, payload: Vec<u8>, to: Vec<String>) {
        // Every dialect numbers CRDT, REQ and RES; the others are never emitted here.
        let code = kind.code(self.dialect).unwrap_or(0);
        self.pending.push(OutItem {
            to,
            data: encode_outbound(code, &payload),
        });
    }

    /// Handles one item `sendBinary` returned (step 4 of the module docs).
    fn handle_inbound(&mut self, bytes: &[u8]) -> Result<(), FrameError> {
        let inbound = decode_inbound(bytes, self.dialect)?;
        let sender: Arc<str> = Arc::from(&*inbound.sender);
        self.addresses
            .entry(network_id_from_address(&sender))
            .or_insert_with(|| sender.clone());
        let payload_offset = inbound.item_offset + 1;
        match inbound.item.kind {
            Some(CommsKind::Crdt) => {
                let messages = self.read_crdt(inbound.item.payload, &sender, None);
                self.engine.queue(messages.0);
                messages.1.map_or(Ok(()), |e| Err(shift(e, payload_offset)))
            }
            Some(CommsKind::ReqCrdtState) => {
                for chunk in dump_state(&self.engine) {
                    let payload = encode_state_response(&sender, &chunk);
                    self.emit(CommsKind::ResCrdtState, payload, vec![sender.to_string()]);
                }
                Ok(())
            }
            Some(CommsKind::ResCrdtState) => {
                let response = decode_state_response(inbound.item.payload)
                    .map_err(|e| shift(e, payload_offset))?;
                if *response.requester != *self.address {
                    return Ok(());
                }
                self.state_responses += 1;
                let serial = Some(self.state_responses);
                let (messages, error) = self.read_crdt(response.crdt, &sender, serial);
                self.engine.queue(messages);
                self.state_synchronized = true;
                error.map_or(Ok(()), |e| {
                    Err(shift(e, payload_offset + response.crdt_offset))
                })
            }
            _ => Ok(()),
        }
    }

    /// The CRDT messages of a payload, up to the first malformed one (and its error).
    fn read_crdt(
        &self,
        payload: &[u8],
        sender: &Arc<str>,
        state_response: Option<u32>,
    ) -> (Vec<Received>, Option<FrameError>) {
        let mut out = Vec::new();
        for item in StreamReader::with_dialect(payload, self.dialect) {
            match item {
                // Type 8 (authoritative dialect) is laid out and applied as a PUT.
                Ok(
                    StreamItem::Message { message, .. }
                    | StreamItem::AuthoritativePut { message, .. },
                ) => out.push(Received {
                    message,
                    origin: Origin::Network,
                    sender: Some(sender.clone()),
                    state_response,
                }),
                Ok(_) => {}
                Err(e) => {
                    return (
                        out,
                        Some(FrameError {
                            offset: e.offset,
                            kind: FrameErrorKind::Crdt(e.kind),
                        }),
                    );
                }
            }
        }
        (out, None)
    }
}

/// A frame error moved to count from an enclosing item's first byte.
fn shift(error: FrameError, by: usize) -> FrameError {
    FrameError {
        offset: error.offset + by,
        ..error
    }
}

/// What the engine keeps of a value the scene writes: a Transform and the network components
/// re-encoded through their schemas, anything else as given.
fn stored_or_raw(component: u32, data: &[u8]) -> Vec<u8> {
    if component == ids::TRANSFORM
        && let Some(bytes) = crate::crdt::replica::canonical_transform_bytes(data)
    {
        return bytes.to_vec();
    }
    match super::components::canonical_value(component, data) {
        Some(Ok(value)) => value,
        _ => data.to_vec(),
    }
}
