//! Deliveries as people read them: who sends what to whom (the CommsMessage, and the CRDT
//! messages inside with their network entities, components and timestamps), when it was sent
//! and when it arrives, and the hazards it leads to at the tick that applies it.

use super::NetRun;
use super::schedule::{Delivery, FrameKey, Slot};
use super::simulate::HazardAt;
use crate::crdt::CrdtMessage;
use crate::crdt::stream::{Dialect, StreamItem, StreamReader};
use crate::net::address::network_id_from_address;
use crate::net::comms::{CommsKind, decode_inbound, decode_state_response};
use crate::net::components::NetworkIdentity;
use crate::net::hazard::{HazardKind, identity_label};

/// What a delivered item holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeliveryContent {
    /// The sender's address as the item names it.
    pub sender: String,
    /// The CommsMessage, when the dialect names its byte.
    pub kind: Option<CommsKind>,
    /// For a state answer, the address it answers.
    pub requester: Option<String>,
    /// The CRDT messages inside (CRDT items and state answers), in order.
    pub messages: Vec<CrdtMessage>,
    /// Why (part of) the item cannot be read, with the byte offset.
    pub problem: Option<String>,
}

impl DeliveryContent {
    /// The network entities its messages name, in order of first mention.
    pub fn identities(&self) -> Vec<NetworkIdentity> {
        let mut found: Vec<NetworkIdentity> = Vec::new();
        for m in &self.messages {
            if let Some(net) = m.network_id() {
                let identity = NetworkIdentity::new(net, m.entity().0);
                if !found.contains(&identity) {
                    found.push(identity);
                }
            }
        }
        found
    }
}

/// Decodes an item as a receiver gets it (`[u8 len][sender][CommsMessage][payload]`).
pub fn decode_delivery(bytes: &[u8], dialect: Dialect) -> DeliveryContent {
    let inbound = match decode_inbound(bytes, dialect) {
        Ok(inbound) => inbound,
        Err(e) => {
            return DeliveryContent {
                problem: Some(e.to_string()),
                ..DeliveryContent::default()
            };
        }
    };
    let mut content = DeliveryContent {
        sender: inbound.sender.to_string(),
        kind: inbound.item.kind,
        ..DeliveryContent::default()
    };
    let payload_at = inbound.item_offset + 1;
    let (crdt, crdt_at) = match inbound.item.kind {
        Some(CommsKind::Crdt) => (inbound.item.payload, payload_at),
        Some(CommsKind::ResCrdtState) => match decode_state_response(inbound.item.payload) {
            Ok(response) => {
                content.requester = Some(response.requester.to_string());
                (response.crdt, payload_at + response.crdt_offset)
            }
            Err(e) => {
                content.problem = Some(format!("at byte {}: {}", e.offset + payload_at, e.kind));
                return content;
            }
        },
        _ => return content,
    };
    for item in StreamReader::with_dialect(crdt, dialect) {
        match item {
            Ok(
                StreamItem::Message { message, .. } | StreamItem::AuthoritativePut { message, .. },
            ) => content.messages.push(message),
            Ok(_) => {}
            Err(e) => {
                content.problem = Some(format!("at byte {}: {}", e.offset + crdt_at, e.kind));
                break;
            }
        }
    }
    content
}

/// One delivery of the schedule, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct DeliveryRow {
    /// Where it is.
    pub slot: Slot,
    /// The sending player, when the sender is one of the run's.
    pub from: Option<usize>,
    /// The receiving player.
    pub to: usize,
    /// The step that sent it (`None` for an item recorded as received but not modelled).
    pub sent_step: Option<usize>,
    /// The step whose `sendBinary` returns it (`None`: no tick receives it).
    pub arrives: Option<usize>,
    /// What it holds.
    pub content: DeliveryContent,
    /// The hazards of the tick that applies it whose entity its messages name.
    pub hazards: Vec<HazardAt>,
}

impl NetRun {
    /// The address of the player with this network id (`None` for fixed ids and strangers).
    pub fn owner_of(&self, network_id: i64) -> Option<&str> {
        (self.players.iter())
            .find(|p| i64::from(network_id_from_address(&p.address)) == network_id)
            .map(|p| p.address.as_str())
    }

    /// A network identity as people read it (`0xaaaa…aaaa:513`, `#1` for a fixed id).
    pub fn identity_label(&self, identity: NetworkIdentity) -> String {
        identity_label(identity, self.owner_of(identity.network_id))
    }

    /// The deliveries in flight at the cursor: sent before it, arriving at or after it (or at
    /// no tick), ordered by receiver, then by arrival.
    pub fn in_flight(&self) -> Vec<DeliveryRow> {
        let cursor = self.cursor;
        let mut rows = Vec::new();
        for step in cursor..self.script.len() {
            for (index, delivery) in self.schedule.inbox(step).iter().enumerate() {
                let slot = Slot::At { step, index };
                let row = self.row(slot, delivery);
                let sent_before = match delivery {
                    Delivery::Frame(key) => key.sender_step < cursor,
                    // A recorded item was sent at the sender's last tick before it arrived.
                    Delivery::Recorded(_) => row.from.is_none_or(|from| {
                        (0..step)
                            .rev()
                            .find(|&s| self.script[s].player == from)
                            .is_some_and(|s| s < cursor)
                    }),
                };
                if sent_before {
                    rows.push(row);
                }
            }
        }
        for key in self.arriving_nowhere() {
            if key.sender_step < cursor {
                rows.push(self.row(Slot::Nowhere(key), &Delivery::Frame(key)));
            }
        }
        rows.sort_by_key(|r| (r.to, r.arrives.is_none(), r.arrives, slot_index(r.slot)));
        rows
    }

    /// Every delivery of the run, in arrival order (those arriving nowhere last).
    pub fn all_deliveries(&self) -> Vec<DeliveryRow> {
        let mut rows = Vec::new();
        for step in 0..self.script.len() {
            for (index, delivery) in self.schedule.inbox(step).iter().enumerate() {
                rows.push(self.row(Slot::At { step, index }, delivery));
            }
        }
        for key in self.arriving_nowhere() {
            rows.push(self.row(Slot::Nowhere(key), &Delivery::Frame(key)));
        }
        rows
    }

    fn row(&self, slot: Slot, delivery: &Delivery) -> DeliveryRow {
        let bytes: &[u8] = match delivery {
            Delivery::Frame(key) => self.frame(*key).unwrap_or_default(),
            Delivery::Recorded(bytes) => bytes,
        };
        let content = decode_delivery(bytes, self.dialect);
        let to = self.receiver(slot).unwrap_or_default();
        let from = match delivery {
            Delivery::Frame(key) => self.script.get(key.sender_step).map(|t| t.player),
            Delivery::Recorded(_) => self
                .players
                .iter()
                .position(|p| p.address == content.sender),
        };
        let arrives = match slot {
            Slot::At { step, .. } => Some(step),
            Slot::Nowhere(_) => None,
        };
        let hazards = arrives
            .and_then(|step| self.next_step_of(to, step))
            .map(|applies| self.hazards_named(applies, &content))
            .unwrap_or_default();
        DeliveryRow {
            slot,
            from,
            to,
            sent_step: match delivery {
                Delivery::Frame(FrameKey { sender_step, .. }) => Some(*sender_step),
                Delivery::Recorded(_) => None,
            },
            arrives,
            content,
            hazards,
        }
    }

    /// The hazards of step `step` about an entity `content` names: by its network identity, or,
    /// for a delete that hit another entity, by the sender's own number the delete carried.
    fn hazards_named(&self, step: usize, content: &DeliveryContent) -> Vec<HazardAt> {
        let Some(record) = self.record(step) else {
            return Vec::new();
        };
        let identities = content.identities();
        (record.hazards.iter())
            .filter(|h| match h.hazard.kind {
                HazardKind::WrongEntityDeleted => content.messages.iter().any(|m| {
                    matches!(m, CrdtMessage::DeleteEntityNetwork { entity, .. }
                        if entity.number() == h.hazard.entity.number())
                }),
                _ => h.identity.is_some_and(|i| identities.contains(&i)),
            })
            .cloned()
            .collect()
    }
}

/// A slot's position for sorting (deliveries of one tick in their order).
fn slot_index(slot: Slot) -> usize {
    match slot {
        Slot::At { index, .. } => index,
        Slot::Nowhere(key) => key.sender_step,
    }
}
