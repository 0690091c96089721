//! Replaying a capture: each line runs one tick of its player on the items the capture says
//! `sendBinary` returned, with the scene's writes recovered from what the tick sent
//! ([`infer_tick`]). The model then computes everything the tick sent itself, and each tick's
//! computed renderer stream and items are compared with the captured ones.
//!
//! The cost is linear in the capture: one pass, each message handled a bounded number of times.

use super::super::hazard::Hazard;
use super::super::ops::SceneOp;
use super::super::player::{Player, TickOutput};
use super::format::Capture;
use super::infer::infer_tick;

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

/// Replays `capture`, calling `on_tick` after each tick (see the module docs).
pub fn replay_with(capture: &Capture, mut on_tick: impl FnMut(&ReplayedTick)) -> Replay {
    let dialect = capture.dialect();
    let count = capture.header.players.len();
    let mut players: Vec<Player> = (capture.header.players.iter())
        .map(|p| Player::new(&p.address, dialect))
        .collect();
    let mut hazards = vec![Vec::new(); count];
    let mut ops = vec![Vec::new(); count];
    let mut mismatched_ticks = 0;
    for (line, tick) in &capture.ticks {
        let Some(at) = capture.player_index(&tick.player) else {
            continue; // `Capture::parse` refuses such lines
        };
        let player = &mut players[at];
        let begun = player.begin_tick(tick.tick);
        let inferred = infer_tick(player, tick, dialect);
        let received: Vec<Vec<u8>> = tick.received.iter().map(|r| r.0.clone()).collect();
        let output = player.finish_tick(begun, &inferred.ops, &received);
        let renderer_differs_at = tick
            .renderer
            .as_ref()
            .and_then(|r| first_difference(&output.renderer, &r.0));
        let sent_differs = (0..output.sent.len().max(tick.sent.len()))
            .filter(|&i| match (output.sent.get(i), tick.sent.get(i)) {
                (Some(ours), Some(theirs)) => ours.data != theirs.data.0 || ours.to != theirs.to,
                _ => true,
            })
            .collect();
        let replayed = ReplayedTick {
            player: at,
            line: *line,
            ops: inferred.ops,
            output,
            renderer_differs_at,
            sent_differs,
            notes: inferred.notes,
        };
        if !replayed.matches() {
            mismatched_ticks += 1;
        }
        on_tick(&replayed);
        hazards[at].extend(replayed.output.hazards.iter().cloned());
        ops[at].push((tick.tick, replayed.ops));
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
