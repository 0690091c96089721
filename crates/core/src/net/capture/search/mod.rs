//! The search for writes no capture line shows (see [`super::replay`]'s docs): what could
//! explain a tick the model does not reproduce, tried by replaying the player again with it.

mod later;

use crate::crdt::CrdtMessage;
use crate::model::{Entity, ids};
use crate::net::capture::first_tick::FirstTickWrites;
use crate::net::capture::format::CaptureTick;
use crate::net::capture::replayed::ReplayedTick;
use crate::net::components::NetworkIdentity;
use crate::net::engine::ReceiveNote;
use crate::net::ops::SceneOp;
use crate::net::player::Player;
use later::{answer_hypotheses, raw_parent_of, reparent_hypotheses};

/// Fixed ids (network id 0) that the CRDT `received` in a tick names, as a message's entity or
/// as a NetworkParent value, and that no entity of the player's scene holds.
fn fixed_ids_named(
    player: &Player,
    received: &CaptureTick,
    dialect: crate::crdt::stream::Dialect,
) -> Vec<NetworkIdentity> {
    let mut named = Vec::new();
    let mut note = |identity: NetworkIdentity| {
        let held = player
            .engine()
            .find_network_id(identity)
            .is_some_and(|e| player.scene_handle(e).is_some());
        if identity.network_id == 0 && !held && !named.contains(&identity) {
            named.push(identity);
        }
    };
    for item in &received.received {
        for message in received_messages(&item.0, dialect) {
            if let Some(network_id) = message.network_id() {
                note(NetworkIdentity::new(network_id, message.entity().0));
            }
            if let CrdtMessage::PutComponentNetwork {
                component: ids::NETWORK_PARENT,
                data,
                ..
            } = &message
                && let Ok(parent) = NetworkIdentity::from_bytes(data, "core-schema::Network-Parent")
            {
                note(parent);
            }
        }
    }
    named
}

/// The CRDT messages an inbound item carries (a CRDT item's, or a state answer's).
fn received_messages(item: &[u8], dialect: crate::crdt::stream::Dialect) -> Vec<CrdtMessage> {
    use super::super::comms::{CommsKind, decode_inbound, decode_state_response};
    let Ok(inbound) = decode_inbound(item, dialect) else {
        return Vec::new();
    };
    let crdt = match inbound.item.kind {
        Some(CommsKind::Crdt) => inbound.item.payload,
        Some(CommsKind::ResCrdtState) => match decode_state_response(inbound.item.payload) {
            Ok(response) => response.crdt,
            Err(_) => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    crate::crdt::decode_stream_prefix(crdt).0.messages
}

/// `first` with more first-tick writes.
pub(super) fn with_writes(first: &FirstTickWrites, writes: &[HiddenWrite]) -> FirstTickWrites {
    let mut out = first.clone();
    for write in writes {
        let value = (
            write.entity,
            write.component,
            write.identity.to_bytes().to_vec(),
        );
        if let Some(tick) = write.tick {
            let data = (!write.removed).then(|| value.2.clone());
            out.later
                .entry(tick)
                .or_default()
                .push((value.0, value.1, data));
            continue;
        }
        if write.component == ids::NETWORK_ENTITY && write.identity.network_id == 0 {
            out.fixed.insert(write.identity, write.entity);
        }
        out.values.push(value);
    }
    out.values.sort_by_key(|(entity, _, _)| *entity);
    out
}

/// How many ticks before a mismatch an unseen `removeParent` is looked for.
const REMOVAL_LOOKBACK: usize = 16;

/// First-tick writes no line shows, to try together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Hypothesis {
    pub(super) writes: Vec<HiddenWrite>,
}

/// `entity` held `identity` as its NetworkEntity or its NetworkParent from the player's first
/// tick, or (`tick`) got it in that tick of the player's; `removed`: lost it in that tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct HiddenWrite {
    entity: Entity,
    component: u32,
    identity: NetworkIdentity,
    tick: Option<usize>,
    removed: bool,
}

/// The first-tick writes that could explain a mismatching tick (see the module docs):
/// - a fixed id the previous tick's items name, held by a first-tick entity without a
///   NetworkEntity;
/// - a NetworkParent on a first-tick entity whose Transform the renderer got with another
///   parent than the model computed, naming the network entity of the renderer's parent
///   (and the entity's own NetworkEntity, which the rewrite needs, when it has none).
pub(super) fn hypotheses(
    player: &Player,
    ticks: &[ReplayedTick],
    replayed: &ReplayedTick,
    previous: Option<&CaptureTick>,
    line: &CaptureTick,
    dialect: crate::crdt::stream::Dialect,
) -> Vec<Hypothesis> {
    let first_tick = ticks.first().unwrap_or(replayed);
    let candidates = unnamed_first_tick_entities(player, first_tick);
    let mut named = previous.map_or_else(Vec::new, |p| fixed_ids_named(player, p, dialect));
    // This tick's items too (applied next tick): a NetworkParent the scene wrote this tick may
    // name a fixed id the model learns only then.
    for identity in fixed_ids_named(player, line, dialect) {
        if !named.contains(&identity) {
            named.push(identity);
        }
    }
    // Fixed ids this player mapped to an entity of its own making on receipt: the scene may
    // hold one already.
    for (entity, identity) in player.engine().network_map() {
        if identity.network_id == 0
            && player.scene_handle(entity).is_none()
            && !named.contains(&identity)
        {
            named.push(identity);
        }
    }
    // Fixed ids it mapped on receipt at any earlier tick: a write of this tick may have taken
    // the entity over since (the scene's next entity, when the SDK never allocated it).
    for tick in ticks.iter().chain([replayed]) {
        for note in &tick.output.received {
            if let ReceiveNote::Mapped { identity, .. } = note
                && identity.network_id == 0
                && !named.contains(identity)
            {
                named.push(*identity);
            }
        }
    }
    // Fixed ids this player holds as a NetworkParent and cannot map.
    if let Some(parents) = player.engine().store(ids::NETWORK_PARENT) {
        for (_, value) in parents.entities() {
            if let Ok(parent) = NetworkIdentity::from_bytes(value, "core-schema::Network-Parent")
                && parent.network_id == 0
                && player.engine().find_network_id(parent).is_none()
                && !named.contains(&parent)
            {
                named.push(parent);
            }
        }
    }
    let mut out: Vec<Hypothesis> = Vec::new();
    for identity in named {
        for &holder in &candidates {
            let held = HiddenWrite {
                entity: holder,
                component: ids::NETWORK_ENTITY,
                identity,
                tick: None,
                removed: false,
            };
            out.push(Hypothesis {
                writes: vec![held.clone()],
            });
            // The first tick's children of the holder, parented with `parentEntity` (their
            // NetworkParent names the fixed id; raw parents are tried by the hypothesis above).
            let children = first_tick_children(player, first_tick, holder, identity);
            if !children.is_empty() {
                out.push(Hypothesis {
                    writes: std::iter::once(held).chain(children).collect(),
                });
            }
        }
    }
    // NetworkParents from the first tick where that can be, else written this tick.
    let mut removals = Vec::new();
    for this_tick in [false, true] {
        let writes = parent_hypotheses(player, first_tick, replayed, line, ticks.len(), this_tick);
        removals.extend(writes.iter().filter(|w| w.removed).cloned());
        if !writes.is_empty() && !out.iter().any(|h| h.writes == writes) {
            out.push(Hypothesis { writes });
        }
    }
    // A removeParent no line shows may have run on any earlier tick: where it ran decides
    // which received NetworkParents it outdates. Latest first, a bounded way back.
    for removal in removals {
        for k in (1..ticks.len()).rev().take(REMOVAL_LOOKBACK) {
            let writes = vec![HiddenWrite {
                tick: Some(k),
                ..removal.clone()
            }];
            if !out.iter().any(|h| h.writes == writes) {
                out.push(Hypothesis { writes });
            }
        }
    }
    out.extend(answer_hypotheses(player, ticks, replayed, line, dialect));
    out.extend(reparent_hypotheses(player, ticks, replayed, line, dialect));
    out
}

/// NetworkParents on first-tick entities whose Transform the renderer got with another parent
/// than the model computed, naming the network entity of the renderer's parent (and the
/// entity's own NetworkEntity, which the rewrite needs, when it has none).
pub(super) fn parent_hypotheses(
    player: &Player,
    first_tick: &ReplayedTick,
    replayed: &ReplayedTick,
    line: &CaptureTick,
    n: usize,
    this_tick: bool,
) -> Vec<HiddenWrite> {
    let mut out = Vec::new();
    let Some(theirs) = &line.renderer else {
        return out;
    };
    let first_tick: Vec<Entity> = (first_tick.output.renderer_writes.iter())
        .map(|w| w.message.entity())
        .collect();
    let theirs = crate::crdt::decode_stream_prefix(&theirs.0).0.messages;
    for (ours, theirs) in replayed.output.renderer_writes.iter().zip(&theirs) {
        let (
            CrdtMessage::PutComponent {
                entity,
                component: ids::TRANSFORM,
                data: ours,
                ..
            },
            CrdtMessage::PutComponent {
                entity: same,
                component: ids::TRANSFORM,
                data: theirs,
                ..
            },
        ) = (&ours.message, theirs)
        else {
            continue;
        };
        let parent = |d: &[u8]| {
            d.get(40..44)
                .map(|p| Entity(u32::from_le_bytes([p[0], p[1], p[2], p[3]])))
        };
        // Written this tick by the scene (parentEntity writes the Transform again), or made on
        // the first tick.
        let written_now = replayed.ops.iter().any(|op| {
            matches!(
                op,
                SceneOp::Put {
                    component: ids::TRANSFORM,
                    ..
                }
            ) && player.resolve(op.entity()) == Some(*entity)
        });
        let first = first_tick.contains(entity);
        // A write no line shows may have come any tick before; this tick stands for it.
        let tick = if n > 0 && (this_tick || !first) {
            Some(n)
        } else {
            None
        };
        if entity != same || ours.get(..40) != theirs.get(..40) {
            continue;
        }
        // The renderer got the Transform's own parent where the model rewrote it: the scene
        // removed the NetworkParent (removeParent) this tick or before, unseen.
        let stored_parent = player
            .engine()
            .value(*entity, ids::TRANSFORM)
            .and_then(&parent);
        if n > 0
            && player.engine().has(*entity, ids::NETWORK_PARENT)
            && parent(ours) != parent(theirs)
            && (parent(theirs) == raw_parent(player, replayed, *entity)
                || (!written_now && parent(theirs) == stored_parent))
        {
            out.push(HiddenWrite {
                entity: *entity,
                component: ids::NETWORK_PARENT,
                identity: NetworkIdentity::new(0, 0),
                tick: Some(n),
                removed: true,
            });
            continue;
        }
        // A NetworkParent held already can only have been replaced this tick.
        if (tick.is_none() && !first)
            || (tick.is_none() && player.engine().has(*entity, ids::NETWORK_PARENT))
        {
            continue;
        }
        if let Some(identity) = parent(theirs).and_then(|p| player.engine().network_entity(p))
            && parent(ours) != parent(theirs)
        {
            out.push(HiddenWrite {
                entity: *entity,
                component: ids::NETWORK_PARENT,
                identity,
                tick,
                removed: false,
            });
            if !player.engine().has(*entity, ids::NETWORK_ENTITY) {
                out.push(HiddenWrite {
                    entity: *entity,
                    component: ids::NETWORK_ENTITY,
                    identity: NetworkIdentity::new(player.network_id(), entity.0),
                    tick,
                    removed: false,
                });
            }
        }
    }
    out
}

/// The parent field of the Transform the scene wrote for `entity` in a tick (its op's data).
fn raw_parent(player: &Player, replayed: &ReplayedTick, entity: Entity) -> Option<Entity> {
    replayed.ops.iter().find_map(|op| match op {
        SceneOp::Put {
            component: ids::TRANSFORM,
            data,
            ..
        } if player.resolve(op.entity()) == Some(entity) => data
            .get(40..44)
            .map(|p| Entity(u32::from_le_bytes([p[0], p[1], p[2], p[3]]))),
        _ => None,
    })
}

/// NetworkParent = `identity` (and the NetworkEntity the rewrite needs, where missing) for each
/// entity whose Transform the first tick rendered under `holder` and that holds no
/// NetworkParent.
fn first_tick_children(
    player: &Player,
    first: &ReplayedTick,
    holder: Entity,
    identity: NetworkIdentity,
) -> Vec<HiddenWrite> {
    let mut out = Vec::new();
    for write in &first.output.renderer_writes {
        let CrdtMessage::PutComponent {
            entity,
            component: ids::TRANSFORM,
            data,
            ..
        } = &write.message
        else {
            continue;
        };
        if raw_parent_of(data) != Some(holder)
            || player.engine().has(*entity, ids::NETWORK_PARENT)
            || out.iter().any(|w: &HiddenWrite| w.entity == *entity)
        {
            continue;
        }
        out.push(HiddenWrite {
            entity: *entity,
            component: ids::NETWORK_PARENT,
            identity,
            tick: None,
            removed: false,
        });
        if !player.engine().has(*entity, ids::NETWORK_ENTITY) {
            out.push(HiddenWrite {
                entity: *entity,
                component: ids::NETWORK_ENTITY,
                identity: NetworkIdentity::new(player.network_id(), entity.0),
                tick: None,
                removed: false,
            });
        }
    }
    out
}

/// Entities the player's scene made on its first tick that hold no NetworkEntity.
fn unnamed_first_tick_entities(player: &Player, first: &ReplayedTick) -> Vec<Entity> {
    let mut out: Vec<Entity> = Vec::new();
    for write in &first.output.renderer_writes {
        let entity = write.message.entity();
        if player.scene_handle(entity).is_some()
            && !player.engine().has(entity, ids::NETWORK_ENTITY)
            && !out.contains(&entity)
        {
            out.push(entity);
        }
    }
    out
}
