//! The bundled example scenes: a small showroom for trying the editor, and a large generated
//! scene (65,535 entities) for checking speed. Both are deterministic.

use glam::{Quat, Vec3};

use crate::crdt::Replica;
use crate::model::{Entity, Transform, encode_name, ids};

/// MeshRenderer values (protobuf `PBMeshRenderer` with an empty mesh message in the `mesh`
/// oneof: box = field 1, sphere = 2, cylinder = 3, plane = 4).
pub mod mesh {
    /// A unit box.
    pub const BOX: &[u8] = &[0x0a, 0x00];
    /// A unit sphere.
    pub const SPHERE: &[u8] = &[0x12, 0x00];
    /// A unit cylinder.
    pub const CYLINDER: &[u8] = &[0x1a, 0x00];
    /// A unit plane.
    pub const PLANE: &[u8] = &[0x22, 0x00];
}

struct Builder {
    replica: Replica,
    /// The next entity number (u32 so that taking the very last number, 65,535, cannot wrap).
    next: u32,
}

impl Builder {
    fn add(&mut self, name: &str, parent: Entity, t: Transform, mesh: Option<&[u8]>) -> Entity {
        let number =
            u16::try_from(self.next).expect("callers stay within the 65,535 entity numbers");
        let entity = Entity::from_parts(number, 0);
        self.next += 1;
        let t = Transform { parent, ..t };
        self.replica
            .put_transform(entity, &t)
            .expect("fresh entity");
        self.replica
            .put(entity, ids::NAME, encode_name(name))
            .expect("fresh entity");
        if let Some(m) = mesh {
            self.replica
                .put(entity, ids::MESH_RENDERER, m.to_vec())
                .expect("fresh entity");
        }
        entity
    }
}

fn trs(position: [f32; 3], rotation: Quat, scale: [f32; 3]) -> Transform {
    Transform {
        position: Vec3::from(position),
        rotation,
        scale: Vec3::from(scale),
        parent: Entity::ROOT,
    }
}

/// A small showroom: a floor, a table group (rotated, scaled) with a lamp, a shelf with books,
/// an orrery whose moon orbits a planet, and a sign. Fourteen named entities, nested up to four
/// levels, with rotated and scaled parents.
pub fn showroom() -> Replica {
    let mut b = Builder {
        replica: Replica::new(),
        next: u32::from(Entity::FIRST_SCENE_NUMBER),
    };
    let root = Entity::ROOT;
    let deg = |d: f32| d.to_radians();
    b.add(
        "Floor",
        root,
        trs(
            [8.0, 0.0, 8.0],
            Quat::from_rotation_x(deg(90.0)),
            [16.0, 16.0, 1.0],
        ),
        Some(mesh::PLANE),
    );
    let table = b.add(
        "Table",
        root,
        trs(
            [5.0, 0.0, 6.0],
            Quat::from_rotation_y(deg(30.0)),
            [1.5, 1.5, 1.5],
        ),
        None,
    );
    b.add(
        "Tabletop",
        table,
        trs([0.0, 0.8, 0.0], Quat::IDENTITY, [2.0, 0.08, 1.0]),
        Some(mesh::BOX),
    );
    for (i, (x, z)) in [(-0.9, -0.4), (0.9, -0.4), (-0.9, 0.4), (0.9, 0.4)]
        .into_iter()
        .enumerate()
    {
        b.add(
            &format!("Leg {}", i + 1),
            table,
            trs([x, 0.4, z], Quat::IDENTITY, [0.08, 0.8, 0.08]),
            Some(mesh::CYLINDER),
        );
    }
    let lamp = b.add(
        "Lamp",
        table,
        trs([0.5, 0.84, 0.0], Quat::IDENTITY, [0.12, 0.5, 0.12]),
        Some(mesh::CYLINDER),
    );
    b.add(
        "Bulb",
        lamp,
        trs([0.0, 0.6, 0.0], Quat::IDENTITY, [1.6, 0.4, 1.6]),
        Some(mesh::SPHERE),
    );
    let shelf = b.add(
        "Shelf",
        root,
        trs(
            [11.0, 0.0, 9.0],
            Quat::from_rotation_y(deg(-45.0)),
            [1.0, 1.0, 1.0],
        ),
        Some(mesh::BOX),
    );
    for i in 0..3 {
        let tilt = Quat::from_rotation_z(deg(-8.0 * i as f32));
        b.add(
            &format!("Book {}", i + 1),
            shelf,
            trs([-0.3 + 0.25 * i as f32, 0.65, 0.0], tilt, [0.15, 0.3, 0.4]),
            Some(mesh::BOX),
        );
    }
    let orrery = b.add(
        "Orrery",
        root,
        trs(
            [8.0, 2.5, 12.0],
            Quat::from_rotation_z(deg(20.0)),
            [0.8, 0.8, 0.8],
        ),
        None,
    );
    let planet = b.add(
        "Planet",
        orrery,
        trs(
            [1.5, 0.0, 0.0],
            Quat::from_rotation_y(deg(60.0)),
            [1.0, 1.0, 1.0],
        ),
        Some(mesh::SPHERE),
    );
    b.add(
        "Moon",
        planet,
        trs([0.9, 0.0, 0.0], Quat::IDENTITY, [0.3, 0.3, 0.3]),
        Some(mesh::SPHERE),
    );
    b.add(
        "Sign",
        root,
        trs(
            [3.0, 1.5, 12.0],
            Quat::from_rotation_y(deg(-20.0)),
            [2.0, 1.0, 1.0],
        ),
        Some(mesh::PLANE),
    );
    b.replica
}

/// A large generated scene of `count` entities (at most 65,535 − 512): 64 districts at the
/// root, each a grid of buildings with floors and props below them, every fourth entity with a
/// mesh. Deterministic.
pub fn large(count: usize) -> Replica {
    let count = count.min((u16::MAX - Entity::FIRST_SCENE_NUMBER) as usize + 1);
    let mut b = Builder {
        replica: Replica::new(),
        next: u32::from(Entity::FIRST_SCENE_NUMBER),
    };
    let mut parents: Vec<Entity> = Vec::new();
    let meshes = [mesh::BOX, mesh::SPHERE, mesh::CYLINDER, mesh::BOX];
    for i in 0..count {
        let (parent, t) = if i < 64 {
            let (x, z) = ((i % 8) as f32 * 20.0, (i / 8) as f32 * 20.0);
            (
                Entity::ROOT,
                trs([x, 0.0, z], Quat::IDENTITY, [1.0, 1.0, 1.0]),
            )
        } else {
            // A ternary tree under the districts: about seven levels deep at 65,535 entities.
            let parent = parents[(i - 64) / 3];
            let a = (i as f32 * 0.618).fract() * std::f32::consts::TAU;
            (
                parent,
                trs(
                    [a.cos() * 1.5, 0.5, a.sin() * 1.5],
                    Quat::from_rotation_y(a),
                    [0.7, 0.7, 0.7],
                ),
            )
        };
        let mesh = (i % 4 == 0).then(|| meshes[i / 4 % 4]);
        let e = b.add(&format!("Node {i}"), parent, t, mesh);
        parents.push(e);
    }
    b.replica
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::SceneView;

    #[test]
    fn the_showroom_has_nested_rotated_and_scaled_parents_and_no_fallbacks() {
        let r = showroom();
        let view = SceneView::from_source(&r);
        assert_eq!(r.live_entity_count(), 17);
        assert!(view.rerooted().is_empty());
        assert!(view.preorder().iter().any(|(_, depth)| *depth >= 3));
    }

    #[test]
    fn the_largest_scene_takes_every_scene_number_without_overflowing() {
        let r = large(usize::MAX);
        assert_eq!(r.live_entity_count(), 65_024);
        assert!(r.is_live(Entity::from_parts(u16::MAX, 0)));
    }

    #[test]
    fn the_large_scene_is_deterministic_and_deep_enough() {
        let a = large(5000);
        assert_eq!(a.live_entity_count(), 5000);
        assert_eq!(a.digest(), large(5000).digest());
        let view = SceneView::from_source(&a);
        assert!(view.preorder().iter().map(|(_, d)| *d).max().unwrap() >= 5);
    }
}
