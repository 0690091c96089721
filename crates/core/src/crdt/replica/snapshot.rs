//! Whole-state views: every register as messages, the canonical main.crdt, the state
//! [`Replica::digest`] covers message by message.

use super::Replica;
use crate::crdt::message::CrdtMessage;
use crate::model::Entity;

impl Replica {
    /// Every register as a message, sorted by (component, entity): PUT for values,
    /// DELETE_COMPONENT for tombstones, APPEND_VALUE (timestamp 0) for grow-only values.
    /// This is the complete LWW state, tombstones included; [`Self::digest`] hashes it.
    pub fn state_messages(&self) -> Vec<CrdtMessage> {
        let mut out = Vec::new();
        self.each_state_message(|msg| out.push(msg));
        out
    }

    /// [`Self::state_messages`] one at a time, without collecting them (a large scene's state
    /// is hundreds of thousands of messages).
    fn each_state_message(&self, mut visit: impl FnMut(CrdtMessage)) {
        let mut components: Vec<u32> = self
            .lww_components()
            .chain(self.grow_only.keys().copied())
            .collect();
        components.sort_unstable();
        components.dedup();
        for component in components {
            let mut registers = self.registers(component);
            registers.sort_unstable_by_key(|(e, _)| *e);
            for (e, entry) in registers {
                visit(Self::state_message(e, component, entry));
            }
            if let Some(rows) = self.grow_only.get(&component) {
                let mut entities: Vec<&Entity> = rows.keys().collect();
                entities.sort_unstable();
                for e in entities {
                    for data in &rows[e] {
                        visit(CrdtMessage::AppendValue {
                            entity: *e,
                            component,
                            timestamp: 0,
                            data: data.clone(),
                        });
                    }
                }
            }
        }
    }

    /// The canonical `main.crdt` of this state: one PUT_COMPONENT per live value (APPEND_VALUE
    /// per grow-only value) and one DELETE_ENTITY per deleted entity number (at its highest
    /// deleted version), sorted by entity then component. Tombstones are not written.
    pub fn canonical_messages(&self) -> Vec<CrdtMessage> {
        let mut keyed: Vec<(Entity, u32, CrdtMessage)> = Vec::new();
        for msg in self.state_messages() {
            if matches!(msg, CrdtMessage::DeleteComponent { .. }) {
                continue;
            }
            let component = msg.component().unwrap_or(0);
            keyed.push((msg.entity(), component, msg));
        }
        for entity in self.deleted_entities() {
            // After the entity's own components (there are none at that version), before the
            // next entity id.
            keyed.push((entity, u32::MAX, CrdtMessage::DeleteEntity { entity }));
        }
        // Stable sort: grow-only values keep their order.
        keyed.sort_by_key(|(e, c, _)| (*e, *c));
        keyed.into_iter().map(|(_, _, m)| m).collect()
    }

    /// Visits what [`Self::digest`] covers, one encoded message at a time with the entity it
    /// belongs to, sorted by (component, entity): each register and grow-only value of the
    /// entities that are not deleted, then a DELETE_ENTITY per deleted entity.
    pub fn for_each_digested(&self, mut visit: impl FnMut(Entity, &[u8])) {
        let mut bytes = Vec::new();
        self.each_state_message(|msg| {
            if !self.is_deleted(msg.entity()) {
                bytes.clear();
                msg.encode_into(&mut bytes);
                visit(msg.entity(), &bytes);
            }
        });
        for entity in self.deleted_entities() {
            bytes.clear();
            CrdtMessage::DeleteEntity { entity }.encode_into(&mut bytes);
            visit(entity, &bytes);
        }
    }

    /// Builds a replica by applying messages in order (replies are discarded).
    pub fn from_messages<'a>(messages: impl IntoIterator<Item = &'a CrdtMessage>) -> Replica {
        let mut replica = Replica::new();
        replica.apply_all(messages);
        replica
    }
}
