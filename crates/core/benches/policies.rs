//! Cost of keeping all five tree policies up to date for the peers of a simulated network on
//! the large generated scene (65,024 entities, two peers): `PolicyBoard::sync` after one
//! parent change by peer 1 (the write itself, into the network, is not timed).
//!
//! Then what the Peers panel recomputes after each edit or delivery on that scene:
//! `Replica::digest` of one peer, and `Network::convergence` while the two peers differ (the
//! edit still in flight), which also lists the entities that differ.
//!
//! And `policies_chain/first_sync_60000_deep`: the board's first `sync` on a chain 60,000
//! deep (what starting the Policies view on such a scene costs): every policy's initial tree
//! is built move by move, each checked for a cycle.
//!
//! And `policies_interleaved/sync_after_4000_moves_each_of_two_peers`: peer 1 chains 4,000
//! entities and peer 2 another 4,000, concurrently (their moves' Lamport numbers interleave),
//! then "Deliver all" (untimed); timed: the board's sync, where each peer takes the other's
//! moves into its move log (MoveOpSkip undoes and redoes the moves after the earliest one).
//!
//! And `policies_65024_entities/step_back_after_16000_events`: peer 1 moves 8,000 entities of
//! the large scene to the root, every message is delivered (16,000 events), and the timeline
//! steps back one event and forward again; timed: the board's two syncs (what the Policies view
//! costs per step back; the network's own seek is not timed).
//!
//! `cargo bench --bench policies`

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use scenetree_core::crdt::{LocalWrite, Network, PeerId, Replica};
use scenetree_core::examples;
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::policy::PolicyBoard;

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

const P1: PeerId = PeerId(1);

/// Times `sync` after each of `writes`, taken in turn, on an already synced board.
fn time_syncs(
    net: &mut Network,
    board: &mut PolicyBoard,
    writes: &[LocalWrite],
    iters: u64,
) -> Duration {
    let mut total = Duration::ZERO;
    for i in 0..iters {
        let write = writes[i as usize % writes.len()].clone();
        net.write(P1, write)
            .expect("the bench writes existing entities");
        let start = Instant::now();
        board.sync(net);
        total += start.elapsed();
    }
    total
}

/// `entity` under `parent`, keeping its local values.
fn reparent(net: &Network, entity: Entity, parent: Entity) -> LocalWrite {
    let mut t = net
        .replica(P1)
        .unwrap()
        .transform(entity)
        .expect("the large scene gives every entity a Transform");
    t.parent = parent;
    LocalWrite::transform(entity, &t)
}

fn policies(c: &mut Criterion) {
    let mut net = Network::new(2, 1, &examples::large(usize::MAX)).unwrap();
    let mut board = PolicyBoard::new();
    board.sync(&net);

    let mut group = c.benchmark_group("policies_65024_entities");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(8));

    group.bench_function("nothing_changed", |b| b.iter(|| board.sync(&net)));

    // Node 600 (a building with its floors) moves between two districts.
    let entity = Entity(600);
    let writes = [
        reparent(&net, entity, Entity(513)),
        reparent(&net, entity, Entity(514)),
    ];
    group.bench_function("one_reparent", |b| {
        b.iter_custom(|iters| time_syncs(&mut net, &mut board, &writes, iters))
    });

    // District 512 under its own grandchild 768 (a cycle cutting off the district's 1,016
    // entities), then back to the root, in turn.
    let district = Entity(512);
    let writes = [
        reparent(&net, district, Entity(768)),
        reparent(&net, district, Entity::ROOT),
    ];
    group.bench_function("close_or_open_a_cycle_over_1016_entities", |b| {
        b.iter_custom(|iters| time_syncs(&mut net, &mut board, &writes, iters))
    });
    group.finish();

    // Peer 1 has moved node 600; peer 2 has not heard of it yet.
    let mut net = Network::new(2, 1, &examples::large(usize::MAX)).unwrap();
    let write = reparent(&net, Entity(600), Entity(513));
    net.write(P1, write).expect("node 600 exists");
    let mut group = c.benchmark_group("peers_65024_entities");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(6));
    group.bench_function("digest_of_one_peer", |b| {
        b.iter(|| net.replica(P1).unwrap().digest())
    });
    group.bench_function("convergence_while_they_differ", |b| {
        b.iter(|| {
            let convergence = net.convergence();
            assert_eq!(convergence.differing, [Entity(600)]);
            convergence
        })
    });
    group.finish();
}

fn step_back(c: &mut Criterion) {
    use scenetree_core::crdt::network::{DeliveryOrder, MessageFilter};
    const MOVES: u32 = 8_000;
    let mut net = Network::new(2, 1, &examples::large(usize::MAX)).unwrap();
    for i in 0..MOVES {
        let entity = Entity(512 + 64 + i * 7); // spread over the districts, below their tops
        net.write(P1, reparent(&net, entity, Entity::ROOT))
            .expect("the large scene has these entities");
    }
    net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
    assert_eq!(net.events().len(), 2 * MOVES as usize);
    let mut board = PolicyBoard::new();
    board.sync(&net);
    let mut group = c.benchmark_group("policies_65024_entities");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("step_back_after_16000_events", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                assert!(net.step_back());
                let start = Instant::now();
                board.sync(&net);
                total += start.elapsed();
                assert!(net.step_forward());
                let start = Instant::now();
                board.sync(&net);
                total += start.elapsed();
            }
            total
        })
    });
    group.finish();
}

fn chain(c: &mut Criterion) {
    let mut initial = Replica::new();
    for i in 0..60_000 {
        let parent = if i == 0 {
            Entity::ROOT
        } else {
            Entity(512 + i - 1)
        };
        let t = Transform {
            parent,
            ..Transform::IDENTITY
        };
        initial
            .put_transform(Entity(512 + i), &t)
            .expect("a scene entity");
    }
    let net = Network::new(2, 1, &initial).unwrap();
    let mut group = c.benchmark_group("policies_chain");
    group.sample_size(10);
    group.bench_function("first_sync_60000_deep", |b| {
        b.iter(|| {
            let mut board = PolicyBoard::new();
            board.sync(&net);
            board
        })
    });
    group.finish();
}

fn interleaved(c: &mut Criterion) {
    use scenetree_core::crdt::network::{DeliveryOrder, MessageFilter};
    const N: u32 = 4_000;
    let mut initial = Replica::new();
    for i in 0..2 * N {
        initial
            .put_transform(Entity(512 + i), &Transform::IDENTITY)
            .expect("a scene entity");
    }
    let delivered = || {
        let mut net = Network::new(2, 1, &initial).unwrap();
        let mut board = PolicyBoard::new();
        for i in 1..N {
            for (peer, base) in [(PeerId(1), 0), (PeerId(2), N)] {
                let write = reparent(&net, Entity(512 + base + i), Entity(512 + base + i - 1));
                net.write(peer, write).expect("an entity of the scene");
            }
        }
        board.sync(&net);
        net.deliver_all(DeliveryOrder::Send, MessageFilter::ALL);
        (net, board)
    };
    let mut group = c.benchmark_group("policies_interleaved");
    group.sample_size(10);
    group.bench_function("sync_after_4000_moves_each_of_two_peers", |b| {
        b.iter_batched(
            delivered,
            |(net, mut board)| {
                board.sync(&net);
                board
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, policies, step_back, chain, interleaved);
criterion_main!(benches);
