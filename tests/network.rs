//! The simulated network: delivery, replies, announcements, offline peers, drops, duplicates,
//! reordering, auto-delivery, the timeline, and the order explorer. The properties at the end
//! check convergence and deterministic replay over random runs.

use glam::Vec3;
use proptest::prelude::*;
use scenetree::crdt::network::{MAX_PEERS, describe_message};
use scenetree::crdt::{
    ApplyOutcome, AutoDelivery, CrdtMessage, DeliveryOrder, EventKind, LocalWrite, MessageFilter,
    MessageId, MessageKind, Network, NetworkError, PeerId, Replica, WriteError, decode_stream,
};
use scenetree::model::{Entity, Transform, ids};
use scenetree::scene::SceneView;
use scenetree::scene::order_explorer::{ExploreError, explore_inbox, explore_orders};

const LAMP: Entity = Entity(512);
const TABLE: Entity = Entity(513);
const CHAIR: Entity = Entity(514);
const P1: PeerId = PeerId(1);
const P2: PeerId = PeerId(2);
const P3: PeerId = PeerId(3);

fn at(x: f32, parent: Entity) -> Transform {
    Transform {
        position: Vec3::new(x, 0.0, 0.0),
        parent,
        ..Transform::IDENTITY
    }
}

fn move_to(entity: Entity, x: f32, parent: Entity) -> LocalWrite {
    LocalWrite::transform(entity, &at(x, parent))
}

/// Lamp, Table and Chair at the root, named, timestamps 1, on every peer.
fn furnished(peers: usize, seed: u64) -> Network {
    let mut start = Replica::new();
    for (e, name, x) in [
        (LAMP, "Lamp", 1.0),
        (TABLE, "Table", 3.0),
        (CHAIR, "Chair", 5.0),
    ] {
        start.put_transform(e, &at(x, Entity::ROOT)).unwrap();
        start
            .put(e, ids::NAME, scenetree::model::encode_name(name))
            .unwrap();
    }
    Network::new(peers, seed, &start).unwrap()
}

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

// ----- order explorer -----------------------------------------------------------------------

#[test]
fn the_explorer_counts_orders_through_a_transient_cycle() {
    // Lesson 6's trace: Table under Lamp (t2), Table to root (t3), Lamp under Table (t2).
    let start = furnished(2, 0).initial_replica().clone();
    let mut author = start.clone();
    let msgs = vec![
        author.put_transform(TABLE, &at(3.0, LAMP)).unwrap(),
        author.put_transform(TABLE, &at(3.0, Entity::ROOT)).unwrap(),
        author.put_transform(LAMP, &at(1.0, TABLE)).unwrap(),
    ];
    let x = explore_orders(&start, &msgs).unwrap();
    assert_eq!(x.orders, 6);
    assert_eq!(x.orders_through_cycle, 2, "m2 must come last for the cycle");
    let example = x.cycle_example.clone().unwrap();
    assert_eq!(example[2], 1, "{example:?}");
    assert_eq!(x.cycles, [vec![LAMP, TABLE]]);
    let rerooted: Vec<Entity> = x.rerooted.iter().map(|r| r.entity).collect();
    assert_eq!(rerooted, [LAMP, TABLE]);
    assert!(x.rerooted.iter().all(|r| r.cycle && !r.missing_parent));
    assert!(x.converges());
    assert_eq!(x.finals[0].digest, author.digest());
    assert_eq!(x.finals[0].orders, 6);
}

#[test]
fn the_explorer_merges_commuting_prefixes() {
    // Eight writes to eight different entities: 8! orders, but only 2^8 - 1 distinct states.
    let start = Replica::new();
    let mut author = Replica::new();
    let msgs: Vec<CrdtMessage> = (0..8)
        .map(|i| {
            author
                .put_transform(Entity(600 + i), &at(i as f32, Entity::ROOT))
                .unwrap()
        })
        .collect();
    let x = explore_orders(&start, &msgs).unwrap();
    assert_eq!(x.orders, 40_320);
    assert_eq!(x.states_visited, 255);
    assert_eq!(x.orders_through_cycle, 0);
    assert!(x.converges());
    let nine: Vec<CrdtMessage> = msgs.iter().chain(&msgs[..1]).cloned().collect();
    assert_eq!(
        explore_orders(&start, &nine).unwrap_err(),
        ExploreError::TooManyMessages { count: 9 }
    );
}

#[test]
fn the_explorer_reads_a_peers_inbox() {
    let mut net = furnished(3, 0);
    net.write(P1, move_to(LAMP, 1.0, TABLE)).unwrap();
    net.write(P2, move_to(TABLE, 1.0, LAMP)).unwrap();
    let x = explore_inbox(&net, P3).unwrap();
    assert_eq!(x.messages, 2);
    assert_eq!(x.orders, 2);
    assert_eq!(
        x.orders_through_cycle, 2,
        "both edits together always make the cycle"
    );
    assert!(explore_inbox(&net, PeerId(4)).is_err());
}

/// Every order, enumerated without any merging: the reference for the explorer's counts.
fn brute_force(start: &Replica, msgs: &[CrdtMessage]) -> (u64, u64, Vec<u128>) {
    fn go(
        r: &Replica,
        msgs: &[CrdtMessage],
        left: &mut Vec<usize>,
        cycled: bool,
        out: &mut (u64, u64, Vec<u128>),
    ) {
        if left.is_empty() {
            out.0 += 1;
            out.1 += u64::from(cycled);
            out.2.push(r.digest());
            return;
        }
        for k in 0..left.len() {
            let i = left.remove(k);
            let mut next = r.clone();
            next.apply(&msgs[i]);
            let cyc = !SceneView::from_source(&next).cycles().is_empty();
            go(&next, msgs, left, cycled || cyc, out);
            left.insert(k, i);
        }
    }
    let mut out = (0, 0, Vec::new());
    go(start, msgs, &mut (0..msgs.len()).collect(), false, &mut out);
    out.2.sort_unstable();
    out.2.dedup();
    (out.0, out.1, out.2)
}

// ----- properties ---------------------------------------------------------------------------

/// One user action in a random run (peer and message choices are reduced modulo what exists).
#[derive(Clone, Debug)]
enum Act {
    Move {
        peer: u8,
        entity: u8,
        parent: u8,
        x: i8,
    },
    Rename {
        peer: u8,
        entity: u8,
        name: u8,
    },
    DeleteTransform {
        peer: u8,
        entity: u8,
    },
    DeleteEntity {
        peer: u8,
        entity: u8,
    },
    Reuse {
        peer: u8,
        entity: u8,
    },
    Deliver(prop::sample::Index),
    DeliverAll(u8),
    Duplicate(prop::sample::Index),
    Reorder(prop::sample::Index, prop::sample::Index),
    Offline(u8),
    Online(u8),
    Advance(u8),
    Auto(Option<(u8, u8)>),
}

fn arb_act() -> impl Strategy<Value = Act> {
    prop_oneof![
        8 => (0u8..8, 0u8..4, 0u8..5, -3i8..4).prop_map(|(peer, entity, parent, x)| Act::Move { peer, entity, parent, x }),
        2 => (0u8..8, 0u8..4, 0u8..3).prop_map(|(peer, entity, name)| Act::Rename { peer, entity, name }),
        2 => (0u8..8, 0u8..4).prop_map(|(peer, entity)| Act::DeleteTransform { peer, entity }),
        1 => (0u8..8, 0u8..4).prop_map(|(peer, entity)| Act::DeleteEntity { peer, entity }),
        1 => (0u8..8, 0u8..4).prop_map(|(peer, entity)| Act::Reuse { peer, entity }),
        6 => any::<prop::sample::Index>().prop_map(Act::Deliver),
        1 => (0u8..3).prop_map(Act::DeliverAll),
        2 => any::<prop::sample::Index>().prop_map(Act::Duplicate),
        2 => (any::<prop::sample::Index>(), any::<prop::sample::Index>()).prop_map(|(a, b)| Act::Reorder(a, b)),
        1 => (0u8..8).prop_map(Act::Offline),
        2 => (0u8..8).prop_map(Act::Online),
        1 => (0u8..6).prop_map(Act::Advance),
        1 => prop::option::of((0u8..4, 0u8..3)).prop_map(Act::Auto),
    ]
}

/// Plays a random action; refusals (writes to deleted entities, offline deliveries) are part
/// of the game and change nothing.
fn play(net: &mut Network, act: &Act) {
    let peer = |p: u8| PeerId(p % net.peer_count() as u8 + 1);
    let entity = |e: u8| Entity(512 + u32::from(e));
    let pick = |net: &Network, i: &prop::sample::Index| {
        (!net.in_flight().is_empty()).then(|| net.in_flight()[i.index(net.in_flight().len())].id)
    };
    let _ = match act {
        Act::Move {
            peer: p,
            entity: e,
            parent,
            x,
        } => {
            let parent = if *parent == 4 {
                Entity::ROOT
            } else {
                entity(*parent)
            };
            net.write(peer(*p), move_to(entity(*e), f32::from(*x), parent))
                .map(drop)
        }
        Act::Rename {
            peer: p,
            entity: e,
            name,
        } => net
            .write(
                peer(*p),
                LocalWrite::name(entity(*e), ["Lamp", "Table", "Chair"][*name as usize]),
            )
            .map(drop),
        Act::DeleteTransform { peer: p, entity: e } => net
            .write(
                peer(*p),
                LocalWrite::DeleteComponent {
                    entity: entity(*e),
                    component: 1,
                },
            )
            .map(drop),
        Act::DeleteEntity { peer: p, entity: e } => net
            .write(peer(*p), LocalWrite::DeleteEntity { entity: entity(*e) })
            .map(drop),
        Act::Reuse { peer: p, entity: e } => {
            // A new version of a number the peer deleted, as `allocate_entity` would hand out.
            let p = peer(*p);
            let old = entity(*e);
            if net.replica(p).unwrap().is_deleted(old) {
                let new = Entity::from_parts(old.number(), old.version() + 1);
                net.write(p, move_to(new, 1.0, Entity::ROOT)).map(drop)
            } else {
                Ok(())
            }
        }
        Act::Deliver(i) => match pick(net, i) {
            Some(id) => net.deliver(id).map(drop),
            None => Ok(()),
        },
        Act::DeliverAll(o) => {
            let order = [
                DeliveryOrder::Send,
                DeliveryOrder::Reverse,
                DeliveryOrder::Random,
            ][*o as usize];
            net.deliver_all(order, MessageFilter::ALL);
            Ok(())
        }
        Act::Duplicate(i) => match pick(net, i) {
            Some(id) => net.duplicate(id).map(drop),
            None => Ok(()),
        },
        Act::Reorder(i, j) => match pick(net, i) {
            Some(id) => net.reorder(id, j.index(net.in_flight().len())),
            None => Ok(()),
        },
        Act::Offline(p) => net.set_online(peer(*p), false),
        Act::Online(p) => net.set_online(peer(*p), true),
        Act::Advance(t) => {
            net.advance(u64::from(*t));
            Ok(())
        }
        Act::Auto(a) => {
            net.set_auto_delivery(a.map(|(latency, jitter)| AutoDelivery {
                latency: u64::from(latency),
                jitter: u64::from(jitter),
            }));
            Ok(())
        }
    };
}

/// What a replay must rebuild at a timeline position.
fn snapshot(net: &Network) -> (Vec<u128>, Vec<(u64, u8, u8)>) {
    (
        net.replicas().iter().map(Replica::digest).collect(),
        net.in_flight()
            .iter()
            .map(|m| (m.id.0, m.from.0, m.to.0))
            .collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any run without drops ends, once every peer is online and everything is delivered, with
    /// one digest on every peer.
    #[test]
    fn every_run_converges_once_everything_is_delivered(
        peers in 2usize..=4,
        seed in any::<u64>(),
        acts in prop::collection::vec(arb_act(), 0..60),
    ) {
        let mut net = furnished(peers, seed);
        for act in &acts {
            play(&mut net, act);
        }
        for p in 1..=peers {
            net.set_online(PeerId(p as u8), true).unwrap();
        }
        let report = net.deliver_all(DeliveryOrder::Random, MessageFilter::ALL);
        prop_assert!(!report.capped);
        let c = net.convergence();
        prop_assert!(c.converged, "differing entities {:?}, digests {:?}", c.differing, c.digests);
        prop_assert!(c.differing.is_empty());
    }

    /// Seeking to any recorded position rebuilds exactly the state the run had there, in any
    /// seek order; and a fresh network replaying the same events ends in the same state.
    #[test]
    fn a_run_replays_to_identical_states_at_every_step(
        seed in any::<u64>(),
        acts in prop::collection::vec(arb_act(), 1..40),
        seeks in prop::collection::vec(any::<prop::sample::Index>(), 1..20),
    ) {
        let mut net = furnished(3, seed);
        let mut seen = std::collections::BTreeMap::new();
        seen.insert(0, snapshot(&net));
        for act in &acts {
            play(&mut net, act);
            seen.insert(net.cursor(), snapshot(&net));
        }
        let replayed = net.replayed();
        prop_assert_eq!(snapshot(&replayed), snapshot(&net));
        prop_assert_eq!(replayed.events(), net.events());
        let positions: Vec<usize> = seen.keys().copied().collect();
        for s in &seeks {
            let k = positions[s.index(positions.len())];
            net.seek(k).unwrap();
            prop_assert_eq!(&snapshot(&net), &seen[&k], "at event {}", k);
        }
    }

    /// The explorer's counts equal a brute-force enumeration of every order.
    #[test]
    fn the_explorer_agrees_with_brute_force(
        writes in prop::collection::vec((0u8..3, 0u8..4, 0u8..4), 1..6),
    ) {
        let start = furnished(2, 0).initial_replica().clone();
        let mut authors = vec![start.clone(), start.clone(), start.clone()];
        let msgs: Vec<CrdtMessage> = writes
            .iter()
            .map(|&(author, e, parent)| {
                let parent = if parent == 3 { Entity::ROOT } else { Entity(512 + u32::from(parent)) };
                authors[author as usize]
                    .put_transform(Entity(512 + u32::from(e % 3)), &at(1.0, parent))
                    .unwrap()
            })
            .collect();
        let x = explore_orders(&start, &msgs).unwrap();
        let (orders, cycled, finals) = brute_force(&start, &msgs);
        prop_assert_eq!(x.orders, orders);
        prop_assert_eq!(x.orders_through_cycle, cycled);
        let mut digests: Vec<u128> = x.finals.iter().map(|f| f.digest).collect();
        digests.sort_unstable();
        prop_assert_eq!(digests, finals);
        prop_assert_eq!(x.finals.iter().map(|f| f.orders).sum::<u64>(), orders);
        prop_assert_eq!(x.cycle_example.is_some(), cycled > 0);
    }
}
