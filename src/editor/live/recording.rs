//! A session recording: the live session since its last (re)connection as a scenario file
//! (the lesson format, `scenetree-scenario/1`), so the Peers workspace can replay it with every
//! simulator control. Peer 1 is this editor, peer 2 the host (relaying every other client);
//! `initial` is the host's snapshot; each step is one message written or one arrival, in the
//! order they happened, with the clock (milliseconds since connecting) moved to its time first
//! and a text naming its writer and time.

use scenetree_core::crdt::network::{Event, EventKind, Network};
use scenetree_core::crdt::scenario::{Scenario, ScenarioStep};

use super::{HOST, LiveSession, THIS_EDITOR};

impl LiveSession {
    /// The session since its last (re)connection as a scenario named `title`.
    pub fn recording(&self, title: &str) -> Scenario {
        recording_of(
            &self.network,
            title,
            &format!(
                "Recorded from the data layer at {} (connection {} of this session). Peer 1 is \
                 this editor, peer 2 the host, which relays every other client's messages: a \
                 message from peer 2 was written by another client (or the host itself) and \
                 reached this editor when its step says. The clock counts milliseconds since \
                 connecting.",
                self.url, self.connections
            ),
        )
    }
}

/// `network`'s run as a recording: the network's own scenario (one action per event), its
/// actions grouped into one step per write or delivery, the clock's ticks before it included.
pub fn recording_of(network: &Network, title: &str, explanation: &str) -> Scenario {
    let mut flat = network.to_scenario(title, explanation);
    let events = &network.events()[..network.cursor()];
    let mut steps = Vec::new();
    let mut actions = Vec::new();
    for (event, step) in events.iter().zip(std::mem::take(&mut flat.steps)) {
        actions.extend(step.actions);
        if let Some(text) = step_text(network, event) {
            steps.push(ScenarioStep {
                text: Some(text),
                actions: std::mem::take(&mut actions),
            });
        }
    }
    if !actions.is_empty() {
        steps.push(ScenarioStep {
            text: None,
            actions,
        });
    }
    flat.steps = steps;
    flat
}

/// What a step says about the event that ends it: its time, writer and message (`None` for
/// an event that does not end a step: a tick).
fn step_text(network: &Network, event: &Event) -> Option<String> {
    let who = |peer| match peer {
        p if p == THIS_EDITOR => "this editor (peer 1)",
        p if p == HOST => "the host (peer 2)",
        _ => "a simulated peer",
    };
    let at = event.at as f64 / 1000.0;
    let what = network.describe_event(event);
    match &event.kind {
        EventKind::Write { peer, .. } => {
            Some(format!("{at:.3} s · written by {}: {what}", who(*peer)))
        }
        EventKind::Deliver { message, .. } => Some(format!(
            "{at:.3} s · arrived at {}: {what}",
            who(message.to)
        )),
        EventKind::Drop { .. } => Some(format!(
            "{at:.3} s · not sent (the runtime drops replies to outdated writers): {what}"
        )),
        _ => None,
    }
}
