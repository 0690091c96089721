//! Decentraland's `main.crdt`: a stream of CRDT messages, read into a replica and written back
//! either as the canonical stream or in the order of the file it was read from.
//!
//! The SDK writes `main.crdt` as PUT_COMPONENT messages grouped by component, in the order its
//! engine holds them, not in scenetree's canonical order. To save a file that was opened and
//! not edited byte for byte, [`CrdtLayout`] records the file's order at load and
//! [`to_crdt_bytes_in_layout`] writes the replica in it.

use std::collections::HashMap;
use std::path::Path;

use super::error::{LoadError, Location};
use scenetree_core::crdt::{
    CrdtMessage, DecodeError, Replica, decode_state_stream, decode_state_stream_prefix,
    encode_stream,
};
use scenetree_core::model::Entity;

/// A `main.crdt` read into memory.
#[derive(Debug)]
pub struct CrdtFile {
    /// The messages as they appear in the file.
    pub messages: Vec<CrdtMessage>,
    /// Unknown message types skipped while reading: (byte offset, type).
    pub skipped_unknown: Vec<(usize, u32)>,
}

/// Decodes the bytes of a `.crdt` file; errors name the file and the byte offset. A value
/// Decentraland's runtime cannot read (a Transform shorter than 44 bytes) is refused like a
/// truncated message: the runtime throws on it, and a replica would lose it without a word.
pub fn parse_crdt(path: &Path, bytes: &[u8]) -> Result<CrdtFile, LoadError> {
    let decoded = decode_state_stream(bytes).map_err(|e| LoadError {
        path: path.to_path_buf(),
        location: Location::Byte(e.offset),
        message: e.kind.to_string(),
    })?;
    Ok(CrdtFile {
        messages: decoded.messages,
        skipped_unknown: decoded.skipped_unknown,
    })
}

/// The readable start of a damaged `.crdt` stream (see [`readable_start`]).
#[derive(Debug)]
pub struct DamagedCrdt {
    /// The messages before the damage, in file order, and the unknown types skipped there.
    pub before: CrdtFile,
    /// Why the stream cannot be read whole: the first undecodable message and its offset.
    pub damage: DecodeError,
    /// The length of the whole stream in bytes.
    pub len: usize,
}

/// The messages of a damaged stream before its first undecodable message; `None` when the
/// stream decodes whole. The reference runtime reads a truncated `main.crdt` this way without a
/// word; scenetree refuses the file and offers this start only once it has said what is lost.
pub fn readable_start(bytes: &[u8]) -> Option<DamagedCrdt> {
    let (decoded, damage) = decode_state_stream_prefix(bytes);
    Some(DamagedCrdt {
        before: CrdtFile {
            messages: decoded.messages,
            skipped_unknown: decoded.skipped_unknown,
        },
        damage: damage?,
        len: bytes.len(),
    })
}

/// Reads and decodes a `.crdt` file.
pub fn read_crdt(path: &Path) -> Result<CrdtFile, LoadError> {
    let bytes =
        std::fs::read(path).map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    parse_crdt(path, &bytes)
}

/// Applies a file's messages, in order, to a fresh replica.
pub fn load_replica(path: &Path) -> Result<Replica, LoadError> {
    Ok(Replica::from_messages(&read_crdt(path)?.messages))
}

/// The canonical `main.crdt` bytes of a replica (see [`Replica::canonical_messages`]):
/// values and deleted entities, without tombstones.
pub fn to_crdt_bytes(replica: &Replica) -> Vec<u8> {
    encode_stream(&replica.canonical_messages())
}

/// The replica's complete state as a stream, in canonical order (by entity, then component):
/// PUT_COMPONENT per value, DELETE_COMPONENT per tombstone (with its timestamp),
/// APPEND_VALUE per grow-only value, and DELETE_ENTITY per deleted entity after its own
/// registers. Reading it back gives the same state, tombstones included, which
/// [`to_crdt_bytes`] does not; the SDK's own state dump writes tombstones the same way. For a
/// state without tombstones the two are identical.
pub fn state_messages_in_order(replica: &Replica) -> Vec<CrdtMessage> {
    let mut keyed: Vec<(Entity, u32, CrdtMessage)> = replica
        .state_messages()
        .into_iter()
        .map(|m| (m.entity(), m.component().unwrap_or(0), m))
        .collect();
    for entity in replica.deleted_entities() {
        keyed.push((entity, u32::MAX, CrdtMessage::DeleteEntity { entity }));
    }
    // Stable: grow-only values keep their order.
    keyed.sort_by_key(|(e, c, _)| (*e, *c));
    keyed.into_iter().map(|(_, _, m)| m).collect()
}

/// The bytes of [`state_messages_in_order`]: what scenetree writes for a main.crdt that was
/// not read from a file.
pub fn to_state_crdt_bytes(replica: &Replica) -> Vec<u8> {
    encode_stream(&state_messages_in_order(replica))
}

/// The order of a `main.crdt`'s messages, captured when it is read, so that saving the same
/// state reproduces the file byte for byte.
///
/// It records, in file order, the first message of each register (entity, component), of each
/// grow-only set, and each DELETE_ENTITY. [`to_crdt_bytes_in_layout`] writes the replica's
/// complete state ([`state_messages_in_order`]): each register at its original place with its
/// current timestamp and value (a DELETE_COMPONENT where the value was removed since), then
/// everything the file did not have, in canonical order.
///
/// Byte-exact for files in which each register appears once, as the SDK writes them. A file
/// that repeats a register is written with one message for it (at its first place); *_NETWORK
/// messages are written as their plain forms, and unknown message types are not written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrdtLayout {
    items: Vec<LayoutItem>,
}

/// One place in a [`CrdtLayout`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum LayoutItem {
    /// A last-writer-wins register (a PUT or a DELETE_COMPONENT in the file).
    Register { entity: Entity, component: u32 },
    /// The values of a grow-only set.
    Appended { entity: Entity, component: u32 },
    /// A deleted entity (number and version).
    Deleted(Entity),
}

/// What a layout place or a canonical message is about, without its value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Register(Entity, u32),
    Appended(Entity, u32),
    Deleted(Entity),
}

impl LayoutItem {
    fn key(self) -> Key {
        match self {
            LayoutItem::Register { entity, component } => Key::Register(entity, component),
            LayoutItem::Appended { entity, component } => Key::Appended(entity, component),
            LayoutItem::Deleted(e) => Key::Deleted(e),
        }
    }
}

impl CrdtLayout {
    /// The layout of a message stream (in the order the messages appear).
    pub fn from_messages(messages: &[CrdtMessage]) -> CrdtLayout {
        let mut seen = std::collections::HashSet::new();
        let mut items = Vec::new();
        for msg in messages {
            let item = match *msg {
                CrdtMessage::PutComponent {
                    entity, component, ..
                }
                | CrdtMessage::PutComponentNetwork {
                    entity, component, ..
                }
                | CrdtMessage::DeleteComponent {
                    entity, component, ..
                }
                | CrdtMessage::DeleteComponentNetwork {
                    entity, component, ..
                } => LayoutItem::Register { entity, component },
                CrdtMessage::AppendValue {
                    entity, component, ..
                } => LayoutItem::Appended { entity, component },
                CrdtMessage::DeleteEntity { entity }
                | CrdtMessage::DeleteEntityNetwork { entity, .. } => LayoutItem::Deleted(entity),
            };
            if seen.insert(item.key()) {
                items.push(item);
            }
        }
        CrdtLayout { items }
    }

    /// A layout of PUTs only, one per (entity, component), in the given order (how the SDK
    /// writes a scene it built: see `CompositeDoc::sdk_crdt_layout`).
    pub fn from_registers(registers: impl IntoIterator<Item = (Entity, u32)>) -> CrdtLayout {
        let mut seen = std::collections::HashSet::new();
        let items = registers
            .into_iter()
            .map(|(entity, component)| LayoutItem::Register { entity, component })
            .filter(|item| seen.insert(item.key()))
            .collect();
        CrdtLayout { items }
    }

    /// The number of places recorded.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing was recorded (an empty file, or a scene not read from a main.crdt).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// The `main.crdt` bytes of a replica in a file's order (see [`CrdtLayout`]). With an empty
/// layout this is exactly [`to_state_crdt_bytes`].
pub fn to_crdt_bytes_in_layout(replica: &Replica, layout: &CrdtLayout) -> Vec<u8> {
    write_in_layout(&state_messages_in_order(replica), layout)
}

/// The `main.crdt` of a scene read from a main.composite, as the SDK writes it for the
/// composite (`scenetree convert`): the state in `layout` (see `CompositeDoc::sdk_crdt_layout`),
/// without a DELETE_ENTITY for the versions of a number retired because a later version of it
/// is in use. `@dcl/ecs` retires those in its entity container (`updateUsedEntity`) but never
/// writes them: it writes DELETE_ENTITY only for entities it removed, and its main.crdt of a
/// composite holds only the values (checked against it in `tests/files/dcl_oracle.rs`).
pub fn to_composite_crdt_bytes(replica: &Replica, layout: &CrdtLayout) -> Vec<u8> {
    let in_use: std::collections::HashSet<u16> =
        replica.live_entities().map(|e| e.number()).collect();
    let state: Vec<CrdtMessage> = state_messages_in_order(replica)
        .into_iter()
        .filter(|m| {
            !matches!(m, CrdtMessage::DeleteEntity { entity } if in_use.contains(&entity.number()))
        })
        .collect();
    write_in_layout(&state, layout)
}

/// The `main.crdt` the SDK builds from a project's composite, in a file's order: a PUT per
/// value, every one at timestamp 0 (`dumpEngineToCrdtCommands` in the SDK and the Inspector),
/// without the tombstones and deleted entities of [`to_crdt_bytes_in_layout`]. For a project
/// the composite is the scene and this file is derived from it, so a save matches what the
/// SDK's own build writes instead of churning the file with the editor's timestamps.
pub fn to_sdk_build_bytes(replica: &Replica, layout: &CrdtLayout) -> Vec<u8> {
    let puts: Vec<CrdtMessage> = state_messages_in_order(replica)
        .into_iter()
        .filter_map(|m| match m {
            CrdtMessage::PutComponent {
                entity,
                component,
                data,
                ..
            } => Some(CrdtMessage::PutComponent {
                entity,
                component,
                timestamp: 0,
                data,
            }),
            _ => None,
        })
        .collect();
    write_in_layout(&puts, layout)
}

/// `state` (in canonical order) written with each message at its place in `layout`, the rest
/// after, in their order.
fn write_in_layout(state: &[CrdtMessage], layout: &CrdtLayout) -> Vec<u8> {
    // State messages by what they are about; a grow-only set has several.
    let mut by_key: HashMap<Key, Vec<usize>> = HashMap::with_capacity(state.len());
    for (i, msg) in state.iter().enumerate() {
        let key = match *msg {
            CrdtMessage::DeleteEntity { entity } => Key::Deleted(entity),
            CrdtMessage::AppendValue {
                entity, component, ..
            } => Key::Appended(entity, component),
            ref m => Key::Register(m.entity(), m.component().unwrap_or(0)),
        };
        by_key.entry(key).or_default().push(i);
    }
    let mut written = vec![false; state.len()];
    let mut out = Vec::new();
    for item in &layout.items {
        for &i in by_key.get(&item.key()).map_or(&[][..], Vec::as_slice) {
            if !written[i] {
                state[i].encode_into(&mut out);
                written[i] = true;
            }
        }
    }
    for (msg, done) in state.iter().zip(&written) {
        if !done {
            msg.encode_into(&mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::crdt::decode_stream;

    fn put(entity: u32, component: u32, timestamp: u32, data: &[u8]) -> CrdtMessage {
        CrdtMessage::PutComponent {
            entity: Entity(entity),
            component,
            timestamp,
            data: data.to_vec(),
        }
    }

    #[test]
    fn a_stream_saves_back_in_its_own_order_with_tombstones_and_deletions() {
        let messages = vec![
            put(600, 7000, 3, &[1]),
            put(512, 7000, 0, &[2]),
            CrdtMessage::DeleteComponent {
                entity: Entity(513),
                component: 7000,
                timestamp: 4,
            },
            // A deleted entity as the runtime dumps it: its tombstones, then DELETE_ENTITY.
            CrdtMessage::DeleteComponent {
                entity: Entity(514),
                component: 7001,
                timestamp: 1,
            },
            CrdtMessage::DeleteEntity {
                entity: Entity(514),
            },
        ];
        let bytes = encode_stream(&messages);
        let replica = Replica::from_messages(&messages);
        let layout = CrdtLayout::from_messages(&messages);
        assert_eq!(to_crdt_bytes_in_layout(&replica, &layout), bytes);
        // The canonical state stream holds the same state in another order.
        let state = to_state_crdt_bytes(&replica);
        assert_ne!(state, bytes);
        let again = Replica::from_messages(&decode_stream(&state).unwrap().messages);
        assert_eq!(again.state_messages(), replica.state_messages());
    }

    #[test]
    fn edits_stay_in_place_removals_become_tombstones_and_new_values_follow() {
        let messages = vec![put(513, 1, 0, &[0; 44]), put(512, 7000, 0, &[1])];
        let mut replica = Replica::from_messages(&messages);
        let layout = CrdtLayout::from_messages(&messages);
        replica.put(Entity(512), 7000, vec![9]).unwrap();
        replica.delete_component(Entity(513), 1).unwrap();
        replica.put(Entity(700), 7000, vec![5]).unwrap();
        let out = decode_stream(&to_crdt_bytes_in_layout(&replica, &layout))
            .unwrap()
            .messages;
        assert_eq!(
            out,
            [
                CrdtMessage::DeleteComponent {
                    entity: Entity(513),
                    component: 1,
                    timestamp: 1
                },
                put(512, 7000, 1, &[9]),
                put(700, 7000, 1, &[5]),
            ]
        );
        // A register repeated in a file is written once, at its first place.
        let repeated = vec![put(512, 7000, 0, &[1]), put(512, 7000, 2, &[2])];
        let r = Replica::from_messages(&repeated);
        let once = to_crdt_bytes_in_layout(&r, &CrdtLayout::from_messages(&repeated));
        assert_eq!(once, encode_stream(&[put(512, 7000, 2, &[2])]));
    }

    #[test]
    fn a_damaged_stream_offers_the_messages_before_the_damage_and_a_whole_one_nothing() {
        let messages = vec![
            put(512, 7000, 1, &[1, 2]),
            put(513, 7000, 2, &[3]),
            put(514, 7000, 3, &[4]),
        ];
        let bytes = encode_stream(&messages);
        assert!(
            readable_start(&bytes).is_none(),
            "a whole stream needs no salvage"
        );
        let third = encode_stream(&messages[..2]).len();
        for cut in [third + 3, third + 8, bytes.len() - 1] {
            let damaged = readable_start(&bytes[..cut]).expect("cut short");
            assert_eq!(damaged.before.messages, messages[..2], "cut at {cut}");
            assert_eq!(
                damaged.damage.offset, third,
                "the third message is the damaged one"
            );
            assert_eq!(damaged.len, cut);
        }
        let nothing = readable_start(&bytes[..5]).expect("a header cut short");
        assert!(nothing.before.messages.is_empty());
        assert_eq!(nothing.damage.offset, 0);
    }
}
