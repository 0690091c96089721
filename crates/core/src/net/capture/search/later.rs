//! Hypotheses about writes of later ticks no line shows: NetworkParents given or taken on
//! entities without SyncComponents (which send nothing), found from what a mismatching tick's
//! renderer stream or state answers show, and placed at the tick the scene last wrote the
//! entity's Transform.

use super::{HiddenWrite, Hypothesis};
use crate::crdt::CrdtMessage;
use crate::crdt::stream::Dialect;
use crate::model::{Entity, ids};
use crate::net::capture::format::CaptureTick;
use crate::net::capture::replayed::ReplayedTick;
use crate::net::comms::{CommsKind, decode_outbound, decode_state_response};
use crate::net::components::NetworkIdentity;
use crate::net::engine::{ParentSource, ReceiveNote, WriteOrigin};
use crate::net::ops::SceneOp;
use crate::net::player::Player;

/// NetworkParents a state answer of this player's shows and the model lacks: each written
/// unseen on the last tick the scene wrote the entity's Transform and the renderer got the
/// parent that NetworkParent maps to (`parentEntity` writes both; without SyncComponents
/// neither goes to the network).
pub(super) fn answer_hypotheses(
    player: &Player,
    ticks: &[ReplayedTick],
    replayed: &ReplayedTick,
    line: &CaptureTick,
    dialect: Dialect,
) -> Vec<Hypothesis> {
    let ours = sent_messages(
        replayed.output.sent.iter().map(|s| s.data.as_slice()),
        dialect,
        true,
    );
    let theirs = sent_messages(line.sent.iter().map(|s| s.data.0.as_slice()), dialect, true);
    let mut out = Vec::new();
    for message in theirs.iter().filter(|m| !ours.contains(m)) {
        let CrdtMessage::PutComponentNetwork {
            entity,
            component: ids::NETWORK_PARENT,
            network_id,
            data,
            ..
        } = message
        else {
            continue;
        };
        let Some(local) = player
            .engine()
            .find_network_id(NetworkIdentity::new(*network_id, entity.0))
        else {
            continue;
        };
        let Ok(parent) = NetworkIdentity::from_bytes(data, "core-schema::Network-Parent") else {
            continue;
        };
        let Some(parent_local) = player.engine().find_network_id(parent) else {
            continue;
        };
        let written = ticks.iter().enumerate().rev().find(|(_, t)| {
            t.output.renderer_writes.iter().any(|w| match &w.message {
                CrdtMessage::PutComponent {
                    entity,
                    component: ids::TRANSFORM,
                    data,
                    ..
                } => {
                    *entity == local
                        && data.get(40..44) == Some(&parent_local.0.to_le_bytes()[..])
                        && t.ops
                            .iter()
                            .any(|op| player.resolve(op.entity()) == Some(local))
                }
                _ => false,
            })
        });
        if let Some((k, _)) = written {
            out.push(Hypothesis {
                writes: vec![HiddenWrite {
                    entity: local,
                    component: ids::NETWORK_PARENT,
                    identity: parent,
                    tick: (k > 0).then_some(k),
                    removed: false,
                }],
            });
        }
    }
    out
}

/// Earlier Transform writes of the scene that reached the renderer with a parent, tried as
/// `parentEntity` (a NetworkParent naming that parent written in the same tick): on an entity
/// without SyncComponents nothing goes to the network, and the renderer shows the same parent
/// whether the scene wrote it raw, or wrote NetworkParent (anew, or again with the same value);
/// the difference shows only later (a received write of the same timestamp wins or loses on
/// the raw bytes, a state answer shows the NetworkParent's timestamp). One hypothesis per
/// entity the mismatching tick renders, at the last tick the scene wrote its Transform.
pub(super) fn reparent_hypotheses(
    player: &Player,
    ticks: &[ReplayedTick],
    replayed: &ReplayedTick,
    line: &CaptureTick,
    dialect: Dialect,
) -> Vec<Hypothesis> {
    let mut out = Vec::new();
    let mut entities: Vec<Entity> = (replayed.output.renderer_writes.iter())
        .map(|w| w.message.entity())
        .collect();
    entities.extend(differing_sent_entities(player, replayed, line, dialect));
    let mut seen: Vec<Entity> = Vec::new();
    for entity in entities {
        if seen.contains(&entity) {
            continue;
        }
        seen.push(entity);
        let written = ticks.iter().enumerate().rev().find_map(|(k, t)| {
            let wrote = t.ops.iter().any(|op| {
                matches!(
                    op,
                    SceneOp::Put {
                        component: ids::TRANSFORM,
                        ..
                    }
                ) && player.resolve(op.entity()) == Some(entity)
            });
            if !wrote {
                return None;
            }
            // The identity the renderer's parent stood for then: the NetworkParent it was
            // rewritten from, else the parent's NetworkEntity now.
            let rendered = t.output.renderer_writes.iter().rev().find_map(|w| {
                match (&w.origin, &w.message, &w.parent) {
                    (_, _, ParentSource::Mapped(identity)) if w.message.entity() == entity => {
                        Some(Some(*identity))
                    }
                    (
                        WriteOrigin::Own,
                        CrdtMessage::PutComponent {
                            entity: e,
                            component: ids::TRANSFORM,
                            data,
                            ..
                        },
                        _,
                    ) if *e == entity => Some(
                        raw_parent_of(data)
                            .filter(|p| *p != Entity(0))
                            .and_then(|p| identity_then(player, &ticks[..=k], p)),
                    ),
                    _ => None,
                }
            });
            Some((k, rendered.flatten()))
        });
        let Some((k, Some(identity))) = written else {
            continue;
        };
        if !player.engine().has(entity, ids::NETWORK_ENTITY) {
            continue;
        }
        out.push(Hypothesis {
            writes: vec![HiddenWrite {
                entity,
                component: ids::NETWORK_PARENT,
                identity,
                tick: (k > 0).then_some(k),
                removed: false,
            }],
        });
    }
    out
}

/// The local entities of the messages the capture's items of a tick carry and the model's do
/// not (CRDT batches and state answers).
fn differing_sent_entities(
    player: &Player,
    replayed: &ReplayedTick,
    line: &CaptureTick,
    dialect: Dialect,
) -> Vec<Entity> {
    let ours = sent_messages(
        replayed.output.sent.iter().map(|s| s.data.as_slice()),
        dialect,
        false,
    );
    let theirs = sent_messages(
        line.sent.iter().map(|s| s.data.0.as_slice()),
        dialect,
        false,
    );
    theirs
        .iter()
        .filter(|m| !ours.contains(m))
        .filter_map(|m| player.engine().local_entity_of(m))
        .collect()
}

/// The CRDT messages of a tick's outbound items: its state answers', and (unless
/// `answers_only`) its CRDT batches'.
fn sent_messages<'a>(
    items: impl Iterator<Item = &'a [u8]>,
    dialect: Dialect,
    answers_only: bool,
) -> Vec<CrdtMessage> {
    let mut out = Vec::new();
    for item in items {
        let Ok(item) = decode_outbound(item, dialect) else {
            continue;
        };
        let crdt = match item.kind {
            Some(CommsKind::Crdt) if !answers_only => item.payload,
            Some(CommsKind::ResCrdtState) => match decode_state_response(item.payload) {
                Ok(response) => response.crdt,
                Err(_) => continue,
            },
            _ => continue,
        };
        out.extend(crate::crdt::decode_stream_prefix(crdt).0.messages);
    }
    out
}

/// The network identity `entity` held at the end of the last of `ticks`: the last mapping a
/// receive gave it by then (a remote delete since may have taken it away), else what it holds
/// now.
fn identity_then(
    player: &Player,
    ticks: &[ReplayedTick],
    entity: Entity,
) -> Option<NetworkIdentity> {
    let mapped = ticks.iter().rev().find_map(|t| {
        t.output.received.iter().rev().find_map(|note| match note {
            ReceiveNote::Mapped {
                entity: e,
                identity,
            } if *e == entity => Some(*identity),
            _ => None,
        })
    });
    mapped.or_else(|| player.engine().network_entity(entity))
}

/// The parent field of a Transform's bytes.
pub(super) fn raw_parent_of(data: &[u8]) -> Option<Entity> {
    data.get(40..44)
        .map(|p| Entity(u32::from_le_bytes([p[0], p[1], p[2], p[3]])))
}
