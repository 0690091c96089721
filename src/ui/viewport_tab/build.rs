//! Building the viewport's scene from the document: world matrices from the render tree,
//! shapes from MeshRenderer / GltfContainer (loaded models from the asset library), colours
//! and textures from `core::Material`, `core::VisibilityComponent`, selection and the
//! editor-only hidden flags.

use std::collections::HashSet;

use egui::Color32;

use crate::crdt::Replica;
use crate::editor::Document;
use crate::io::project::AssetPathError;
use crate::model::dcl::{GltfModel, MaterialLook, TextureSource, Visibility};
use crate::model::{Entity, ids};
use crate::scene::policy::PolicyWorlds;
use crate::scene::{Fallback, SceneView};
use crate::ui::style;
use crate::ui::viewport::models::{AssetLibrary, AssetStatus};
use crate::ui::viewport::{DrawItem, GizmoTarget, Shape, ViewportScene};

/// Fills `scene` from the document: its items (see [`draw_items`]), moved and hidden as a tree
/// policy draws them when `policy` is given, and the gizmo targets (the selection, except
/// locked and hidden entities).
pub(super) fn build_scene(
    scene: &mut ViewportScene,
    doc: &Document,
    hidden: &HashSet<Entity>,
    locked: &HashSet<Entity>,
    policy: Option<&PolicyWorlds>,
    library: &mut AssetLibrary,
) {
    let view = doc.view();
    draw_items(
        view,
        doc.replica(),
        hidden,
        |e| doc.selection.contains(e),
        library,
        scene,
    );
    if let Some(worlds) = policy {
        super::policy::apply(scene, worlds);
    }
    let policy_hides = |e: &Entity| policy.is_some_and(|w| w.hidden.contains(e));
    scene.gizmo_targets = doc
        .selection
        .entities()
        .iter()
        .filter(|e| {
            view.contains(**e) && !locked.contains(e) && !hidden.contains(e) && !policy_hides(e)
        })
        .map(|&e| GizmoTarget {
            entity: e,
            local: doc.local_transform(e),
            parent_world: super::policy::parent_world(view, policy, e),
        })
        .collect();
}

/// Fills `scene`'s items and assets with what a render tree draws (the editor's document, or
/// one simulated peer). Hidden entities (the editor's hide flag) hide their subtrees;
/// `VisibilityComponent { visible: false }` hides the entity's own shape, and its subtree when
/// it propagates; implicit parents (no components) are not drawn. Models and textures the
/// scene names are requested from `library` (loads start in the background) and drawn once
/// loaded; until then, and when they fail, a model's entity shows the placeholder. `selected`
/// says which items are outlined.
pub fn draw_items(
    view: &SceneView,
    replica: &Replica,
    hidden: &HashSet<Entity>,
    selected: impl Fn(Entity) -> bool,
    library: &mut AssetLibrary,
    scene: &mut ViewportScene,
) {
    scene.items.clear();
    scene.assets = Default::default();
    let mut stack: Vec<Entity> = view.children_of(Entity::ROOT).collect();
    while let Some(e) = stack.pop() {
        if hidden.contains(&e) {
            continue;
        }
        let visibility = replica
            .component_data(e, ids::VISIBILITY)
            .and_then(Visibility::decode);
        let propagates_hidden = visibility.is_some_and(|v| !v.visible && v.propagate_to_children);
        if !propagates_hidden {
            stack.extend(view.children_of(e));
        }
        if !view.is_live(e) || visibility.is_some_and(|v| !v.visible) {
            continue;
        }
        let mut shape = Shape::for_entity(
            replica.component_data(e, ids::MESH_RENDERER),
            replica.component_data(e, ids::GLTF_CONTAINER),
        );
        if shape == Shape::GltfPlaceholder
            && let Some(id) = replica
                .component_data(e, ids::GLTF_CONTAINER)
                .and_then(GltfModel::decode)
                .and_then(|m| library.request_src(&m.src).ok())
            && let Some(model) = library.model(id)
        {
            shape = Shape::Model {
                asset: id,
                bounds: model.bounds,
            };
            scene.assets.models.insert(id, model.clone());
        }
        let fallback = view.fallback_reason(e);
        // A Material colours MeshRenderer shapes only (models bring their own materials).
        let is_mesh_shape = !matches!(
            shape,
            Shape::Model { .. } | Shape::Marker | Shape::GltfPlaceholder
        );
        let material = is_mesh_shape
            .then(|| replica.component_data(e, ids::MATERIAL))
            .flatten()
            .and_then(MaterialLook::decode);
        let mut color = color_for(e, fallback);
        let mut texture = None;
        if let Some(material) = &material {
            if matches!(fallback, Fallback::None) {
                color = style::scene_color(material.base_color);
            }
            texture = match &material.texture {
                Some(TextureSource::File { src }) if !src.trim().is_empty() => Some(src.as_str()),
                _ => None, // avatar portraits and videos are not shown
            }
            .and_then(|src| library.request_src(src).ok())
            .and_then(|id| Some((id, library.texture(id)?.clone())))
            .map(|(id, loaded)| {
                scene.assets.textures.insert(id, loaded);
                id
            });
        }
        scene.items.push(DrawItem {
            entity: e,
            world: view.world_matrix(e).unwrap_or_default(),
            shape,
            color,
            texture,
            selected: selected(e),
        });
    }
}

/// What the viewport knows about one entity's glTF model, for the inspector.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelState {
    /// The GltfContainer value does not decode.
    Undecodable,
    /// The path does not name a file of the project.
    BadPath {
        /// The `src` as written.
        src: String,
        /// Why.
        reason: AssetPathError,
    },
    /// Loading in the background.
    Loading {
        /// The file.
        path: std::path::PathBuf,
    },
    /// Drawn.
    Loaded {
        /// The file.
        path: std::path::PathBuf,
        /// Triangles, parts and textures.
        stats: crate::ui::viewport::models::ModelStats,
    },
    /// The file could not be read; the placeholder is drawn.
    Failed {
        /// The file.
        path: std::path::PathBuf,
        /// The loader's message.
        reason: String,
    },
}

/// The state of `entity`'s model, `None` when it has no GltfContainer.
pub fn model_state(
    doc: &Document,
    entity: Entity,
    library: &mut AssetLibrary,
) -> Option<ModelState> {
    let bytes = doc.replica().component_data(entity, ids::GLTF_CONTAINER)?;
    let Some(model) = GltfModel::decode(bytes) else {
        return Some(ModelState::Undecodable);
    };
    let id = match library.request_src(&model.src) {
        Ok(id) => id,
        Err(reason) => {
            return Some(ModelState::BadPath {
                src: model.src,
                reason,
            });
        }
    };
    let path = library.path(id).to_path_buf();
    Some(match library.status(id) {
        AssetStatus::Loading => ModelState::Loading { path },
        AssetStatus::Ready(_) => match library.model(id) {
            Some(m) => ModelState::Loaded {
                path,
                stats: m.stats,
            },
            None => ModelState::Failed {
                path,
                reason: "the file is an image, not a glTF model".into(),
            },
        },
        AssetStatus::Failed(reason) => ModelState::Failed {
            path,
            reason: reason.clone(),
        },
    })
}

/// A stable, pleasant colour per entity; re-rooted entities are tinted so the fallback shows.
fn color_for(entity: Entity, reason: Fallback<'_>) -> Color32 {
    match reason {
        Fallback::Cycle(_) => return style::CYCLE_TINT,
        Fallback::MissingParent => return style::MISSING_PARENT_TINT,
        Fallback::None => {}
    }
    let h = entity.0.wrapping_mul(0x9E37_79B9) >> 29;
    style::ENTITY_PALETTE[h as usize % style::ENTITY_PALETTE.len()]
}
