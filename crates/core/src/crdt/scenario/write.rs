//! Writing a scenario as JSON that [`super::parse`] reads back to the same [`Scenario`], and
//! turning a network run into a scenario.

use std::io::{self, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Value, json};

use super::{FORMAT, InitialState, Scenario, ScenarioAction, ScenarioStep, Selector};
use crate::crdt::message::{CrdtMessage, encode_stream};
use crate::crdt::network::{DeliveryOrder, EventKind, LocalWrite, Network, PeerId};
use crate::model::{Transform, decode_name, encode_name, ids};

impl Scenario {
    /// The scenario as pretty-printed JSON, newline-terminated. Entities are written as ids.
    pub fn to_json(&self) -> String {
        let mut doc = self.head_json();
        doc.insert(
            "steps".into(),
            Value::Array(self.steps.iter().map(ScenarioStep::to_json_value).collect()),
        );
        let mut text = serde_json::to_string_pretty(&Value::Object(doc))
            .expect("JSON values always serialize");
        text.push('\n');
        text
    }

    /// Every top-level field but the steps.
    fn head_json(&self) -> Map<String, Value> {
        let mut doc = Map::new();
        doc.insert("format".into(), json!(FORMAT));
        doc.insert("title".into(), json!(self.title));
        doc.insert("explanation".into(), json!(self.explanation));
        doc.insert("peers".into(), json!(self.peers));
        // Written only when there are names, so files without them read as before.
        if !self.peer_names.is_empty() {
            doc.insert("peer_names".into(), json!(self.peer_names));
        }
        doc.insert("seed".into(), json!(self.seed));
        doc.insert(
            "one_message_per_tick".into(),
            json!(self.one_message_per_tick),
        );
        // Written only when off, so files without it read as before.
        if !self.replies {
            doc.insert("replies".into(), json!(false));
        }
        doc.insert("initial".into(), initial_json(&self.initial));
        doc
    }
}

impl ScenarioStep {
    /// The step as a JSON value, as [`Scenario::to_json`] writes it.
    pub fn to_json_value(&self) -> Value {
        let mut obj = Map::new();
        if let Some(text) = &self.text {
            obj.insert("text".into(), json!(text));
        }
        obj.insert(
            "actions".into(),
            Value::Array(self.actions.iter().map(action_json).collect()),
        );
        Value::Object(obj)
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
    /// Writes `head`'s fields but its steps (which it ignores).
    pub fn start(head: &Scenario, mut out: W) -> io::Result<Self> {
        let head = serde_json::to_string_pretty(&Value::Object(head.head_json()))
            .expect("JSON values always serialize");
        // The pretty object without its closing brace, then the open list of steps.
        let open = head.strip_suffix("\n}").unwrap_or(&head);
        write!(out, "{open},\n  \"steps\": [")?;
        Ok(ScenarioWriter { out, steps: 0 })
    }

    /// Appends a step.
    pub fn step(&mut self, step: &ScenarioStep) -> io::Result<()> {
        let separator = if self.steps == 0 { "\n    " } else { ",\n    " };
        self.out.write_all(separator.as_bytes())?;
        serde_json::to_writer(&mut self.out, &step.to_json_value())?;
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

    /// What [`Self::finish`] writes: whoever copies a file in progress closes it with this.
    pub const END: &'static str = "\n  ]\n}\n";
}

fn initial_json(initial: &InitialState) -> Value {
    let mut obj = Map::new();
    if !initial.stream.is_empty() {
        obj.insert(
            "stream".into(),
            json!(BASE64.encode(encode_stream(&initial.stream))),
        );
    }
    let entities: Vec<Value> = initial
        .entities
        .iter()
        .map(|e| {
            let mut o = Map::new();
            o.insert("entity".into(), json!(e.entity.0));
            if let Some(name) = &e.name {
                o.insert("name".into(), json!(name));
            }
            match &e.transform {
                Some(t) => {
                    o.insert("parent".into(), json!(t.parent.0));
                    o.insert("position".into(), json!(t.position.to_array()));
                    o.insert("rotation".into(), json!(t.rotation.to_array()));
                    o.insert("scale".into(), json!(t.scale.to_array()));
                }
                None => {
                    o.insert("transform".into(), json!(false));
                }
            }
            o.insert("timestamp".into(), json!(e.timestamp));
            Value::Object(o)
        })
        .collect();
    obj.insert("entities".into(), Value::Array(entities));
    Value::Object(obj)
}

fn peer(p: PeerId) -> Value {
    json!(p.0)
}

fn selector_into(obj: &mut Map<String, Value>, sel: &Selector) {
    match sel {
        Selector::Id(id) => {
            obj.insert("id".into(), json!(id.0));
        }
        Selector::Route { from, to, nth } => {
            if let Some(f) = from {
                obj.insert("from".into(), peer(*f));
            }
            if let Some(t) = to {
                obj.insert("to".into(), peer(*t));
            }
            obj.insert("nth".into(), json!(nth));
        }
    }
}

fn action_json(action: &ScenarioAction) -> Value {
    let mut o = Map::new();
    let mut put = |k: &str, v: Value| {
        o.insert(k.to_string(), v);
    };
    match action {
        ScenarioAction::Move {
            peer: p,
            entity,
            parent,
            position,
            rotation,
            scale,
        } => {
            put("do", json!("move"));
            put("peer", peer(*p));
            put("entity", json!(entity.0));
            if let Some(parent) = parent {
                put("parent", json!(parent.0));
            }
            if let Some(v) = position {
                put("position", json!(v.to_array()));
            }
            if let Some(r) = rotation {
                put("rotation", json!(r.to_array()));
            }
            if let Some(s) = scale {
                put("scale", json!(s.to_array()));
            }
        }
        ScenarioAction::Rename {
            peer: p,
            entity,
            name,
        } => {
            put("do", json!("rename"));
            put("peer", peer(*p));
            put("entity", json!(entity.0));
            put("name", json!(name));
        }
        ScenarioAction::Put {
            peer: p,
            entity,
            component,
            data,
        }
        | ScenarioAction::Append {
            peer: p,
            entity,
            component,
            data,
        } => {
            let kind = if matches!(action, ScenarioAction::Put { .. }) {
                "put"
            } else {
                "append"
            };
            put("do", json!(kind));
            put("peer", peer(*p));
            put("entity", json!(entity.0));
            put("component", json!(component));
            put("base64", json!(BASE64.encode(data)));
        }
        ScenarioAction::DeleteComponent {
            peer: p,
            entity,
            component,
        } => {
            put("do", json!("delete_component"));
            put("peer", peer(*p));
            put("entity", json!(entity.0));
            put("component", json!(component));
        }
        ScenarioAction::DeleteEntity { peer: p, entity } => {
            put("do", json!("delete_entity"));
            put("peer", peer(*p));
            put("entity", json!(entity.0));
        }
        ScenarioAction::Authored { peer: p, messages } => {
            put("do", json!("authored"));
            put("peer", peer(*p));
            put("stream", json!(BASE64.encode(encode_stream(messages))));
        }
        ScenarioAction::Deliver(sel)
        | ScenarioAction::Drop(sel)
        | ScenarioAction::Duplicate(sel) => {
            let kind = match action {
                ScenarioAction::Deliver(_) => "deliver",
                ScenarioAction::Drop(_) => "drop",
                _ => "duplicate",
            };
            o.insert("do".into(), json!(kind));
            selector_into(&mut o, sel);
        }
        ScenarioAction::DeliverAll { order, filter } => {
            put("do", json!("deliver_all"));
            if *order != DeliveryOrder::Send {
                put("order", json!(order.as_str()));
            }
            if let Some(f) = filter.from {
                put("from", peer(f));
            }
            if let Some(t) = filter.to {
                put("to", peer(t));
            }
        }
        ScenarioAction::Reorder { message, index } => {
            o.insert("do".into(), json!("reorder"));
            selector_into(&mut o, message);
            o.insert("index".into(), json!(index));
        }
        ScenarioAction::SetOnline { peer: p, online } => {
            put("do", json!(if *online { "online" } else { "offline" }));
            put("peer", peer(*p));
        }
        ScenarioAction::Tick { ticks } => {
            put("do", json!("tick"));
            put("ticks", json!(ticks));
        }
        ScenarioAction::Advance { ticks } => {
            put("do", json!("advance"));
            put("ticks", json!(ticks));
        }
        ScenarioAction::SetAutoDelivery(None) => {
            put("do", json!("auto_delivery"));
            put("off", json!(true));
        }
        ScenarioAction::SetAutoDelivery(Some(a)) => {
            put("do", json!("auto_delivery"));
            put("latency", json!(a.latency));
            put("jitter", json!(a.jitter));
        }
        ScenarioAction::SetOneMessagePerTick(on) => {
            put("do", json!("one_message_per_tick"));
            put("on", json!(on));
        }
    }
    Value::Object(o)
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
