//! After a reconnect: which of this editor's writes the host does not have. The host may
//! have restarted (its timestamps start again from its file, and what it had not saved is
//! gone) or only dropped the connection (it kept everything it acknowledged); writes made
//! offline never reached it. Last-writer-wins makes sending a write twice harmless, so the
//! rule only has to avoid overwriting what someone else wrote later.

use rustc_hash::FxHashMap;

use scenetree_core::crdt::{CrdtMessage, Replica};
use scenetree_core::model::Entity;

/// This editor's last message per register (entity, component), kept for the whole session.
pub(super) type Authored = FxHashMap<(Entity, u32), CrdtMessage>;

/// The messages to send again, in (entity, component) order: every register whose last
/// value in this editor's replica before the reconnect (`before`) is still this editor's own
/// write (nobody wrote over it since), whose value the host's new snapshot (`host`) does not
/// hold, and where the host holds no newer timestamp (a newer one is someone else's later
/// write, which wins). A removal is sent again only where the host still holds a value.
pub(super) fn writes_to_resend(
    authored: &Authored,
    before: &Replica,
    host: &Replica,
) -> Vec<CrdtMessage> {
    let mut keys: Vec<&(Entity, u32)> = authored.keys().collect();
    keys.sort_unstable();
    let mut out = Vec::new();
    for key in keys {
        let message = &authored[key];
        let (entity, component) = *key;
        let Some(timestamp) = message.timestamp() else {
            continue;
        };
        let ours = message.data();
        let still_ours = before
            .lww_entry(entity, component)
            .is_some_and(|e| e.timestamp == timestamp && e.data == ours);
        if !still_ours {
            continue;
        }
        let wanted = match host.lww_entry(entity, component) {
            None => ours.is_some(),
            Some(held) => held.data != ours && held.timestamp <= timestamp,
        };
        if wanted {
            out.push(message.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::model::ids;

    fn put(entity: u32, timestamp: u32, value: &str) -> CrdtMessage {
        CrdtMessage::PutComponent {
            entity: Entity(entity),
            component: ids::NAME,
            timestamp,
            data: scenetree_core::model::encode_name(value),
        }
    }

    #[test]
    fn only_own_writes_the_host_lacks_go_again() {
        let mine = [
            put(512, 5, "ours"),
            put(513, 5, "ours"),
            put(514, 5, "ours"),
        ];
        let authored: Authored = mine
            .iter()
            .map(|m| ((m.entity(), ids::NAME), m.clone()))
            .collect();
        // 514 was overwritten by someone else before the connection dropped.
        let before = Replica::from_messages(&[mine[0].clone(), mine[1].clone(), put(514, 6, "x")]);
        // The host restarted: 512 lost (older timestamp), 513 saved (same value).
        let host = Replica::from_messages(&[put(512, 1, "old"), put(513, 1, "ours")]);
        assert_eq!(
            writes_to_resend(&authored, &before, &host),
            vec![mine[0].clone()]
        );
        // A host holding a newer value wins.
        let newer = Replica::from_messages(&[put(512, 9, "theirs"), put(513, 5, "ours")]);
        assert!(writes_to_resend(&authored, &before, &newer).is_empty());
    }
}
