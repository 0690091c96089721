//! Multiplayer lessons: a [`NetRun`] scripted in a file (`format.rs`), played a step at a
//! time. A step moves the timeline on and works the same delivery controls a person has in the
//! Peers workspace (deliver, drop, duplicate, delay, reorder), so what a lesson shows can be
//! undone or redone by hand.

mod compile;
mod format;

pub use format::{
    ActionJson, EntityJson, FrameJson, NET_FORMAT, NetScenario, NetStep, OpJson, Round,
    is_net_scenario,
};

use crate::crdt::scenario::ScenarioError;

use super::run::{FrameKey, NetRun, RunError, Slot};

/// A lesson being played.
#[derive(Clone, Debug)]
pub struct NetLesson {
    scenario: NetScenario,
    run: NetRun,
    /// Steps played.
    shown: usize,
    /// Where the lesson's own timeline is (a step's `play` moves on from here, whatever the
    /// person scrubbed to).
    position: usize,
    /// The person changed a delivery by hand.
    off_script: bool,
}

impl NetLesson {
    /// The lesson at its start (the timeline at step 0); an error names the JSON path of a
    /// write or an action that cannot play.
    pub fn new(scenario: NetScenario) -> Result<NetLesson, ScenarioError> {
        let mut run = compile::run_of(&scenario)?;
        compile::check_actions(&scenario, &run)?;
        run.seek(0);
        Ok(NetLesson {
            scenario,
            run,
            shown: 0,
            position: 0,
            off_script: false,
        })
    }

    /// Plays every step; fails at the first action that cannot run.
    pub fn play_all(scenario: NetScenario) -> Result<NetLesson, ScenarioError> {
        let mut lesson = NetLesson::new(scenario)?;
        while lesson.next_step()? {}
        Ok(lesson)
    }

    /// The lesson's file.
    pub fn scenario(&self) -> &NetScenario {
        &self.scenario
    }

    /// The run.
    pub fn run(&self) -> &NetRun {
        &self.run
    }

    /// The run, to seek its timeline (see [`Self::by_hand`] for changing its deliveries).
    pub fn run_mut(&mut self) -> &mut NetRun {
        &mut self.run
    }

    /// Changes the run's deliveries by hand: the lesson's texts may no longer tell what shows.
    pub fn by_hand<R>(&mut self, change: impl FnOnce(&mut NetRun) -> R) -> R {
        self.off_script = true;
        change(&mut self.run)
    }

    /// True once a delivery was changed by hand.
    pub fn off_script(&self) -> bool {
        self.off_script
    }

    /// Steps played so far.
    pub fn steps_shown(&self) -> usize {
        self.shown
    }

    /// True when every step was played.
    pub fn is_finished(&self) -> bool {
        self.shown >= self.scenario.steps.len()
    }

    /// The text to read now: the explanation before the first step, then the last played
    /// step's text.
    pub fn text(&self) -> &str {
        match self.shown {
            0 => &self.scenario.explanation,
            n => self.scenario.steps[n - 1].text.as_deref().unwrap_or(""),
        }
    }

    /// Plays the next step; false when there was none. Fails at an action that cannot run.
    pub fn next_step(&mut self) -> Result<bool, ScenarioError> {
        let Some(step) = self.scenario.steps.get(self.shown).cloned() else {
            return Ok(false);
        };
        self.run.seek(self.position);
        for (i, action) in step.actions.iter().enumerate() {
            self.perform(action)
                .map_err(|e| ScenarioError::at(format!("steps[{}].actions[{i}]", self.shown), e))?;
        }
        self.shown += 1;
        Ok(true)
    }

    /// Plays the next step, skipping actions that cannot run (a delivery the person already
    /// moved by hand); says why each was skipped.
    pub fn next_step_lenient(&mut self) -> Vec<String> {
        let Some(step) = self.scenario.steps.get(self.shown).cloned() else {
            return Vec::new();
        };
        self.run.seek(self.position);
        let skipped = (step.actions.iter())
            .filter_map(|action| self.perform(action).err())
            .collect();
        self.shown += 1;
        skipped
    }

    fn perform(&mut self, action: &ActionJson) -> Result<(), String> {
        let slot = |lesson: &NetLesson, frame: &FrameJson| lesson.slot(frame);
        let result = match action {
            ActionJson::Play { ticks } => {
                let to = ticks.map_or(usize::MAX, |t| self.position.saturating_add(t));
                self.run.seek(to);
                self.position = self.run.cursor();
                return Ok(());
            }
            ActionJson::Seek { step } => {
                self.run.seek(*step);
                self.position = self.run.cursor();
                return Ok(());
            }
            ActionJson::Deliver { frame } => self.run.deliver_now(slot(self, frame)?),
            ActionJson::Drop { frame } => self.run.drop_delivery(slot(self, frame)?),
            ActionJson::Duplicate { frame } => self.run.duplicate(slot(self, frame)?),
            ActionJson::Delay { frame, ticks } => self.run.delay(slot(self, frame)?, *ticks),
            ActionJson::Reorder { frame, before } => {
                let (moved, before) = (slot(self, frame)?, slot(self, before)?);
                self.run.reorder(moved, before)
            }
        };
        result.map_err(|e: RunError| e.to_string())
    }

    /// Where the delivery an action names is: its first arrival from the timeline's position
    /// on, else any arrival, else nowhere.
    fn slot(&self, frame: &FrameJson) -> Result<Slot, String> {
        let key = compile::frame_key(&self.scenario, &self.run, frame)?;
        self.run
            .slot_of(key, self.run.cursor())
            .ok_or_else(|| format!("{} is not in flight", self.run.frame_label(key)))
    }
}

impl NetRun {
    /// Where a frame is delivered: its first arrival at or after step `from`, else its first
    /// arrival, else nowhere when it arrives nowhere; `None` when it was dropped or not sent.
    pub fn slot_of(&self, key: FrameKey, from: usize) -> Option<Slot> {
        let mut first = None;
        for step in 0..self.script().len() {
            for (index, d) in self.inbox(step).iter().enumerate() {
                if *d == super::run::Delivery::Frame(key) {
                    let slot = Slot::At { step, index };
                    if step >= from {
                        return Some(slot);
                    }
                    first.get_or_insert(slot);
                }
            }
        }
        first.or_else(|| {
            self.arriving_nowhere()
                .contains(&key)
                .then_some(Slot::Nowhere(key))
        })
    }
}
