//! The simulated network: delivery, replies, announcements, offline peers, drops, duplicates,
//! reordering, auto-delivery and the timeline. Random runs are in `network_properties.rs`.

use scenetree_core::crdt::network::{MAX_PEERS, describe_message};
use scenetree_core::crdt::{
    ApplyOutcome, AutoDelivery, CrdtMessage, DeliveryOrder, EventKind, LocalWrite, MessageFilter,
    MessageId, MessageKind, Network, NetworkError, PeerId, Replica, WriteError, decode_stream,
};
use scenetree_core::model::{Entity, ids};
use scenetree_core::scene::SceneView;

use crate::furnished;
use furnished::*;

fn ids_of(net: &Network) -> Vec<u64> {
    net.in_flight().iter().map(|m| m.id.0).collect()
}

#[test]
fn a_network_holds_two_to_eight_peers() {
    let empty = Replica::new();
    assert_eq!(
        Network::new(1, 0, &empty).unwrap_err(),
        NetworkError::PeerCount(1)
    );
    assert_eq!(
        Network::new(9, 0, &empty).unwrap_err(),
        NetworkError::PeerCount(9)
    );
    let net = Network::new(MAX_PEERS, 0, &empty).unwrap();
    assert_eq!(
        net.peers().collect::<Vec<_>>(),
        (1..=8).map(PeerId).collect::<Vec<_>>()
    );
    assert!(matches!(
        net.replica(PeerId(9)),
        Err(NetworkError::UnknownPeer(PeerId(9)))
    ));
    assert!(matches!(
        net.replica(PeerId(0)),
        Err(NetworkError::UnknownPeer(PeerId(0)))
    ));
}

#[test]
fn a_write_sends_one_message_to_every_other_peer_in_send_order() {
    let mut net = furnished(3, 0);
    let receipt = net
        .write(P2, LocalWrite::DeleteEntity { entity: LAMP })
        .unwrap();
    // delete Transform, delete Name, delete entity: each to peer 1 then peer 3.
    assert_eq!(receipt.messages.len(), 3);
    assert_eq!(
        receipt.sent,
        (1..=6).map(MessageId).collect::<Vec<_>>(),
        "ids count up in send order"
    );
    let routes: Vec<(u8, u8)> = net.in_flight().iter().map(|m| (m.from.0, m.to.0)).collect();
    assert_eq!(routes, [(2, 1), (2, 3), (2, 1), (2, 3), (2, 1), (2, 3)]);
    assert!(net.in_flight().iter().all(|m| m.kind == MessageKind::Write));
    assert_eq!(net.in_flight()[4].message, receipt.messages[2]);
    assert!(net.replica(P2).unwrap().is_deleted(LAMP));
    assert!(!net.replica(P1).unwrap().is_deleted(LAMP));
}

#[test]
fn a_refused_write_changes_nothing_and_records_nothing() {
    let mut net = furnished(2, 0);
    net.write(P1, LocalWrite::DeleteEntity { entity: LAMP })
        .unwrap();
    let before = net.events().len();
    let err = net.write(P1, move_to(LAMP, 9.0, Entity::ROOT)).unwrap_err();
    assert_eq!(
        err,
        NetworkError::Write {
            peer: P1,
            source: WriteError::EntityDeleted(LAMP)
        }
    );
    assert_eq!(net.events().len(), before);
    // Deleting a component that holds nothing sends nothing and records nothing either.
    let receipt = net
        .write(
            P2,
            LocalWrite::DeleteComponent {
                entity: LAMP,
                component: 1018,
            },
        )
        .unwrap();
    assert!(receipt.messages.is_empty() && receipt.sent.is_empty());
    assert_eq!(net.events().len(), before);
}

#[test]
fn an_outdated_sender_gets_a_reply_that_travels_back() {
    let mut net = furnished(2, 0);
    // Two messages of one register in one tick: each write travels on its own.
    net.set_one_message_per_tick(false);
    // Peer 1 writes twice (t=2, t=3); peer 2 receives t=3 first, then the older t=2.
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    net.write(P1, move_to(LAMP, 4.0, Entity::ROOT)).unwrap();
    assert_eq!(
        net.deliver(MessageId(2)).unwrap(),
        ApplyOutcome::AcceptedNewer
    );
    let outcome = net.deliver(MessageId(1)).unwrap();
    assert!(matches!(outcome, ApplyOutcome::IgnoredOlder { .. }));
    let reply = &net.in_flight()[0];
    assert_eq!(
        (reply.from, reply.to, reply.kind, reply.cause),
        (P2, P1, MessageKind::Reply, Some(MessageId(1)))
    );
    assert_eq!(reply.message.timestamp(), Some(3));
    // Peer 1 already holds t=3: the reply changes nothing there.
    assert_eq!(net.deliver(reply.id).unwrap(), ApplyOutcome::IgnoredEqual);
    assert!(net.convergence().converged);
}

#[test]
fn a_received_delete_entity_is_announced_to_every_other_peer() {
    let mut net = furnished(3, 0);
    net.write(P1, LocalWrite::DeleteEntity { entity: TABLE })
        .unwrap();
    // Deliver only the DELETE_ENTITY to peer 2 (its components' deletes are still in flight).
    let delete_entity = net
        .in_flight()
        .iter()
        .find(|m| m.to == P2 && matches!(m.message, CrdtMessage::DeleteEntity { .. }))
        .unwrap()
        .id;
    let outcome = net.deliver(delete_entity).unwrap();
    let ApplyOutcome::EntityDeleted { announcements } = outcome else {
        panic!("expected EntityDeleted, got {outcome:?}");
    };
    assert_eq!(announcements.len(), 2, "Transform and Name");
    let sent: Vec<(u8, u8, MessageKind)> = net
        .in_flight()
        .iter()
        .filter(|m| m.cause == Some(delete_entity))
        .map(|m| (m.from.0, m.to.0, m.kind))
        .collect();
    assert_eq!(
        sent,
        [
            (2, 1, MessageKind::Announcement),
            (2, 3, MessageKind::Announcement),
            (2, 1, MessageKind::Announcement),
            (2, 3, MessageKind::Announcement),
        ]
    );
    net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    assert!(net.convergence().converged);
    assert!(net.replicas().iter().all(|r| r.is_deleted(TABLE)));
}

#[test]
fn an_offline_peer_holds_its_messages_both_ways() {
    let mut net = furnished(3, 0);
    net.set_online(P3, false).unwrap();
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap(); // #1 → 2, #2 → 3
    net.write(P3, move_to(TABLE, 2.0, Entity::ROOT)).unwrap(); // #3 → 1, #4 → 2
    assert_eq!(
        net.deliver(MessageId(2)).unwrap_err(),
        NetworkError::PeerOffline {
            id: MessageId(2),
            peer: P3
        }
    );
    let report = net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    assert_eq!(report.delivered, [MessageId(1)]);
    assert_eq!(report.waiting, 3);
    assert_eq!(ids_of(&net), [2, 3, 4]);
    assert!(!net.convergence().converged);
    net.set_online(P3, true).unwrap();
    let report = net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    assert_eq!(report.delivered.len(), 3);
    assert_eq!(report.waiting, 0);
    assert!(net.convergence().converged);
}

#[test]
fn a_dropped_message_leaves_the_peers_apart_and_names_the_entity() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(CHAIR, 7.0, TABLE)).unwrap();
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    net.drop_message(MessageId(1)).unwrap();
    assert_eq!(
        net.drop_message(MessageId(1)).unwrap_err(),
        NetworkError::UnknownMessage(MessageId(1))
    );
    net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    let c = net.convergence();
    assert!(!c.converged);
    assert_eq!(c.in_flight, 0);
    assert_ne!(c.digests[0], c.digests[1]);
    assert_eq!(c.differing, [CHAIR], "only the lost write differs");
}

#[test]
fn the_entities_that_differ_cover_deletions_and_component_removals_and_match_given_digests() {
    let mut net = furnished(3, 0);
    net.write(P1, LocalWrite::DeleteEntity { entity: LAMP })
        .unwrap();
    net.write(
        P2,
        LocalWrite::DeleteComponent {
            entity: TABLE,
            component: ids::NAME,
        },
    )
    .unwrap();
    net.write(P3, LocalWrite::name(CHAIR, "Stool")).unwrap();
    // Nothing delivered: each peer differs from the others on its own entity.
    let c = net.convergence();
    assert!(!c.converged);
    let mut expected = vec![LAMP, TABLE, CHAIR];
    expected.sort();
    assert_eq!(c.differing, expected);
    let digests = net.replicas().iter().map(Replica::digest).collect();
    assert_eq!(net.convergence_with(digests), c);
    net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    let c = net.convergence();
    assert!(c.converged, "differing: {:?}", c.differing);
    assert!(c.differing.is_empty());
}

#[test]
fn a_duplicate_follows_its_original_and_changes_nothing_twice() {
    let mut net = furnished(3, 0);
    net.write(P1, move_to(LAMP, 2.0, TABLE)).unwrap(); // #1 → 2, #2 → 3
    let copy = net.duplicate(MessageId(1)).unwrap();
    assert_eq!(copy, MessageId(3));
    assert_eq!(ids_of(&net), [1, 3, 2]);
    let m = net.message(copy).unwrap();
    assert_eq!((m.from, m.to, m.cause), (P1, P2, Some(MessageId(1))));
    assert_eq!(
        net.deliver(MessageId(1)).unwrap(),
        ApplyOutcome::AcceptedNewer
    );
    assert_eq!(net.deliver(copy).unwrap(), ApplyOutcome::IgnoredEqual);
    net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    assert!(net.convergence().converged);
}

#[test]
fn reordering_moves_a_message_within_the_list() {
    let mut net = furnished(2, 0);
    net.set_one_message_per_tick(false);
    for x in [1.0, 2.0, 3.0] {
        net.write(P1, move_to(LAMP, x, Entity::ROOT)).unwrap();
    }
    net.reorder(MessageId(3), 0).unwrap();
    assert_eq!(ids_of(&net), [3, 1, 2]);
    assert_eq!(
        net.reorder(MessageId(3), 3).unwrap_err(),
        NetworkError::BadIndex { index: 3, len: 3 }
    );
    let events = net.events().len();
    net.reorder(MessageId(3), 0).unwrap();
    assert_eq!(
        net.events().len(),
        events,
        "a move to the same place records nothing"
    );
    // Send order now delivers the newest first; the two older ones are answered with replies.
    let report = net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    assert_eq!(
        &report.delivered[..3],
        &[MessageId(3), MessageId(1), MessageId(2)]
    );
    assert_eq!(report.delivered.len(), 5, "two replies went back to peer 1");
    assert!(net.convergence().converged);
    assert_eq!(
        net.replica(P2).unwrap().transform(LAMP).unwrap().position.x,
        3.0
    );
}

#[test]
fn send_and_reverse_order_take_different_paths_to_the_same_state() {
    let run = |order| {
        let mut net = furnished(3, 0);
        net.write(P1, move_to(LAMP, 1.0, TABLE)).unwrap();
        net.write(P2, move_to(TABLE, 1.0, CHAIR)).unwrap();
        net.write(P3, move_to(LAMP, 5.0, Entity::ROOT)).unwrap();
        net.write(P3, move_to(CHAIR, 5.0, LAMP)).unwrap();
        net.deliver_all(order, MessageFilter::ALL);
        assert!(net.convergence().converged);
        let delivered: Vec<MessageId> = net
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Deliver { message, .. } => Some(message.id),
                _ => None,
            })
            .collect();
        (net.replica(P1).unwrap().digest(), delivered)
    };
    let (send_digest, send_path) = run(DeliveryOrder::Send);
    let (reverse_digest, reverse_path) = run(DeliveryOrder::Reverse);
    assert_eq!(send_digest, reverse_digest);
    assert_ne!(send_path, reverse_path);
    assert_eq!(send_path[0], MessageId(1));
}

#[test]
fn deliver_all_can_be_limited_to_one_route() {
    let mut net = furnished(3, 0);
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    net.write(P2, move_to(TABLE, 2.0, Entity::ROOT)).unwrap();
    let only = MessageFilter {
        from: None,
        to: Some(P3),
    };
    let report = net.deliver_all(DeliveryOrder::Send, only);
    assert_eq!(report.delivered, [MessageId(2), MessageId(4)]);
    assert_eq!(report.waiting, 0);
    assert!(net.in_flight().iter().all(|m| m.to != P3));
}

#[test]
fn a_random_order_is_fixed_by_the_seed() {
    let run = |seed| {
        let mut net = furnished(4, seed);
        for (i, p) in (1..=4).map(PeerId).enumerate() {
            net.write(p, move_to(LAMP, i as f32, Entity::ROOT)).unwrap();
            net.write(p, move_to(TABLE, i as f32, LAMP)).unwrap();
        }
        let report = net.deliver_all(DeliveryOrder::Random, MessageFilter::ALL);
        assert!(net.convergence().converged);
        report.delivered
    };
    assert_eq!(run(7), run(7));
    // 24 messages: two seeds agreeing on the whole order by chance is out of the question.
    assert_ne!(run(7), run(8));
}

#[test]
fn auto_delivery_delivers_messages_when_they_fall_due() {
    let mut net = furnished(2, 3);
    net.set_auto_delivery(Some(AutoDelivery {
        latency: 10,
        jitter: 0,
    }));
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    net.tick(4);
    net.write(P2, move_to(TABLE, 2.0, Entity::ROOT)).unwrap();
    // #1 was sent at 0 and is due at 10; #2 was sent at 4 and is due at 14.
    assert_eq!(net.advance(9).delivered, [MessageId(1)]);
    assert_eq!(net.now(), 13);
    let report = net.advance(1);
    assert_eq!(report.delivered, [MessageId(2)]);
    assert_eq!(net.now(), 14);
    // The delivery happened at its due time, with the clock moved to it.
    let deliver_at: Vec<u64> = net
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Deliver { .. }))
        .map(|e| e.at)
        .collect();
    assert_eq!(deliver_at, [10, 14]);
    assert!(net.convergence().converged);
}

#[test]
fn jitter_delays_each_message_within_its_bound() {
    let mut net = furnished(2, 11);
    net.set_one_message_per_tick(false);
    let auto = AutoDelivery {
        latency: 5,
        jitter: 3,
    };
    net.set_auto_delivery(Some(auto));
    for x in 0..20 {
        net.write(P1, move_to(LAMP, x as f32, Entity::ROOT))
            .unwrap();
    }
    let dues: Vec<u64> = net
        .in_flight()
        .iter()
        .map(|m| net.due_at(m).unwrap())
        .collect();
    assert!(dues.iter().all(|d| (5..=8).contains(d)), "{dues:?}");
    assert!(
        dues.iter().any(|d| *d != dues[0]),
        "20 messages do not all draw the same jitter"
    );
    assert!(
        net.advance(4).delivered.is_empty(),
        "nothing is due before tick 5"
    );
    // By tick 8 every write is delivered. Those that arrived after a newer one were answered,
    // and those replies (sent at 5 to 8) are not due yet.
    let report = net.advance(4);
    assert_eq!(report.delivered.len(), 20);
    assert!(!net.in_flight().is_empty(), "jitter reordered some writes");
    assert!(net.in_flight().iter().all(|m| m.kind == MessageKind::Reply));
    net.advance(100);
    assert!(net.convergence().converged);
}

#[test]
fn overdue_messages_of_an_offline_peer_go_when_it_returns() {
    let mut net = furnished(2, 0);
    net.set_auto_delivery(Some(AutoDelivery {
        latency: 2,
        jitter: 0,
    }));
    net.set_online(P2, false).unwrap();
    net.write(P1, move_to(LAMP, 2.0, Entity::ROOT)).unwrap();
    assert!(net.advance(10).delivered.is_empty());
    net.set_online(P2, true).unwrap();
    assert_eq!(net.advance(1).delivered, [MessageId(1)]);
}

#[test]
fn clock_ticks_in_a_row_are_one_event() {
    let mut net = furnished(2, 0);
    net.tick(3);
    net.tick(4);
    net.advance(5);
    assert_eq!(net.events().len(), 1);
    assert_eq!(net.events()[0].kind, EventKind::Tick { ticks: 12 });
    assert_eq!(net.events()[0].at, 12);
}

#[test]
fn stepping_back_and_forth_rebuilds_each_state_and_a_new_action_replaces_the_future() {
    let mut net = furnished(2, 0);
    net.write(P1, move_to(LAMP, 1.0, TABLE)).unwrap();
    net.write(P2, move_to(TABLE, 1.0, LAMP)).unwrap();
    net.deliver(MessageId(2)).unwrap();
    let cyclic = net.replica(P1).unwrap().digest();
    assert_eq!(
        SceneView::from_source(net.replica(P1).unwrap())
            .cycles()
            .len(),
        1
    );
    let epoch = net.epoch();
    assert!(net.step_back());
    assert_eq!(net.cursor(), 2);
    assert_ne!(net.epoch(), epoch, "a step back rebuilds the replicas");
    assert!(
        SceneView::from_source(net.replica(P1).unwrap())
            .cycles()
            .is_empty()
    );
    assert_eq!(ids_of(&net), [1, 2]);
    assert!(net.step_forward());
    assert_eq!(net.replica(P1).unwrap().digest(), cyclic);
    assert!(!net.step_forward(), "at the end");
    net.seek(0).unwrap();
    assert!(!net.step_back(), "at the start");
    assert_eq!(
        net.replica(P1).unwrap().digest(),
        net.initial_replica().digest()
    );
    assert_eq!(
        net.seek(4).unwrap_err(),
        NetworkError::NoSuchEvent { index: 4, len: 3 }
    );
    // A new action at event 1 drops events 2 and 3.
    net.seek(1).unwrap();
    net.write(P2, move_to(CHAIR, 1.0, LAMP)).unwrap();
    assert_eq!(net.events().len(), 2);
    assert_eq!(net.cursor(), 2);
}

#[test]
fn a_timeline_id_names_the_events_up_to_there_until_one_of_them_is_replaced() {
    let mut net = furnished(2, 0);
    let start = net.timeline_id(0).unwrap();
    net.write(P1, move_to(LAMP, 1.0, TABLE)).unwrap();
    net.tick(1);
    let two = net.timeline_id(2).unwrap();
    assert_eq!(net.timeline_id(3), None, "past the end");
    // A tick merged into the tick before it moves the clock only: the same events.
    net.tick(2);
    assert_eq!(net.events().len(), 2);
    assert_eq!(net.timeline_id(2), Some(two));
    // Seeking keeps the events; a new action after a seek back replaces the later ones.
    net.seek(1).unwrap();
    assert_eq!(net.timeline_id(2), Some(two));
    let one = net.timeline_id(1).unwrap();
    net.write(P2, move_to(TABLE, 2.0, LAMP)).unwrap();
    assert_eq!(
        net.timeline_id(1),
        Some(one),
        "event 1 is still the first write"
    );
    assert_ne!(net.timeline_id(2), Some(two), "event 2 was replaced");
    assert_eq!(net.timeline_id(0), Some(start));
    // Another start: even its empty timeline is another one.
    let net = net.with_one_message_per_tick(false);
    assert_ne!(net.timeline_id(0), Some(start));
    assert_eq!(net.timeline_id(1), None);
}

#[test]
fn a_seek_restores_the_random_generator() {
    let mut net = furnished(3, 42);
    for p in [P1, P2, P3] {
        net.write(p, move_to(LAMP, f32::from(p.0), TABLE)).unwrap();
    }
    let before = net.cursor();
    let first = net.deliver_all(DeliveryOrder::Random, MessageFilter::ALL);
    // Back to before the random delivery: the same call draws the same order again.
    net.seek(before).unwrap();
    let again = net.deliver_all(DeliveryOrder::Random, MessageFilter::ALL);
    assert_eq!(first.delivered, again.delivered);
    // Half way back, then on: the remaining draws match too.
    net.seek(before + 2).unwrap();
    let rest = net.deliver_all(DeliveryOrder::Random, MessageFilter::ALL);
    assert_eq!(rest.delivered, first.delivered[2..]);
}

#[test]
fn a_huge_name_or_element_reads_as_a_line_of_readable_length() {
    let mut net = furnished(2, 0);
    // A 5 MB name: the write, its delivery and the next Transform's label quote it cut.
    let huge = "N".repeat(5 << 20);
    net.write(P2, LocalWrite::name(LAMP, &huge)).unwrap();
    net.deliver(MessageId(1)).unwrap();
    net.write(P2, move_to(LAMP, 2.0, TABLE)).unwrap();
    for event in net.events() {
        let text = net.describe_event(event);
        assert!(text.len() < 1_000, "a {}-byte line", text.len());
    }
    // An element of 1,000 messages from one peer: the first ten are named, then a count.
    let many: Vec<CrdtMessage> = (0..1_000)
        .map(|i| CrdtMessage::DeleteComponent {
            entity: Entity(600 + i),
            component: ids::NAME,
            timestamp: 9,
        })
        .collect();
    net.write(P2, LocalWrite::Authored { messages: many })
        .unwrap();
    let text = net.describe_event(net.events().last().unwrap());
    assert!(
        text.len() < 2_000 && text.contains("and 990 more"),
        "a {}-byte line: {}",
        text.len(),
        &text[..200]
    );
}

#[test]
fn messages_and_events_read_as_sentences() {
    let mut net = furnished(2, 0);
    net.write(P2, move_to(LAMP, 1.5, TABLE)).unwrap();
    let m = &net.in_flight()[0];
    assert_eq!(
        net.describe_in_flight(m),
        "#1 peer 2 → peer 1: Transform(512 \"Lamp\") parent=513 \"Table\" position=(1.5, 0, 0), t=2"
    );
    net.deliver(MessageId(1)).unwrap();
    let text = net.describe_event(&net.events()[1]);
    assert!(
        text.starts_with("deliver #1 peer 2 → peer 1: Transform(512")
            && text.ends_with(": accepted (newer timestamp)"),
        "{text}"
    );
    let no_names = |_: Entity| None;
    assert_eq!(
        describe_message(&CrdtMessage::DeleteEntity { entity: LAMP }, &no_names),
        "delete entity 512"
    );
    assert_eq!(
        describe_message(
            &CrdtMessage::DeleteComponent {
                entity: LAMP,
                component: 1,
                timestamp: 4
            },
            &no_names
        ),
        "delete Transform(512), t=4"
    );
}

#[test]
fn a_peer_exports_its_state_as_main_crdt() {
    let mut net = furnished(2, 0);
    net.write(P1, LocalWrite::DeleteEntity { entity: CHAIR })
        .unwrap();
    net.write(P1, move_to(LAMP, 4.0, TABLE)).unwrap();
    let bytes = net.export_crdt(P1).unwrap();
    let decoded = decode_stream(&bytes).unwrap();
    let reloaded = Replica::from_messages(&decoded.messages);
    let p1 = net.replica(P1).unwrap();
    assert_eq!(reloaded.transform(LAMP), p1.transform(LAMP));
    assert!(reloaded.is_deleted(CHAIR));
    assert_eq!(
        reloaded.transform(LAMP).unwrap().parent,
        TABLE,
        "the exported file is peer 1's, not peer 2's"
    );
    assert!(net.export_crdt(PeerId(3)).is_err());
}

#[test]
fn writes_authored_by_an_outside_replica_are_mirrored_and_sent() {
    // An editor document owns a copy of peer 1's replica and hands over what it wrote.
    let mut net = furnished(3, 0);
    let mut document = net.replica(P1).unwrap().clone();
    let outbox = vec![
        document.put_transform(LAMP, &at(2.0, TABLE)).unwrap(),
        document
            .put(
                CHAIR,
                ids::NAME,
                scenetree_core::model::encode_name("Stool"),
            )
            .unwrap(),
    ];
    let receipt = net
        .write(
            P1,
            LocalWrite::Authored {
                messages: outbox.clone(),
            },
        )
        .unwrap();
    assert_eq!(receipt.messages, outbox);
    assert_eq!(receipt.sent.len(), 4, "two messages to two peers");
    assert_eq!(net.replica(P1).unwrap().digest(), document.digest());
    net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    assert!(net.convergence().converged);
    assert_eq!(net.replica(P3).unwrap().digest(), document.digest());
    // Replays and saved runs carry the messages themselves.
    assert_eq!(
        net.replayed().replica(P2).unwrap().digest(),
        document.digest()
    );
}

#[test]
fn a_network_forgetting_its_timeline_hands_out_each_event_once_and_keeps_none() {
    let mut kept = furnished(2, 0);
    let mut forgetting = furnished(2, 0).forgetting_timeline();
    let mut taken = Vec::new();
    for net in [&mut kept, &mut forgetting] {
        let sent = net
            .write(P1, LocalWrite::DeleteEntity { entity: LAMP })
            .unwrap()
            .sent;
        net.tick(3);
        net.deliver(sent[0]).unwrap();
    }
    taken.extend(forgetting.take_events());
    assert_eq!(taken, kept.events(), "the same events, in order");
    assert!(forgetting.events().is_empty() && forgetting.take_events().is_empty());
    net_after_more(&mut forgetting, &mut taken);
    assert_eq!(taken.len(), kept.events().len() + 1);
    // The state goes on; only going back is refused.
    assert_eq!(
        forgetting.replica(P2).unwrap().digest(),
        kept.replica(P2).unwrap().digest()
    );
    forgetting.tick(1);
    assert!(!forgetting.step_back());
    assert_eq!(forgetting.seek(0), Err(NetworkError::NoTimeline));
    assert_eq!(forgetting.events().len(), 1, "untaken, and still there");
    // A network that keeps its timeline hands nothing out and keeps everything.
    assert!(kept.take_events().is_empty());
    assert_eq!(kept.events().len(), 3);
}

/// One more event (a tick), taken into `taken`.
fn net_after_more(net: &mut Network, taken: &mut Vec<scenetree_core::crdt::network::Event>) {
    net.tick(1);
    taken.extend(net.take_events());
}
