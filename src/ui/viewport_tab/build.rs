//! Building the viewport's scene from the document: world matrices from the render tree,
//! shapes from MeshRenderer / GltfContainer (loaded models from the asset library), colours
//! and textures from `core::Material`, `core::VisibilityComponent`, selection and the
//! editor-only hidden flags.

use std::collections::HashSet;

use egui::Color32;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::ui::style;
use scenetree_core::crdt::{Replica, ReplicaVersion};
use scenetree_core::model::{Entity, ids};
use scenetree_core::scene::policy::PolicyWorlds;
use scenetree_core::scene::{Fallback, SceneView};
use scenetree_dcl::io::project::AssetPathError;
use scenetree_dcl::{GltfModel, MaterialLook, TextureSource, Visibility};
use scenetree_editor::Document;
use scenetree_viewport::models::{AssetLibrary, AssetStatus, SceneAssets};
use scenetree_viewport::{DrawItem, GizmoTarget, Shape, ViewportScene};

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
    looks: &mut LookCache,
) {
    draw_items(
        doc.view(),
        doc.replica(),
        hidden,
        |e| doc.selection.contains(e),
        policy,
        library,
        looks,
        scene,
    );
    if let Some(worlds) = policy {
        super::policy::apply(scene, worlds);
    }
    scene.gizmo_targets = gizmo_targets(doc, hidden, locked, policy);
}

/// After a change of the selection alone: the items' outlines and the gizmo targets.
pub(super) fn reselect(
    scene: &mut ViewportScene,
    doc: &Document,
    hidden: &HashSet<Entity>,
    locked: &HashSet<Entity>,
    policy: Option<&PolicyWorlds>,
) {
    let below = below_selection(doc.view(), doc.selection.entities());
    for item in &mut scene.items {
        item.selected = doc.selection.contains(item.entity);
        item.below_selected = !item.selected && below.contains(&item.entity);
    }
    scene.gizmo_targets = gizmo_targets(doc, hidden, locked, policy);
}

/// Every entity below a selected one in the render tree (the selected ones only when they are
/// below another). Work in proportion to the selected subtrees; an Fx set, since large
/// selections hash many ids in one frame (`benches/editor_frame.rs`).
fn below_selection(view: &SceneView, selection: &[Entity]) -> FxHashSet<Entity> {
    let mut below = FxHashSet::default();
    let mut stack: Vec<Entity> = selection
        .iter()
        .flat_map(|&s| view.children_of(s))
        .collect();
    while let Some(e) = stack.pop() {
        // A subtree already reached (below another selected entity) is not walked again.
        if below.insert(e) {
            stack.extend(view.children_of(e));
        }
    }
    below
}

/// The selection, except locked and hidden entities and those below another target (a child
/// moves with its parent, as in Unity and Godot: moving both applied the drag to the child
/// twice), with what the gizmo needs of each. The primary selection (the inspector's subject)
/// comes first when it is a target: the gizmo stands on it, as Unity's stands on the active
/// object, so that the handle and the values beside it are of the same entity.
pub(super) fn gizmo_targets(
    doc: &Document,
    hidden: &HashSet<Entity>,
    locked: &HashSet<Entity>,
    policy: Option<&PolicyWorlds>,
) -> Vec<GizmoTarget> {
    let view = doc.view();
    let policy_hides = |e: &Entity| policy.is_some_and(|w| w.hidden.contains(e));
    let movable: Vec<Entity> = doc
        .selection
        .entities()
        .iter()
        .copied()
        .filter(|e| {
            view.contains(*e) && !locked.contains(e) && !hidden.contains(e) && !policy_hides(e)
        })
        .collect();
    let mut tops = doc.top_level(&movable);
    if let Some(i) = doc
        .selection
        .primary()
        .and_then(|p| tops.iter().position(|&e| e == p))
    {
        tops[..=i].rotate_right(1);
    }
    tops.into_iter()
        .map(|e| GizmoTarget {
            entity: e,
            local: doc.local_transform(e),
            parent_world: super::policy::parent_world(view, policy, e),
        })
        .collect()
}

/// How an entity's components say it is drawn: decoded once and kept until the entity
/// changes in the replica, so a rebuild decodes only what changed.
#[derive(Debug, Default)]
pub struct LookCache {
    /// The replica state the looks are of.
    version: Option<ReplicaVersion>,
    /// Indexed by entity number (at most 65,536): a hash map's lookups were half the rebuild.
    looks: Vec<Option<(Entity, Look)>>,
}

#[derive(Clone, Debug)]
struct Look {
    visibility: Option<Visibility>,
    /// From MeshRenderer / GltfContainer; a placeholder until the model is looked up.
    shape: Shape,
    /// The GltfContainer's `src`, when it decodes.
    model_src: Option<String>,
    /// The Material of a MeshRenderer shape (models bring their own materials).
    material: Option<MaterialLook>,
}

impl Look {
    fn decode(replica: &Replica, e: Entity) -> Look {
        let shape = Shape::for_entity(
            replica.component_data(e, ids::MESH_RENDERER),
            replica.component_data(e, ids::GLTF_CONTAINER),
        );
        let is_mesh_shape = !matches!(
            shape,
            Shape::Model { .. } | Shape::Marker | Shape::GltfPlaceholder
        );
        Look {
            visibility: replica
                .component_data(e, ids::VISIBILITY)
                .and_then(Visibility::decode),
            model_src: (shape == Shape::GltfPlaceholder)
                .then(|| replica.component_data(e, ids::GLTF_CONTAINER))
                .flatten()
                .and_then(GltfModel::decode)
                .map(|m| m.src),
            material: is_mesh_shape
                .then(|| replica.component_data(e, ids::MATERIAL))
                .flatten()
                .and_then(MaterialLook::decode),
            shape,
        }
    }
}

impl LookCache {
    /// Forgets the looks of entities that changed since the cache was last in step with
    /// `replica` (all of them for another replica or a lost history).
    fn sync(&mut self, replica: &Replica) {
        let current = replica.version();
        match self.version.map(|v| replica.entities_changed_since(v)) {
            Some(Some(changed)) => {
                for e in changed {
                    if let Some(slot) = self.looks.get_mut(usize::from(e.number())) {
                        *slot = None;
                    }
                }
            }
            _ => self.looks.clear(),
        }
        self.version = Some(current);
    }

    fn look(&mut self, replica: &Replica, e: Entity) -> &Look {
        let i = usize::from(e.number());
        if i >= self.looks.len() {
            self.looks.resize_with(i + 1, || None);
        }
        let slot = &mut self.looks[i];
        if !matches!(slot, Some((cached, _)) if *cached == e) {
            *slot = Some((e, Look::decode(replica, e)));
        }
        &slot.as_ref().expect("just filled").1
    }
}

/// The live entities whose model or texture is one of the problems the status bar counts (a
/// file missing or unreadable), in `entities`' order.
pub fn entities_with_asset_problems(
    replica: &Replica,
    entities: impl IntoIterator<Item = Entity>,
    looks: &mut LookCache,
    library: &AssetLibrary,
) -> Vec<Entity> {
    looks.sync(replica);
    (entities.into_iter())
        .filter(|&e| {
            let look = looks.look(replica, e);
            let texture = look.material.as_ref().and_then(|m| match &m.texture {
                Some(TextureSource::File { src }) => Some(src.as_str()),
                _ => None,
            });
            (look.model_src.as_deref().into_iter())
                .chain(texture)
                .any(|src| library.src_has_problem(src))
        })
        .collect()
}

/// Fills `scene`'s items and assets with what a render tree draws (the editor's document, or
/// one simulated peer). Hidden entities (the editor's hide flag) hide their subtrees;
/// `VisibilityComponent { visible: false }` hides the entity's own shape, and its subtree when
/// it propagates; implicit parents (no components) are not drawn. Models and textures the
/// scene names are requested from `library` (loads start in the background) and drawn once
/// loaded; until then, and when they fail, a model's entity shows the placeholder. `selected`
/// says which items are outlined (and what lies below them, in the child colour). Entities the
/// render tree re-roots are tinted, except cycle members when another tree `policy` (not the
/// root fallback) is drawn.
#[allow(clippy::too_many_arguments)] // each is a separate input of the build; no natural group
pub fn draw_items(
    view: &SceneView,
    replica: &Replica,
    hidden: &HashSet<Entity>,
    selected: impl Fn(Entity) -> bool,
    policy: Option<&PolicyWorlds>,
    library: &mut AssetLibrary,
    looks: &mut LookCache,
    scene: &mut ViewportScene,
) {
    looks.sync(replica);
    scene.items.clear();
    scene.assets = Default::default();
    // Each entity with whether an ancestor is selected.
    let mut stack: Vec<(Entity, bool)> =
        view.children_of(Entity::ROOT).map(|e| (e, false)).collect();
    while let Some((e, below_selected)) = stack.pop() {
        if hidden.contains(&e) {
            continue;
        }
        let is_selected = selected(e);
        let look = looks.look(replica, e);
        let visibility = look.visibility;
        let propagates_hidden = visibility.is_some_and(|v| !v.visible && v.propagate_to_children);
        if !propagates_hidden {
            let below = below_selected || is_selected;
            stack.extend(view.children_of(e).map(|c| (c, below)));
        }
        if !view.is_live(e) || visibility.is_some_and(|v| !v.visible) {
            continue;
        }
        let item = draw_item(
            e,
            look,
            view,
            policy,
            library,
            &mut scene.assets,
            is_selected,
            below_selected,
        );
        scene.items.push(item);
    }
}

/// The item `draw_items` draws for the live, visible entity `e` with its decoded `look`:
/// its world matrix from `view`, its shape (the loaded model, once `library` has it), colour
/// and texture. The loaded model and texture it names are added to `assets`.
#[allow(clippy::too_many_arguments)] // the walk's state and the build's inputs, as draw_items
fn draw_item(
    e: Entity,
    look: &Look,
    view: &SceneView,
    policy: Option<&PolicyWorlds>,
    library: &mut AssetLibrary,
    assets: &mut SceneAssets,
    is_selected: bool,
    below_selected: bool,
) -> DrawItem {
    let mut shape = look.shape;
    if let Some(id) = look
        .model_src
        .as_deref()
        .and_then(|src| library.request_src(src).ok())
        && let Some(model) = library.model(id)
    {
        shape = Shape::Model {
            asset: id,
            bounds: model.bounds,
        };
        assets.models.insert(id, model.clone());
    }
    let fallback = match view.fallback_reason(e) {
        // The tint says "drawn at the root by the runtime's fallback"; another policy
        // resolves cycles its own way (even where it also leaves a member at the root).
        Fallback::Cycle(_) if policy.is_some() => Fallback::None,
        reason => reason,
    };
    let mut color = color_for(e, fallback);
    let mut texture = None;
    if let Some(material) = &look.material {
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
            assets.textures.insert(id, loaded);
            id
        });
    }
    DrawItem {
        entity: e,
        world: view.world_matrix(e).unwrap_or_default(),
        shape,
        color,
        texture,
        selected: is_selected,
        below_selected: below_selected && !is_selected,
    }
}

/// Where each drawn entity's item is in the scene's items: indexed by entity number (at most
/// 65,536), checked against the item's entity (a number's older version is another entity).
#[derive(Debug, Default)]
pub(super) struct ItemIndex {
    slots: Vec<u32>,
}

impl ItemIndex {
    const NONE: u32 = u32::MAX;

    /// Indexes `items` (after a full build).
    pub(super) fn rebuild(&mut self, items: &[DrawItem]) {
        self.slots.clear();
        for (i, item) in items.iter().enumerate() {
            let n = usize::from(item.entity.number());
            if n >= self.slots.len() {
                self.slots.resize(n + 1, Self::NONE);
            }
            self.slots[n] = i as u32;
        }
    }

    /// The index of `e`'s item in `items` (those indexed), if it is drawn.
    fn get(&self, e: Entity, items: &[DrawItem]) -> Option<usize> {
        let i = *self.slots.get(usize::from(e.number()))? as usize;
        (items.get(i)?.entity == e).then_some(i)
    }
}

/// Brings the items of `scene` (built by [`draw_items`] from the same render-tree structure,
/// selection, hidden set and loaded assets, without a tree policy) up to date after the
/// entities `changed` changed in `replica` (their components, so their own items and their
/// subtrees' world matrices): walks only those subtrees, as [`draw_items`] walks the whole
/// tree. Returns the indices of the items that differ, ascending; `None`, with nothing
/// written, when an entity would be drawn or hidden anew, or its model or texture changed
/// (the set of items and the scene's assets are a full build's to decide).
#[allow(clippy::too_many_arguments)] // the inputs of draw_items, plus what changed
pub(super) fn update_items(
    scene: &mut ViewportScene,
    index: &ItemIndex,
    changed: &[Entity],
    view: &SceneView,
    replica: &Replica,
    hidden: &HashSet<Entity>,
    selected: impl Fn(Entity) -> bool,
    library: &mut AssetLibrary,
    looks: &mut LookCache,
) -> Option<Vec<u32>> {
    looks.sync(replica);
    let propagates_hidden = |look: &Look| {
        look.visibility
            .is_some_and(|v| !v.visible && v.propagate_to_children)
    };
    // The items that differ, written once every subtree has been checked.
    let mut updates: Vec<(u32, DrawItem)> = Vec::new();
    let mut visited: FxHashSet<Entity> = FxHashSet::default();
    // (entity, not reached by draw_items' walk, below a selected entity)
    let mut stack: Vec<(Entity, bool, bool)> = Vec::new();
    // Models and textures are the full build's to collect; changed ones are refused below.
    let mut no_assets = SceneAssets::default();
    // What the walk from the root carries into each ancestor met walking up (see below).
    let mut carried_into: FxHashMap<Entity, (bool, bool)> = FxHashMap::default();
    let mut path: Vec<Entity> = Vec::new();
    for &top in changed {
        if top.is_root() || visited.contains(&top) {
            continue;
        }
        if !view.contains(top) {
            // Gone from the tree (the caller sees that as a structure change anyway).
            match index.get(top, &scene.items) {
                Some(_) => return None,
                None => continue,
            }
        }
        // What draw_items' walk from the root carries down to `top` (hidden below an ancestor,
        // below a selected one), from its ancestors as they are now, changed ones included.
        // Each ancestor is looked at once however many changed entities lie below it: walking
        // up from each of thousands of changed entities along a deep chain would cost their
        // number times the depth.
        path.clear();
        let mut carried = (false, false);
        let mut up = view.effective_parent_of(top);
        while let Some(a) = up.filter(|a| !a.is_root()) {
            if let Some(&into) = carried_into.get(&a) {
                carried = into;
                path.push(a);
                break;
            }
            path.push(a);
            up = view.effective_parent_of(a);
        }
        for &a in path.iter().rev() {
            let into = *carried_into.entry(a).or_insert(carried);
            carried = (
                into.0 || hidden.contains(&a) || propagates_hidden(looks.look(replica, a)),
                into.1 || selected(a),
            );
        }
        let (pruned, below) = carried;
        stack.push((top, pruned, below));
        while let Some((e, pruned, below)) = stack.pop() {
            // A subtree already walked (below another changed entity) is done.
            if !visited.insert(e) {
                continue;
            }
            let pruned = pruned || hidden.contains(&e);
            let is_selected = selected(e);
            let mut hides_children = pruned;
            let drawn = !pruned && {
                let look = looks.look(replica, e);
                hides_children |= propagates_hidden(look);
                view.is_live(e) && look.visibility.is_none_or(|v| v.visible)
            };
            match (drawn, index.get(e, &scene.items)) {
                (false, None) => {}
                (true, Some(i)) => {
                    let look = looks.look(replica, e);
                    let item = draw_item(
                        e,
                        look,
                        view,
                        None,
                        library,
                        &mut no_assets,
                        is_selected,
                        below,
                    );
                    let old = &scene.items[i];
                    let model = |i: &DrawItem| match i.shape {
                        Shape::Model { asset, .. } => Some(asset),
                        _ => None,
                    };
                    if model(&item) != model(old) || item.texture != old.texture {
                        return None;
                    }
                    if item != *old {
                        updates.push((i as u32, item));
                    }
                }
                _ => return None, // drawn anew, or no longer
            }
            let below = below || (!pruned && is_selected);
            stack.extend(view.children_of(e).map(|c| (c, hides_children, below)));
        }
    }
    updates.sort_unstable_by_key(|(i, _)| *i);
    Some(
        updates
            .into_iter()
            .map(|(i, item)| {
                scene.items[i as usize] = item;
                i
            })
            .collect(),
    )
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
        stats: scenetree_viewport::models::ModelStats,
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
            reason: reason.to_string(),
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
