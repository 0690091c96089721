//! Writing a scenario as JSON that [`super::parse`] reads back to the same [`Scenario`], and
//! turning a network run into a scenario.

use std::io::{self, Write};

use super::schema::{ScenarioFile, StepFile};
use super::{InitialState, Scenario, ScenarioAction, ScenarioStep, Selector};
use crate::crdt::message::CrdtMessage;
use crate::crdt::network::{EventKind, LocalWrite, Network, PeerId};
use crate::model::{Transform, decode_name, encode_name, ids};

impl Scenario {
    /// The scenario as pretty-printed JSON, newline-terminated, in the schema [`super::parse`]
    /// reads (`schema.rs`). Entities are written as ids.
    pub fn to_json(&self) -> String {
        let file = ScenarioFile::of(self);
        // A struct of strings, numbers and lists: only a non-string map key could fail.
        let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// Writes a scenario file a step at a time, for a run too long to hold (a live session's
/// recording): [`Self::start`] writes every field but the steps, [`Self::step`] appends one
/// step (a line of its own), [`Self::finish`] closes the document. What it writes reads back
/// as [`Scenario::to_json`]'s text of the same scenario does. Costs the bytes it writes.
#[derive(Debug)]
pub struct ScenarioWriter<W: Write> {
    out: W,
    steps: u64,
}

impl<W: Write> ScenarioWriter<W> {
    /// What [`Self::finish`] writes: whoever copies a file in progress closes it with this.
    pub const END: &'static str = "\n  ]\n}\n";

    /// Writes `head`'s fields but its steps (which it ignores).
    pub fn start(head: &Scenario, mut out: W) -> io::Result<Self> {
        let head = serde_json::to_string_pretty(&ScenarioFile::head_of(head))?;
        // The pretty document ends with its empty list of steps: opened here instead.
        let open = head.strip_suffix("[]\n}").unwrap_or(&head);
        write!(out, "{open}[")?;
        Ok(ScenarioWriter { out, steps: 0 })
    }

    /// Appends a step.
    pub fn step(&mut self, step: &ScenarioStep) -> io::Result<()> {
        let separator = if self.steps == 0 { "\n    " } else { ",\n    " };
        self.out.write_all(separator.as_bytes())?;
        serde_json::to_writer(&mut self.out, &StepFile::of(step))?;
        self.steps += 1;
        Ok(())
    }

    /// Steps written so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The writer, for a caller that counts or flushes what it took.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Closes the list and the document, and hands the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(Self::END.as_bytes())?;
        Ok(self.out)
    }
}

impl Network {
    /// This run (up to the cursor) as a scenario: its start as an exact CRDT stream and one
    /// step per event, so loading and running it rebuilds the same states.
    pub fn to_scenario(&self, title: &str, explanation: &str) -> Scenario {
        let start = self.initial_replica();
        let mut stream = start.state_messages();
        // Values first, deletions after: a deleted id retires the values stored before it.
        stream.extend(
            start
                .deleted_entities()
                .into_iter()
                .map(|entity| CrdtMessage::DeleteEntity { entity }),
        );
        let steps = self.events()[..self.cursor()]
            .iter()
            .map(|e| ScenarioStep {
                text: None,
                actions: vec![action_of(&e.kind)],
            })
            .collect();
        Scenario {
            title: title.to_string(),
            explanation: explanation.to_string(),
            peers: self.peer_count(),
            peer_names: Vec::new(),
            seed: self.seed(),
            one_message_per_tick: self.starts_with_one_message_per_tick(),
            replies: self.sends_replies(),
            initial: InitialState {
                entities: Vec::new(),
                stream,
            },
            steps,
        }
    }
}

impl ScenarioAction {
    /// The action that replays a network event exactly (a recording's steps are these).
    pub fn of_event(kind: &EventKind) -> ScenarioAction {
        action_of(kind)
    }
}

/// The action that replays an event exactly.
fn action_of(kind: &EventKind) -> ScenarioAction {
    match kind {
        EventKind::Write { peer, write, .. } => write_action(*peer, write),
        EventKind::Deliver { message, .. } => ScenarioAction::Deliver(Selector::Id(message.id)),
        EventKind::Drop { message } => ScenarioAction::Drop(Selector::Id(message.id)),
        EventKind::Duplicate { original, .. } => ScenarioAction::Duplicate(Selector::Id(*original)),
        EventKind::Reorder { id, to, .. } => ScenarioAction::Reorder {
            message: Selector::Id(*id),
            index: *to,
        },
        EventKind::SetOnline { peer, online } => ScenarioAction::SetOnline {
            peer: *peer,
            online: *online,
        },
        EventKind::Tick { ticks } => ScenarioAction::Tick { ticks: *ticks },
        EventKind::SetAutoDelivery { auto } => ScenarioAction::SetAutoDelivery(*auto),
        EventKind::SetOneMessagePerTick { on } => ScenarioAction::SetOneMessagePerTick(*on),
    }
}

fn write_action(peer: PeerId, write: &LocalWrite) -> ScenarioAction {
    match write.clone() {
        LocalWrite::Put {
            entity,
            component,
            data,
        } => {
            // Readable forms only where they give back the exact bytes.
            if component == ids::TRANSFORM
                && let Ok(t) = Transform::from_bytes(&data)
                && t.is_finite()
                && t.to_bytes()[..] == data[..]
            {
                return ScenarioAction::Move {
                    peer,
                    entity,
                    parent: Some(t.parent),
                    position: Some(t.position),
                    rotation: Some(t.rotation),
                    scale: Some(t.scale),
                };
            }
            if component == ids::NAME
                && let Some(name) = decode_name(&data)
                && encode_name(&name) == data
            {
                return ScenarioAction::Rename { peer, entity, name };
            }
            ScenarioAction::Put {
                peer,
                entity,
                component,
                data,
            }
        }
        LocalWrite::Append {
            entity,
            component,
            data,
        } => ScenarioAction::Append {
            peer,
            entity,
            component,
            data,
        },
        LocalWrite::DeleteComponent { entity, component } => ScenarioAction::DeleteComponent {
            peer,
            entity,
            component,
        },
        LocalWrite::DeleteEntity { entity } => ScenarioAction::DeleteEntity { peer, entity },
        LocalWrite::Authored { messages } => ScenarioAction::Authored { peer, messages },
    }
}
