//! Generated scenes for the viewport demo, the rendering tests and the benchmark.

// The demo scenes' colours are content (what the pixels are checked against), not the look.
#![allow(clippy::disallowed_methods)]

use eframe::egui::Color32;
use glam::{Mat4, Quat, Vec3};

use super::{DrawItem, GizmoTarget, Shape, ViewportScene};
use scenetree_core::model::{Entity, Transform};

/// Entity number of the showroom's selected box.
pub const SHOWROOM_SELECTED: Entity = Entity::from_parts(512, 0);

/// A small scene with one of every shape on the ground, in front of the default camera:
///
/// | entity | shape | position (m) | colour |
/// |---|---|---|---|
/// | 512 | box, **selected** | (−3, 0.5, 2) | blue |
/// | 513 | sphere | (−1, 0.5, 2) | green |
/// | 514 | cylinder | (1, 0.5, 2) | purple |
/// | 515 | cone (cylinder, top radius 0) | (3, 0.5, 2) | teal |
/// | 516 | plane, facing −Z (the camera) | (0, 1, 5) | grey |
/// | 517 | marker (no mesh) | (−2, 0.5, −1) | white |
/// | 518 | glTF placeholder | (2, 0.5, −1) | magenta |
///
/// The box is also the gizmo target, at the root.
pub fn showroom() -> ViewportScene {
    let at = |x: f32, y: f32, z: f32| Transform {
        position: Vec3::new(x, y, z),
        ..Transform::IDENTITY
    };
    let cone = Shape::Cylinder {
        radius_top: 0.0,
        radius_bottom: 0.5,
    };
    let cylinder = Shape::Cylinder {
        radius_top: 0.5,
        radius_bottom: 0.5,
    };
    let entries: [(u16, Shape, Transform, Color32); 7] = [
        (
            512,
            Shape::Box,
            at(-3.0, 0.5, 2.0),
            Color32::from_rgb(60, 90, 200),
        ),
        (
            513,
            Shape::Sphere,
            at(-1.0, 0.5, 2.0),
            Color32::from_rgb(70, 170, 80),
        ),
        (
            514,
            cylinder,
            at(1.0, 0.5, 2.0),
            Color32::from_rgb(150, 80, 190),
        ),
        (
            515,
            cone,
            at(3.0, 0.5, 2.0),
            Color32::from_rgb(40, 160, 160),
        ),
        (
            516,
            Shape::Plane,
            at(0.0, 1.0, 5.0),
            Color32::from_rgb(160, 160, 160),
        ),
        (
            517,
            Shape::Marker,
            at(-2.0, 0.5, -1.0),
            Color32::from_rgb(230, 230, 230),
        ),
        (
            518,
            Shape::GltfPlaceholder,
            at(2.0, 0.5, -1.0),
            Color32::from_rgb(200, 60, 160),
        ),
    ];
    let items = entries
        .iter()
        .map(|&(n, shape, t, color)| DrawItem {
            entity: Entity::from_parts(n, 0),
            world: t.local_matrix(),
            shape,
            color,
            selected: Entity::from_parts(n, 0) == SHOWROOM_SELECTED,
            below_selected: false,
            texture: None,
        })
        .collect();
    ViewportScene {
        items,
        generation: 1,
        gizmo_targets: vec![GizmoTarget {
            entity: SHOWROOM_SELECTED,
            local: entries[0].2,
            parent_world: Mat4::IDENTITY,
        }],
        ..Default::default()
    }
}

/// `count` items (at most 65,535, the protocol's entity numbers) on a square grid 1.5 m apart,
/// cycling through the mesh shapes with varied rotations, scales and colours; every 1000th is
/// selected. For stress tests and benchmarks.
pub fn stress(count: usize) -> ViewportScene {
    let count = count.min(u16::MAX as usize);
    let side = (count as f32).sqrt().ceil().max(1.0) as usize;
    let shapes = [
        Shape::Box,
        Shape::Sphere,
        Shape::Cylinder {
            radius_top: 0.5,
            radius_bottom: 0.5,
        },
        Shape::Plane,
        Shape::Marker,
    ];
    let items = (0..count)
        .map(|i| {
            let (gx, gz) = ((i % side) as f32, (i / side) as f32);
            let position = Vec3::new(gx * 1.5, 0.5, gz * 1.5);
            let rotation = Quat::from_rotation_y(i as f32 * 0.37);
            let scale = Vec3::splat(0.6 + (i % 7) as f32 * 0.1);
            DrawItem {
                entity: Entity(i as u32 + 1),
                world: Mat4::from_scale_rotation_translation(scale, rotation, position),
                shape: shapes[i % shapes.len()],
                color: Color32::from_rgb(
                    (60 + (i * 37) % 180) as u8,
                    (60 + (i * 91) % 180) as u8,
                    (60 + (i * 53) % 180) as u8,
                ),
                selected: i % 1000 == 0,
                below_selected: false,
                texture: None,
            }
        })
        .collect();
    ViewportScene {
        items,
        generation: 1,
        gizmo_targets: Vec::new(),
        ..Default::default()
    }
}
