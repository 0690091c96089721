//! Shared by the Decentraland file tests: the fixtures, and what a scene shows.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use scenetree::crdt::Replica;
use scenetree::model::dcl::{GltfModel, MeshShape};
use scenetree::model::{Entity, Transform, decode_name, ids};

/// A pair of scene files: (label, main.crdt, main.composite).
pub struct Pair {
    pub label: &'static str,
    pub crdt: PathBuf,
    pub composite: PathBuf,
}

/// The official templates (`tests/fixtures/dcl/`) and the scene written by @dcl/ecs
/// itself (`tests/fixtures/ecs/`).
pub fn pairs() -> Vec<Pair> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("tests/fixtures/dcl");
    let mut out: Vec<Pair> = ["Cozy-House-Template", "art-gallery-template"]
        .into_iter()
        .map(|label| Pair {
            label,
            crdt: shared.join(label).join("main.crdt"),
            composite: shared.join(label).join("main.composite"),
        })
        .collect();
    out.push(Pair {
        label: "written by @dcl/ecs",
        crdt: root.join("tests/fixtures/ecs/scene.crdt"),
        composite: root.join("tests/fixtures/ecs/scene.composite"),
    });
    out
}

/// What scenetree shows of one entity: its name, its Transform, its shape, its model.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub name: Option<String>,
    pub transform: Option<Transform>,
    pub mesh: Option<MeshShape>,
    pub gltf: Option<String>,
}

/// Every live entity holding a Transform, a Name, a MeshRenderer or a GltfContainer.
pub fn shown(replica: &Replica) -> BTreeMap<u32, Shown> {
    let mut out = BTreeMap::new();
    for e in replica.live_entities() {
        let s = Shown {
            name: replica.component_data(e, ids::NAME).and_then(decode_name),
            transform: replica.transform(e),
            mesh: replica
                .component_data(e, ids::MESH_RENDERER)
                .and_then(MeshShape::decode),
            gltf: replica
                .component_data(e, ids::GLTF_CONTAINER)
                .and_then(GltfModel::decode)
                .map(|g| g.src),
        };
        if s.name.is_some() || s.transform.is_some() || s.mesh.is_some() || s.gltf.is_some() {
            out.insert(e.0, s);
        }
    }
    out
}

/// The entity as it appears in `scenetree tree` order: (entity, depth).
pub fn hierarchy(replica: &Replica) -> Vec<(Entity, u32)> {
    scenetree::scene::SceneView::from_source(replica).preorder()
}
