//! Playing a scenario: its actions on a network, one step at a time.

use super::{Action, Scenario, ScenarioError, Selector};
use crate::crdt::network::{LocalWrite, MessageFilter, MessageId, Network, NetworkError};
use crate::model::Transform;

/// Runs one action.
pub(super) fn perform(net: &mut Network, action: &Action) -> Result<(), String> {
    let err = |e: NetworkError| e.to_string();
    match action {
        Action::Move {
            peer,
            entity,
            parent,
            position,
            rotation,
            scale,
        } => {
            let mut t = net
                .replica(*peer)
                .map_err(err)?
                .transform(*entity)
                .unwrap_or(Transform::IDENTITY);
            t.parent = parent.unwrap_or(t.parent);
            t.position = position.unwrap_or(t.position);
            t.rotation = rotation.unwrap_or(t.rotation);
            t.scale = scale.unwrap_or(t.scale);
            net.write(*peer, LocalWrite::transform(*entity, &t))
                .map(drop)
                .map_err(err)
        }
        Action::Rename { peer, entity, name } => net
            .write(*peer, LocalWrite::name(*entity, name))
            .map(drop)
            .map_err(err),
        Action::Put {
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
        Action::Append {
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
        Action::DeleteComponent {
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
        Action::DeleteEntity { peer, entity } => net
            .write(*peer, LocalWrite::DeleteEntity { entity: *entity })
            .map(drop)
            .map_err(err),
        Action::Authored { peer, messages } => net
            .write(
                *peer,
                LocalWrite::Authored {
                    messages: messages.clone(),
                },
            )
            .map(drop)
            .map_err(err),
        Action::Deliver(sel) => net.deliver(select(net, sel)?).map(drop).map_err(err),
        Action::DeliverAll { order, filter } => {
            net.deliver_all(*order, *filter);
            Ok(())
        }
        Action::Drop(sel) => net.drop_message(select(net, sel)?).map_err(err),
        Action::Duplicate(sel) => net.duplicate(select(net, sel)?).map(drop).map_err(err),
        Action::Reorder { message, index } => {
            net.reorder(select(net, message)?, *index).map_err(err)
        }
        Action::SetOnline { peer, online } => net.set_online(*peer, *online).map_err(err),
        Action::Tick { ticks } => {
            net.tick(*ticks);
            Ok(())
        }
        Action::Advance { ticks } => {
            net.advance(*ticks);
            Ok(())
        }
        Action::SetAutoDelivery(auto) => {
            net.set_auto_delivery(*auto);
            Ok(())
        }
        Action::SetOneMessagePerTick(on) => {
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
            let matching: Vec<MessageId> = net
                .in_flight()
                .iter()
                .filter(|m| filter.matches(m))
                .map(|m| m.id)
                .collect();
            matching.get(nth.wrapping_sub(1)).copied().ok_or_else(|| {
                let route = match (from, to) {
                    (Some(f), Some(t)) => format!("from {f} to {t}"),
                    (Some(f), None) => format!("from {f}"),
                    (None, Some(t)) => format!("to {t}"),
                    (None, None) => "at all".to_string(),
                };
                format!(
                    "wanted message {nth} {route}, but {} such messages are in flight",
                    matching.len()
                )
            })
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
}

impl ScenarioPlayer {
    /// The scenario at its start, before the first step.
    pub fn new(scenario: Scenario) -> Result<ScenarioPlayer, ScenarioError> {
        Ok(ScenarioPlayer {
            network: scenario.start()?,
            scenario,
            step_ends: Vec::new(),
        })
    }

    /// Plays the next step. `Ok(false)` when every step has been played.
    pub fn next_step(&mut self) -> Result<bool, ScenarioError> {
        let index = self.step_ends.len();
        if index >= self.scenario.steps.len() {
            return Ok(false);
        }
        self.scenario.play_step(&mut self.network, index)?;
        self.step_ends.push(self.network.cursor());
        Ok(true)
    }

    /// Plays the next step interactively: actions that cannot run because the user changed
    /// things by hand are skipped and explained, and the step counts as played. `None` when
    /// every step has been played.
    pub fn next_step_lenient(&mut self) -> Option<Vec<String>> {
        let index = self.step_ends.len();
        if index >= self.scenario.steps.len() {
            return None;
        }
        let skipped = self.scenario.play_step_lenient(&mut self.network, index);
        self.step_ends.push(self.network.cursor());
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

    /// True when every step has been played.
    pub fn is_finished(&self) -> bool {
        self.step_ends.len() == self.scenario.steps.len()
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

    /// The text to show now: the last played step's, or the explanation before the first.
    pub fn text(&self) -> &str {
        match self.step_ends.len() {
            0 => &self.scenario.explanation,
            n => self.scenario.steps[n - 1].text.as_deref().unwrap_or(""),
        }
    }
}
