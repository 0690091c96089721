//! Remote apply: a message from another peer, with the reference's rules.

use std::cmp::Ordering;

use super::{LwwEntry, Replica};
use crate::crdt::message::CrdtMessage;
use crate::model::{Entity, Transform, component};

/// What applying one message did, in the terms of the reference's `ProcessMessageResultType`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApplyOutcome {
    /// Newer timestamp (or nothing stored): the state changed.
    AcceptedNewer,
    /// Equal timestamps and the incoming data is greater: the state changed.
    AcceptedGreaterData,
    /// Older timestamp: ignored; `reply` carries our state back to the outdated sender.
    IgnoredOlder { reply: CrdtMessage },
    /// Equal timestamps and our data is greater: ignored; `reply` corrects the sender.
    IgnoredSmallerData { reply: CrdtMessage },
    /// Equal timestamp and equal data, or a delete of nothing: nothing to do.
    IgnoredEqual,
    /// The entity's number was deleted at this version or a later one.
    IgnoredDeletedEntity,
    /// A PUT/DELETE for a grow-only set, or an APPEND for a last-writer-wins component: the
    /// reference ignores it without an answer.
    IgnoredWrongKind,
    /// A Transform PUT shorter than 44 bytes. (The reference throws while decoding it; we
    /// refuse the message and leave the state alone.)
    RejectedMalformedTransform { length: usize },
    /// A value was added to a grow-only set.
    Appended,
    /// DELETE_ENTITY: its components were removed. `announcements` are the DELETE_COMPONENT
    /// messages (timestamps bumped) that the runtime then broadcasts for each removed component.
    EntityDeleted { announcements: Vec<CrdtMessage> },
}

impl ApplyOutcome {
    /// True when the message changed the state.
    pub fn changed_state(&self) -> bool {
        matches!(
            self,
            Self::AcceptedNewer
                | Self::AcceptedGreaterData
                | Self::Appended
                | Self::EntityDeleted { .. }
        )
    }

    /// The message to send back to the sender, if the protocol answers one.
    pub fn reply(&self) -> Option<&CrdtMessage> {
        match self {
            Self::IgnoredOlder { reply } | Self::IgnoredSmallerData { reply } => Some(reply),
            _ => None,
        }
    }

    /// A short name for logs and the peers panel.
    pub fn label(&self) -> &'static str {
        match self {
            Self::AcceptedNewer => "accepted (newer timestamp)",
            Self::AcceptedGreaterData => "accepted (equal timestamp, greater data)",
            Self::IgnoredOlder { .. } => "ignored (older timestamp), replied",
            Self::IgnoredSmallerData { .. } => "ignored (equal timestamp, smaller data), replied",
            Self::IgnoredEqual => "ignored (same state)",
            Self::IgnoredDeletedEntity => "ignored (entity deleted)",
            Self::IgnoredWrongKind => "ignored (wrong component kind)",
            Self::RejectedMalformedTransform { .. } => "rejected (malformed Transform)",
            Self::Appended => "appended",
            Self::EntityDeleted { .. } => "entity deleted",
        }
    }
}

impl Replica {
    /// Applies a message received from another peer, with the reference's rules.
    ///
    /// *_NETWORK messages are applied to the entity they name: scenetree's peers share one
    /// entity space, so the network-id indirection of Decentraland's comms layer (which maps
    /// a remote entity to a locally allocated one) is not simulated.
    pub fn apply(&mut self, msg: &CrdtMessage) -> ApplyOutcome {
        match msg {
            CrdtMessage::DeleteEntity { entity }
            | CrdtMessage::DeleteEntityNetwork { entity, .. } => {
                let announcements = self.clear_entity_components(*entity);
                self.mark_deleted(*entity);
                ApplyOutcome::EntityDeleted { announcements }
            }
            CrdtMessage::PutComponent {
                entity,
                component,
                timestamp,
                data,
            }
            | CrdtMessage::PutComponentNetwork {
                entity,
                component,
                timestamp,
                data,
                ..
            } => self.apply_lww(*entity, *component, *timestamp, Some(data)),
            CrdtMessage::DeleteComponent {
                entity,
                component,
                timestamp,
            }
            | CrdtMessage::DeleteComponentNetwork {
                entity,
                component,
                timestamp,
                ..
            } => self.apply_lww(*entity, *component, *timestamp, None),
            CrdtMessage::AppendValue {
                entity,
                component,
                data,
                ..
            } => {
                if self.is_deleted(*entity) {
                    return ApplyOutcome::IgnoredDeletedEntity;
                }
                self.note_entity_used(*entity);
                if !component::is_grow_only(*component) {
                    return ApplyOutcome::IgnoredWrongKind;
                }
                self.push_value(*entity, *component, data.clone());
                ApplyOutcome::Appended
            }
        }
    }

    /// Applies messages in order, as [`Self::apply`] each, discarding the outcomes (replies,
    /// announcements): loading a file, catching up on a stream, a frame's worth of remote
    /// messages. Faster than one call per message: a Transform PUT (most messages) takes a
    /// path that decides and stores in one look at its register, and while one message is
    /// applied, the registers of the messages a few places ahead are loaded into the cache.
    pub fn apply_all<'a>(&mut self, messages: impl IntoIterator<Item = &'a CrdtMessage>) {
        /// Messages ahead whose registers are prefetched (twice as far: their index cells).
        const AHEAD: usize = 8;
        const WINDOW: usize = 2 * AHEAD;
        let is_transform = |m: &CrdtMessage| m.component() == Some(Transform::COMPONENT_ID);
        let mut messages = messages.into_iter();
        // A ring of the next messages; `WINDOW` is a power of two.
        let mut window: [Option<&CrdtMessage>; WINDOW] = [None; WINDOW];
        for slot in &mut window {
            *slot = messages.next();
            if let Some(far) = *slot
                && is_transform(far)
            {
                self.transforms.prefetch_lookup(far.entity());
            }
        }
        let mut at = 0;
        while let Some(msg) = window[at % WINDOW] {
            let far = messages.next();
            if let Some(far) = far
                && is_transform(far)
            {
                self.transforms.prefetch_lookup(far.entity());
            }
            window[at % WINDOW] = far;
            if let Some(near) = window[(at + AHEAD) % WINDOW]
                && is_transform(near)
            {
                self.transforms.prefetch_register(near.entity());
                if let Some(first) = near.data().and_then(<[u8]>::first) {
                    crate::model::prefetch(first);
                }
            }
            match msg {
                CrdtMessage::PutComponent {
                    entity,
                    component: Transform::COMPONENT_ID,
                    timestamp,
                    data,
                } => self.receive_transform_put(*entity, *timestamp, data),
                _ => {
                    self.apply(msg);
                }
            }
            at += 1;
        }
    }

    /// [`Self::apply`] of a Transform PUT, without building its outcome: the same decision
    /// (tested against `apply` in `tests/crdt`), taken and stored with one lookup.
    #[inline]
    pub fn receive_transform_put(&mut self, entity: Entity, timestamp: u32, data: &[u8]) {
        if self.is_deleted(entity) {
            return;
        }
        self.note_entity_used(entity);
        let Some(incoming) = data.first_chunk::<{ Transform::BYTE_LEN }>() else {
            return; // malformed: refused, as `apply` does
        };
        let row = self.transforms.row_mut(entity);
        let accept = if row.timestamp != timestamp {
            // A new row has timestamp 0 and no value: any write is newer... except one with
            // timestamp 0, which `apply` accepts as well (nothing stored yet) below.
            row.timestamp < timestamp
        } else if row.present {
            compare_data(Some(&row.value), Some(data)) == Ordering::Less
        } else {
            true // a tombstone (or nothing) at the same timestamp loses to any data
        };
        if !accept {
            return;
        }
        let had = std::mem::replace(&mut row.present, true);
        row.timestamp = timestamp;
        // Canonicalized in place: a copy through the stack cost as much as the decision.
        row.value = *incoming;
        quiet_signalling_nans(&mut row.value);
        if !had {
            self.adjust_live(entity, 1);
        }
        self.journal.push(entity);
    }

    fn apply_lww(
        &mut self,
        entity: Entity,
        component: u32,
        timestamp: u32,
        incoming: Option<&[u8]>,
    ) -> ApplyOutcome {
        if self.is_deleted(entity) {
            return ApplyOutcome::IgnoredDeletedEntity;
        }
        self.note_entity_used(entity);
        if component::is_grow_only(component) {
            return ApplyOutcome::IgnoredWrongKind;
        }
        // A Transform is stored as the reference re-encodes it; a short one is refused.
        let canonical = match incoming {
            Some(data) if component == Transform::COMPONENT_ID => {
                match canonical_transform_bytes(data) {
                    Some(canonical) => Some(canonical),
                    None => return ApplyOutcome::RejectedMalformedTransform { length: data.len() },
                }
            }
            _ => None,
        };
        let current = self.lww_entry(entity, component);
        let outcome = match current {
            None => ApplyOutcome::AcceptedNewer,
            Some(cur) if cur.timestamp < timestamp => ApplyOutcome::AcceptedNewer,
            Some(cur) if cur.timestamp > timestamp => ApplyOutcome::IgnoredOlder {
                reply: Self::state_message(entity, component, cur),
            },
            Some(cur) => {
                // Equal timestamps: deletes of nothing are idempotent, otherwise the greater
                // serialized value wins ("no data" < any data, longer > shorter, then bytes).
                if incoming.is_none() && cur.data.is_none() {
                    ApplyOutcome::IgnoredEqual
                } else {
                    match compare_data(cur.data, incoming) {
                        Ordering::Equal => ApplyOutcome::IgnoredEqual,
                        Ordering::Greater => ApplyOutcome::IgnoredSmallerData {
                            reply: Self::state_message(entity, component, cur),
                        },
                        Ordering::Less => ApplyOutcome::AcceptedGreaterData,
                    }
                }
            }
        };
        if outcome.changed_state() {
            if component == Transform::COMPONENT_ID {
                self.store_transform(entity, timestamp, canonical.as_ref());
            } else {
                self.store(entity, component, timestamp, incoming);
            }
        }
        outcome
    }

    /// Our state of one register as the message the reference answers with.
    pub(super) fn state_message(
        entity: Entity,
        component: u32,
        entry: LwwEntry<'_>,
    ) -> CrdtMessage {
        match entry.data {
            Some(data) => CrdtMessage::PutComponent {
                entity,
                component,
                timestamp: entry.timestamp,
                data: data.to_vec(),
            },
            None => CrdtMessage::DeleteComponent {
                entity,
                component,
                timestamp: entry.timestamp,
            },
        }
    }
}

/// The reference's `dataCompare` on serialized values: `None` < any data, then the longer is
/// greater, then byte by byte.
pub fn compare_data(ours: Option<&[u8]>, theirs: Option<&[u8]>) -> Ordering {
    match (ours, theirs) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
    }
}

/// The bytes the reference stores for an incoming Transform: it decodes the first 44 bytes
/// into JS numbers and encodes them again, which drops trailing bytes and quiets signalling
/// NaNs (sets the top mantissa bit) while keeping every other bit. `None` for fewer than 44
/// bytes, on which the reference throws.
#[inline]
pub fn canonical_transform_bytes(data: &[u8]) -> Option<[u8; Transform::BYTE_LEN]> {
    let mut out = *data.first_chunk::<{ Transform::BYTE_LEN }>()?;
    quiet_signalling_nans(&mut out);
    Some(out)
}

/// Sets the quiet bit of every NaN among a Transform's ten `f32` (bytes 0..40), in place. No
/// branch per float, so the loop compiles to a few SIMD instructions: it runs for every
/// Transform a peer sends.
#[inline]
fn quiet_signalling_nans(bytes: &mut [u8; Transform::BYTE_LEN]) {
    let (floats, _parent) = bytes.as_chunks_mut::<4>();
    for chunk in &mut floats[..10] {
        let bits = u32::from_le_bytes(*chunk);
        // A NaN's magnitude bits lie above infinity's (exponent all ones, mantissa non-zero).
        let is_nan = bits & 0x7FFF_FFFF > 0x7F80_0000;
        *chunk = (bits | (u32::from(is_nan) << 22)).to_le_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(floats: [u32; 10], parent: u32) -> [u8; Transform::BYTE_LEN] {
        let mut out = [0; Transform::BYTE_LEN];
        for (chunk, bits) in out.as_chunks_mut::<4>().0.iter_mut().zip(floats) {
            *chunk = bits.to_le_bytes();
        }
        out[40..].copy_from_slice(&parent.to_le_bytes());
        out
    }

    #[test]
    fn only_signalling_nans_change_and_the_parent_never_does() {
        let given = [
            0x7F80_0001, // signalling NaN
            0xFF80_0001, // negative signalling NaN
            0x7FBF_FFFF, // the largest signalling NaN
            0x7FC0_0000, // quiet NaN
            0x7F80_0000, // +infinity
            0xFF80_0000, // -infinity
            0x7F7F_FFFF, // the largest finite
            0x0000_0001, // the smallest subnormal
            0x8000_0000, // -0
            0x3F80_0000, // 1.0
        ];
        let expected = [
            0x7FC0_0001,
            0xFFC0_0001,
            0x7FFF_FFFF,
            0x7FC0_0000,
            0x7F80_0000,
            0xFF80_0000,
            0x7F7F_FFFF,
            0x0000_0001,
            0x8000_0000,
            0x3F80_0000,
        ];
        // The parent's bytes read as a signalling NaN, and are an entity id all the same.
        let mut data = bytes_of(given, 0x7F80_0001).to_vec();
        data.extend_from_slice(&[9, 9]); // trailing bytes are dropped
        assert_eq!(
            canonical_transform_bytes(&data),
            Some(bytes_of(expected, 0x7F80_0001))
        );
        assert_eq!(canonical_transform_bytes(&data[..43]), None);
    }
}
