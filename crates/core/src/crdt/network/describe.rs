//! Readable summaries of messages and events for the peers panel and the CLI, and the
//! convergence check.

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::timeline::{Event, EventKind};
use super::{InFlight, MessageId, MessageKind, Network, PeerId};
use crate::crdt::message::{CrdtMessage, encode_stream};
use crate::crdt::replica::Replica;
use crate::model::{Entity, Transform, decode_name, ids, present};

/// A message in one line, with entity names looked up by `name_of`:
/// `Transform(512 "Lamp") parent=513 "Table" position=(1, 0, 0), t=7`,
/// `Name(512) = "Lamp", t=1`, `delete Transform(512 "Lamp"), t=3`, `delete entity 512 "Lamp"`.
/// Positions are local (in the parent's space), in meters.
pub fn describe_message(msg: &CrdtMessage, name_of: &dyn Fn(Entity) -> Option<String>) -> String {
    let label = |e: Entity| present::entity_tag(e, name_of(e).as_deref());
    let component_label = present::component_label;
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
                    Some(name) => format!(" = {}", present::quoted(&name)),
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

/// Per entity, a 64-bit hash of its part of [`Replica::digest`] (its registers and grow-only
/// values, or its DELETE_ENTITY), ascending by entity. Equal states give equal lists; a
/// difference in an entity's state changes its hash, up to a negligible chance of collision.
/// Hashes, not the encoded bytes: a large scene's state is megabytes per peer.
fn entity_hashes(replica: &Replica) -> Vec<(Entity, u64)> {
    let mut hashes: FxHashMap<Entity, u64> = FxHashMap::default();
    replica.for_each_digested(|entity, bytes| {
        // Chained through the seed: an entity's messages always come in the same order.
        let hash = hashes.entry(entity).or_insert(0);
        *hash = xxh3_64_with_seed(bytes, *hash);
    });
    let mut out: Vec<(Entity, u64)> = hashes.into_iter().collect();
    out.sort_unstable_by_key(|&(entity, _)| entity);
    out
}

impl Network {
    /// Compares the peers: digests, messages in flight, and the entities that differ.
    pub fn convergence(&self) -> Convergence {
        self.convergence_with(self.replicas().iter().map(Replica::digest).collect())
    }

    /// [`Self::convergence`] with each peer's [`Replica::digest`] already known (peer 1
    /// first), for callers that keep them per replica version.
    pub fn convergence_with(&self, digests: Vec<u128>) -> Convergence {
        debug_assert_eq!(digests.len(), self.replicas().len(), "one digest per peer");
        let same = digests.windows(2).all(|w| w[0] == w[1]);
        let differing = if same {
            Vec::new()
        } else {
            let states: Vec<Vec<(Entity, u64)>> =
                self.replicas().iter().map(entity_hashes).collect();
            let hash_of = |state: &[(Entity, u64)], e: Entity| {
                state
                    .binary_search_by_key(&e, |&(entity, _)| entity)
                    .ok()
                    .map(|i| state[i].1)
            };
            let mut all: Vec<Entity> = states.iter().flatten().map(|&(e, _)| e).collect();
            all.sort_unstable();
            all.dedup();
            all.into_iter()
                .filter(|&e| {
                    states
                        .windows(2)
                        .any(|w| hash_of(&w[0], e) != hash_of(&w[1], e))
                })
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
        // An element from a live host may hold 100,000 messages: the first ten are named.
        let ids = |sent: &[MessageId]| present::first_named(sent, ", ", MessageId::to_string);
        match &event.kind {
            EventKind::Write {
                peer,
                messages,
                sent,
                replaced,
                ..
            } => {
                let name_of = |e: Entity| self.name_of(e, &[*peer]);
                let what = present::first_named(messages, "; ", |m| describe_message(m, &name_of));
                let mut text = format!("{peer} writes {what} (sent {})", ids(sent));
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
