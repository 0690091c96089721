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

use super::super::hazard::Hazard;
use super::super::ops::{EntityRef, SceneOp};
use super::super::player::Player;
use super::first_tick::{FirstTickWrites, first_tick_writes};
use super::format::{Capture, CaptureTick};
use super::infer::infer_tick;
use super::replayed::ReplayedTick;
use super::search::{Hypothesis, hypotheses, parent_hypotheses, with_writes};
use crate::model::ids;

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
