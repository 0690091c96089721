//! Shared by the network, property and order-explorer tests: three named pieces of furniture
//! at the root of every peer, and the writes that move them.

use glam::Vec3;
use scenetree_core::crdt::{LocalWrite, Network, PeerId, Replica};
use scenetree_core::model::{Entity, Transform, encode_name, ids};

pub const LAMP: Entity = Entity(512);
pub const TABLE: Entity = Entity(513);
pub const CHAIR: Entity = Entity(514);
pub const P1: PeerId = PeerId(1);
pub const P2: PeerId = PeerId(2);
pub const P3: PeerId = PeerId(3);

/// A Transform `x` meters along X under `parent`.
pub fn at(x: f32, parent: Entity) -> Transform {
    Transform {
        position: Vec3::new(x, 0.0, 0.0),
        parent,
        ..Transform::IDENTITY
    }
}

/// The write that puts `entity` `x` meters along X under `parent`.
pub fn move_to(entity: Entity, x: f32, parent: Entity) -> LocalWrite {
    LocalWrite::transform(entity, &at(x, parent))
}

/// Lamp, Table and Chair at the root, named, timestamps 1, on every peer.
pub fn furnished(peers: usize, seed: u64) -> Network {
    let mut start = Replica::new();
    for (e, name, x) in [
        (LAMP, "Lamp", 1.0),
        (TABLE, "Table", 3.0),
        (CHAIR, "Chair", 5.0),
    ] {
        start.put_transform(e, &at(x, Entity::ROOT)).unwrap();
        start.put(e, ids::NAME, encode_name(name)).unwrap();
    }
    Network::new(peers, seed, &start).unwrap()
}
