//! Replaying a capture: each line runs one tick of its player on the items the capture says
//! `sendBinary` returned, with the scene's writes recovered from what the tick sent
//! ([`infer_tick`]). The model then computes everything the tick sent itself, and each tick's
//! computed renderer stream and items are compared with the captured ones.
//!
//! Players are independent in a replay (each one's inbound items come from the capture), so
//! each is replayed on its own, in header order. One thing a capture can hide needs a search:
//! an entity a scene synced with a fixed id on its first tick and never sent again (no line of
//! that player names it) shows only when another player's message about the same fixed id is
//! forwarded to its renderer under that entity's number. At the first mismatch of a tick that
//! names an unmapped fixed id, each first-tick entity without a NetworkEntity is tried as that
//! id's holder (replaying the player again from its first tick), and the one that makes the
//! tick match is kept.
//!
//! The cost is linear in the capture, times one more pass per fixed id found by that search.

use super::super::components::NetworkIdentity;
use super::super::hazard::Hazard;
use super::super::ops::{EntityRef, SceneOp};
use super::super::player::{Player, TickOutput};
use super::first_tick::{FirstTickWrites, first_tick_writes};
use super::format::{Capture, CaptureTick};
use super::infer::infer_tick;
use crate::crdt::CrdtMessage;
use crate::model::{Entity, ids};

/// One replayed tick.
#[derive(Clone, Debug)]
pub struct ReplayedTick {
    /// The player's position in the header.
    pub player: usize,
    /// The capture line it came from.
    pub line: usize,
    /// The scene's writes, recovered.
    pub ops: Vec<SceneOp>,
    /// What the model's tick did.
    pub output: TickOutput,
    /// Where the model's renderer bytes first differ from the capture's (`None`: equal, or no
    /// renderer bytes captured).
    pub renderer_differs_at: Option<usize>,
    /// The positions of sent items that differ from the capture's (a missing or extra item
    /// counts at its position).
    pub sent_differs: Vec<usize>,
    /// What the inference could not reconcile.
    pub notes: Vec<String>,
}

impl ReplayedTick {
    /// True when the model sent exactly what the capture recorded.
    pub fn matches(&self) -> bool {
        self.renderer_differs_at.is_none() && self.sent_differs.is_empty()
    }
}

/// The end of a replay: each player's final state and hazards, and per tick the recovered
/// writes (what a new run with other deliveries replays).
#[derive(Clone, Debug)]
pub struct Replay {
    /// The players, in header order, after their last tick.
    pub players: Vec<Player>,
    /// Per player, every hazard in tick order.
    pub hazards: Vec<Vec<Hazard>>,
    /// Per player, per tick in order: (the captured tick number, the scene's writes).
    pub ops: Vec<Vec<(u32, Vec<SceneOp>)>>,
    /// Ticks whose computed sends differ from the capture's.
    pub mismatched_ticks: usize,
}

/// The first byte where `a` and `b` differ (the shorter one's length when one is a prefix).
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    if a == b {
        return None;
    }
    Some(a.iter().zip(b).take_while(|(x, y)| x == y).count())
}

/// Runs one captured tick on `player`.
fn run_tick(
    player: &mut Player,
    at: usize,
    line: usize,
    tick: &CaptureTick,
    hidden: (usize, &FirstTickWrites),
    dialect: crate::crdt::stream::Dialect,
) -> ReplayedTick {
    let (n, writes) = hidden;
    let begun = player.begin_tick(tick.tick);
    let mut inferred = infer_tick(player, tick, dialect, (n == 0).then_some(writes));
    if let Some(later) = writes.later.get(&n) {
        for (entity, component, _) in later {
            // The renderer got this entity's Transform with its parent rewritten from the
            // NetworkParent written unseen; the scene's own value keeps the parent it had.
            if *component != ids::NETWORK_PARENT {
                continue;
            }
            let kept = player
                .engine()
                .value(*entity, ids::TRANSFORM)
                .and_then(|t| t.get(40..44))
                .map_or([0; 4], |p| [p[0], p[1], p[2], p[3]]);
            for op in &mut inferred.ops {
                let names = player.resolve(op.entity()) == Some(*entity);
                if let SceneOp::Put {
                    component: ids::TRANSFORM,
                    data,
                    ..
                } = op
                    && names
                    && let Some(parent) = data.get_mut(40..44)
                {
                    parent.copy_from_slice(&kept);
                }
            }
        }
        let at = (inferred.ops.iter())
            .position(|op| matches!(op, SceneOp::Remove { .. }))
            .unwrap_or(inferred.ops.len());
        let writes = later.iter().map(|(entity, component, data)| match data {
            Some(data) => SceneOp::Put {
                entity: EntityRef::Local(*entity),
                component: *component,
                data: data.clone(),
                unseen: 0,
            },
            None => SceneOp::Delete {
                entity: EntityRef::Local(*entity),
                component: *component,
                unseen: 0,
            },
        });
        inferred.ops.splice(at..at, writes);
    }
    let received: Vec<Vec<u8>> = tick.received.iter().map(|r| r.0.clone()).collect();
    let output = player.finish_tick(begun, &inferred.ops, &received);
    let renderer_differs_at =
        (tick.renderer.as_ref()).and_then(|r| first_difference(&output.renderer, &r.0));
    let sent_differs = (0..output.sent.len().max(tick.sent.len()))
        .filter(|&i| match (output.sent.get(i), tick.sent.get(i)) {
            (Some(ours), Some(theirs)) => ours.data != theirs.data.0 || ours.to != theirs.to,
            _ => true,
        })
        .collect();
    ReplayedTick {
        player: at,
        line,
        ops: inferred.ops,
        output,
        renderer_differs_at,
        sent_differs,
        notes: inferred.notes,
    }
}

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

/// One player's replay.
struct PlayerRun {
    player: Player,
    ticks: Vec<ReplayedTick>,
}

/// Replays the lines of player `at` (capture order), `first` holding its first-tick writes;
/// stops after `until` lines when given.
fn run_player(
    capture: &Capture,
    at: usize,
    lines: &[(usize, &CaptureTick)],
    first: &FirstTickWrites,
    until: Option<usize>,
) -> PlayerRun {
    let dialect = capture.dialect();
    let mut player = Player::new(&capture.header.players[at].address, dialect);
    let mut ticks = Vec::with_capacity(lines.len());
    for (n, (line, tick)) in lines.iter().enumerate().take(until.unwrap_or(usize::MAX)) {
        ticks.push(run_tick(&mut player, at, *line, tick, (n, first), dialect));
    }
    PlayerRun { player, ticks }
}

/// Replays player `at`, searching for first-tick fixed ids no line names (see the module docs).
fn replay_player(capture: &Capture, at: usize, lines: &[(usize, &CaptureTick)]) -> PlayerRun {
    let address = &capture.header.players[at].address;
    let probe = Player::new(address, capture.dialect());
    let mut first = first_tick_writes(capture, address, probe.network_id());
    let mut tried: Vec<Hypothesis> = Vec::new();
    'search: loop {
        let dialect = capture.dialect();
        let mut player = Player::new(address, dialect);
        let mut ticks: Vec<ReplayedTick> = Vec::with_capacity(lines.len());
        for (n, (line, tick)) in lines.iter().enumerate() {
            let replayed = run_tick(&mut player, at, *line, tick, (n, &first), dialect);
            if !replayed.matches() {
                let previous = n.checked_sub(1).map(|p| lines[p].1);
                for guess in hypotheses(&player, &ticks, &replayed, previous, tick, dialect) {
                    if tried.contains(&guess) {
                        continue;
                    }
                    tried.push(guess.clone());
                    let mut trial_first = with_writes(&first, &guess.writes);
                    let mut trial = run_player(capture, at, lines, &trial_first, Some(n + 1));
                    // One guess can uncover another: a fixed-id holder, once placed, shows the
                    // NetworkParents that name it. Those are added in one more pass.
                    if let Some(last) = trial.ticks.last().filter(|t| !t.matches()) {
                        let first_tick = trial.ticks.first().unwrap_or(last);
                        let more =
                            parent_hypotheses(&trial.player, first_tick, last, tick, n, false);
                        if !more.is_empty() {
                            trial_first = with_writes(&trial_first, &more);
                            trial = run_player(capture, at, lines, &trial_first, Some(n + 1));
                        }
                    }
                    // Kept only when it makes this tick match and breaks none before it.
                    let broke = (trial.ticks.iter().zip(&ticks))
                        .any(|(new, old)| old.matches() && !new.matches());
                    if !broke && trial.ticks.last().is_some_and(ReplayedTick::matches) {
                        first = trial_first;
                        continue 'search;
                    }
                }
            }
            ticks.push(replayed);
        }
        return PlayerRun { player, ticks };
    }
}

/// `first` with more first-tick writes.
fn with_writes(first: &FirstTickWrites, writes: &[HiddenWrite]) -> FirstTickWrites {
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

/// First-tick writes no line shows, to try together.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Hypothesis {
    writes: Vec<HiddenWrite>,
}

/// `entity` held `identity` as its NetworkEntity or its NetworkParent from the player's first
/// tick, or (`tick`) got it in that tick of the player's; `removed`: lost it in that tick.
#[derive(Clone, Debug, PartialEq, Eq)]
struct HiddenWrite {
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
fn hypotheses(
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
    let mut out: Vec<Hypothesis> = named
        .into_iter()
        .flat_map(|identity| {
            candidates.iter().map(move |&entity| Hypothesis {
                writes: vec![HiddenWrite {
                    entity,
                    component: ids::NETWORK_ENTITY,
                    identity,
                    tick: None,
                    removed: false,
                }],
            })
        })
        .collect();
    // NetworkParents from the first tick where that can be, else written this tick.
    for this_tick in [false, true] {
        let writes = parent_hypotheses(player, first_tick, replayed, line, ticks.len(), this_tick);
        if !writes.is_empty() && !out.iter().any(|h| h.writes == writes) {
            out.push(Hypothesis { writes });
        }
    }
    out.extend(answer_hypotheses(player, ticks, replayed, line, dialect));
    out
}

/// NetworkParents a state answer of this player's shows and the model lacks: each written
/// unseen on the last tick the scene wrote the entity's Transform and the renderer got the
/// parent that NetworkParent maps to (`parentEntity` writes both; without SyncComponents
/// neither goes to the network).
fn answer_hypotheses(
    player: &Player,
    ticks: &[ReplayedTick],
    replayed: &ReplayedTick,
    line: &CaptureTick,
    dialect: crate::crdt::stream::Dialect,
) -> Vec<Hypothesis> {
    use super::super::comms::{CommsKind, decode_outbound, decode_state_response};
    let answers = |items: &mut dyn Iterator<Item = &[u8]>| -> Vec<CrdtMessage> {
        let mut out = Vec::new();
        for item in items {
            if let Ok(item) = decode_outbound(item, dialect)
                && item.kind == Some(CommsKind::ResCrdtState)
                && let Ok(response) = decode_state_response(item.payload)
            {
                out.extend(crate::crdt::decode_stream_prefix(response.crdt).0.messages);
            }
        }
        out
    };
    let ours = answers(&mut replayed.output.sent.iter().map(|s| s.data.as_slice()));
    let theirs = answers(&mut line.sent.iter().map(|s| s.data.0.as_slice()));
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

/// NetworkParents on first-tick entities whose Transform the renderer got with another parent
/// than the model computed, naming the network entity of the renderer's parent (and the
/// entity's own NetworkEntity, which the rewrite needs, when it has none).
fn parent_hypotheses(
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

/// Replays `capture`, calling `on_tick` after each tick: the ticks of each player in order,
/// players in header order (see the module docs).
pub fn replay_with(capture: &Capture, mut on_tick: impl FnMut(&ReplayedTick)) -> Replay {
    let count = capture.header.players.len();
    let mut per_player: Vec<Vec<(usize, &CaptureTick)>> = vec![Vec::new(); count];
    for (line, tick) in &capture.ticks {
        if let Some(at) = capture.player_index(&tick.player) {
            per_player[at].push((*line, tick));
        }
    }
    let mut players = Vec::with_capacity(count);
    let mut hazards = Vec::with_capacity(count);
    let mut ops = Vec::with_capacity(count);
    let mut mismatched_ticks = 0;
    for (at, lines) in per_player.iter().enumerate() {
        let run = replay_player(capture, at, lines);
        let mut player_hazards = Vec::new();
        let mut player_ops = Vec::with_capacity(run.ticks.len());
        for tick in run.ticks {
            on_tick(&tick);
            if !tick.matches() {
                mismatched_ticks += 1;
            }
            player_hazards.extend(tick.output.hazards.iter().cloned());
            player_ops.push((tick.output.tick, tick.ops));
        }
        players.push(run.player);
        hazards.push(player_hazards);
        ops.push(player_ops);
    }
    Replay {
        players,
        hazards,
        ops,
        mismatched_ticks,
    }
}

/// Replays `capture` (see [`replay_with`]).
pub fn replay(capture: &Capture) -> Replay {
    replay_with(capture, |_| {})
}
