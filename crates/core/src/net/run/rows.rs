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

impl DeliveryContent {
    /// The CommsMessage as people read it: `CRDT`, `REQ_CRDT_STATE`, `RES_CRDT_STATE for
    /// 0xcccc…cccc`, or `unknown` for a byte the dialect does not name.
    pub fn kind_text(&self) -> String {
        match (self.kind, &self.requester) {
            (Some(kind), Some(requester)) => {
                format!(
                    "{} for {}",
                    kind.name(),
                    crate::net::short_address(requester)
                )
            }
            (Some(kind), None) => kind.name().to_string(),
            (None, _) => "unknown".to_string(),
        }
    }

    /// The components its messages name, each once, in order (`(entity)` for an entity
    /// delete).
    pub fn components_text(&self) -> String {
        let mut seen: Vec<String> = Vec::new();
        for m in &self.messages {
            let label = m
                .component()
                .map_or_else(|| "(entity)".to_string(), short_component_label);
            if !seen.contains(&label) {
                seen.push(label);
            }
        }
        seen.join(", ")
    }

    /// The timestamps of its messages, each once, in order.
    pub fn timestamps_text(&self) -> String {
        let mut seen: Vec<u32> = Vec::new();
        for t in self.messages.iter().filter_map(CrdtMessage::timestamp) {
            if !seen.contains(&t) {
                seen.push(t);
            }
        }
        (seen.iter().map(u32::to_string))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// One line per message: its type, network entity (named by `label`), component,
    /// timestamp, and for a Transform or NetworkParent the parent it carries.
    pub fn message_lines(&self, label: &dyn Fn(NetworkIdentity) -> String) -> Vec<String> {
        self.messages
            .iter()
            .map(|m| message_line(m, label))
            .collect()
    }
}

/// A component's name in a delivery's text: the network components by their SDK names
/// (`NetworkEntity`, `NetworkParent`, `SyncComponents`), the others as everywhere.
pub fn short_component_label(id: u32) -> String {
    use crate::model::ids;
    match id {
        ids::NETWORK_ENTITY => "NetworkEntity".to_string(),
        ids::NETWORK_PARENT => "NetworkParent".to_string(),
        crate::net::components::SYNC_COMPONENTS => "SyncComponents".to_string(),
        _ => crate::model::present::component_label(id),
    }
}

/// One message as a line of text (see [`DeliveryContent::message_lines`]).
fn message_line(m: &CrdtMessage, label: &dyn Fn(NetworkIdentity) -> String) -> String {
    use crate::model::{Transform, ids};
    let entity = match m.network_id() {
        Some(net) => label(NetworkIdentity::new(net, m.entity().0)),
        None => format!("entity {}", m.entity()),
    };
    let kind = match m {
        CrdtMessage::PutComponent { .. } | CrdtMessage::PutComponentNetwork { .. } => "PUT",
        CrdtMessage::DeleteComponent { .. } | CrdtMessage::DeleteComponentNetwork { .. } => {
            "DELETE_COMPONENT"
        }
        CrdtMessage::DeleteEntity { .. } | CrdtMessage::DeleteEntityNetwork { .. } => {
            "DELETE_ENTITY"
        }
        CrdtMessage::AppendValue { .. } => "APPEND",
    };
    let mut line = format!("{kind} {entity}");
    if let Some(component) = m.component() {
        line.push_str(&format!(" {}", short_component_label(component)));
    }
    if let Some(t) = m.timestamp() {
        line.push_str(&format!(" t={t}"));
    }
    match (m.component(), m.data()) {
        (Some(ids::TRANSFORM), Some(data)) => {
            if let Ok(t) = Transform::from_bytes(data)
                && !t.parent.is_root()
            {
                line.push_str(&format!(", Transform.parent {} (raw)", t.parent));
            }
        }
        (Some(ids::NETWORK_PARENT), Some(data)) => {
            if let Ok(parent) = NetworkIdentity::from_bytes(data, "core-schema::Network-Parent") {
                line.push_str(&format!(", parent {}", label(parent)));
            }
        }
        _ => {}
    }
    line
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
        let firsts = self.first_state_answers();
        let mut rows = Vec::new();
        for step in cursor..self.script.len() {
            for (index, delivery) in self.schedule.inbox(step).iter().enumerate() {
                let sent_before = match delivery {
                    Delivery::Frame(key) => key.sender_step < cursor,
                    // A recorded item was sent at the sender's last tick before it arrived.
                    Delivery::Recorded(bytes) => self.sender_of(bytes).is_none_or(|from| {
                        self.previous_step_of(from, step)
                            .is_some_and(|s| s < cursor)
                    }),
                };
                if sent_before {
                    rows.push(self.row(Slot::At { step, index }, delivery, &firsts));
                }
            }
        }
        for key in self.arriving_nowhere() {
            if key.sender_step < cursor {
                rows.push(self.row(Slot::Nowhere(key), &Delivery::Frame(key), &firsts));
            }
        }
        rows.sort_by_key(|r| (r.to, r.arrives.is_none(), r.arrives, slot_index(r.slot)));
        rows
    }

    /// Every delivery of the run, in arrival order (those arriving nowhere last).
    pub fn all_deliveries(&self) -> Vec<DeliveryRow> {
        let firsts = self.first_state_answers();
        let mut rows = Vec::new();
        for step in 0..self.script.len() {
            for (index, delivery) in self.schedule.inbox(step).iter().enumerate() {
                rows.push(self.row(Slot::At { step, index }, delivery, &firsts));
            }
        }
        for key in self.arriving_nowhere() {
            rows.push(self.row(Slot::Nowhere(key), &Delivery::Frame(key), &firsts));
        }
        rows
    }

    /// The row of the delivery in `slot`; `firsts` holds each player's first state answer.
    fn row(&self, slot: Slot, delivery: &Delivery, firsts: &[Option<Slot>]) -> DeliveryRow {
        let bytes: &[u8] = match delivery {
            Delivery::Frame(key) => self.frame(*key).unwrap_or_default(),
            Delivery::Recorded(bytes) => bytes,
        };
        let content = decode_delivery(bytes, self.dialect);
        let to = self.receiver(slot).unwrap_or_default();
        let from = match delivery {
            Delivery::Frame(key) => self.script.get(key.sender_step).map(|t| t.player),
            Delivery::Recorded(bytes) => self.sender_of(bytes),
        };
        let arrives = match slot {
            Slot::At { step, .. } => Some(step),
            Slot::Nowhere(_) => None,
        };
        let mut hazards = arrives
            .and_then(|step| self.next_step_of(to, step))
            .map(|applies| self.hazards_named(applies, &content))
            .unwrap_or_default();
        if firsts.get(to).copied().flatten() == Some(slot) {
            // The first answer a joiner applies is not the repeat: the later ones are.
            hazards.retain(|h| h.hazard.kind != HazardKind::RepeatedStateResponse);
        }
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

    /// The player that sent a recorded item, when it is one of the run's.
    fn sender_of(&self, item: &[u8]) -> Option<usize> {
        let sender = decode_inbound(item, self.dialect).ok()?.sender;
        self.players.iter().position(|p| *p.address == *sender)
    }

    /// Each player's first state answer in the schedule.
    fn first_state_answers(&self) -> Vec<Option<Slot>> {
        (0..self.players.len())
            .map(|p| self.first_state_answer(p))
            .collect()
    }

    /// The first state answer the schedule gives `player`.
    fn first_state_answer(&self, player: usize) -> Option<Slot> {
        for step in self.steps_of(player, 0) {
            for (index, delivery) in self.schedule.inbox(step).iter().enumerate() {
                let bytes: &[u8] = match delivery {
                    Delivery::Frame(key) => self.frame(*key).unwrap_or_default(),
                    Delivery::Recorded(bytes) => bytes,
                };
                let Ok(item) = decode_inbound(bytes, self.dialect) else {
                    continue;
                };
                if item.item.kind == Some(CommsKind::ResCrdtState)
                    && decode_state_response(item.item.payload)
                        .is_ok_and(|r| *r.requester == *self.players[player].address)
                {
                    return Some(Slot::At { step, index });
                }
            }
        }
        None
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
