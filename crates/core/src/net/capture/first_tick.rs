//! What a player's first tick wrote that no capture line of that tick shows.
//!
//! A player's first tick puts nothing on the network (its transport is not initialized yet), and
//! the renderer never sees components above id 2048, so what a scene's `main()` writes of
//! NetworkEntity, SyncComponents, NetworkParent or its own components is invisible that tick.
//! It shows later, only in what the same player sends: its state answers carry every synced
//! value with its timestamp, and its later writes name its entities in network terms. A value
//! at timestamp 1 seen there that the player never visibly wrote (no CRDT item of a later tick
//! carries it at timestamp 1) was written on the first tick. Entities synced with a fixed id are
//! named `(0, id)` on the network; their local number is the first-tick renderer Transform with
//! the same timestamp and values. Without a state answer, an entity's NetworkEntity is still
//! known from any later message naming it (the value *is* the name), and its SyncComponents is
//! taken to list the components it later sends past their first write.

use rustc_hash::{FxHashMap, FxHashSet};

use super::super::comms::{CommsKind, decode_inbound, decode_outbound, decode_state_response};
use super::super::components::{NetworkIdentity, SYNC_COMPONENTS, encode_sync_components};
use super::format::{Capture, CaptureTick};
use crate::crdt::CrdtMessage;
use crate::crdt::stream::{Dialect, StreamItem, StreamReader};
use crate::model::{Entity, MAX_STATIC_COMPONENT, Transform, ids};

/// A write of a later tick no line shows: (entity, component, the value or `None` for a
/// delete).
pub type LaterWrite = (Entity, u32, Option<Vec<u8>>);

/// The first-tick writes recovered for one player.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FirstTickWrites {
    /// (entity, component, value), in the order first seen.
    pub values: Vec<(Entity, u32, Vec<u8>)>,
    /// Fixed ids the player synced on its first tick → its local entity.
    pub fixed: FxHashMap<NetworkIdentity, Entity>,
    /// The Transforms the first tick wrote as its state answers show them (the renderer got
    /// them with a parent rewritten from NetworkParent).
    pub transforms: FxHashMap<Entity, Vec<u8>>,
    /// Writes of later ticks no line shows (by the player's tick position from 0; `None`
    /// deletes): a NetworkParent given to or taken from an entity without SyncComponents,
    /// which goes to no network.
    pub later: FxHashMap<usize, Vec<LaterWrite>>,
}

/// The CRDT messages a player sent in a tick: its CRDT items' and its state answers'.
fn sent_messages(line: &CaptureTick, dialect: Dialect) -> Vec<(CommsKind, CrdtMessage)> {
    let mut out = Vec::new();
    for item in &line.sent {
        let Ok(item) = decode_outbound(&item.data.0, dialect) else {
            continue;
        };
        let (kind, crdt) = match item.kind {
            Some(CommsKind::Crdt) => (CommsKind::Crdt, item.payload),
            Some(CommsKind::ResCrdtState) => match decode_state_response(item.payload) {
                Ok(response) => (CommsKind::ResCrdtState, response.crdt),
                Err(_) => continue,
            },
            _ => continue,
        };
        for message in StreamReader::with_dialect(crdt, dialect) {
            match message {
                Ok(StreamItem::Message { message, .. }) => out.push((kind, message)),
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    out
}

/// The renderer's Transform PUTs of a tick: (entity, timestamp, bytes).
fn renderer_transforms(line: &CaptureTick, dialect: Dialect) -> Vec<(Entity, u32, Vec<u8>)> {
    let Some(renderer) = &line.renderer else {
        return Vec::new();
    };
    StreamReader::with_dialect(&renderer.0, dialect)
        .map_while(Result::ok)
        .filter_map(|item| match item {
            StreamItem::Message {
                message:
                    CrdtMessage::PutComponent {
                        entity,
                        component: Transform::COMPONENT_ID,
                        timestamp,
                        data,
                    },
                ..
            } => Some((entity, timestamp, data)),
            _ => None,
        })
        .collect()
}

/// The CRDT messages a player received in a tick: CRDT items', and state answers' addressed to
/// it.
fn received_messages(line: &CaptureTick, dialect: Dialect, address: &str) -> Vec<CrdtMessage> {
    let mut out = Vec::new();
    for item in &line.received {
        let Ok(inbound) = decode_inbound(&item.0, dialect) else {
            continue;
        };
        let crdt = match inbound.item.kind {
            Some(CommsKind::Crdt) => inbound.item.payload,
            Some(CommsKind::ResCrdtState) => match decode_state_response(inbound.item.payload) {
                Ok(response) if *response.requester == *address => response.crdt,
                _ => continue,
            },
            _ => continue,
        };
        out.extend(crate::crdt::decode_stream_prefix(crdt).0.messages);
    }
    out
}

/// The entities the renderer is told to delete in a tick, in order.
fn renderer_deletes(line: &CaptureTick, dialect: Dialect) -> Vec<Entity> {
    let Some(renderer) = &line.renderer else {
        return Vec::new();
    };
    StreamReader::with_dialect(&renderer.0, dialect)
        .map_while(Result::ok)
        .filter_map(|item| match item {
            StreamItem::Message {
                message: CrdtMessage::DeleteEntity { entity },
                ..
            } => Some(entity),
            _ => None,
        })
        .collect()
}

/// Recovers the first-tick writes of the player at `address` (see the module docs).
pub fn first_tick_writes(capture: &Capture, address: &str, network_id: u32) -> FirstTickWrites {
    let dialect = capture.dialect();
    let network_id_of_player = network_id;
    let mut lines = capture
        .ticks
        .iter()
        .map(|(_, t)| t)
        .filter(|t| t.player == address);
    let Some(first) = lines.next() else {
        return FirstTickWrites::default();
    };
    // What the first tick's renderer stream names (nothing is forwarded on a first tick, so it
    // is all the scene's own, a removed entity included: it keeps its NetworkEntity), and the
    // renderer components each entity got, in order.
    let mut first_components: Vec<(Entity, Vec<i64>)> = Vec::new();
    if let Some(renderer) = &first.renderer {
        for item in StreamReader::with_dialect(&renderer.0, dialect).map_while(Result::ok) {
            let StreamItem::Message { message, .. } = item else {
                continue;
            };
            let at = match first_components
                .iter()
                .position(|(e, _)| *e == message.entity())
            {
                Some(at) => at,
                None => {
                    first_components.push((message.entity(), Vec::new()));
                    first_components.len() - 1
                }
            };
            if let CrdtMessage::PutComponent { component, .. } = message {
                first_components[at].1.push(i64::from(component));
            }
        }
    }
    // A first tick that made nothing hid nothing.
    if first_components.is_empty() {
        return FirstTickWrites::default();
    }
    // Every Transform the player's renderer was told so far: (timestamp, values) → entity.
    let mut rendered: FxHashMap<(u32, Vec<u8>), Entity> = FxHashMap::default();
    let remember = |line: &CaptureTick, rendered: &mut FxHashMap<(u32, Vec<u8>), Entity>| {
        for (entity, ts, data) in renderer_transforms(line, dialect) {
            rendered.insert((ts, data.get(..40).unwrap_or(&data).to_vec()), entity);
        }
    };
    remember(first, &mut rendered);
    let mut fixed: FxHashMap<NetworkIdentity, Entity> = FxHashMap::default();
    let mut visible: FxHashSet<(NetworkIdentity, u32)> = FxHashSet::default();
    let mut seen: FxHashSet<(NetworkIdentity, u32)> = FxHashSet::default();
    let mut evidence: Vec<(NetworkIdentity, u32, Vec<u8>)> = Vec::new();
    let mut raw_transforms: Vec<(NetworkIdentity, Vec<u8>)> = Vec::new();
    // Identities named later, and the components each sends past their first write.
    let mut named: Vec<NetworkIdentity> = Vec::new();
    let mut listed: FxHashMap<NetworkIdentity, Vec<i64>> = FxHashMap::default();
    // Network entities this player has received anything about (by the line before): from
    // then on its state answers may carry other players' values for them.
    let mut touched: FxHashSet<NetworkIdentity> = FxHashSet::default();
    let mut touched_next: Vec<NetworkIdentity> = Vec::new();
    for line in lines {
        remember(line, &mut rendered);
        touched.extend(touched_next.drain(..));
        for message in received_messages(line, dialect, address) {
            if let Some(network) = message.network_id() {
                touched_next.push(NetworkIdentity::new(network, message.entity().0));
            }
        }
        let sent = sent_messages(line, dialect);
        // A fixed id this player deletes: the last first-tick entity the renderer is told to
        // delete in the same tick that no dynamic delete of the tick names.
        for (_, message) in &sent {
            let CrdtMessage::DeleteEntityNetwork {
                entity,
                network_id: 0,
            } = message
            else {
                continue;
            };
            let identity = NetworkIdentity::new(0, entity.0);
            if fixed.contains_key(&identity) {
                continue;
            }
            let dynamic = |e: Entity| {
                sent.iter().any(|(_, m)| {
                    matches!(m, CrdtMessage::DeleteEntityNetwork { entity, network_id }
                        if *entity == e && *network_id == network_id_of_player)
                })
            };
            let deleted = renderer_deletes(line, dialect);
            if let Some(&local) = deleted
                .iter()
                .rev()
                .find(|&&e| first_components.iter().any(|(f, _)| *f == e) && !dynamic(e))
            {
                fixed.insert(identity, local);
            }
        }
        for (kind, message) in sent {
            let Some(owner) = message.network_id().filter(|&n| n == network_id || n == 0) else {
                continue;
            };
            let identity = NetworkIdentity::new(owner, message.entity().0);
            if !named.contains(&identity) {
                named.push(identity);
            }
            let timestamp = message.timestamp().unwrap_or(0);
            if let Some(component) = message.component()
                && kind == CommsKind::Crdt
                && timestamp > 1
                && ![ids::NETWORK_ENTITY, ids::NETWORK_PARENT, SYNC_COMPONENTS].contains(&component)
            {
                let list = listed.entry(identity).or_default();
                if !list.contains(&i64::from(component)) {
                    list.push(i64::from(component));
                }
            }
            let CrdtMessage::PutComponentNetwork {
                component, data, ..
            } = message
            else {
                continue;
            };
            if component == Transform::COMPONENT_ID {
                if owner == 0 && !fixed.contains_key(&identity) {
                    // The renderer was told the same write of the fixed-id entity's Transform.
                    let key = (timestamp, data.get(..40).unwrap_or(&data).to_vec());
                    if let Some(&local) = rendered.get(&key) {
                        fixed.insert(identity, local);
                    }
                }
                // Only this player writes its dynamic entities at timestamp 1; a fixed id's
                // value may be another player's that won a tie.
                if kind == CommsKind::ResCrdtState
                    && timestamp == 1
                    && owner == network_id
                    && !touched.contains(&identity)
                {
                    raw_transforms.push((identity, data));
                }
                continue;
            }
            if component <= MAX_STATIC_COMPONENT || timestamp != 1 {
                continue;
            }
            if kind == CommsKind::Crdt {
                visible.insert((identity, component));
            } else if !touched.contains(&identity) && seen.insert((identity, component)) {
                evidence.push((identity, component, data));
            }
        }
    }
    // Fixed ids still unplaced, and first-tick entities nothing names: when they are as many,
    // they pair up in order (a scene makes its fixed-id entities first, in `main()`).
    let unplaced: Vec<NetworkIdentity> = named
        .iter()
        .copied()
        .filter(|i| i.network_id == 0 && !fixed.contains_key(i))
        .collect();
    let unnamed: Vec<Entity> = first_components
        .iter()
        .map(|(e, _)| *e)
        .filter(|e| {
            !fixed.values().any(|f| f == e)
                && !named.contains(&NetworkIdentity::new(network_id, e.0))
        })
        .collect();
    if !unplaced.is_empty() && unplaced.len() == unnamed.len() {
        let mut unnamed = unnamed;
        unnamed.sort_unstable();
        let mut unplaced = unplaced;
        unplaced.sort_unstable();
        fixed.extend(unplaced.into_iter().zip(unnamed));
    }
    let local_of = |identity: NetworkIdentity| {
        if identity.network_id == i64::from(network_id) {
            Some(Entity(identity.entity_id))
        } else {
            fixed.get(&identity).copied()
        }
    };
    let made_first = |entity: Entity| first_components.iter().find(|(e, _)| *e == entity);
    for identity in named {
        // SyncComponents, unless a state answer showed it: what the scene gave the entity on its
        // first tick, then what it sent of it later.
        let mut guess = local_of(identity)
            .and_then(made_first)
            .map_or_else(Vec::new, |(_, components)| components.clone());
        for component in listed.get(&identity).into_iter().flatten() {
            if !guess.contains(component) {
                guess.push(*component);
            }
        }
        for (component, value) in [
            (ids::NETWORK_ENTITY, identity.to_bytes().to_vec()),
            (SYNC_COMPONENTS, encode_sync_components(&guess)),
        ] {
            if seen.insert((identity, component)) {
                evidence.push((identity, component, value));
            }
        }
    }
    let mut values: Vec<(Entity, u32, Vec<u8>)> = evidence
        .into_iter()
        .filter(|(identity, component, _)| !visible.contains(&(*identity, *component)))
        .filter_map(|(identity, component, data)| {
            let local = local_of(identity)?;
            made_first(local)
                .is_some()
                .then_some((local, component, data))
        })
        .collect();
    // A scene's first tick writes its entities in the order it creates them, which is the
    // order of their numbers (all fresh): the order the runtime keeps their registers in.
    values.sort_by_key(|(entity, _, _)| *entity);
    let transforms = raw_transforms
        .into_iter()
        .filter_map(|(identity, data)| Some((local_of(identity)?, data)))
        .collect();
    FirstTickWrites {
        values,
        fixed,
        transforms,
        later: FxHashMap::default(),
    }
}
