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
//! `cargo bench --bench policies`

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

criterion_group!(benches, policies, chain);
criterion_main!(benches);
