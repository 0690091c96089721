//! A network's run as a scenario file (the lesson format, `scenetree-scenario/1`) that the
//! Peers workspace replays with every simulator control: one step per message written or
//! arrived (or dropped, duplicated), in the order they happened, with the clock moved to its
//! time first and a text naming its writer and time. A simulation's history is saved so; a
//! live session's recording is written so as it goes (`recorder.rs`: peer 1 is this editor,
//! peer 2 the host, relaying every other client; the clock counts milliseconds since
//! connecting).

use scenetree_core::crdt::network::{Event, EventKind, Network, PeerId};
use scenetree_core::crdt::scenario::{Scenario, ScenarioStep};

use super::{HOST, THIS_EDITOR};

/// Where a recorded network ran, which says how its steps name writers and times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// A live session: peer 1 is this editor, peer 2 the host; the clock is in milliseconds.
    Live,
    /// The simulator: peers are named by number; the clock is in ticks.
    Simulation,
}

/// `network`'s run as a recording: the network's own scenario (one action per event), its
/// actions grouped into one step per write, delivery, drop or duplicate, the events before it
/// (ticks, settings) included.
pub fn recording_of(
    network: &Network,
    title: &str,
    explanation: &str,
    recorded: Recorded,
) -> Scenario {
    let mut flat = network.to_scenario(title, explanation);
    let events = &network.events()[..network.cursor()];
    let mut steps = Vec::new();
    let mut actions = Vec::new();
    for (event, step) in events.iter().zip(std::mem::take(&mut flat.steps)) {
        actions.extend(step.actions);
        if let Some(text) = step_text(network, event, recorded) {
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
/// an event that does not end a step: a tick, a setting).
pub(super) fn step_text(network: &Network, event: &Event, recorded: Recorded) -> Option<String> {
    let who = |peer: PeerId| match recorded {
        Recorded::Live if peer == THIS_EDITOR => "this editor (peer 1)".to_owned(),
        Recorded::Live if peer == HOST => "the host (peer 2)".to_owned(),
        _ => format!("peer {}", peer.0),
    };
    let at = match recorded {
        Recorded::Live => format!("{:.3} s", event.at as f64 / 1000.0),
        Recorded::Simulation => format!("t = {}", event.at),
    };
    let what = network.describe_event(event);
    match &event.kind {
        EventKind::Write { peer, .. } => Some(format!("{at} · written by {}: {what}", who(*peer))),
        EventKind::Deliver { message, .. } => {
            Some(format!("{at} · arrived at {}: {what}", who(message.to)))
        }
        EventKind::Drop { .. } if recorded == Recorded::Live => Some(format!(
            "{at} · not sent (the runtime drops replies to outdated writers): {what}"
        )),
        EventKind::Drop { .. } => Some(format!("{at} · dropped: {what}")),
        EventKind::Duplicate { .. } => Some(format!("{at} · duplicated: {what}")),
        _ => None,
    }
}
