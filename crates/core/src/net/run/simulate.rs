//! Running a run's script on its schedule: each step one player's tick on the items the
//! schedule gives it, the items the tick sends becoming frames to the other players. The whole
//! script runs after every change (a tick costs microseconds: a lesson replays at once, a
//! capture of thousands of ticks in a blink); states along the way are kept every few steps,
//! so the timeline seeks by running at most that many ticks.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use super::NetRun;
use super::scene::RendererScene;
use super::schedule::{Delivery, FrameKey};
use crate::model::Entity;
use crate::net::comms::encode_inbound;
use crate::net::components::NetworkIdentity;
use crate::net::hazard::{Hazard, HazardKind};
use crate::net::player::{Player, TickOutput};
use crate::net::session::Routing;

/// A hazard and the network identity its entity held right after the tick (`None` for an
/// entity without NetworkEntity, or for a delete that hit another entity than the one meant).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HazardAt {
    /// The hazard, in the player's numbers.
    pub hazard: Hazard,
    /// The identity of its entity.
    pub identity: Option<NetworkIdentity>,
}

/// What one step did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepRecord {
    /// The hazards the tick shows.
    pub hazards: Vec<HazardAt>,
    /// Items the tick passed to `sendBinary`.
    pub sent: usize,
    /// Items its `sendBinary` returned.
    pub received: usize,
    /// Returned items the SDK could not read (it skips them).
    pub unreadable: usize,
    /// Scene writes naming an entity this player does not know (skipped).
    pub unresolved: usize,
}

/// The players and what their renderers hold, after some steps.
#[derive(Clone, Debug)]
pub struct RunState {
    /// Steps run.
    pub steps: usize,
    /// The players, in the run's order.
    pub players: Vec<Player>,
    /// What each player's renderer holds.
    pub scenes: Vec<RendererScene>,
}

impl RunState {
    /// The network identity `player` holds for its entity `entity` (its NetworkEntity).
    pub fn identity(&self, player: usize, entity: Entity) -> Option<NetworkIdentity> {
        self.players.get(player)?.engine().network_entity(entity)
    }
}

/// What running the script gave.
#[derive(Clone, Debug, Default)]
pub(super) struct Outcome {
    /// One record per step.
    pub(super) records: Vec<StepRecord>,
    /// Every frame sent, as its receiver gets it.
    pub(super) frames: FxHashMap<FrameKey, Vec<u8>>,
    /// States along the run, oldest first (the first one before any step).
    snapshots: Vec<RunState>,
    /// See [`NetRun::generation`].
    pub(super) generation: u64,
}

/// The last generation handed out.
static GENERATIONS: AtomicU64 = AtomicU64::new(0);

/// The snapshot spacing for a script of `steps` steps: at most about 64 snapshots.
fn snapshot_every(steps: usize) -> usize {
    (steps / 64).max(16)
}

/// Matches a capture's received items with the frames the run sent: the earliest frame to the
/// same player with the same bytes that no item matched yet.
#[derive(Default)]
struct Matcher {
    waiting: FxHashMap<(usize, Vec<u8>), VecDeque<FrameKey>>,
}

impl Matcher {
    /// The deliveries of a tick of player `to` that received `items`.
    fn inbox(&mut self, to: usize, items: &[Vec<u8>]) -> Vec<Delivery> {
        (items.iter())
            .map(|bytes| {
                let key = self
                    .waiting
                    .get_mut(&(to, bytes.clone()))
                    .and_then(VecDeque::pop_front);
                key.map_or_else(|| Delivery::Recorded(bytes.clone()), Delivery::Frame)
            })
            .collect()
    }
}

/// A generation no outcome had.
fn next_generation() -> u64 {
    GENERATIONS.fetch_add(1, Ordering::Relaxed) + 1
}

impl NetRun {
    /// The state before any step.
    fn initial_state(&self) -> RunState {
        RunState {
            steps: 0,
            players: (self.players.iter())
                .map(|p| Player::new(&p.address, self.dialect))
                .collect(),
            scenes: vec![RendererScene::default(); self.players.len()],
        }
    }

    /// Runs step `step` on `state`: the items the schedule gives it (frames not sent by then
    /// are left out), the tick, and its renderer's messages applied.
    fn run_step(
        &self,
        state: &mut RunState,
        step: usize,
        frames: &FxHashMap<FrameKey, Vec<u8>>,
    ) -> Option<TickOutput> {
        let tick = self.script.get(step)?;
        let inbound: Vec<Vec<u8>> = (self.schedule.inbox(step).iter())
            .filter_map(|d| match d {
                Delivery::Frame(key) if key.sender_step < step => frames.get(key).cloned(),
                Delivery::Frame(_) => None,
                Delivery::Recorded(bytes) => Some(bytes.clone()),
            })
            .collect();
        let player = state.players.get_mut(tick.player)?;
        let out = player.tick(tick.tick, &tick.ops, &inbound);
        if let Some(scene) = state.scenes.get_mut(tick.player) {
            for write in &out.renderer_writes {
                scene.apply(&write.message);
            }
        }
        state.steps = step + 1;
        Some(out)
    }

    /// The frames a step's items become: one per receiver each reaches (a player not yet in
    /// the room gets none).
    fn frames_of(&self, step: usize, out: &TickOutput) -> Vec<(FrameKey, Vec<u8>)> {
        let Some(from) = self.script.get(step).map(|t| t.player) else {
            return Vec::new();
        };
        let sender = &self.players[from].address;
        let mut frames = Vec::new();
        for (item, sent) in out.sent.iter().enumerate() {
            let bytes = encode_inbound(sender, &sent.data);
            for (to, receiver) in self.players.iter().enumerate() {
                let addressed = sent.to.is_empty()
                    || self.routing == Routing::Broadcast
                    || sent.to.contains(&receiver.address);
                let joined = self.joins.get(to).is_none_or(|&at| at <= step);
                if to != from && addressed && joined {
                    let key = FrameKey {
                        sender_step: step,
                        item,
                        to,
                    };
                    frames.push((key, bytes.clone()));
                }
            }
        }
        frames
    }

    /// Runs the whole script on the schedule. With `recorded` (per step, the items a capture
    /// says that tick received), the schedule is made from it instead: each item becomes the
    /// frame it matches, or stays as recorded.
    pub(super) fn simulate(&mut self, recorded: Option<&[Vec<Vec<u8>>]>) {
        let mut outcome = Outcome {
            generation: next_generation(),
            ..Outcome::default()
        };
        let state = self.initial_state();
        outcome.snapshots.push(state.clone());
        self.run_steps(&mut outcome, state, recorded);
    }

    /// Runs the script again after a change of the schedule at step `dirty` or later: from the
    /// last state kept at or before it (what came before is unchanged).
    pub(super) fn simulate_from(&mut self, dirty: usize) {
        let mut outcome = std::mem::take(&mut self.outcome);
        let Some(at) = (outcome.snapshots.iter()).rposition(|s| s.steps <= dirty) else {
            return self.simulate(None);
        };
        outcome.snapshots.truncate(at + 1);
        let state = outcome.snapshots[at].clone();
        outcome.records.truncate(state.steps);
        outcome
            .frames
            .retain(|key, _| key.sender_step < state.steps);
        outcome.generation = next_generation();
        self.run_steps(&mut outcome, state, None);
    }

    /// Runs the script from `state` to its end into `outcome` (whose snapshots hold `state`),
    /// then keeps it.
    fn run_steps(
        &mut self,
        outcome: &mut Outcome,
        mut state: RunState,
        recorded: Option<&[Vec<Vec<u8>>]>,
    ) {
        let steps = self.script.len();
        let every = snapshot_every(steps);
        let start = state.steps;
        let mut matcher = Matcher::default();
        for step in start..steps {
            if step > start && step.is_multiple_of(every) {
                outcome.snapshots.push(state.clone());
            }
            if let Some(items) = recorded.and_then(|r| r.get(step)) {
                let inbox = matcher.inbox(self.script[step].player, items);
                if let Some(slot) = self.schedule.inbox_mut(step) {
                    *slot = inbox;
                }
            }
            let Some(out) = self.run_step(&mut state, step, &outcome.frames) else {
                break;
            };
            let player = &state.players[self.script[step].player];
            outcome.records.push(StepRecord {
                hazards: (out.hazards.iter())
                    .map(|hazard| HazardAt {
                        identity: (hazard.kind != HazardKind::WrongEntityDeleted)
                            .then(|| player.engine().network_entity(hazard.entity))
                            .flatten(),
                        hazard: hazard.clone(),
                    })
                    .collect(),
                sent: out.sent.len(),
                received: out.inbound.len(),
                unreadable: out.inbound_problems.len(),
                unresolved: out.unresolved.len(),
            });
            for (key, bytes) in self.frames_of(step, &out) {
                if self.schedule.place_once(key) {
                    if recorded.is_some() {
                        (matcher.waiting.entry((key.to, bytes.clone())).or_default())
                            .push_back(key);
                    } else if let Some(next) = self.next_step_of(key.to, step)
                        && let Some(inbox) = self.schedule.inbox_mut(next)
                    {
                        inbox.push(Delivery::Frame(key));
                    }
                }
                outcome.frames.insert(key, bytes);
            }
        }
        if steps > start && steps.is_multiple_of(every) {
            outcome.snapshots.push(state);
        }
        let sent = &outcome.frames;
        self.schedule.retain(|d| match d {
            Delivery::Frame(key) => sent.contains_key(key),
            Delivery::Recorded(_) => true,
        });
        self.outcome = std::mem::take(outcome);
    }

    /// Runs the whole script again from its start (a change runs it from the first step it
    /// touched; the two agree).
    pub fn rerun(&mut self) {
        self.simulate(None);
    }

    /// The players and renderers after `steps` steps (clamped to the script).
    pub fn state_at(&self, steps: usize) -> RunState {
        let steps = steps.min(self.script.len());
        let mut state = (self.outcome.snapshots.iter().rev())
            .find(|s| s.steps <= steps)
            .cloned()
            .unwrap_or_else(|| self.initial_state());
        while state.steps < steps {
            let step = state.steps;
            if self
                .run_step(&mut state, step, &self.outcome.frames)
                .is_none()
            {
                break;
            }
        }
        state
    }

    /// Frames sent that no tick receives and no control dropped: sent after the receiver's
    /// last tick, or delayed past it.
    pub fn arriving_nowhere(&self) -> Vec<FrameKey> {
        let mut delivered = rustc_hash::FxHashSet::default();
        for step in 0..self.script.len() {
            for d in self.schedule.inbox(step) {
                if let Delivery::Frame(key) = d {
                    delivered.insert(*key);
                }
            }
        }
        let mut nowhere: Vec<FrameKey> = (self.outcome.frames.keys())
            .filter(|k| !delivered.contains(*k) && !self.schedule.is_dropped(**k))
            .copied()
            .collect();
        nowhere.sort_unstable();
        nowhere
    }
}
