//! Every tree policy on the same five cases: a 2-cycle, a 3-cycle, a self-parent, a cycle
//! closed then broken, and a late earlier write. The room: Lamp, Table and Chair at the root
//! (x = 1, 3, 5 m), Bulb under Lamp; every initial Transform has timestamp 1.

use scenetree_core::crdt::LocalWrite;
use scenetree_core::crdt::{DeliveryOrder, MessageFilter, MessageId, Network, PeerId, Replica};
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_core::scene::policy::{Placement, PlacementReason, PolicyBoard, TreePolicy};

use crate::furnished::{CHAIR, LAMP, P1, P2, P3, TABLE, at, move_to};

use TreePolicy::*;

const BULB: Entity = Entity(515);
const ROOT: Option<Entity> = Some(Entity::ROOT);
const HIDDEN: Option<Entity> = None;

/// The room on `peers` peers.
fn room(peers: usize) -> Network {
    let mut start = Replica::new();
    for (e, name, x, parent) in [
        (LAMP, "Lamp", 1.0, Entity::ROOT),
        (TABLE, "Table", 3.0, Entity::ROOT),
        (CHAIR, "Chair", 5.0, Entity::ROOT),
        (BULB, "Bulb", 0.5, LAMP),
    ] {
        start.put_transform(e, &at(x, parent)).unwrap();
        start.put(e, ids::NAME, encode_name(name)).unwrap();
    }
    Network::new(peers, 1, &start).unwrap()
}

fn synced(net: &Network) -> PolicyBoard {
    let mut board = PolicyBoard::new();
    board.sync(net);
    board
}

/// Where `policy` draws [Lamp, Table, Chair, Bulb] for `peer` (`None` = hidden).
fn drawn(board: &PolicyBoard, peer: PeerId, policy: TreePolicy) -> [Option<Entity>; 4] {
    [LAMP, TABLE, CHAIR, BULB].map(|e| {
        match board
            .placement(peer, policy, e)
            .expect("every piece is a node")
        {
            Placement::Under(p) => Some(p),
            Placement::Hidden => None,
        }
    })
}

fn deliver_all(net: &mut Network) {
    net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
}

/// Peer 1 puts Lamp under Table while peer 2 puts Table under Lamp; peer 1's message is
/// delivered first. Both peers end with the same state: Lamp → Table → Lamp.
fn two_cycle() -> Network {
    let mut net = room(2);
    net.write(P1, move_to(LAMP, 1.0, TABLE)).unwrap();
    net.write(P2, move_to(TABLE, 3.0, LAMP)).unwrap();
    deliver_all(&mut net);
    net
}

/// Three peers each make one edge of Lamp → Table → Chair → Lamp; delivered in send order.
fn three_cycle() -> Network {
    let mut net = room(3);
    net.write(P1, move_to(LAMP, 1.0, TABLE)).unwrap();
    net.write(P2, move_to(TABLE, 3.0, CHAIR)).unwrap();
    net.write(P3, move_to(CHAIR, 5.0, LAMP)).unwrap();
    deliver_all(&mut net);
    net
}

/// Lamp is put under Chair; then peer 1 makes Lamp its own parent.
fn self_parent() -> Network {
    let mut net = room(2);
    net.write(P1, move_to(LAMP, 1.0, CHAIR)).unwrap();
    deliver_all(&mut net);
    net.write(P1, move_to(LAMP, 1.0, LAMP)).unwrap();
    deliver_all(&mut net);
    net
}

/// The 2-cycle, then peer 2 breaks it by moving Lamp back to the root: Table → Lamp remains.
fn cycle_closed_then_broken() -> Network {
    let mut net = two_cycle();
    net.write(P2, move_to(LAMP, 1.0, Entity::ROOT)).unwrap();
    deliver_all(&mut net);
    net
}

/// Peer 1 moves Lamp under Chair (timestamp 2), then, a tick later, under Table (3); peer 2
/// puts Table under Lamp (2). Peer 2 gets peer 1's second write first; returns the network and the id of peer
/// 1's first write to peer 2, still in flight: the late earlier write.
fn late_earlier_write_pending() -> (Network, MessageId) {
    let mut net = room(2);
    let first = net.write(P1, move_to(LAMP, 1.0, CHAIR)).unwrap().sent[0];
    // A tick between, or the runtime would send the two writes as one message.
    net.tick(1);
    let second = net.write(P1, move_to(LAMP, 1.0, TABLE)).unwrap().sent[0];
    let table = net.write(P2, move_to(TABLE, 3.0, LAMP)).unwrap().sent[0];
    net.deliver(second).unwrap();
    net.deliver(table).unwrap();
    (net, first)
}

fn late_earlier_write() -> Network {
    let (mut net, first) = late_earlier_write_pending();
    net.deliver(first).unwrap();
    deliver_all(&mut net);
    net
}

fn assert_peers(net: &Network, policy: TreePolicy, expected: &[[Option<Entity>; 4]]) {
    let board = synced(net);
    for (i, want) in expected.iter().enumerate() {
        let peer = PeerId::from_index(i);
        assert_eq!(drawn(&board, peer, policy), *want, "{policy:?} on {peer}");
    }
}

fn agrees(net: &Network, policy: TreePolicy) -> bool {
    synced(net).agreement(policy).agree
}

// ----- RootFallback ---------------------------------------------------------------------------

#[test]
fn root_fallback_two_cycle_draws_both_at_the_root() {
    let both = [ROOT, ROOT, ROOT, Some(LAMP)];
    assert_peers(&two_cycle(), RootFallback, &[both, both]);
    let board = synced(&two_cycle());
    assert!(matches!(
        board.reason(P1, RootFallback, LAMP),
        Some(PlacementReason::CycleAtRoot { cycle }) if cycle == [LAMP, TABLE]
    ));
}

#[test]
fn root_fallback_three_cycle_draws_all_three_at_the_root() {
    let all = [ROOT, ROOT, ROOT, Some(LAMP)];
    assert_peers(&three_cycle(), RootFallback, &[all, all, all]);
}

#[test]
fn root_fallback_self_parent_draws_it_at_the_root() {
    let both = [ROOT, ROOT, ROOT, Some(LAMP)];
    assert_peers(&self_parent(), RootFallback, &[both, both]);
}

#[test]
fn root_fallback_cycle_closed_then_broken_follows_the_declared_parents() {
    let both = [ROOT, Some(LAMP), ROOT, Some(LAMP)];
    assert_peers(&cycle_closed_then_broken(), RootFallback, &[both, both]);
}

#[test]
fn root_fallback_late_earlier_write_changes_nothing() {
    let (pending, _) = late_earlier_write_pending();
    let cycle = [ROOT, ROOT, ROOT, Some(LAMP)];
    assert_eq!(drawn(&synced(&pending), P2, RootFallback), cycle);
    assert_peers(&late_earlier_write(), RootFallback, &[cycle, cycle]);
}

// ----- IgnoreCyclicChange ---------------------------------------------------------------------

#[test]
fn ignore_cyclic_change_two_cycle_keeps_each_peers_own_edge_and_diverges() {
    let net = two_cycle();
    assert_peers(
        &net,
        IgnoreCyclicChange,
        &[
            [Some(TABLE), ROOT, ROOT, Some(LAMP)],
            [ROOT, Some(LAMP), ROOT, Some(LAMP)],
        ],
    );
    assert!(net.convergence().converged, "the replicas agree");
    assert!(
        !agrees(&net, IgnoreCyclicChange),
        "their render trees do not"
    );
    assert_eq!(
        synced(&net).reason(P1, IgnoreCyclicChange, TABLE),
        Some(PlacementReason::KeptAfterIgnoredChange { wanted: LAMP })
    );
}

#[test]
fn ignore_cyclic_change_three_cycle_ignores_the_edge_that_arrives_last() {
    // Peers 1 and 2 get Chair → Lamp last; peer 3 gets Table → Chair last.
    let chain = [Some(TABLE), Some(CHAIR), ROOT, Some(LAMP)];
    let p3 = [Some(TABLE), ROOT, Some(LAMP), Some(LAMP)];
    assert_peers(&three_cycle(), IgnoreCyclicChange, &[chain, chain, p3]);
}

#[test]
fn ignore_cyclic_change_self_parent_keeps_the_parent_it_had() {
    let both = [Some(CHAIR), ROOT, ROOT, Some(LAMP)];
    assert_peers(&self_parent(), IgnoreCyclicChange, &[both, both]);
}

#[test]
fn ignore_cyclic_change_cycle_closed_then_broken_never_retries_the_ignored_write() {
    // Peer 1 ignored Table → Lamp and nothing asks again; peer 2 applied it.
    let net = cycle_closed_then_broken();
    assert_peers(
        &net,
        IgnoreCyclicChange,
        &[
            [ROOT, ROOT, ROOT, Some(LAMP)],
            [ROOT, Some(LAMP), ROOT, Some(LAMP)],
        ],
    );
    assert!(!agrees(&net, IgnoreCyclicChange));
}

#[test]
fn ignore_cyclic_change_late_earlier_write_is_not_applied() {
    let (pending, _) = late_earlier_write_pending();
    let p2 = [ROOT, Some(LAMP), ROOT, Some(LAMP)];
    assert_eq!(drawn(&synced(&pending), P2, IgnoreCyclicChange), p2);
    assert_peers(
        &late_earlier_write(),
        IgnoreCyclicChange,
        &[[Some(TABLE), ROOT, ROOT, Some(LAMP)], p2],
    );
}

// ----- RevertToEarlierParent ------------------------------------------------------------------

#[test]
fn revert_to_earlier_parent_two_cycle_reverts_one_member_and_keeps_the_other_edge() {
    // Both members' earlier parent is the root (timestamp 1); Lamp's write is the greater
    // value, so Lamp is reattached first, which reconnects Table → Lamp.
    let both = [ROOT, Some(LAMP), ROOT, Some(LAMP)];
    let net = two_cycle();
    assert_peers(&net, RevertToEarlierParent, &[both, both]);
    assert!(agrees(&net, RevertToEarlierParent));
    assert!(matches!(
        synced(&net).reason(P1, RevertToEarlierParent, LAMP),
        Some(PlacementReason::Reverted {
            parent: Entity::ROOT,
            timestamp: 1,
            ..
        })
    ));
}

#[test]
fn revert_to_earlier_parent_three_cycle_reverts_only_the_first_reattached() {
    let all = [Some(TABLE), Some(CHAIR), ROOT, Some(LAMP)];
    assert_peers(&three_cycle(), RevertToEarlierParent, &[all, all, all]);
}

#[test]
fn revert_to_earlier_parent_self_parent_goes_back_to_the_previous_parent() {
    let both = [Some(CHAIR), ROOT, ROOT, Some(LAMP)];
    assert_peers(&self_parent(), RevertToEarlierParent, &[both, both]);
}

#[test]
fn revert_to_earlier_parent_cycle_closed_then_broken_follows_the_declared_parents() {
    let both = [ROOT, Some(LAMP), ROOT, Some(LAMP)];
    assert_peers(
        &cycle_closed_then_broken(),
        RevertToEarlierParent,
        &[both, both],
    );
}

#[test]
fn revert_to_earlier_parent_late_earlier_write_gives_lamp_a_more_recent_earlier_parent() {
    // Before the late write, Lamp's only earlier parent is the root; the late write (older
    // than the register's value, so last-writer-wins ignores it) still adds Chair.
    let (pending, _) = late_earlier_write_pending();
    assert_eq!(
        drawn(&synced(&pending), P2, RevertToEarlierParent),
        [ROOT, Some(LAMP), ROOT, Some(LAMP)]
    );
    let both = [Some(CHAIR), Some(LAMP), ROOT, Some(LAMP)];
    assert_peers(&late_earlier_write(), RevertToEarlierParent, &[both, both]);
}

// ----- MoveOpSkip -----------------------------------------------------------------------------

#[test]
fn move_op_skip_two_cycle_skips_the_later_move_in_lamport_order() {
    // Both moves have Lamport 0: peer 1's sorts first, so peer 2's is skipped everywhere.
    let both = [Some(TABLE), ROOT, ROOT, Some(LAMP)];
    let net = two_cycle();
    assert_peers(&net, MoveOpSkip, &[both, both]);
    assert_eq!(
        synced(&net).reason(P2, MoveOpSkip, TABLE),
        Some(PlacementReason::MoveSkipped { wanted: LAMP })
    );
}

#[test]
fn move_op_skip_three_cycle_skips_the_last_of_three_concurrent_moves() {
    let all = [Some(TABLE), Some(CHAIR), ROOT, Some(LAMP)];
    assert_peers(&three_cycle(), MoveOpSkip, &[all, all, all]);
}

#[test]
fn move_op_skip_self_parent_is_not_a_move() {
    let both = [Some(CHAIR), ROOT, ROOT, Some(LAMP)];
    assert_peers(&self_parent(), MoveOpSkip, &[both, both]);
}

#[test]
fn move_op_skip_cycle_closed_then_broken_keeps_the_skipped_move_skipped() {
    // Table → Lamp was skipped in order before Lamp moved back to the root; order, not the
    // final state, decides, so Table stays at the root although it declares Lamp.
    let both = [ROOT, ROOT, ROOT, Some(LAMP)];
    assert_peers(&cycle_closed_then_broken(), MoveOpSkip, &[both, both]);
}

#[test]
fn move_op_skip_late_earlier_write_waits_then_undoes_and_redoes() {
    // Peer 1's second move depends on its first, so peer 2 holds it back until the first
    // arrives; then the first is applied under peer 2's own move, which is redone, and the
    // held move (Lamp → Table) is skipped.
    let (pending, _) = late_earlier_write_pending();
    let board = synced(&pending);
    assert_eq!(board.waiting_moves(P2), 1);
    assert_eq!(
        drawn(&board, P2, MoveOpSkip),
        [ROOT, Some(LAMP), ROOT, Some(LAMP)]
    );
    let both = [Some(CHAIR), Some(LAMP), ROOT, Some(LAMP)];
    let net = late_earlier_write();
    assert_peers(&net, MoveOpSkip, &[both, both]);
    assert_eq!(synced(&net).waiting_moves(P2), 0);
}

// ----- HideCycle ------------------------------------------------------------------------------

#[test]
fn hide_cycle_two_cycle_hides_the_members_and_their_children() {
    let both = [HIDDEN, HIDDEN, ROOT, HIDDEN];
    assert_peers(&two_cycle(), HideCycle, &[both, both]);
    assert_eq!(
        synced(&two_cycle()).hidden(P1, HideCycle),
        [LAMP, TABLE, BULB]
    );
}

#[test]
fn hide_cycle_three_cycle_hides_all_three() {
    let all = [HIDDEN, HIDDEN, HIDDEN, HIDDEN];
    assert_peers(&three_cycle(), HideCycle, &[all, all, all]);
}

#[test]
fn hide_cycle_self_parent_hides_it_and_its_child() {
    let both = [HIDDEN, ROOT, ROOT, HIDDEN];
    assert_peers(&self_parent(), HideCycle, &[both, both]);
}

#[test]
fn hide_cycle_cycle_closed_then_broken_shows_everything_again() {
    let both = [ROOT, Some(LAMP), ROOT, Some(LAMP)];
    assert_peers(&cycle_closed_then_broken(), HideCycle, &[both, both]);
}

#[test]
fn hide_cycle_late_earlier_write_changes_nothing() {
    let (pending, _) = late_earlier_write_pending();
    let hidden = [HIDDEN, HIDDEN, ROOT, HIDDEN];
    assert_eq!(drawn(&synced(&pending), P2, HideCycle), hidden);
    assert_peers(&late_earlier_write(), HideCycle, &[hidden, hidden]);
}

// ----- one message per tick -------------------------------------------------------------------

#[test]
fn writes_merged_into_one_message_per_tick_carry_every_move_they_made() {
    // Peer 2 puts Table under Chair and removes Table's Transform in the same tick: the runtime
    // sends one message. Its author made two moves; peer 1 must get both, or the second waits
    // forever for the first.
    let mut net = room(2);
    net.write(P2, move_to(TABLE, 3.0, CHAIR)).unwrap();
    net.write(
        P2,
        LocalWrite::DeleteComponent {
            entity: TABLE,
            component: Transform::COMPONENT_ID,
        },
    )
    .unwrap();
    assert_eq!(net.in_flight().len(), 1, "one message");
    deliver_all(&mut net);
    let mut board = synced(&net);
    assert_eq!(board.waiting_moves(P1), 0);
    for policy in TreePolicy::ALL {
        assert_eq!(
            drawn(&board, P1, policy)[1],
            ROOT,
            "{policy:?}: Table at the root"
        );
        assert!(board.agreement(policy).agree, "{policy:?}");
    }
}

// ----- Where each policy puts things in space -------------------------------------------------

/// The world x (meters) of `entity` in `worlds`, else the render tree's.
fn world_x(board: &PolicyBoard, peer: PeerId, policy: TreePolicy, entity: Entity) -> f32 {
    let worlds = board.worlds(peer, policy);
    worlds
        .moved
        .get(&entity)
        .copied()
        .or_else(|| board.view(peer).unwrap().world_matrix(entity))
        .unwrap()
        .w_axis
        .x
}

#[test]
fn a_policy_moves_what_it_places_elsewhere_with_everything_below_it() {
    let board = synced(&two_cycle());
    // IgnoreCyclicChange on peer 1: Lamp (x = 1) under Table (x = 3), Bulb (0.5) under Lamp.
    let worlds = board.worlds(P1, IgnoreCyclicChange);
    let mut moved: Vec<Entity> = worlds.moved.keys().copied().collect();
    moved.sort_unstable();
    assert_eq!(moved, [LAMP, BULB]);
    assert_eq!(world_x(&board, P1, IgnoreCyclicChange, LAMP), 4.0);
    assert_eq!(world_x(&board, P1, IgnoreCyclicChange, BULB), 4.5);
    assert_eq!(world_x(&board, P1, IgnoreCyclicChange, TABLE), 3.0);
    // The render tree draws both at the root: nothing differs from it.
    assert!(board.worlds(P1, RootFallback).is_empty());
    // HideCycle hides the cycle and what hangs below it, and moves nothing.
    let hidden = board.worlds(P1, HideCycle);
    assert!(hidden.moved.is_empty());
    let mut hidden: Vec<Entity> = hidden.hidden.into_iter().collect();
    hidden.sort_unstable();
    assert_eq!(hidden, [LAMP, TABLE, BULB]);
}

#[test]
fn every_policys_worlds_compose_the_locals_along_its_own_parents() {
    let cases = [
        two_cycle(),
        three_cycle(),
        self_parent(),
        cycle_closed_then_broken(),
        late_earlier_write(),
        late_earlier_write_pending().0,
    ];
    for net in &cases {
        let board = synced(net);
        for i in 0..net.peer_count() {
            let peer = PeerId::from_index(i);
            let view = board.view(peer).unwrap();
            for policy in TreePolicy::ALL {
                let worlds = board.worlds(peer, policy);
                let drawn: Vec<Entity> = board
                    .preorder(peer, policy)
                    .into_iter()
                    .map(|(e, _)| e)
                    .filter(|e| !e.is_root())
                    .collect();
                for e in [LAMP, TABLE, CHAIR, BULB] {
                    assert_eq!(
                        worlds.hidden.contains(&e),
                        !drawn.contains(&e),
                        "{policy:?} {peer} {e}"
                    );
                }
                for &e in &drawn {
                    // Walk up the policy's own placements, composing locals.
                    let mut world = glam::Mat4::IDENTITY;
                    let mut current = e;
                    while let Some(Placement::Under(parent)) =
                        board.placement(peer, policy, current)
                    {
                        world = glam::Mat4::from(view.local_affine(current).unwrap()) * world;
                        current = parent;
                    }
                    let got = worlds
                        .moved
                        .get(&e)
                        .copied()
                        .unwrap_or_else(|| view.world_matrix(e).unwrap());
                    assert!(
                        got.abs_diff_eq(world, 1e-5),
                        "{policy:?} {peer} {e}: {got:?} vs {world:?}"
                    );
                }
            }
        }
    }
}

/// Peer 1 renames Chair `n` times: events that move nothing.
fn renames(net: &mut Network, n: usize) {
    for i in 0..n {
        let name = if i % 2 == 0 { "Seat" } else { "Chair" };
        net.write(P1, LocalWrite::name(CHAIR, name)).unwrap();
    }
}

#[test]
fn a_board_kept_behind_a_step_back_is_dropped_once_its_events_are_replaced() {
    use scenetree_core::scene::policy::KEEP_BEFORE;
    let mut net = room(2).with_one_message_per_tick(false);
    net.write(P1, move_to(LAMP, 1.0, TABLE)).unwrap();
    renames(&mut net, 2 * KEEP_BEFORE);
    let mut board = synced(&net);
    assert!(net.step_back());
    board.sync(&net); // keeps the board about KEEP_BEFORE events back, after Lamp's move
    // Unseen by the board: back to the start, then another history as long.
    net.seek(0).unwrap();
    net.write(P1, move_to(CHAIR, 5.0, TABLE)).unwrap();
    renames(&mut net, 2 * KEEP_BEFORE);
    board.sync(&net);
    for policy in TreePolicy::ALL {
        assert_eq!(
            drawn(&board, P1, policy),
            drawn(&synced(&net), P1, policy),
            "{policy:?}"
        );
    }
    assert_eq!(
        drawn(&board, P1, IgnoreCyclicChange),
        [ROOT, ROOT, Some(TABLE), Some(LAMP)],
        "Lamp's move is not on this timeline"
    );
}
