//! What an in-flight message would change on its receiver, field by field: the rows of the
//! Peers workspace's message table (from → to, entity, component, what changed, timestamp).
//!
//! A Transform message is compared with the Transform the receiver holds now, so a rotation
//! edit reads as a rotation ("rotation Y 0° → 90°") and a reparent as a reparent, instead of
//! every Transform message looking alike.

use std::cmp::Ordering;

use glam::{Quat, Vec3};

use super::{InFlight, MessageId, MessageKind, Network, PeerId};
use crate::crdt::message::CrdtMessage;
use crate::crdt::replica::compare_data;
use crate::model::{Entity, EulerOrder, Transform, component, decode_name, ids, present};

/// One field of a Transform a message changes: before (on the receiver) and after.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldChange {
    /// The declared parent.
    Parent { before: Entity, after: Entity },
    /// The local position, meters, in the parent's space.
    Position { before: Vec3, after: Vec3 },
    /// The local rotation (unit quaternions), shown as Euler angles.
    Rotation { before: Quat, after: Quat },
    /// The local scale.
    Scale { before: Vec3, after: Vec3 },
}

/// What delivering a message would do to its receiver's register.
#[derive(Clone, Debug, PartialEq)]
pub enum MessageEffect {
    /// A Transform: the fields that differ from the receiver's (all of them, against the
    /// identity, when `new`: the receiver holds no Transform for the entity).
    Transform {
        new: bool,
        changes: Vec<FieldChange>,
    },
    /// A `core-schema::Name`: the receiver's name before, and the new one.
    Name {
        before: Option<String>,
        after: String,
    },
    /// Another component's value, `bytes` long; `same` when the receiver already holds these
    /// bytes (only the timestamp can differ: an undo back to what the receiver still has).
    Value { bytes: usize, same: bool },
    /// The component is removed.
    Removed,
    /// The entity is deleted.
    EntityDeleted,
    /// A value is added to a grow-only set, `bytes` long.
    Appended { bytes: usize },
    /// A Transform that does not decode (the runtime refuses it).
    Malformed,
}

/// One row of the message table.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageRow {
    /// The message's id.
    pub id: MessageId,
    /// Sender.
    pub from: PeerId,
    /// Receiver.
    pub to: PeerId,
    /// Why it was sent.
    pub kind: MessageKind,
    /// The entity it is about.
    pub entity: Entity,
    /// The component's name ("Transform", "Name", "core::Material", "component 1234"), or
    /// `None` for an entity deletion.
    pub component: Option<String>,
    /// The component's id (`None` for an entity deletion), for names only the scene knows.
    pub component_id: Option<u32>,
    /// What it would change on the receiver.
    pub effect: MessageEffect,
    /// Its Lamport timestamp (`None` for an entity deletion).
    pub timestamp: Option<u32>,
    /// The receiver holds the same or newer state: delivering it changes nothing (and, when
    /// older, earns the sender a reply).
    pub stale: bool,
    /// The receiver holds this very write (same timestamp, same value): a duplicate, or a
    /// message that already arrived by another route. Implies `stale`.
    pub already_held: bool,
    /// The clock when it was sent, ticks.
    pub sent_at: u64,
}

impl FieldChange {
    /// The change as people read it: `parent Table → Lamp`, `position (1, 0, 0) → (2, 0, 0)`,
    /// `rotation Y 0° → 90°` (Euler angles in `order`, degrees, only the angles that changed),
    /// `scale (1, 1, 1) → (2, 2, 2)`. `name` labels entities.
    pub fn text(&self, order: EulerOrder, name: &dyn Fn(Entity) -> String) -> String {
        match *self {
            FieldChange::Parent { before, after } => {
                format!("parent {} → {}", name(before), name(after))
            }
            FieldChange::Position { before, after } => {
                format!("position {} → {}", vector(before), vector(after))
            }
            FieldChange::Scale { before, after } => {
                format!("scale {} → {}", vector(before), vector(after))
            }
            FieldChange::Rotation { before, after } => {
                let (a, b) = (order.to_degrees(before), order.to_degrees(after));
                let labels = order.axis_labels();
                let changed: Vec<String> = (0..3)
                    .filter(|&i| number(a[i], 1) != number(b[i], 1))
                    .map(|i| format!("{} {}° → {}°", labels[i], number(a[i], 1), number(b[i], 1)))
                    .collect();
                if changed.is_empty() {
                    // A turn below the shown precision (or the same turn written another way).
                    format!("rotation {} (tiny change)", order.label())
                } else {
                    format!("rotation {}", changed.join(", "))
                }
            }
        }
    }
}

impl MessageEffect {
    /// The effect in one line for the table's "what changed" column.
    pub fn text(&self, order: EulerOrder, name: &dyn Fn(Entity) -> String) -> String {
        match self {
            MessageEffect::Transform { new, changes } => {
                let fields: Vec<String> = changes.iter().map(|c| c.text(order, name)).collect();
                match (new, fields.is_empty()) {
                    (true, true) => "new Transform (identity at the root)".to_string(),
                    (true, false) => format!("new Transform: {}", fields.join("; ")),
                    (false, true) => "no change".to_string(),
                    (false, false) => fields.join("; "),
                }
            }
            MessageEffect::Name {
                before: Some(b),
                after,
            } if b == after => format!("same name {}", present::quoted(after)),
            MessageEffect::Name {
                before: Some(b),
                after,
            } => format!("name {} → {}", present::quoted(b), present::quoted(after)),
            MessageEffect::Name {
                before: None,
                after,
            } => format!("name {}", present::quoted(after)),
            MessageEffect::Value { bytes, same: false } => format!("new value ({bytes} bytes)"),
            MessageEffect::Value { bytes, same: true } => {
                format!("same value ({bytes} bytes)")
            }
            MessageEffect::Removed => "removed".to_string(),
            MessageEffect::EntityDeleted => "entity deleted".to_string(),
            MessageEffect::Appended { bytes } => format!("appended {bytes} bytes"),
            MessageEffect::Malformed => "malformed Transform (refused)".to_string(),
        }
    }
}

/// A number with at most `decimals` decimals, trailing zeros dropped, never `-0`.
fn number(v: f32, decimals: usize) -> String {
    let text = format!("{v:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    if text == "-0" { "0".to_string() } else { text }
}

/// `(x, y, z)` with up to three decimals.
fn vector(v: Vec3) -> String {
    format!(
        "({}, {}, {})",
        number(v.x, 3),
        number(v.y, 3),
        number(v.z, 3)
    )
}

/// The fields of `after` that differ from `before`, in the order parent, position, rotation,
/// scale. Rotations compare as turns (`q` and `-q` are the same turn).
pub fn transform_changes(before: &Transform, after: &Transform) -> Vec<FieldChange> {
    let mut out = Vec::new();
    if before.parent != after.parent {
        out.push(FieldChange::Parent {
            before: before.parent,
            after: after.parent,
        });
    }
    if before.position != after.position {
        out.push(FieldChange::Position {
            before: before.position,
            after: after.position,
        });
    }
    if before.rotation != after.rotation && before.rotation != -after.rotation {
        out.push(FieldChange::Rotation {
            before: before.rotation,
            after: after.rotation,
        });
    }
    if before.scale != after.scale {
        out.push(FieldChange::Scale {
            before: before.scale,
            after: after.scale,
        });
    }
    out
}

impl Network {
    /// The table row of an in-flight message: what it would change on its receiver now.
    pub fn message_row(&self, m: &InFlight) -> MessageRow {
        let receiver = &self.state.replicas[m.to.index()];
        let entity = m.message.entity();
        let component_id = m.message.component();
        let held = component_id.and_then(|c| receiver.component_data(entity, c));
        let effect = match &m.message {
            CrdtMessage::PutComponent {
                component, data, ..
            }
            | CrdtMessage::PutComponentNetwork {
                component, data, ..
            } => match *component {
                ids::TRANSFORM => match Transform::from_bytes(data.get(..44).unwrap_or(data)) {
                    Ok(after) => {
                        let before = held.and_then(|b| Transform::from_bytes(b).ok());
                        MessageEffect::Transform {
                            new: before.is_none(),
                            changes: transform_changes(
                                &before.unwrap_or(Transform::IDENTITY),
                                &after,
                            ),
                        }
                    }
                    Err(_) => MessageEffect::Malformed,
                },
                ids::NAME => MessageEffect::Name {
                    before: held.and_then(decode_name),
                    after: decode_name(data).unwrap_or_default(),
                },
                _ => MessageEffect::Value {
                    bytes: data.len(),
                    same: held == Some(&data[..]),
                },
            },
            CrdtMessage::DeleteComponent { .. } | CrdtMessage::DeleteComponentNetwork { .. } => {
                MessageEffect::Removed
            }
            CrdtMessage::DeleteEntity { .. } | CrdtMessage::DeleteEntityNetwork { .. } => {
                MessageEffect::EntityDeleted
            }
            CrdtMessage::AppendValue { data, .. } => MessageEffect::Appended { bytes: data.len() },
        };
        // (stale, already held)
        let (stale, already_held) = match (component_id, m.message.timestamp()) {
            (Some(c), Some(t)) if !component::is_grow_only(c) => {
                match receiver.lww_entry(entity, c) {
                    // Removing what was never there changes nothing.
                    None => (effect == MessageEffect::Removed, false),
                    // Last-writer-wins: the newer timestamp, then the greater value, wins.
                    Some(entry) => match t.cmp(&entry.timestamp) {
                        Ordering::Greater => (false, false),
                        Ordering::Less => (true, false),
                        Ordering::Equal => match compare_data(entry.data, m.message.data()) {
                            Ordering::Less => (false, false),
                            Ordering::Equal => (true, true),
                            Ordering::Greater => (true, false),
                        },
                    },
                }
            }
            _ => (false, false),
        };
        MessageRow {
            id: m.id,
            from: m.from,
            to: m.to,
            kind: m.kind,
            entity,
            component: component_id.map(crate::model::present::component_label),
            component_id,
            effect,
            timestamp: m.message.timestamp(),
            stale,
            already_held,
            sent_at: m.sent_at,
        }
    }

    /// What `peer` calls an entity, for the table (another peer's name when it has none).
    pub fn entity_label(&self, entity: Entity, peer: PeerId) -> String {
        present::entity_name(entity, self.name_of(entity, &[peer]).as_deref())
    }
}
