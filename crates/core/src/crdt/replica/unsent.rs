//! Rewriting a local write that has not been sent yet, as the reference runtime does within
//! one tick.
//!
//! `@dcl/ecs` does not send a write when it is made: it marks the (entity, component) dirty,
//! and at the end of the engine tick sends one message per dirty register with its value at
//! that moment and its timestamp bumped once (`getCrdtUpdates` of a last-writer-wins
//! component). However often a value changes within a tick, peers see one message, one
//! timestamp step later. [`Replica::rewrite_unsent`] gives the simulated network that rule.

use super::Replica;
use super::write::WriteError;
use crate::crdt::message::CrdtMessage;
use crate::model::Entity;

impl Replica {
    /// Replaces the value of a register this replica wrote itself earlier in the same tick,
    /// whose message has not been sent: the register takes `value` (`None` removes the
    /// component) and keeps `timestamp`, the one that earlier write gave it. Returns the
    /// message to send instead of the earlier one, or `None` when removing a value that is
    /// already removed. Refused like [`Replica::put`] (a deleted entity, a grow-only component,
    /// a Transform that is not 44 bytes); a refused rewrite changes nothing.
    pub fn rewrite_unsent(
        &mut self,
        entity: Entity,
        component: u32,
        value: Option<Vec<u8>>,
        timestamp: u32,
    ) -> Result<Option<CrdtMessage>, WriteError> {
        match value {
            Some(data) => {
                // `put` checks and canonicalizes the value (and bumps the timestamp, which
                // the store below sets back: the bump happens once per tick, when sending).
                let message = self.put(entity, component, data)?;
                let CrdtMessage::PutComponent { data, .. } = message else {
                    unreachable!("a local put always yields PUT_COMPONENT");
                };
                self.store(entity, component, timestamp, Some(&data));
                Ok(Some(CrdtMessage::PutComponent {
                    entity,
                    component,
                    timestamp,
                    data,
                }))
            }
            None => {
                if self.delete_component(entity, component).is_none() {
                    return Ok(None);
                }
                self.store(entity, component, timestamp, None);
                Ok(Some(CrdtMessage::DeleteComponent {
                    entity,
                    component,
                    timestamp,
                }))
            }
        }
    }
}
