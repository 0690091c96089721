//! The multiplayer run the Peers workspace shows (a capture opened with `scenetree net replay
//! CAPTURE`, or a multiplayer lesson), and applying what its panel asks: the delivery
//! controls, the timeline, the lesson's steps. The workbench holds it
//! (`workbench/multiplayer.rs`), the Peers panel draws it (`peers_panel/multiplayer/`).

use crate::ui::action::MultiplayerAction;
use scenetree_core::net::capture::Capture;
use scenetree_core::net::lesson::NetLesson;
use scenetree_core::net::run::{NetRun, RunError};

/// A multiplayer run and what it came from.
pub struct Multiplayer {
    /// What the workspace's header calls it: the capture's file name, or the lesson's title.
    pub title: String,
    /// The run, and its lesson if it is one.
    pub source: MultiplayerSource,
}

/// Where a multiplayer run came from.
pub enum MultiplayerSource {
    /// A capture of a real session, replayed; `mismatched` ticks the model did not reproduce.
    Capture { run: Box<NetRun>, mismatched: usize },
    /// A lesson being played.
    Lesson(Box<NetLesson>),
}

impl Multiplayer {
    /// A capture's run (replayed here), titled `title`.
    pub fn from_capture(capture: &Capture, title: String) -> Multiplayer {
        let replayed = scenetree_core::net::capture::replay(capture);
        let run = NetRun::from_replay(capture, &replayed);
        Multiplayer {
            title,
            source: MultiplayerSource::Capture {
                run: Box::new(run),
                mismatched: replayed.mismatched_ticks,
            },
        }
    }

    /// A lesson at its start.
    pub fn from_lesson(lesson: NetLesson) -> Multiplayer {
        Multiplayer {
            title: lesson.scenario().title.clone(),
            source: MultiplayerSource::Lesson(Box::new(lesson)),
        }
    }

    /// The run.
    pub fn run(&self) -> &NetRun {
        match &self.source {
            MultiplayerSource::Capture { run, .. } => run,
            MultiplayerSource::Lesson(lesson) => lesson.run(),
        }
    }

    /// The lesson, when one is playing.
    pub fn lesson(&self) -> Option<&NetLesson> {
        match &self.source {
            MultiplayerSource::Lesson(lesson) => Some(lesson),
            MultiplayerSource::Capture { .. } => None,
        }
    }

    /// Changes the run's deliveries (a lesson then says its text may no longer hold).
    fn change(
        &mut self,
        change: impl FnOnce(&mut NetRun) -> Result<(), RunError>,
    ) -> Result<(), RunError> {
        match &mut self.source {
            MultiplayerSource::Capture { run, .. } => change(run),
            MultiplayerSource::Lesson(lesson) => lesson.by_hand(change),
        }
    }

    /// Applies one request; the status line's text, if any.
    pub fn apply(&mut self, action: MultiplayerAction) -> Result<Option<String>, String> {
        let before = self.run().hazards().count();
        let (done, result) = match action {
            MultiplayerAction::Deliver(slot) => (
                "Delivered at the receiver's next tick",
                self.change(|r| r.deliver_now(slot)),
            ),
            MultiplayerAction::Delay(slot) => (
                "Held one more of the receiver's ticks",
                self.change(|r| r.delay(slot, 1)),
            ),
            MultiplayerAction::Drop(slot) => ("Dropped", self.change(|r| r.drop_delivery(slot))),
            MultiplayerAction::Duplicate(slot) => {
                ("Duplicated", self.change(|r| r.duplicate(slot)))
            }
            MultiplayerAction::Reorder { slot, before } => (
                "Moved the delivery",
                self.change(|r| r.reorder(slot, before)),
            ),
            MultiplayerAction::Seek(step) => {
                match &mut self.source {
                    MultiplayerSource::Capture { run, .. } => run.seek(step),
                    MultiplayerSource::Lesson(lesson) => lesson.run_mut().seek(step),
                }
                return Ok(None);
            }
            MultiplayerAction::NextStep => return Ok(self.next_step()),
            MultiplayerAction::Close => return Ok(None),
        };
        result.map_err(|e| e.to_string())?;
        let after = self.run().hazards().count();
        Ok(Some(format!(
            "{done}; the run replayed: {after} hazard(s) in all (before: {before})"
        )))
    }

    /// Plays a lesson's next step; says what it skipped.
    fn next_step(&mut self) -> Option<String> {
        let MultiplayerSource::Lesson(lesson) = &mut self.source else {
            return None;
        };
        let skipped = lesson.next_step_lenient();
        (!skipped.is_empty()).then(|| {
            format!(
                "Skipped what no longer applies after your changes: {}",
                skipped.join("; ")
            )
        })
    }
}
