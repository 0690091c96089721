//! Shared by the Decentraland file tests: the fixtures, and what a scene shows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, Transform, decode_name, ids};
use scenetree_dcl::{GltfModel, MeshShape};

pub use crate::repo_root;

/// The reference runtime's scripts (`oracle/`, `@dcl/ecs` installed by `npm ci --prefix oracle`).
pub fn oracle_dir() -> PathBuf {
    let dir = repo_root().join("oracle");
    assert!(
        dir.join("node_modules/@dcl/ecs").exists(),
        "the @dcl/ecs oracle is not installed: run `npm ci --prefix oracle` first"
    );
    dir
}

/// Runs an oracle script; panics with its stderr when it fails.
pub fn node(script: &str, args: &[&Path]) -> Vec<u8> {
    let out = Command::new("node")
        .arg(script)
        .args(args)
        .current_dir(oracle_dir())
        .output()
        .expect("node must be installed to run the oracle");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A pair of scene files: (label, main.crdt, main.composite).
pub struct Pair {
    pub label: &'static str,
    pub crdt: PathBuf,
    pub composite: PathBuf,
}

/// The official templates (`tests/fixtures/dcl/`) and the scene written by @dcl/ecs
/// itself (`tests/fixtures/ecs/`).
pub fn pairs() -> Vec<Pair> {
    let root = repo_root();
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
    scenetree_core::scene::SceneView::from_source(replica).preorder()
}
