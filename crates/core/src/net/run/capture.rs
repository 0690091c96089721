//! A capture as a run: its lines, in order, are the script (each tick's scene writes as the
//! replay recovers them), and what each line received is the schedule, every item matched
//! with the frame the model sent that has the same bytes. Unchanged, the run is the replay.

use super::{NetRun, ScriptTick};
use crate::net::capture::{Capture, Replay, replay};
use crate::net::session::Routing;

impl NetRun {
    /// The run a capture recorded (replayed first: see [`replay`]); the cursor at the end.
    pub fn from_capture(capture: &Capture) -> NetRun {
        NetRun::from_replay(capture, &replay(capture))
    }

    /// The run of a capture already replayed.
    pub fn from_replay(capture: &Capture, replayed: &Replay) -> NetRun {
        let mut next_tick = vec![0usize; capture.header.players.len()];
        let mut script = Vec::with_capacity(capture.ticks.len());
        let mut received = Vec::with_capacity(capture.ticks.len());
        for (_, tick) in &capture.ticks {
            let Some(player) = capture.player_index(&tick.player) else {
                continue;
            };
            let at = next_tick[player];
            next_tick[player] += 1;
            let ops = (replayed.ops.get(player).and_then(|ticks| ticks.get(at)))
                .map(|(_, ops)| ops.clone())
                .unwrap_or_default();
            script.push(ScriptTick {
                player,
                tick: tick.tick,
                ops,
            });
            received.push(tick.received.iter().map(|r| r.0.clone()).collect());
        }
        let steps = script.len();
        let mut run = NetRun {
            player_steps: super::player_steps(capture.header.players.len(), &script),
            schedule: super::schedule::Schedule::new(steps),
            // Who received what is the capture's to say.
            joins: vec![0; capture.header.players.len()],
            players: capture.header.players.clone(),
            dialect: capture.dialect(),
            routing: Routing::Targeted,
            script: script.into(),
            cursor: steps,
            outcome: Default::default(),
        };
        run.simulate(Some(&received));
        run
    }
}
