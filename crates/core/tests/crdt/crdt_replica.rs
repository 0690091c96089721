//! The last-writer-wins rules, Lamport timestamps, deletion rules, codec round trips and
//! convergence properties of the replica.

use proptest::prelude::*;
use scenetree_core::crdt::replica::canonical_transform_bytes;
use scenetree_core::crdt::{
    ApplyOutcome, CrdtMessage, DigestCache, Replica, decode_stream, encode_stream,
};
use scenetree_core::model::{Entity, Transform};

const OPAQUE: u32 = 5000;
/// A grow-only core component (`PointerEventsResult`).
const POINTER_EVENTS_RESULT: u32 = 1063;
const E: Entity = Entity(512);

fn put(ts: u32, data: &[u8]) -> CrdtMessage {
    CrdtMessage::PutComponent {
        entity: E,
        component: OPAQUE,
        timestamp: ts,
        data: data.to_vec(),
    }
}

fn del(ts: u32) -> CrdtMessage {
    CrdtMessage::DeleteComponent {
        entity: E,
        component: OPAQUE,
        timestamp: ts,
    }
}

#[test]
fn local_writes_tick_the_lamport_counter_from_one() {
    let mut r = Replica::new();
    assert_eq!(r.put(E, OPAQUE, vec![1]).unwrap().timestamp(), Some(1));
    assert_eq!(r.put(E, OPAQUE, vec![2]).unwrap().timestamp(), Some(2));
    assert_eq!(r.delete_component(E, OPAQUE).unwrap().timestamp(), Some(3));
    assert_eq!(
        r.delete_component(E, OPAQUE),
        None,
        "deleting nothing sends nothing"
    );
    assert_eq!(r.put(E, OPAQUE, vec![3]).unwrap().timestamp(), Some(4));
}

#[test]
fn a_newer_message_is_accepted_and_its_timestamp_stored() {
    let mut r = Replica::new();
    assert_eq!(r.apply(&put(5, b"a")), ApplyOutcome::AcceptedNewer);
    assert_eq!(r.timestamp(E, OPAQUE), 5);
    assert_eq!(
        r.put(E, OPAQUE, vec![]).unwrap().timestamp(),
        Some(6),
        "local writes continue from it"
    );
}

#[test]
fn an_older_message_is_answered_with_our_state() {
    let mut r = Replica::new();
    r.apply(&put(5, b"ours"));
    assert_eq!(
        r.apply(&put(4, b"theirs")),
        ApplyOutcome::IgnoredOlder {
            reply: put(5, b"ours")
        }
    );
    r.apply(&del(9));
    assert_eq!(
        r.apply(&put(8, b"x")),
        ApplyOutcome::IgnoredOlder { reply: del(9) },
        "a tombstone answers as a DELETE"
    );
    assert_eq!(r.component_data(E, OPAQUE), None);
}

#[test]
fn equal_timestamps_are_decided_by_the_data() {
    let mut r = Replica::new();
    r.apply(&put(3, b"bb"));
    // Longer wins over shorter, whatever the bytes.
    assert_eq!(
        r.apply(&put(3, b"z")),
        ApplyOutcome::IgnoredSmallerData {
            reply: put(3, b"bb")
        }
    );
    assert_eq!(r.apply(&put(3, b"aaa")), ApplyOutcome::AcceptedGreaterData);
    // Same length: byte order.
    assert_eq!(r.apply(&put(3, b"aab")), ApplyOutcome::AcceptedGreaterData);
    assert_eq!(r.apply(&put(3, b"aab")), ApplyOutcome::IgnoredEqual);
    assert_eq!(r.component_data(E, OPAQUE), Some(&b"aab"[..]));
}

#[test]
fn at_equal_timestamps_a_put_beats_a_delete() {
    let mut r = Replica::new();
    r.apply(&del(2));
    assert_eq!(
        r.apply(&del(2)),
        ApplyOutcome::IgnoredEqual,
        "deletes are idempotent"
    );
    assert_eq!(
        r.apply(&put(2, b"")),
        ApplyOutcome::AcceptedGreaterData,
        "even empty data beats no data"
    );
    assert_eq!(
        r.apply(&del(2)),
        ApplyOutcome::IgnoredSmallerData { reply: put(2, b"") }
    );
}

#[test]
fn delete_entity_retires_the_version_and_announces_component_deletes() {
    let mut r = Replica::new();
    r.apply(&put(4, b"v"));
    r.apply(&CrdtMessage::PutComponent {
        entity: E,
        component: 1,
        timestamp: 1,
        data: Transform::IDENTITY.to_bytes().to_vec(),
    });
    let outcome = r.apply(&CrdtMessage::DeleteEntity { entity: E });
    assert_eq!(
        outcome,
        ApplyOutcome::EntityDeleted {
            announcements: vec![
                CrdtMessage::DeleteComponent {
                    entity: E,
                    component: 1,
                    timestamp: 2
                },
                CrdtMessage::DeleteComponent {
                    entity: E,
                    component: OPAQUE,
                    timestamp: 5
                },
            ]
        }
    );
    assert!(!r.is_live(E));
    assert!(r.is_deleted(E));
    assert_eq!(
        r.apply(&put(100, b"late")),
        ApplyOutcome::IgnoredDeletedEntity,
        "a late put for the old version"
    );
    assert!(
        r.put(E, OPAQUE, vec![1]).is_err(),
        "local writes to a deleted entity are refused"
    );
    // The number comes back at the next version.
    let reborn = Entity::from_parts(512, 1);
    assert!(r.put(reborn, OPAQUE, vec![1]).is_ok());
    assert_eq!(r.deleted_entities(), vec![E]);
}

#[test]
fn a_message_for_a_newer_version_retires_older_ones() {
    let mut r = Replica::new();
    let v2 = Entity::from_parts(600, 2);
    r.apply(&CrdtMessage::PutComponent {
        entity: v2,
        component: OPAQUE,
        timestamp: 1,
        data: vec![],
    });
    assert!(r.is_deleted(Entity::from_parts(600, 1)));
    assert!(r.is_deleted(Entity::from_parts(600, 0)));
    assert!(!r.is_deleted(v2));
}

#[test]
fn reserved_entities_are_never_tombstoned() {
    let mut r = Replica::new();
    let avatar = Entity(7);
    r.apply(&CrdtMessage::PutComponent {
        entity: avatar,
        component: OPAQUE,
        timestamp: 1,
        data: vec![1],
    });
    r.apply(&CrdtMessage::DeleteEntity { entity: avatar });
    assert!(!r.is_deleted(avatar));
    assert_eq!(r.component_data(avatar, OPAQUE), None);
    assert_eq!(
        r.apply(&CrdtMessage::PutComponent {
            entity: avatar,
            component: OPAQUE,
            timestamp: 3,
            data: vec![2]
        }),
        ApplyOutcome::AcceptedNewer
    );
    assert!(r.delete_entity(Entity::ROOT).is_err());
}

#[test]
fn a_short_transform_is_refused_and_a_long_one_trimmed() {
    let mut r = Replica::new();
    let short = CrdtMessage::PutComponent {
        entity: E,
        component: 1,
        timestamp: 1,
        data: vec![0; 43],
    };
    assert_eq!(
        r.apply(&short),
        ApplyOutcome::RejectedMalformedTransform { length: 43 }
    );
    assert!(!r.is_live(E));
    let mut long = Transform::IDENTITY.to_bytes().to_vec();
    long.extend_from_slice(&[9, 9]);
    r.apply(&CrdtMessage::PutComponent {
        entity: E,
        component: 1,
        timestamp: 1,
        data: long,
    });
    assert_eq!(r.component_data(E, 1).unwrap().len(), 44);
    assert_eq!(r.transform(E), Some(Transform::IDENTITY));
    // The re-encoding itself is total: a short value has none instead of a panic.
    assert_eq!(canonical_transform_bytes(&[0; 43]), None);
    assert_eq!(
        canonical_transform_bytes(&r.transform(E).unwrap().to_bytes()),
        Some(Transform::IDENTITY.to_bytes())
    );
}

#[test]
fn grow_only_components_append_and_ignore_puts() {
    let mut r = Replica::new();
    let pointer_events_result = 1063;
    for i in 0..105u8 {
        assert_eq!(
            r.apply(&CrdtMessage::AppendValue {
                entity: E,
                component: pointer_events_result,
                timestamp: 0,
                data: vec![i]
            }),
            ApplyOutcome::Appended
        );
    }
    let values = r.grow_only_values(E, pointer_events_result);
    assert_eq!(values.len(), 100, "capped like the reference");
    assert_eq!(values[0], vec![5], "the oldest values are dropped first");
    assert_eq!(
        r.apply(&CrdtMessage::PutComponent {
            entity: E,
            component: pointer_events_result,
            timestamp: 9,
            data: vec![]
        }),
        ApplyOutcome::IgnoredWrongKind
    );
    assert_eq!(
        r.apply(&CrdtMessage::AppendValue {
            entity: E,
            component: OPAQUE,
            timestamp: 0,
            data: vec![]
        }),
        ApplyOutcome::IgnoredWrongKind
    );
}

#[test]
fn the_canonical_file_rebuilds_the_same_live_state() {
    let mut r = Replica::new();
    r.put(E, OPAQUE, vec![1, 2]).unwrap();
    r.put(Entity(513), 1, Transform::IDENTITY.to_bytes().to_vec())
        .unwrap();
    r.put(Entity(514), OPAQUE, vec![3]).unwrap();
    r.delete_entity(Entity(514)).unwrap();
    let canonical = r.canonical_messages();
    let kinds: Vec<_> = canonical
        .iter()
        .map(|m| (m.message_type().name(), m.entity().0))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("PUT_COMPONENT", 512),
            ("PUT_COMPONENT", 513),
            ("DELETE_ENTITY", 514)
        ]
    );
    let again = Replica::from_messages(&canonical);
    assert_eq!(again.canonical_messages(), canonical);
}

// ----- properties -------------------------------------------------------------------------------

fn arb_message() -> impl Strategy<Value = CrdtMessage> {
    let entity = (0u32..4, 0u32..2).prop_map(|(n, v)| Entity((512 + n) | (v << 16)));
    let component = prop::sample::select(vec![1u32, OPAQUE, 6000]);
    let data = |component: u32| -> BoxedStrategy<Vec<u8>> {
        if component == 1 {
            prop::collection::vec(0u8..3, 44).boxed()
        } else {
            prop::collection::vec(0u8..3, 0..4).boxed()
        }
    };
    prop_oneof![
        6 => (entity.clone(), component.clone(), 0u32..5).prop_flat_map(move |(e, c, t)| {
            data(c).prop_map(move |d| CrdtMessage::PutComponent { entity: e, component: c, timestamp: t, data: d })
        }),
        2 => (entity.clone(), component, 0u32..5)
            .prop_map(|(e, c, t)| CrdtMessage::DeleteComponent { entity: e, component: c, timestamp: t }),
        1 => entity.prop_map(|e| CrdtMessage::DeleteEntity { entity: e }),
    ]
}

/// One change to a replica: a received message or one of its own writes.
#[derive(Clone, Debug)]
enum Change {
    Receive(CrdtMessage),
    Put(Entity, u32, Vec<u8>),
    DeleteComponent(Entity, u32),
    DeleteEntity(Entity),
    /// `rewrite_unsent` of a register with a value (or none) and a timestamp.
    Rewrite(Entity, u32, Option<Vec<u8>>, u32),
}

impl Change {
    /// Applies it; refused local writes change nothing, as the network relies on.
    fn apply(&self, replica: &mut Replica) {
        match self.clone() {
            Change::Receive(m) => {
                replica.apply(&m);
            }
            Change::Put(e, c, data) => {
                let _ = replica.put(e, c, data);
            }
            Change::DeleteComponent(e, c) => {
                replica.delete_component(e, c);
            }
            Change::DeleteEntity(e) => {
                let _ = replica.delete_entity(e);
            }
            Change::Rewrite(e, c, value, ts) => {
                let _ = replica.rewrite_unsent(e, c, value, ts);
            }
        }
    }
}

fn arb_change() -> impl Strategy<Value = Change> {
    let entity = (0u32..4, 0u32..3).prop_map(|(n, v)| Entity((512 + n) | (v << 16)));
    let component = prop::sample::select(vec![1u32, OPAQUE]);
    let value = |c: u32, x: u8| if c == 1 { vec![x; 44] } else { vec![x] };
    prop_oneof![
        6 => arb_message().prop_map(Change::Receive),
        2 => (entity.clone(), 0u8..4).prop_map(|(entity, x)| Change::Receive(
            CrdtMessage::AppendValue {
                entity,
                component: POINTER_EVENTS_RESULT,
                timestamp: 0,
                data: vec![x],
            }
        )),
        2 => (entity.clone(), component.clone(), 0u8..3)
            .prop_map(move |(e, c, x)| Change::Put(e, c, value(c, x))),
        1 => (entity.clone(), component.clone()).prop_map(|(e, c)| Change::DeleteComponent(e, c)),
        1 => entity.clone().prop_map(Change::DeleteEntity),
        1 => (entity, component, prop::option::of(0u8..3), 0u32..6).prop_map(
            move |(e, c, x, ts)| Change::Rewrite(e, c, x.map(|x| value(c, x)), ts)
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Any delivery order of the same set of messages, with duplicates, ends in one state.
    #[test]
    fn any_order_with_duplicates_converges_to_one_digest(
        messages in prop::collection::vec(arb_message(), 1..30),
        order in prop::collection::vec(any::<prop::sample::Index>(), 0..60),
        seed in any::<u64>(),
    ) {
        // A well-formed history: version 1 of a number exists only after version 0 was deleted,
        // so the DELETE_ENTITY of version 0 is part of the set.
        let mut messages = messages;
        let mut retired: Vec<u16> = messages.iter().map(|m| m.entity()).filter(|e| e.version() > 0).map(|e| e.number()).collect();
        retired.sort_unstable();
        retired.dedup();
        messages.extend(retired.into_iter().map(|n| CrdtMessage::DeleteEntity { entity: Entity::from_parts(n, 0) }));
        let reference = Replica::from_messages(&messages).digest();
        // A shuffled copy of every message plus random duplicates.
        let mut shuffled: Vec<&CrdtMessage> = messages.iter().collect();
        let mut s = seed;
        for i in (1..shuffled.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shuffled.swap(i, (s >> 33) as usize % (i + 1));
        }
        for idx in &order {
            shuffled.push(idx.get(&messages));
        }
        let replica = Replica::from_messages(shuffled.iter().copied());
        prop_assert_eq!(replica.digest(), reference);
    }

    /// `apply_all` (which takes a path of its own for Transform PUTs) ends in the state that
    /// `apply` one message at a time reaches: same registers, same live entities, same journal.
    /// Transform values here are short, exact or long, some with signalling NaNs, so every
    /// branch of the rule (older, newer, equal with smaller, greater or equal data, after a
    /// tombstone, deleted entity, malformed) is taken.
    #[test]
    fn apply_all_matches_apply_one_by_one(
        messages in prop::collection::vec(prop_oneof![
            3 => arb_message(),
            2 => ((0u32..4, 0u32..2), 0u32..4, 42usize..47, 0u8..3).prop_map(|((n, v), t, len, fill)| {
                let mut data = vec![fill; len];
                if fill == 2 && len >= 4 {
                    data[..4].copy_from_slice(&0x7F80_0001u32.to_le_bytes()); // a signalling NaN
                }
                CrdtMessage::PutComponent { entity: Entity((512 + n) | (v << 16)), component: 1, timestamp: t, data }
            }),
        ], 1..40),
    ) {
        let mut one_by_one = Replica::new();
        for m in &messages {
            one_by_one.apply(m);
        }
        let all = Replica::from_messages(&messages);
        prop_assert_eq!(all.state_messages(), one_by_one.state_messages());
        prop_assert_eq!(all.deleted_entities(), one_by_one.deleted_entities());
        let live = |r: &Replica| { let mut v: Vec<Entity> = r.live_entities().collect(); v.sort(); v };
        prop_assert_eq!(live(&all), live(&one_by_one));
        prop_assert_eq!(all.changes_since(0).entities, one_by_one.changes_since(0).entities);
    }

    /// The digest a cache keeps through a replica's changes (received values, tombstones,
    /// deleted entities, newer versions retiring older ones, grow-only values past their cap,
    /// local writes and rewrites of unsent ones, the cache skipping some states, a clone
    /// taking over) is the whole state's digest, computed from scratch, each time.
    #[test]
    fn the_digest_cache_follows_every_change(
        changes in prop::collection::vec(arb_change(), 1..160),
        skips in prop::collection::vec(any::<bool>(), 160),
        clone_at in 0usize..160,
    ) {
        let mut replica = Replica::new();
        let mut cache = DigestCache::new();
        for (i, change) in changes.iter().enumerate() {
            change.apply(&mut replica);
            if i == clone_at {
                replica = replica.clone();
            }
            if skips[i] {
                continue;
            }
            prop_assert_eq!(cache.digest(&replica), replica.digest(), "after change {}", i);
        }
        prop_assert_eq!(cache.digest(&replica), replica.digest());
    }

    /// Decoding what we encode gives the same messages, and re-encoding the same bytes.
    #[test]
    fn encode_decode_round_trip(messages in prop::collection::vec(arb_message(), 0..20)) {
        let bytes = encode_stream(&messages);
        let decoded = decode_stream(&bytes).unwrap();
        prop_assert_eq!(&decoded.messages, &messages);
        prop_assert_eq!(encode_stream(&decoded.messages), bytes);
    }

    /// Arbitrary bytes never panic the decoder, and a clean decode re-encodes to the input.
    #[test]
    fn random_bytes_decode_or_fail_cleanly(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(decoded) = decode_stream(&bytes)
            && decoded.skipped_unknown.is_empty() {
                prop_assert_eq!(encode_stream(&decoded.messages), bytes);
            }
    }
}

#[test]
fn a_grow_only_set_in_another_order_has_another_digest() {
    let append = |x: u8| CrdtMessage::AppendValue {
        entity: E,
        component: POINTER_EVENTS_RESULT,
        timestamp: 0,
        data: vec![x],
    };
    let ab = Replica::from_messages(&[append(1), append(2)]);
    let ba = Replica::from_messages(&[append(2), append(1)]);
    assert_ne!(ab.digest(), ba.digest());
}

#[test]
fn digests_differ_when_states_differ() {
    let a = Replica::from_messages(&[put(1, b"a")]);
    let b = Replica::from_messages(&[put(1, b"b")]);
    let c = Replica::from_messages(&[put(2, b"a")]);
    let d = Replica::from_messages(&[
        put(1, b"a"),
        CrdtMessage::DeleteEntity {
            entity: Entity(900),
        },
    ]);
    let digests = [a.digest(), b.digest(), c.digest(), d.digest()];
    for i in 0..4 {
        for j in 0..i {
            assert_ne!(digests[i], digests[j], "{i} vs {j}");
        }
    }
}

#[test]
fn a_cursor_past_the_end_of_the_journal_asks_for_a_rebuild_instead_of_panicking() {
    let mut r = Replica::new();
    r.put(E, OPAQUE, vec![1]).unwrap();
    assert!(r.changes_since(u64::MAX).entities.is_none());
    assert_eq!(r.changes_since(0).entities.map(<[_]>::len), Some(1));
    assert_eq!(r.changes_since(1).entities.map(<[_]>::len), Some(0));
}

#[test]
fn clock_and_version_follow_the_state() {
    let mut r = Replica::new();
    assert_eq!(r.clock(), 0);
    let empty = r.version();
    r.apply(&put(7, b"x"));
    assert_eq!(r.clock(), 7);
    let after = r.version();
    assert_ne!(after, empty);
    r.apply(&put(3, b"old")); // ignored: nothing changed
    assert_eq!(r.version(), after);
    assert_ne!(r.clone().version(), after, "a clone is another instance");
}

#[test]
fn free_entities_skip_live_and_taken_numbers_and_reuse_deleted_ones_at_the_next_version() {
    let mut r = Replica::new();
    r.put(Entity(512), OPAQUE, vec![]).unwrap();
    r.put(Entity(514), OPAQUE, vec![]).unwrap();
    r.delete_entity(Entity(514)).unwrap();
    let free = r.free_entities(3, |n| n == 513);
    assert_eq!(
        free,
        vec![Entity::from_parts(514, 1), Entity(515), Entity(516)]
    );
    assert_eq!(r.allocate_entity(), Some(Entity(513)));
}
