//! Readable summaries of messages and events for the peers panel and the CLI, and the
//! convergence check.

use std::collections::BTreeMap;

use super::timeline::{Event, EventKind};
use super::{InFlight, MessageId, MessageKind, Network, PeerId};
use crate::crdt::message::{CrdtMessage, encode_stream};
use crate::crdt::replica::Replica;
use crate::model::{Entity, Transform, component, decode_name, ids, present};

/// A message in one line, with entity names looked up by `name_of`:
/// `Transform(512 "Lamp") parent=513 "Table" position=(1, 0, 0), t=7`,
/// `Name(512) = "Lamp", t=1`, `delete Transform(512 "Lamp"), t=3`, `delete entity 512 "Lamp"`.
/// Positions are local (in the parent's space), in meters.
pub fn describe_message(msg: &CrdtMessage, name_of: &dyn Fn(Entity) -> Option<String>) -> String {
    let label = |e: Entity| present::entity_tag(e, name_of(e).as_deref());
    let component_label = |c: u32| match c {
        ids::TRANSFORM => "Transform".to_string(),
        ids::NAME => "Name".to_string(),
        _ => component::component_name(c).map_or_else(|| format!("component {c}"), str::to_owned),
    };
    let network = msg
        .network_id()
        .map(|n| format!(" net={n}"))
        .unwrap_or_default();
    let entity = msg.entity();
    match msg {
        CrdtMessage::PutComponent {
            component,
            timestamp,
            data,
            ..
        }
        | CrdtMessage::PutComponentNetwork {
            component,
            timestamp,
            data,
            ..
        } => {
            let value = match *component {
                ids::TRANSFORM => match Transform::from_bytes(data.get(..44).unwrap_or(data)) {
                    Ok(t) => {
                        let p = t.position;
                        format!(
                            " parent={} position=({}, {}, {})",
                            label(t.parent),
                            p.x,
                            p.y,
                            p.z
                        )
                    }
                    Err(_) => format!(" {} bytes (malformed)", data.len()),
                },
                ids::NAME => match decode_name(data) {
                    Some(name) => format!(" = {name:?}"),
                    None => format!(" {} bytes", data.len()),
                },
                _ => format!(" {} bytes", data.len()),
            };
            // A Name message shows the name it carries, so the entity goes unnamed.
            let target = if *component == ids::NAME {
                entity.to_string()
            } else {
                label(entity)
            };
            format!(
                "{}({target}){value}, t={timestamp}{network}",
                component_label(*component)
            )
        }
        CrdtMessage::DeleteComponent {
            component,
            timestamp,
            ..
        }
        | CrdtMessage::DeleteComponentNetwork {
            component,
            timestamp,
            ..
        } => format!(
            "delete {}({}), t={timestamp}{network}",
            component_label(*component),
            label(entity)
        ),
        CrdtMessage::DeleteEntity { .. } | CrdtMessage::DeleteEntityNetwork { .. } => {
            format!("delete entity {}{network}", label(entity))
        }
        CrdtMessage::AppendValue {
            component, data, ..
        } => format!(
            "append {}({}) {} bytes",
            component_label(*component),
            label(entity),
            data.len()
        ),
    }
}

/// Whether all peers hold the same state, and where they differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Convergence {
    /// True when every digest is equal and nothing is in flight.
    pub converged: bool,
    /// Messages still in flight.
    pub in_flight: usize,
    /// Each peer's [`Replica::digest`], peer 1 first.
    pub digests: Vec<u128>,
    /// Entities whose state is not the same on every peer, ascending.
    pub differing: Vec<Entity>,
}

/// A replica's state per entity, as the digest sees it: the encoded registers and grow-only
/// values of entities that are not deleted, and a DELETE_ENTITY under each deleted id (at its
/// highest deleted version). Two replicas have equal digests exactly when these maps are equal.
pub fn entity_states(replica: &Replica) -> BTreeMap<Entity, Vec<u8>> {
    let mut out: BTreeMap<Entity, Vec<u8>> = BTreeMap::new();
    for msg in replica.state_messages() {
        if !replica.is_deleted(msg.entity()) {
            msg.encode_into(out.entry(msg.entity()).or_default());
        }
    }
    for entity in replica.deleted_entities() {
        CrdtMessage::DeleteEntity { entity }.encode_into(out.entry(entity).or_default());
    }
    out
}

impl Network {
    /// Compares the peers: digests, messages in flight, and the entities that differ.
    pub fn convergence(&self) -> Convergence {
        let digests: Vec<u128> = self.replicas().iter().map(Replica::digest).collect();
        let same = digests.windows(2).all(|w| w[0] == w[1]);
        let differing = if same {
            Vec::new()
        } else {
            let states: Vec<BTreeMap<Entity, Vec<u8>>> =
                self.replicas().iter().map(entity_states).collect();
            let mut all: Vec<Entity> = states.iter().flat_map(|s| s.keys().copied()).collect();
            all.sort_unstable();
            all.dedup();
            all.into_iter()
                .filter(|e| states.windows(2).any(|w| w[0].get(e) != w[1].get(e)))
                .collect()
        };
        Convergence {
            converged: same && self.in_flight().is_empty(),
            in_flight: self.in_flight().len(),
            digests,
            differing,
        }
    }

    /// The canonical `main.crdt` bytes of a peer's state (write them with `io::write_atomic`).
    pub fn export_crdt(&self, peer: PeerId) -> Result<Vec<u8>, super::NetworkError> {
        Ok(encode_stream(&self.replica(peer)?.canonical_messages()))
    }

    /// An entity's `core-schema::Name`, read from the first of `prefer` that has one, else from
    /// any peer.
    pub fn name_of(&self, entity: Entity, prefer: &[PeerId]) -> Option<String> {
        prefer
            .iter()
            .filter_map(|p| self.replica(*p).ok())
            .chain(self.replicas())
            .find_map(|r| r.component_data(entity, ids::NAME).and_then(decode_name))
    }

    /// An in-flight message in one line:
    /// `#3 peer 2 → peer 1: Transform(512 "Lamp") parent=513 position=(0, 0, 0), t=7 [reply]`.
    /// Names come from the receiver, else the sender, else any peer.
    pub fn describe_in_flight(&self, m: &InFlight) -> String {
        let name_of = |e: Entity| self.name_of(e, &[m.to, m.from]);
        let kind = match m.kind {
            MessageKind::Write => "",
            MessageKind::Reply => " [reply]",
            MessageKind::Announcement => " [announcement]",
        };
        format!(
            "{} {} → {}: {}{kind}",
            m.id,
            m.from,
            m.to,
            describe_message(&m.message, &name_of)
        )
    }

    /// An event in one line, e.g. `peer 1 writes Transform(512 "Lamp") parent=513 …, t=2
    /// (sent #1)` or `deliver #1 peer 1 → peer 2: …: accepted (newer timestamp)`.
    pub fn describe_event(&self, event: &Event) -> String {
        let ids = |sent: &[MessageId]| {
            sent.iter()
                .map(MessageId::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match &event.kind {
            EventKind::Write {
                peer,
                messages,
                sent,
                replaced,
                ..
            } => {
                let name_of = |e: Entity| self.name_of(e, &[*peer]);
                let what: Vec<String> = messages
                    .iter()
                    .map(|m| describe_message(m, &name_of))
                    .collect();
                let mut text = format!("{peer} writes {} (sent {})", what.join("; "), ids(sent));
                if !replaced.is_empty() {
                    text.push_str(&format!(
                        ", replacing unsent {} (one message per tick)",
                        ids(replaced)
                    ));
                }
                text
            }
            EventKind::Deliver {
                message,
                outcome,
                sent,
            } => {
                let mut text = format!(
                    "deliver {}: {}",
                    self.describe_in_flight(message),
                    outcome.label()
                );
                if !sent.is_empty() {
                    let what = if outcome.reply().is_some() {
                        "sent"
                    } else {
                        "announced"
                    };
                    text.push_str(&format!(" ({what} {})", ids(sent)));
                }
                text
            }
            EventKind::Drop { message } => {
                format!("drop {}", self.describe_in_flight(message))
            }
            EventKind::Duplicate { original, copy } => {
                format!("duplicate {original} as {copy}")
            }
            EventKind::Reorder { id, from, to } => {
                format!("move {id} from position {from} to {to}")
            }
            EventKind::SetOnline { peer, online } => {
                format!("{peer} goes {}", if *online { "online" } else { "offline" })
            }
            EventKind::Tick { ticks } => format!("clock +{ticks} (now {})", event.at),
            EventKind::SetAutoDelivery { auto: None } => "auto-delivery off".to_string(),
            EventKind::SetAutoDelivery { auto: Some(a) } => format!(
                "auto-delivery on: latency {} ticks, jitter {}",
                a.latency, a.jitter
            ),
            EventKind::SetOneMessagePerTick { on } => {
                format!("one message per tick {}", if *on { "on" } else { "off" })
            }
        }
    }
}
