//! The order explorer: every delivery order of a small trace to one replica, checked against a
//! brute-force enumeration.

use std::collections::BTreeSet;

use proptest::prelude::*;
use scenetree_core::crdt::{CrdtMessage, PeerId, Replica};
use scenetree_core::model::{Entity, ids};
use scenetree_core::scene::SceneView;
use scenetree_core::scene::order_explorer::{ExploreError, explore_inbox, explore_orders};

use crate::furnished;
use furnished::*;

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
    assert!(x.converged_cycles().is_empty(), "the cycle was transient");
}

#[test]
fn the_explorer_says_when_every_order_ends_in_a_cycle_for_good() {
    // Lesson 1's trace: Lamp under Table and Table under Lamp, each from another peer.
    let start = furnished(2, 0).initial_replica().clone();
    let (mut one, mut two) = (start.clone(), start.clone());
    let msgs = vec![
        one.put_transform(LAMP, &at(1.0, TABLE)).unwrap(),
        two.put_transform(TABLE, &at(3.0, LAMP)).unwrap(),
    ];
    let x = explore_orders(&start, &msgs).unwrap();
    assert!(x.converges(), "one final state");
    assert_eq!(x.converged_cycles(), [vec![LAMP, TABLE]]);
    assert_eq!(x.finals[0].cycles, [vec![LAMP, TABLE]]);
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
type BruteForce = (u64, u64, Vec<u128>, BTreeSet<Vec<Entity>>, BTreeSet<Entity>);

fn brute_force(start: &Replica, msgs: &[CrdtMessage]) -> BruteForce {
    fn go(
        r: &Replica,
        msgs: &[CrdtMessage],
        left: &mut Vec<usize>,
        cycled: bool,
        out: &mut BruteForce,
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
            let view = SceneView::from_source(&next);
            let cyc = !view.cycles().is_empty();
            out.3
                .extend(view.cycles().into_iter().map(<[Entity]>::to_vec));
            out.4.extend(view.rerooted().into_iter().map(|(e, _)| e));
            go(&next, msgs, left, cycled || cyc, out);
            left.insert(k, i);
        }
    }
    let mut out = (0, 0, Vec::new(), BTreeSet::new(), BTreeSet::new());
    go(start, msgs, &mut (0..msgs.len()).collect(), false, &mut out);
    out.2.sort_unstable();
    out.2.dedup();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The explorer's counts equal a brute-force enumeration of every order.
    #[test]
    fn the_explorer_agrees_with_brute_force(
        writes in prop::collection::vec((0u8..3, 0u8..6, 0u8..4, 0u8..4), 1..6),
    ) {
        let start = furnished(2, 0).initial_replica().clone();
        let mut authors = [start.clone(), start.clone(), start.clone()];
        let mut msgs: Vec<CrdtMessage> = Vec::new();
        for &(author, kind, e, parent) in &writes {
            let author = &mut authors[author as usize];
            let e = Entity(512 + u32::from(e % 3));
            let parent = if parent == 3 { Entity::ROOT } else { Entity(512 + u32::from(parent)) };
            // Writes to entities the author deleted are refused; they add nothing.
            match kind {
                0..=2 => msgs.extend(author.put_transform(e, &at(1.0, parent)).ok()),
                3 => msgs.extend(author.delete_component(e, ids::TRANSFORM)),
                4 => msgs.extend(author.delete_entity(e).unwrap_or_default()),
                _ => msgs.extend(author.append(e, 1063, vec![parent.0 as u8]).ok()),
            }
        }
        msgs.truncate(6);
        let x = explore_orders(&start, &msgs).unwrap();
        let (orders, cycled, finals, cycles, rerooted) = brute_force(&start, &msgs);
        prop_assert_eq!(x.orders, orders);
        prop_assert_eq!(x.orders_through_cycle, cycled);
        let mut digests: Vec<u128> = x.finals.iter().map(|f| f.digest).collect();
        digests.sort_unstable();
        prop_assert_eq!(digests, finals);
        prop_assert_eq!(x.finals.iter().map(|f| f.orders).sum::<u64>(), orders);
        prop_assert_eq!(x.cycle_example.is_some(), cycled > 0);
        prop_assert_eq!(x.cycles, cycles.into_iter().collect::<Vec<_>>());
        prop_assert_eq!(
            x.rerooted.iter().map(|r| r.entity).collect::<Vec<_>>(),
            rerooted.into_iter().collect::<Vec<_>>()
        );
    }
}
