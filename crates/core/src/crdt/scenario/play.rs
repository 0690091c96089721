//! Playing a scenario: its actions on a network, one step at a time.

use super::{Scenario, ScenarioAction, ScenarioError, Selector};
use crate::crdt::network::{Event, LocalWrite, MessageFilter, MessageId, Network, NetworkError};
use crate::model::Transform;

/// Runs one action.
pub(super) fn perform(net: &mut Network, action: &ScenarioAction) -> Result<(), String> {
    let err = |e: NetworkError| e.to_string();
    match action {
        ScenarioAction::Move {
            peer,
            entity,
            parent,
            position,
            rotation,
            scale,
        } => {
            let current = net
                .replica(*peer)
                .map_err(err)?
                .transform(*entity)
                .unwrap_or(Transform::IDENTITY);
            let t = super::moved(current, *parent, *position, *rotation, *scale);
            net.write(*peer, LocalWrite::transform(*entity, &t))
                .map(drop)
                .map_err(err)
        }
        ScenarioAction::Rename { peer, entity, name } => net
            .write(*peer, LocalWrite::name(*entity, name))
            .map(drop)
            .map_err(err),
        ScenarioAction::Put {
            peer,
            entity,
            component,
            data,
        } => net
            .write(
                *peer,
                LocalWrite::Put {
                    entity: *entity,
                    component: *component,
                    data: data.clone(),
                },
            )
            .map(drop)
            .map_err(err),
        ScenarioAction::Append {
            peer,
            entity,
            component,
            data,
        } => net
            .write(
                *peer,
                LocalWrite::Append {
                    entity: *entity,
                    component: *component,
                    data: data.clone(),
                },
            )
            .map(drop)
            .map_err(err),
        ScenarioAction::DeleteComponent {
            peer,
            entity,
            component,
        } => net
            .write(
                *peer,
                LocalWrite::DeleteComponent {
                    entity: *entity,
                    component: *component,
                },
            )
            .map(drop)
            .map_err(err),
        ScenarioAction::DeleteEntity { peer, entity } => net
            .write(*peer, LocalWrite::DeleteEntity { entity: *entity })
            .map(drop)
            .map_err(err),
        ScenarioAction::Authored { peer, messages } => net
            .write(
                *peer,
                LocalWrite::Authored {
                    messages: messages.clone(),
                },
            )
            .map(drop)
            .map_err(err),
        ScenarioAction::Deliver(sel) => net.deliver(select(net, sel)?).map(drop).map_err(err),
        ScenarioAction::DeliverAll { order, filter } => {
            net.deliver_all(*order, *filter);
            Ok(())
        }
        ScenarioAction::Drop(sel) => net.drop_message(select(net, sel)?).map_err(err),
        ScenarioAction::Duplicate(sel) => net.duplicate(select(net, sel)?).map(drop).map_err(err),
        ScenarioAction::Reorder { message, index } => {
            net.reorder(select(net, message)?, *index).map_err(err)
        }
        ScenarioAction::SetOnline { peer, online } => net.set_online(*peer, *online).map_err(err),
        ScenarioAction::Tick { ticks } => {
            net.tick(*ticks);
            Ok(())
        }
        ScenarioAction::Advance { ticks } => {
            net.advance(*ticks);
            Ok(())
        }
        ScenarioAction::SetAutoDelivery(auto) => {
            net.set_auto_delivery(*auto);
            Ok(())
        }
        ScenarioAction::SetOneMessagePerTick(on) => {
            net.set_one_message_per_tick(*on);
            Ok(())
        }
    }
}

/// The id of the message a selector means right now.
fn select(net: &Network, sel: &Selector) -> Result<MessageId, String> {
    match *sel {
        Selector::Id(id) => net
            .message(id)
            .map(|m| m.id)
            .ok_or_else(|| format!("message {id} is not in flight")),
        Selector::Route { from, to, nth } => {
            let filter = MessageFilter { from, to };
            // Lazily: a run delivering the first of thousands in flight looks at one.
            let mut matching = net.in_flight().iter().filter(|m| filter.matches(m));
            if let Some(m) = nth.checked_sub(1).and_then(|n| matching.nth(n)) {
                return Ok(m.id);
            }
            let count = net.in_flight().iter().filter(|m| filter.matches(m)).count();
            let route = match (from, to) {
                (Some(f), Some(t)) => format!("from {f} to {t}"),
                (Some(f), None) => format!("from {f}"),
                (None, Some(t)) => format!("to {t}"),
                (None, None) => "at all".to_string(),
            };
            Err(format!(
                "wanted message {nth} {route}, but {count} such messages are in flight"
            ))
        }
    }
}

/// Plays a scenario one step at a time (the lesson panel's "next step" button).
#[derive(Clone, Debug)]
pub struct ScenarioPlayer {
    scenario: Scenario,
    network: Network,
    /// Timeline length after each played step.
    step_ends: Vec<usize>,
    /// The last event each played step recorded (`None` when it recorded none), to notice
    /// when an operation after a rewind replaced it (see [`ScenarioPlayer::forget_replaced_steps`]).
    step_last_events: Vec<Option<Event>>,
    /// Per played step: the learner had changed something by hand before it played, so it
    /// played on another state than its text describes.
    step_after_changes: Vec<bool>,
}

impl ScenarioPlayer {
    /// The scenario at its start, before the first step.
    pub fn new(scenario: Scenario) -> Result<ScenarioPlayer, ScenarioError> {
        Ok(ScenarioPlayer {
            network: scenario.start()?,
            scenario,
            step_ends: Vec::new(),
            step_last_events: Vec::new(),
            step_after_changes: Vec::new(),
        })
    }

    /// Records the end of the step just played.
    fn end_step(&mut self) {
        let end = self.network.cursor();
        let last = end
            .checked_sub(1)
            .and_then(|i| self.network.events().get(i).cloned());
        self.step_ends.push(end);
        self.step_last_events.push(last);
    }

    /// Forgets the played steps whose events are no longer on the timeline: after a rewind
    /// (a seek back), a new operation replaces the events after the cursor, and the steps
    /// that recorded them count as not played (the lesson can play them again). Steps merely
    /// rewound over stay played. Call after changing the network by hand.
    pub fn forget_replaced_steps(&mut self) {
        let kept = self.steps_still_on_the_timeline();
        self.step_ends.truncate(kept);
        self.step_last_events.truncate(kept);
        self.step_after_changes.truncate(kept);
    }

    /// True when what is shown is not the lesson's own run, so its text may describe another
    /// state: the learner changed something by hand (an edit, a delivery, a drop) after the
    /// step shown, or before a step that then played on the changed state.
    ///
    /// A timeline rewound into the lesson's own run, between two step ends, is on script.
    pub fn off_script(&self) -> bool {
        let played = self.steps_still_on_the_timeline();
        let own_end = played.checked_sub(1).map_or(0, |i| self.step_ends[i]);
        let shown = self.steps_shown().min(played);
        self.network.cursor() > own_end || self.step_after_changes[..shown].contains(&true)
    }

    /// How many played steps the timeline still holds: an operation made while it was rewound
    /// replaces the events after the cursor, and the steps whose last event went with them.
    fn steps_still_on_the_timeline(&self) -> usize {
        let events = self.network.events();
        (self.step_ends.iter().zip(&self.step_last_events))
            .take_while(|&(&end, last)| match end.checked_sub(1) {
                None => true,
                Some(i) => events.get(i) == last.as_ref(),
            })
            .count()
    }

    /// How many played steps the timeline's cursor is past: the step whose state is shown.
    /// Less than [`Self::steps_played`] while the timeline is rewound.
    pub fn steps_shown(&self) -> usize {
        let cursor = self.network.cursor();
        self.step_ends
            .iter()
            .take_while(|&&end| end <= cursor)
            .count()
    }

    /// True when the timeline's cursor is before its last event (a seek back).
    pub fn is_rewound(&self) -> bool {
        self.network.is_rewound()
    }

    /// Plays the next step. `Ok(false)` when every step has been played.
    pub fn next_step(&mut self) -> Result<bool, ScenarioError> {
        let index = self.step_ends.len();
        if index >= self.scenario.steps.len() {
            return Ok(false);
        }
        let changed_by_hand = self.network.cursor() > self.step_ends.last().copied().unwrap_or(0);
        self.scenario.play_step(&mut self.network, index)?;
        self.end_step();
        self.step_after_changes.push(changed_by_hand);
        Ok(true)
    }

    /// Plays the next step interactively: actions that cannot run because the user changed
    /// things by hand are skipped and explained, and the step counts as played. `None` when
    /// every step has been played.
    ///
    /// While the timeline is rewound to a played step, the next step is replayed from the
    /// timeline instead (a seek forward to its end), so "Next step" walks through the lesson
    /// again without changing it.
    pub fn next_step_lenient(&mut self) -> Option<Vec<String>> {
        self.forget_replaced_steps();
        let shown = self.steps_shown();
        if let Some(&end) = self.step_ends.get(shown) {
            return match self.network.seek(end) {
                Ok(()) => Some(Vec::new()),
                Err(e) => Some(vec![format!("could not replay the step: {e}")]),
            };
        }
        let index = self.step_ends.len();
        if index >= self.scenario.steps.len() {
            return None;
        }
        let changed_by_hand = self.network.cursor() > self.step_ends.last().copied().unwrap_or(0);
        let skipped = self.scenario.play_step_lenient(&mut self.network, index);
        self.end_step();
        self.step_after_changes.push(changed_by_hand);
        Some(skipped)
    }

    /// The scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The network in its current state.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The network, to operate or scrub by hand.
    pub fn network_mut(&mut self) -> &mut Network {
        &mut self.network
    }

    /// How many steps have been played.
    pub fn steps_played(&self) -> usize {
        self.step_ends.len()
    }

    /// True when every step has been played and the timeline shows the last one's end (or
    /// later): "Next step" has nothing left to play or replay.
    pub fn is_finished(&self) -> bool {
        self.step_ends.len() == self.scenario.steps.len()
            && self.steps_shown() == self.step_ends.len()
    }

    /// The timeline length after each played step (events `step_ends[i-1]..step_ends[i]` are
    /// step `i`'s).
    pub fn step_ends(&self) -> &[usize] {
        &self.step_ends
    }

    /// The step (from 0) that recorded event `index` (from 0), if a played step did.
    pub fn step_of_event(&self, index: usize) -> Option<usize> {
        self.step_ends.iter().position(|&end| index < end)
    }

    /// The text to show now: that of the step the timeline shows (the last played, unless
    /// rewound), or the explanation before the first.
    pub fn text(&self) -> &str {
        match self.steps_shown() {
            0 => &self.scenario.explanation,
            n => self.scenario.steps[n - 1].text.as_deref().unwrap_or(""),
        }
    }
}
