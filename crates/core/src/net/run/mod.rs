//! A multiplayer run a person can change: a fixed script of player ticks (who ticks, in which
//! order, and what each tick's scene writes) and a schedule of deliveries (which items each
//! tick's `sendBinary` returns, in which order), replayed through the model after every
//! change.
//!
//! ```text
//! mod.rs          NetRun: the script, the schedule, the timeline cursor, the outcome
//! schedule.rs     deliveries and the controls: deliver now, drop, duplicate, delay, reorder
//! simulate.rs     running the script on the schedule; snapshots to seek the timeline
//! scene.rs        what a player's renderer holds, every component, last message wins
//! capture.rs      a capture's ticks as a script, its received items as the schedule
//! rows.rs         a delivery decoded for people, and the hazards it led to
//! ```
//!
//! A frame is named by the step that sent it, its position among that tick's items and its
//! receiver ([`FrameKey`]): the script never changes, so the name means the same frame after
//! any change of the schedule, even when the frame's bytes change (a state answer holds what
//! its sender held then). A frame sent by no earlier change of the schedule arrives at its
//! receiver's next tick (the room's normal delivery); one the schedule no longer names is
//! simply not delivered.

mod capture;
mod rows;
mod scene;
mod schedule;
mod simulate;

use std::sync::Arc;

pub use rows::{DeliveryContent, DeliveryRow, decode_delivery, short_component_label};
pub use scene::RendererScene;
pub use schedule::{Delivery, FrameKey, RunError, Slot};
pub use simulate::{HazardAt, RunState, StepRecord};

use super::capture::CapturePlayer;
use super::ops::SceneOp;
use super::session::Routing;
use crate::crdt::stream::Dialect;
use schedule::Schedule;
use simulate::Outcome;

/// One tick of the script.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptTick {
    /// The player (its position in the run's players).
    pub player: usize,
    /// The tick's number as people read it (a capture's tick number; else counted from 0 per
    /// player).
    pub tick: u32,
    /// What the player's scene writes in this tick.
    pub ops: Vec<SceneOp>,
}

/// A run (see the module docs).
#[derive(Clone, Debug)]
pub struct NetRun {
    players: Vec<CapturePlayer>,
    dialect: Dialect,
    routing: Routing,
    script: Arc<[ScriptTick]>,
    schedule: Schedule,
    /// The step from which each player is in the room.
    joins: Vec<usize>,
    /// Each player's steps, in order.
    player_steps: Vec<Vec<usize>>,
    /// Steps run at the timeline's position (0 ..= the script's length).
    cursor: usize,
    outcome: Outcome,
}

impl NetRun {
    /// A run of `script` between `players`, every frame arriving at its receiver's next tick;
    /// the cursor at the end.
    pub fn new(
        players: Vec<CapturePlayer>,
        dialect: Dialect,
        routing: Routing,
        script: Vec<ScriptTick>,
    ) -> NetRun {
        let joins = vec![0; players.len()];
        NetRun::with_joins(players, dialect, routing, script, joins)
    }

    /// As [`Self::new`], player `p` entering the room at step `joins[p]`: frames sent before
    /// never reach it (it catches up through the state answers), as in a real scene room.
    pub fn with_joins(
        players: Vec<CapturePlayer>,
        dialect: Dialect,
        routing: Routing,
        script: Vec<ScriptTick>,
        joins: Vec<usize>,
    ) -> NetRun {
        let steps = script.len();
        let mut run = NetRun {
            schedule: Schedule::new(steps),
            joins,
            player_steps: player_steps(players.len(), &script),
            players,
            dialect,
            routing,
            script: script.into(),
            cursor: steps,
            outcome: Outcome::default(),
        };
        run.simulate(None);
        run
    }

    /// The players, in order.
    pub fn players(&self) -> &[CapturePlayer] {
        &self.players
    }

    /// A player's name for people: the name it was given, else its short address.
    pub fn player_name(&self, player: usize) -> String {
        self.players.get(player).map_or_else(
            || format!("player {}", player + 1),
            |p| {
                p.name
                    .clone()
                    .unwrap_or_else(|| super::short_address(&p.address))
            },
        )
    }

    /// The CommsMessage numbering of the run's items.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The script, one entry per step.
    pub fn script(&self) -> &[ScriptTick] {
        &self.script
    }

    /// The deliveries of step `step`: what that tick's `sendBinary` returns, in order.
    pub fn inbox(&self, step: usize) -> &[Delivery] {
        self.schedule.inbox(step)
    }

    /// The steps the timeline's position has run (0 ..= the script's length).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Moves the timeline's position (clamped to the script).
    pub fn seek(&mut self, steps: usize) {
        self.cursor = steps.min(self.script.len());
    }

    /// Tells outcomes apart: new for every run of the script (in any run), so a view keyed on
    /// it and the cursor knows when to read the run again.
    pub fn generation(&self) -> u64 {
        self.outcome.generation
    }

    /// What step `step` did (`None` past the script).
    pub fn record(&self, step: usize) -> Option<&StepRecord> {
        self.outcome.records.get(step)
    }

    /// Every hazard of the run up to the cursor, in step order, with its step.
    pub fn hazards_until_cursor(&self) -> impl Iterator<Item = (usize, &HazardAt)> + '_ {
        (self.outcome.records[..self.cursor].iter().enumerate())
            .flat_map(|(step, r)| r.hazards.iter().map(move |h| (step, h)))
    }

    /// Every hazard of the whole run, with its step.
    pub fn hazards(&self) -> impl Iterator<Item = (usize, &HazardAt)> + '_ {
        (self.outcome.records.iter().enumerate())
            .flat_map(|(step, r)| r.hazards.iter().map(move |h| (step, h)))
    }

    /// The bytes of a frame the run sent, and the step that sent it.
    pub fn frame(&self, key: FrameKey) -> Option<&[u8]> {
        self.outcome.frames.get(&key).map(Vec::as_slice)
    }

    /// The players and their renderers after the cursor's steps.
    pub fn state(&self) -> RunState {
        self.state_at(self.cursor)
    }

    /// The step of player `player`'s tick labelled `tick`.
    pub fn step_of(&self, player: usize, tick: u32) -> Option<usize> {
        self.steps_of(player, 0)
            .find(|&s| self.script[s].tick == tick)
    }

    /// The player's steps from `from` on, in order.
    pub fn steps_of(&self, player: usize, from: usize) -> impl Iterator<Item = usize> + '_ {
        let steps = self.player_steps.get(player).map_or(&[][..], Vec::as_slice);
        steps[steps.partition_point(|&s| s < from)..]
            .iter()
            .copied()
    }

    /// The player's last step before `step`.
    pub fn previous_step_of(&self, player: usize, step: usize) -> Option<usize> {
        let steps = self.player_steps.get(player)?;
        let at = steps.partition_point(|&s| s < step);
        at.checked_sub(1).map(|at| steps[at])
    }

    /// The step at which `player` next runs after `step` (the tick that applies what `step`'s
    /// `sendBinary` returned).
    pub fn next_step_of(&self, player: usize, step: usize) -> Option<usize> {
        self.steps_of(player, step + 1).next()
    }
}

/// Each of `players` players' steps in `script`, in order.
fn player_steps(players: usize, script: &[ScriptTick]) -> Vec<Vec<usize>> {
    let mut steps = vec![Vec::new(); players];
    for (step, tick) in script.iter().enumerate() {
        if let Some(list) = steps.get_mut(tick.player) {
            list.push(step);
        }
    }
    steps
}
